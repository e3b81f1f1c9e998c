/*
 * conv_common.h — output size and padding of windowed ops, as TFLite
 * computes them (ComputePaddingHeightWidth / ComputeOutSize), so that
 * CONV_2D, DEPTHWISE_CONV_2D and the pools agree on the same window.
 */
#ifndef EDGE_KERNELS_CONV_COMMON_H
#define EDGE_KERNELS_CONV_COMMON_H

#include <stdint.h>

/* TFLite's Padding enum. */
enum { EDGE_PADDING_SAME = 0, EDGE_PADDING_VALID = 1 };

/* Output extent of one spatial dimension; <= 0 when the window never fits
 * (VALID with a filter larger than the input) or the arguments are bad.
 * Sizes are taken in 64 bits so that hostile dilations cannot overflow. */
static inline int64_t edge_conv_out_size(int padding, int64_t in, int64_t filter, int64_t stride,
                                         int64_t dilation) {
    if (in <= 0 || filter <= 0 || stride <= 0 || dilation <= 0) return 0;
    int64_t eff = (filter - 1) * dilation + 1;
    if (padding == EDGE_PADDING_SAME) return (in + stride - 1) / stride;
    if (padding == EDGE_PADDING_VALID) return in >= eff ? (in + stride - eff) / stride : 0;
    return 0;
}

/* Leading (top/left) padding: TFLite pads the odd extra element at the end,
 * and the reference kernels only ever use this leading amount. */
static inline int64_t edge_conv_padding(int64_t in, int64_t filter, int64_t stride,
                                        int64_t dilation, int64_t out) {
    int64_t eff = (filter - 1) * dilation + 1;
    int64_t total = (out - 1) * stride + eff - in;
    return total > 0 ? total / 2 : 0;
}

#endif
