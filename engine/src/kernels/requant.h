/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requant.h — TFLite's MultiplyByQuantizedMultiplier in a branch-free form
 * for the kernels' output loops, bit-exact with edge_mbqm (quant.h) for every
 * int32 input, multiplier and shift in -31..31.
 *
 * With ab = (x << left) * multiplier in 64 bits:
 * - SaturatingRoundingDoublingHighMul adds 2^30 (ab >= 0) or 1 - 2^30
 *   (ab < 0) and divides by 2^31 truncating toward zero. In both cases that
 *   equals floor((ab + 2^30) / 2^31), an arithmetic shift. Its saturating
 *   case (INT32_MIN * INT32_MIN, only reachable with a negative scale) is the
 *   one where that exceeds INT32_MAX: clamped.
 * - RoundingDivideByPOT(h, right) rounds half away from zero, which is
 *   floor((h + 2^(right-1) - [h < 0]) / 2^right) for right >= 1, and h for 0
 *   (taken in 32 bits, see edge_rq_apply).
 * The per-channel constants (left, right, the rounding term) are computed
 * once by edge_rq_make, outside the loops.
 */
#ifndef EDGE_KERNELS_REQUANT_H
#define EDGE_KERNELS_REQUANT_H

#include <stdint.h>

typedef struct edge_rq {
    int32_t mult;
    int32_t left, right;
    int32_t round; /* 2^(right-1), or 0 when right == 0 */
    int64_t neg;   /* 1 when right >= 1, else 0: subtracted for h < 0 */
} edge_rq;

/* shift: TFLite's (> 0 = left), -31..31. */
static inline edge_rq edge_rq_make(int32_t mult, int32_t shift) {
    edge_rq r;
    r.mult = mult;
    r.left = shift > 0 ? shift : 0;
    r.right = shift > 0 ? 0 : -shift;
    r.round = r.right > 0 ? (int32_t)((uint32_t)1 << (r.right - 1)) : 0;
    r.neg = r.right > 0 ? 1 : 0;
    return r;
}

static inline int32_t edge_rq_apply(uint32_t acc, int32_t mult, int32_t left, int32_t right,
                                    int32_t round, int64_t neg) {
    const int64_t ab = (int64_t)(int32_t)(acc << left) * (int64_t)mult;
    const int64_t h64 = (ab + ((int64_t)1 << 30)) >> 31;
    const int32_t h = h64 > INT32_MAX ? INT32_MAX : (int32_t)h64;
    /* The rounding shift in 32 bits (cheaper on 32-bit cores): with
     * h = q * 2^right + rem, 0 <= rem < 2^right, it is
     * q + ((rem + round - [h < 0]) >> right), and that sum is >= 0 and
     * < 2^32. mask = 2^right - 1 = 2 * round - neg (0 when right == 0). */
    const uint32_t n = (uint32_t)neg, r = (uint32_t)round;
    const uint32_t t = ((uint32_t)h & (2u * r - n)) + r - (((uint32_t)h >> 31) & n);
    return (h >> right) + (int32_t)(t >> right);
}

#endif
