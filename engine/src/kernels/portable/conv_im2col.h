/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_im2col.h — one im2col row of a convolution, shared by the portable
 * lowering (conv_gemm.c) and variants that gather their own rows; inline so
 * that each keeps its loop whole.
 */
#ifndef EDGE_KERNELS_PORTABLE_CONV_IM2COL_H
#define EDGE_KERNELS_PORTABLE_CONV_IM2COL_H

#include "../../edge_internal.h" /* edge_memset */
#include "../conv.h"

/* im2col's copies are short runs (one tap's channels): four bytes per step,
 * unaligned loads and stores being fine on every target the engine has. */
static inline void conv_copy_run(uint8_t *dst, const uint8_t *src, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t v;
        __builtin_memcpy(&v, src + i, 4);
        __builtin_memcpy(dst + i, &v, 4);
    }
    for (; i < n; i++) dst[i] = src[i];
}

/* Gather one im2col row (output pixel oy, ox of batch image `img`, group g)
 * into dst: k_h * k_w * group_in_c bytes, in the filter's (ky, kx, c) order. */
static inline void edge_conv_im2col_row(const edge_conv_params *p, const uint8_t *img, int32_t oy, int32_t ox, int32_t g,
                       uint8_t *dst) {
    const int32_t gc = p->group_in_c;
    const int32_t iy0 = oy * p->stride_h - p->pad_h, ix0 = ox * p->stride_w - p->pad_w;
    const int contiguous = p->dil_w == 1 && p->groups == 1 && ix0 >= 0 && ix0 + p->k_w <= p->in_w;
    for (int32_t ky = 0; ky < p->k_h; ky++) {
        const int32_t iy = iy0 + ky * p->dil_h;
        if (iy < 0 || iy >= p->in_h) {
            edge_memset(dst, p->pad_byte, (size_t)p->k_w * (size_t)gc);
            dst += (size_t)p->k_w * (size_t)gc;
            continue;
        }
        const uint8_t *row = img + ((size_t)iy * (size_t)p->in_w) * (size_t)p->in_c + (size_t)g * (size_t)gc;
        if (contiguous) {
            conv_copy_run(dst, row + (size_t)ix0 * (size_t)p->in_c, (size_t)p->k_w * (size_t)gc);
            dst += (size_t)p->k_w * (size_t)gc;
            continue;
        }
        for (int32_t kx = 0; kx < p->k_w; kx++) {
            const int32_t ix = ix0 + kx * p->dil_w;
            if (ix < 0 || ix >= p->in_w)
                edge_memset(dst, p->pad_byte, (size_t)gc);
            else
                conv_copy_run(dst, row + (size_t)ix * (size_t)p->in_c, (size_t)gc);
            dst += gc;
        }
    }
}

#endif
