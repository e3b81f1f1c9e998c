/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quant.h — TFLite's fixed-point quantization arithmetic, bit for bit.
 *
 * These are the reference kernels' rules (gemmlowp double rounding, not the
 * single-rounding variant), shared by every op and by edgeq.
 */
#ifndef EDGE_QUANT_H
#define EDGE_QUANT_H

#include <stdint.h>

#include "edge/quant.h" /* the part edgeq shares: multipliers, rounding */

/* The per-element requantization primitives are inline: they sit in every
 * kernel's inner loop. */

/* gemmlowp SaturatingRoundingDoublingHighMul. */
static inline int32_t edge_srdhm(int32_t a, int32_t b) {
    if (a == b && a == INT32_MIN) return INT32_MAX;
    int64_t ab = (int64_t)a * (int64_t)b;
    int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    /* Division truncates toward zero, as gemmlowp relies on. */
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp RoundingDivideByPOT (exponent 0..31). */
static inline int32_t edge_rdbpot(int32_t x, int exponent) {
    int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    int32_t remainder = x & mask;
    int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x << s with the wrap TFLite's int32 arithmetic has, without UB. */
static inline int32_t edge_shl_wrap(int32_t x, int s) { return (int32_t)((uint32_t)x << s); }

/* TFLite MultiplyByQuantizedMultiplier(x, multiplier, shift): shift > 0 is a
 * left shift applied before the high multiply. */
static inline int32_t edge_mbqm(int32_t x, int32_t multiplier, int shift) {
    int left = shift > 0 ? shift : 0;
    int right = shift > 0 ? 0 : -shift;
    return edge_rdbpot(edge_srdhm(edge_shl_wrap(x, left), multiplier), right);
}

/* edge_mbqm for requantizations outside the SIMD kernels (RELU, MUL, ...):
 * at -Os one out-of-line copy (quant.c) that they all call, where the
 * compiler would otherwise keep a copy in each object; inline otherwise. */
#ifdef __OPTIMIZE_SIZE__
int32_t edge_mbqm_shared(int32_t x, int32_t multiplier, int shift);
#else
static inline int32_t edge_mbqm_shared(int32_t x, int32_t multiplier, int shift) {
    return edge_mbqm(x, multiplier, shift);
}
#endif

/* MultiplyByQuantizedMultiplierSmallerThanOneExp (shift <= 0). */
static inline int32_t edge_mbqm_smaller_than_one(int32_t x, int32_t multiplier, int left_shift) {
    return edge_rdbpot(edge_srdhm(x, multiplier), -left_shift);
}

/* MultiplyByQuantizedMultiplierGreaterThanOne (left_shift >= 0). */
static inline int32_t edge_mbqm_greater_than_one(int32_t x, int32_t multiplier, int left_shift) {
    return edge_srdhm(edge_shl_wrap(x, left_shift), multiplier);
}

/* TFLite ActivationFunctionType */
enum { EDGE_ACT_NONE = 0, EDGE_ACT_RELU = 1, EDGE_ACT_RELU_N1_TO_1 = 2, EDGE_ACT_RELU6 = 3,
       EDGE_ACT_TANH = 4, EDGE_ACT_SIGN_BIT = 5 };
/* CalculateActivationRangeQuantized: the clamp range of a fused activation
 * on an output with (scale, zp) and type range [qmin, qmax]. Returns 0 if the
 * activation cannot be fused (TANH, SIGN_BIT). */
int edge_act_range_q(int act, float scale, int32_t zp, int32_t qmin, int32_t qmax, int32_t *lo,
                     int32_t *hi);
/* CalculateActivationRange for float. */
int edge_act_range_f(int act, float *lo, float *hi);

static inline int32_t edge_clamp_i32(int32_t v, int32_t lo, int32_t hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

#endif
