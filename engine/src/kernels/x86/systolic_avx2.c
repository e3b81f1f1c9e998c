/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_avx2.c — the int8 systolic kernel's AVX2 panel GEMM (see
 * systolic_x86.h), for x86-64 hosts without AVX-512 VNNI.
 *
 * The panel holds 16 activation rows, four k per 32-bit word: x0 = rows
 * 0-7, x1 = rows 8-15 of each word. Every weight word W[c][4q..4q+3] is
 * broadcast from the weights in place and multiplied with vpmaddubsw as
 * |x| * (w * sign(x)): |x| <= 128 is unsigned, w * sign(x) stays a signed
 * byte when no weight is -128 (checked at prepare), and each pair sum is at
 * most 2 * 128 * 127 < 2^15, so the int16 saturation never triggers;
 * vpmaddwd by ones widens the pairs into int32 lanes, one lane per row.
 * Sums wrap like the portable kernel's uint32 sums.
 *
 * Four channels at a time keep eight accumulators in registers. Each
 * channel is then requantized at once (requant.h's gemmlowp steps on eight
 * lanes, constants from a per-channel table built once per eval), packed
 * to bytes and clamped, and sixteen channels' bytes are transposed into
 * the output rows. The packs leave the rows in the order PACK_ROW below,
 * which the transpose carries through to the stores.
 */
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include <immintrin.h>
#include <stddef.h>

#include "../requant.h"
#include "transpose_x86.h"
#include "../word.h"

#define AVX2_FN __attribute__((target("avx2")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2")))

void systolic_x86_rq_table(const systolic_params *p, int32_t c0, int32_t nc, systolic_x86_rq *rq) {
    for (int32_t j = 0; j < nc; j++) {
        const int32_t c = c0 + j, i = p->per_channel ? c : 0;
        const edge_rq r = edge_rq_make(p->multiplier[i], p->shift[i]);
        rq[j].bias = p->bias ? p->bias[c] : 0;
        rq[j].mult = r.mult;
        rq[j].left = r.left;
        rq[j].right = r.right;
        rq[j].mask = (int32_t)(((uint32_t)1 << r.right) - 1u);
        rq[j].half = rq[j].mask >> 1;
    }
}

/* acc += |x| * (w * sign(x)) summed per 4 bytes. */
INLINE_AVX2 __m256i mac4(__m256i acc, __m256i ax, __m256i x, __m256i wb) {
    const __m256i p = _mm256_maddubs_epi16(ax, _mm256_sign_epi8(wb, x));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(p, _mm256_set1_epi16(1)));
}

/* a[2j] (rows 0-7), a[2j+1] (rows 8-15) = panel . W[j] for j < J; w rows
 * are k apart; kf full words, then the partial one if k % 4. */
#define DEFINE_DOT(J)                                                                            \
    INLINE_AVX2 void dot_##J(const uint8_t *panel, const int8_t *w, int32_t k, __m256i *acc) {   \
        const int32_t kf = k >> 2;                                                               \
        __m256i a[2 * J];                                                                        \
        _Pragma("GCC unroll 8") for (int j = 0; j < 2 * J; j++) a[j] = _mm256_setzero_si256();   \
        const uint8_t *pq = panel;                                                               \
        for (int32_t q = 0; q < kf; q++, pq += 64) {                                             \
            const __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)pq);            \
            const __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(pq + 32));     \
            const __m256i ax0 = _mm256_abs_epi8(x0), ax1 = _mm256_abs_epi8(x1);                  \
            _Pragma("GCC unroll 4") for (int j = 0; j < J; j++) {                                \
                const __m256i wb = _mm256_set1_epi32((int32_t)edge_load_word(w + j * k + 4 * q));                  \
                a[2 * j] = mac4(a[2 * j], ax0, x0, wb);                                          \
                a[2 * j + 1] = mac4(a[2 * j + 1], ax1, x1, wb);                                  \
            }                                                                                    \
        }                                                                                        \
        if (k & 3) {                                                                             \
            const __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)pq);            \
            const __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(pq + 32));     \
            const __m256i ax0 = _mm256_abs_epi8(x0), ax1 = _mm256_abs_epi8(x1);                  \
            _Pragma("GCC unroll 4") for (int j = 0; j < J; j++) {                                \
                const __m256i wb = _mm256_set1_epi32((int32_t)edge_load_word_tail(w + j * k + 4 * kf, k & 3));      \
                a[2 * j] = mac4(a[2 * j], ax0, x0, wb);                                          \
                a[2 * j + 1] = mac4(a[2 * j + 1], ax1, x1, wb);                                  \
            }                                                                                    \
        }                                                                                        \
        _Pragma("GCC unroll 8") for (int j = 0; j < 2 * J; j++) acc[j] = a[j];                   \
    }
