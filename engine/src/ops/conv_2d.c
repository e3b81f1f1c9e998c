/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv_2d.c — CONV_2D (BuiltinOperator 3), lowered to the systolic kernel.
 *
 * Matches reference_integer_ops::ConvPerChannel (int8 activations, int8
 * symmetric filters, per-channel or per-tensor) and reference_ops::Conv
 * (TF1 uint8, asymmetric per-tensor filters), with grouped convolution
 * (input channels a multiple of the filter's), any stride, dilation,
 * SAME/VALID padding and a fused RELU/RELU_N1_TO_1/RELU6.
 *
 * The lowering and its variants are the conv family's (kernels/conv.h):
 * this file checks the operands, computes the quantization and fills
 * edge_conv_params, and runs a fused pair's chunks.
 */
#include "../kernels/conv.h"
#include "../kernels/conv_common.h"
#include "../quant.h"
#include "conv_shape.h"
#include "weighted_op.h"

enum { CONV_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_CONV2D_OPTIONS };

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands o;
    edge_status st = edge_weighted_operands(c, CONV_OPTIONS_TYPE, "Conv2DOptions", "filter", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *filt = o.w, *bias = o.bias, *out = o.out;
    const int is_u8 = EDGE_WITH_UINT8 && o.is_u8;
    conv_shape sh;
    st = edge_conv_shape(c, in, filt, bias, out, &sh);
    if (st) return st;
    const int32_t batches = sh.batches, in_h = sh.in_h, in_w = sh.in_w, in_c = sh.in_c;
    const int32_t out_c = sh.out_c, k_h = sh.k_h, k_w = sh.k_w, f_in_c = sh.f_in_c, groups = sh.groups;
    const int32_t stride_h = sh.stride_h, stride_w = sh.stride_w, dil_h = sh.dil_h, dil_w = sh.dil_w;
    const int32_t out_h = sh.out_h, out_w = sh.out_w;
    const int act = sh.act;
    const int64_t k64 = (int64_t)k_h * k_w * f_in_c;
    if (k64 * SYSTOLIC_TILE_ROWS + 16 * (int64_t)out_c > 0x3fffffff ||
        (int64_t)batches * out_h * out_w * out_c > 0x7fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "convolution too large");
    const int32_t k = (int32_t)k64;

    /* Quantization (zero points were checked against their 8-bit types at load). */
    int per_channel;
    int32_t act_min, act_max;
    st = edge_weighted_quant(c, &o, out_c, 0, act, &per_channel, &act_min, &act_max);
    if (st) return st;
    const int32_t in_zp = edge_q_zero(in, 0), out_zp = edge_q_zero(out, 0);
    int32_t filt_zp = 0;
    if (is_u8) {
        filt_zp = edge_q_zero(filt, 0);
    } else {
        for (uint32_t i = 0; i < filt->q_count; i++)
            if (edge_q_zero(filt, i) != 0)
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                    "int8 filter zero point %d (must be 0)", edge_q_zero(filt, i));
    }

    /* Layout of the params block: header, multipliers, shifts. The
     * effective bias (bias + input_offset * sum W, systolic_fold_bias) is
     * not kept: eval folds it into its scratch, after the im2col rows, so
     * the arena pays 4 bytes per output channel of the largest conv only,
     * for one pass over the weights per invoke. */
    const uint32_t n_mult = per_channel ? (uint32_t)out_c : 1u;
    const uint32_t mult_off = align16((uint32_t)sizeof(edge_conv_params));
    const uint32_t shift_off = mult_off + 4u * n_mult;
    const int direct = k_h == 1 && k_w == 1;
    const uint32_t scratch_bias_off = edge_conv_s8_bias_offset(k, direct);

    /* A fused pair's ring follows the op's own scratch. */
    const uint32_t ring_off = align16(scratch_bias_off + 4u * (uint32_t)out_c);
    if (!c->params) {
        op->scratch_bytes = edge_conv_s8_buffer_size(k, out_c, direct);
        /* A 1x1 stride-1 conv may run the depthwise conv after it row by row. */
        uint32_t ring_rows = 0, ring_bytes = 0;
        if (batches == 1 && direct && groups == 1 && stride_h == 1 && stride_w == 1 &&
            edge_fuse_try(c, (int64_t)in_w * in_c, &ring_rows, &ring_bytes)) {
            op->scratch_bytes = ring_off + ring_bytes;
        } else if (batches == 1) {
            const edge_window_geom g = {in_h,
                                        in_w,
                                        out_h,
                                        out_w,
                                        stride_h,
                                        stride_w,
                                        sh.pad_h,
                                        sh.pad_w,
                                        in_c,
                                        out_c};
            edge_op_set_stream(c, 1u, edge_window_stream_d(&g, EDGE_CONV_STREAM_TILE));
        }
        op->params_bytes = shift_off + n_mult;
        op->macs = (uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w * (uint64_t)out_c * (uint64_t)k;
        op->systolic = 1;
        op->array_cycles = (uint64_t)groups *
                           systolic_cycles((uint64_t)batches * (uint64_t)out_h * (uint64_t)out_w,
                                           (uint64_t)(out_c / groups), (uint64_t)k);
        return EDGE_OK;
    }

    uint8_t *base = (uint8_t *)c->params;
    edge_conv_params *p = (edge_conv_params *)c->params;
    int32_t *mult = (int32_t *)(base + mult_off);
    int8_t *shift = (int8_t *)(base + shift_off);
    st = edge_conv_multipliers(c, &o, n_mult, mult, shift);
    if (st) return st;

    systolic_params *sp = &p->sp;
    sp->k = k;
    sp->n = out_c / groups;
    sp->input_offset = -in_zp;
    sp->filter_offset = -filt_zp;
    sp->output_offset = out_zp;
    sp->act_min = act_min;
    sp->act_max = act_max;
    sp->per_channel = (uint8_t)per_channel;
    sp->requant = SYSTOLIC_REQUANT_FIXED;
    sp->is_unsigned = (uint8_t)is_u8;
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
    p->mult_off = mult_off;
    p->shift_off = shift_off;
    p->scratch_bias_off = scratch_bias_off;
    p->fused = (uint8_t)((op->fused & EDGE_FUSED_HEAD) != 0);
    p->ring_off = ring_off;
    p->ring_rows = p->fused ? (op->scratch_bytes - ring_off) / ((uint32_t)out_w * (uint32_t)out_c) : 0u;
    p->direct = (uint8_t)direct;
    p->pad_byte = (uint8_t)((uint32_t)in_zp & 0xffu);

    edge_conv_s8_select(p, mult, shift, filt->t.data, filt->is_const);
    return EDGE_OK;
}

/* A fused pair's head: output rows [r0, r1) of a 1x1 stride-1 conv are
 * the conv of input rows [r0, r1) as an image of their own. */
typedef struct rows_state {
    edge_op_ctx *c;
    const edge_conv_params *p;
    edge_conv_data d;
} rows_state;

static void conv_rows(const void *state, int32_t r0, int32_t r1, uint8_t *dst) {
    const rows_state *s = (const rows_state *)state;
    edge_conv_params q = *s->p;
    q.in_h = q.out_h = r1 - r0;
    edge_conv_data d = s->d;
    d.in = s->d.in + (size_t)r0 * (size_t)q.in_w * (size_t)q.in_c;
    d.out = dst;
    edge_conv_s8_run(&q, &d);
}

/* The chunks, from the kernel's prepared state: in its ring when it has
 * one and the pair fits (larger chunks), else in the planned ring. */
static edge_status run_chunks(void *ctx, const void *state, uint8_t *ring, uint32_t ring_bytes, int32_t pixels) {
    rows_state *s = (rows_state *)ctx;
    s->d.state = state;
    if (EDGE_CONV_CHUNK_RING && ring) {
        uint32_t rows = 0;
        const int32_t chunk = edge_fused_chunk(s->c, pixels, ring_bytes, &rows);
        if (chunk) return edge_fused_run(s->c, ring, rows, chunk, conv_rows, s);
    }
    return edge_fused_run(s->c, s->d.scratch + s->p->ring_off, s->p->ring_rows, 0, conv_rows, s);
}

static edge_status eval(edge_op_ctx *c) {
    const edge_conv_params *p = (const edge_conv_params *)c->params;
    const uint8_t *base = (const uint8_t *)c->params;
    edge_conv_data d;
    d.in = (const uint8_t *)edge_in_data(c, 0);
    d.filt = (const uint8_t *)edge_in_data(c, 1);
    d.out = (uint8_t *)edge_out_data(c, 0);
    d.raw_bias = (const int32_t *)edge_in_data(c, 2);
    d.mult = (const int32_t *)(const void *)(base + p->mult_off);
    d.shift = (const int8_t *)(base + p->shift_off);
    d.scratch = (uint8_t *)c->scratch;
    d.state = 0;
    /* The effective bias, folded per invoke (see prepare), when the
     * variant wants it. */
    int32_t *eff_bias = (int32_t *)(void *)(d.scratch + p->scratch_bias_off);
    edge_conv_s8_fold(p, d.filt, d.raw_bias, eff_bias);
    d.eff_bias = eff_bias;
    if (p->fused) {
        rows_state s;
        s.c = c;
        s.p = p;
        s.d = d;
        /* Without a variant that chunks its own way, straight to the plan's. */
        return EDGE_CONV_CHUNK_RING ? edge_conv_s8_chunked(p, &d, run_chunks, &s) : run_chunks(&s, 0, 0, 0, 0);
    }
    edge_conv_s8_run(p, &d);
    return EDGE_OK;
}

#if EDGE_KERNELS_PACK
/* Whatever the chosen variant lays out once from constant weights
 * (edge_model_pack). */
static uint32_t pack(edge_op_ctx *c, uint8_t *dst) {
    edge_conv_params *p = (edge_conv_params *)c->params;
    const edge_tensor_rt *filt, *bias;
    if (!p || !edge_weights_const(c, &filt, &bias)) return 0;
    return edge_conv_s8_pack(p, filt->t.data, bias ? (const int32_t *)bias->t.data : 0, dst);
}

#define CONV_PACK pack
#else
#define CONV_PACK 0
#endif

const edge_op_impl edge_op_conv_2d = {EDGE_BUILTIN_CONV_2D, "CONV_2D", prepare, eval, 0, CONV_PACK, 1};
