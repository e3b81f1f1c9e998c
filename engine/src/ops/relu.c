/* SPDX-License-Identifier: Apache-2.0 */
/*
 * relu.c — RELU (BuiltinOperator 19), and the shared body of RELU6 (relu6.c).
 *
 * As activations.cc ReluPrepare / ReluEval (the same registration under the
 * reference resolver): quantized types are requantized from the input to
 * the output scale with QuantizeMultiplier(in_scale / out_scale) (the
 * ratio taken in float), then clamped below at the output zero point
 * (QuantizedReluX with act_min 0, no upper bound). int8, uint8, int16
 * (symmetric, zero points 0) and float32.
 */
#include "../quant.h"
#include "relu.h"

typedef struct relu_params {
    int32_t type;
    int32_t in_zp, out_zp;
    int32_t mult, shift;
    int32_t act_min, act_max;
    int32_t capped_at_6; /* RELU6 */
} relu_params;

edge_status edge_relu_prepare(edge_op_ctx *c, int capped_at_6, int float_ok) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT_S16, "float32, int8, int16" EDGE_UINT8_NAME,
                                              &in, &out);
    if (st != EDGE_OK) return st;
    const edge_type t = in->t.type;

    relu_params p;
    edge_memset(&p, 0, sizeof p);
    p.type = (int32_t)t;
    p.capped_at_6 = capped_at_6;
    if (t != EDGE_FLOAT32 || !float_ok) { /* the int8 op refuses float32 there */
        edge_act_quant q;
        const edge_status qs = edge_act_quant_read(c, in, out, &q);
        if (qs != EDGE_OK) return qs;
        const float in_s = q.in_s, out_s = q.out_s;
        p.in_zp = q.in_zp;
        p.out_zp = q.out_zp;
        int shift;
        edge_quantize_multiplier((double)(in_s / out_s), &p.mult, &shift);
        if (shift > 30)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input/output scale ratio too large");
        p.shift = shift;
        const int32_t qmin = t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : -32768);
        const int32_t qmax = t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : 32767);
        /* zp + round(bound / scale), as QuantizedReluX writes it. */
        const int32_t lo = p.out_zp + (int32_t)edge_roundf(0.0f / out_s);
        p.act_min = lo > qmin ? lo : qmin;
        p.act_max = qmax;
        if (capped_at_6) {
            const int32_t hi = p.out_zp + (int32_t)edge_roundf(6.0f / out_s);
            p.act_max = hi < qmax ? hi : qmax;
        }
    }
    if (!c->params) { /* the loader zeroed the other sizes */
        op->params_bytes = (uint32_t)sizeof(relu_params);
        return EDGE_OK;
    }
    edge_memcpy(c->params, &p, sizeof p);
    return EDGE_OK;
}

edge_status edge_act_quant_read(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                                edge_act_quant *q) {
    if (in->t.type == EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on the op's float twin, which this build leaves out");
    q->in_s = edge_q_scale(in, 0);
    q->out_s = edge_q_scale(out, 0);
    if (!(q->in_s > 0.0f) || !(q->out_s > 0.0f))
        return edge_op_fail(c, EDGE_ERR_MODEL, "scales must be positive");
    /* The ops take in_s / out_s in float: an infinite ratio would give a
     * zero multiplier (a silently wrong op), so refuse it here. */
    const float ratio = q->in_s / q->out_s;
    if (!(ratio <= 3.0e38f))
        return edge_op_fail(c, EDGE_ERR_MODEL, "input scale / output scale not finite");
    q->in_zp = edge_q_zero(in, 0);
    q->out_zp = edge_q_zero(out, 0);
    if (in->t.type == EDGE_INT16 && (q->in_zp != 0 || q->out_zp != 0))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 needs zero points 0 (have %d, %d)", q->in_zp,
                            q->out_zp);
    return EDGE_OK;
}

static int32_t requant(const relu_params *p, int32_t x) {
    const int32_t v = p->out_zp + edge_mbqm_shared(x - p->in_zp, p->mult, p->shift);
    return edge_clamp_i32(v, p->act_min, p->act_max);
}

edge_status edge_relu_eval(edge_op_ctx *c) {
    const relu_params *p = (const relu_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    void *out = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: {
        const int8_t *x = (const int8_t *)in->data;
        int8_t *y = (int8_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (int8_t)requant(p, x[i]);
        break;
    }
#if EDGE_WITH_UINT8
    case EDGE_UINT8: {
        const uint8_t *x = (const uint8_t *)in->data;
        uint8_t *y = (uint8_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (uint8_t)requant(p, x[i]);
        break;
    }
#endif
    default: {
        const int16_t *x = (const int16_t *)in->data;
        int16_t *y = (int16_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (int16_t)requant(p, x[i]);
        break;
    }
    }
    return EDGE_OK;
}

edge_status edge_relu_eval_f(edge_op_ctx *c) {
    const relu_params *p = (const relu_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    const float *x = (const float *)in->data;
    float *y = (float *)edge_out_data(c, 0);
    /* The oracle build runs float RELU/RELU6 through XNNPACK's clamp, which
     * keeps -0 and NaN (activations.cc's own loop would make them +0). */
    if (p->capped_at_6) {
        for (size_t i = 0; i < n; i++) {
            const float v = x[i] < 0.0f ? 0.0f : x[i];
            y[i] = 6.0f < v ? 6.0f : v;
        }
    } else {
        for (size_t i = 0; i < n; i++) y[i] = x[i] < 0.0f ? 0.0f : x[i];
    }
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) { return edge_relu_prepare(c, 0, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_relu_prepare(c, 0, 1); }

const edge_op_impl edge_op_relu = {EDGE_BUILTIN_RELU, "RELU", prepare, edge_relu_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_relu_float = {EDGE_BUILTIN_RELU, "RELU", prepare_f, edge_relu_eval_f, 0, 0, 0};
