/*
 * depthwise_x86.c — the int8 depthwise kernel with AVX2, bit-exact with
 * depthwise.c (the same int32 sums, the same requantization).
 *
 * Built on x86 only, as functions with target("avx2") inside an ordinary
 * build: the op's prepare asks the CPU once (depthwise_avx2_usable) and keeps
 * the answer in its params (depthwise_params.simd), so nothing global is
 * written and a CPU without AVX2 runs the portable kernel.
 *
 * The reference sums (x + input_offset) * w over the taps inside the image.
 * Here each input row is widened once into a row of int16 pairs,
 *   E[q][oc] = (x[q][ic] + io, x[q + dil_w][ic] + io),  ic = oc / depth_mult,
 * with 0 for columns outside the image, and the filter into pairs of
 * horizontally adjacent taps (w[ky][2j][oc], w[ky][2j+1][oc]), a zero
 * partner for an odd last tap. One vpmaddwd then adds two taps of eight
 * channels into their int32 lanes exactly, padding taps add 0 and rows
 * outside the image are skipped: the sum is the reference's integer for
 * integer, in the same wrap-around int32 arithmetic.
 *
 * Order: output rows top to bottom, each row's every channel before the
 * next row (the memory planner relies on it). Rows are cached in k_h slots
 * on the stack (host builds only: the memory plan stays the same on every
 * target); shapes whose slots would not fit run the portable kernel.
 */
#include "depthwise.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "requant.h"

#define AVX2_FN __attribute__((target("avx2")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2")))

/* Stack bytes for the row slots, the paired filter and the per-channel
 * constants. */
#define DWX_STACK_MAX (160 * 1024)
#define DWX_MAX_KH 16

int depthwise_avx2_usable(void) { return __builtin_cpu_supports("avx2") ? 1 : 0; }

/* Per-channel constants, eight channels per block, each a vector. */
typedef struct dwx_rq {
    int32_t bias[8], mult[8], mult_odd[8], left[8], right[8], mask[8], half[8];
} dwx_rq;

typedef struct dwx_geom {
    int32_t entries; /* pair entries per slot row */
    int32_t pairs;   /* tap pairs per filter row */
    int32_t slot_bytes;
} dwx_geom;

static dwx_geom geometry(const depthwise_params *p) {
    dwx_geom g;
    g.entries = (p->out_w - 1) * p->stride_w + (p->k_w - 1) * p->dil_w + 1;
    g.pairs = (p->k_w + 1) / 2;
    g.slot_bytes = g.entries * p->out_c * 4;
    return g;
}

static int64_t stack_need(const depthwise_params *p, const dwx_geom *g) {
    const int64_t c = p->out_c;
    return (int64_t)p->k_h * g->slot_bytes + (int64_t)p->k_h * g->pairs * c * 4 +
           (c / 8) * (int64_t)sizeof(dwx_rq);
}

/* Widen input row `src` (in_w pixels of in_c) into slot `dst`. */
AVX2_FN static void build_row(const depthwise_params *p, const dwx_geom *g, const int8_t *src,
                              int16_t *dst) {
    const int32_t c = p->out_c, dm = p->depth_mult, in_c = p->in_c, in_w = p->in_w, d = p->dil_w;
    const int16_t io = p->input_offset;
    const __m128i vio = _mm_set1_epi16(io);
    for (int32_t e = 0; e < g->entries; e++) {
        const int32_t qa = e - p->pad_w, qb = qa + d;
        const int ina = qa >= 0 && qa < in_w, inb = qb >= 0 && qb < in_w;
        int16_t *row = dst + (int64_t)e * c * 2;
        if (dm == 1 && ina && inb) {
            const int8_t *xa = src + (int64_t)qa * in_c, *xb = src + (int64_t)qb * in_c;
            for (int32_t oc = 0; oc < c; oc += 8) {
                const __m128i a = _mm_add_epi16(
                    _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(xa + oc))), vio);
                const __m128i b = _mm_add_epi16(
                    _mm_cvtepi8_epi16(_mm_loadl_epi64((const __m128i *)(const void *)(xb + oc))), vio);
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc), _mm_unpacklo_epi16(a, b));
                _mm_storeu_si128((__m128i *)(void *)(row + 2 * oc + 8), _mm_unpackhi_epi16(a, b));
            }
            continue;
        }
        for (int32_t oc = 0; oc < c; oc++) {
            const int32_t ic = oc / dm;
            row[2 * oc] = (int16_t)(ina ? src[(int64_t)qa * in_c + ic] + io : 0);
            row[2 * oc + 1] = (int16_t)(inb ? src[(int64_t)qb * in_c + ic] + io : 0);
        }
    }
}

