/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_2d_f.c — CONV_2D's float twin: FLOAT32 / BFLOAT16 activations,
 * filters, bias and output (any mix), on the float systolic kernel
 * (systolic_f.h), as reference_ops::Conv computes float: per output, the
 * products over (filter_y, filter_x, in_channel) summed in order in fp32,
 * then the bias, then the fused RELU/RELU_N1_TO_1/RELU6 clamp. Grouped
 * convolution, any stride, dilation, SAME/VALID padding.
 *
 * Lowering as the int8 op: output pixels are GEMM rows, K = kh * kw * in_c
 * per group; a 1x1 filter reads its rows in place, any other gathers
 * SYSTOLIC_TILE_ROWS rows into fp32 scratch (bf16 inputs widen on the way;
 * padded taps are 0, which adds nothing, as the reference's skipped taps).
 */
#include "../kernels/bf16.h"
#include "../kernels/conv_common.h"
#include "../kernels/systolic_f.h"
#include "../quant.h"
#include "conv_shape.h"
#include "weighted_op_f.h"

enum { CONV_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_CONV2D_OPTIONS };

typedef struct conv_f_params {
    systolic_f_params sp; /* weights and bias set per group at eval */
    int32_t batches, in_h, in_w, in_c, out_h, out_w, out_c;
    int32_t k_h, k_w, group_in_c, groups, group_out_c, k;
    int32_t stride_h, stride_w, dil_h, dil_w, pad_h, pad_w;
    uint8_t direct; /* 1x1 filter: rows come straight from the input */
} conv_f_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands_f o;
    edge_status st = edge_weighted_operands_f(c, CONV_OPTIONS_TYPE, "Conv2DOptions", "filter", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *filt = o.w, *bias = o.bias, *out = o.out;
    conv_shape sh;
    st = edge_conv_shape(c, in, filt, bias, out, &sh);
    if (st) return st;
    const int32_t batches = sh.batches, in_h = sh.in_h, in_w = sh.in_w, in_c = sh.in_c;
    const int32_t out_c = sh.out_c, k_h = sh.k_h, k_w = sh.k_w, f_in_c = sh.f_in_c, groups = sh.groups;
    const int32_t stride_h = sh.stride_h, stride_w = sh.stride_w, dil_h = sh.dil_h, dil_w = sh.dil_w;
    const int32_t out_h = sh.out_h, out_w = sh.out_w;
    const int act = sh.act;
    const int64_t k64 = (int64_t)k_h * k_w * f_in_c;
    if (k64 * 4 * SYSTOLIC_TILE_ROWS > 0x3fffffff || (int64_t)batches * out_h * out_w * out_c > 0x7fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "convolution too large");
    const int32_t k = (int32_t)k64;
    float act_min, act_max;
    if (!edge_act_range_f(act, &act_min, &act_max))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "fused activation %d (only NONE, RELU, RELU_N1_TO_1, RELU6)", act);
    const int direct = k_h == 1 && k_w == 1;

    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(conv_f_params);
        op->scratch_bytes = direct ? systolic_f_scratch_bytes((int32_t)in->t.type, k)
                                   : 4u * (uint32_t)SYSTOLIC_TILE_ROWS * (uint32_t)k;
        op->macs = (uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w * (uint64_t)out_c * (uint64_t)k;
        op->systolic = 1;
        op->array_cycles = (uint64_t)groups *
                           systolic_cycles((uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w,
                                           (uint64_t)(out_c / groups), (uint64_t)k);
        return EDGE_OK;
    }
    conv_f_params *p = (conv_f_params *)c->params;
    systolic_f_params *sp = &p->sp;
    sp->k = k;
    sp->n = out_c / groups;
    sp->act_min = act_min;
    sp->act_max = act_max;
    sp->a_type = (int8_t)(direct ? (int32_t)in->t.type : SYSTOLIC_F_F32);
    sp->w_type = (int8_t)filt->t.type;
    sp->bias_type = (int8_t)(bias ? (int32_t)bias->t.type : SYSTOLIC_F_NONE);
    sp->out_type = (int8_t)out->t.type;
    p->batches = batches;
    p->in_h = in_h;
    p->in_w = in_w;
    p->in_c = in_c;
    p->out_h = (int32_t)out_h;
    p->out_w = (int32_t)out_w;
    p->out_c = out_c;
    p->k_h = k_h;
    p->k_w = k_w;
    p->group_in_c = f_in_c;
    p->groups = groups;
    p->group_out_c = out_c / groups;
    p->k = k;
    p->stride_h = stride_h;
    p->stride_w = stride_w;
    p->dil_h = dil_h;
    p->dil_w = dil_w;
    p->pad_h = sh.pad_h;
    p->pad_w = sh.pad_w;
    p->direct = (uint8_t)direct;
    return EDGE_OK;
}

/* One im2col row: the receptive field of output pixel (b, oy, ox) for the
 * channels [c0, c0 + group_in_c), widened to fp32, 0 where padded. */
static void gather(const conv_f_params *p, const void *in, int in_bf16, int32_t b, int32_t oy,
                   int32_t ox, int32_t c0, float *row) {
    const int32_t gc = p->group_in_c;
    for (int32_t fy = 0; fy < p->k_h; fy++) {
        const int32_t iy = oy * p->stride_h - p->pad_h + fy * p->dil_h;
        for (int32_t fx = 0; fx < p->k_w; fx++) {
            const int32_t ix = ox * p->stride_w - p->pad_w + fx * p->dil_w;
            float *dst = row + ((int64_t)fy * p->k_w + fx) * gc;
            if (iy < 0 || iy >= p->in_h || ix < 0 || ix >= p->in_w) {
                for (int32_t i = 0; i < gc; i++) dst[i] = 0.0f;
                continue;
            }
            const int64_t at = (((int64_t)b * p->in_h + iy) * p->in_w + ix) * p->in_c + c0;
            if (in_bf16) {
                const uint16_t *src = (const uint16_t *)in + at;
                for (int32_t i = 0; i < gc; i++) dst[i] = edge_bf16_to_f32(src[i]);
            } else {
                const float *src = (const float *)in + at;
                for (int32_t i = 0; i < gc; i++) dst[i] = src[i];
            }
        }
    }
}

static edge_status eval(edge_op_ctx *c) {
    const conv_f_params *p = (const conv_f_params *)c->params;
    const edge_tensor_rt *in = edge_in(c, 0), *filt = edge_in(c, 1), *bias = edge_in(c, 2);
    edge_tensor_rt *out = edge_out(c, 0);
    const int in_bf16 = in->t.type == EDGE_BFLOAT16;
    const int64_t ies = in_bf16 ? 2 : 4, oes = out->t.type == EDGE_BFLOAT16 ? 2 : 4;
    const int64_t wes = filt->t.type == EDGE_BFLOAT16 ? 2 : 4;
    const int64_t bes = bias && bias->t.type == EDGE_BFLOAT16 ? 2 : 4;
    float *scratch = (float *)c->scratch;
    const int64_t pixels = (int64_t)p->batches * p->out_h * p->out_w;
    const void *rows[SYSTOLIC_TILE_ROWS];
    for (int32_t g = 0; g < p->groups; g++) {
        systolic_f_params sp = p->sp;
        sp.weights = (const uint8_t *)filt->t.data + (int64_t)g * p->group_out_c * p->k * wes;
        sp.bias = bias ? (const uint8_t *)bias->t.data + (int64_t)g * p->group_out_c * bes : 0;
        const int32_t c0 = g * p->group_in_c;
        uint8_t *obase = (uint8_t *)out->t.data + (int64_t)g * p->group_out_c * oes;
        for (int64_t r0 = 0; r0 < pixels; r0 += SYSTOLIC_TILE_ROWS) {
            const int32_t nr = (int32_t)(pixels - r0 < SYSTOLIC_TILE_ROWS ? pixels - r0 : SYSTOLIC_TILE_ROWS);
            for (int32_t r = 0; r < nr; r++) {
                const int64_t pix = r0 + r;
                const int32_t ox = (int32_t)(pix % p->out_w);
                const int32_t oy = (int32_t)((pix / p->out_w) % p->out_h);
                const int32_t b = (int32_t)(pix / ((int64_t)p->out_w * p->out_h));
                if (p->direct) {
                    const int64_t at =
                        (((int64_t)b * p->in_h + (int64_t)oy * p->stride_h) * p->in_w +
                         (int64_t)ox * p->stride_w) * p->in_c + c0;
                    rows[r] = (const uint8_t *)in->t.data + at * ies;
                } else {
                    float *row = scratch + (int64_t)r * p->k;
                    gather(p, in->t.data, in_bf16, b, oy, ox, c0, row);
                    rows[r] = row;
                }
            }
            systolic_f_gemm(&sp, rows, nr, obase + r0 * p->out_c * oes, p->out_c,
                            p->direct ? scratch : 0);
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_conv_2d_f = {EDGE_BUILTIN_CONV_2D, "CONV_2D", prepare, eval, 0, 0, 0};
