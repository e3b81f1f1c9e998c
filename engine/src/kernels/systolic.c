/* SPDX-License-Identifier: Apache-2.0 */
/*
 * systolic.c — portable C model of the systolic array (see systolic.h).
 *
 * This is the bit-exact reference every accelerated variant is tested
 * against. Sums are kept in uint32 so that int32 wrap-around (what TFLite's
 * int32 accumulators do on every target) is defined behaviour here.
 */
#include "systolic.h"

#include "../edge_config.h"
#include "../quant.h"
#include "requant.h"
#include "portable/requant_double.h"
#include "x86/systolic_x86.h"

/* uint8 operands, when the engine is built with them (edge_internal.h). */
#define SYS_U8(p) (EDGE_WITH_UINT8 && (p)->is_unsigned)

/* Inner products are taken in fixed blocks of DOT_BLOCK so that compilers
 * vectorise them even at -O2 (no epilogue is needed inside a block), and so
 * that a block's int32 partial sum can never overflow: 16 * 255 * 255 < 2^31. */
#define DOT_BLOCK 16

#if EDGE_SYSTOLIC_ROWS < 1 || EDGE_SYSTOLIC_COLS < 1
#error "EDGE_SYSTOLIC_ROWS and EDGE_SYSTOLIC_COLS must be positive"
#endif

/* With a build-time variant the portable int8 tile is left unused. */
#if defined(EDGE_SYSTOLIC_VARIANT) && defined(__GNUC__)
#define SYSTOLIC_MAYBE_UNUSED __attribute__((unused))
#else
#define SYSTOLIC_MAYBE_UNUSED
#endif

/* One array column group: row `a` against EDGE_SYSTOLIC_COLS (or fewer)
 * weight rows, each k long, `ws` elements apart. */
#define SYSTOLIC_DEFINE_TILE(SUFFIX, T)                                                      \
    SYSTOLIC_MAYBE_UNUSED                                                                    \
    static void tile_dot_##SUFFIX(const T *a, const T *w, int32_t ws, int32_t k, int32_t nc, \
                                  uint32_t *acc) {                                           \
        int32_t c = 0;                                                                       \
        for (; c + 4 <= nc; c += 4) {                                                        \
            const T *w0 = w + (int64_t)c * ws, *w1 = w0 + ws, *w2 = w1 + ws, *w3 = w2 + ws;  \
            uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                         \
            int32_t i = 0;                                                                   \
            for (; i + DOT_BLOCK <= k; i += DOT_BLOCK) {                                     \
                int32_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;                                      \
                for (int32_t j = 0; j < DOT_BLOCK; j++) {                                    \
                    int32_t x = a[i + j];                                                    \
                    t0 += x * w0[i + j];                                                     \
                    t1 += x * w1[i + j];                                                     \
                    t2 += x * w2[i + j];                                                     \
                    t3 += x * w3[i + j];                                                     \
                }                                                                            \
                s0 += (uint32_t)t0;                                                          \
                s1 += (uint32_t)t1;                                                          \
                s2 += (uint32_t)t2;                                                          \
                s3 += (uint32_t)t3;                                                          \
            }                                                                                \
            for (; i < k; i++) {                                                             \
                int32_t x = a[i];                                                            \
                s0 += (uint32_t)(x * w0[i]);                                                 \
                s1 += (uint32_t)(x * w1[i]);                                                 \
                s2 += (uint32_t)(x * w2[i]);                                                 \
                s3 += (uint32_t)(x * w3[i]);                                                 \
            }                                                                                \
            acc[c] = s0;                                                                     \
            acc[c + 1] = s1;                                                                 \
            acc[c + 2] = s2;                                                                 \
            acc[c + 3] = s3;                                                                 \
        }                                                                                    \
        for (; c < nc; c++) {                                                                \
            const T *w0 = w + (int64_t)c * ws;                                               \
            uint32_t s0 = 0;                                                                 \
            int32_t i = 0;                                                                   \
            for (; i + DOT_BLOCK <= k; i += DOT_BLOCK) {                                     \
                int32_t t0 = 0;                                                              \
                for (int32_t j = 0; j < DOT_BLOCK; j++) t0 += (int32_t)a[i + j] * w0[i + j]; \
                s0 += (uint32_t)t0;                                                          \
            }                                                                                \
            for (; i < k; i++) s0 += (uint32_t)((int32_t)a[i] * w0[i]);                      \
            acc[c] = s0;                                                                     \
        }                                                                                    \
    }                                                                                        \
    static uint32_t row_sum_##SUFFIX(const T *a, int32_t k) {                                \
        uint32_t s = 0;                                                                      \
        for (int32_t i = 0; i < k; i++) {                                                    \
            int32_t v = a[i];                                                                \
            s += (uint32_t)v;                                                                \
        }                                                                                    \
        return s;                                                                            \
    }

