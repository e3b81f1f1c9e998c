/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_first_x86.c — CONV_2D with few input channels (first layers: RGB,
 * grey images, spectrograms) on AVX2, bit-exact with the systolic kernel.
 *
 * A GEMM row of such a conv is short (3x3x3 = 27) and its taps do not fill
 * whole words, so instead of panels each output pixel's channels run
 * across int32 lanes, eight per vector. Input rows are widened once into
 * int16 slots holding x + input_offset (0 outside the image), so a filter
 * row's k_w * in_c values lie side by side; pairs of them are broadcast and
 * vpmaddwd multiplies them with the matching pairs of eight channels'
 * weights (a zero partner after an odd count). The sum is the reference's
 * sum over the taps inside the image of (x + io) * w, plus the raw bias, in
 * wrap-around int32; requantization is requant.h's, per lane
 * (requant_lanes_x86.h).
 *
 * Output order: raster, two pixels' every channel at a time. Slots and packed weights live on the stack (host builds only; the
 * memory plan is the same on every target).
 */
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include "requant_lanes_x86.h"
#include "../word.h"

#define AVX2_FN __attribute__((target("avx2")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2")))

#define FIRST_MAX_IN_C 4
#define FIRST_MAX_KH 16
#define FIRST_MAX_ROW 64   /* k_w * in_c */
#define FIRST_MAX_OUT_C 512
#define FIRST_STACK_MAX (128 * 1024)

typedef struct first_geom {
    int32_t row_px;   /* padded pixels per slot row */
    int32_t slot_len; /* int16 per slot (+ 2 for a zero partner past the end) */
    int32_t pairs;    /* value pairs per filter row */
} first_geom;

static first_geom geometry(const systolic_x86_conv *g) {
    first_geom f;
    f.row_px = (g->out_w - 1) * g->stride_w + g->k_w;
    f.slot_len = f.row_px * g->in_c + 2;
    f.pairs = (g->k_w * g->in_c + 1) / 2;
    return f;
}

static int64_t stack_need(const systolic_x86_conv *g, const first_geom *f, int32_t out_c) {
    return (int64_t)g->k_h * f->slot_len * 2 + 2 + (int64_t)g->k_h * f->pairs * out_c * 4 +
           (int64_t)(out_c / 8) * (int64_t)sizeof(lanes_rq);
}

int systolic_x86_conv_first_ok(const systolic_x86_conv *g, int32_t out_c) {
    if (g->in_c > FIRST_MAX_IN_C || g->group_in_c != g->in_c || g->dil_w != 1) return 0;
    if (out_c % 8 != 0 || out_c > FIRST_MAX_OUT_C || g->k_h > FIRST_MAX_KH) return 0;
    if (g->k_w * g->in_c > FIRST_MAX_ROW || g->out_w > 4096) return 0;
    const first_geom f = geometry(g);
    return stack_need(g, &f, out_c) <= FIRST_STACK_MAX;
}

/* Slot: input row `src` as x + io in int16, zeros outside the image. */
AVX2_FN static void build_slot(const systolic_x86_conv *g, const first_geom *f, int16_t io, const int8_t *src,
                               int16_t *dst) {
    const int32_t c = g->in_c;
    const int32_t lo = g->pad_w < f->row_px ? g->pad_w : f->row_px;
    int32_t hi = g->pad_w + g->in_w < f->row_px ? g->pad_w + g->in_w : f->row_px;
    if (hi < lo) hi = lo;
    for (int32_t i = 0; i < lo * c; i++) dst[i] = 0;
    const int8_t *s = src + (int64_t)(lo - g->pad_w) * c;
    int16_t *d = dst + (int64_t)lo * c;
    const int32_t n = (hi - lo) * c;
    const __m256i vio = _mm256_set1_epi16(io);
    int32_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256((__m256i *)(void *)(d + i),
                            _mm256_add_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(s + i))), vio));
    for (; i < n; i++) d[i] = (int16_t)(s[i] + io);
    for (int32_t k = hi * c; k < f->slot_len; k++) dst[k] = 0;
}

/* Two output pixels, NB blocks of eight channels from block b0: ra[r] and
 * rb[r] point at each pixel's first value in slot r, wrow[r] at its filter
 * row's packed pairs; each weight load feeds both pixels. */
#define DEFINE_PAIR(NB)                                                                               \
    INLINE_AVX2 void pair_##NB(const int16_t *const *ra, const int16_t *const *rb, const int32_t *const *wrow, \
                               int32_t nr, int32_t np, int32_t out_c, int32_t b0, const lanes_rq *rq,   \
                               int8_t *da, int8_t *db) {                                                \
        __m256i a[NB], b[NB];                                                                         \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) a[i] = b[i] =                            \
            _mm256_loadu_si256((const __m256i *)(const void *)rq[b0 + i].bias);                       \
        for (int32_t r = 0; r < nr; r++) {                                                            \
            const int16_t *xa = ra[r], *xb = rb[r];                                                   \
            const int32_t *w = wrow[r] + 8 * b0;                                                      \
            for (int32_t j = 0; j < np; j++, w += out_c) {                                            \
                const __m256i va = _mm256_set1_epi32((int32_t)edge_load_word(xa + 2 * j));                          \
                const __m256i vb = _mm256_set1_epi32((int32_t)edge_load_word(xb + 2 * j));                          \
                _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) {                                \
                    const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(w + 8 * i)); \
                    a[i] = _mm256_add_epi32(a[i], _mm256_madd_epi16(va, wv));                         \
                    b[i] = _mm256_add_epi32(b[i], _mm256_madd_epi16(vb, wv));                         \
                }                                                                                     \
            }                                                                                         \
        }                                                                                             \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) {                                        \
            const lanes_rq *q = &rq[b0 + i];                                                          \
            const __m128i v = lanes_to_bytes(lanes_requant8(a[i], q), lanes_requant8(b[i], q), q);    \
            _mm_storel_epi64((__m128i *)(void *)(da + 8 * (b0 + i)), v);                              \
            _mm_storel_epi64((__m128i *)(void *)(db + 8 * (b0 + i)), _mm_srli_si128(v, 8));           \
        }                                                                                             \
    }
