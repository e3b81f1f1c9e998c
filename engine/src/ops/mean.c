/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mean.c — MEAN (BuiltinOperator 40).
 *
 * Over any set of axes given by a constant int32 second input (negative
 * axes count from the end, repeats are ignored), with or without
 * keep_dims, as TFLite's reference kernel (reduce.cc, kReference):
 *
 *  - int8 / uint8 / int16 (int16 with zero points 0): QuantizedMeanOrSum.
 *    The int32 sum of the raw values, less input_zp * n, is requantized
 *    once with the multiplier of input_scale / output_scale (double,
 *    QuantizeMultiplier) into which 1/n has been folded: the multiplier is
 *    scaled up by 2^s, s = floor(log2 n) capped at 32 and at 31 + shift,
 *    divided by n in int64, and the shift lowered by s. The result is
 *    clamped to the type's range; MEAN has no fused activation.
 *  - float32: the float sum in input order, divided by n in float.
 *
 * Each output element sums its reduced elements in increasing input
 * offset, the order in which the reference's row-major walk meets them, so
 * float sums match too; no scratch is needed.
 */
#include "../quant.h"
#include "op_common.h"

enum { REDUCER_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_REDUCER_OPTIONS };
enum { OPT_KEEP_DIMS = EDGE_F_REDUCER_OPTIONS_KEEP_DIMS };

typedef struct mean_params {
    /* Input dimensions split into kept and reduced groups, outermost first,
     * adjacent dimensions of one kind merged: extents and element strides
     * (all below 2^31 when there is anything to sum). */
    int32_t n_keep, n_red;
    int32_t keep_ext[EDGE_MAX_DIMS], red_ext[EDGE_MAX_DIMS];
    int32_t keep_stride[EDGE_MAX_DIMS], red_stride[EDGE_MAX_DIMS];
    int32_t n_out; /* output elements */
    int32_t n;     /* elements averaged into each output (0: output zeros) */
    int32_t in_zp, out_zp, mult, shift;
    int32_t qmin, qmax;
    int32_t type, elem_size;
} mean_params;

/* Odometer step over extents ext[0..k) (last fastest) with strides; returns
 * the change of offset, or sets *done when it wraps. */
static int32_t step(int32_t *idx, const int32_t *ext, const int32_t *stride, int32_t k, int *done) {
    int32_t delta = 0;
    for (int32_t d = k - 1; d >= 0; d--) {
        delta += stride[d];
        if (++idx[d] < ext[d]) return delta;
        delta -= stride[d] * ext[d];
        idx[d] = 0;
    }
    *done = 1;
    return delta;
}

/* A sum in progress: integer sums wrap in 32 bits as the reference's
 * WrappingAdd; float sums add in input order. */
typedef struct mean_acc {
    uint32_t i;
    float f;
} mean_acc;

/* Adds run elements rs apart, one small loop per element type. */
typedef void (*mean_run_fn)(mean_acc *a, const void *x, int32_t run, int32_t rs);
#define MEAN_RUN(NAME, T, V, FIELD, CAST)                                                          \
    static void NAME(mean_acc *a, const void *x, int32_t run, int32_t rs) {                        \
        for (int32_t k = 0; k < run; k++) {                                                        \
            const V v = ((const T *)x)[k * rs];                                                    \
            a->FIELD += CAST v;                                                                    \
        }                                                                                          \
    }
MEAN_RUN(run_s8, int8_t, int32_t, i, (uint32_t))
#if EDGE_WITH_UINT8
MEAN_RUN(run_u8, uint8_t, int32_t, i, (uint32_t))
#else
#define run_u8 run_s8 /* never chosen: uint8 is refused at prepare */
#endif
MEAN_RUN(run_s16, int16_t, int32_t, i, (uint32_t))
MEAN_RUN(run_f32, float, float, f, )

/* The sum of one output's reduced elements, starting at input offset base:
 * the innermost reduced group is a strided run; the outer groups step an
 * odometer, so elements come in increasing input offset. */
static mean_acc sum_reduced(const mean_params *p, mean_run_fn fn, const uint8_t *in, int32_t base) {
    const int32_t last = p->n_red - 1;
    const int32_t run = last >= 0 ? p->red_ext[last] : 1;
    const int32_t rs = last >= 0 ? p->red_stride[last] : 0;
    int32_t idx[EDGE_MAX_DIMS] = {0};
    mean_acc a = {0, 0.0f};
    int done = 0;
    while (!done) {
        fn(&a, in + (size_t)base * (size_t)p->elem_size, run, rs);
        base += step(idx, p->red_ext, p->red_stride, last > 0 ? last : 0, &done);
    }
    return a;
}

