/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise_conv_2d_f.c — DEPTHWISE_CONV_2D's float twin: FLOAT32 /
 * BFLOAT16 input, filter, bias and output (any mix), fp32 accumulation, as
 * reference_ops::DepthwiseConv computes float: per output channel the
 * products over (filter_y, filter_x) summed in order, then the bias, then
 * the fused clamp. Depth multiplier = output channels / input channels (as
 * TFLite derives it), any stride, dilation, SAME/VALID padding.
 *
 * Like the int8 op it runs on a vector loop, not the systolic array (no
 * reduction across channels): for each output pixel, each tap adds
 * input x filter into a row of out_c fp32 accumulators (scratch), which
 * keeps every channel's sum in the reference's order.
 */
#include "../kernels/bf16.h"
#include "../kernels/conv_common.h"
#include "../quant.h"
#include "conv_shape.h"
#include "weighted_op_f.h"

enum { DW_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_DEPTHWISE_CONV2D_OPTIONS };

typedef struct dw_f_params {
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c, mult;
    int32_t k_h, k_w, stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    float act_min, act_max;
} dw_f_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands_f o;
    edge_status st =
        edge_weighted_operands_f(c, DW_OPTIONS_TYPE, "DepthwiseConv2DOptions", "filter", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *filt = o.w, *bias = o.bias, *out = o.out;
    conv_shape sh;
    st = edge_dw_shape(c, in, filt, bias, out, &sh);
    if (st) return st;

    float act_min, act_max;
    if (!edge_act_range_f(sh.act, &act_min, &act_max))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "fused activation %d (only NONE, RELU, RELU_N1_TO_1, RELU6)", sh.act);
    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(dw_f_params);
        op->scratch_bytes =
            4u * (uint32_t)sh.out_c + (in->t.type == EDGE_BFLOAT16 ? 4u * (uint32_t)sh.in_c : 0u);
        op->macs = (uint64_t)sh.batches * (uint64_t)sh.out_h * (uint64_t)sh.out_w * (uint64_t)sh.out_c *
                   (uint64_t)sh.k_h * (uint64_t)sh.k_w;
        op->systolic = 0;
        op->array_cycles = 0;
        return EDGE_OK;
    }
    dw_f_params *p = (dw_f_params *)c->params;
    p->batches = sh.batches;
    p->in_h = sh.in_h;
    p->in_w = sh.in_w;
    p->in_c = sh.in_c;
    p->out_h = sh.out_h;
    p->out_w = sh.out_w;
    p->out_c = sh.out_c;
    p->mult = sh.out_c / sh.in_c;
    p->k_h = sh.k_h;
    p->k_w = sh.k_w;
    p->stride_h = sh.stride_h;
    p->stride_w = sh.stride_w;
    p->dil_h = sh.dil_h;
    p->dil_w = sh.dil_w;
    p->pad_h = sh.pad_h;
    p->pad_w = sh.pad_w;
    p->act_min = act_min;
    p->act_max = act_max;
    return EDGE_OK;
}

/* acc[oc] += x[oc / mult] * w[oc] for one tap. */
#define DEFINE_TAP(SUFFIX, WT, WLOAD)                                                          \
    static void tap_##SUFFIX(float *acc, const float *x, const WT *w, int32_t out_c,           \
                             int32_t mult) {                                                   \
        if (mult == 1) {                                                                       \
            for (int32_t i = 0; i < out_c; i++) acc[i] += x[i] * WLOAD(w, i);                  \
            return;                                                                            \
        }                                                                                      \
        for (int32_t ic = 0, oc = 0; oc < out_c; ic++)                                         \
            for (int32_t m = 0; m < mult; m++, oc++) acc[oc] += x[ic] * WLOAD(w, oc);          \
    }
#define LOAD_F32(wp, i) ((wp)[i])
#define LOAD_BF16(wp, i) edge_bf16_to_f32((wp)[i])
DEFINE_TAP(f32, float, LOAD_F32)
DEFINE_TAP(bf16, uint16_t, LOAD_BF16)

static edge_status eval(edge_op_ctx *c) {
    const dw_f_params *p = (const dw_f_params *)c->params;
    const edge_tensor_rt *in = edge_in(c, 0), *filt = edge_in(c, 1), *bias = edge_in(c, 2);
    edge_tensor_rt *out = edge_out(c, 0);
    const int in_bf16 = in->t.type == EDGE_BFLOAT16, w_bf16 = filt->t.type == EDGE_BFLOAT16;
    const int out_bf16 = out->t.type == EDGE_BFLOAT16;
    const int b_bf16 = bias && bias->t.type == EDGE_BFLOAT16;
    const int32_t out_c = p->out_c, in_c = p->in_c;
    float *acc = (float *)c->scratch;
    float *widened = acc + out_c;
    for (int32_t b = 0; b < p->batches; b++)
        for (int32_t oy = 0; oy < p->out_h; oy++)
            for (int32_t ox = 0; ox < p->out_w; ox++) {
                for (int32_t i = 0; i < out_c; i++) acc[i] = 0.0f;
                for (int32_t fy = 0; fy < p->k_h; fy++) {
                    const int32_t iy = oy * p->stride_h - p->pad_h + fy * p->dil_h;
                    if (iy < 0 || iy >= p->in_h) continue;
                    for (int32_t fx = 0; fx < p->k_w; fx++) {
                        const int32_t ix = ox * p->stride_w - p->pad_w + fx * p->dil_w;
                        if (ix < 0 || ix >= p->in_w) continue;
                        const int64_t at = (((int64_t)b * p->in_h + iy) * p->in_w + ix) * in_c;
                        const float *x;
                        if (in_bf16) {
                            const uint16_t *src = (const uint16_t *)in->t.data + at;
                            for (int32_t i = 0; i < in_c; i++) widened[i] = edge_bf16_to_f32(src[i]);
                            x = widened;
                        } else {
                            x = (const float *)in->t.data + at;
                        }
                        const int64_t wo = ((int64_t)fy * p->k_w + fx) * out_c;
                        if (w_bf16) tap_bf16(acc, x, (const uint16_t *)filt->t.data + wo, out_c, p->mult);
                        else tap_f32(acc, x, (const float *)filt->t.data + wo, out_c, p->mult);
                    }
                }
                const int64_t o0 = (((int64_t)b * p->out_h + oy) * p->out_w + ox) * out_c;
                for (int32_t i = 0; i < out_c; i++) {
                    float bv = 0.0f;
                    if (bias)
                        bv = b_bf16 ? edge_bf16_to_f32(((const uint16_t *)bias->t.data)[i])
                                    : ((const float *)bias->t.data)[i];
                    float v = acc[i] + bv;
                    v = v < p->act_min ? p->act_min : v;
                    v = p->act_max < v ? p->act_max : v;
                    if (out_bf16) ((uint16_t *)out->t.data)[o0 + i] = edge_f32_to_bf16(v);
                    else ((float *)out->t.data)[o0 + i] = v;
                }
            }
    return EDGE_OK;
}

const edge_op_impl edge_op_depthwise_conv_2d_f = {EDGE_BUILTIN_DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", prepare, eval, 0, 0, 0};
