/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_common.h — output size and padding of windowed ops, as TFLite
 * computes them (ComputePaddingHeightWidth / ComputeOutSize), so that
 * CONV_2D, DEPTHWISE_CONV_2D and the pools agree on the same window.
 */
#ifndef EDGE_KERNELS_CONV_COMMON_H
#define EDGE_KERNELS_CONV_COMMON_H

#include <stdint.h>

#include "edge/schema.h" /* EDGE_PADDING_SAME, EDGE_PADDING_VALID */

/* Output extent of one spatial dimension; <= 0 when the window never fits
 * (VALID with a filter larger than the input) or the arguments are bad.
 * Sizes are taken in 64 bits so that hostile dilations cannot overflow. */
static inline int64_t edge_conv_out_size(int padding, int32_t in, int32_t filter, int32_t stride,
                                         int32_t dilation) {
    if (in <= 0 || filter <= 0 || stride <= 0 || dilation <= 0) return 0;
    const int64_t eff = (int64_t)(filter - 1) * dilation + 1;
    /* Both sums below are under 2^32 (in, stride and, for VALID, eff <= in
     * are int32): 32-bit division, not a 64-bit library call on a 32-bit core. */
    if (padding == EDGE_PADDING_SAME) return ((uint32_t)in + (uint32_t)stride - 1u) / (uint32_t)stride;
    if (padding == EDGE_PADDING_VALID)
        return in >= eff ? ((uint32_t)in + (uint32_t)stride - (uint32_t)eff) / (uint32_t)stride : 0;
    return 0;
}

/* Leading (top/left) padding: TFLite pads the odd extra element at the end,
 * and the reference kernels only ever use this leading amount. */
static inline int64_t edge_conv_padding(int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                                        int64_t out) {
    const int64_t eff = (int64_t)(filter - 1) * dilation + 1;
    const int64_t total = (out - 1) * stride + eff - in;
    return total > 0 ? total >> 1 : 0;
}

#endif
