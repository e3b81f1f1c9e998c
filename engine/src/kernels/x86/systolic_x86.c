/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic_x86.c — the int8 systolic kernel with AVX-512 VNNI (see
 * systolic_x86.h). Bit-exact with systolic.c: the same int32 wrap-around
 * sums, the same requantization (requant.h) lane by lane.
 */
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include <immintrin.h>

#include "../requant.h"
#include "transpose_x86.h"
#include "../word.h"

/* Without optimisation GCC defines some intrinsics (gathers, roundscale) as
 * macros whose own casts trip -Wsign-conversion in this file. */
#if defined(__GNUC__) && !defined(__OPTIMIZE__)
#pragma GCC diagnostic ignored "-Wsign-conversion"
#endif

#define VNNI_FN __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define INLINE_VNNI_FN static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vnni")))

uint8_t systolic_x86_level(void) {
    __builtin_cpu_init();
    if (EDGE_X86_MAX_LEVEL >= 2 && __builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512vnni"))
        return SYSTOLIC_X86_VNNI;
    if (EDGE_X86_MAX_LEVEL >= 1 && __builtin_cpu_supports("avx2")) return SYSTOLIC_X86_AVX2;
    return SYSTOLIC_X86_NONE;
}

int systolic_x86_weights_ok(const systolic_params *p) {
    const int8_t *w = (const int8_t *)p->weights;
    const int64_t count = (int64_t)p->n * p->k;
    for (int64_t i = 0; i < count; i++)
        if (w[i] == -128) return 0;
    return 1;
}

int systolic_x86_panel_ok(const systolic_params *p) {
    if (p->is_unsigned || p->filter_offset != 0 || p->requant != SYSTOLIC_REQUANT_FIXED) return 0;
    if (p->act_min < -128 || p->act_max > 127 || p->act_min > p->act_max) return 0;
    /* A non-negative multiplier never reaches the saturating case of
     * SaturatingRoundingDoublingHighMul, which the vector form leaves out. */
    const int32_t nm = p->per_channel ? p->n : 1;
    for (int32_t i = 0; i < nm; i++)
        if (p->multiplier[i] < 0 || p->shift[i] > 31 || p->shift[i] < -31) return 0;
    return 1;
}

void systolic_x86_bias_shift(const systolic_params *p, int32_t *eff_bias) {
    const int8_t *w = (const int8_t *)p->weights;
    for (int32_t c = 0; c < p->n; c++) {
        uint32_t s = 0;
        for (int32_t i = 0; i < p->k; i++) {
            const int32_t v = w[(int64_t)c * p->k + i];
            s += (uint32_t)v;
        }
        eff_bias[c] = (int32_t)((uint32_t)eff_bias[c] - 128u * s);
    }
}

void systolic_x86_panel_row(uint8_t *panel, int32_t r, const int8_t *row, int32_t k, uint32_t flip) {
    uint8_t *dst = panel + 4 * r;
    int32_t q = 0;
    for (; 4 * q + 4 <= k; q++) {
        uint32_t v;
        __builtin_memcpy(&v, row + 4 * q, 4);
        v ^= flip;
        __builtin_memcpy(dst + 4 * SYSTOLIC_X86_PANEL_ROWS * q, &v, 4);
    }
    if (k & 3) {
        uint32_t v = 0; /* bytes past k stay 0: they add nothing */
        for (int32_t i = 0; 4 * q + i < k; i++)
            v |= ((uint32_t)(uint8_t)row[4 * q + i] ^ (flip & 0xffu)) << (8 * i);
        __builtin_memcpy(dst + 4 * SYSTOLIC_X86_PANEL_ROWS * q, &v, 4);
    }
}

/* requant.h's edge_rq_apply on 16 lanes, for a multiplier >= 0:
 * h = floor(((x << left) * mult + 2^30) / 2^31), then the rounding shift
 * floor((h + round - [h < 0]) / 2^right) taken as
 * (h >> right) + ((h mod 2^right) + round - [h < 0]) >> right, which never
 * overflows int32. */
INLINE_VNNI_FN __m512i rq_vec(__m512i x, edge_rq rq) {
    const __m512i m = _mm512_set1_epi32(rq.mult);
    const __m512i half = _mm512_set1_epi64((long long)1 << 30);
    x = _mm512_sll_epi32(x, _mm_cvtsi32_si128(rq.left));
    __m512i e = _mm512_add_epi64(_mm512_mul_epi32(x, m), half);
    __m512i o = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), m), half);
    e = _mm512_srli_epi64(e, 31); /* low dword: bits 31..62 */
    o = _mm512_slli_epi64(o, 1);  /* high dword: bits 31..62 */
    const __m512i h = _mm512_mask_blend_epi32((__mmask16)0xAAAA, e, o);
    const __m128i sr = _mm_cvtsi32_si128(rq.right);
    const uint32_t mask = rq.right > 0 ? ((uint32_t)1 << rq.right) - 1u : 0u;
    __m512i t = _mm512_and_si512(h, _mm512_set1_epi32((int32_t)mask));
    t = _mm512_add_epi32(t, _mm512_set1_epi32(rq.round));
    t = _mm512_sub_epi32(t, _mm512_and_si512(_mm512_srli_epi32(h, 31),
                                             _mm512_set1_epi32((int32_t)rq.neg)));
    return _mm512_add_epi32(_mm512_sra_epi32(h, sr), _mm512_srl_epi32(t, sr));
}

