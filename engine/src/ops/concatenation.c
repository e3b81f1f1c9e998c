/* SPDX-License-Identifier: Apache-2.0 */
/*
 * concatenation.c — CONCATENATION (BuiltinOperator 2).
 *
 * Joins up to EDGE_MAX_OP_IO - 1 inputs along one axis (a negative axis
 * counts from the end of input 0's rank, as TFLite reads it). Every element
 * type is copied byte for byte, except quantized 8-bit inputs whose scale or
 * zero point differ from the output's: those are requantized the way
 * TFLite's reference ConcatenationWithScaling does it for uint8, in float:
 *   q_out = clamp(round_half_away(q_in * s + b) + zp_out),
 *   s = scale_in * (1 / scale_out), b = -zp_in * s, all float32.
 * TFLite itself refuses int8 inputs whose parameters differ from the output's;
 * the engine runs them with the same rule and the int8 range instead.
 * The fused activation must be NONE, as in TFLite (it rejects the others).
 */
#include "../quant.h"
#include "op_common.h"

enum { CONCAT_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_CONCATENATION_OPTIONS };
enum { OPT_AXIS = EDGE_F_CONCATENATION_OPTIONS_AXIS, OPT_ACTIVATION = EDGE_F_CONCATENATION_OPTIONS_FUSED_ACTIVATION_FUNCTION };

typedef struct concat_input {
    uint32_t chunk;  /* elements copied per outer step: dims[axis] * inner */
    uint32_t rescale;
    float scale, bias;
} concat_input;

typedef struct concat_params {
    uint32_t outer;  /* product of the dimensions before the axis */
    uint32_t elem_size;
    uint32_t n;
    uint32_t is_signed;
    int32_t out_zp;
    concat_input in[]; /* n entries (the block is sized for them) */
} concat_params;

static uint32_t params_size(uint32_t n) {
    return (uint32_t)(sizeof(concat_params) + n * sizeof(concat_input));
}

static const edge_op_form form = {1, EDGE_MAX_OP_IO - 1, 0, 0, CONCAT_OPTIONS_TYPE, 0,
                                   "ConcatenationOptions"};

