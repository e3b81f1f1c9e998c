/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool_2d.c — what AVERAGE_POOL_2D and MAX_POOL_2D share: reading
 * Pool2DOptions, validating shapes and types, the padding and the fused
 * activation's clamp (see pool_2d.h).
 */
#include "../kernels/conv_common.h"
#include "../quant.h"
#include "op_common.h"
#include "pool_2d.h"

enum { POOL_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_POOL2D_OPTIONS };
enum { OPT_PADDING = EDGE_F_POOL2D_OPTIONS_PADDING, OPT_STRIDE_W = EDGE_F_POOL2D_OPTIONS_STRIDE_W, OPT_STRIDE_H = EDGE_F_POOL2D_OPTIONS_STRIDE_H, OPT_FILTER_W = EDGE_F_POOL2D_OPTIONS_FILTER_WIDTH, OPT_FILTER_H = EDGE_F_POOL2D_OPTIONS_FILTER_HEIGHT,
       OPT_ACTIVATION = EDGE_F_POOL2D_OPTIONS_FUSED_ACTIVATION_FUNCTION };

/* One spatial axis: its output extent and leading padding (conv_common.h,
 * dilation 1). Out of line, so it is there once for both axes. */
static int32_t window_axis(int padding, int32_t in, int32_t filter, int32_t stride, int32_t *pad) {
    const int64_t out = edge_conv_out_size(padding, in, filter, stride, 1);
    *pad = (int32_t)edge_conv_padding(in, filter, stride, 1, out);
    return (int32_t)out;
}

static const edge_op_form form = {1, 1, 0, EDGE_FORM_ONE_TYPE | EDGE_FORM_NUMERIC, POOL_OPTIONS_TYPE, 0,
                                   "Pool2DOptions"};

edge_status edge_pool2d_prepare(edge_op_ctx *c, int average, int float_ok) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t == EDGE_FLOAT32 && !float_ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on the op's float twin, which this build leaves out");
    if (in->t.rank != 4 || out->t.rank != 4)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input and output must be 4-D NHWC (are %d-D, %d-D)",
                            in->t.rank, out->t.rank);

    pool2d_params p;
    edge_memset(&p, 0, sizeof p);
    edge_pool_params *pp = &p.pp;
    const int padding = edge_opt_u8(c, OPT_PADDING, 0);
    pp->stride_w = edge_opt_i32(c, OPT_STRIDE_W, 0);
    pp->stride_h = edge_opt_i32(c, OPT_STRIDE_H, 0);
    pp->filter_w = edge_opt_i32(c, OPT_FILTER_W, 0);
    pp->filter_h = edge_opt_i32(c, OPT_FILTER_H, 0);
    const int act = edge_opt_u8(c, OPT_ACTIVATION, 0);
    if (padding != EDGE_PADDING_SAME && padding != EDGE_PADDING_VALID)
        return edge_op_fail(c, EDGE_ERR_MODEL, "unknown padding %d", padding);
    if (pp->stride_w <= 0 || pp->stride_h <= 0 || pp->filter_w <= 0 || pp->filter_h <= 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "stride %dx%d and filter %dx%d must be positive",
                            pp->stride_h, pp->stride_w, pp->filter_h, pp->filter_w);

    pp->batches = in->t.dims[0];
    pp->in_h = in->t.dims[1];
    pp->in_w = in->t.dims[2];
    pp->depth = in->t.dims[3];
    pp->out_h = window_axis(padding, pp->in_h, pp->filter_h, pp->stride_h, &pp->pad_h);
    pp->out_w = window_axis(padding, pp->in_w, pp->filter_w, pp->stride_w, &pp->pad_w);
    /* Every window index (oy * stride - pad + filter) well inside 32 bits,
     * as for the convolutions (conv_shape.c); 64-bit arithmetic here. */
    const int64_t span_h = (int64_t)(pp->out_h - 1) * pp->stride_h + pp->filter_h;
    const int64_t span_w = (int64_t)(pp->out_w - 1) * pp->stride_w + pp->filter_w;
    if (span_h > ((int64_t)1 << 29) || span_w > ((int64_t)1 << 29))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "window spans %ldx%ld input pixels: over the limit of 2^29",
                            (long)span_h, (long)span_w);
    if (out->t.dims[0] != pp->batches || out->t.dims[1] != pp->out_h || out->t.dims[2] != pp->out_w ||
        out->t.dims[3] != pp->depth)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "output is [%d,%d,%d,%d], the window gives [%d,%d,%d,%d]", out->t.dims[0],
                            out->t.dims[1], out->t.dims[2], out->t.dims[3], pp->batches, pp->out_h,
                            pp->out_w, pp->depth);
    if (average && !edge_pool_windows_nonempty(pp))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "a pooling window lies entirely in the padding");

    if (t == EDGE_FLOAT32) {
        if (!edge_act_range_f(act, &pp->f_min, &pp->f_max))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
    } else {
        if (out->q_count < 1)
            return edge_op_fail(c, EDGE_ERR_MODEL, "%s output must be quantized", edge_type_name(t));
        const int32_t qmin = t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : -32768);
        const int32_t qmax = t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : 32767);
        if (!edge_act_range_q(act, edge_q_scale(out, 0), edge_q_zero(out, 0), qmin, qmax, &pp->act_min,
                              &pp->act_max))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
    }
    p.type = (int32_t)t;

    if (!c->params) {
        /* One output pixel at a time, raster order (kernels/pool.c). */
        if (pp->batches == 1) {
            const int64_t px = (int64_t)pp->depth * (int64_t)edge_type_size(t);
            const edge_window_geom g = {pp->in_h,     pp->in_w,     pp->out_h, pp->out_w, pp->stride_h,
                                        pp->stride_w, pp->pad_h,    pp->pad_w, px,        px};
            edge_op_set_stream(c, 1u, edge_window_stream_d(&g, 1));
        }
        /* Average pooling adds every window element once per output. */
        op->macs = average ? (uint64_t)edge_numel(&out->t) * (uint64_t)pp->filter_h * (uint64_t)pp->filter_w
                           : 0;
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}


edge_status edge_pool2d_eval(edge_op_ctx *c, int is_max) {
    const pool2d_params *p = (const pool2d_params *)c->params;
    const int kind = p->type == EDGE_INT8    ? EDGE_POOL_S8
                     : p->type == EDGE_UINT8 ? EDGE_POOL_U8
                                             : EDGE_POOL_S16;
    edge_pool_int(&p->pp, edge_in_data(c, 0), edge_out_data(c, 0), kind, is_max);
    return EDGE_OK;
}

edge_status edge_pool2d_eval_f(edge_op_ctx *c, int is_max) {
    const pool2d_params *p = (const pool2d_params *)c->params;
    edge_pool_f32(&p->pp, (const float *)edge_in_data(c, 0), (float *)edge_out_data(c, 0), is_max);
    return EDGE_OK;
}
