/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fixedpoint.h — gemmlowp's fixed-point primitives in C, as TFLite's
 * reference kernels use them (softmax, logistic, tanh, hard-swish).
 *
 * A fixed-point value is a raw int32 (or int16) plus a number of integer
 * bits I known to the caller: the value is raw / 2^(31 - I) (int16: 15 - I).
 * "Q0" below means I = 0, i.e. the range [-1, 1).
 *
 * Semantics follow gemmlowp bit for bit: plain additions wrap (they are
 * done in uint32 here so the wrap is defined), multiplications are
 * SaturatingRoundingDoublingHighMul, rescales saturate when shifting left and
 * round to nearest (ties away from zero) when shifting right.
 */
#ifndef EDGE_KERNELS_FIXEDPOINT_H
#define EDGE_KERNELS_FIXEDPOINT_H

#include <stdint.h>

/* Wrapping int32 addition and subtraction (gemmlowp Add / Sub). */
static inline int32_t edge_fp_add(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a + (uint32_t)b);
}
static inline int32_t edge_fp_sub(int32_t a, int32_t b) {
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

/* RoundingHalfSum: (a + b) / 2 rounded to nearest, ties away from zero. */
int32_t edge_fp_rounding_half_sum(int32_t a, int32_t b);

/* SaturatingRoundingMultiplyByPOT: x * 2^exponent, saturating for
 * exponent > 0, RoundingDivideByPOT for exponent < 0 (exponent in -31..31). */
int32_t edge_fp_mul_pot(int32_t x, int exponent);

/* Rescale: the same value moved from src_int_bits to dst_int_bits. */
static inline int32_t edge_fp_rescale(int32_t x, int src_int_bits, int dst_int_bits) {
    return edge_fp_mul_pot(x, src_int_bits - dst_int_bits);
}

/* exp(a) for a <= 0 given with int_bits integer bits (0..29); Q0 result. */
int32_t edge_fp_exp_on_negative_values(int32_t a, int int_bits);

/* 1 / (1 + a) for a in [0, 1), Q0 in and out. */
int32_t edge_fp_one_over_one_plus_x_for_x_in_0_1(int32_t a);

/* (1 - a) / (1 + a) for a in [0, 1), Q0 in and out. */
int32_t edge_fp_one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a);

/* tanh(a) and logistic(a) for any a with int_bits integer bits
 * (0..28 for tanh, 0..29 for logistic); Q0 result. */
int32_t edge_fp_tanh(int32_t a, int int_bits);
int32_t edge_fp_logistic(int32_t a, int int_bits);

/* TFLite GetReciprocal: for x > 0 with x_integer_digits integer bits,
 * returns a Q0 value s and *num_bits_over_unit n with 1/x ~= s * 2^-n. */
int32_t edge_fp_get_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit);

/* Count of leading zero bits of x (32 for 0). */
int edge_fp_clz32(uint32_t x);

/* int16 raw values (gemmlowp's 16-bit specialisations). */
int16_t edge_fp_srdhm16(int16_t a, int16_t b);        /* SaturatingRoundingDoublingHighMul */
int16_t edge_fp_rdbpot16(int16_t x, int exponent);    /* RoundingDivideByPOT, 0..31 */

#endif
