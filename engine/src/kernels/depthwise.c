/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise.c — portable C depthwise convolution (see depthwise.h).
 *
 * Output channels are processed in blocks of DW_BLOCK; within a block the
 * channel loop is innermost over contiguous NHWC data, in chunks of DW_VEC
 * with a constant trip count so that compilers vectorise it at -O2.
 *
 * For each output pixel the valid tap window [ky_lo, ky_hi) x [kx_lo, kx_hi)
 * is computed once, so the tap loops carry no bounds checks. For pixels whose
 * whole window lies inside the image, the input offset is folded out:
 *   sum (w + fo)(x + io) = sum (w + fo) x + io * sum (w + fo)
 * where the last sum is per channel and computed once per block; border
 * pixels take the direct form over their valid taps only, as the reference
 * skips the others. Sums are kept in uint32 so int32 wrap-around is defined.
 *
 * The block's requantization parameters (multiplier, left and right shift)
 * are hoisted into locals, and the row of nc outputs is requantized at once.
 *
 * Builds with EDGE_DEPTHWISE_COMPACT (edge_config.h: the Cortex-M ones,
 * whose DSP kernel takes the common shapes) have the direct form instead,
 * one output at a time: a fraction of the code, for the shapes left over.
 */
#include "depthwise.h"

#include "../edge_config.h"
#include "../quant.h"
#include "requant.h"

/* Output channels accumulated at once (stack: about 20 bytes each). */
#define DW_BLOCK 64
/* Channels per vectorisable chunk. */
#define DW_VEC 16

/* The valid part of one output pixel's window (dm > 1 path). */
typedef struct dw_window {
    int32_t iy0, ix0, ky_lo, ky_hi, kx_lo, kx_hi, dil_h, dil_w;
    size_t row, wrow, in_c, out_c;
} dw_window;

