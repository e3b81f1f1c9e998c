/* SPDX-License-Identifier: Apache-2.0 */
/*
 * add_sub.c — ADD (BuiltinOperator 0) and SUB (41): one implementation, the
 * second operand's rescaled value negated for SUB.
 *
 * Quantized int8 / uint8 / int16 with independent input and output scales,
 * bit for bit as TFLite's reference kernels (reference_integer_ops::Add,
 * reference_ops::Add / Sub and their BroadcastAdd6DSlow /
 * BroadcastQuantSubSlow twins): both inputs are offset, shifted left (20
 * bits for 8-bit, 15 for int16) and rescaled to twice the larger input
 * scale, added or subtracted, then rescaled to the output. The three
 * multipliers come from the float scales in double, as add.cc's Prepare and
 * sub.cc's PrepareGeneralSubOp compute them (the same way). int16 with
 * power-of-two scales and pot_scale_int16 set takes the shift-only path
 * (Add's old LSTM form, Sub16 / BroadcastSub16POTSlow). float32 as
 * reference_ops::Add / SubWithActivation (a - b is a + (-b) in IEEE
 * arithmetic). NumPy broadcasting up to 6 dimensions; fused RELU /
 * RELU_N1_TO_1 / RELU6.
 */
#include "../kernels/broadcast.h"
#include "../kernels/dispatch.h"
#include "../kernels/elementwise.h"
#include "../kernels/requant.h"
#include "../quant.h"
#include "add_sub.h"
#include "binary_op.h"

enum { ADD_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_ADD_OPTIONS, SUB_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_SUB_OPTIONS };
enum { OPT_POT_SCALE_INT16 = EDGE_F_ADD_OPTIONS_POT_SCALE_INT16 }; /* AddOptions/SubOptions field ids (0: the activation) */

typedef struct add_params {
    edge_bcast bc;
    int32_t in1_offset, in2_offset, out_offset;
    int32_t in1_mult, in2_mult, out_mult;
    int32_t in1_shift, in2_shift, out_shift; /* <= 0 (right shifts) */
    int32_t left_shift;
    int32_t act_min, act_max;
    float f_min, f_max;
    int32_t type;
    int32_t pot; /* int16 power-of-two path: only in1_shift/in2_shift used */
    int32_t sub; /* 1: SUB */
#if EDGE_KERNELS_RUNTIME
    uint8_t simd; /* the 8-bit path's variant (edge_addsub_s8_select) */
#endif
} add_params;

/* TFLite's CheckedLog2: x counts as a power of two when log2(x) is within
 * 1e-3 of an integer. Without libm: x = f * 2^e with f in [0.5, 1); the
 * nearest integer is e - 1 below f = sqrt(1/2), else e, and the distance
 * test becomes a ratio test against 2^(+-0.001). All on the float's bits:
 * f = m / 2^24 with the 24-bit significand m, so each bound is an integer
 * (sqrt(1/2) * 2^24 = 11863283.2, 2^0.001 * 2^23 = 8394424.6, 2^-0.001 *
 * 2^24 = 16765590.9). */
static int checked_log2(float x, int *log2_rounded) {
    union { float f; uint32_t u; } v;
    v.f = x;
    if (!(x > 0.0f) || v.u >= 0x7f800000u) return 0; /* also NaN and inf */
    int e = (int)(v.u >> 23) - 126;
    uint32_t m = v.u & 0x7fffffu;
    if (e == -126) { /* subnormal: normalise */
        e++;
        while (!(m & 0x800000u)) {
            m <<= 1;
            e--;
        }
    }
    m |= 0x800000u;
    const int lower = m <= 11863283u;
    *log2_rounded = lower ? e - 1 : e;
    return lower ? m <= 8394424u : m >= 16765591u;
}