SYSTOLIC_DEFINE_TILE(s8, int8_t)
SYSTOLIC_DEFINE_TILE(u8, uint8_t) /* dropped as dead code when SYS_U8 is 0 */

/* Sum of a weight row, in fixed blocks of DOT_BLOCK so that compilers
 * vectorise it at -O2 (an eval-time pass over every weight: see
 * systolic_fold_bias). A block's int32 sum cannot overflow. */
#define DEFINE_WSUM(SUFFIX, T)                                                   \
    SYSTOLIC_WSUM_MAYBE_UNUSED                                                   \
    static uint32_t wsum_##SUFFIX(const T *w, int32_t k) {                       \
        uint32_t s = 0;                                                          \
        int32_t i = 0;                                                           \
        for (; i + DOT_BLOCK <= k; i += DOT_BLOCK) {                             \
            int32_t t = 0;                                                       \
            for (int32_t j = 0; j < DOT_BLOCK; j++) t += (int32_t)w[i + j];      \
            s += (uint32_t)t;                                                    \
        }                                                                        \
        for (; i < k; i++) {                                                     \
            int32_t v = w[i];                                                    \
            s += (uint32_t)v;                                                    \
        }                                                                        \
        return s;                                                                \
    }

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SYSTOLIC_WSUM_X86 1
#define SYSTOLIC_WSUM_MAYBE_UNUSED __attribute__((unused))
DEFINE_WSUM(s8, int8_t)
DEFINE_WSUM(u8, uint8_t)
/* x86-64: psadbw sums 8 unsigned bytes per 64-bit lane; int8 bytes are
 * flipped to w + 128 (flip 0x80) and the 128s taken off after. SSE2 is
 * x86-64's baseline; the AVX2 twin runs when the op's prepare found AVX2 on
 * this CPU. Both write the n sums of rows k apart, as uint32. */
static inline uint32_t wsum_hsum(__m128i acc) {
    return (uint32_t)_mm_cvtsi128_si32(acc) + (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(acc, acc));
}

static void wsum_rows_sse2(const uint8_t *w, int32_t k, int32_t n, uint8_t flip, uint32_t *sums) {
    const __m128i f = _mm_set1_epi8((char)flip), z = _mm_setzero_si128();
    for (int32_t c = 0; c < n; c++, w += k) {
        __m128i acc = z;
        int32_t i = 0;
        for (; i + 16 <= k; i += 16)
            acc = _mm_add_epi64(
                acc, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(w + i)), f), z));
        uint32_t s = wsum_hsum(acc);
        for (; i < k; i++) s += (uint32_t)(uint8_t)(w[i] ^ flip);
        sums[c] = s - (uint32_t)flip * (uint32_t)k;
    }
}

/* One row's sum from its 32-byte steps' psadbw lanes and the tail. */
__attribute__((target("avx2"))) static inline uint32_t wsum_finish(__m256i acc, const uint8_t *w, int32_t i,
                                                                   int32_t k, uint8_t flip) {
    __m128i a = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    if (i + 16 <= k) {
        a = _mm_add_epi64(a, _mm_sad_epu8(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(w + i)),
                                                        _mm_set1_epi8((char)flip)),
                                          _mm_setzero_si128()));
        i += 16;
    }
    uint32_t s = wsum_hsum(a);
    for (; i < k; i++) s += (uint32_t)(uint8_t)(w[i] ^ flip);
    return s - (uint32_t)flip * (uint32_t)k;
}

/* Four rows at a time: four independent sums keep psadbw busy. */
__attribute__((target("avx2"))) static void wsum_rows_avx2(const uint8_t *w, int32_t k, int32_t n,
                                                            uint8_t flip, uint32_t *sums) {
    const __m256i f = _mm256_set1_epi8((char)flip), z = _mm256_setzero_si256();
    int32_t c = 0;
    const int32_t kv = k & ~31;
    for (; c + 4 <= n; c += 4, w += 4 * (int64_t)k) {
        __m256i a0 = z, a1 = z, a2 = z, a3 = z;
        for (int32_t i = 0; i < kv; i += 32) {
#define WSUM_STEP(A, R)                                                                                       \
    A = _mm256_add_epi64(                                                                                     \
        A, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(w + (R) * (int64_t)k + i)), f), z))
            WSUM_STEP(a0, 0);
            WSUM_STEP(a1, 1);
            WSUM_STEP(a2, 2);
            WSUM_STEP(a3, 3);