DEFINE_DOT(4)
DEFINE_DOT(1)

/* requant.h's edge_rq_apply on eight lanes (multiplier >= 0), plus the
 * bias: x = (acc + bias) << left; h = floor((x * mult + 2^30) / 2^31) from
 * the even and odd 64-bit products; then gemmlowp's RoundingDivideByPOT:
 * (h >> right) + (remainder > half + [h < 0]). */
INLINE_AVX2 __m256i requant8(__m256i acc, const systolic_x86_rq *q) {
    const __m256i r30 = _mm256_set1_epi64x((long long)1 << 30);
    const __m256i m = _mm256_set1_epi32(q->mult);
    const __m256i x = _mm256_sll_epi32(_mm256_add_epi32(acc, _mm256_set1_epi32(q->bias)),
                                       _mm_cvtsi32_si128(q->left));
    __m256i e = _mm256_add_epi64(_mm256_mul_epi32(x, m), r30);
    __m256i o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(x, 32), m), r30);
    e = _mm256_srli_epi64(e, 31); /* low dword: bits 31..62 */
    o = _mm256_slli_epi64(o, 1);  /* high dword: bits 31..62 */
    const __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    const __m256i rem = _mm256_and_si256(h, _mm256_set1_epi32(q->mask));
    const __m256i thr = _mm256_sub_epi32(_mm256_set1_epi32(q->half), _mm256_srai_epi32(h, 31));
    return _mm256_sub_epi32(_mm256_sra_epi32(h, _mm_cvtsi32_si128(q->right)),
                            _mm256_cmpgt_epi32(rem, thr));
}

/* One channel's 16 rows requantized and offset, as int16 in PACK_ROW
 * order: [rows 0-3, 8-11 | rows 4-7, 12-15] (vpackssdw works per lane).
 * Saturating to int16 first and adding the offset with saturation gives the
 * same bytes after the final clamp as the int32 sum would. */
INLINE_AVX2 __m256i channel16(__m256i lo, __m256i hi, const systolic_x86_rq *q, __m256i oo16) {
    return _mm256_adds_epi16(_mm256_packs_epi32(requant8(lo, q), requant8(hi, q)), oo16);
}

/* Two channels' int16 (channel16) to bytes: lane 0 channel a, lane 1
 * channel b, both in PACK_ROW order, clamped. */
INLINE_AVX2 __m256i channel_pair(__m256i a, __m256i b, __m256i lo8, __m256i hi8) {
    const __m256i v = _mm256_permute4x64_epi64(_mm256_packs_epi16(a, b), 0xD8);
    return _mm256_min_epi8(_mm256_max_epi8(v, lo8), hi8);
}

/* Where each of a tile's 16 positions comes from (see channel16). */
static const uint8_t PACK_ROW[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};