/* requant.h's steps on eight lanes with per-lane constants (multiplier
 * >= 0): h = floor(((x << left) * mult + 2^30) / 2^31), then gemmlowp's
 * RoundingDivideByPOT (h >> right) + (remainder > half + [h < 0]). */
INLINE_AVX2 __m256i requant8(__m256i x, const dwx_rq *q) {
    const __m256i r30 = _mm256_set1_epi64x((long long)1 << 30);
    const __m256i ld = _mm256_loadu_si256((const __m256i *)(const void *)q->left);
    x = _mm256_sllv_epi32(x, ld);
    __m256i e = _mm256_mul_epi32(x, _mm256_loadu_si256((const __m256i *)(const void *)q->mult));
    __m256i o = _mm256_mul_epi32(_mm256_srli_epi64(x, 32),
                                 _mm256_loadu_si256((const __m256i *)(const void *)q->mult_odd));
    e = _mm256_srli_epi64(_mm256_add_epi64(e, r30), 31);
    o = _mm256_slli_epi64(_mm256_add_epi64(o, r30), 1);
    const __m256i h = _mm256_blend_epi32(e, o, 0xAA);
    const __m256i rem = _mm256_and_si256(h, _mm256_loadu_si256((const __m256i *)(const void *)q->mask));
    const __m256i thr = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(const void *)q->half),
                                         _mm256_srai_epi32(h, 31));
    return _mm256_sub_epi32(
        _mm256_srav_epi32(h, _mm256_loadu_si256((const __m256i *)(const void *)q->right)),
        _mm256_cmpgt_epi32(rem, thr));
}

/* Two results of eight channels to bytes (offset, clamp): a's 8 then b's. */
INLINE_AVX2 __m128i to_bytes(__m256i a, __m256i b, __m256i oo16, __m128i lo, __m128i hi) {
    __m256i v = _mm256_adds_epi16(_mm256_packs_epi32(a, b), oo16); /* a0-3 b0-3 | a4-7 b4-7 */
    v = _mm256_packs_epi16(v, v);
    v = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
    return _mm_min_epi8(_mm_max_epi8(_mm256_castsi256_si128(v), lo), hi);
}

