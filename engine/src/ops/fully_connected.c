/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fully_connected.c — FULLY_CONNECTED (BuiltinOperator 9) on the systolic
 * kernel.
 *
 * int8 (per-tensor weights, which may carry a zero point, or per-channel
 * symmetric weights) and TF1 uint8; optional bias; keep_num_dims; any
 * leading input dimensions are flattened into rows of K = weights' second
 * dimension. DEFAULT weights format only.
 *
 * Requantization follows the oracle chosen by EDGE_FC_REQUANT_DOUBLE (see
 * systolic.h): LiteRT's reference kernel computes
 * round(double(acc) * in_scale * w_scale / out_scale), TFLM's the
 * fixed-point multiplier (per-tensor from the float product of scales, as
 * GetQuantizedConvolutionMultipler does; per-channel all in double).
 */
#include "../kernels/fc.h"
#include "../quant.h"
#include "weighted_op.h"

enum { FC_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_FULLY_CONNECTED_OPTIONS };
enum { OPT_ACTIVATION = EDGE_F_FULLY_CONNECTED_OPTIONS_FUSED_ACTIVATION_FUNCTION, OPT_WEIGHTS_FORMAT = EDGE_F_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT, OPT_KEEP_NUM_DIMS = EDGE_F_FULLY_CONNECTED_OPTIONS_KEEP_NUM_DIMS };

