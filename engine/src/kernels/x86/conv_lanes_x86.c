/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_lanes_x86.c — CONV_2D on AVX2 with output channels across lanes,
 * bit-exact with the systolic kernel.
 *
 * The panel kernel (systolic_avx2.c) keeps rows in lanes, so every
 * channel's result must be transposed back into pixels. Here a vector holds
 * eight channels of one pixel: each four input values x of a tap are
 * broadcast, and vpmaddubsw multiplies |x| with the four weights of eight
 * channels times sign(x) (no weight is -128: checked at prepare; each pair
 * sum stays below 2^15), vpmaddwd by ones widens the pairs into the
 * channels' int32 lanes. The weights are re-laid once per eval into
 * [k / 4][out_c][4] (a transpose of OHWI's words, on the stack), so one
 * 32-byte load feeds eight channels. Two pixels share each weight load,
 * four blocks of eight channels share each broadcast. Taps outside the
 * image read the input zero point, as the im2col rows do, and the kernel
 * adds input_offset times each channel's weight sum to the model's bias
 * itself (every tap then sums to (x + input_offset) * w, 0 for padding).
 *
 * Output order: raster, two pixels' every channel at a time.
 */
#include "systolic_x86.h"

#ifdef EDGE_SYSTOLIC_X86

#include "requant_lanes_x86.h"
#include "../word.h"

#define AVX2_FN __attribute__((target("avx2")))
#define INLINE_AVX2 static inline __attribute__((always_inline, target("avx2")))

#define LANES_MAX_TAPS 64
#define LANES_MAX_OUT_C 1024

static int64_t stack_need(const systolic_x86_conv *g, int32_t out_c) {
    const int64_t k = (int64_t)g->k_h * g->k_w * g->in_c;
    return k * out_c + (int64_t)(out_c / 8) * (int64_t)sizeof(lanes_rq) + g->in_c;
}

uint32_t systolic_x86_conv_lanes_bytes(const systolic_x86_conv *g, int32_t out_c) {
    return (uint32_t)stack_need(g, out_c);
}

int systolic_x86_conv_lanes_ok(const systolic_x86_conv *g, int32_t out_c) {
    if (g->group_in_c != g->in_c || g->in_c % 4 != 0 || out_c % 8 != 0 || out_c > LANES_MAX_OUT_C) return 0;
    if ((int64_t)g->k_h * g->k_w > LANES_MAX_TAPS) return 0;
    return stack_need(g, out_c) <= SYSTOLIC_X86_LANES_STATE;
}

/* acc += |x| * (w * sign(x)) per four k, widened into int32 lanes. */
INLINE_AVX2 __m256i mac(__m256i acc, __m256i ax, __m256i x, __m256i w) {
    return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(ax, _mm256_sign_epi8(w, x)),
                                                   _mm256_set1_epi16(1)));
}

/* Pixels a and b (tap sources sa[t], sb[t]), NB blocks of eight channels
 * from c0; wq points at the re-laid weights, words of eight channels. */
