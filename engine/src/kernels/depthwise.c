/*
 * depthwise.c — portable C depthwise convolution (see depthwise.h).
 *
 * Channels are processed in blocks of DW_BLOCK with the accumulators on the
 * stack. For pixels whose whole window lies inside the image, the input
 * offset is folded out of the inner loop:
 *   sum (w + fo)(x + io) = sum (w + fo) x + io * sum (w + fo)
 * where the last sum is per channel and computed once per block; border
 * pixels take the direct form over their valid taps only, as the reference
 * skips the others. Sums are kept in uint32 so int32 wrap-around is defined.
 */
#include "depthwise.h"

#include "../quant.h"

/* Output channels accumulated at once (stack: 8 bytes each). */
#define DW_BLOCK 32

#define DEPTHWISE_DEFINE(SUFFIX, T)                                                                \
    /* acc[j] += (w[j] + fo) * (src[channel j's input] + io) for nc channels from c0. */          \
    static void taps_##SUFFIX(uint32_t *acc, const T *src, const T *w, int32_t c0, int32_t nc,    \
                              int32_t dm, int32_t fo, int32_t io) {                                \
        if (dm == 1) {                                                                             \
            const T *s = src + c0;                                                                 \
            int32_t j = 0;                                                                         \
            if (fo == 0 && io == 0) {                                                              \
                for (; j + 8 <= nc; j += 8)                                                        \
                    for (int32_t t = 0; t < 8; t++)                                                \
                        acc[j + t] += (uint32_t)((int32_t)w[j + t] * s[j + t]);                    \
            } else if (fo == 0) {                                                                  \
                for (; j + 8 <= nc; j += 8)                                                        \
                    for (int32_t t = 0; t < 8; t++)                                                \
                        acc[j + t] += (uint32_t)((int32_t)w[j + t] * ((int32_t)s[j + t] + io));    \
            }                                                                                      \
            for (; j < nc; j++)                                                                    \
                acc[j] += (uint32_t)(((int32_t)w[j] + fo) * ((int32_t)s[j] + io));                 \
        } else {                                                                                   \
            int32_t ic = c0 / dm, m = c0 % dm;                                                     \
            for (int32_t j = 0; j < nc; j++) {                                                     \
                acc[j] += (uint32_t)(((int32_t)w[j] + fo) * ((int32_t)src[ic] + io));              \
                if (++m == dm) {                                                                   \
                    m = 0;                                                                         \
                    ic++;                                                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void depthwise_##SUFFIX(const depthwise_params *p, const T *in, const T *filt,          \
                                   T *out) {                                                       \
        uint32_t acc[DW_BLOCK], folded[DW_BLOCK];                                                  \
        const int32_t io = p->input_offset, fo = p->filter_offset, dm = p->depth_mult;             \
        const size_t row = (size_t)p->in_w * (size_t)p->in_c;                                      \
        const size_t taps = (size_t)p->k_h * (size_t)p->k_w;                                       \
        for (int32_t b = 0; b < p->batches; b++) {                                                 \
            const T *img = in + (size_t)b * (size_t)p->in_h * row;                                 \
            T *out_img = out + (size_t)b * (size_t)p->out_h * (size_t)p->out_w * (size_t)p->out_c; \
            for (int32_t c0 = 0; c0 < p->out_c; c0 += DW_BLOCK) {                                  \
                const int32_t nc = p->out_c - c0 < DW_BLOCK ? p->out_c - c0 : DW_BLOCK;            \
                for (int32_t j = 0; j < nc; j++) {                                                 \
                    uint32_t wsum = 0;                                                             \
                    for (size_t t = 0; t < taps; t++) {                                            \
                        int32_t f = filt[t * (size_t)p->out_c + (size_t)(c0 + j)];                 \
                        wsum += (uint32_t)(f + fo);                                                \
                    }                                                                              \
                    uint32_t bias = p->bias ? (uint32_t)p->bias[c0 + j] : 0u;                      \
                    folded[j] = bias + wsum * (uint32_t)io;                                        \
                }                                                                                  \
                for (int32_t oy = 0; oy < p->out_h; oy++) {                                        \
                    const int32_t iy0 = oy * p->stride_h - p->pad_h;                               \
                    const int y_in = iy0 >= 0 && iy0 + (p->k_h - 1) * p->dil_h < p->in_h;          \
                    for (int32_t ox = 0; ox < p->out_w; ox++) {                                    \
                        const int32_t ix0 = ox * p->stride_w - p->pad_w;                           \
                        const int inside = y_in && ix0 >= 0 &&                                     \
                                           ix0 + (p->k_w - 1) * p->dil_w < p->in_w;                \
                        for (int32_t j = 0; j < nc; j++)                                           \
                            acc[j] = inside ? folded[j]                                            \
                                            : (p->bias ? (uint32_t)p->bias[c0 + j] : 0u);          \
                        for (int32_t ky = 0; ky < p->k_h; ky++) {                                  \
                            const int32_t iy = iy0 + ky * p->dil_h;                                \
                            if (iy < 0 || iy >= p->in_h) continue;                                 \
                            for (int32_t kx = 0; kx < p->k_w; kx++) {                              \
                                const int32_t ix = ix0 + kx * p->dil_w;                            \
                                if (ix < 0 || ix >= p->in_w) continue;                             \
                                taps_##SUFFIX(acc, img + (size_t)iy * row + (size_t)ix * (size_t)p->in_c, \
                                              filt + ((size_t)ky * (size_t)p->k_w + (size_t)kx) *  \
                                                         (size_t)p->out_c + (size_t)c0,            \
                                              c0, nc, dm, fo, inside ? 0 : io);                    \
                            }                                                                      \
                        }                                                                          \
                        T *dst = out_img + ((size_t)oy * (size_t)p->out_w + (size_t)ox) *          \
                                               (size_t)p->out_c + (size_t)c0;                      \
                        for (int32_t j = 0; j < nc; j++) {                                         \
                            const int32_t ch = p->per_channel ? c0 + j : 0;                        \
                            int32_t v = edge_mbqm((int32_t)acc[j], p->multiplier[ch], p->shift[ch]); \
                            v = (int32_t)((uint32_t)v + (uint32_t)p->output_offset);               \
                            dst[j] = (T)edge_clamp_i32(v, p->act_min, p->act_max);                 \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

DEPTHWISE_DEFINE(s8, int8_t)
DEPTHWISE_DEFINE(u8, uint8_t)

void depthwise_conv(const depthwise_params *p, const void *input, const void *filter, void *output) {
    if (p->is_unsigned)
        depthwise_u8(p, (const uint8_t *)input, (const uint8_t *)filter, (uint8_t *)output);
    else
        depthwise_s8(p, (const int8_t *)input, (const int8_t *)filter, (int8_t *)output);
}
