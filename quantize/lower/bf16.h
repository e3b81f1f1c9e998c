/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bf16.h — float32 -> bfloat16 for the host tools (the quantizer's bf16
 * weights), rounding as ml_dtypes and TensorFlow do.
 *
 * bfloat16 is the top 16 bits of an IEEE float32 (sign, 8-bit exponent,
 * 7-bit mantissa): same range, 8 significant bits. Conversion rounds to
 * nearest, ties to even; values beyond the largest bf16 round to infinity;
 * +-Inf stay +-Inf; any NaN becomes the quiet NaN of its sign (0x7FC0 /
 * 0xFFC0, as ml_dtypes and Eigen write it) — never an infinity, which naive
 * rounding of a NaN with only low payload bits would give.
 */
#ifndef EDGEQ_BF16_H
#define EDGEQ_BF16_H

#include <stddef.h>
#include <stdint.h>

uint16_t edgeq_bf16_from_f32(float f);
float edgeq_bf16_to_f32(uint16_t b);

/* n floats -> n bf16 values, little-endian bytes (what a .tflite buffer
 * holds whatever the host's byte order). */
void edgeq_bf16_pack(const float *src, size_t n, uint8_t *dst);

#endif