#undef WSUM_STEP
        }
        sums[c] = wsum_finish(a0, w, kv, k, flip);
        sums[c + 1] = wsum_finish(a1, w + k, kv, k, flip);
        sums[c + 2] = wsum_finish(a2, w + 2 * (int64_t)k, kv, k, flip);
        sums[c + 3] = wsum_finish(a3, w + 3 * (int64_t)k, kv, k, flip);
    }
    for (; c < n; c++, w += k) {
        __m256i acc = z;
        for (int32_t i = 0; i < kv; i += 32)
            acc = _mm256_add_epi64(
                acc, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(w + i)), f), z));
        sums[c] = wsum_finish(acc, w, kv, k, flip);
    }
}

static void weight_row_sums(const systolic_params *p, int avx2, uint32_t *sums) {
    const uint8_t flip = p->is_unsigned ? 0u : 0x80u;
    if (avx2) wsum_rows_avx2((const uint8_t *)p->weights, p->k, p->n, flip, sums);
    else wsum_rows_sse2((const uint8_t *)p->weights, p->k, p->n, flip, sums);
}
#else
#if defined(__GNUC__)
#define SYSTOLIC_WSUM_MAYBE_UNUSED __attribute__((unused)) /* the DSP build sums with USADA8 */
#else
#define SYSTOLIC_WSUM_MAYBE_UNUSED
#endif
DEFINE_WSUM(s8, int8_t)
DEFINE_WSUM(u8, uint8_t)
#endif

#if !defined(SYSTOLIC_WSUM_X86) && defined(EDGE_SYSTOLIC_DSP) && defined(__ARM_FEATURE_SIMD32)
#include <arm_acle.h>
#define SYSTOLIC_WSUM_DSP 1
/* Cortex-M DSP: USADA8 adds four unsigned bytes per instruction; int8
 * bytes are flipped to w + 128 and the 128s taken off after. Words are
 * loaded unaligned (ARMv7-M allows it for LDR). */
static uint32_t wsum_row_dsp(const uint8_t *w, int32_t k, uint32_t flip) {
    uint32_t a0 = 0, a1 = 0;
    int32_t i = 0;
    for (; i + 8 <= k; i += 8) {
        uint32_t v0, v1;
        __builtin_memcpy(&v0, w + i, 4);
        __builtin_memcpy(&v1, w + i + 4, 4);
        a0 = __usada8(v0 ^ flip, 0u, a0);
        a1 = __usada8(v1 ^ flip, 0u, a1);
    }
    uint32_t s = a0 + a1;
    for (; i < k; i++) s += (uint32_t)(w[i] ^ (uint8_t)flip);
    return s - (flip & 0xffu) * (uint32_t)k;
}
#endif

#ifndef SYSTOLIC_WSUM_X86
static void weight_row_sums(const systolic_params *p, int avx2, uint32_t *sums) {
    (void)avx2;
    for (int32_t c = 0; c < p->n; c++) {
        const int64_t at = (int64_t)c * p->k;
#ifdef SYSTOLIC_WSUM_DSP
        sums[c] = wsum_row_dsp((const uint8_t *)p->weights + at, p->k, p->is_unsigned ? 0u : 0x80808080u);
#else
        sums[c] = SYS_U8(p) ? wsum_u8((const uint8_t *)p->weights + at, p->k)
                                 : wsum_s8((const int8_t *)p->weights + at, p->k);
#endif
    }
}
#endif

void systolic_fold_bias_tile(const systolic_params *p, const int32_t *bias, int32_t tile_offset,
                             int avx2, int32_t *eff_bias) {
    const uint32_t ws_mult = (uint32_t)p->input_offset - (uint32_t)tile_offset;
    const uint32_t kfo = (uint32_t)p->input_offset * ((uint32_t)p->k * (uint32_t)p->filter_offset);
    /* The row sums go to eff_bias first, then each becomes its bias. ws_mult
     * 0: the tile's offset cancels the input offset (x86 VNNI with input
     * zero point -128, what a ReLU leaves): no pass over the weights. */
    uint32_t *sums = (uint32_t *)(void *)eff_bias;
    if (ws_mult) weight_row_sums(p, avx2, sums);
    for (int32_t c = 0; c < p->n; c++) {
        const uint32_t wsum = ws_mult ? sums[c] : 0u;
        const uint32_t b = bias ? (uint32_t)bias[c] : 0u;
        eff_bias[c] = (int32_t)(b + ws_mult * wsum + kfo);
    }
}

