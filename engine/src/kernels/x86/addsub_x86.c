/* SPDX-License-Identifier: Apache-2.0 */
/*
 * addsub_x86.c — 8-bit ADD / SUB with AVX-512 or AVX2 (see addsub_x86.h).
 * Bit-exact with add_sub.c's scalar add_general.
 */
#include "addsub_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include <immintrin.h>

#include "../../quant.h"

#if defined(__GNUC__) && !defined(__OPTIMIZE__)
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif

#define AVX512_FN static __attribute__((target("avx512f")))
#define AVX512_INLINE static inline __attribute__((always_inline, target("avx512f")))
#define AVX2_FN static __attribute__((target("avx2")))
#define AVX2_INLINE static inline __attribute__((always_inline, target("avx2")))

int addsub_x86_ok(const addsub_x86_q *q) {
    /* |x + off| <= 255 and a left shift <= 20 keep v = (x + off) << left
     * below 2^28; with m < 2^31 each rescaled input is below 2^28 too, their
     * sum or difference below 2^29 and every rounding sum below 2^31. */
    if (q->left_shift < 0 || q->left_shift > 20) return 0;
    if (q->off1 < -255 || q->off1 > 255 || q->off2 < -255 || q->off2 > 255) return 0;
    if (q->m1 < 0 || q->m2 < 0 || q->mo < 0) return 0;
    if (q->r1 < 0 || q->r1 > 31 || q->r2 < 0 || q->r2 > 31 || q->ro < 0 || q->ro > 31) return 0;
    const int32_t lo = q->is_unsigned ? 0 : -128, hi = q->is_unsigned ? 255 : 127;
    return q->act_min >= lo && q->act_max <= hi && q->act_min <= q->act_max;
}

/* The rescaled value of a broadcast operand's one element (add_sub.c's first
 * stage, in scalar): input 1 or 2. */
static int32_t const1(const addsub_x86_q *q, const uint8_t *p, int input) {
    const int32_t x = q->is_unsigned ? (int32_t)*p : (int32_t)(int8_t)*p;
    const int32_t v = (x + (input == 1 ? q->off1 : q->off2)) * (1 << q->left_shift);
    return input == 1 ? edge_mbqm_smaller_than_one(v, q->m1, -q->r1)
                      : edge_mbqm_smaller_than_one(v, q->m2, -q->r2);
}

/* One rescale stage's constants, splatted. */
typedef struct {
    int32_t m, round, neg, r;
} stage;

static stage make_stage(int32_t m, int32_t r) {
    stage s;
    s.m = m;
    s.r = r;
    s.round = r > 0 ? (int32_t)(1u << (r - 1)) : 0;
    s.neg = r > 0 ? -1 : 0; /* mask on h >> 31 (-1 for h < 0) */
    return s;
}

/* ---------------------------------------------------------------- AVX-512 */

typedef struct {
    __m512i m, round, neg;
    __m128i r;
} stage512;

AVX512_INLINE stage512 splat512(stage s) {
    stage512 v;
    v.m = _mm512_set1_epi32(s.m);
    v.round = _mm512_set1_epi32(s.round);
    v.neg = _mm512_set1_epi32(s.neg);
    v.r = _mm_cvtsi32_si128(s.r);
    return v;
}

/* RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(v, m), r), 16 lanes. */
AVX512_INLINE __m512i rescale512(__m512i v, const stage512 *s, __m512i nudge) {
    __m512i ev = _mm512_mul_epi32(v, s->m);
    __m512i od = _mm512_mul_epi32(_mm512_srli_epi64(v, 32), s->m);
    /* bits 31..62 of each product + 2^30: into the low half for even lanes,
     * the high half for odd ones. */
    ev = _mm512_srli_epi64(_mm512_add_epi64(ev, nudge), 31);
    od = _mm512_slli_epi64(_mm512_add_epi64(od, nudge), 1);
    const __m512i h = _mm512_mask_blend_epi32((__mmask16)0xAAAA, ev, od);
    const __m512i t = _mm512_add_epi32(_mm512_add_epi32(h, s->round),
                                       _mm512_and_si512(_mm512_srai_epi32(h, 31), s->neg));
    return _mm512_sra_epi32(t, s->r);
}

AVX512_INLINE __m512i load512(const uint8_t *p, int is_unsigned) {
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
    return is_unsigned ? _mm512_cvtepu8_epi32(b) : _mm512_cvtepi8_epi32(b);
}