/* Up to 16 channels c0 .. c0 + nc - 1 of the panel's rows. */
AVX2_FN static void block16(const systolic_params *p, const systolic_x86_rq *rq, const uint8_t *panel,
                            int32_t mr, int32_t c0, int32_t nc, int8_t *out, int32_t out_stride) {
    const int32_t k = p->k;
    const int8_t *w = (const int8_t *)p->weights + (int64_t)c0 * k;
    const __m256i oo16 = _mm256_set1_epi16((int16_t)p->output_offset);
    const __m256i lo8 = _mm256_set1_epi8((char)p->act_min), hi8 = _mm256_set1_epi8((char)p->act_max);
    __m256i pairs[8]; /* channel bytes, two channels per vector */
    __m256i acc[8], ch[16];
    int32_t j = 0;
    for (; j + 4 <= nc; j += 4) {
        dot_4(panel, w + (int64_t)j * k, k, acc);
        for (int i = 0; i < 4; i++) ch[j + i] = channel16(acc[2 * i], acc[2 * i + 1], rq + j + i, oo16);
    }
    for (; j < nc; j++) {
        dot_1(panel, w + (int64_t)j * k, k, acc);
        ch[j] = channel16(acc[0], acc[1], rq + j, oo16);
    }
    for (; j < 16; j++) ch[j] = _mm256_setzero_si256();
    const int32_t np = (nc + 1) / 2;
    for (int32_t i = 0; i < np; i++) pairs[i] = channel_pair(ch[2 * i], ch[2 * i + 1], lo8, hi8);
    for (int32_t i = np; i < 8; i++) pairs[i] = _mm256_setzero_si256();
    __m128i tile[16], rows[16];
    for (int i = 0; i < 8; i++) {
        tile[2 * i] = _mm256_castsi256_si128(pairs[i]);
        tile[2 * i + 1] = _mm256_extracti128_si256(pairs[i], 1);
    }
    x86_transpose16x16(tile, rows);
    for (int i = 0; i < 16; i++) {
        const int32_t r = PACK_ROW[i];
        if (r >= mr) continue;
        int8_t *dst = out + (int64_t)r * out_stride + c0;
        if (nc == 16) {
            _mm_storeu_si128((__m128i *)(void *)dst, rows[i]);
        } else if (nc == 8) {
            _mm_storel_epi64((__m128i *)(void *)dst, rows[i]);
        } else {
            int8_t b[16];
            _mm_storeu_si128((__m128i *)(void *)b, rows[i]);
            for (int32_t c = 0; c < nc; c++) dst[c] = b[c];
        }
    }
}

void systolic_x86_panel_gemm_rq(const systolic_params *p, const systolic_x86_rq *rq,
                                const uint8_t *panel, int32_t mr, int8_t *out, int32_t out_stride) {
    for (int32_t c0 = 0; c0 < p->n; c0 += 16) {
        const int32_t nc = p->n - c0 < 16 ? p->n - c0 : 16;
        block16(p, rq + c0, panel, mr, c0, nc, out, out_stride);
    }
}

void systolic_x86_panel_gemm_avx2(const systolic_params *p, const uint8_t *panel, int32_t mr,
                                  int8_t *out, int32_t out_stride) {
    systolic_x86_rq rq[16];
    for (int32_t c0 = 0; c0 < p->n; c0 += 16) {
        const int32_t nc = p->n - c0 < 16 ? p->n - c0 : 16;
        systolic_x86_rq_table(p, c0, nc, rq);
        block16(p, rq, panel, mr, c0, nc, out, out_stride);
    }
}

/* ---- FULLY_CONNECTED: one activation row against eight weight rows ---- */

/* edge_round (half away from zero) on four doubles: trunc, then one step
 * away from zero when the dropped part is >= 0.5; NaN and infinities fall
 * through (the comparison is false) to the conversion's INT32_MIN, as the
 * scalar double_to_i32 does. */
INLINE_AVX2 __m128i round_to_i32(__m256d x) {
    const __m256d t = _mm256_round_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m256d d = _mm256_andnot_pd(_mm256_set1_pd(-0.0), _mm256_sub_pd(x, t));
    const __m256d up = _mm256_cmp_pd(d, _mm256_set1_pd(0.5), _CMP_GE_OQ);
    const __m256d one = _mm256_or_pd(_mm256_and_pd(x, _mm256_set1_pd(-0.0)), _mm256_set1_pd(1.0));
    return _mm256_cvttpd_epi32(_mm256_add_pd(t, _mm256_and_pd(up, one)));
}

/* Eight int32 lanes (a, b, c, d, ... h) summed each into one lane. */
INLINE_AVX2 __m256i sum8(const __m256i *a) {
    const __m256i ab = _mm256_hadd_epi32(a[0], a[1]), cd = _mm256_hadd_epi32(a[2], a[3]);
    const __m256i ef = _mm256_hadd_epi32(a[4], a[5]), gh = _mm256_hadd_epi32(a[6], a[7]);
    const __m256i abcd = _mm256_hadd_epi32(ab, cd), efgh = _mm256_hadd_epi32(ef, gh);
    return _mm256_add_epi32(_mm256_permute2x128_si256(abcd, efgh, 0x20),
                            _mm256_permute2x128_si256(abcd, efgh, 0x31));
}

/* Channels the FC kernel sums before requantizing them together: the
 * requantization's long dependency chain then never stalls the dot loop. */
#define FC_CHUNK 512