static int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static int32_t add_general(const add_params *p, int32_t x1, int32_t x2) {
    const int32_t a = (x1 + p->in1_offset) * (1 << p->left_shift);
    const int32_t b = (x2 + p->in2_offset) * (1 << p->left_shift);
    const int32_t sa = edge_mbqm_smaller_than_one(a, p->in1_mult, p->in1_shift);
    const int32_t sb = edge_mbqm_smaller_than_one(b, p->in2_mult, p->in2_shift);
    const int32_t raw =
        edge_mbqm_smaller_than_one(p->sub ? sa - sb : sa + sb, p->out_mult, p->out_shift) + p->out_offset;
    return clamp(raw, p->act_min, p->act_max);
}

/* Two same-shape 8-bit operands (the merged plan is one run, both strides
 * 1): each input's rescaled value depends on its byte alone, so both are
 * tabulated once per run (2 KiB of stack, 512 evaluations; worth it from
 * ADD_LUT_MIN elements) and each element costs two lookups, one output
 * requantization and the clamp. Same arithmetic as add_general (SUB
 * tabulates the second operand negated). */
#define ADD_LUT_MIN 1024

static void add_lut_8(const add_params *p, const uint8_t *x, const uint8_t *y, uint8_t *o, int32_t n,
                      int32_t bias) {
    int32_t l1[256], l2[256];
    for (int32_t i = 0; i < 256; i++) {
        const int32_t v = i - bias; /* the element's value: i is its byte */
        l1[i] = edge_mbqm_smaller_than_one((v + p->in1_offset) * (1 << p->left_shift), p->in1_mult,
                                           p->in1_shift);
        const int32_t b = edge_mbqm_smaller_than_one((v + p->in2_offset) * (1 << p->left_shift),
                                                     p->in2_mult, p->in2_shift);
        l2[i] = p->sub ? -b : b;
    }
    const edge_rq r = edge_rq_make(p->out_mult, p->out_shift);
    const int32_t oo = p->out_offset, lo = p->act_min, hi = p->act_max;
    for (int32_t i = 0; i < n; i++) {
        /* int8 bytes index from -128 upward: flip the sign bit. */
        const int32_t s = l1[(uint8_t)(x[i] ^ (uint8_t)bias)] + l2[(uint8_t)(y[i] ^ (uint8_t)bias)];
        const int32_t raw = edge_rq_apply((uint32_t)s, r.mult, r.left, r.right, r.round, r.neg) + oo;
        o[i] = (uint8_t)((uint32_t)clamp(raw, lo, hi) & 0xffu);
    }
}

#if EDGE_KERNELS_RUNTIME
/* The family's constants (built per run: the params stay small). */
static edge_addsub_params kernel_q(const add_params *p) {
    edge_addsub_params q;
    q.off1 = p->in1_offset;
    q.off2 = p->in2_offset;
    q.out_off = p->out_offset;
    q.left_shift = p->left_shift;
    q.m1 = p->in1_mult;
    q.m2 = p->in2_mult;
    q.mo = p->out_mult;
    q.r1 = -p->in1_shift;
    q.r2 = -p->in2_shift;
    q.ro = -p->out_shift;
    q.act_min = p->act_min;
    q.act_max = p->act_max;
    q.sub = (uint8_t)p->sub;
    q.is_unsigned = p->type == EDGE_UINT8;
    return q;
}
#endif

/* The variant's share of a run (0 without one); the scalar loop does
 * the rest. */
static int32_t row_variant(const add_params *p, const void *a, int32_t sa, const void *b, int32_t sb,
                           void *out, int32_t n) {
#if EDGE_KERNELS_RUNTIME
    if (p->simd) {
        const edge_addsub_params q = kernel_q(p);
        return (int32_t)edge_addsub_s8(p->simd, &q, (const uint8_t *)a, sa, (const uint8_t *)b, sb,
                                       (uint8_t *)out, n);
    }
#else
    (void)p, (void)a, (void)sa, (void)b, (void)sb, (void)out, (void)n;
#endif
    return 0;
}