static const edge_op_form form = {2, 2, 2, EDGE_FORM_ONE_TYPE | EDGE_FORM_NUMERIC, REDUCER_OPTIONS_TYPE, 0,
                                   "ReducerOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    const edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *axis = edge_in(c, 1);
    const edge_type t = in->t.type;
    if (axis->t.type != EDGE_INT32)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis must be int32, is %s", edge_type_name(axis->t.type));
    const int32_t n_axis = (int32_t)edge_numel(&axis->t); /* below 2^31, as every tensor */
    if (n_axis > 0 && (!axis->is_const || !axis->t.data))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "axis must be a constant tensor");

    const int32_t rank = in->t.rank;
    if (rank < 0 || rank > EDGE_MAX_DIMS)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input rank %d", rank);
    /* Resolve the axes: negative ones count from the end, repeats drop out. */
    int reduced[EDGE_MAX_DIMS] = {0};
    for (int32_t i = 0; i < n_axis && rank > 0; i++) {
        int32_t a = fb_i32_at((const uint8_t *)axis->t.data, (uint32_t)i);
        if (a < 0) a += rank;
        if (a < 0 || a >= rank)
            return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d out of range for a %d-D input",
                                fb_i32_at((const uint8_t *)axis->t.data, (uint32_t)i), rank);
        reduced[a] = 1;
    }
    const int keep_dims = edge_opt_u8(c, OPT_KEEP_DIMS, 0);

    /* The output shape the reference computes, against the model's. */
    int32_t want_rank = 0;
    int same = 1;
    for (int32_t d = 0; d < rank; d++) {
        if (reduced[d] && !keep_dims) continue;
        const int32_t w = reduced[d] ? 1 : in->t.dims[d];
        if (want_rank >= out->t.rank || out->t.dims[want_rank] != w) same = 0;
        want_rank++;
    }
    if (want_rank != out->t.rank) same = 0;
    if (!same)
        return edge_op_fail(c, EDGE_ERR_SHAPE,
                            "output is %d-D with %ld elements, the reduction gives %d-D (keep_dims %d)",
                            out->t.rank, (long)edge_numel(&out->t), want_rank, keep_dims);

    mean_params p;
    edge_memset(&p, 0, sizeof p);
    p.type = (int32_t)t;
    p.elem_size = (int32_t)edge_type_size(t);
    p.n_out = (int32_t)edge_numel(&out->t);
    /* Group the input dimensions, outermost first: extent-1 ones drop out,
     * a group's stride is that of its innermost dimension (the product of
     * the extents after it). Unsigned products: with an empty input they
     * may wrap, unused then. */
    uint32_t after[EDGE_MAX_DIMS + 1], n = 1;
    after[rank] = 1;
    for (int32_t d = rank - 1; d >= 0; d--) after[d] = after[d + 1] * (uint32_t)in->t.dims[d];
    int32_t last = -1; /* kind of the last group */
    for (int32_t d = 0; d < rank; d++) {
        const int32_t e = in->t.dims[d], red = reduced[d];
        if (red) n *= (uint32_t)e;
        if (e == 1) continue;
        int32_t *ext = red ? p.red_ext : p.keep_ext, *str = red ? p.red_stride : p.keep_stride;
        int32_t *cnt = red ? &p.n_red : &p.n_keep;
        if (last != red) ext[(*cnt)++] = 1;
        ext[*cnt - 1] = (int32_t)((uint32_t)ext[*cnt - 1] * (uint32_t)e);
        str[*cnt - 1] = (int32_t)after[d + 1];
        last = red;
    }
    p.n = edge_numel(&in->t) == 0 ? 0 : (int32_t)n;

    if (t != EDGE_FLOAT32) {
        if (in->q_count < 1 || out->q_count < 1)
            return edge_op_fail(c, EDGE_ERR_MODEL, "%s input and output must be quantized",
                                edge_type_name(t));
        int32_t mult;
        int shift;
        const edge_status rq = edge_op_requant(c, in, out, &mult, &shift);
        if (rq) return rq;
        p.in_zp = edge_q_zero(in, 0);
        p.out_zp = edge_q_zero(out, 0);
        if (t == EDGE_INT16 && (p.in_zp != 0 || p.out_zp != 0))
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "int16 needs zero points 0 (have %d, %d)",
                                p.in_zp, p.out_zp);
        p.qmin = t == EDGE_INT8 ? -128 : (t == EDGE_UINT8 ? 0 : -32768);
        p.qmax = t == EDGE_INT8 ? 127 : (t == EDGE_UINT8 ? 255 : 32767);
        if (p.n > 0) {
            /* Fold 1/n into the multiplier. */
            int s = 0;
            while ((uint32_t)p.n >> (s + 1)) s++; /* floor(log2 n), at most 30 */
            if (s > 31 + shift) s = 31 + shift;
            mult = (int32_t)(((int64_t)mult << s) / p.n);
            shift -= s;
        }
        p.mult = mult;
        p.shift = shift;
    }

    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const mean_params *p = (const mean_params *)c->params;
    const uint8_t *in = (const uint8_t *)edge_in_data(c, 0);
    void *out = edge_out_data(c, 0);
    if (p->n_out <= 0) return EDGE_OK;
    if (p->n == 0) { /* empty reduction: the reference leaves zeros */
        edge_memset(out, 0, (size_t)p->n_out * (size_t)p->elem_size);
        return EDGE_OK;
    }
    const mean_run_fn fn = p->type == EDGE_INT8    ? run_s8
                           : p->type == EDGE_UINT8 ? run_u8
                           : p->type == EDGE_INT16 ? run_s16
                                                   : run_f32;
    int32_t idx[EDGE_MAX_DIMS] = {0};
    int32_t base = 0;
    for (int32_t o = 0; o < p->n_out; o++) {
        const mean_acc a = sum_reduced(p, fn, in, base);
        if (p->type == EDGE_FLOAT32) {
            ((float *)out)[o] = a.f / (float)p->n;
        } else {
            /* sum - in_zp * n, wrapping as the reference's int32 math. */
            const int32_t shifted = (int32_t)(a.i - (uint32_t)p->in_zp * (uint32_t)p->n);
            const int32_t v = edge_clamp_i32(edge_mbqm_shared(shifted, p->mult, p->shift) + p->out_zp,
                                             p->qmin, p->qmax);
            if (p->type == EDGE_INT8) ((int8_t *)out)[o] = (int8_t)v;
            else if (EDGE_WITH_UINT8 && p->type == EDGE_UINT8) ((uint8_t *)out)[o] = (uint8_t)v;
            else ((int16_t *)out)[o] = (int16_t)v;
        }
        int done = 0;
        base += step(idx, p->keep_ext, p->keep_stride, p->n_keep, &done);
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_mean = {EDGE_BUILTIN_MEAN, "MEAN", prepare, eval, 0, 0, 0};