/* acc[j] (int32, j < nc, nc <= FC_CHUNK) of channels c0 + j to bytes:
 * bias, round(double(acc) * scale), offset, clamp. */
INLINE_AVX2 void fc_requant(const systolic_params *p, const int32_t *acc, int32_t c0, int32_t nc, int8_t *dst) {
    const __m256i oo = _mm256_set1_epi32(p->output_offset);
    const __m256i lo = _mm256_set1_epi32(p->act_min), hi = _mm256_set1_epi32(p->act_max);
    for (int32_t j = 0; j < nc; j += 8) {
        const int32_t n8 = nc - j < 8 ? nc - j : 8;
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(acc + j));
        __m256d s0 = _mm256_set1_pd(p->scale[0]), s1 = s0;
        if (n8 == 8) {
            if (p->bias) v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(const void *)(p->bias + c0 + j)));
            if (p->per_channel) s0 = _mm256_loadu_pd(p->scale + c0 + j), s1 = _mm256_loadu_pd(p->scale + c0 + j + 4);
        } else {
            int32_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            double sc[8];
            for (int32_t i = 0; i < 8; i++) {
                if (i < n8 && p->bias) b[i] = p->bias[c0 + j + i];
                sc[i] = p->scale[p->per_channel ? c0 + j + (i < n8 ? i : 0) : 0];
            }
            v = _mm256_add_epi32(v, _mm256_loadu_si256((const __m256i *)(const void *)b));
            s0 = _mm256_loadu_pd(sc);
            s1 = _mm256_loadu_pd(sc + 4);
        }
        const __m128i q0 = round_to_i32(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(v)), s0));
        const __m128i q1 = round_to_i32(_mm256_mul_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(v, 1)), s1));
        v = _mm256_add_epi32(_mm256_set_m128i(q1, q0), oo);
        v = _mm256_min_epi32(_mm256_max_epi32(v, lo), hi);
        const __m128i w16 = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        const __m128i b8 = _mm_packs_epi16(w16, w16);
        if (n8 == 8) {
            _mm_storel_epi64((__m128i *)(void *)(dst + j), b8);
        } else {
            int8_t t[16];
            _mm_storeu_si128((__m128i *)(void *)t, b8);
            for (int32_t i = 0; i < n8; i++) dst[j + i] = t[i];
        }
    }
}

/* y . W[j] for J weight rows (k apart), y = x + input_offset widened once
 * to int16 by the caller: each weight load widened and multiplied by
 * vpmaddwd, exact in int32 for any int8 weights; 16 k per step, then 8.
 * a[j] holds eight partial sums; returns the k done (k % 8 left). */
#define DEFINE_DOT_Y(J)                                                                                    \
    INLINE_AVX2 int32_t dot_y_##J(const int16_t *y, const int8_t *w, int32_t k, __m256i *out) {             \
        __m256i a[J];                                                                                      \
        _Pragma("GCC unroll 8") for (int j = 0; j < J; j++) a[j] = _mm256_setzero_si256();                 \
        int32_t i = 0;                                                                                     \
        for (; i + 16 <= k; i += 16) {                                                                     \
            const __m256i yv = _mm256_loadu_si256((const __m256i *)(const void *)(y + i));                 \
            _Pragma("GCC unroll 8") for (int j = 0; j < J; j++) a[j] = _mm256_add_epi32(                   \
                a[j], _mm256_madd_epi16(yv, _mm256_cvtepi8_epi16(_mm_loadu_si128(                          \
                                                (const __m128i *)(const void *)(w + (int64_t)j * k + i))))); \
        }                                                                                                  \
        if (i + 8 <= k) {                                                                                  \
            const __m128i yv = _mm_loadu_si128((const __m128i *)(const void *)(y + i));                    \
            _Pragma("GCC unroll 8") for (int j = 0; j < J; j++) a[j] = _mm256_add_epi32(                   \
                a[j], _mm256_zextsi128_si256(_mm_madd_epi16(                                               \
                          yv, _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(w + (int64_t)j * k + i)))))); \
            i += 8;                                                                                        \
        }                                                                                                  \
        _Pragma("GCC unroll 8") for (int j = 0; j < J; j++) out[j] = a[j];                                 \
        return i;                                                                                          \
    }
DEFINE_DOT_Y(8)
DEFINE_DOT_Y(1)

/* Channels of the eight weight rows at w (nc <= 8): the int32 sums in
 * lanes 0 .. nc - 1. */