static void row_s8(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                   int32_t n) {
    const add_params *p = (const add_params *)ctx;
    const int32_t i0 = row_variant(p, a, sa, b, sb, out, n);
    if (i0 == 0 && sa == 1 && sb == 1 && n >= ADD_LUT_MIN) {
        add_lut_8(p, (const uint8_t *)a, (const uint8_t *)b, (uint8_t *)out, n, 128);
        return;
    }
    const int8_t *x = (const int8_t *)a, *y = (const int8_t *)b;
    int8_t *o = (int8_t *)out;
    for (int32_t i = i0; i < n; i++) o[i] = (int8_t)add_general(p, x[i * sa], y[i * sb]);
}

#if EDGE_WITH_UINT8
static void row_u8(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                   int32_t n) {
    const add_params *p = (const add_params *)ctx;
    const int32_t i0 = row_variant(p, a, sa, b, sb, out, n);
    if (i0 == 0 && sa == 1 && sb == 1 && n >= ADD_LUT_MIN) {
        add_lut_8(p, (const uint8_t *)a, (const uint8_t *)b, (uint8_t *)out, n, 0);
        return;
    }
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint8_t *o = (uint8_t *)out;
    for (int32_t i = i0; i < n; i++) o[i] = (uint8_t)add_general(p, x[i * sa], y[i * sb]);
}
#endif

static void row_s16(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                    int32_t n) {
    const add_params *p = (const add_params *)ctx;
    const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
    int16_t *o = (int16_t *)out;
    for (int32_t i = 0; i < n; i++) o[i] = (int16_t)add_general(p, x[i * sa], y[i * sb]);
}

/* Power-of-two int16: the input whose scale is finer is rounded to the
 * output's (one of the shifts is 0), then a saturating add or subtract; the
 * clamp to the activation range (inside int16) subsumes the saturation. */
static void row_s16_pot(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb,
                        void *out, int32_t n) {
    const add_params *p = (const add_params *)ctx;
    const int16_t *x = (const int16_t *)a, *y = (const int16_t *)b;
    int16_t *o = (int16_t *)out;
    for (int32_t i = 0; i < n; i++) {
        const int32_t v = edge_rdbpot(y[i * sb], -p->in2_shift);
        const int32_t s = edge_rdbpot(x[i * sa], -p->in1_shift) + (p->sub ? -v : v);
        o[i] = (int16_t)clamp(s, p->act_min, p->act_max);
    }
}

/* ActivationFunctionWithMinMax: std::min(std::max(x, lo), hi), which also
 * maps +-inf to +-FLT_MAX when there is no activation. */
static float clamp_f(float v, float lo, float hi) {
    v = v < lo ? lo : v;
    return hi < v ? hi : v;
}

static void row_f32(const void *ctx, const void *a, int32_t sa, const void *b, int32_t sb, void *out,
                    int32_t n) {
    const add_params *p = (const add_params *)ctx;
    const float *x = (const float *)a, *y = (const float *)b;
    float *o = (float *)out;
    for (int32_t i = 0; i < n; i++) {
        const float v = y[i * sb];
        o[i] = clamp_f(x[i * sa] + (p->sub ? -v : v), p->f_min, p->f_max);
    }
}

