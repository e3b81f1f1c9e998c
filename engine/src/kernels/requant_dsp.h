/*
 * requant_dsp.h — requant.h's edge_rq_apply in four Cortex-M DSP
 * instructions (QADD, SUB, SMMLAR, ASR) for the multipliers convolutions
 * have, bit-exact with it; for the builds with EDGE_SYSTOLIC_DSP.
 *
 * It applies when mult >= 0, the TFLite shift is in -30..-1 (right =
 * -shift, no left shift) and |acc| < 2^30. Then x2 = 2 * acc fits, and
 *   h = SaturatingRoundingDoublingHighMul(acc, mult)
 *     = floor((acc * mult + 2^30) / 2^31) = floor((x2 * mult + 2^31) / 2^32)
 * is SMMLAR's rounding high half: SMMLAR x2, mult, a gives h + a exactly
 * (|h| <= 2^30, so h + a cannot wrap for |a| <= 2^29). gemmlowp's
 * RoundingDivideByPOT(h, right) is floor((h + 2^(right-1) - [h < 0]) /
 * 2^right); [h < 0] may be replaced by [x2 < 0]: they differ only when
 * h == 0 and x2 < 0, where both give 0 for right >= 1. So
 *   out = SMMLAR(x2, mult, 2^(right-1) - [x2 < 0]) >> right.
 * Kernels know their bound ahead: |start| + span < 2^30 (edge_rq_dsp_fits)
 * with start the accumulator's initial value (the bias) and span the most
 * the products can add (k * 2^14 for int8 times int8). Otherwise, and for
 * other multipliers, they take edge_rq_apply. tests/boards/systolic_check.c
 * checks the equality on the core itself.
 */
#ifndef EDGE_KERNELS_REQUANT_DSP_H
#define EDGE_KERNELS_REQUANT_DSP_H

#include <arm_acle.h>
#include <stdint.h>

typedef struct edge_rq_dsp {
    int32_t mult;
    int32_t round; /* 2^(right - 1) */
    int32_t right; /* 1..30 */
} edge_rq_dsp;

/* The constants for (mult, shift); 0 when the pair needs edge_rq_apply. */
static inline int edge_rq_dsp_make(int32_t mult, int32_t shift, edge_rq_dsp *q) {
    if (mult < 0 || shift > -1 || shift < -30) return 0;
    q->mult = mult;
    q->right = -shift;
    q->round = (int32_t)(1u << (q->right - 1));
    return 1;
}

/* (a << 32 + x * m + 2^31) >> 32, wrapped to 32 bits. */
static inline int32_t edge_smmlar(int32_t x, int32_t m, int32_t a) {
    int32_t d;
    __asm__("smmlar %0, %1, %2, %3" : "=r"(d) : "r"(x), "r"(m), "r"(a));
    return d;
}

/* 1 when every accumulator start + [-span, span] has |acc| < 2^30. */
static inline int edge_rq_dsp_fits(int32_t start, uint32_t span) {
    const uint32_t mag = start < 0 ? 0u - (uint32_t)start : (uint32_t)start;
    return span < (1u << 30) && mag < (1u << 30) - span;
}

/* The requantized acc, |acc| < 2^30. */
static inline int32_t edge_rq_dsp_apply(int32_t acc, int32_t mult, int32_t round, int32_t right) {
    const int32_t x2 = (int32_t)((uint32_t)acc << 1);
    return edge_smmlar(x2, mult, round - (int32_t)((uint32_t)x2 >> 31)) >> right;
}

/* v clamped to the int8 range. */
static inline int32_t edge_ssat8(int32_t v) {
    int32_t r;
    __asm__("ssat %0, #8, %1" : "=r"(r) : "r"(v));
    return r;
}

#endif
