/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transpose_x86.h — the 16 x 16 byte transpose the x86 panel kernels use
 * to turn per-channel results (one row per lane) back into rows. SSE2 only
 * (x86-64's baseline), so both the AVX2 and the AVX-512 functions inline
 * it.
 */
#ifndef EDGE_KERNELS_TRANSPOSE_X86_H
#define EDGE_KERNELS_TRANSPOSE_X86_H

#include <emmintrin.h>

/* in[j] holds 16 bytes (channel j's rows); out[i] gets byte i of each,
 * in[0] first. */
static inline __attribute__((always_inline)) void x86_transpose16x16(const __m128i *in, __m128i *out) {
    __m128i b[16], c[16], d[16];
    for (int i = 0; i < 8; i++) {
        b[2 * i] = _mm_unpacklo_epi8(in[2 * i], in[2 * i + 1]);
        b[2 * i + 1] = _mm_unpackhi_epi8(in[2 * i], in[2 * i + 1]);
    }
    for (int g = 0; g < 4; g++) {
        const __m128i *s = b + 4 * g;
        c[4 * g] = _mm_unpacklo_epi16(s[0], s[2]);
        c[4 * g + 1] = _mm_unpackhi_epi16(s[0], s[2]);
        c[4 * g + 2] = _mm_unpacklo_epi16(s[1], s[3]);
        c[4 * g + 3] = _mm_unpackhi_epi16(s[1], s[3]);
    }
    for (int g = 0; g < 2; g++) {
        const __m128i *s = c + 8 * g;
        for (int i = 0; i < 4; i++) {
            d[8 * g + 2 * i] = _mm_unpacklo_epi32(s[i], s[i + 4]);
            d[8 * g + 2 * i + 1] = _mm_unpackhi_epi32(s[i], s[i + 4]);
        }
    }
    for (int i = 0; i < 8; i++) {
        out[2 * i] = _mm_unpacklo_epi64(d[i], d[i + 8]);
        out[2 * i + 1] = _mm_unpackhi_epi64(d[i], d[i + 8]);
    }
}

#endif
