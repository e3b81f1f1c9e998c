/* SPDX-License-Identifier: Apache-2.0 */
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
#include "binary_op.h"

enum { MUL_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_MUL_OPTIONS };

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
    return clamp(edge_mbqm_shared(prod, p->out_mult, p->out_shift) + p->out_offset, p->act_min,
                 p->act_max);
}

static void row_s8(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                   int32_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const int8_t *x = (const int8_t *)a, *y = (const int8_t *)b;
    int8_t *o = (int8_t *)out;
    for (int32_t i = 0; i < n; i++) o[i] = (int8_t)mul_q(p, x[i * sa], y[i * sb]);
}

#if EDGE_WITH_UINT8
static void row_u8(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                   int32_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint8_t *o = (uint8_t *)out;
    for (int32_t i = 0; i < n; i++) o[i] = (uint8_t)mul_q(p, x[i * sa], y[i * sb]);
}
#endif

static void row_s16(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                    int32_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
    int16_t *o = (int16_t *)out;
    for (int32_t i = 0; i < n; i++) o[i] = (int16_t)mul_q(p, x[i * sa], y[i * sb]);
}

/* ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi). */
static float clamp_f(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return hi < v ? hi : v;
}

static void row_f32(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                    int32_t n) {
    const mul_params *p = (const mul_params *)ctx;
    const float *x = (const float *)a, *y = (const float *)b;
    float *o = (float *)out;
    for (int32_t i = 0; i < n; i++) o[i] = clamp_f(x[i * sa] * y[i * sb], p->f_min, p->f_max);
}

/* float_ok: the float twin's inner op (edge_op_mul_float); the int8 op
 * refuses float32, so that an int8-only build links no float code. */
static edge_status prepare_any(edge_op_ctx *c, int float_ok) {
    edge_op_rt *op = c->op;
    binary_operands bo;
    const edge_status st = edge_binary_operands(c, MUL_OPTIONS_TYPE, "MulOptions", 0, &bo);
    if (st) return st;
    edge_tensor_rt *in1 = bo.in1, *in2 = bo.in2, *out = bo.out;
    const edge_type t = bo.type;
    if (t == EDGE_FLOAT32 && !float_ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on the op's float twin, which this build leaves out");
    mul_params p;
    edge_memset(&p, 0, sizeof p);
    p.bc = bo.bc;
    p.type = (int32_t)t;
    p.f_min = bo.f_min, p.f_max = bo.f_max;
    p.act_min = bo.act_min, p.act_max = bo.act_max;

    if (t != EDGE_FLOAT32) {
        const float s1 = bo.s1, s2 = bo.s2, so = bo.so;
        const int32_t z1 = bo.z1, z2 = bo.z2, zo = bo.zo;
        /* int16 products of offset values would overflow int32. */
        if (t == EDGE_INT16 && (z1 != 0 || z2 != 0 || zo != 0))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 needs zero points 0 (have %d, %d, %d)",
                                z1, z2, zo);
        const float real = s1 * s2 / so; /* float arithmetic, as mul.cc */
        if (!(real <= 3.0e38f))
            return edge_op_fail(c, EDGE_ERR_MODEL, "input scales / output scale not finite (or NaN)");
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
    if (!c->params) { /* the loader zeroed the other sizes */
        op->params_bytes = (uint32_t)sizeof(mul_params);
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
#if EDGE_WITH_UINT8
    case EDGE_UINT8: edge_bcast_run(&p->bc, a, b, o, 1, row_u8, p); break;
#endif
    default: edge_bcast_run(&p->bc, a, b, o, 2, row_s16, p); break;
    }
    return EDGE_OK;
}

static edge_status eval_f(edge_op_ctx *c) {
    edge_bcast_run(&((const mul_params *)c->params)->bc, edge_in_data(c, 0), edge_in_data(c, 1),
                   edge_out_data(c, 0), 4, row_f32, c->params);
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) { return prepare_any(c, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return prepare_any(c, 1); }

const edge_op_impl edge_op_mul = {EDGE_BUILTIN_MUL, "MUL", prepare, eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_mul_float = {EDGE_BUILTIN_MUL, "MUL", prepare_f, eval_f, 0, 0, 0};
