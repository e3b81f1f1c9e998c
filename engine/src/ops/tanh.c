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
    if (op->n_in != 1 || op->n_out != 1)
        return edge_op_fail(c, EDGE_ERR_MODEL, "expects 1 input and 1 output, has %u and %u",
                            op->n_in, op->n_out);
    edge_tensor_rt *in = edge_in(c, 0), *out = edge_out(c, 0);
    if (!in || !out) return edge_op_fail(c, EDGE_ERR_MODEL, "input or output missing");
    const edge_type t = in->t.type;
    if (out->t.type != t)
        return edge_op_fail(c, EDGE_ERR_MODEL, "input is %s but output is %s", edge_type_name(t),
                            edge_type_name(out->t.type));
    if (t != EDGE_FLOAT32 && t != EDGE_INT8 && t != EDGE_UINT8)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (float32, int8, uint8)",
                            edge_type_name(t));
    if (!edge_same_shape(&in->t, &out->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the input's");
    if (t != EDGE_FLOAT32) {
        if (in->q_count < 1 || out->q_count < 1)
            return edge_op_fail(c, EDGE_ERR_MODEL, "%s input and output must be quantized",
                                edge_type_name(t));
        if (!(edge_q_scale(out, 0) > 0.0f))
            return edge_op_fail(c, EDGE_ERR_MODEL, "output scale must be positive");
    }
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

const edge_op_impl edge_op_tanh = {28, "TANH", prepare, eval, 0};