/* acc[j] (lanes = panel rows) += panel . W[c0 + j] for j < J. */
#define DEFINE_DOT(J)                                                                           \
    INLINE_VNNI_FN void dot_##J(const uint8_t *panel, const int8_t *w, int32_t k, __m512i *acc) { \
        const int32_t kf = k >> 2;                                                              \
        __m512i a[J];                                                                           \
        _Pragma("GCC unroll 16") for (int j = 0; j < J; j++) a[j] = _mm512_setzero_si512();     \
        for (int32_t q = 0; q < kf; q++) {                                                      \
            const __m512i x = _mm512_loadu_si512(panel + 64 * q);                               \
            const int8_t *wq = w + 4 * q;                                                       \
            _Pragma("GCC unroll 16") for (int j = 0; j < J; j++) a[j] =                         \
                _mm512_dpbusd_epi32(a[j], x, _mm512_set1_epi32((int32_t)edge_load_word(wq + j * k)));    \
        }                                                                                       \
        if (k & 3) {                                                                            \
            const __m512i x = _mm512_loadu_si512(panel + 64 * kf);                              \
            _Pragma("GCC unroll 16") for (int j = 0; j < J; j++) a[j] = _mm512_dpbusd_epi32(    \
                a[j], x, _mm512_set1_epi32((int32_t)edge_load_word_tail(w + j * k + 4 * kf, k & 3)));     \
        }                                                                                       \
        _Pragma("GCC unroll 16") for (int j = 0; j < J; j++) acc[j] = a[j];                     \
    }
DEFINE_DOT(16)
DEFINE_DOT(8)
DEFINE_DOT(4)
DEFINE_DOT(1)

VNNI_FN static void panel_gemm_vnni(const systolic_params *p, const uint8_t *panel, int32_t mr,
                                    int8_t *out, int32_t out_stride) {
    const int32_t k = p->k, n = p->n;
    const int8_t *w = (const int8_t *)p->weights;
    const __m512i oo = _mm512_set1_epi32(p->output_offset);
    const __m512i lo = _mm512_set1_epi32(p->act_min), hi = _mm512_set1_epi32(p->act_max);
    __m512i acc[16];
    __m128i tile[16], rows[16];
    for (int32_t c0 = 0; c0 < n; c0 += 16) {
        const int32_t nc = n - c0 < 16 ? n - c0 : 16;
        const int8_t *wc = w + (int64_t)c0 * k;
        if (nc == 16) {
            dot_16(panel, wc, k, acc);
        } else {
            int32_t j = 0;
            if (nc - j >= 8) {
                dot_8(panel, wc, k, acc);
                j += 8;
            }
            if (nc - j >= 4) {
                dot_4(panel, wc + (int64_t)j * k, k, acc + j);
                j += 4;
            }
            for (; j < nc; j++) dot_1(panel, wc + (int64_t)j * k, k, acc + j);
        }
        for (int32_t j = 0; j < 16; j++) {
            if (j >= nc) {
                tile[j] = _mm_setzero_si128();
                continue;
            }
            const int32_t c = c0 + j, i = p->per_channel ? c : 0;
            __m512i v = _mm512_add_epi32(acc[j], _mm512_set1_epi32(p->bias ? p->bias[c] : 0));
            v = _mm512_add_epi32(rq_vec(v, edge_rq_make(p->multiplier[i], p->shift[i])), oo);
            v = _mm512_min_epi32(_mm512_max_epi32(v, lo), hi);
            tile[j] = _mm512_cvtepi32_epi8(v);
        }
        x86_transpose16x16(tile, rows);
        const __mmask16 cm = (__mmask16)((1u << nc) - 1u);
        for (int32_t r = 0; r < mr; r++) {
            int8_t *dst = out + (int64_t)r * out_stride + c0;
            if (nc == 16) _mm_storeu_si128((__m128i *)(void *)dst, rows[r]);
            else _mm_mask_storeu_epi8(dst, cm, rows[r]);
        }
    }
}

