/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requant_lanes_x86.h — requantization with one output channel per int32
 * lane (AVX2), for the x86 kernels whose vectors run across channels: the
 * depthwise kernel and the first-layer convolution.
 *
 * lanes_rq holds eight channels' constants, each a vector, built once per
 * eval by lanes_rq_build; lanes_requant8 is requant.h's edge_rq_apply on
 * eight lanes (bit for bit, multipliers >= 0 as TFLite's scales give), and
 * lanes_to_bytes adds the output offset and clamps two such results into
 * sixteen bytes. Header-only: every function carries its own
 * target("avx2"), so ordinary builds compile it and only AVX2 CPUs run it.
 */
#ifndef EDGE_KERNELS_REQUANT_LANES_X86_H
#define EDGE_KERNELS_REQUANT_LANES_X86_H

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define LANES_AVX2_FN static __attribute__((unused, target("avx2")))
#define LANES_INLINE static inline __attribute__((always_inline, target("avx2")))

/* Eight channels' constants: the bias added first, then requant.h's steps. */
typedef struct lanes_rq {
    int32_t bias[8], mult[8], mult_odd[8], left[8], right[8], mask[8], half[8];
    int32_t round[8]; /* 2^(right - 1): the fast form's nudge */
    int16_t out_offset16[16]; /* the output offset, and the clamp, as vectors */
    int8_t act_min16[16], act_max16[16];
    uint8_t fast; /* every lane: left 0, right 1..23 (lanes_requant8) */
} lanes_rq;

/* rq[b] for channels 8b .. 8b + 7, b < n / 8 (n a multiple of 8); mult and
 * shift per channel or [1]; bias may be NULL. */
LANES_AVX2_FN void lanes_rq_build(int32_t n, const int32_t *mult_in, const int8_t *shift_in,
                                  int per_channel, const int32_t *bias, int32_t out_offset,
                                  int32_t act_min, int32_t act_max, lanes_rq *rq) {
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi32(1);
    __m256i mult = _mm256_set1_epi32(mult_in[0]), shift = _mm256_set1_epi32(shift_in[0]);
    for (int32_t b = 0; b < n / 8; b++) {
        const int32_t oc = 8 * b;
        if (per_channel) {
            mult = _mm256_loadu_si256((const __m256i *)(const void *)(mult_in + oc));
            shift = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(shift_in + oc)));
        }
        const __m256i right = _mm256_max_epi32(_mm256_sub_epi32(zero, shift), zero);
        const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
        lanes_rq *q = &rq[b];
        _mm256_storeu_si256((__m256i *)(void *)q->bias,
                            bias ? _mm256_loadu_si256((const __m256i *)(const void *)(bias + oc)) : zero);
        _mm256_storeu_si256((__m256i *)(void *)q->mult, mult);
        _mm256_storeu_si256((__m256i *)(void *)q->mult_odd, _mm256_shuffle_epi32(mult, 0xF5));
        _mm256_storeu_si256((__m256i *)(void *)q->left, _mm256_max_epi32(shift, zero));
        _mm256_storeu_si256((__m256i *)(void *)q->right, right);
        _mm256_storeu_si256((__m256i *)(void *)q->mask, mask);
        _mm256_storeu_si256((__m256i *)(void *)q->half, _mm256_srli_epi32(mask, 1));
        _mm256_storeu_si256((__m256i *)(void *)q->round, _mm256_srli_epi32(_mm256_add_epi32(mask, one), 1));
        /* shift -23 .. -1 in every lane: no left shift, right 1 .. 23 */
        const __m256i in_range = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0), shift),
                                                  _mm256_cmpgt_epi32(shift, _mm256_set1_epi32(-24)));
        q->fast = (uint8_t)(_mm256_movemask_epi8(in_range) == -1);
        _mm256_storeu_si256((__m256i *)(void *)q->out_offset16, _mm256_set1_epi16((int16_t)out_offset));
        _mm_storeu_si128((__m128i *)(void *)q->act_min16, _mm_set1_epi8((char)act_min));
        _mm_storeu_si128((__m128i *)(void *)q->act_max16, _mm_set1_epi8((char)act_max));
    }
}

/* h = floor(((x << left) * mult + 2^30) / 2^31) from the even and odd
 * 64-bit products, then gemmlowp's RoundingDivideByPOT:
 * (h >> right) + (remainder > half + [h < 0]). x already holds the bias. */
LANES_INLINE __m256i lanes_requant8(__m256i x, const lanes_rq *q) {
    const __m256i r30 = _mm256_set1_epi64x((long long)1 << 30);
    if (q->fast) {
        /* No left shift, and RoundingDivideByPOT as one add and shift:
         * (h + 2^(right-1) - [h < 0]) >> right, gemmlowp's value whenever
         * the add does not overflow. h is clamped to 2^31 - 1 - 2^22 first:
         * any larger h gives at least 255 either way (right <= 23), which
         * every output offset and clamp turn into the same byte. */
        __m256i e = _mm256_mul_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)q->mult));
        __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(x, 32),
                                     _mm256_loadu_si256((const __m256i *)(const void *)q->mult_odd));
        e = _mm256_srli_epi64(_mm256_add_epi64(e, r30), 31);
        o = _mm256_slli_epi64(_mm256_add_epi64(o, r30), 1);
        const __m256i h = _mm256_blend_epi32(e, o, 0xAA);
        const __m256i hc = _mm256_min_epi32(h, _mm256_set1_epi32(0x7fffffff - (1 << 22)));
        const __m256i t = _mm256_add_epi32(
            _mm256_add_epi32(hc, _mm256_loadu_si256((const __m256i *)(const void *)q->round)),
            _mm256_srai_epi32(h, 31));
        return _mm256_srav_epi32(t, _mm256_loadu_si256((const __m256i *)(const void *)q->right));
    }
    x = _mm256_sllv_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)q->left));
    __m256i e = _mm256_mul_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)q->mult));
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(x, 32),
                                 _mm256_loadu_si256((const __m256i *)(const void *)q->mult_odd));
    e = _mm256_srli_epi64(_mm256_add_epi64(e, r30), 31); /* low dword: bits 31..62 */
    o = _mm256_slli_epi64(_mm256_add_epi64(o, r30), 1);  /* high dword: bits 31..62 */
    const __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    const __m256i rem = _mm256_and_si256(h, _mm256_loadu_si256((const __m256i *)(const void *)q->mask));
    const __m256i thr = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(const void *)q->half),
                                         _mm256_srai_epi32(h, 31));
    return _mm256_sub_epi32(
        _mm256_srav_epi32(h, _mm256_loadu_si256((const __m256i *)(const void *)q->right)),
        _mm256_cmpgt_epi32(rem, thr));
}

/* Two requantized results of eight lanes to bytes: offset (saturating to
 * int16 first gives the same bytes after the clamp as the int32 sum), pack,
 * clamp; a's eight bytes, then b's. */
LANES_INLINE __m128i lanes_to_bytes(__m256i a, __m256i b, const lanes_rq *q) {
    __m256i v = _mm256_adds_epi16(_mm256_packs_epi32(a, b),
                                  _mm256_loadu_si256((const __m256i *)(const void *)q->out_offset16));
    v = _mm256_packs_epi16(v, v); /* a0-3 b0-3 | a4-7 b4-7, twice */
    v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
    return _mm_min_epi8(_mm_max_epi8(_mm256_castsi256_si128(v),
                                     _mm_loadu_si128((const __m128i *)(const void *)q->act_min16)),
                        _mm_loadu_si128((const __m128i *)(const void *)q->act_max16));
}

#endif
#endif