static edge_status prepare(edge_op_ctx *c) {
    const uint32_t n = c->op->n_in;
    edge_tensor_rt *in0, *out;
    const edge_status st = edge_op_begin(c, &form, &in0, &out);
    if (st) return st;
    const int act = edge_opt_u8(c, OPT_ACTIVATION, 0);
    if (act != EDGE_ACT_NONE)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "fused activation %d (TFLite's CONCATENATION supports only NONE)", act);

    const edge_type type = out->t.type;
    const uint32_t elem = (uint32_t)edge_type_size(type);
    if (elem == 0)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "element type %s not supported",
                            edge_type_name(type));
    const int32_t rank = in0->t.rank;
    if (rank < 1)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "concatenating scalars is not supported");
    const int32_t axis_opt = edge_opt_i32(c, OPT_AXIS, 0);
    const int32_t axis = axis_opt < 0 ? axis_opt + rank : axis_opt;
    if (axis < 0 || axis >= rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside the inputs' %d dimensions",
                            axis_opt, rank);
    if (out->t.rank != rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D but the inputs are %d-D", out->t.rank,
                            rank);

    int64_t sum_axis = 0;
    for (uint32_t i = 0; i < n; i++) {
        const edge_tensor_rt *t = edge_in(c, i);
        if (!t) return edge_op_fail(c, EDGE_ERR_MODEL, "input %u missing", i);
        if (t->t.type != type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "input %u is %s but the output is %s", i,
                                edge_type_name(t->t.type), edge_type_name(type));
        if (t->t.rank != rank)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "input %u is %d-D, input 0 is %d-D", i, t->t.rank,
                                rank);
        for (int32_t d = 0; d < rank; d++) {
            if (d != axis && t->t.dims[d] != out->t.dims[d])
                return edge_op_fail(c, EDGE_ERR_SHAPE,
                                    "input %u has %d in dimension %d, the output has %d", i,
                                    t->t.dims[d], d, out->t.dims[d]);
        }
        sum_axis += t->t.dims[axis];
    }
    if (sum_axis != out->t.dims[axis])
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "inputs add up to %ld along axis %d but the output has %d",
                            (long)sum_axis, axis, out->t.dims[axis]);

    const int quantized8 = type == EDGE_INT8 || type == EDGE_UINT8;
    const float out_scale = edge_q_scale(out, 0);
    const int32_t out_zp = edge_q_zero(out, 0);
    if (!c->params) {
        c->op->params_bytes = params_size(n);
        for (uint32_t i = 0; quantized8 && i < n; i++) {
            const edge_tensor_rt *t = edge_in(c, i);
            const float s = edge_q_scale(t, 0);
            const int32_t zp = edge_q_zero(t, 0);
            if (s == out_scale && zp == out_zp) continue;
            /* Rescaled: both scales must be usable numbers. */
            if (!(out_scale > 0.0f && out_scale < 3.0e38f && s > 0.0f && s < 3.0e38f))
                return edge_op_fail(c, EDGE_ERR_MODEL,
                                    "input %u must be requantized to the output but its scale or "
                                    "the output's is not a positive number",
                                    i);
            /* The ratio as eval uses it (s * (1 / out_scale), in float):
             * a denormal output scale makes 1 / out_scale inf, and the
             * bias -zp * inf NaN. */
            const float ratio = s * (1.0f / out_scale);
            if (!(ratio <= 1.0e9f))
                return edge_op_fail(c, EDGE_ERR_MODEL,
                                    "input %u scale / output scale too large to requantize", i);
            const int32_t lo = type == EDGE_INT8 ? -128 : 0, hi = type == EDGE_INT8 ? 127 : 255;
            if (zp < lo || zp > hi || out_zp < lo || out_zp > hi)
                return edge_op_fail(c, EDGE_ERR_MODEL, "zero point outside the %s range",
                                    edge_type_name(type));
        }
        return EDGE_OK;
    }

    concat_params *p = (concat_params *)c->params;
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < axis; d++) outer *= out->t.dims[d];
    for (int32_t d = axis + 1; d < rank; d++) inner *= out->t.dims[d];
    p->outer = (uint32_t)outer;
    p->elem_size = elem;
    p->n = n;
    p->is_signed = type == EDGE_INT8;
    p->out_zp = out_zp;
    /* TFLite's float arithmetic, step by step (no fused multiply-add). */
    const float inv_out = quantized8 && out_scale > 0.0f ? 1.0f / out_scale : 0.0f;
    for (uint32_t i = 0; i < n; i++) {
        const edge_tensor_rt *t = edge_in(c, i);
        concat_input *ci = &p->in[i];
        ci->chunk = (uint32_t)((int64_t)t->t.dims[axis] * inner);
        const float s = edge_q_scale(t, 0);
        const int32_t zp = edge_q_zero(t, 0);
        ci->rescale = quantized8 && !(s == out_scale && zp == out_zp);
        if (ci->rescale) {
            const float scale = s * inv_out;
            const float bias = (float)(-zp) * scale;
            ci->scale = scale;
            ci->bias = bias;
        }
    }
    return EDGE_OK;
}

/* One input chunk of `count` 8-bit values, requantized. */
static void rescale_chunk(const concat_params *p, const concat_input *ci, const uint8_t *src,
                          uint8_t *dst, uint32_t count) {
    const int32_t lo = p->is_signed ? -128 : 0, hi = p->is_signed ? 127 : 255;
    for (uint32_t j = 0; j < count; j++) {
        const int32_t q = p->is_signed ? (int32_t)(int8_t)src[j] : (int32_t)src[j];
        const float prod = (float)q * ci->scale;
        const float sum = prod + ci->bias;
        float r = edge_roundf(sum);
        /* Keep the conversion defined; the clamp below decides anyway. */
        if (r > 1.0e9f) r = 1.0e9f;
        if (r < -1.0e9f) r = -1.0e9f;
        const int32_t v = edge_clamp_i32((int32_t)r + p->out_zp, lo, hi);
        dst[j] = p->is_signed ? (uint8_t)(int8_t)v : (uint8_t)v;
    }
}

static edge_status eval(edge_op_ctx *c) {
    const concat_params *p = (const concat_params *)c->params;
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const size_t es = p->elem_size;
    for (uint32_t k = 0; k < p->outer; k++) {
        for (uint32_t i = 0; i < p->n; i++) {
            const concat_input *ci = &p->in[i];
            const uint8_t *src = (const uint8_t *)edge_in_data(c, i) + (size_t)k * ci->chunk * es;
            if (ci->rescale) rescale_chunk(p, ci, src, dst, ci->chunk);
            else edge_memcpy(dst, src, (size_t)ci->chunk * es);
            dst += (size_t)ci->chunk * es;
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_concatenation = {EDGE_BUILTIN_CONCATENATION, "CONCATENATION", prepare, eval, 0, 0, 0};
