/* SPDX-License-Identifier: Apache-2.0 */
/*
 * depthwise_conv_2d.c — DEPTHWISE_CONV_2D (BuiltinOperator 4).
 *
 * Matches reference_integer_ops::DepthwiseConvPerChannel (int8, per-channel
 * filters on dimension 3 or per-tensor; the filter zero point is ignored as
 * there) and reference_ops::DepthwiseConv (uint8, asymmetric per-tensor).
 * Runs on the depthwise vector kernel, not on the systolic array: there is
 * no reduction across channels to feed it.
 *
 * The depth multiplier is output channels / input channels, as TFLite
 * derives it; the option field is ignored there too.
 */
#include "../kernels/conv_common.h"
#include "../kernels/depthwise.h"
#include "../quant.h"
#include "conv_shape.h"
#include "fused.h"
#include "weighted_op.h"

enum { DW_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_DEPTHWISE_CONV2D_OPTIONS };
/* The most output channels whose kernels all keep raster order: the
 * portable kernel and every variant loop over blocks of 64 channels outermost
 * (DW_BLOCK, DWD_BLOCK, DWX_BLOCK). See "Streaming outputs" in
 * edge_internal.h. */
enum { DW_STREAM_MAX_C = 64 };
enum { OPT_PADDING = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_PADDING, OPT_STRIDE_W = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_W, OPT_STRIDE_H = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_STRIDE_H, OPT_DEPTH_MULT = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DEPTH_MULTIPLIER,
       OPT_ACTIVATION = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_FUSED_ACTIVATION_FUNCTION, OPT_DILATION_W = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_W_FACTOR, OPT_DILATION_H = EDGE_F_DEPTHWISE_CONV2D_OPTIONS_DILATION_H_FACTOR };

/* Params block: the depthwise_params fields before its pointers, then
 * int32 multipliers and int8 shifts (one, or one per output channel). */
static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands o;
    edge_status st = edge_weighted_operands(c, DW_OPTIONS_TYPE, "DepthwiseConv2DOptions", "filter", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *filt = o.w, *bias = o.bias, *out = o.out;
    const int is_u8 = EDGE_WITH_UINT8 && o.is_u8;
    conv_shape sh;
    st = edge_dw_shape(c, in, filt, bias, out, &sh);
    if (st) return st;

    int per_channel;
    int32_t act_min, act_max;
    st = edge_weighted_quant(c, &o, sh.out_c, 3, sh.act, &per_channel, &act_min, &act_max);
    if (st) return st;
    const int32_t in_zp = edge_q_zero(in, 0), out_zp = edge_q_zero(out, 0);

    const uint32_t n_mult = per_channel ? (uint32_t)sh.out_c : 1u;
    const uint32_t mult_off = (uint32_t)DEPTHWISE_PARAMS_STORED;
    const uint32_t shift_off = mult_off + 4u * n_mult;
    if (!c->params) {
        /* One output row at a time in raster order, all channels of a
         * pixel together (one channel block). */
        if (sh.batches == 1 && sh.out_c <= DW_STREAM_MAX_C && !(op->fused & EDGE_FUSED_TAIL)) {
            const edge_window_geom g = {sh.in_h,
                                        sh.in_w,
                                        sh.out_h,
                                        sh.out_w,
                                        sh.stride_h,
                                        sh.stride_w,
                                        sh.pad_h,
                                        sh.pad_w,
                                        sh.in_c,
                                        sh.out_c};
            edge_op_set_stream(c, 1u, edge_window_stream_d(&g, sh.out_w));
        }
        op->params_bytes = shift_off + n_mult;
        op->scratch_bytes = 0;
        op->macs = (uint64_t)sh.batches * (uint64_t)sh.out_h * (uint64_t)sh.out_w * (uint64_t)sh.out_c *
                   (uint64_t)sh.k_h * (uint64_t)sh.k_w;
        op->systolic = 0;
        op->array_cycles = 0;
        return EDGE_OK;
    }

    uint8_t *base = (uint8_t *)c->params;
    depthwise_params kp;
    edge_memset(&kp, 0, sizeof kp);
    int32_t *mult = (int32_t *)(base + mult_off);
    int8_t *shift = (int8_t *)(base + shift_off);
    st = edge_conv_multipliers(c, &o, n_mult, mult, shift);
    if (st) return st;

    depthwise_params *k = &kp;
    k->batches = sh.batches;
    k->in_h = sh.in_h;
    k->in_w = sh.in_w;
    k->in_c = sh.in_c;
    k->out_h = sh.out_h;
    k->out_w = sh.out_w;
    k->out_c = sh.out_c;
    k->depth_mult = sh.out_c / sh.in_c;
    k->k_h = sh.k_h;
    k->k_w = sh.k_w;
    k->stride_h = sh.stride_h;
    k->stride_w = sh.stride_w;
    k->dil_h = sh.dil_h;
    k->dil_w = sh.dil_w;
    k->pad_h = sh.pad_h;
    k->pad_w = sh.pad_w;
    /* Zero points were checked against their 8-bit types at load. */
    k->input_offset = (int16_t)-in_zp;
    k->filter_offset = (int16_t)(is_u8 ? -edge_q_zero(filt, 0) : 0);
    k->output_offset = (int16_t)out_zp;
    k->act_min = (int16_t)act_min;
    k->act_max = (int16_t)act_max;
    k->per_channel = (uint8_t)per_channel;
    k->is_unsigned = (uint8_t)is_u8;
    k->simd = edge_depthwise_s8_select();
    edge_memcpy(base, k, DEPTHWISE_PARAMS_STORED);
    return EDGE_OK;
}

