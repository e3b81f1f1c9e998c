/* SPDX-License-Identifier: Apache-2.0 */
/*
 * leaky_relu.c — LEAKY_RELU (BuiltinOperator 98), option alpha.
 *
 * As activations.cc LeakyReluPrepare and reference_ops::QuantizeLeakyRelu:
 * two requantization multipliers, identity = in_scale / out_scale for
 * inputs at or above the zero point and alpha = in_scale * alpha /
 * out_scale below it, both computed in float and passed through
 * QuantizeMultiplier. A negative alpha multiplier is applied as LiteRT's
 * reference kernel does: negated, multiplied, and the result negated (so
 * halfway cases round differently from a signed multiply). int8, uint8,
 * int16 (zero points 0) and float32 (x > 0 ? x : x * alpha). A missing
 * options table means alpha 0, as TFLite's zero-initialised parameters.
 */
#include "../quant.h"
#include "relu.h"

enum { LEAKY_RELU_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_LEAKY_RELU_OPTIONS };
enum { OPT_ALPHA = EDGE_F_LEAKY_RELU_OPTIONS_ALPHA };

typedef struct leaky_relu_params {
    int32_t type;
    int32_t in_zp, out_zp;
    int32_t mult_identity, shift_identity;
    int32_t mult_alpha, shift_alpha; /* mult_alpha made non-negative */
    int32_t alpha_negative;
    float alpha;
} leaky_relu_params;

/* float_ok: the float twin's inner op (edge_op_leaky_relu_float); the int8 op
 * refuses float32 (edge_act_quant_read), so that an int8-only build links
 * no float code. */
static edge_status prepare_any(edge_op_ctx *c, int float_ok) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT_S16, "float32, int8, int16" EDGE_UINT8_NAME,
                                              &in, &out);
    if (st != EDGE_OK) return st;
    if (op->options_type != LEAKY_RELU_OPTIONS_TYPE && op->options_type != 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not LeakyReluOptions (type %u)",
                            (unsigned)op->options_type);
    const edge_type t = in->t.type;

    leaky_relu_params p;
    edge_memset(&p, 0, sizeof p);
    p.type = (int32_t)t;
    p.alpha = edge_opt_f32(c, OPT_ALPHA, 0.0f);
    if (t != EDGE_FLOAT32 || !float_ok) { /* the int8 op refuses float32 there */
        edge_act_quant q;
        const edge_status qs = edge_act_quant_read(c, in, out, &q);
        if (qs != EDGE_OK) return qs;
        const float in_s = q.in_s, out_s = q.out_s;
        p.in_zp = q.in_zp;
        p.out_zp = q.out_zp;
        /* Both ratios are float expressions in LeakyReluPrepare. */
        const float alpha_ratio = in_s * p.alpha / out_s;
        const float identity_ratio = in_s / out_s;
        if (!(alpha_ratio <= 3.0e38f && alpha_ratio >= -3.0e38f))
            return edge_op_fail(c, EDGE_ERR_MODEL, "input scale * alpha / output scale not finite");
        int sa, si;
        edge_quantize_multiplier((double)alpha_ratio, &p.mult_alpha, &sa);
        edge_quantize_multiplier((double)identity_ratio, &p.mult_identity, &si);
        if (sa > 30 || si > 30)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "requantization multiplier too large (alpha %d, identity %d)",
                                sa, si);
        p.shift_alpha = sa;
        if (p.mult_alpha < 0) {
            p.alpha_negative = 1;
            p.mult_alpha = (int32_t)(0u - (uint32_t)p.mult_alpha); /* INT32_MIN stays, as in C++ */
        }
        p.shift_identity = si;
    }
    if (!c->params) { /* the loader zeroed the other sizes */
        op->params_bytes = (uint32_t)sizeof(leaky_relu_params);
        return EDGE_OK;
    }
    edge_memcpy(c->params, &p, sizeof p);
    return EDGE_OK;
}

static int32_t requant(const leaky_relu_params *p, int32_t x, int32_t qmin, int32_t qmax) {
    const int32_t v = x - p->in_zp;
    int32_t y;
    if (v >= 0) {
        y = edge_mbqm_shared(v, p->mult_identity, p->shift_identity);
    } else {
        y = edge_mbqm_shared(v, p->mult_alpha, p->shift_alpha);
        if (p->alpha_negative) y = -y;
    }
    return edge_clamp_i32(p->out_zp + y, qmin, qmax);
}

static edge_status eval(edge_op_ctx *c) {
    const leaky_relu_params *p = (const leaky_relu_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    void *out = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: {
        const int8_t *x = (const int8_t *)in->data;
        int8_t *y = (int8_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (int8_t)requant(p, x[i], -128, 127);
        break;
    }
#if EDGE_WITH_UINT8
    case EDGE_UINT8: {
        const uint8_t *x = (const uint8_t *)in->data;
        uint8_t *y = (uint8_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (uint8_t)requant(p, x[i], 0, 255);
        break;
    }
#endif
    default: {
        const int16_t *x = (const int16_t *)in->data;
        int16_t *y = (int16_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (int16_t)requant(p, x[i], -32768, 32767);
        break;
    }
    }
    return EDGE_OK;
}

static edge_status eval_f(edge_op_ctx *c) {
    const leaky_relu_params *p = (const leaky_relu_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    const float *x = (const float *)in->data;
    float *y = (float *)edge_out_data(c, 0);
    for (size_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : x[i] * p->alpha;
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) { return prepare_any(c, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return prepare_any(c, 1); }

const edge_op_impl edge_op_leaky_relu = {EDGE_BUILTIN_LEAKY_RELU, "LEAKY_RELU", prepare, eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_leaky_relu_float = {EDGE_BUILTIN_LEAKY_RELU, "LEAKY_RELU", prepare_f, eval_f, 0, 0, 0};