typedef edge_fc_params fc_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands o;
    edge_status st = edge_weighted_operands(c, FC_OPTIONS_TYPE, "FullyConnectedOptions", "weights", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *w = o.w, *bias = o.bias, *out = o.out;
    const int is_u8 = EDGE_WITH_UINT8 && o.is_u8;
    const int format = edge_opt_u8(c, OPT_WEIGHTS_FORMAT, 0);
    if (format != 0)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "weights format %d (only DEFAULT)", format);

    if (w->t.rank != 2)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "weights must be 2-D, are %d-D", w->t.rank);
    const int32_t n = w->t.dims[0], k = w->t.dims[1];
    if (n <= 0 || k <= 0) return edge_op_fail(c, EDGE_ERR_SHAPE, "empty weights [%d,%d]", n, k);
    if (n > 0x1000000 || (int64_t)n * k > 0x7fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "weights [%d,%d] too large", n, k);
    /* Below 2^31 (the loader refuses tensors of 2 GiB): 32-bit division. */
    const int64_t in_count = edge_numel(&in->t);
    if (in_count <= 0 || (uint32_t)in_count % (uint32_t)k != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input of %ld elements is not rows of %d",
                            (long)in_count, k);
    const int64_t batch = (int64_t)((uint32_t)in_count / (uint32_t)k);
    if (batch * n > 0x7fffffff) return edge_op_fail(c, EDGE_ERR_SHAPE, "input too large");
    const int keep = edge_opt_u8(c, OPT_KEEP_NUM_DIMS, 0);
    if (keep && edge_dim(&in->t, -1) != k)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "keep_num_dims: input's last dimension %d is not %d",
                            edge_dim(&in->t, -1), k);
    if (out->t.rank < 1 || edge_dim(&out->t, -1) != n || edge_numel(&out->t) != batch * n)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output must hold %ld rows of %d", (long)batch, n);
    if (bias && edge_numel(&bias->t) != n)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "bias has %ld elements, weights have %d outputs",
                            (long)edge_numel(&bias->t), n);

    int per_channel;
    int32_t act_min, act_max;
    st = edge_weighted_quant(c, &o, n, 0, edge_opt_u8(c, OPT_ACTIVATION, 0), &per_channel, &act_min,
                             &act_max);
    if (st) return st;
    const int32_t out_zp = edge_q_zero(out, 0);

    /* Params: header, then double scales or multipliers and shifts. The
     * effective bias (bias + input_offset * sum W) is not kept: eval folds
     * it EDGE_FC_BIAS_CHUNK output channels at a time into scratch, one pass over
     * the weights per invoke. */
    const uint32_t n_q = per_channel ? (uint32_t)n : 1u;
    const uint32_t scale_off = align16((uint32_t)sizeof(fc_params));
    const uint32_t mult_off = scale_off + (EDGE_FC_REQUANT_DOUBLE ? 8u * n_q : 0u);
    const uint32_t shift_off = mult_off + (EDGE_FC_REQUANT_DOUBLE ? 0u : 4u * n_q);
    if (!c->params) {
        op->params_bytes = shift_off + (EDGE_FC_REQUANT_DOUBLE ? 0u : n_q);
        op->scratch_bytes = edge_fc_s8_buffer_size(n);
        op->macs = (uint64_t)batch * (uint64_t)n * (uint64_t)k;
        op->systolic = 1;
        op->array_cycles = systolic_cycles((uint64_t)batch, (uint64_t)n, (uint64_t)k);
        return EDGE_OK;
    }

    uint8_t *base = (uint8_t *)c->params;
    fc_params *p = (fc_params *)c->params;
    const float in_s = edge_q_scale(in, 0), out_s = edge_q_scale(out, 0);
    for (uint32_t i = 0; i < n_q; i++) {
        if (EDGE_FC_REQUANT_DOUBLE) {
            ((double *)(base + scale_off))[i] =
                (double)in_s * (double)edge_q_scale(w, i) / (double)out_s;
            continue;
        }
        double real;
        if (per_channel) {
            real = (double)in_s * (double)edge_q_scale(w, i) / (double)out_s;
        } else {
            float prod = in_s * edge_q_scale(w, 0); /* a float product, as TFLite */
            real = (double)prod / (double)out_s;
        }
        int s;
        edge_quantize_multiplier(real, (int32_t *)(base + mult_off) + i, &s);
        if (s > 31 || s < -31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "requantization multiplier out of range (shift %d)", s);
        ((int8_t *)(base + shift_off))[i] = (int8_t)s;
    }

    systolic_params *sp = &p->sp;
    sp->k = k;
    sp->n = n;
    sp->input_offset = -edge_q_zero(in, 0);
    /* Per-channel weights are symmetric by spec: TFLite ignores their zero
     * point; per-tensor ones keep it (TF1 uint8, and int8 for compatibility). */
    sp->filter_offset = per_channel ? 0 : -edge_q_zero(w, 0);
    sp->output_offset = out_zp;
    sp->act_min = act_min;
    sp->act_max = act_max;
    sp->per_channel = (uint8_t)per_channel;
    sp->requant = EDGE_FC_REQUANT_DOUBLE ? SYSTOLIC_REQUANT_DOUBLE : SYSTOLIC_REQUANT_FIXED;
    sp->is_unsigned = (uint8_t)is_u8;
    p->batch = (int32_t)batch;
    p->scale_off = scale_off;
    p->mult_off = mult_off;
    p->shift_off = shift_off;
    edge_fc_s8_select(p);
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    edge_fc_s8((const fc_params *)c->params, edge_in_data(c, 0), (const uint8_t *)edge_in_data(c, 1),
               (const int32_t *)edge_in_data(c, 2), (uint8_t *)edge_out_data(c, 0), (int32_t *)c->scratch);
    return EDGE_OK;
}

#if EDGE_KERNELS_PACK
/* Whatever the chosen variant lays out once from constant int8 weights
 * and bias (edge_model_pack). */
static uint32_t pack(edge_op_ctx *c, uint8_t *dst) {
    fc_params *p = (fc_params *)c->params;
    const edge_tensor_rt *x = edge_in(c, 0), *w, *bias;
    if (!p || !edge_weights_const(c, &w, &bias) || !x || x->t.type != EDGE_INT8) return 0;
    return edge_fc_s8_pack(p, w->t.data, bias ? (const int32_t *)bias->t.data : 0, dst);
}

#define FC_PACK pack
#else
#define FC_PACK 0
#endif

const edge_op_impl edge_op_fully_connected = {EDGE_BUILTIN_FULLY_CONNECTED, "FULLY_CONNECTED", prepare, eval, 0, FC_PACK, 0};
