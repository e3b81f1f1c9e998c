/*
 * conv_shape.c — see conv_shape.h.
 */
#include "conv_shape.h"

#include "../kernels/conv_common.h"

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

    const int padding = edge_opt_u8(c, OPT_PADDING, 0);
    const int32_t stride_w = edge_opt_i32(c, OPT_STRIDE_W, 0), stride_h = edge_opt_i32(c, OPT_STRIDE_H, 0);
    const int32_t dil_w = edge_opt_i32(c, OPT_DILATION_W, 1), dil_h = edge_opt_i32(c, OPT_DILATION_H, 1);
    const int act = edge_opt_u8(c, OPT_ACTIVATION, 0);
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
    if (out->t.dims[0] != batches || out->t.dims[1] != out_h || out->t.dims[2] != out_w ||
        out->t.dims[3] != out_c)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is [%d,%d,%d,%d], expected [%d,%ld,%ld,%d]",
                            out->t.dims[0], out->t.dims[1], out->t.dims[2], out->t.dims[3], batches,
                            (long)out_h, (long)out_w, out_c);
    /* Keep every index, and the params and scratch sizes, well inside 32 bits. */
    if (k_h > 0xffff || k_w > 0xffff || f_in_c > 0xffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "filter too large");
    *s = (conv_shape){batches, in_h, in_w, in_c, out_c, k_h, k_w, f_in_c, groups,
                      stride_h, stride_w, dil_h, dil_w, (int32_t)out_h, (int32_t)out_w, padding, act};
    return EDGE_OK;
}