void systolic_x86_panel_gemm(uint8_t level, const systolic_params *p, const uint8_t *panel,
                             int32_t mr, int8_t *out, int32_t out_stride) {
    if (level == SYSTOLIC_X86_VNNI) panel_gemm_vnni(p, panel, mr, out, out_stride);
    else systolic_x86_panel_gemm_avx2(p, panel, mr, out, out_stride);
}

int systolic_x86_conv_ok(const systolic_x86_conv *g) {
    if (g->group_in_c % 4 != 0) return 0;
    /* Offsets reach from -(pad + dilated filter) rows and columns before
     * the image to its end: keep all of them well inside int32. */
    const int64_t row = (int64_t)g->in_w * g->in_c;
    const int64_t span = ((int64_t)g->in_h + 2 * ((int64_t)g->k_h * g->dil_h + g->pad_h)) * row +
                         2 * ((int64_t)g->k_w * g->dil_w + g->pad_w) * g->in_c;
    return span < 0x40000000;
}

/* Panel words q..q+3 of 16 rows: row r's 16 bytes at src + offs[r], XORed
 * with x80, stored as 4 x 64 bytes at dst (word-major, like the gathers). */
INLINE_VNNI_FN __m128i load16(const int8_t *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }

INLINE_VNNI_FN void transpose_words(const int8_t *src, const int32_t *offs, __m512i x80,
                                    uint8_t *dst) {
    __m512i v[4];
    for (int i = 0; i < 4; i++) {
        __m512i a = _mm512_castsi128_si512(load16(src + offs[4 * i]));
        a = _mm512_inserti32x4(a, load16(src + offs[4 * i + 1]), 1);
        a = _mm512_inserti32x4(a, load16(src + offs[4 * i + 2]), 2);
        a = _mm512_inserti32x4(a, load16(src + offs[4 * i + 3]), 3);
        /* [r][w] -> [w][r] inside the 4 x 4 block: lane w = rows 4i..4i+3's word w. */
        v[i] = _mm512_permutexvar_epi32(
            _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), a);
    }
    const __m512i ab01 = _mm512_shuffle_i32x4(v[0], v[1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i cd01 = _mm512_shuffle_i32x4(v[2], v[3], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i ab23 = _mm512_shuffle_i32x4(v[0], v[1], _MM_SHUFFLE(3, 2, 3, 2));
    const __m512i cd23 = _mm512_shuffle_i32x4(v[2], v[3], _MM_SHUFFLE(3, 2, 3, 2));
    _mm512_storeu_si512(dst,
                        _mm512_xor_si512(_mm512_shuffle_i32x4(ab01, cd01, _MM_SHUFFLE(2, 0, 2, 0)), x80));
    _mm512_storeu_si512(dst + 64,
                        _mm512_xor_si512(_mm512_shuffle_i32x4(ab01, cd01, _MM_SHUFFLE(3, 1, 3, 1)), x80));
    _mm512_storeu_si512(dst + 128,
                        _mm512_xor_si512(_mm512_shuffle_i32x4(ab23, cd23, _MM_SHUFFLE(2, 0, 2, 0)), x80));
    _mm512_storeu_si512(dst + 192,
                        _mm512_xor_si512(_mm512_shuffle_i32x4(ab23, cd23, _MM_SHUFFLE(3, 1, 3, 1)), x80));
}

VNNI_FN void systolic_x86_panel_conv(uint8_t *panel, const int8_t *img, const systolic_x86_conv *g,
                                     int32_t px0, int32_t mr, int32_t group) {
    int32_t oy[16], ox[16];
    int32_t y = px0 / g->out_w, x = px0 % g->out_w;
    for (int32_t r = 0; r < 16; r++) {
        oy[r] = y;
        ox[r] = x;
        if (++x == g->out_w) {
            x = 0;
            y++;
        }
    }
    const __mmask16 live = (__mmask16)((1u << mr) - 1u);
    const __m512i iy0 = _mm512_sub_epi32(
        _mm512_mullo_epi32(_mm512_loadu_si512(oy), _mm512_set1_epi32(g->stride_h)),
        _mm512_set1_epi32(g->pad_h));
    const __m512i ix0 = _mm512_sub_epi32(
        _mm512_mullo_epi32(_mm512_loadu_si512(ox), _mm512_set1_epi32(g->stride_w)),
        _mm512_set1_epi32(g->pad_w));
    const __m512i base = _mm512_add_epi32(
        _mm512_mullo_epi32(_mm512_add_epi32(_mm512_mullo_epi32(iy0, _mm512_set1_epi32(g->in_w)), ix0),
                           _mm512_set1_epi32(g->in_c)),
        _mm512_set1_epi32(group * g->group_in_c));
    const __m512i padv = _mm512_set1_epi32((int32_t)g->pad_word);
    const __m512i x80 = _mm512_set1_epi32((int32_t)0x80808080u);
    const __m512i in_h = _mm512_set1_epi32(g->in_h), in_w = _mm512_set1_epi32(g->in_w);
    const int32_t words = g->group_in_c / 4;
    uint8_t *dst = panel;
    for (int32_t ky = 0; ky < g->k_h; ky++) {
        const __m512i iy = _mm512_add_epi32(iy0, _mm512_set1_epi32(ky * g->dil_h));
        const __mmask16 my = live & _mm512_cmpge_epi32_mask(iy, _mm512_setzero_si512()) &
                             _mm512_cmplt_epi32_mask(iy, in_h);
        for (int32_t kx = 0; kx < g->k_w; kx++) {
            const __m512i ix = _mm512_add_epi32(ix0, _mm512_set1_epi32(kx * g->dil_w));
            const __mmask16 m = my & _mm512_cmpge_epi32_mask(ix, _mm512_setzero_si512()) &
                                _mm512_cmplt_epi32_mask(ix, in_w);
            __m512i off = _mm512_add_epi32(
                base, _mm512_set1_epi32((ky * g->dil_h * g->in_w + kx * g->dil_w) * g->in_c));
            int32_t j = 0;
            if (m == 0xFFFF && words >= 4) {
                /* All 16 rows inside the image: four words of each row in
                 * one 16-byte load, transposed in registers (cheaper than
                 * four gathers). */
                int32_t offs[16];
                _mm512_storeu_si512(offs, off);
                for (; j + 4 <= words; j += 4) {
                    transpose_words(img + 4 * j, offs, x80, dst);
                    dst += 256;
                }
                off = _mm512_add_epi32(off, _mm512_set1_epi32(4 * j));
            }
            for (; j < words; j++) {
                const __m512i v = _mm512_mask_i32gather_epi32(padv, m, off, img, 1);
                _mm512_storeu_si512(dst, _mm512_xor_si512(v, x80));
                dst += 64;
                off = _mm512_add_epi32(off, _mm512_set1_epi32(4));
            }
        }
    }
}

/* 64 k at a time; the weights' masked tail loads zeros, so the activation
 * bytes past k (also masked) contribute nothing. */
VNNI_FN void systolic_x86_tile_dot(const int8_t *a, const int8_t *w, int32_t ws, int32_t k,
                                   int32_t nc, uint32_t *acc) {
    const __m512i x80 = _mm512_set1_epi8((char)0x80);
    int32_t c = 0;
    for (; c + 4 <= nc; c += 4) {
        const int8_t *w0 = w + (int64_t)c * ws, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;
        __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
        for (int32_t i = 0; i < k; i += 64) {
            const __mmask64 m = k - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (k - i)) - 1u;
            const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + i), x80);
            s0 = _mm512_dpbusd_epi32(s0, x, _mm512_maskz_loadu_epi8(m, w0 + i));
            s1 = _mm512_dpbusd_epi32(s1, x, _mm512_maskz_loadu_epi8(m, w1 + i));
            s2 = _mm512_dpbusd_epi32(s2, x, _mm512_maskz_loadu_epi8(m, w2 + i));
            s3 = _mm512_dpbusd_epi32(s3, x, _mm512_maskz_loadu_epi8(m, w3 + i));
        }
        acc[c] = (uint32_t)_mm512_reduce_add_epi32(s0);
        acc[c + 1] = (uint32_t)_mm512_reduce_add_epi32(s1);
        acc[c + 2] = (uint32_t)_mm512_reduce_add_epi32(s2);
        acc[c + 3] = (uint32_t)_mm512_reduce_add_epi32(s3);
    }
    for (; c < nc; c++) {
        const int8_t *w0 = w + (int64_t)c * ws;
        __m512i s0 = _mm512_setzero_si512();
        for (int32_t i = 0; i < k; i += 64) {
            const __mmask64 m = k - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (k - i)) - 1u;
            const __m512i x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, a + i), x80);
            s0 = _mm512_dpbusd_epi32(s0, x, _mm512_maskz_loadu_epi8(m, w0 + i));
        }
        acc[c] = (uint32_t)_mm512_reduce_add_epi32(s0);
    }
}

