/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_gemm.c — CONV_2D on the systolic GEMM: output pixels are the
 * GEMM rows, output channels its columns, K = filter_h * filter_w *
 * filter_in_channels. A 1x1 filter reads its rows straight from the input;
 * any other gathers SYSTOLIC_TILE_ROWS rows at a time into scratch
 * (implicit im2col: the whole matrix is never built). Padded taps hold the
 * input zero point, which contributes exactly zero, as the reference's
 * skipped taps.
 */
#include "conv_im2col.h"

void edge_conv_s8_portable(const edge_conv_params *p, const edge_conv_data *d) {
    const uint8_t *in = d->in, *filt = d->filt;
    uint8_t *out = d->out, *scratch = d->scratch;
    const int32_t *eff_bias = d->eff_bias, *mult = d->mult;
    const int8_t *shift = d->shift;
    const int32_t pixels = p->out_h * p->out_w, gn = p->group_out_c;
    const size_t img_bytes = (size_t)p->in_h * (size_t)p->in_w * (size_t)p->in_c;
    const void *rows[SYSTOLIC_TILE_ROWS];
    for (int32_t b = 0; b < p->batches; b++) {
        const uint8_t *img = in + (size_t)b * img_bytes;
        uint8_t *out_img = out + (size_t)b * (size_t)pixels * (size_t)p->out_c;
        for (int32_t px0 = 0; px0 < pixels; px0 += SYSTOLIC_TILE_ROWS) {
            const int32_t mr = pixels - px0 < SYSTOLIC_TILE_ROWS ? pixels - px0 : SYSTOLIC_TILE_ROWS;
            for (int32_t g = 0; g < p->groups; g++) {
                for (int32_t r = 0; r < mr; r++) {
                    const int32_t oy = (px0 + r) / p->out_w, ox = (px0 + r) % p->out_w;
                    if (p->direct) {
                        rows[r] = img +
                                  ((size_t)(oy * p->stride_h) * (size_t)p->in_w + (size_t)(ox * p->stride_w)) *
                                      (size_t)p->in_c +
                                  (size_t)g * (size_t)p->group_in_c;
                    } else {
                        uint8_t *dst = scratch + (size_t)r * (size_t)p->k;
                        edge_conv_im2col_row(p, img, oy, ox, g, dst);
                        rows[r] = dst;
                    }
                }
                systolic_params sp = p->sp;
                sp.weights = filt + (size_t)g * (size_t)gn * (size_t)p->k;
                sp.bias = eff_bias + (size_t)g * (size_t)gn;
                sp.multiplier = p->sp.per_channel ? mult + (size_t)g * (size_t)gn : mult;
                sp.shift = p->sp.per_channel ? shift + (size_t)g * (size_t)gn : shift;
                systolic_gemm(&sp, rows, mr, out_img + (size_t)px0 * (size_t)p->out_c + (size_t)g * (size_t)gn,
                              p->out_c);
            }
        }
    }
}