void systolic_fold_bias(const systolic_params *p, const int32_t *bias, int32_t *eff_bias) {
    systolic_fold_bias_tile(p, bias, 0, 0, eff_bias);
}

#ifdef EDGE_SYSTOLIC_VARIANT
#define TILE_DOT_S8 systolic_tile_dot_s8_variant
#else
#define TILE_DOT_S8 tile_dot_s8
#endif

/* A tile column's fixed-point requantization constants in 32-bit words
 * (requant.h's edge_rq_apply, split for 32-bit cores). */
typedef struct rq32 {
    int32_t mult, left, right;
    uint32_t round, mask, neg;
} rq32;

static inline rq32 rq32_make(int32_t mult, int32_t shift) {
    const edge_rq r = edge_rq_make(mult, shift);
    rq32 q;
    q.mult = r.mult;
    q.left = r.left;
    q.right = r.right;
    q.round = (uint32_t)r.round;
    q.neg = (uint32_t)r.neg;
    q.mask = 2u * q.round - q.neg;
    return q;
}

/* edge_rq_apply for a multiplier other than INT32_MIN, which never reaches
 * the saturating case: the same steps without it. */
static inline int32_t rq32_apply(uint32_t acc, const rq32 *q) {
    const int64_t ab = (int64_t)(int32_t)(acc << q->left) * (int64_t)q->mult + ((int64_t)1 << 30);
    const int32_t h = (int32_t)(uint32_t)((uint64_t)ab >> 31);
    const uint32_t t = ((uint32_t)h & q->mask) + q->round - (((uint32_t)h >> 31) & q->neg);
    return (h >> q->right) + (int32_t)(t >> q->right);
}

/* Bias, requantization, output offset and clamp of one tile row:
 * int8 and uint8 results share their low byte. */
static inline void emit_row(const systolic_params *p, const uint32_t *acc, uint32_t rt,
                            const uint32_t *eb, const rq32 *rq, int nosat, const double *scale,
                            int32_t nc, uint8_t *dst) {
    const int32_t oo = p->output_offset, lo = p->act_min, hi = p->act_max;
    if (p->requant == SYSTOLIC_REQUANT_DOUBLE) {
        for (int32_t c = 0; c < nc; c++) {
            int32_t v = requant_double(acc[c] + rt + eb[c], scale[c]);
            v = (int32_t)((uint32_t)v + (uint32_t)oo);
            dst[c] = (uint8_t)((uint32_t)edge_clamp_i32(v, lo, hi) & 0xffu);
        }
    } else if (nosat) {
        for (int32_t c = 0; c < nc; c++) {
            int32_t v = rq32_apply(acc[c] + rt + eb[c], &rq[c]);
            v = (int32_t)((uint32_t)v + (uint32_t)oo);
            dst[c] = (uint8_t)((uint32_t)edge_clamp_i32(v, lo, hi) & 0xffu);
        }
    } else {
        for (int32_t c = 0; c < nc; c++) {
            int32_t v = edge_rq_apply(acc[c] + rt + eb[c], rq[c].mult, rq[c].left, rq[c].right,
                                      (int32_t)rq[c].round, (int64_t)rq[c].neg);
            v = (int32_t)((uint32_t)v + (uint32_t)oo);
            dst[c] = (uint8_t)((uint32_t)edge_clamp_i32(v, lo, hi) & 0xffu);
        }
    }
}

/* A tile column's bias and requantization constants, hoisted; returns
 * whether the saturation-free requantization applies. */
static inline int hoist_column(const systolic_params *p, int32_t c0, int32_t nc, uint32_t *eb,
                               rq32 *rq, double *scale) {
    int nosat = 1;
    for (int32_t c = 0; c < nc; c++) {
        const int32_t i = p->per_channel ? c0 + c : 0;
        eb[c] = p->bias ? (uint32_t)p->bias[c0 + c] : 0u;
        if (p->requant == SYSTOLIC_REQUANT_DOUBLE) {
            scale[c] = p->scale[i];
        } else {
            rq[c] = rq32_make(p->multiplier[i], p->shift[i]);
            nosat &= p->multiplier[i] != INT32_MIN;
        }
    }
    return nosat;
}