INLINE_AVX2 __m256i dot8_y(const int16_t *y, const int8_t *w, int32_t k, int32_t nc) {
    __m256i a[8];
    int32_t i = 0;
    if (nc == 8) {
        i = dot_y_8(y, w, k, a);
    } else {
        for (int32_t j = 0; j < 8; j++) {
            if (j < nc) i = dot_y_1(y, w + (int64_t)j * k, k, a + j);
            else a[j] = _mm256_setzero_si256();
        }
    }
    __m256i s = sum8(a);
    if (i < k) {
        int32_t t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int32_t j = 0; j < nc; j++) {
            uint32_t v = 0;
            for (int32_t q = i; q < k; q++) v += (uint32_t)((int32_t)y[q] * w[(int64_t)j * k + q]);
            t[j] = (int32_t)v;
        }
        s = _mm256_add_epi32(s, _mm256_loadu_si256((const __m256i *)(const void *)t));
    }
    return s;
}

AVX2_FN void systolic_x86_gemm_double_avx2(const systolic_params *p, const void *const *rows, int32_t m,
                                           void *out, int32_t out_stride) {
    const int32_t k = p->k, n = p->n;
    const int8_t *w = (const int8_t *)p->weights;
    int32_t acc[FC_CHUNK];
    int16_t y[SYSTOLIC_X86_FC_MAX_K];
    const __m256i io = _mm256_set1_epi16((int16_t)p->input_offset);
    for (int32_t r = 0; r < m; r++) {
        const int8_t *x = (const int8_t *)rows[r];
        int8_t *dst = (int8_t *)out + (int64_t)r * out_stride;
        int32_t i = 0;
        for (; i + 16 <= k; i += 16)
            _mm256_storeu_si256((__m256i *)(void *)(y + i),
                                _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(x + i))), io));
        for (; i < k; i++) y[i] = (int16_t)(x[i] + p->input_offset);
        for (int32_t cc = 0; cc < n; cc += FC_CHUNK) {
            const int32_t nch = n - cc < FC_CHUNK ? n - cc : FC_CHUNK;
            for (int32_t j = 0; j < nch; j += 8) {
                const int32_t nc = nch - j < 8 ? nch - j : 8;
                const __m256i v = dot8_y(y, w + (int64_t)(cc + j) * k, k, nc);
                if (nc == 8) {
                    _mm256_storeu_si256((__m256i *)(void *)(acc + j), v);
                } else {
                    int32_t t[8];
                    _mm256_storeu_si256((__m256i *)(void *)t, v);
                    for (int32_t q = 0; q < nc; q++) acc[j + q] = t[q];
                }
            }
            fc_requant(p, acc, cc, nch, dst + cc);
        }
    }
}

/* ---- FULLY_CONNECTED from packed weights, channels across lanes ---- */

uint32_t systolic_x86_fc_lanes_bytes(int32_t k, int32_t n) {
    const int64_t kq = ((int64_t)k + 3) / 4, n8 = ((int64_t)n + 7) / 8 * 8;
    const int64_t bytes = kq * n8 * 4 + 4 * (int64_t)n;
    return bytes > 0x7fffffff ? 0u : (uint32_t)bytes;
}

int systolic_x86_fc_lanes_pack(const systolic_params *p, const int32_t *bias, uint8_t *dst) {
    const int32_t k = p->k, n = p->n, kq = (k + 3) / 4, n8 = (n + 7) / 8 * 8;
    const int8_t *w = (const int8_t *)p->weights;
    int8_t *wq = (int8_t *)dst;
    int32_t *eff = (int32_t *)(void *)(dst + (int64_t)kq * n8 * 4);
    for (int64_t i = 0; i < (int64_t)n * k; i++)
        if (w[i] == -128) return 0;
    /* Blocks of 32 channels (the last of n8 % 32), each [word][channel][4]. */
    for (int32_t c0 = 0; c0 < n8; c0 += 32) {
        const int32_t nb = n8 - c0 < 32 ? n8 - c0 : 32;
        int8_t *blk = wq + (int64_t)c0 * kq * 4;
        for (int32_t q = 0; q < kq; q++)
            for (int32_t c = 0; c < nb; c++)
                for (int32_t j = 0; j < 4; j++) {
                    const int32_t ch = c0 + c, kk = 4 * q + j;
                    blk[((int64_t)q * nb + c) * 4 + j] = ch < n && kk < k ? w[(int64_t)ch * k + kk] : 0;
                }
    }
    for (int32_t c = 0; c < n; c++) {
        uint32_t sum = 0;
        for (int32_t kk = 0; kk < k; kk++) {
            const int32_t v = w[(int64_t)c * k + kk];
            sum += (uint32_t)v;
        }
        eff[c] = (int32_t)((bias ? (uint32_t)bias[c] : 0u) + (uint32_t)p->input_offset * sum);
    }
    return 1;
}

