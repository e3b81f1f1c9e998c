/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_shape.h — CONV_2D's and DEPTHWISE_CONV_2D's operand shapes and
 * options, checked once for the int8 ops and their float twins.
 */
#ifndef EDGE_OPS_CONV_SHAPE_H
#define EDGE_OPS_CONV_SHAPE_H

#include "../edge_internal.h"

typedef struct conv_shape {
    int32_t batches, in_h, in_w, in_c;
    int32_t out_c, k_h, k_w, f_in_c, groups;
    int32_t stride_h, stride_w, dil_h, dil_w;
    int32_t out_h, out_w;
    int32_t pad_h, pad_w; /* top and left padding the output size implies */
    int padding, act;
} conv_shape;

/* 4-D NHWC input/output, OHWI filter (grouped when input channels are a
 * multiple of the filter's), bias of out_c, the options, and an output
 * shape that agrees; every index well inside 32 bits. */
edge_status edge_conv_shape(const edge_op_ctx *c, const edge_tensor_rt *in,
                            const edge_tensor_rt *filt, const edge_tensor_rt *bias,
                            const edge_tensor_rt *out, conv_shape *s);

/* DEPTHWISE_CONV_2D: 4-D NHWC input/output, [1,h,w,out_c] filter with out_c
 * a multiple of the input channels (f_in_c 1, groups in_c in s), bias of
 * out_c, the DepthwiseConv2DOptions and an output shape that agrees. */
edge_status edge_dw_shape(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *filt,
                          const edge_tensor_rt *bias, const edge_tensor_rt *out, conv_shape *s);

#endif