/* edge_round (half away from zero) on 8 doubles: trunc, then one step away
 * from zero when the dropped part is >= 0.5; NaN and infinities fall through
 * (the comparison is false) to the conversion's INT32_MIN, as the scalar. */
INLINE_VNNI_FN __m512d round_away(__m512d x) {
    const __m512d t = _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512d d = _mm512_abs_pd(_mm512_sub_pd(x, t));
    const __mmask8 up = _mm512_cmp_pd_mask(d, _mm512_set1_pd(0.5), _CMP_GE_OQ);
    const __m512d one = _mm512_castsi512_pd(_mm512_or_si512(
        _mm512_and_si512(_mm512_castpd_si512(x), _mm512_set1_epi64((long long)0x8000000000000000ull)),
        _mm512_castpd_si512(_mm512_set1_pd(1.0))));
    return _mm512_mask_add_pd(t, up, t, one);
}

VNNI_FN void systolic_x86_gemm_double(const systolic_params *p, const void *const *rows, int32_t m,
                                      void *out, int32_t out_stride) {
    const int32_t k = p->k, n = p->n;
    const int8_t *w = (const int8_t *)p->weights;
    const __m512i oo = _mm512_set1_epi32(p->output_offset);
    const __m512i lo = _mm512_set1_epi32(p->act_min), hi = _mm512_set1_epi32(p->act_max);
    uint32_t acc[16];
    for (int32_t r = 0; r < m; r++) {
        const int8_t *a = (const int8_t *)rows[r];
        uint32_t rt = 0; /* the fo * sum(A) row term */
        if (p->filter_offset != 0) {
            for (int32_t i = 0; i < k; i++) {
                const int32_t v = a[i];
                rt += (uint32_t)v;
            }
            rt *= (uint32_t)p->filter_offset;
        }
        int8_t *dst = (int8_t *)out + (int64_t)r * out_stride;
        for (int32_t c0 = 0; c0 < n; c0 += 16) {
            const int32_t nc = n - c0 < 16 ? n - c0 : 16;
            const __mmask16 cm = (__mmask16)((1u << nc) - 1u);
            systolic_x86_tile_dot(a, w + (int64_t)c0 * k, k, k, nc, acc);
            __m512i v = _mm512_add_epi32(_mm512_maskz_loadu_epi32(cm, acc),
                                         _mm512_set1_epi32((int32_t)rt));
            if (p->bias) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(cm, p->bias + c0));
            __m512d s0, s1;
            if (p->per_channel) {
                s0 = _mm512_maskz_loadu_pd((__mmask8)(cm & 0xffu), p->scale + c0);
                s1 = _mm512_maskz_loadu_pd((__mmask8)(cm >> 8), p->scale + c0 + 8);
            } else {
                s0 = s1 = _mm512_set1_pd(p->scale[0]);
            }
            const __m256i q0 = _mm512_cvttpd_epi32(
                round_away(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(v)), s0)));
            const __m256i q1 = _mm512_cvttpd_epi32(
                round_away(_mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(v, 1)), s1)));
            v = _mm512_inserti64x4(_mm512_castsi256_si512(q0), q1, 1);
            v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(v, oo), lo), hi);
            _mm_mask_storeu_epi8(dst + c0, cm, _mm512_cvtepi32_epi8(v));
        }
    }
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int systolic_x86_unused;
#endif
