/* SPDX-License-Identifier: Apache-2.0 */
/*
 * softmax.c — SOFTMAX (BuiltinOperator 25) over the last dimension, option
 * beta.
 *
 * Quantized as TFLite's reference registration (activations.cc
 * SoftmaxPrepare/SoftmaxEval with kReference, reference_ops::Softmax):
 * differences to the row maximum are scaled by beta * in_scale into Q5.26
 * (PreprocessSoftmaxScaling with 5 integer bits; differences below diff_min
 * contribute nothing), exponentiated with gemmlowp's fixed-point
 * exp_on_negative_values, summed in Q12.19, and each exp is multiplied by
 * the fixed-point reciprocal of the sum and shifted to the output width;
 * the output code is that plus the type's minimum. So the output scale is
 * 1/256 with zero point -128 for int8 (checked, as TFLite does), 0 for
 * uint8, and 1/65536 with zero point -32768 for int16 outputs.
 * Inputs int8 -> int8 / int16, uint8 -> uint8 / int16; float32 as
 * reference_ops::Softmax (expf of (x - max) * beta, divided by the sum).
 */
#include "../kernels/act_lut.h"
#include "../kernels/fixedpoint.h"
#include "../quant.h"
#include "op_common.h"

enum { SOFTMAX_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_SOFTMAX_OPTIONS };
enum { OPT_BETA = EDGE_F_SOFTMAX_OPTIONS_BETA };
enum { SCALED_DIFF_INT_BITS = 5, ACCUM_INT_BITS = 12 };

typedef struct softmax_params {
    int32_t in_type, out_type;
    int32_t outer, depth;
    int32_t input_multiplier, input_left_shift, diff_min;
    float beta;
} softmax_params;

/* float_ok: the float32 code's prepare (the float twin's inner op); the
 * int8 op itself takes quantized tensors only, so a firmware without the
 * float twins carries no float softmax (nor the expf it needs). */
static const edge_op_form form = {1, 1, 0, 0, SOFTMAX_OPTIONS_TYPE, 0, "SoftmaxOptions"};

static edge_status prepare_any(edge_op_ctx *c, int float_ok) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type it = in->t.type, ot = out->t.type;
    if (it == EDGE_FLOAT32 && !float_ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "float32 runs on SOFTMAX's float twin, which this build leaves out");
    const int ok = (it == EDGE_FLOAT32 && ot == EDGE_FLOAT32) ||
                   (it == EDGE_INT8 && (ot == EDGE_INT8 || ot == EDGE_INT16)) ||
                   (EDGE_WITH_UINT8 && it == EDGE_UINT8 && (ot == EDGE_UINT8 || ot == EDGE_INT16));
    if (!ok)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "input %s, output %s not supported (float32 -> float32, int8 -> int8 or "
                            "int16, uint8 -> uint8 or int16" EDGE_UINT8_HINT ")",
                            edge_type_name(it), edge_type_name(ot));
    if (in->t.rank < 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "input must have at least 1 dimension");
    if (!edge_same_shape(&in->t, &out->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape differs from the input's");
    const int32_t depth = edge_dim(&in->t, -1);
    const int32_t numel = (int32_t)edge_numel(&in->t); /* below 2^31, as every tensor */
    if (depth <= 0 && numel != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "last dimension is empty");

    softmax_params p;
    edge_memset(&p, 0, sizeof p);
    p.in_type = (int32_t)it;
    p.out_type = (int32_t)ot;
    p.depth = depth;
    p.outer = depth > 0 ? numel / depth : 0;
    /* A missing options table leaves beta 0, as TFLite's zeroed params. */
    p.beta = edge_opt_f32(c, OPT_BETA, 0.0f);

    if (it != EDGE_FLOAT32) {
        if (in->q_count < 1 || out->q_count < 1)
            return edge_op_fail(c, EDGE_ERR_MODEL, "quantized input and output must have scales");
        const float in_s = edge_q_scale(in, 0);
        if (it == EDGE_INT8 && ot == EDGE_INT8) {
            const float out_s = edge_q_scale(out, 0);
            const float d = out_s > 0.00390625f ? out_s - 0.00390625f : 0.00390625f - out_s;
            if (edge_q_zero(out, 0) != -128 || d > 0.001f * 0.00390625f)
                return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                    "int8 output must have scale 1/256 and zero point -128 (zero "
                                    "point is %d)",
                                    edge_q_zero(out, 0));
        }
        /* QuantizeMultiplierGreaterThanOne inside PreprocessSoftmaxScaling
         * requires the real multiplier to exceed 1 (TFLite aborts otherwise). */
        const double real = (double)p.beta * (double)in_s * (double)(1 << (31 - SCALED_DIFF_INT_BITS));
        if (!(real > 1.0))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "beta * input scale too small (or beta not positive) for the "
                                "fixed-point softmax");
        int left_shift;
        edge_preprocess_softmax_scaling((double)p.beta, (double)in_s, SCALED_DIFF_INT_BITS,
                                        &p.input_multiplier, &left_shift);
        if (left_shift < 0 || left_shift > 31)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "softmax input shift %d out of range",
                                left_shift);
        p.input_left_shift = left_shift;
        p.diff_min = -edge_calculate_input_radius(SCALED_DIFF_INT_BITS, left_shift, 31);
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

