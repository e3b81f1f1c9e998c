/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hard_swish.c — HARD_SWISH (BuiltinOperator 117): x * relu6(x + 3) / 6.
 *
 * int8 / uint8 as reference_ops::HardSwish with the HardSwishParams that
 * activations.cc HardSwishPrepare computes: the input is moved to a
 * "hi-res" scale (in_scale / 128, a left shift by 7 in int16), one int16
 * fixed-point multiplier takes it to the output scale, another to the
 * "relu-ish" scale where 3.0 is 32768; both multipliers are float ratios
 * through QuantizeMultiplier, rounded from 32 to 16 bits. The final product
 * uses a truncating (not rounding) doubling high multiply, as TFLite does to
 * cancel the bias of the earlier roundings. float32 as the reference
 * kernel: x * min(6, max(0, x + 3)) / 6.
 */
#include "../kernels/fixedpoint.h"
#include "../quant.h"
#include "relu.h"

typedef struct hard_swish_params {
    int32_t type;
    int32_t in_zp, out_zp;
    int32_t reluish_exponent, output_exponent;
    int16_t reluish_mult, output_mult;
} hard_swish_params;

/* DownScaleInt32ToInt16Multiplier: round a Q31 multiplier to Q15. */
static int16_t downscale_multiplier(int32_t m) {
    const int32_t rounding = 1 << 15;
    if (m >= INT32_MAX - rounding) return INT16_MAX;
    return (int16_t)((m + rounding) >> 16);
}

/* float_ok: the float twin's inner op (edge_op_hard_swish_float); the int8 op
 * refuses float32 (edge_act_quant_read), so that an int8-only build links
 * no float code. */
static edge_status prepare_any(edge_op_ctx *c, int float_ok) {
    edge_op_rt *op = c->op;
    edge_tensor_rt *in, *out;
    const edge_status st = edge_unary_prepare(c, EDGE_TYPES_F32_8BIT, "float32, int8" EDGE_UINT8_NAME, &in, &out);
    if (st != EDGE_OK) return st;
    const edge_type t = in->t.type;

    hard_swish_params p;
    edge_memset(&p, 0, sizeof p);
    p.type = (int32_t)t;
    if (t != EDGE_FLOAT32 || !float_ok) { /* the int8 op refuses float32 there */
        edge_act_quant q;
        const edge_status qs = edge_act_quant_read(c, in, out, &q);
        if (qs != EDGE_OK) return qs;
        const float in_s = q.in_s, out_s = q.out_s;
        p.in_zp = q.in_zp;
        p.out_zp = q.out_zp;
        /* All float, as HardSwishPrepare. */
        const float hires_in_s = (1.0f / 128.0f) * in_s;
        const float reluish_s = 3.0f / 32768.0f;
        const float output_ratio = hires_in_s / out_s;
        const float reluish_ratio = hires_in_s / reluish_s;
        int32_t m32;
        int e;
        edge_quantize_multiplier((double)output_ratio, &m32, &e);
        if (e > 0)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "output scale too small for the input scale: in_scale / (128 "
                                "out_scale) must be below 1");
        if (e < -31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "output multiplier out of range");
        p.output_mult = downscale_multiplier(m32);
        p.output_exponent = e;
        edge_quantize_multiplier((double)reluish_ratio, &m32, &e);
        if (e > 30 || e < -31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "relu-ish multiplier out of range (shift %d)", e);
        p.reluish_mult = downscale_multiplier(m32);
        p.reluish_exponent = e;
    }
    if (!c->params) { /* the loader zeroed the other sizes */
        op->params_bytes = (uint32_t)sizeof(hard_swish_params);
        return EDGE_OK;
    }
    edge_memcpy(c->params, &p, sizeof p);
    return EDGE_OK;
}

/* The low 16 bits as a signed value, as an int16 assignment keeps them. */
static int16_t wrap16(int32_t v) {
    const int32_t low = v & 0xffff;
    return (int16_t)(low >= 0x8000 ? low - 0x10000 : low);
}