/* NB blocks of eight channels from c0 over every word of x: |x| times
 * w * sign(x) by vpmaddubsw (no weight is -128), pairs widened by
 * vpmaddwd, into acc + c0 - cc. */
#define DEFINE_FC_LANES(NB)                                                                                 \
    INLINE_AVX2 void fc_lanes_##NB(const int8_t *x, const int8_t *blk, int32_t kq, int32_t *acc) {          \
        __m256i a[NB];                                                                                      \
        const __m256i ones = _mm256_set1_epi16(1);                                                          \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) a[i] = _mm256_setzero_si256();                 \
        for (int32_t q = 0; q < kq; q++, blk += 32 * NB) {                                                  \
            const __m256i xv = _mm256_set1_epi32((int32_t)edge_load_word(x + 4 * q));                       \
            const __m256i ax = _mm256_abs_epi8(xv);                                                         \
            _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) {                                          \
                const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(blk + 32 * i));       \
                a[i] = _mm256_add_epi32(a[i], _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(wv, xv)), ones)); \
            }                                                                                               \
        }                                                                                                   \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++)                                                \
            _mm256_storeu_si256((__m256i *)(void *)(acc + 8 * i), a[i]);                                    \
    }
DEFINE_FC_LANES(4)
DEFINE_FC_LANES(3)
DEFINE_FC_LANES(2)
DEFINE_FC_LANES(1)

AVX2_FN void systolic_x86_fc_lanes_avx2(const systolic_params *p, const uint8_t *packed, const int8_t *in,
                                        int32_t m, void *out, int32_t out_stride) {
    const int32_t k = p->k, n = p->n, kq = (k + 3) / 4, n8 = (n + 7) / 8 * 8;
    const int8_t *wq = (const int8_t *)packed;
    systolic_params q = *p;
    q.bias = (const int32_t *)(const void *)(packed + (int64_t)kq * n8 * 4);
    int32_t acc[FC_CHUNK + 32];
    int8_t xs[SYSTOLIC_X86_FC_MAX_K + 4];
    for (int32_t r = 0; r < m; r++) {
        /* The row with its last word zero-padded. */
        const int8_t *x = in + (int64_t)r * k;
        if (k % 4) {
            __builtin_memcpy(xs, x, (size_t)k);
            for (int32_t i = k; i < 4 * kq; i++) xs[i] = 0;
            x = xs;
        }
        int8_t *dst = (int8_t *)out + (int64_t)r * out_stride;
        for (int32_t cc = 0; cc < n; cc += FC_CHUNK) {
            const int32_t nch = n - cc < FC_CHUNK ? n - cc : FC_CHUNK;
            for (int32_t c0 = cc; c0 < cc + nch; c0 += 32) {
                const int32_t nb = n8 - c0 < 32 ? (n8 - c0) / 8 : 4;
                const int8_t *blk = wq + (int64_t)c0 * kq * 4;
                if (nb == 4) fc_lanes_4(x, blk, kq, acc + (c0 - cc));
                else if (nb == 3) fc_lanes_3(x, blk, kq, acc + (c0 - cc));
                else if (nb == 2) fc_lanes_2(x, blk, kq, acc + (c0 - cc));
                else fc_lanes_1(x, blk, kq, acc + (c0 - cc));
            }
            fc_requant(&q, acc, cc, nch, dst + cc);
        }
    }
}

/* ---- Panels straight from a convolution's input ---- */

/* 16 rows' words j .. j + n - 1 (n = 4, 2 or 1) from src[r] + 4 j into
 * panel words q = j .. (row r at byte 4 r of each 64-byte word row). */
