/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_shape.c — see conv_shape.h.
 */
#include "conv_shape.h"

#include "../kernels/conv_common.h"

/* Field ids of padding, stride w/h, activation and dilation w/h in
 * Conv2DOptions and in DepthwiseConv2DOptions (which has depth_multiplier
 * at 3). */
typedef struct window_fields {
    uint8_t padding, stride_w, stride_h, act, dil_w, dil_h;
} window_fields;
static const window_fields CONV_FIELDS = {EDGE_F_CONV2D_OPTIONS_PADDING, EDGE_F_CONV2D_OPTIONS_STRIDE_W, EDGE_F_CONV2D_OPTIONS_STRIDE_H,
                                          EDGE_F_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, EDGE_F_CONV2D_OPTIONS_DILATION_W_FACTOR,
                                          EDGE_F_CONV2D_OPTIONS_DILATION_H_FACTOR};
static const window_fields DW_FIELDS = {EDGE_F_DEPTHWISE_CONV2D_OPTIONS_PADDING, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_W, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_H,
                                        EDGE_F_DEPTHWISE_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR,
                                        EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR};

/* Every index the kernels compute along one axis (window start
 * oy * stride - pad plus ky * dilation) lies within the span
 * (out - 1) * stride + (k - 1) * dilation + 1 of the padded input, and the
 * padding within it. Computed in 64 bits from int32 operands (no overflow),
 * and kept below 2^29 so that the kernels' 32-bit index arithmetic (and a
 * sum of two such indices) cannot overflow. */
#define WINDOW_SPAN_MAX ((int64_t)1 << 29)
static int64_t window_span(int64_t out, int32_t k, int32_t stride, int32_t dil) {
    return (out - 1) * stride + (int64_t)(k - 1) * dil + 1;
}

/* The options' window (padding, strides, dilations, activation) and the
 * output size it gives, checked against out: fills the rest of s from its
 * batches, in_h, in_w, k_h, k_w and out_c. */
static edge_status window(const edge_op_ctx *c, const edge_tensor_rt *out, window_fields f,
                          conv_shape *s) {
    const int32_t batches = s->batches, in_h = s->in_h, in_w = s->in_w, out_c = s->out_c;
    const int32_t k_h = s->k_h, k_w = s->k_w;
    const int padding = edge_opt_u8(c, f.padding, 0);
    const int32_t stride_w = edge_opt_i32(c, f.stride_w, 0), stride_h = edge_opt_i32(c, f.stride_h, 0);
    const int32_t dil_w = edge_opt_i32(c, f.dil_w, 1), dil_h = edge_opt_i32(c, f.dil_h, 1);
    const int act = edge_opt_u8(c, f.act, 0);
    if (padding != EDGE_PADDING_SAME && padding != EDGE_PADDING_VALID)
        return edge_op_fail(c, EDGE_ERR_MODEL, "unknown padding %d", padding);
    if (stride_w <= 0 || stride_h <= 0 || dil_w <= 0 || dil_h <= 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "stride %dx%d and dilation %dx%d must be positive",
                            stride_h, stride_w, dil_h, dil_w);
    const int64_t out_h = edge_conv_out_size(padding, in_h, k_h, stride_h, dil_h);
    const int64_t out_w = edge_conv_out_size(padding, in_w, k_w, stride_w, dil_w);
    if (out_h <= 0 || out_w <= 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter %dx%d does not fit input %dx%d", k_h, k_w,
                            in_h, in_w);
    const int64_t span_h = window_span(out_h, k_h, stride_h, dil_h);
    const int64_t span_w = window_span(out_w, k_w, stride_w, dil_w);
    if (span_h > WINDOW_SPAN_MAX || span_w > WINDOW_SPAN_MAX)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "window spans %ldx%ld input pixels (filter %dx%d, stride %dx%d, dilation "
                            "%dx%d): over the limit of %ld",
                            (long)span_h, (long)span_w, k_h, k_w, stride_h, stride_w, dil_h, dil_w,
                            (long)WINDOW_SPAN_MAX);
    if (out->t.dims[0] != batches || out->t.dims[1] != out_h || out->t.dims[2] != out_w ||
        out->t.dims[3] != out_c)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is [%d,%d,%d,%d], expected [%d,%ld,%ld,%d]",
                            out->t.dims[0], out->t.dims[1], out->t.dims[2], out->t.dims[3], batches,
                            (long)out_h, (long)out_w, out_c);
    s->stride_h = stride_h, s->stride_w = stride_w, s->dil_h = dil_h, s->dil_w = dil_w;
    s->out_h = (int32_t)out_h, s->out_w = (int32_t)out_w, s->padding = padding, s->act = act;
    s->pad_h = (int32_t)edge_conv_padding(in_h, k_h, stride_h, dil_h, out_h);
    s->pad_w = (int32_t)edge_conv_padding(in_w, k_w, stride_w, dil_w, out_w);
    return EDGE_OK;
}

