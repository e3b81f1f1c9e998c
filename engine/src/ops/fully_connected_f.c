/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fully_connected_f.c — FULLY_CONNECTED's float twin: FLOAT32 / BFLOAT16
 * input, weights, bias and output (any mix) on the float systolic kernel,
 * as reference_ops::FullyConnected computes float (products summed in
 * order in fp32, then the bias, then the fused clamp). Leading input
 * dimensions are rows of K; keep_num_dims; DEFAULT weights format only.
 * Int8 weights under float input (TFLite's hybrid FC) are refused.
 */
#include "../kernels/systolic_f.h"
#include "../quant.h"
#include "weighted_op_f.h"

enum { FC_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_FULLY_CONNECTED_OPTIONS };
enum { OPT_ACTIVATION = EDGE_F_FULLY_CONNECTED_OPTIONS_FUSED_ACTIVATION_FUNCTION, OPT_WEIGHTS_FORMAT = EDGE_F_FULLY_CONNECTED_OPTIONS_WEIGHTS_FORMAT, OPT_KEEP_NUM_DIMS = EDGE_F_FULLY_CONNECTED_OPTIONS_KEEP_NUM_DIMS };

typedef struct fc_f_params {
    systolic_f_params sp; /* weights and bias set at eval */
    int32_t batch;
} fc_f_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    weighted_operands_f o;
    edge_status st = edge_weighted_operands_f(c, FC_OPTIONS_TYPE, "FullyConnectedOptions", "weights", &o);
    if (st) return st;
    edge_tensor_rt *in = o.in, *w = o.w, *bias = o.bias, *out = o.out;
    const int format = edge_opt_u8(c, OPT_WEIGHTS_FORMAT, 0);
    if (format != 0)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "weights format %d (only DEFAULT)", format);
    if (w->t.rank != 2)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "weights must be 2-D, are %d-D", w->t.rank);
    const int32_t n = w->t.dims[0], k = w->t.dims[1];
    if (n <= 0 || k <= 0) return edge_op_fail(c, EDGE_ERR_SHAPE, "empty weights [%d,%d]", n, k);
    if (n > 0x1000000 || (int64_t)n * k > 0x7fffffff || (int64_t)k * 4 * SYSTOLIC_TILE_ROWS > 0x3fffffff)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "weights [%d,%d] too large", n, k);
    const int64_t in_count = edge_numel(&in->t);
    if (in_count <= 0 || in_count % k != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input of %ld elements is not rows of %d",
                            (long)in_count, k);
    const int64_t batch = in_count / k;
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
    const int act = edge_opt_u8(c, OPT_ACTIVATION, 0);
    float act_min, act_max;
    if (!edge_act_range_f(act, &act_min, &act_max))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "fused activation %d (only NONE, RELU, RELU_N1_TO_1, RELU6)", act);

    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(fc_f_params);
        op->scratch_bytes = systolic_f_scratch_bytes((int32_t)in->t.type, k);
        op->macs = (uint64_t)batch * (uint64_t)n * (uint64_t)k;
        op->systolic = 1;
        op->array_cycles = systolic_cycles((uint64_t)batch, (uint64_t)n, (uint64_t)k);
        return EDGE_OK;
    }
    fc_f_params *p = (fc_f_params *)c->params;
    p->sp.k = k;
    p->sp.n = n;
    p->sp.act_min = act_min;
    p->sp.act_max = act_max;
    p->sp.a_type = (int8_t)in->t.type;
    p->sp.w_type = (int8_t)w->t.type;
    p->sp.bias_type = (int8_t)(bias ? (int32_t)bias->t.type : SYSTOLIC_F_NONE);
    p->sp.out_type = (int8_t)out->t.type;
    p->batch = (int32_t)batch;
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const fc_f_params *p = (const fc_f_params *)c->params;
    const edge_tensor_rt *bias = edge_in(c, 2);
    systolic_f_params sp = p->sp;
    sp.weights = edge_in(c, 1)->t.data;
    sp.bias = bias ? bias->t.data : 0;
    systolic_f_gemm_dense(&sp, edge_in(c, 0)->t.data, sp.k, p->batch, edge_out(c, 0)->t.data, sp.n,
                          (float *)c->scratch);
    return EDGE_OK;
}

const edge_op_impl edge_op_fully_connected_f = {EDGE_BUILTIN_FULLY_CONNECTED, "FULLY_CONNECTED", prepare, eval, 0, 0, 0};