AVX512_FN int64_t run512(const addsub_x86_q *q, const uint8_t *a, int64_t sa, const uint8_t *b,
                         int64_t sb, uint8_t *out, int64_t n) {
    const stage512 s1 = splat512(make_stage(q->m1, q->r1)), s2 = splat512(make_stage(q->m2, q->r2));
    const stage512 so = splat512(make_stage(q->mo, q->ro));
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    const __m512i off1 = _mm512_set1_epi32(q->off1), off2 = _mm512_set1_epi32(q->off2);
    const __m512i oo = _mm512_set1_epi32(q->out_off);
    const __m512i lo = _mm512_set1_epi32(q->act_min), hi = _mm512_set1_epi32(q->act_max);
    const __m128i left = _mm_cvtsi32_si128(q->left_shift);
    const int u = q->is_unsigned;
    /* A broadcast operand (stride 0) is rescaled once. */
    const __m512i ca = _mm512_set1_epi32(sa ? 0 : const1(q, a, 1));
    const __m512i cb = _mm512_set1_epi32(sb ? 0 : const1(q, b, 2));
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i x = ca, y = cb;
        if (sa) x = rescale512(_mm512_sll_epi32(_mm512_add_epi32(load512(a + i, u), off1), left), &s1,
                               nudge);
        if (sb) y = rescale512(_mm512_sll_epi32(_mm512_add_epi32(load512(b + i, u), off2), left), &s2,
                               nudge);
        const __m512i s = q->sub ? _mm512_sub_epi32(x, y) : _mm512_add_epi32(x, y);
        __m512i o = _mm512_add_epi32(rescale512(s, &so, nudge), oo);
        o = _mm512_min_epi32(_mm512_max_epi32(o, lo), hi);
        _mm_storeu_si128((__m128i *)(void *)(out + i), _mm512_cvtepi32_epi8(o));
    }
    return i;
}

/* ------------------------------------------------------------------- AVX2 */

typedef struct {
    __m256i m, round, neg;
    __m128i r;
} stage256;

AVX2_INLINE stage256 splat256(stage s) {
    stage256 v;
    v.m = _mm256_set1_epi32(s.m);
    v.round = _mm256_set1_epi32(s.round);
    v.neg = _mm256_set1_epi32(s.neg);
    v.r = _mm_cvtsi32_si128(s.r);
    return v;
}

AVX2_INLINE __m256i rescale256(__m256i v, const stage256 *s, __m256i nudge) {
    __m256i ev = _mm256_mul_epi32(v, s->m);
    __m256i od = _mm256_mul_epi32(_mm256_srli_epi64(v, 32), s->m);
    ev = _mm256_srli_epi64(_mm256_add_epi64(ev, nudge), 31);
    od = _mm256_slli_epi64(_mm256_add_epi64(od, nudge), 1);
    const __m256i h = _mm256_blend_epi32(ev, od, 0xAA);
    const __m256i t = _mm256_add_epi32(_mm256_add_epi32(h, s->round),
                                       _mm256_and_si256(_mm256_srai_epi32(h, 31), s->neg));
    return _mm256_sra_epi32(t, s->r);
}

AVX2_INLINE __m256i load256(const uint8_t *p, int is_unsigned) {
    const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return is_unsigned ? _mm256_cvtepu8_epi32(b) : _mm256_cvtepi8_epi32(b);
}

AVX2_FN int64_t run256(const addsub_x86_q *q, const uint8_t *a, int64_t sa, const uint8_t *b,
                       int64_t sb, uint8_t *out, int64_t n) {
    const stage256 s1 = splat256(make_stage(q->m1, q->r1)), s2 = splat256(make_stage(q->m2, q->r2));
    const stage256 so = splat256(make_stage(q->mo, q->ro));
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    const __m256i off1 = _mm256_set1_epi32(q->off1), off2 = _mm256_set1_epi32(q->off2);
    const __m256i oo = _mm256_set1_epi32(q->out_off);
    const __m256i lo = _mm256_set1_epi32(q->act_min), hi = _mm256_set1_epi32(q->act_max);
    const __m128i left = _mm_cvtsi32_si128(q->left_shift);
    const int u = q->is_unsigned;
    const __m256i ca = _mm256_set1_epi32(sa ? 0 : const1(q, a, 1));
    const __m256i cb = _mm256_set1_epi32(sb ? 0 : const1(q, b, 2));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i x = ca, y = cb;
        if (sa) x = rescale256(_mm256_sll_epi32(_mm256_add_epi32(load256(a + i, u), off1), left), &s1,
                               nudge);
        if (sb) y = rescale256(_mm256_sll_epi32(_mm256_add_epi32(load256(b + i, u), off2), left), &s2,
                               nudge);
        const __m256i s = q->sub ? _mm256_sub_epi32(x, y) : _mm256_add_epi32(x, y);
        __m256i o = _mm256_add_epi32(rescale256(s, &so, nudge), oo);
        o = _mm256_min_epi32(_mm256_max_epi32(o, lo), hi);
        /* Values are in 0..255 or -128..127 after the clamp: keep each
         * lane's low byte. */
        const __m256i bytes = _mm256_shuffle_epi8(
            o, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1,
                                -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const __m128i w =
            _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
        _mm_storel_epi64((__m128i *)(void *)(out + i), w);
    }
    return i;
}

int64_t addsub_x86_run(uint8_t level, const addsub_x86_q *q, const uint8_t *a, int64_t sa,
                       const uint8_t *b, int64_t sb, uint8_t *out, int64_t n) {
    if (sa == 0 && sb == 0) return 0; /* one value repeated: scalar */
    if (level == SYSTOLIC_X86_VNNI) return run512(q, a, sa, b, sb, out, n);
    if (level == SYSTOLIC_X86_AVX2) return run256(q, a, sa, b, sb, out, n);
    return 0;
}

#endif