AVX2_FN int depthwise_s8_avx2(const depthwise_params *p, const int8_t *in, const int8_t *filt, int8_t *out) {
    const int32_t c = p->out_c;
    if (p->is_unsigned || p->filter_offset != 0 || c % 8 != 0 || p->k_h > DWX_MAX_KH) return 0;
    const dwx_geom g = geometry(p);
    if (stack_need(p, &g) > DWX_STACK_MAX) return 0;
    _Alignas(32) uint8_t stack[DWX_STACK_MAX];
    int16_t *slots = (int16_t *)(void *)stack;
    int16_t *wp = slots + (int64_t)p->k_h * g.slot_bytes / 2;
    dwx_rq *rq = (dwx_rq *)(void *)(wp + (int64_t)p->k_h * g.pairs * c * 2);
    int32_t tag[DWX_MAX_KH];

    /* The filter as tap pairs, [ky][pair][oc][2]. */
    for (int32_t ky = 0; ky < p->k_h; ky++)
        for (int32_t j = 0; j < g.pairs; j++)
            for (int32_t oc = 0; oc < c; oc++) {
                const int32_t kx = 2 * j;
                int16_t *dst = wp + (((int64_t)ky * g.pairs + j) * c + oc) * 2;
                dst[0] = filt[((int64_t)ky * p->k_w + kx) * c + oc];
                dst[1] = (int16_t)(kx + 1 < p->k_w ? filt[((int64_t)ky * p->k_w + kx + 1) * c + oc] : 0);
            }
    for (int32_t oc = 0; oc < c; oc++) {
        dwx_rq *q = &rq[oc / 8];
        const int32_t l = oc % 8, i = p->per_channel ? oc : 0;
        const edge_rq r = edge_rq_make(p->multiplier[i], p->shift[i]);
        q->bias[l] = p->bias ? p->bias[oc] : 0;
        q->mult[l] = r.mult;
        q->left[l] = r.left;
        q->right[l] = r.right;
        q->mask[l] = (int32_t)(((uint32_t)1 << r.right) - 1u);
        q->half[l] = q->mask[l] >> 1;
    }
    for (int32_t b = 0; b < c / 8; b++)
        for (int32_t l = 0; l < 8; l++) rq[b].mult_odd[l] = rq[b].mult[l | 1];

    const __m256i oo16 = _mm256_set1_epi16(p->output_offset);
    const __m128i lo = _mm_set1_epi8((char)p->act_min), hi = _mm_set1_epi8((char)p->act_max);
    const int64_t in_row = (int64_t)p->in_w * p->in_c, out_row = (int64_t)p->out_w * c;
    /* In int16: one output pixel on, one tap pair on. */
    const int64_t step = (int64_t)p->stride_w * c * 2, pstep = (int64_t)2 * p->dil_w * c * 2;
    const int32_t np = g.pairs, ow = p->out_w;
    for (int32_t bt = 0; bt < p->batches; bt++) {
        const int8_t *img = in + (int64_t)bt * p->in_h * in_row;
        int8_t *out_img = out + (int64_t)bt * p->out_h * out_row;
        for (int32_t s = 0; s < p->k_h; s++) tag[s] = -1;
        for (int32_t oy = 0; oy < p->out_h; oy++) {
            /* The row of each filter row, or NULL outside the image. */
            const int16_t *rows[DWX_MAX_KH];
            const int16_t *wrow[DWX_MAX_KH];
            int32_t nr = 0;
            for (int32_t ky = 0; ky < p->k_h; ky++) {
                const int32_t iy = oy * p->stride_h - p->pad_h + ky * p->dil_h;
                if (iy < 0 || iy >= p->in_h) continue;
                /* Consecutive rows take distinct slots; dilated ones one per ky. */
                const int32_t s = p->dil_h == 1 ? iy % p->k_h : ky;
                int16_t *slot = slots + (int64_t)s * g.slot_bytes / 2;
                if (tag[s] != iy) {
                    build_row(p, &g, img + (int64_t)iy * in_row, slot);
                    tag[s] = iy;
                }
                rows[nr] = slot;
                wrow[nr++] = wp + (int64_t)ky * np * c * 2;
            }
            int8_t *dst = out_img + (int64_t)oy * out_row;
            for (int32_t c0 = 0; c0 < c; c0 += 8) {
                const dwx_rq *q = &rq[c0 / 8];
                const __m256i bias = _mm256_loadu_si256((const __m256i *)(const void *)q->bias);
                int32_t ox = 0;
                for (; ox < ow; ox += 2) {
                    const int two = ox + 1 < ow;
                    __m256i a0 = bias, a1 = bias;
                    for (int32_t r = 0; r < nr; r++) {
                        const int16_t *e0 = rows[r] + (int64_t)ox * step + (int64_t)c0 * 2;
                        const int16_t *w = wrow[r] + (int64_t)c0 * 2;
                        for (int32_t j = 0; j < np; j++) {
                            const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(w + (int64_t)j * c * 2));
                            const int16_t *e = e0 + (int64_t)j * pstep;
                            a0 = _mm256_add_epi32(
                                a0, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(const void *)e), wv));
                            if (two)
                                a1 = _mm256_add_epi32(
                                    a1, _mm256_madd_epi16(
                                            _mm256_loadu_si256((const __m256i *)(const void *)(e + step)), wv));
                        }
                    }
                    const __m128i v = to_bytes(requant8(a0, q), requant8(a1, q), oo16, lo, hi);
                    _mm_storel_epi64((__m128i *)(void *)(dst + (int64_t)ox * c + c0), v);
                    if (two) _mm_storel_epi64((__m128i *)(void *)(dst + (int64_t)(ox + 1) * c + c0), _mm_srli_si128(v, 8));
                }
            }
        }
    }
    return 1;
}

#else

int depthwise_avx2_usable(void) { return 0; }

#endif
