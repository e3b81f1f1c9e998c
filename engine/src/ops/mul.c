/*
 * mul.c — MUL (BuiltinOperator 18).
 *
 * Quantized int8 / uint8 / int16 (int16 symmetric: zero points 0) as
 * TFLite's reference_integer_ops::Mul / reference_ops::Mul and their
 * BroadcastMul6DSlow twins: the offset inputs are multiplied in int32 and
 * requantized once with MultiplyByQuantizedMultiplier. The multiplier is
 * input1_scale * input2_scale / output_scale evaluated in float (mul.cc
 * writes it with float operands; only the result is widened to double)
 * then QuantizeMultiplier. float32 as reference_ops::Mul. NumPy
 * broadcasting up to 6 dimensions; fused RELU / RELU_N1_TO_1 / RELU6.
 */
#include "../kernels/broadcast.h"
#include "../quant.h"
#include "ops.h"

enum { MUL_OPTIONS_TYPE = 21 };
enum { OPT_ACTIVATION = 0 };

typedef struct mul_params {
    edge_bcast bc;
    int32_t in1_offset, in2_offset, out_offset;
    int32_t out_mult, out_shift;
    int32_t act_min, act_max;
    float f_min, f_max;
    int32_t type;
} mul_params;

static int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int32_t mul_q(const mul_params *p, int32_t x1, int32_t x2) {
    const int32_t prod = (x1 + p->in1_offset) * (x2 + p->in2_offset);
    return clamp(edge_mbqm(prod, p->out_mult, p->out_shift) + p->out_offset, p->act_min, p->act_max);
}

static void row_s8(const void *ctx, const void *a, int64_t sa, const void *b, int64_t sb, void *out,
                   int64_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const int8_t *x = (const int8_t *)a, *y = (const int8_t *)b;
    int8_t *o = (int8_t *)out;
    for (int64_t i = 0; i < n; i++) o[i] = (int8_t)mul_q(p, x[i * sa], y[i * sb]);
}

static void row_u8(const void *ctx, const void *a, int64_t sa, const void *b, int64_t sb, void *out,
                   int64_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint8_t *o = (uint8_t *)out;
    for (int64_t i = 0; i < n; i++) o[i] = (uint8_t)mul_q(p, x[i * sa], y[i * sb]);
}

static void row_s16(const void *ctx, const void *a, int64_t sa, const void *b, int64_t sb, void *out,
                    int64_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
    int16_t *o = (int16_t *)out;
    for (int64_t i = 0; i < n; i++) o[i] = (int16_t)mul_q(p, x[i * sa], y[i * sb]);
}

/* ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi). */
static float clamp_f(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return hi < v ? hi : v;
}

static void row_f32(const void *ctx, const void *a, int64_t sa, const void *b, int64_t sb, void *out,
                    int64_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const float *x = (const float *)a, *y = (const float *)b;
    float *o = (float *)out;
    for (int64_t i = 0; i < n; i++) o[i] = clamp_f(x[i * sa] * y[i * sb], p->f_min, p->f_max);
}

static edge_status prepare(edge_op_ctx *c) {
    edge_op_rt *op = c->op;
    if (op->n_in != 2 || op->n_out != 1)
        return edge_op_fail(c, EDGE_ERR_MODEL, "expects 2 inputs and 1 output, has %u and %u", op->n_in,
                            op->n_out);
    edge_tensor_rt *in1 = edge_in(c, 0), *in2 = edge_in(c, 1), *out = edge_out(c, 0);
    if (!in1 || !in2 || !out) return edge_op_fail(c, EDGE_ERR_MODEL, "an input or the output is missing");
    if (op->options_type != MUL_OPTIONS_TYPE && op->options_type != 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not MulOptions (type %u)",
                            (unsigned)op->options_type);
    const edge_type t = out->t.type;
    if (in1->t.type != t || in2->t.type != t)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "inputs %s and %s with output %s (all three must have one type)",
                            edge_type_name(in1->t.type), edge_type_name(in2->t.type), edge_type_name(t));
    if (t != EDGE_INT8 && t != EDGE_UINT8 && t != EDGE_INT16 && t != EDGE_FLOAT32)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "type %s not supported (int8, uint8, int16, float32)",
                            edge_type_name(t));

    mul_params p;
    edge_memset(&p, 0, sizeof p);
    if (!edge_bcast_plan(&p.bc, in1->t.dims, in1->t.rank, in2->t.dims, in2->t.rank, out->t.dims,
                         out->t.rank))
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "output shape is not the broadcast of the input shapes (ranks %d, %d -> %d, at most 6)",
                            in1->t.rank, in2->t.rank, out->t.rank);
    p.type = (int32_t)t;
    const int act = edge_opt_u8(c, OPT_ACTIVATION, 0);

    if (t == EDGE_FLOAT32) {
        if (!edge_act_range_f(act, &p.f_min, &p.f_max))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
    } else {
        if (in1->q_count < 1 || in2->q_count < 1 || out->q_count < 1)
            return edge_op_fail(c, EDGE_ERR_MODEL, "%s inputs and output must be quantized",
                                edge_type_name(t));
        const float s1 = edge_q_scale(in1, 0), s2 = edge_q_scale(in2, 0), so = edge_q_scale(out, 0);
        const int32_t z1 = edge_q_zero(in1, 0), z2 = edge_q_zero(in2, 0), zo = edge_q_zero(out, 0);
        if (!(s1 > 0.0f) || !(s2 > 0.0f) || !(so > 0.0f))
            return edge_op_fail(c, EDGE_ERR_MODEL, "scales must be positive");
        const int32_t qmin = t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : -32768);
        const int32_t qmax = t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : 32767);
        if (z1 < qmin || z1 > qmax || z2 < qmin || z2 > qmax || zo < qmin || zo > qmax)
            return edge_op_fail(c, EDGE_ERR_MODEL, "zero points %d, %d, %d outside the %s range", z1, z2,
                                zo, edge_type_name(t));
        /* int16 products of offset values would overflow int32. */
        if (t == EDGE_INT16 && (z1 != 0 || z2 != 0 || zo != 0))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 needs zero points 0 (have %d, %d, %d)",
                                z1, z2, zo);
        if (!edge_act_range_q(act, so, zo, qmin, qmax, &p.act_min, &p.act_max))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "fused activation %d", act);
        const float real = s1 * s2 / so; /* float arithmetic, as mul.cc */
        int shift;
        edge_quantize_multiplier((double)real, &p.out_mult, &shift);
        if (shift > 30 || shift < -31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "requantization shift %d out of range", shift);
        p.out_shift = shift;
        p.in1_offset = -z1;
        p.in2_offset = -z2;
        p.out_offset = zo;
    }

    edge_stream_elementwise(c, in1, in2, out);
    if (!c->params) {
        op->params_bytes = (uint32_t)sizeof(mul_params);
        op->scratch_bytes = 0;
        op->macs = 0;
        return EDGE_OK;
    }
    *(mul_params *)c->params = p;
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const mul_params *p = (const mul_params *)c->params;
    const void *a = edge_in_data(c, 0), *b = edge_in_data(c, 1);
    void *o = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: edge_bcast_run(&p->bc, a, b, o, 1, row_s8, p); break;
    case EDGE_UINT8: edge_bcast_run(&p->bc, a, b, o, 1, row_u8, p); break;
    case EDGE_INT16: edge_bcast_run(&p->bc, a, b, o, 2, row_s16, p); break;
    default: edge_bcast_run(&p->bc, a, b, o, 4, row_f32, p); break;
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_mul = {18, "MUL", prepare, eval, 0};
