/*
 * logistic.c — LOGISTIC (BuiltinOperator 14): 1 / (1 + exp(-x)).
 *
 * int8 and uint8 as TFLite's reference registration runs them
 * (activations.cc SigmoidPrepare/SigmoidEval with kReference): a 256-entry
 * table filled at prepare from the float function, see kernels/act_lut.h.
 * The output scale must be exactly 1/256 (SigmoidPrepare's check); the
 * output zero point is not checked there (-128 for int8 and 0 for uint8 is
 * what converters write) and is honoured as given. float32 as
 * reference_ops::Logistic: 1 above 16.619047, exp(x) below -9.
 */
#include "../kernels/act_lut.h"
#include "ops.h"

typedef struct logistic_params {
    int32_t type;
    uint8_t lut[256];
} logistic_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT, "float32, int8, uint8", &in, &out);
    if (st != EDGE_OK) return st;
    const edge_type t = in->t.type;
    float in_s = 0.0f, out_s = 0.0f;
    if (t != EDGE_FLOAT32) {
        in_s = edge_q_scale(in, 0);
        out_s = edge_q_scale(out, 0);
        if (out_s != 0.00390625f)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "%s output scale must be exactly 1/256", edge_type_name(t));
    }
    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(logistic_params);
        op->scratch_bytes = 0;
        op->macs = 0;
        op->systolic = 0;
        op->array_cycles = 0;
        return EDGE_OK;
    }
    logistic_params *p = (logistic_params *)c->params;
    p->type = (int32_t)t;
    if (t != EDGE_FLOAT32)
        edge_lut8_populate(EDGE_LUT_LOGISTIC, t == EDGE_INT8, in_s, edge_q_zero(in, 0), out_s,
                           edge_q_zero(out, 0), p->lut);
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const logistic_params *p = (const logistic_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    void *out = edge_out_data(c, 0);
    if (p->type != EDGE_FLOAT32) {
        edge_lut8_apply(p->lut, (const uint8_t *)in->data, (uint8_t *)out, n);
        return EDGE_OK;
    }
    const float *x = (const float *)in->data;
    float *y = (float *)out;
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        if (v > 16.619047164916992188f) y[i] = 1.0f;
        else if (v < -9.0f) y[i] = edge_expf(v);
        else y[i] = edge_logistic_f32(v);
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_logistic = {14, "LOGISTIC", prepare, eval, 0, 0};
