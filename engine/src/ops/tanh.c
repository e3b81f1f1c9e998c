/*
 * tanh.c — TANH (BuiltinOperator 28).
 *
 * int8 and uint8 as TFLite's reference registration runs them
 * (activations.cc TanhPrepare/TanhEval with kReference): a 256-entry table
 * filled at prepare from float tanh, see kernels/act_lut.h. TanhPrepare
 * checks no output parameters on this path (converters write scale 1/128,
 * zero point 0 for int8 and 128 for uint8); any are honoured. float32 as
 * reference_ops::Tanh (std::tanh per element).
 */
#include "../kernels/act_lut.h"
#include "ops.h"

typedef struct tanh_params {
    int32_t type;
    uint8_t lut[256];
} tanh_params;

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT, "float32, int8, uint8", &in, &out);
    if (st != EDGE_OK) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_FLOAT32 && !(edge_q_scale(out, 0) > 0.0f))
        return edge_op_fail(c, EDGE_ERR_MODEL, "output scale must be positive");
    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(tanh_params);
        op->scratch_bytes = 0;
        op->macs = 0;
        op->systolic = 0;
        op->array_cycles = 0;
        return EDGE_OK;
    }
    tanh_params *p = (tanh_params *)c->params;
    p->type = (int32_t)t;
    if (t != EDGE_FLOAT32)
        edge_lut8_populate(EDGE_LUT_TANH, t == EDGE_INT8, edge_q_scale(in, 0), edge_q_zero(in, 0),
                           edge_q_scale(out, 0), edge_q_zero(out, 0), p->lut);
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const tanh_params *p = (const tanh_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    void *out = edge_out_data(c, 0);
    if (p->type != EDGE_FLOAT32) {
        edge_lut8_apply(p->lut, (const uint8_t *)in->data, (uint8_t *)out, n);
        return EDGE_OK;
    }
    const float *x = (const float *)in->data;
    float *y = (float *)out;
    for (size_t i = 0; i < n; i++) y[i] = edge_tanhf(x[i]);
    return EDGE_OK;
}

const edge_op_impl edge_op_tanh = {28, "TANH", prepare, eval, 0, 0};
