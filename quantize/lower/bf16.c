/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bf16.c — float32 <-> bfloat16 (see bf16.h).
 */
#include "bf16.h"

#include <string.h>

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint16_t edgeq_bf16_from_f32(float f) {
    uint32_t u = bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) & 0x8000u) | 0x7fc0u;
    /* Add half an ulp of bf16 minus one, plus the kept lsb: a tie goes up
     * only when the kept part is odd. Carries run into the exponent, which
     * is right (1.99.. -> 2.0, max float -> inf); infinities are unchanged
     * because their low half is zero. */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float edgeq_bf16_to_f32(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void edgeq_bf16_pack(const float *src, size_t n, uint8_t *dst) {
    for (size_t i = 0; i < n; i++) {
        uint16_t b = edgeq_bf16_from_f32(src[i]);
        dst[2 * i] = (uint8_t)b;
        dst[2 * i + 1] = (uint8_t)(b >> 8);
    }
}