DEFINE_PAIR(4)
DEFINE_PAIR(3)
DEFINE_PAIR(2)
DEFINE_PAIR(1)

AVX2_FN void systolic_x86_conv_first_avx2(const systolic_x86_conv *g, int32_t out_h, int32_t out_c,
                                          const systolic_params *sp, const int32_t *bias, const int8_t *img,
                                          const int8_t *filt, int8_t *out) {
    const first_geom f = geometry(g);
    uint8_t stack[FIRST_STACK_MAX] __attribute__((aligned(32)));
    int16_t *slots = (int16_t *)(void *)stack;
    int32_t *wp = (int32_t *)(void *)(slots + (int64_t)g->k_h * f.slot_len + ((g->k_h * f.slot_len) & 1));
    lanes_rq *rq = (lanes_rq *)(void *)(wp + (int64_t)g->k_h * f.pairs * out_c);
    const int32_t rv = g->k_w * g->in_c, np = f.pairs, k = g->k_h * rv;

    /* The filter as value pairs, [ky][pair][oc] (low half first). */
    for (int32_t ky = 0; ky < g->k_h; ky++)
        for (int32_t j = 0; j < np; j++)
            for (int32_t oc = 0; oc < out_c; oc++) {
                const int8_t *w = filt + (int64_t)oc * k + (int64_t)ky * rv + 2 * j;
                const uint16_t a = (uint16_t)(int16_t)w[0];
                const uint16_t b = (uint16_t)(int16_t)(2 * j + 1 < rv ? w[1] : 0);
                wp[((int64_t)ky * np + j) * out_c + oc] = (int32_t)((uint32_t)a | (uint32_t)b << 16);
            }
    lanes_rq_build(out_c, sp->multiplier, sp->shift, sp->per_channel, bias, sp->output_offset, sp->act_min,
                   sp->act_max, rq);

    int32_t tag[FIRST_MAX_KH];
    for (int32_t s = 0; s < g->k_h; s++) tag[s] = -1;
    const int16_t io = (int16_t)sp->input_offset;
    const int64_t in_row = (int64_t)g->in_w * g->in_c, step = (int64_t)g->stride_w * g->in_c;
    for (int32_t oy = 0; oy < out_h; oy++) {
        const int16_t *slot_of[FIRST_MAX_KH];
        const int32_t *wrow[FIRST_MAX_KH];
        int32_t nr = 0;
        for (int32_t ky = 0; ky < g->k_h; ky++) {
            const int32_t iy = oy * g->stride_h - g->pad_h + ky * g->dil_h;
            if (iy < 0 || iy >= g->in_h) continue;
            /* Consecutive rows take distinct slots; dilated ones one per ky. */
            const int32_t s = g->dil_h == 1 ? iy % g->k_h : ky;
            int16_t *slot = slots + (int64_t)s * f.slot_len;
            if (tag[s] != iy) {
                build_slot(g, &f, io, img + (int64_t)iy * in_row, slot);
                tag[s] = iy;
            }
            slot_of[nr] = slot;
            wrow[nr++] = wp + (int64_t)ky * np * out_c;
        }
        int8_t *dst = out + (int64_t)oy * g->out_w * out_c;
        const int16_t *ra[FIRST_MAX_KH], *rb[FIRST_MAX_KH];
        for (int32_t ox = 0; ox < g->out_w; ox += 2) {
            /* An odd last pixel is computed twice and stored once. */
            const int32_t ox1 = ox + 1 < g->out_w ? ox + 1 : ox;
            for (int32_t r = 0; r < nr; r++) ra[r] = slot_of[r] + ox * step, rb[r] = slot_of[r] + ox1 * step;
            int8_t *da = dst + (int64_t)ox * out_c, *db = dst + (int64_t)ox1 * out_c;
            const int32_t nb = out_c / 8;
            int32_t b0 = 0;
            for (; b0 + 4 <= nb; b0 += 4) pair_4(ra, rb, wrow, nr, np, out_c, b0, rq, da, db);
            if (nb - b0 == 3) pair_3(ra, rb, wrow, nr, np, out_c, b0, rq, da, db);
            else if (nb - b0 == 2) pair_2(ra, rb, wrow, nr, np, out_c, b0, rq, da, db);
            else if (nb - b0 == 1) pair_1(ra, rb, wrow, nr, np, out_c, b0, rq, da, db);
        }
    }
}

#else
typedef int conv_first_x86_unused;
#endif