/* The prepared kernel parameters, pointers set. */
static void load_params(const edge_op_ctx *c, depthwise_params *k) {
    const uint8_t *base = (const uint8_t *)c->params;
    edge_memcpy(k, base, DEPTHWISE_PARAMS_STORED);
    const uint32_t n_mult = k->per_channel ? (uint32_t)k->out_c : 1u;
    k->bias = (const int32_t *)edge_in_data(c, 2);
    k->multiplier = (const int32_t *)(const void *)(base + DEPTHWISE_PARAMS_STORED);
    k->shift = (const int8_t *)(base + DEPTHWISE_PARAMS_STORED + 4u * n_mult);
}

static edge_status eval(edge_op_ctx *c) {
    depthwise_params k;
    load_params(c, &k);
    depthwise_conv(&k, edge_in_data(c, 0), edge_in_data(c, 1), edge_out_data(c, 0));
    return EDGE_OK;
}

int edge_depthwise_geom(const edge_model *m, const edge_op_rt *op, edge_dw_geom *g) {
    if (op->n_in < 2 || op->n_out != 1 || op->io[0] < 0 || op->io[1] < 0 || op->io[op->n_in] < 0) return 0;
    if (op->options_type != DW_OPTIONS_TYPE) return 0;
    edge_tensor_rt in, filt, out;
    edge_tensor_record(m, (uint32_t)op->io[0], &in);
    edge_tensor_record(m, (uint32_t)op->io[1], &filt);
    edge_tensor_record(m, (uint32_t)op->io[op->n_in], &out);
    const edge_type t = in.t.type;
    if ((t != EDGE_INT8 && t != EDGE_UINT8) || filt.t.type != t || out.t.type != t) return 0;
    if (in.t.rank != 4 || filt.t.rank != 4 || out.t.rank != 4 || in.t.dims[0] != 1 || filt.t.dims[0] != 1)
        return 0;
    const int padding = fb_u8(op->options, OPT_PADDING, 0);
    g->stride_h = fb_i32(op->options, OPT_STRIDE_H, 0);
    g->dil_h = fb_i32(op->options, OPT_DILATION_H, 1);
    const int32_t stride_w = fb_i32(op->options, OPT_STRIDE_W, 0), dil_w = fb_i32(op->options, OPT_DILATION_W, 1);
    g->in_h = in.t.dims[1];
    g->in_w = in.t.dims[2];
    g->in_c = in.t.dims[3];
    g->k_h = filt.t.dims[1];
    g->out_c = filt.t.dims[3];
    if (g->stride_h <= 0 || g->dil_h <= 0 || stride_w <= 0 || dil_w <= 0 || g->in_h <= 0 || g->in_w <= 0 ||
        g->in_c <= 0 || g->k_h <= 0 || g->k_h > 0xffff || filt.t.dims[2] <= 0 || g->out_c <= 0 ||
        g->out_c % g->in_c != 0)
        return 0;
    const int64_t out_h = edge_conv_out_size(padding, g->in_h, g->k_h, g->stride_h, g->dil_h);
    const int64_t out_w = edge_conv_out_size(padding, g->in_w, filt.t.dims[2], stride_w, dil_w);
    if (out_h <= 0 || out_w <= 0 || out.t.dims[0] != 1 || out.t.dims[1] != out_h || out.t.dims[2] != out_w ||
        out.t.dims[3] != g->out_c)
        return 0;
    g->out_h = (int32_t)out_h;
    g->out_w = (int32_t)out_w;
    g->pad_h = (int32_t)edge_conv_padding(g->in_h, g->k_h, g->stride_h, g->dil_h, out_h);
    return 1;
}

void edge_depthwise_rows(const edge_op_ctx *c, const void *in, int32_t row0, int32_t nrows, int32_t oy0,
                         int32_t oy1, void *out) {
    depthwise_params k;
    load_params(c, &k);
    /* The rows as a smaller image: output row oy0 becomes row 0, and its
     * window start (oy0 * stride - pad, rows before row0 being outside
     * the image) is row0 - the new pad. Every tap the whole op would take
     * inside the image lies in [row0, row0 + nrows), so the same ones are
     * taken, in the same order. */
    k.pad_h = row0 - (oy0 * k.stride_h - k.pad_h);
    k.in_h = nrows;
    k.out_h = oy1 - oy0;
    depthwise_conv(&k, in, edge_in_data(c, 1), out);
}

const edge_op_impl edge_op_depthwise_conv_2d = {EDGE_BUILTIN_DEPTHWISE_CONV_2D, "DEPTHWISE_CONV_2D", prepare, eval, 0, 0, 0};