edge_status edge_conv_shape(const edge_op_ctx *c, const edge_tensor_rt *in,
                            const edge_tensor_rt *filt, const edge_tensor_rt *bias,
                            const edge_tensor_rt *out, conv_shape *s) {
    if (in->t.rank != 4 || filt->t.rank != 4 || out->t.rank != 4)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input, filter and output must be 4-D (are %d, %d, %d)",
                            in->t.rank, filt->t.rank, out->t.rank);

    const int32_t batches = in->t.dims[0], in_h = in->t.dims[1], in_w = in->t.dims[2],
                  in_c = in->t.dims[3];
    const int32_t out_c = filt->t.dims[0], k_h = filt->t.dims[1], k_w = filt->t.dims[2],
                  f_in_c = filt->t.dims[3];
    if (batches <= 0 || in_h <= 0 || in_w <= 0 || in_c <= 0 || out_c <= 0 || k_h <= 0 || k_w <= 0 ||
        f_in_c <= 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "empty input or filter");
    if (in_c % f_in_c != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "input channels %d are not a multiple of filter channels %d", in_c, f_in_c);
    const int32_t groups = in_c / f_in_c;
    if (out_c % groups != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output channels %d not divisible into %d groups",
                            out_c, groups);
    if (bias && edge_numel(&bias->t) != out_c)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "bias has %ld elements, filter has %d outputs",
                            (long)edge_numel(&bias->t), out_c);

    s->batches = batches, s->in_h = in_h, s->in_w = in_w, s->in_c = in_c;
    s->out_c = out_c, s->k_h = k_h, s->k_w = k_w, s->f_in_c = f_in_c, s->groups = groups;
    const edge_status st = window(c, out, CONV_FIELDS, s);
    if (st) return st;
    /* Keep every index, and the params and scratch sizes, well inside 32 bits. */
    if (k_h > 0xffff || k_w > 0xffff || f_in_c > 0xffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter too large");
    return EDGE_OK;
}

edge_status edge_dw_shape(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *filt,
                          const edge_tensor_rt *bias, const edge_tensor_rt *out, conv_shape *s) {
    if (in->t.rank != 4 || filt->t.rank != 4 || out->t.rank != 4)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input, filter and output must be 4-D (are %d, %d, %d)",
                            in->t.rank, filt->t.rank, out->t.rank);
    const int32_t batches = in->t.dims[0], in_h = in->t.dims[1], in_w = in->t.dims[2],
                  in_c = in->t.dims[3];
    const int32_t k_h = filt->t.dims[1], k_w = filt->t.dims[2], out_c = filt->t.dims[3];
    if (filt->t.dims[0] != 1)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter must be [1,h,w,c], has %d in dimension 0",
                            filt->t.dims[0]);
    if (batches <= 0 || in_h <= 0 || in_w <= 0 || in_c <= 0 || out_c <= 0 || k_h <= 0 || k_w <= 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "empty input or filter");
    if (out_c % in_c != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter channels %d are not a multiple of input channels %d",
                            out_c, in_c);
    if (out_c > 0xffffff || k_h > 0xffff || k_w > 0xffff || (int64_t)k_h * k_w * out_c > 0x7fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter too large");
    if (bias && edge_numel(&bias->t) != out_c)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "bias has %ld elements, filter has %d channels",
                            (long)edge_numel(&bias->t), out_c);
    s->batches = batches, s->in_h = in_h, s->in_w = in_w, s->in_c = in_c;
    s->out_c = out_c, s->k_h = k_h, s->k_w = k_w, s->f_in_c = 1, s->groups = in_c;
    return window(c, out, DW_FIELDS, s);
}