#if !EDGE_DEPTHWISE_COMPACT
#define DEPTHWISE_DEFINE(SUFFIX, T)                                                                \
    /* acc[j] += (w[j] + fo) * (s[j] + xo) for the nc channels of a block (dm == 1). */        \
    static inline void taps_##SUFFIX(uint32_t *restrict acc, const T *s, const T *w, int32_t nc,  \
                                     int32_t fo, int32_t xo) {                                     \
        int32_t j = 0;                                                                             \
        if (fo == 0 && xo == 0) {                                                                  \
            for (; j + DW_VEC <= nc; j += DW_VEC)                                                  \
                for (int32_t u = 0; u < DW_VEC; u++)                                               \
                    acc[j + u] += (uint32_t)((int32_t)w[j + u] * (int32_t)s[j + u]);               \
        } else if (fo == 0) {                                                                      \
            /* |s + xo| <= 255: an int16 operand keeps the product vectorisable. */               \
            for (; j + DW_VEC <= nc; j += DW_VEC)                                                  \
                for (int32_t u = 0; u < DW_VEC; u++)                                               \
                    acc[j + u] += (uint32_t)((int32_t)w[j + u] *                                   \
                                             (int32_t)(int16_t)((int32_t)s[j + u] + xo));          \
        }                                                                                          \
        for (; j < nc; j++) acc[j] += (uint32_t)(((int32_t)w[j] + fo) * ((int32_t)s[j] + xo));     \
    }                                                                                              \
    /* One output channel's sum over the valid window g, in a register: s points at its     \
     * input channel in the image, w at its weights. */                                          \
    static inline uint32_t chan_##SUFFIX(uint32_t a, const T *s, const T *w,                      \
                                         const dw_window *g, int32_t fo, int32_t xo) {            \
        for (int32_t ky = g->ky_lo; ky < g->ky_hi; ky++) {                                         \
            const T *srow = s + (size_t)(g->iy0 + ky * g->dil_h) * g->row;                         \
            const T *wrow = w + (size_t)ky * g->wrow;                                              \
            for (int32_t kx = g->kx_lo; kx < g->kx_hi; kx++) {                                     \
                const int32_t x = srow[(size_t)(g->ix0 + kx * g->dil_w) * g->in_c];                \
                const int32_t f = wrow[(size_t)kx * g->out_c];                                     \
                a += (uint32_t)((f + fo) * (x + xo));                                              \
            }                                                                                      \
        }                                                                                          \
        return a;                                                                                  \
    }                                                                                              \
    static void depthwise_##SUFFIX(const depthwise_params *p, const T *in, const T *filt,          \
                                   T *out) {                                                       \
        uint32_t acc[DW_BLOCK], folded[DW_BLOCK], bias0[DW_BLOCK];                                 \
        edge_rq rq[DW_BLOCK];                                                                      \
        const int32_t io = p->input_offset, fo = p->filter_offset, dm = p->depth_mult;             \
        const int32_t oo = p->output_offset, lo = p->act_min, hi = p->act_max;                     \
        const int32_t k_h = p->k_h, k_w = p->k_w, dil_h = p->dil_h, dil_w = p->dil_w;              \
        const int32_t in_h = p->in_h, in_w = p->in_w, out_c = p->out_c;                            \
        const size_t row = (size_t)in_w * (size_t)p->in_c;                                         \
        const size_t taps = (size_t)k_h * (size_t)k_w;                                             \
        for (int32_t b = 0; b < p->batches; b++) {                                                 \
            const T *img = in + (size_t)b * (size_t)in_h * row;                                    \
            T *out_img = out + (size_t)b * (size_t)p->out_h * (size_t)p->out_w * (size_t)out_c;    \
            for (int32_t c0 = 0; c0 < out_c; c0 += DW_BLOCK) {                                     \
                const int32_t nc = out_c - c0 < DW_BLOCK ? out_c - c0 : DW_BLOCK;                  \
                const int32_t ic0 = c0 / dm, m0 = c0 % dm;                                         \
                for (int32_t j = 0; j < nc; j++) {                                                 \
                    uint32_t wsum = 0;                                                             \
                    for (size_t t = 0; t < taps; t++) {                                            \
                        int32_t f = filt[t * (size_t)out_c + (size_t)(c0 + j)];                    \
                        wsum += (uint32_t)(f + fo);                                                \
                    }                                                                              \
                    bias0[j] = p->bias ? (uint32_t)p->bias[c0 + j] : 0u;                           \
                    folded[j] = bias0[j] + wsum * (uint32_t)io;                                    \
                    const int32_t ch = p->per_channel ? c0 + j : 0;                                \
                    rq[j] = edge_rq_make(p->multiplier[ch], p->shift[ch]);                         \
                }                                                                                  \
                for (int32_t oy = 0; oy < p->out_h; oy++) {                                        \
                    const int32_t iy0 = oy * p->stride_h - p->pad_h;                               \
                    int32_t ky_lo = 0, ky_hi = k_h;                                                \
                    while (ky_lo < k_h && iy0 + (int64_t)ky_lo * dil_h < 0) ky_lo++;                        \
                    while (ky_hi > ky_lo && iy0 + (int64_t)(ky_hi - 1) * dil_h >= in_h) ky_hi--;            \
                    for (int32_t ox = 0; ox < p->out_w; ox++) {                                    \
                        const int32_t ix0 = ox * p->stride_w - p->pad_w;                           \
                        int32_t kx_lo = 0, kx_hi = k_w;                                            \
                        while (kx_lo < k_w && ix0 + (int64_t)kx_lo * dil_w < 0) kx_lo++;                    \
                        while (kx_hi > kx_lo && ix0 + (int64_t)(kx_hi - 1) * dil_w >= in_w) kx_hi--;        \
                        const int inside = ky_lo == 0 && ky_hi == k_h && kx_lo == 0 && kx_hi == k_w; \
                        const int32_t xo = inside ? 0 : io;                                        \
                        const uint32_t *init = inside ? folded : bias0;                           \
                        if (dm == 1) {                                                             \
                            for (int32_t j = 0; j < nc; j++) acc[j] = init[j];                     \
                            for (int32_t ky = ky_lo; ky < ky_hi; ky++) {                           \
                                const T *srow = img + (size_t)(iy0 + ky * dil_h) * row + (size_t)c0; \
                                const T *wrow = filt + (size_t)ky * (size_t)k_w * (size_t)out_c +  \
                                                (size_t)c0;                                        \
                                for (int32_t kx = kx_lo; kx < kx_hi; kx++)                         \
                                    taps_##SUFFIX(acc,                                             \
                                                  srow + (size_t)(ix0 + kx * dil_w) * (size_t)p->in_c, \
                                                  wrow + (size_t)kx * (size_t)out_c, nc, fo, xo);  \
                            }                                                                      \
                        } else {                                                                   \
                            /* One channel at a time, its sum in a register: output channel      \
                             * c0 + j reads input channel ic = (c0 + j) / dm. */                  \
                            int32_t ic = ic0, m = m0;                                              \
                            dw_window g;                                                           \
                            g.iy0 = iy0;                                                           \
                            g.ix0 = ix0;                                                           \
                            g.ky_lo = ky_lo;                                                       \
                            g.ky_hi = ky_hi;                                                       \
                            g.kx_lo = kx_lo;                                                       \
                            g.kx_hi = kx_hi;                                                       \
                            g.dil_h = dil_h;                                                       \
                            g.dil_w = dil_w;                                                       \
                            g.row = row;                                                           \
                            g.wrow = (size_t)k_w * (size_t)out_c;                                  \
                            g.in_c = (size_t)p->in_c;                                              \
                            g.out_c = (size_t)out_c;                                               \
                            for (int32_t j = 0; j < nc; j++) {                                     \
                                const T *sb = img + (size_t)ic, *wb = filt + (size_t)(c0 + j);     \
                                acc[j] = fo == 0 && xo == 0                                        \
                                             ? chan_##SUFFIX(init[j], sb, wb, &g, 0, 0)            \
                                             : chan_##SUFFIX(init[j], sb, wb, &g, fo, xo);         \
                                if (++m == dm) {                                                   \
                                    m = 0;                                                         \
                                    ic++;                                                          \
                                }                                                                  \
                            }                                                                      \
                        }                                                                          \
                        T *dst = out_img + ((size_t)oy * (size_t)p->out_w + (size_t)ox) *          \
                                               (size_t)out_c + (size_t)c0;                         \
                        for (int32_t j = 0; j < nc; j++) {                                         \
                            int32_t v = edge_rq_apply(acc[j], rq[j].mult, rq[j].left, rq[j].right,   \
                                                      rq[j].round, rq[j].neg);                     \
                            v = (int32_t)((uint32_t)v + (uint32_t)oo);                             \
                            dst[j] = (T)edge_clamp_i32(v, lo, hi);                                 \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEPTHWISE_DEFINE(s8, int8_t)
#if EDGE_WITH_UINT8
DEPTHWISE_DEFINE(u8, uint8_t)
#endif
#else
/* The direct form (EDGE_DEPTHWISE_COMPACT): each output's taps inside the
 * image, summed in uint32 as the blocked kernel's (wrapping alike), then
 * requantized. Positions in 64 bits: strides, pads and dilations are only
 * known positive. */
static void depthwise_compact(const depthwise_params *p, const uint8_t *in, const uint8_t *filt,
                              uint8_t *out) {
    const int u = EDGE_WITH_UINT8 && p->is_unsigned;
    size_t o = 0;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++)
                for (int32_t oc = 0; oc < p->out_c; oc++, o++) {
                    uint32_t acc = p->bias ? (uint32_t)p->bias[oc] : 0u;
                    for (int32_t ky = 0; ky < p->k_h; ky++) {
                        const int64_t iy = (int64_t)oy * p->stride_h - p->pad_h + (int64_t)ky * p->dil_h;
                        if (iy < 0 || iy >= p->in_h) continue;
                        for (int32_t kx = 0; kx < p->k_w; kx++) {
                            const int64_t ix = (int64_t)ox * p->stride_w - p->pad_w + (int64_t)kx * p->dil_w;
                            if (ix < 0 || ix >= p->in_w) continue;
                            const size_t xi = (((size_t)b * (size_t)p->in_h + (size_t)iy) * (size_t)p->in_w +
                                               (size_t)ix) * (size_t)p->in_c + (size_t)(oc / p->depth_mult);
                            const size_t wi = ((size_t)ky * (size_t)p->k_w + (size_t)kx) * (size_t)p->out_c +
                                              (size_t)oc;
                            const int32_t x = u ? in[xi] : (int8_t)in[xi];
                            const int32_t f = u ? filt[wi] : (int8_t)filt[wi];
                            acc += (uint32_t)((f + p->filter_offset) * (x + p->input_offset));
                        }
                    }
                    const int32_t ch = p->per_channel ? oc : 0;
                    const edge_rq r = edge_rq_make(p->multiplier[ch], p->shift[ch]);
                    const int32_t v = edge_rq_apply(acc, r.mult, r.left, r.right, r.round, r.neg);
                    /* int8 and uint8 results share their low byte. */
                    out[o] = (uint8_t)edge_clamp_i32((int32_t)((uint32_t)v + (uint32_t)p->output_offset),
                                                     p->act_min, p->act_max);
                }
}
#endif

void depthwise_conv(const depthwise_params *p, const void *input, const void *filter, void *output) {
#if EDGE_DEPTHWISE_COMPACT
#if defined(EDGE_SYSTOLIC_DSP)
    if (!(EDGE_WITH_UINT8 && p->is_unsigned) &&
        depthwise_s8_dsp(p, (const int8_t *)input, (const int8_t *)filter, (int8_t *)output))
        return;
#endif
    depthwise_compact(p, (const uint8_t *)input, (const uint8_t *)filter, (uint8_t *)output);
#else
#if EDGE_WITH_UINT8
    if (p->is_unsigned)
        depthwise_u8(p, (const uint8_t *)input, (const uint8_t *)filter, (uint8_t *)output);
    else
#endif
    {
#if defined(__x86_64__) || defined(__i386__)
        if (p->simd && depthwise_s8_avx2(p, (const int8_t *)input, (const int8_t *)filter, (int8_t *)output))
            return;
#endif
#if defined(EDGE_SYSTOLIC_DSP)
        if (depthwise_s8_dsp(p, (const int8_t *)input, (const int8_t *)filter, (int8_t *)output)) return;
#endif
        depthwise_s8(p, (const int8_t *)input, (const int8_t *)filter, (int8_t *)output);
    }
#endif
}
