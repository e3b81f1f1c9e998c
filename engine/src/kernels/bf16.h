/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bf16.h — bfloat16 <-> float32, freestanding.
 *
 * bfloat16 is the top half of an IEEE float32 (sign, 8-bit exponent, 7-bit
 * mantissa). Widening is exact: a 16-bit shift. Narrowing rounds to nearest,
 * ties to even, as ml_dtypes and TPUs do: finite values too large round to
 * +-Inf, +-Inf stay, and a NaN stays a NaN (quieted, so rounding can never
 * carry its payload into the exponent and make it Inf).
 */
#ifndef EDGE_KERNELS_BF16_H
#define EDGE_KERNELS_BF16_H

#include <stdint.h>

static inline uint32_t edge_f32_bits(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    return v.u;
}

static inline float edge_bits_f32(uint32_t u) {
    union { float f; uint32_t u; } v;
    v.u = u;
    return v.f;
}

static inline float edge_bf16_to_f32(uint16_t b) { return edge_bits_f32((uint32_t)b << 16); }

static inline uint16_t edge_f32_to_bf16(float f) {
    const uint32_t u = edge_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN */
    /* Add half an ulp of bf16 minus one, plus the kept lsb: ties go to even. */
    const uint32_t r = u + 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(r >> 16);
}

#endif
