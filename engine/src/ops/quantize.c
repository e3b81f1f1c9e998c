/* SPDX-License-Identifier: Apache-2.0 */
/*
 * quantize.c — QUANTIZE (BuiltinOperator 114).
 *
 * Two jobs, as TFLite's quantize.cc with the reference kernels:
 *  - float32 -> int8 / uint8 / int16 (AffineQuantize, or PerChannelQuantize
 *    when the output has per-channel parameters): q = round(x / scale) + zp,
 *    the division in float, round half away from zero, then clamped to the
 *    type's range.
 *  - requantization (Requantize): int8 / uint8 -> int8 / uint8, int16 ->
 *    int8 / int16, int32 -> int8 / int16:
 *    q = MultiplyByQuantizedMultiplier(x - in_zp, m, s) + out_zp, clamped,
 *    with (m, s) = QuantizeMultiplier(double(in_scale) / double(out_scale)).
 *    (The reference's int8 <-> uint8 XOR fast path gives the same bytes.)
 */
#include "../quant.h"
#include "op_common.h"

enum { QUANTIZE_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_QUANTIZE_OPTIONS };

typedef struct quantize_params {
    edge_channel_layout lay; /* of the output: each channel its scale and zero point */
    int32_t in_type, out_type;
    int32_t in_zp, mult, shift;
    int32_t qmin, qmax;
} quantize_params;

static int32_t type_min(edge_type t) {
    return t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : (t == EDGE_INT16 ? -32768 : INT32_MIN));
}
static int32_t type_max(edge_type t) {
    return t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : (t == EDGE_INT16 ? 32767 : INT32_MAX));
}

static const edge_op_form form = {1, 1, 0, 0, QUANTIZE_OPTIONS_TYPE, 0, "QuantizeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type it = in->t.type, ot = out->t.type;
    int ok;
    if (it == EDGE_FLOAT32) ok = ot == EDGE_INT8 || ot == EDGE_UINT8 || ot == EDGE_INT16;
    else if (it == EDGE_INT8 || it == EDGE_UINT8) ok = ot == EDGE_INT8 || ot == EDGE_UINT8;
    else if (it == EDGE_INT16 || it == EDGE_INT32) ok = ot == EDGE_INT8 || ot == EDGE_INT16;
    else ok = 0;
    if (!ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "%s -> %s not supported (float32 -> int8/uint8/int16, int8/uint8 -> "
                            "int8/uint8, int16/int32 -> int8/int16)",
                            edge_type_name(it), edge_type_name(ot));
    const edge_status sc = edge_op_check_count(c, in, out);
    if (sc) return sc;
    if (out->q_count < 1) return edge_op_fail(c, EDGE_ERR_MODEL, "output must be quantized");

    quantize_params p;
    edge_memset(&p, 0, sizeof p);
    p.in_type = (int32_t)it;
    p.out_type = (int32_t)ot;
    p.qmin = type_min(ot);
    p.qmax = type_max(ot);
    edge_op_channels(out, &p.lay); /* numel(out) == numel(in), checked above */

    if (it == EDGE_FLOAT32) {
        /* Per-channel: the loader checked dims[q_dim] == q_count. */
        if (out->q_count > 1 && !edge_same_shape(&in->t, &out->t))
            return edge_op_fail(c, EDGE_ERR_SHAPE, "per-channel output must have the input's shape");
    } else {
        if (out->q_count > 1)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "per-channel requantization");
        if (in->q_count < 1) return edge_op_fail(c, EDGE_ERR_MODEL, "%s input must be quantized",
                                                 edge_type_name(it));
        int shift;
        const edge_status rq = edge_op_requant(c, in, out, &p.mult, &shift);
        if (rq) return rq;
        p.shift = shift;
        p.in_zp = edge_q_zero(in, 0);
        const int32_t out_zp = edge_q_zero(out, 0);
        if (it == EDGE_INT16 && ot == EDGE_INT16 && (p.in_zp != 0 || out_zp != 0))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 -> int16 needs zero points 0 (have %d, %d)",
                                p.in_zp, out_zp);
    }

    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

/* AffineQuantize's arithmetic: the float quotient rounded half away from
 * zero, plus the zero point, clamped (in double in the reference, exact
 * here in int64 as the rounded quotient is integral and below 2^31 in
 * magnitude once the ends are taken). NaN gives 0. */
static int32_t quantize_one(float x, float scale, int32_t zp, int32_t qmin, int32_t qmax) {
    const float r = edge_roundf(x / scale);
    if (r != r) return 0;
    if (r <= -2147483648.0f) return qmin;
    if (r >= 2147483648.0f) return qmax;
    const int64_t v = (int64_t)(int32_t)r + zp;
    return v < qmin ? qmin : (v > qmax ? qmax : (int32_t)v);
}

static int32_t load(int32_t type, const void *in, int32_t i) {
    if (type == EDGE_INT8) return ((const int8_t *)in)[i];
    if (type == EDGE_UINT8) return ((const uint8_t *)in)[i];
    if (type == EDGE_INT16) return ((const int16_t *)in)[i];
    return ((const int32_t *)in)[i];
}

static edge_status eval(edge_op_ctx *c) {
    const quantize_params *p = (const quantize_params *)c->params;
    const edge_tensor_rt *out_t = edge_out(c, 0);
    const void *in = edge_in_data(c, 0);
    void *out = out_t->t.data;
    int32_t i = 0;
    for (int32_t o = 0; o < p->lay.outer; o++)
        for (int32_t ch = 0; ch < p->lay.channels; ch++) {
            const float s = edge_q_scale(out_t, (uint32_t)ch);
            const int32_t zp = edge_q_zero(out_t, (uint32_t)ch);
            for (int32_t k = 0; k < p->lay.inner; k++, i++) {
                int32_t v;
                if (p->in_type == EDGE_FLOAT32) {
                    v = quantize_one(((const float *)in)[i], s, zp, p->qmin, p->qmax);
                } else {
                    const int32_t d = (int32_t)((uint32_t)load(p->in_type, in, i) - (uint32_t)p->in_zp);
                    v = edge_clamp_i32(edge_mbqm_shared(d, p->mult, p->shift) + zp, p->qmin, p->qmax);
                }
                if (p->out_type == EDGE_INT8) ((int8_t *)out)[i] = (int8_t)v;
                else if (p->out_type == EDGE_UINT8) ((uint8_t *)out)[i] = (uint8_t)v;
                else ((int16_t *)out)[i] = (int16_t)v;
            }
        }
    return EDGE_OK;
}

const edge_op_impl edge_op_quantize = {EDGE_BUILTIN_QUANTIZE, "QUANTIZE", prepare, eval, 0, 0, 0};