INLINE_AVX2 void tap_words(uint8_t *dst, const int8_t *const *src, int32_t words) {
    int32_t j = 0;
    for (; j + 4 <= words; j += 4)
        for (int g = 0; g < 4; g++) {
            const int8_t *const *s4 = src + 4 * g;
            const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)(s4[0] + 4 * j));
            const __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(s4[1] + 4 * j));
            const __m128i a2 = _mm_loadu_si128((const __m128i *)(const void *)(s4[2] + 4 * j));
            const __m128i a3 = _mm_loadu_si128((const __m128i *)(const void *)(s4[3] + 4 * j));
            const __m128i t0 = _mm_unpacklo_epi32(a0, a1), t1 = _mm_unpacklo_epi32(a2, a3);
            const __m128i t2 = _mm_unpackhi_epi32(a0, a1), t3 = _mm_unpackhi_epi32(a2, a3);
            uint8_t *d = dst + 64 * j + 16 * g;
            _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(d + 64), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(d + 128), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128((__m128i *)(void *)(d + 192), _mm_unpackhi_epi64(t2, t3));
        }
    if (words - j >= 2) {
        for (int g = 0; g < 4; g++) {
            const int8_t *const *s4 = src + 4 * g;
            const __m128i a0 = _mm_loadl_epi64((const __m128i *)(const void *)(s4[0] + 4 * j));
            const __m128i a1 = _mm_loadl_epi64((const __m128i *)(const void *)(s4[1] + 4 * j));
            const __m128i a2 = _mm_loadl_epi64((const __m128i *)(const void *)(s4[2] + 4 * j));
            const __m128i a3 = _mm_loadl_epi64((const __m128i *)(const void *)(s4[3] + 4 * j));
            const __m128i t0 = _mm_unpacklo_epi32(a0, a1), t1 = _mm_unpacklo_epi32(a2, a3);
            uint8_t *d = dst + 64 * j + 16 * g;
            _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(d + 64), _mm_unpackhi_epi64(t0, t1));
        }
        j += 2;
    }
    if (j < words)
        for (int r = 0; r < 16; r++) __builtin_memcpy(dst + 64 * j + 4 * r, src[r] + 4 * j, 4);
}

AVX2_FN void systolic_x86_panel_conv_avx2(uint8_t *panel, const int8_t *img, const systolic_x86_conv *g,
                                          int32_t px0, int32_t mr, int32_t group) {
    const int32_t gc = g->group_in_c, words = gc / 4;
    const int32_t span_h = (g->k_h - 1) * g->dil_h, span_w = (g->k_w - 1) * g->dil_w;
    int8_t pad[SYSTOLIC_X86_MAX_K];
    int32_t iy0[16], ix0[16];
    int64_t base[16]; /* offset of each row's first tap (may lie before the image) */
    int interior = mr == 16;
    int32_t y = px0 / g->out_w, x = px0 % g->out_w;
    for (int32_t r = 0; r < mr; r++) {
        iy0[r] = y * g->stride_h - g->pad_h;
        ix0[r] = x * g->stride_w - g->pad_w;
        interior &= iy0[r] >= 0 && iy0[r] + span_h < g->in_h && ix0[r] >= 0 && ix0[r] + span_w < g->in_w;
        base[r] = ((int64_t)iy0[r] * g->in_w + ix0[r]) * g->in_c + (int64_t)group * gc;
        if (++x == g->out_w) {
            x = 0;
            y++;
        }
    }
    if (!interior) {
        const uint8_t pb = (uint8_t)(g->pad_word & 0xffu);
        for (int32_t i = 0; i < gc; i++) pad[i] = (int8_t)pb;
    }
    uint8_t *dst = panel;
    const int8_t *src[16];
    for (int32_t ky = 0; ky < g->k_h; ky++)
        for (int32_t kx = 0; kx < g->k_w; kx++, dst += 64 * words) {
            const int64_t toff = ((int64_t)ky * g->dil_h * g->in_w + (int64_t)kx * g->dil_w) * g->in_c;
            if (interior) {
                for (int r = 0; r < 16; r++) src[r] = img + (base[r] + toff);
            } else {
                for (int32_t r = 0; r < 16; r++) {
                    const int32_t iy = r < mr ? iy0[r] + ky * g->dil_h : -1;
                    const int32_t ix = r < mr ? ix0[r] + kx * g->dil_w : -1;
                    src[r] = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w ? img + (base[r] + toff) : pad;
                }
            }
            tap_words(dst, src, words);
        }
}

#else
typedef int systolic_avx2_unused;
#endif
