/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lut_activation.c — the shared body of LOGISTIC (logistic.c) and TANH
 * (tanh.c); see those files for the TFLite behaviour each follows.
 */
#include "lut_activation.h"

typedef struct lut_act_params {
    int32_t type;
    int32_t fn; /* edge_lut_fn */
    uint8_t lut[256];
} lut_act_params;

edge_status edge_lut_act_prepare(edge_op_ctx *c, edge_lut_fn fn, int float_ok) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT, "float32, int8" EDGE_UINT8_NAME, &in, &out);
    if (st != EDGE_OK) return st;
    const edge_type t = in->t.type;
    if (t == EDGE_FLOAT32 && !float_ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on the op's float twin, which this build leaves out");
    const float out_s = t == EDGE_FLOAT32 ? 0.0f : edge_q_scale(out, 0);
    if (t != EDGE_FLOAT32) {
        if (fn == EDGE_LUT_LOGISTIC && out_s != 0.00390625f)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "%s output scale must be exactly 1/256",
                                edge_type_name(t));
        if (!(out_s > 0.0f)) return edge_op_fail(c, EDGE_ERR_MODEL, "output scale must be positive");
        /* The table scales values in [-1, 1] by 1 / out_s (act_lut.c) and
         * converts the rounded result to int32: 1 / out_s must be finite
         * (a denormal scale gives inf, and 0 * inf NaN) and far from 2^31. */
        const float inverse = 1.0f / out_s;
        if (!(inverse <= 1.0e9f))
            return edge_op_fail(c, EDGE_ERR_MODEL, "output scale too small: 1 / scale must stay below 1e9");
    }
    lut_act_params *p = (lut_act_params *)c->params;
    if (!p) {
        c->op->params_bytes = (uint32_t)sizeof(lut_act_params);
        return EDGE_OK;
    }
    p->type = (int32_t)t;
    p->fn = (int32_t)fn;
    if (t != EDGE_FLOAT32)
        edge_lut8_populate(fn, t == EDGE_INT8, edge_q_scale(in, 0), edge_q_zero(in, 0), out_s,
                           edge_q_zero(out, 0), p->lut);
    return EDGE_OK;
}

edge_status edge_lut_act_eval(edge_op_ctx *c) {
    const lut_act_params *p = (const lut_act_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    edge_lut8_apply(p->lut, (const uint8_t *)in->data, (uint8_t *)edge_out_data(c, 0),
                    (size_t)edge_numel(in));
    return EDGE_OK;
}

edge_status edge_lut_act_eval_f(edge_op_ctx *c) {
    const lut_act_params *p = (const lut_act_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    const float *x = (const float *)in->data;
    float *y = (float *)edge_out_data(c, 0);
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        if (p->fn == EDGE_LUT_TANH) y[i] = edge_tanhf(v);
        else if (v > 16.619047164916992188f) y[i] = 1.0f; /* reference_ops::Logistic's cut-offs */
        else if (v < -9.0f) y[i] = edge_expf(v);
        else y[i] = edge_logistic_f32(v);
    }
    return EDGE_OK;
}
