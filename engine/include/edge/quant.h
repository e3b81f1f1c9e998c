/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quant.h — the part of TFLite's quantization arithmetic that edgeq shares
 * with the engine: multipliers and rounding, bit for bit as the reference
 * kernels compute them (the engine's kernels keep their inline
 * requantization primitives private).
 */
#ifndef EDGE_PUBLIC_QUANT_H
#define EDGE_PUBLIC_QUANT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TFLite QuantizeMultiplier: real = q * 2^(shift - 31), q in [2^30, 2^31). */
void edge_quantize_multiplier(double real, int32_t *q, int *shift);
void edge_quantize_multiplier_smaller_than_one(double real, int32_t *q, int *shift);
void edge_quantize_multiplier_greater_than_one(double real, int32_t *q, int *left_shift);
/* PreprocessSoftmaxScaling / PreprocessLogSoftmaxScaling helpers. */
void edge_preprocess_softmax_scaling(double beta, double input_scale, int input_integer_bits,
                                     int32_t *q, int *left_shift);
int edge_calculate_input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits);

/* Freestanding frexp and std::round (half away from zero). */
double edge_frexp(double x, int *exp);
double edge_round(double x);
float edge_roundf(float x);
/* Saturating float -> int32 as TFLite's quantize paths use. */
int32_t edge_round_to_i32(double x);

#ifdef __cplusplus
}
#endif
#endif