/* exp(beta * in_scale * diff) in Q0 for diff <= 0 above diff_min. */
static int32_t exp_of_diff(const softmax_params *p, int32_t diff) {
    const int32_t scaled = edge_mbqm_greater_than_one(diff, p->input_multiplier, p->input_left_shift);
    return edge_fp_exp_on_negative_values(scaled, SCALED_DIFF_INT_BITS);
}

/* One row of the quantized softmax; in_kind 0 = int8, 1 = uint8; out_kind
 * 0 = int8, 1 = uint8, 2 = int16. The exps are computed twice instead of
 * kept in scratch (TFLite recomputes them too). */
static void softmax_row_q(const softmax_params *p, int32_t max_in, const void *x, int in_kind,
                          void *y, int out_kind) {
    const int32_t depth = p->depth;
    int32_t sum = 0; /* Q12.19, wrapping add as gemmlowp */
    for (int32_t i = 0; i < depth; i++) {
        const int32_t v = in_kind ? ((const uint8_t *)x)[i] : ((const int8_t *)x)[i];
        const int32_t diff = v - max_in;
        if (diff >= p->diff_min)
            sum = edge_fp_add(sum, edge_fp_rescale(exp_of_diff(p, diff), 0, ACCUM_INT_BITS));
    }
    int bits_over_unit;
    const int32_t reciprocal = edge_fp_get_reciprocal(sum, ACCUM_INT_BITS, &bits_over_unit);
    const int out_bits = out_kind == 2 ? 16 : 8;
    int exponent = bits_over_unit + 31 - out_bits;
    /* TFLite aborts (TFLITE_CHECK) when the exponent leaves 0..31: a sum of
     * exps of 2^(out_bits - 7) or more (e.g. a row of 300 near-equal int8
     * values). Past 31 every quotient rounds to zero, which is what is
     * written here instead; below 0 needs a wrapped sum (depth > 4096). */
    const int all_zero = exponent > 31;
    if (exponent < 0) exponent = 0;
    if (exponent > 31) exponent = 31;
    const int32_t out_min = out_kind == 2 ? -32768 : (out_kind == 1 ? 0 : -128);
    const int32_t out_max = out_kind == 2 ? 32767 : (out_kind == 1 ? 255 : 127);
    for (int32_t i = 0; i < depth; i++) {
        const int32_t v = in_kind ? ((const uint8_t *)x)[i] : ((const int8_t *)x)[i];
        const int32_t diff = v - max_in;
        int32_t o = out_min;
        if (diff >= p->diff_min) {
            const int32_t e = exp_of_diff(p, diff);
            const int32_t unsat = all_zero ? 0 : edge_rdbpot(edge_srdhm(reciprocal, e), exponent);
            o = edge_clamp_i32(unsat + out_min, out_min, out_max);
        }
        if (out_kind == 2) ((int16_t *)y)[i] = (int16_t)o;
        else if (out_kind == 1) ((uint8_t *)y)[i] = (uint8_t)o;
        else ((int8_t *)y)[i] = (int8_t)o;
    }
}

static edge_status eval_f(edge_op_ctx *c) {
    const softmax_params *p = (const softmax_params *)c->params;
    const float *xf = (const float *)edge_in_data(c, 0);
    float *yf = (float *)edge_out_data(c, 0);
    const int32_t depth = p->depth;
    for (int32_t r = 0; r < p->outer; r++) {
        const float *row = xf + (size_t)r * (size_t)depth;
        float *orow = yf + (size_t)r * (size_t)depth;
        float max = -3.402823466e38f;
        for (int32_t i = 0; i < depth; i++) max = max < row[i] ? row[i] : max;
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; i++) {
            const float d = row[i] - max;
            const float e = edge_expf(d * p->beta);
            orow[i] = e;
            sum = sum + e;
        }
        for (int32_t i = 0; i < depth; i++) orow[i] = orow[i] / sum;
    }
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const softmax_params *p = (const softmax_params *)c->params;
    const uint8_t *x = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *y = (uint8_t *)edge_out_data(c, 0);
    const int32_t depth = p->depth;
    const int in_kind = EDGE_WITH_UINT8 && p->in_type == EDGE_UINT8 ? 1 : 0;
    const int out_kind = p->out_type == EDGE_INT16 ? 2 : (EDGE_WITH_UINT8 && p->out_type == EDGE_UINT8 ? 1 : 0);
    const size_t out_size = out_kind == 2 ? 2u : 1u;
    for (int32_t r = 0; r < p->outer; r++) {
        const uint8_t *row = x + (size_t)r * (size_t)depth;
        uint8_t *orow = y + (size_t)r * (size_t)depth * out_size;
        int32_t max_in = in_kind ? 0 : -128;
        for (int32_t i = 0; i < depth; i++) {
            const int32_t v = in_kind ? row[i] : ((const int8_t *)(const void *)row)[i];
            if (v > max_in) max_in = v;
        }
        softmax_row_q(p, max_in, row, in_kind, orow, out_kind);
    }
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) { return prepare_any(c, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return prepare_any(c, 1); }

const edge_op_impl edge_op_softmax = {EDGE_BUILTIN_SOFTMAX, "SOFTMAX", prepare, eval, 0, 0, 0};
const edge_op_impl edge_op_softmax_float = {EDGE_BUILTIN_SOFTMAX, "SOFTMAX", prepare_f, eval_f, 0, 0, 0};
