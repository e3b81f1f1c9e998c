/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requant_dsp.h — requant.h's edge_rq_apply in four Cortex-M DSP
 * instructions (ADD, SUB, SMMLAR, ASR) for the multipliers convolutions
 * have, bit-exact with it; for the builds with EDGE_SYSTOLIC_DSP.
 *
 * It applies when mult is in [2^30, 2^31) (what QuantizeMultiplier gives
 * for any nonzero scale), the TFLite shift is in -31..-1 (right = -shift,
 * no left shift), and |acc| + 2^(right-1) < 2^31. Then:
 * - h = SaturatingRoundingDoublingHighMul(acc, mult) = floor((acc * mult +
 *   2^30) / 2^31) never saturates, and |h| <= |acc|.
 * - With m2 = 2 * mult - 2^32 (the int32 that 2 * mult wraps to), SMMLAR
 *   acc, m2, a = a + floor((acc * m2 + 2^31) / 2^32) = a + h - acc.
 * - gemmlowp's RoundingDivideByPOT(h, right) is floor((h + 2^(right-1) -
 *   [h < 0]) / 2^right). [h < 0] may be replaced by [acc < 0]: they differ
 *   only when h == 0 and acc < 0, where both give 0 for right >= 1.
 * So out = SMMLAR(acc, m2, acc + 2^(right-1) - [acc < 0]) >> right, where
 * the addend may wrap (SMMLAR's sum is modulo 2^64) but the result,
 * h + 2^(right-1) - [acc < 0], fits by the bound on |acc|.
 * Kernels know their bound ahead: |start| + span + 2^(right-1) < 2^31
 * (edge_rq_dsp_fits), with start the accumulator's initial value (the
 * bias) and span the most the products can add (k * 2^14 for int8 times
 * int8). Otherwise, and for other multipliers, they take edge_rq_apply.
 * tests/boards/systolic_check.c checks the equality on the core itself.
 */
#ifndef EDGE_KERNELS_REQUANT_DSP_H
#define EDGE_KERNELS_REQUANT_DSP_H

#include <stdint.h>

typedef struct edge_rq_dsp {
    int32_t mult2; /* 2 * mult - 2^32 */
    int32_t round; /* 2^(right - 1) */
    int32_t right; /* 1..31 */
} edge_rq_dsp;

/* The constants for (mult, shift); 0 when the pair needs edge_rq_apply. */
static inline int edge_rq_dsp_make(int32_t mult, int32_t shift, edge_rq_dsp *q) {
    if (mult < 0x40000000 || shift > -1 || shift < -31) return 0;
    q->mult2 = (int32_t)((uint32_t)mult << 1);
    q->right = -shift;
    q->round = (int32_t)(1u << (q->right - 1));
    return 1;
}

/* 1 when every accumulator in start + [-span, span] is in range for q. */
static inline int edge_rq_dsp_fits(int32_t start, uint32_t span, const edge_rq_dsp *q) {
    const uint32_t mag = start < 0 ? 0u - (uint32_t)start : (uint32_t)start;
    const uint32_t room = 0x7fffffffu - (uint32_t)q->round;
    return span <= room && mag <= room - span;
}

/* |start| + span + 2^(right-1), which does not wrap for span < 2^30:
 * edge_rq_dsp_fits(start, span, q) is exactly need <= 0x7fffffff (one
 * compare for table builders, which may add more to it). */
static inline uint32_t edge_rq_dsp_need(int32_t start, uint32_t span, const edge_rq_dsp *q) {
    const uint32_t mag = start < 0 ? 0u - (uint32_t)start : (uint32_t)start;
    return mag + span + (uint32_t)q->round;
}

/* (a << 32 + x * m + 2^31) >> 32, wrapped to 32 bits. */
static inline int32_t edge_smmlar(int32_t x, int32_t m, int32_t a) {
    int32_t d;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(d) : "r"(x), "r"(m), "r"(a));
    return d;
}

/* The requantized acc, within edge_rq_dsp_fits' bound. */
static inline int32_t edge_rq_dsp_apply(int32_t acc, const edge_rq_dsp *q) {
    const uint32_t a = (uint32_t)acc + (uint32_t)q->round - ((uint32_t)acc >> 31);
    return edge_smmlar(acc, q->mult2, (int32_t)a) >> q->right;
}

/* The bytes d[0..n) clamped to [lo, hi] (within int8), four at a time:
 * SSUB8 sets a lane's GE flag where the difference is >= 0, SEL keeps
 * that lane of the first operand. For fused activations, after kernels
 * that saturate to the whole int8 range: clamp(sat8(v)) = clamp(v). */
static inline void edge_clamp_s8(int8_t *d, int32_t n, int32_t lo, int32_t hi) {
    const uint32_t lo4 = ((uint32_t)lo & 0xffu) * 0x01010101u, hi4 = ((uint32_t)hi & 0xffu) * 0x01010101u;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v, t;
        __builtin_memcpy(&v, d + i, 4);
        __asm__("ssub8 %1, %0, %2\n\t"
                "sel   %0, %0, %2\n\t"
                "ssub8 %1, %3, %0\n\t"
                "sel   %0, %0, %3"
                : "+&r"(v), "=&r"(t)
                : "r"(lo4), "r"(hi4));
        __builtin_memcpy(d + i, &v, 4);
    }
    for (; i < n; i++) d[i] = (int8_t)(d[i] < lo ? lo : (d[i] > hi ? hi : d[i]));
}

#endif
