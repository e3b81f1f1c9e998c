/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_neon.c — the systolic array's int8 inner tile on Arm NEON
 * (Raspberry Pi: aarch64, and 32-bit armhf with -mfpu=neon*).
 *
 * Built when EDGE_SYSTOLIC_NEON is defined (see systolic.h); otherwise this
 * file is empty and the portable tile in systolic.c is used.
 *
 * Two inner loops, picked by what the compiler targets:
 *  - with dotprod (__ARM_FEATURE_DOTPROD, e.g. -mcpu=cortex-a76 on a Pi 5):
 *    SDOT, 16 int8 MACs per instruction into four int32 lanes;
 *  - otherwise: SMULL 8x8->16 then SADALP pairwise-adds the int16 products
 *    into int32 lanes. Each int16 lane holds one product, never a sum of
 *    two: (-128)*(-128) + (-128)*(-128) = 32768 would not fit.
 * Every lane and the final sums wrap modulo 2^32, which is exactly the
 * uint32 arithmetic of the portable tile, so the results are bit-exact.
 */
#include "../systolic.h"

#if defined(EDGE_SYSTOLIC_NEON)

#if !defined(__ARM_NEON) && !defined(__ARM_NEON__)
#error "EDGE_SYSTOLIC_NEON needs a NEON target (aarch64, or -mfpu=neon* on 32-bit Arm)"
#endif

#include <arm_neon.h>

/* Sum of the lanes, modulo 2^32. */
static inline uint32_t hsum_s32(int32x4_t v) {
#if defined(__aarch64__)
    return (uint32_t)vaddvq_s32(v);
#else
    int32x2_t s = vpadd_s32(vget_low_s32(v), vget_high_s32(v));
    return (uint32_t)vget_lane_s32(vpadd_s32(s, s), 0);
#endif
}

/* The four lane sums of s0..s3, as one vector {sum s0, sum s1, sum s2, sum s3}. */
static inline int32x4_t hsum4_s32(int32x4_t s0, int32x4_t s1, int32x4_t s2, int32x4_t s3) {
#if defined(__aarch64__)
    return vpaddq_s32(vpaddq_s32(s0, s1), vpaddq_s32(s2, s3));
#else
    int32x2_t p0 = vpadd_s32(vget_low_s32(s0), vget_high_s32(s0));
    int32x2_t p1 = vpadd_s32(vget_low_s32(s1), vget_high_s32(s1));
    int32x2_t p2 = vpadd_s32(vget_low_s32(s2), vget_high_s32(s2));
    int32x2_t p3 = vpadd_s32(vget_low_s32(s3), vget_high_s32(s3));
    return vcombine_s32(vpadd_s32(p0, p1), vpadd_s32(p2, p3));
#endif
}

#if defined(__ARM_FEATURE_DOTPROD)
/* acc += x . w over 16 lanes, four int32 partial sums. */
#define MAC16(acc, x, w) ((acc) = vdotq_s32((acc), (x), (w)))
#define MAC8(acc, x, w) \
    ((acc) = vcombine_s32(vdot_s32(vget_low_s32(acc), (x), (w)), vget_high_s32(acc)))
#else
#if defined(__aarch64__)
#define MAC16(acc, x, w)                                                  \
    ((acc) = vpadalq_s16(vpadalq_s16((acc), vmull_s8(vget_low_s8(x), vget_low_s8(w))), \
                         vmull_high_s8((x), (w))))
#else
#define MAC16(acc, x, w)                                                  \
    ((acc) = vpadalq_s16(vpadalq_s16((acc), vmull_s8(vget_low_s8(x), vget_low_s8(w))), \
                         vmull_s8(vget_high_s8(x), vget_high_s8(w))))
#endif
#define MAC8(acc, x, w) ((acc) = vpadalq_s16((acc), vmull_s8((x), (w))))
#endif

/* Scalar products for the last k % 8 elements, modulo 2^32. */
static inline uint32_t dot_tail(const int8_t *a, const int8_t *w, int32_t from, int32_t k) {
    uint32_t s = 0;
    for (int32_t i = from; i < k; i++) s += (uint32_t)((int32_t)a[i] * (int32_t)w[i]);
    return s;
}

void systolic_tile_dot_s8_variant(const int8_t *a, const int8_t *w, int32_t ws, int32_t k,
                                  int32_t nc, uint32_t *acc) {
    const int32_t k16 = k & ~15, k8 = k & ~7;
    int32_t c = 0;
    for (; c + 4 <= nc; c += 4) {
        const int8_t *w0 = w + (int64_t)c * ws, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;
        int32x4_t s0 = vdupq_n_s32(0), s1 = s0, s2 = s0, s3 = s0;
        int32_t i = 0;
        for (; i < k16; i += 16) {
            const int8x16_t x = vld1q_s8(a + i);
            MAC16(s0, x, vld1q_s8(w0 + i));
            MAC16(s1, x, vld1q_s8(w1 + i));
            MAC16(s2, x, vld1q_s8(w2 + i));
            MAC16(s3, x, vld1q_s8(w3 + i));
        }
        if (i < k8) {
            const int8x8_t x = vld1_s8(a + i);
            MAC8(s0, x, vld1_s8(w0 + i));
            MAC8(s1, x, vld1_s8(w1 + i));
            MAC8(s2, x, vld1_s8(w2 + i));
            MAC8(s3, x, vld1_s8(w3 + i));
            i += 8;
        }
        uint32_t sums[4];
        vst1q_u32(sums, vreinterpretq_u32_s32(hsum4_s32(s0, s1, s2, s3)));
        acc[c] = sums[0] + dot_tail(a, w0, i, k);
        acc[c + 1] = sums[1] + dot_tail(a, w1, i, k);
        acc[c + 2] = sums[2] + dot_tail(a, w2, i, k);
        acc[c + 3] = sums[3] + dot_tail(a, w3, i, k);
    }
    for (; c < nc; c++) {
        const int8_t *w0 = w + (int64_t)c * ws;
        int32x4_t s0 = vdupq_n_s32(0);
        int32_t i = 0;
        for (; i < k16; i += 16) MAC16(s0, vld1q_s8(a + i), vld1q_s8(w0 + i));
        if (i < k8) {
            MAC8(s0, vld1_s8(a + i), vld1_s8(w0 + i));
            i += 8;
        }
        acc[c] = hsum_s32(s0) + dot_tail(a, w0, i, k);
    }
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int systolic_neon_unused;
#endif