static uint32_t row_term(const systolic_params *p, const void *row) {
    if (p->filter_offset == 0) return 0; /* symmetric (int8) weights */
    uint32_t s = SYS_U8(p) ? row_sum_u8((const uint8_t *)row, p->k)
                                : row_sum_s8((const int8_t *)row, p->k);
    return s * (uint32_t)p->filter_offset;
}


void systolic_gemm(const systolic_params *p, const void *const *rows, int32_t m, void *out,
                   int32_t out_stride) {
    uint32_t acc[EDGE_SYSTOLIC_COLS];
    uint32_t rterm[EDGE_SYSTOLIC_ROWS];
    uint32_t eb[EDGE_SYSTOLIC_COLS];
    rq32 rq[EDGE_SYSTOLIC_COLS];
    double scale[EDGE_SYSTOLIC_COLS];
    uint8_t *o = (uint8_t *)out;
    const int32_t k = p->k, n = p->n;
#ifdef EDGE_SYSTOLIC_X86
    if (p->simd && !p->is_unsigned && p->requant == SYSTOLIC_REQUANT_DOUBLE) {
        if (p->simd == SYSTOLIC_X86_AVX2) systolic_x86_gemm_double_avx2(p, rows, m, out, out_stride);
        else systolic_x86_gemm_double(p, rows, m, out, out_stride);
        return;
    }
#endif
#ifdef EDGE_SYSTOLIC_VARIANT_WIDE
    /* One or two rows: the one-row tile below does fewer MACs in vain. */
    if (m >= 3 && systolic_gemm_wide_variant(p, rows, m, out, out_stride)) return;
#endif
    for (int32_t r0 = 0; r0 < m; r0 += EDGE_SYSTOLIC_ROWS) {
        int32_t mr = m - r0 < EDGE_SYSTOLIC_ROWS ? m - r0 : EDGE_SYSTOLIC_ROWS;
        /* The fo * sum(A) row term: zero for symmetric (int8) weights. */
        for (int32_t r = 0; r < mr; r++) rterm[r] = row_term(p, rows[r0 + r]);
        for (int32_t c0 = 0; c0 < n; c0 += EDGE_SYSTOLIC_COLS) {
            int32_t nc = n - c0 < EDGE_SYSTOLIC_COLS ? n - c0 : EDGE_SYSTOLIC_COLS;
            const int nosat = hoist_column(p, c0, nc, eb, rq, scale);
            for (int32_t r = 0; r < mr; r++) {
                if (SYS_U8(p))
                    tile_dot_u8((const uint8_t *)rows[r0 + r],
                                (const uint8_t *)p->weights + (int64_t)c0 * k, k, k, nc, acc);
#ifdef EDGE_SYSTOLIC_X86
                else if (p->simd == SYSTOLIC_X86_VNNI)
                    systolic_x86_tile_dot((const int8_t *)rows[r0 + r],
                                          (const int8_t *)p->weights + (int64_t)c0 * k, k, k, nc, acc);
#endif
                else
                    TILE_DOT_S8((const int8_t *)rows[r0 + r],
                                (const int8_t *)p->weights + (int64_t)c0 * k, k, k, nc, acc);
                emit_row(p, acc, rterm[r], eb, rq, nosat, scale, nc,
                         o + (int64_t)(r0 + r) * out_stride + c0);
            }
        }
    }
}

void systolic_gemm_dense(const systolic_params *p, const void *a, int32_t a_stride, int32_t m,
                         void *out, int32_t out_stride) {
    const void *rows[EDGE_SYSTOLIC_ROWS];
    const uint8_t *base = (const uint8_t *)a; /* both element types are one byte */
    uint8_t *o = (uint8_t *)out;
    for (int32_t r0 = 0; r0 < m; r0 += EDGE_SYSTOLIC_ROWS) {
        int32_t mr = m - r0 < EDGE_SYSTOLIC_ROWS ? m - r0 : EDGE_SYSTOLIC_ROWS;
        for (int32_t r = 0; r < mr; r++) rows[r] = base + (int64_t)(r0 + r) * a_stride;
        systolic_gemm(p, rows, mr, o + (int64_t)r0 * out_stride, out_stride);
    }
}

uint64_t systolic_cycles(uint64_t m, uint64_t n, uint64_t k) {
    const uint64_t R = EDGE_SYSTOLIC_ROWS, C = EDGE_SYSTOLIC_COLS;
    if (m == 0 || n == 0 || k == 0) return 0;
    uint64_t tiles = ((m + R - 1) / R) * ((n + C - 1) / C);
    return tiles * (k + (R - 1) + (C - 1) + R);
}