edge_status edge_addsub_prepare(edge_op_ctx *c, int sub, int float_ok) {
    edge_op_rt *op = c->op;
    binary_operands bo;
    edge_status st = edge_binary_operands(c, sub ? SUB_OPTIONS_TYPE : ADD_OPTIONS_TYPE,
                                          sub ? "SubOptions" : "AddOptions", 1, &bo);
    if (st) return st;
    edge_tensor_rt *in1 = bo.in1, *in2 = bo.in2, *out = bo.out;
    const edge_type t = bo.type;
    if (t == EDGE_FLOAT32 && !float_ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on the op's float twin, which this build leaves out");
    add_params p;
    edge_memset(&p, 0, sizeof p);
    p.bc = bo.bc;
    p.type = (int32_t)t;
    p.sub = sub;
    p.f_min = bo.f_min, p.f_max = bo.f_max;
    p.act_min = bo.act_min, p.act_max = bo.act_max;

    if (t != EDGE_FLOAT32) {
        const float s1 = bo.s1, s2 = bo.s2, so = bo.so;
        const int32_t z1 = bo.z1, z2 = bo.z2, zo = bo.zo;
        int general = 1;
        if (t == EDGE_INT16) {
            if (z1 != 0 || z2 != 0 || zo != 0)
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                    "int16 needs zero points 0 (have %d, %d, %d)", z1, z2, zo);
            /* TFLite reads pot_scale_int16 only from an Add/SubOptions table
             * (default true there); without the table it is false. */
            const int pot_opt = fb_is_null(op->options) ? 0 : edge_opt_u8(c, OPT_POT_SCALE_INT16, 1);
            int l1 = 0, l2 = 0, lo = 0;
            if (pot_opt && checked_log2(s1, &l1) && checked_log2(s2, &l2) && checked_log2(so, &lo)) {
                general = 0;
                p.pot = 1;
                p.in1_shift = l1 - lo;
                p.in2_shift = l2 - lo;
                if (!(p.in1_shift == 0 || p.in2_shift == 0) || p.in1_shift > 0 || p.in2_shift > 0)
                    return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                        "int16 power-of-two scales need one input at the output scale and "
                                        "the other finer (shifts %d, %d)",
                                        p.in1_shift, p.in2_shift);
                if (p.in1_shift < -31 || p.in2_shift < -31)
                    return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 scale shifts out of range");
                if (!sub && !edge_same_shape(&in1->t, &in2->t))
                    return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                        "int16 power-of-two ADD does not broadcast (TFLite's neither)");
            }
        }
        if (general) {
            p.in1_offset = -z1;
            p.in2_offset = -z2;
            p.out_offset = zo;
            p.left_shift = t == EDGE_INT16 ? 15 : 20;
            const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
            const double r1 = (double)s1 / twice_max;
            const double r2 = (double)s2 / twice_max;
            const double ro = twice_max / ((double)(1 << p.left_shift) * (double)so);
            /* sub.cc takes a rescale above 1 as valid but its kernel then
             * shifts by a negative amount (undefined); refuse it. */
            if (!(ro < 1.0))
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                    "output scale too small for the input scales (rescale >= 1)");
            int sh1, sh2, sho;
            edge_quantize_multiplier_smaller_than_one(r1, &p.in1_mult, &sh1);
            edge_quantize_multiplier_smaller_than_one(r2, &p.in2_mult, &sh2);
            edge_quantize_multiplier_smaller_than_one(ro, &p.out_mult, &sho);
            if (sh1 > 0 || sh2 > 0 || sho > 0 || sh1 < -31 || sh2 < -31 || sho < -31)
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "rescale shifts %d, %d, %d out of range", sh1,
                                    sh2, sho);
            p.in1_shift = sh1;
            p.in2_shift = sh2;
            p.out_shift = sho;
#if EDGE_KERNELS_RUNTIME
            if (t != EDGE_INT16) {
                const edge_addsub_params q = kernel_q(&p);
                p.simd = edge_addsub_s8_select(&q);
            }
#endif
        }
    }

    edge_stream_elementwise(c, in1, in2, out);
    if (!c->params) { /* the loader zeroed the other sizes */
        op->params_bytes = (uint32_t)sizeof(add_params);
        return EDGE_OK;
    }
    *(add_params *)c->params = p;
    return EDGE_OK;
}

edge_status edge_addsub_eval(edge_op_ctx *c) {
    const add_params *p = (const add_params *)c->params;
    const void *a = edge_in_data(c, 0), *b = edge_in_data(c, 1);
    void *o = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: edge_bcast_run(&p->bc, a, b, o, 1, row_s8, p); break;
#if EDGE_WITH_UINT8
    case EDGE_UINT8: edge_bcast_run(&p->bc, a, b, o, 1, row_u8, p); break;
#endif
    default: edge_bcast_run(&p->bc, a, b, o, 2, p->pot ? row_s16_pot : row_s16, p); break;
    }
    return EDGE_OK;
}

edge_status edge_addsub_eval_f(edge_op_ctx *c) {
    edge_bcast_run(&((const add_params *)c->params)->bc, edge_in_data(c, 0), edge_in_data(c, 1),
                   edge_out_data(c, 0), 4, row_f32, c->params);
    return EDGE_OK;
}