#define DEFINE_PAIR(NB)                                                                              \
    INLINE_AVX2 void pair_##NB(const int8_t *const *sa, const int8_t *const *sb, int32_t taps,         \
                               int32_t words, const int8_t *wq, int32_t out_c, int32_t c0,            \
                               const lanes_rq *rq, int8_t *da, int8_t *db) {                          \
        __m256i a[NB], b[NB];                                                                        \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) a[i] = b[i] =                           \
            _mm256_loadu_si256((const __m256i *)(const void *)rq[c0 / 8 + i].bias);                  \
        const int8_t *w = wq + (int64_t)c0 * 4;                                                      \
        for (int32_t t = 0; t < taps; t++) {                                                         \
            const int8_t *xa = sa[t], *xb = sb[t];                                                   \
            for (int32_t q = 0; q < words; q++, w += (int64_t)out_c * 4) {                           \
                const __m256i va = _mm256_set1_epi32((int32_t)edge_load_word(xa + 4 * q));                             \
                const __m256i vb = _mm256_set1_epi32((int32_t)edge_load_word(xb + 4 * q));                             \
                const __m256i aa = _mm256_abs_epi8(va), ab = _mm256_abs_epi8(vb);                    \
                _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) {                               \
                    const __m256i wv = _mm256_loadu_si256((const __m256i *)(const void *)(w + 32 * i)); \
                    a[i] = mac(a[i], aa, va, wv);                                                    \
                    b[i] = mac(b[i], ab, vb, wv);                                                    \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
        _Pragma("GCC unroll 4") for (int i = 0; i < NB; i++) {                                       \
            const lanes_rq *q = &rq[c0 / 8 + i];                                                     \
            const __m128i v = lanes_to_bytes(lanes_requant8(a[i], q), lanes_requant8(b[i], q), q);   \
            _mm_storel_epi64((__m128i *)(void *)(da + c0 + 8 * i), v);                               \
            _mm_storel_epi64((__m128i *)(void *)(db + c0 + 8 * i), _mm_srli_si128(v, 8));            \
        }                                                                                            \
    }
DEFINE_PAIR(4)
DEFINE_PAIR(3)
DEFINE_PAIR(2)
DEFINE_PAIR(1)

/* Every channel of pixels a and b: blocks of 32, then the 8-24 left. */
INLINE_AVX2 void pair_all(const int8_t *const *sa, const int8_t *const *sb, int32_t taps, int32_t words,
                          const int8_t *wq, int32_t out_c, const lanes_rq *rq, int8_t *da, int8_t *db) {
    int32_t c0 = 0;
    for (; c0 + 32 <= out_c; c0 += 32) pair_4(sa, sb, taps, words, wq, out_c, c0, rq, da, db);
    if (out_c - c0 == 24) pair_3(sa, sb, taps, words, wq, out_c, c0, rq, da, db);
    else if (out_c - c0 == 16) pair_2(sa, sb, taps, words, wq, out_c, c0, rq, da, db);
    else if (out_c - c0 == 8) pair_1(sa, sb, taps, words, wq, out_c, c0, rq, da, db);
}

/* Tap sources of output pixel (oy, ox): the input's channels, or the pad
 * row outside the image; toff[t] is tap t's offset for an interior pixel. */
static inline void tap_sources(const systolic_x86_conv *g, const int8_t *img, const int8_t *pad,
                               const int64_t *toff, int32_t oy, int32_t ox, const int8_t **src) {
    const int32_t iy0 = oy * g->stride_h - g->pad_h, ix0 = ox * g->stride_w - g->pad_w;
    const int32_t taps = g->k_h * g->k_w;
    if (iy0 >= 0 && iy0 + (g->k_h - 1) * g->dil_h < g->in_h && ix0 >= 0 &&
        ix0 + (g->k_w - 1) * g->dil_w < g->in_w) {
        const int8_t *base = img + ((int64_t)iy0 * g->in_w + ix0) * g->in_c;
        for (int32_t t = 0; t < taps; t++) src[t] = base + toff[t];
        return;
    }
    int32_t t = 0;
    for (int32_t ky = 0; ky < g->k_h; ky++) {
        const int32_t iy = iy0 + ky * g->dil_h;
        for (int32_t kx = 0; kx < g->k_w; kx++, t++) {
            const int32_t ix = ix0 + kx * g->dil_w;
            src[t] = iy >= 0 && iy < g->in_h && ix >= 0 && ix < g->in_w
                         ? img + ((int64_t)iy * g->in_w + ix) * g->in_c
                         : pad;
        }
    }
}

/* OHWI words to [word][out_c][4] by 4 x 4 word transposes (out_c is a
 * multiple of 8), the kq % 4 last words one by one; and each channel's
 * weight sum from the same loads (psadbw on w + 128, the 128s taken off). */
AVX2_FN static void relay_weights(const int8_t *filt, int32_t kq, int32_t out_c, int8_t *wq, uint32_t *sums) {
    const int64_t k = (int64_t)kq * 4;
    const __m128i flip = _mm_set1_epi8((char)0x80), z = _mm_setzero_si128();
    for (int32_t oc = 0; oc < out_c; oc += 4) {
        const int8_t *f = filt + oc * k;
        __m128i s0 = z, s1 = z, s2 = z, s3 = z;
        int32_t q = 0;
        for (; q + 4 <= kq; q += 4) {
            const __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)(f + 4 * q));
            const __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)(f + k + 4 * q));
            const __m128i a2 = _mm_loadu_si128((const __m128i *)(const void *)(f + 2 * k + 4 * q));
            const __m128i a3 = _mm_loadu_si128((const __m128i *)(const void *)(f + 3 * k + 4 * q));
            s0 = _mm_add_epi64(s0, _mm_sad_epu8(_mm_xor_si128(a0, flip), z));
            s1 = _mm_add_epi64(s1, _mm_sad_epu8(_mm_xor_si128(a1, flip), z));
            s2 = _mm_add_epi64(s2, _mm_sad_epu8(_mm_xor_si128(a2, flip), z));
            s3 = _mm_add_epi64(s3, _mm_sad_epu8(_mm_xor_si128(a3, flip), z));
            const __m128i t0 = _mm_unpacklo_epi32(a0, a1), t1 = _mm_unpacklo_epi32(a2, a3);
            const __m128i t2 = _mm_unpackhi_epi32(a0, a1), t3 = _mm_unpackhi_epi32(a2, a3);
            int8_t *d = wq + ((int64_t)q * out_c + oc) * 4;
            const int64_t row = (int64_t)out_c * 4;
            _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(d + row), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(void *)(d + 2 * row), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128((__m128i *)(void *)(d + 3 * row), _mm_unpackhi_epi64(t2, t3));
        }
        const __m128i s[4] = {s0, s1, s2, s3};
        for (int32_t j = 0; j < 4; j++) {
            uint32_t sum = (uint32_t)_mm_cvtsi128_si32(s[j]) + (uint32_t)_mm_cvtsi128_si32(_mm_unpackhi_epi64(s[j], s[j]));
            for (int32_t t = q; t < kq; t++) {
                __builtin_memcpy(wq + ((int64_t)t * out_c + oc + j) * 4, f + j * k + 4 * t, 4);
                for (int32_t b = 0; b < 4; b++) sum += (uint32_t)(uint8_t)f[j * k + 4 * t + b] ^ 0x80u;
            }
            sums[oc + j] = sum - 128u * (uint32_t)k;
        }
    }
}