/* A shift by 16 saturates every nonzero int16 already, so the amount is
 * capped there and the product stays in int32 (no 64-bit math). */
static int16_t saturating_left_shift16(int16_t v, int amount) {
    const int32_t r = (int32_t)v * ((int32_t)1 << (amount < 16 ? amount : 16));
    return (int16_t)edge_clamp_i32(r, INT16_MIN, INT16_MAX);
}

/* SQDMULH: the doubling high half, truncated toward zero. */
static int16_t saturating_doubling_high_mul16(int16_t a, int16_t b) {
    if (a == b && a == INT16_MIN) return INT16_MAX;
    const int32_t ab = (int32_t)a * (int32_t)b;
    return (int16_t)(ab / (1 << 15));
}

static int32_t hard_swish_q(const hard_swish_params *p, int32_t x, int32_t qmin, int32_t qmax) {
    /* int16 arithmetic as in the reference; for 8-bit inputs x - zp and its
     * product by 128 fit. */
    const int16_t v = (int16_t)(x - p->in_zp);
    const int16_t hires = (int16_t)(v * 128);
    const int16_t preshift_out = edge_fp_srdhm16(hires, p->output_mult);
    int16_t reluish = hires;
    if (p->reluish_exponent > 0) reluish = saturating_left_shift16(reluish, p->reluish_exponent - 1);
    reluish = edge_fp_srdhm16(reluish, p->reluish_mult);
    if (p->reluish_exponent > 0) reluish = saturating_left_shift16(reluish, 1);
    if (p->reluish_exponent < 0) reluish = edge_fp_rdbpot16(reluish, -p->reluish_exponent);
    /* [-1, 1] to [0, 1] */
    reluish = (int16_t)((reluish + (1 << 15)) >> 1);
    const int16_t preshift = saturating_doubling_high_mul16(reluish, preshift_out);
    int16_t o = edge_fp_rdbpot16(preshift, -p->output_exponent);
    o = wrap16(o + p->out_zp); /* int16 += zp */
    return edge_clamp_i32(o, qmin, qmax);
}

static edge_status eval(edge_op_ctx *c) {
    const hard_swish_params *p = (const hard_swish_params *)c->params;
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    void *out = edge_out_data(c, 0);
#if EDGE_WITH_UINT8
    if (p->type == EDGE_UINT8) {
        const uint8_t *x = (const uint8_t *)in->data;
        uint8_t *y = (uint8_t *)out;
        for (size_t i = 0; i < n; i++) y[i] = (uint8_t)hard_swish_q(p, x[i], 0, 255);
        return EDGE_OK;
    }
#endif
    const int8_t *x = (const int8_t *)in->data;
    int8_t *y = (int8_t *)out;
    for (size_t i = 0; i < n; i++) y[i] = (int8_t)hard_swish_q(p, x[i], -128, 127);
    return EDGE_OK;
}

static edge_status eval_f(edge_op_ctx *c) {
    const edge_tensor *in = &edge_in(c, 0)->t;
    const size_t n = (size_t)edge_numel(in);
    const float *x = (const float *)in->data;
    float *y = (float *)edge_out_data(c, 0);
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        const float s = v + 3.0f;
        const float lo = 0.0f < s ? s : 0.0f; /* std::max(0, v + 3) */
        const float r = 6.0f < lo ? 6.0f : lo; /* std::min(6, .) */
        const float prod = v * r;
        y[i] = prod / 6.0f;
    }
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) { return prepare_any(c, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return prepare_any(c, 1); }

const edge_op_impl edge_op_hard_swish = {EDGE_BUILTIN_HARD_SWISH, "HARD_SWISH", prepare, eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_hard_swish_float = {EDGE_BUILTIN_HARD_SWISH, "HARD_SWISH", prepare_f, eval_f, 0, 0, 0};
