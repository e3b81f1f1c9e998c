/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fixedpoint.c — gemmlowp's fixed-point math in C (see fixedpoint.h).
 *
 * The constants are gemmlowp's raw Q-format values (exp(-1/8), 1/3, the
 * exp(-2^k) barrel-shifter multipliers, 48/17 and -32/17 for the
 * Newton-Raphson division); changing any of them breaks bit exactness.
 */
#include "../fixedpoint.h"

#include "../../quant.h"

int edge_fp_clz32(uint32_t x) {
    if (!x) return 32;
    int n = 0;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

int32_t edge_fp_rounding_half_sum(int32_t a, int32_t b) {
    int64_t sum = (int64_t)a + (int64_t)b;
    int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2); /* C division truncates, as gemmlowp's */
}

int32_t edge_fp_mul_pot(int32_t x, int exponent) {
    if (exponent == 0) return x;
    if (exponent < 0) return edge_rdbpot(x, -exponent);
    const int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return (int32_t)((uint32_t)x << exponent);
}

/* Q0 constants. */
#define FP_ONE_Q0 INT32_MAX            /* One() with no integer bits saturates */
#define FP_EXP_MINUS_ONE_EIGHTH 1895147668
#define FP_ONE_THIRD 715827883
/* Q2 constants of the Newton-Raphson reciprocal. */
#define FP_48_OVER_17 1515870810
#define FP_NEG_32_OVER_17 (-1010580540)
#define FP_ONE_Q2 (1 << 29)

/* exp(a) for a in [-1/4, 0), Q0: Taylor expansion around -1/8. */
static int32_t exp_on_interval_minus_quarter_to_0(int32_t a) {
    const int32_t x = edge_fp_add(a, 1 << 28); /* a + 1/8 */
    const int32_t x2 = edge_srdhm(x, x);
    const int32_t x3 = edge_srdhm(x2, x);
    const int32_t x4 = edge_srdhm(x2, x2);
    const int32_t x4_over_4 = edge_fp_mul_pot(x4, -2);
    const int32_t poly = edge_fp_mul_pot(
        edge_fp_add(edge_srdhm(edge_fp_add(x4_over_4, x3), FP_ONE_THIRD), x2), -1);
    return edge_fp_add(FP_EXP_MINUS_ONE_EIGHTH,
                       edge_srdhm(FP_EXP_MINUS_ONE_EIGHTH, edge_fp_add(x, poly)));
}

int32_t edge_fp_exp_on_negative_values(int32_t a, int int_bits) {
    /* exp(-2^k) in Q0 for k = -2..4, applied for each set bit of the
     * integer part of -a (in quarters). */
    static const int32_t barrel[7] = {1672461947, 1302514674, 790015084, 290630308,
                                      39332535,   720401,     242};
    const int frac_bits = 31 - int_bits;
    const int32_t one_quarter = (int32_t)1 << (frac_bits - 2);
    const int32_t mask = one_quarter - 1;
    const int32_t a_mod_quarter_minus_quarter = edge_fp_sub(a & mask, one_quarter);
    int32_t result = exp_on_interval_minus_quarter_to_0(
        edge_fp_rescale(a_mod_quarter_minus_quarter, int_bits, 0));
    const int32_t remainder = edge_fp_sub(a_mod_quarter_minus_quarter, a);
    for (int k = -2; k <= 4; k++) {
        if (int_bits > k) {
            const int shift = frac_bits + k;
            if (remainder & ((int32_t)1 << shift)) result = edge_srdhm(result, barrel[k + 2]);
        }
    }
    if (int_bits > 5) {
        /* Below -32 the result is zero. */
        const int32_t clamp = -((int32_t)1 << (36 - int_bits));
        if (a < clamp) result = 0;
    }
    if (a == 0) result = FP_ONE_Q0;
    return result;
}

/* Newton-Raphson iterations for 1 / (half_denominator) in Q2, shared by
 * the two divisions below. */
static int32_t reciprocal_of_half_denominator(int32_t half_denominator) {
    int32_t x = edge_fp_add(FP_48_OVER_17, edge_srdhm(half_denominator, FP_NEG_32_OVER_17));
    for (int i = 0; i < 3; i++) {
        const int32_t half_denominator_times_x = edge_srdhm(half_denominator, x);
        const int32_t one_minus = edge_fp_sub(FP_ONE_Q2, half_denominator_times_x);
        /* Q2 * Q2 = Q4, rescaled back to Q2. */
        x = edge_fp_add(x, edge_fp_rescale(edge_srdhm(x, one_minus), 4, 2));
    }
    return x;
}

int32_t edge_fp_one_over_one_plus_x_for_x_in_0_1(int32_t a) {
    const int32_t half_denominator = edge_fp_rounding_half_sum(a, FP_ONE_Q0);
    const int32_t x = reciprocal_of_half_denominator(half_denominator);
    /* x / 2, read as Q1, rescaled to Q0. */
    return edge_fp_rescale(x, 1, 0);
}

int32_t edge_fp_one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
    const int32_t half_denominator = edge_fp_rounding_half_sum(a, FP_ONE_Q0);
    const int32_t x = reciprocal_of_half_denominator(half_denominator);
    return edge_fp_rescale(edge_fp_sub(x, FP_ONE_Q2), 2, 0);
}

int32_t edge_fp_tanh(int32_t a, int int_bits) {
    if (a == 0) return 0;
    const int32_t n = a < 0 ? a : edge_fp_sub(0, a); /* -|a| */
    /* -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)); 2n is n read with one more
     * integer bit. */
    const int32_t t = edge_fp_one_minus_x_over_one_plus_x_for_x_in_0_1(
        edge_fp_exp_on_negative_values(n, int_bits + 1));
    return a < 0 ? edge_fp_sub(0, t) : t;
}

int32_t edge_fp_logistic(int32_t a, int int_bits) {
    if (a == 0) return 1 << 30; /* one half */
    const int32_t abs_a = a > 0 ? a : edge_fp_sub(0, a);
    const int32_t pos = edge_fp_one_over_one_plus_x_for_x_in_0_1(
        edge_fp_exp_on_negative_values(edge_fp_sub(0, abs_a), int_bits));
    return a > 0 ? pos : edge_fp_sub(FP_ONE_Q0, pos);
}

int32_t edge_fp_get_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit) {
    const int headroom_plus_one = edge_fp_clz32((uint32_t)x);
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    /* Normalise x into [1, 2) and keep the part above one, as Q0. */
    const int32_t shifted_minus_one =
        (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31));
    return edge_fp_one_over_one_plus_x_for_x_in_0_1(shifted_minus_one);
}

/* The low 16 bits of v as a signed value (defined behaviour, unlike a cast
 * of an out-of-range value). */
static int16_t wrap16(int32_t v) {
    int32_t low = v & 0xffff;
    return (int16_t)(low >= 0x8000 ? low - 0x10000 : low);
}

int16_t edge_fp_srdhm16(int16_t a, int16_t b) {
    if (a == b && a == INT16_MIN) return INT16_MAX;
    const int32_t ab = (int32_t)a * (int32_t)b;
    const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

int16_t edge_fp_rdbpot16(int16_t x, int exponent) {
    /* gemmlowp's int16 instance keeps every intermediate in int16, so the
     * mask wraps for exponents of 16 and more; mirrored here. */
    const int16_t mask = wrap16((int32_t)(((int64_t)1 << exponent) - 1));
    const int16_t remainder = (int16_t)(x & mask);
    const int16_t threshold = wrap16((mask >> 1) + (x < 0 ? 1 : 0));
    return wrap16((x >> exponent) + (remainder > threshold ? 1 : 0));
}