AVX2_FN void systolic_x86_conv_lanes_prepare(const systolic_x86_conv *g, int32_t out_c, const systolic_params *sp,
                                             const int8_t *filt, void *state) {
    uint8_t *stack = (uint8_t *)state;
    const int32_t taps = g->k_h * g->k_w, words = g->in_c / 4, kq = taps * words;
    const int64_t k = (int64_t)kq * 4;
    int8_t *wq = (int8_t *)stack;
    lanes_rq *rq = (lanes_rq *)(void *)(stack + k * out_c);
    int8_t *pad = (int8_t *)(rq + out_c / 8);

    /* The effective bias: the model's plus input_offset times each
     * channel's weight sum, taken in the same pass as the re-lay. */
    uint32_t sums[LANES_MAX_OUT_C];
    int32_t eff[LANES_MAX_OUT_C];
    relay_weights(filt, kq, out_c, wq, sums);
    for (int32_t oc = 0; oc < out_c; oc++)
        eff[oc] = (int32_t)((sp->bias ? (uint32_t)sp->bias[oc] : 0u) + (uint32_t)sp->input_offset * sums[oc]);
    lanes_rq_build(out_c, sp->multiplier, sp->shift, sp->per_channel, eff, sp->output_offset,
                   sp->act_min, sp->act_max, rq);
    const int8_t zp = (int8_t)(uint8_t)(g->pad_word & 0xffu);
    for (int32_t i = 0; i < g->in_c; i++) pad[i] = zp;
}

AVX2_FN void systolic_x86_conv_lanes_run(const systolic_x86_conv *g, int32_t out_h, int32_t out_c, const void *state,
                                         const int8_t *img, int8_t *out) {
    const uint8_t *stack = (const uint8_t *)state;
    const int32_t taps = g->k_h * g->k_w, words = g->in_c / 4, kq = taps * words;
    const int64_t k = (int64_t)kq * 4;
    const int8_t *wq = (const int8_t *)stack;
    const lanes_rq *rq = (const lanes_rq *)(const void *)(stack + k * out_c);
    const int8_t *pad = (const int8_t *)(rq + out_c / 8);
    int64_t toff[LANES_MAX_TAPS];
    for (int32_t ky = 0, t = 0; ky < g->k_h; ky++)
        for (int32_t kx = 0; kx < g->k_w; kx++, t++)
            toff[t] = ((int64_t)ky * g->dil_h * g->in_w + (int64_t)kx * g->dil_w) * g->in_c;
    const int8_t *sa[LANES_MAX_TAPS], *sb[LANES_MAX_TAPS];
    const int64_t pixels = (int64_t)out_h * g->out_w;
    if (taps == 1 && g->stride_h == 1 && g->stride_w == 1 && g->pad_h == 0 && g->pad_w == 0 &&
        g->out_w == g->in_w) {
        /* A pointwise conv: pixel px reads input pixel px, no window to find. */
        for (int64_t px = 0; px < pixels; px += 2) {
            sa[0] = img + px * g->in_c;
            sb[0] = px + 1 < pixels ? sa[0] + g->in_c : sa[0];
            int8_t *da = out + px * out_c, *db = px + 1 < pixels ? da + out_c : da;
            pair_all(sa, sb, 1, words, wq, out_c, rq, da, db);
        }
        return;
    }
    /* (oy, ox) of pixel px, stepped rather than divided out per pair. */
    int32_t oy = 0, ox = 0;
    for (int64_t px = 0; px < pixels; px += 2) {
        tap_sources(g, img, pad, toff, oy, ox, sa);
        int8_t *da = out + px * out_c, *db = da + out_c;
        if (++ox == g->out_w) ox = 0, oy++;
        if (px + 1 < pixels) {
            tap_sources(g, img, pad, toff, oy, ox, sb);
            if (++ox == g->out_w) ox = 0, oy++;
        } else {
            /* An odd last pixel: computed twice, stored once. */
            for (int32_t t = 0; t < taps; t++) sb[t] = sa[t];
            db = da;
        }
        pair_all(sa, sb, taps, words, wq, out_c, rq, da, db);
    }
}

void systolic_x86_conv_lanes_avx2(const systolic_x86_conv *g, int32_t out_h, int32_t out_c, const systolic_params *sp,
                                  const int8_t *img, const int8_t *filt, int8_t *out) {
    uint8_t state[SYSTOLIC_X86_LANES_STATE] __attribute__((aligned(32)));
    systolic_x86_conv_lanes_prepare(g, out_c, sp, filt, state);
    systolic_x86_conv_lanes_run(g, out_h, out_c, state, img, out);
}

#else
typedef int conv_lanes_x86_unused;
#endif
