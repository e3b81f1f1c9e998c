/* SPDX-License-Identifier: Apache-2.0 */
/*
 * float_wrap.c — BFLOAT16 operands for the ops whose float path is written
 * for FLOAT32 (ADD, SUB, MUL, pools, MEAN, SOFTMAX, activations, RESHAPE,
 * SQUEEZE, PAD, PADV2, CONCATENATION, STRIDED_SLICE, QUANTIZE), plus
 * DEQUANTIZE bfloat16 -> float32.
 *
 * Each twin here wraps the op's own implementation: every BFLOAT16 operand
 * is widened to fp32 (exact), the FLOAT32 code computes, and a BFLOAT16
 * output is rounded back (nearest even). So any operand and the output may
 * independently be FLOAT32 or BFLOAT16, and the results are the float32
 * op's on the widened values, rounded once. Constants are widened once at
 * load into the params block; activations into per-invoke scratch.
 *
 * Without a BFLOAT16 operand the twin is the op itself (no copies), and so
 * is an op that only moves elements (RESHAPE ... STRIDED_SLICE) when all
 * its float operands share one type: it moves bf16 bytes as they are.
 *
 * The wrapped prepare/eval sees the converted operands through the
 * context's operand view (edge_op_ctx.view): type float32, the fp32 copy's
 * bytes and address; the model's own records are never changed.
 *
 * Params block: [wrap header][wrapped op's params][widened constants];
 * scratch: [wrapped op's scratch][widened inputs][fp32 outputs].
 */
#include "../kernels/bf16.h"
#include "ops.h"

#define WRAP_HDR 16u

typedef struct wrap_hdr {
    uint32_t inner_params, inner_scratch;
    uint8_t direct;
} wrap_hdr;

static uint32_t a16(uint64_t x) { return (uint32_t)((x + 15u) & ~(uint64_t)15u); }

static int is_mover(int32_t code) {
    switch (code) {
    case EDGE_BUILTIN_RESHAPE:
    case EDGE_BUILTIN_SQUEEZE:
    case EDGE_BUILTIN_PAD:
    case EDGE_BUILTIN_PADV2:
    case EDGE_BUILTIN_CONCATENATION:
    case EDGE_BUILTIN_STRIDED_SLICE:
        return 1;
    default: return 0;
    }
}

/* Run the op itself: no BFLOAT16 operand, or a mover on one float type. */
static int runs_direct(const edge_op_ctx *c) {
    const edge_op_rt *op = c->op;
    int has_bf16 = 0, has_f32 = 0;
    for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
        if (op->io[k] < 0) continue;
        const edge_type t = (edge_type)c->m->tensors[op->io[k]].type;
        has_bf16 |= t == EDGE_BFLOAT16;
        has_f32 |= t == EDGE_FLOAT32;
    }
    return !has_bf16 || (is_mover(op->impl->code) && !has_f32);
}

typedef struct saved {
    edge_type type;  /* as the file has it */
    int64_t n;       /* elements */
    void *data;      /* its bytes (NULL in prepare for activations) */
    uint8_t is_const;
} saved;

/* Operand k (inputs then outputs) as the file has it. */
static edge_tensor_rt *file_operand(const edge_op_ctx *c, uint32_t k) {
    edge_op_ctx plain = *c;
    plain.view = 0;
    return k < c->op->n_in ? edge_in(&plain, k) : edge_out(&plain, k - c->op->n_in);
}

/* Show every BFLOAT16 operand as its fp32 copy (view), remembering the file's
 * operand in sv. consts: widened constants (NULL in the sizing pass);
 * scratch: fp32 copies of activations (NULL in the sizing pass). Returns the
 * bytes each area needs. */
static void make_view(const edge_op_ctx *c, saved *sv, edge_operand_view *view, uint8_t *consts,
                      uint8_t *scratch, uint32_t *const_bytes, uint32_t *scratch_bytes) {
    const edge_op_rt *op = c->op;
    uint32_t cb = 0, sb = 0;
    for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
        view[k].set = 0;
        sv[k].type = EDGE_FLOAT32;
        sv[k].data = 0;
        if (op->io[k] < 0) continue;
        const edge_tensor_rt *t = file_operand(c, k);
        sv[k].type = t->t.type;
        sv[k].n = edge_numel(&t->t);
        sv[k].data = t->t.data;
        sv[k].is_const = t->is_const;
        if (t->t.type != EDGE_BFLOAT16) continue;
        const uint32_t need = a16((uint64_t)sv[k].n * 4u);
        float *f = 0;
        if (t->is_const && k < op->n_in) {
            if (consts) f = (float *)(void *)(consts + cb);
            cb += need;
        } else {
            if (scratch) f = (float *)(void *)(scratch + sb);
            sb += need;
        }
        view[k].type = EDGE_FLOAT32;
        view[k].bytes = (uint32_t)((uint64_t)sv[k].n * 4u);
        view[k].data = f; /* NULL in the sizing pass */
        view[k].set = 1;
    }
    *const_bytes = cb;
    *scratch_bytes = sb;
}

/* Rebuild the operand slots as the file has them, so the loader keeps the
 * file's types after the wrapped prepare saw float32 ones. */
static void reset_slots(const edge_op_ctx *c) {
    for (uint32_t k = 0; k < c->op->n_in + c->op->n_out; k++)
        if (c->op->io[k] >= 0) (void)file_operand(c, k);
}

static void widen(float *dst, const uint16_t *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = edge_bf16_to_f32(src[i]);
}

static void narrow(uint16_t *dst, const float *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = edge_f32_to_bf16(src[i]);
}

/* The wrapped op words its errors with the float32 types it was shown:
 * append the operand types the file really has. */
static edge_status explain(edge_op_ctx *c, edge_status st) {
    char inner[EDGE_ERROR_LEN], types[96];
    const char *e = c->m->error;
    uint32_t n = 0, t = 0;
    while (e[n] && n + 1 < sizeof inner) { inner[n] = e[n]; n++; }
    inner[n] = 0;
    const edge_op_rt *op = c->op;
    for (uint32_t k = 0; k < op->n_in + op->n_out && t + 12 < sizeof types; k++) {
        const char *sep = k == op->n_in ? "->" : (k ? "," : "");
        while (*sep) types[t++] = *sep++;
        const char *tn = op->io[k] < 0 ? "none" : edge_type_name((edge_type)c->m->tensors[op->io[k]].type);
        while (*tn && t + 1 < sizeof types) types[t++] = *tn++;
    }
    types[t] = 0;
    return edge_fail(c->m, st, "%s (bfloat16 run as float32; file has %s)", inner, types);
}

static edge_status wrap_prepare(edge_op_ctx *c, const edge_op_impl *inner) {
    edge_op_rt *op = c->op;
    if (!c->params) {
        if (runs_direct(c)) {
            edge_status st = inner->prepare(c);
            if (st) return st;
            if (op->params_bytes == 0) op->params_bytes = WRAP_HDR; /* to hold `direct` */
            else op->params_bytes += WRAP_HDR;
            return EDGE_OK;
        }
        saved sv[EDGE_MAX_OP_IO];
        edge_operand_view view[EDGE_MAX_OP_IO];
        uint32_t cb, sb;
        uint64_t widened = 0;
        for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
            const edge_tensor_rt *t = op->io[k] < 0 ? 0 : file_operand(c, k);
            if (t && t->t.type == EDGE_BFLOAT16) widened += (uint64_t)edge_numel(&t->t) * 4u + 15u;
        }
        if (widened > 0x3fffffffu)
            return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                                "bfloat16 operands too large to widen to float32 (%lu bytes)",
                                (unsigned long)widened);
        make_view(c, sv, view, 0, 0, &cb, &sb);
        edge_op_ctx in_c = *c;
        in_c.view = view;
        edge_status st = inner->prepare(&in_c);
        reset_slots(c);
        if (st) return explain(c, st);
        /* The wrapped op's streaming promise is about its float32 views,
         * not the operands the planner places. */
        op->stream_in = 0;
        op->stream_d16 = 0;
        op->params_bytes = WRAP_HDR + a16(op->params_bytes) + cb;
        op->scratch_bytes = a16(op->scratch_bytes) + sb;
        return EDGE_OK;
    }
    /* Fill pass: the sizing pass left the totals in op; recompute the
     * wrapped op's own sizes with a sizing call on the same records. */
    wrap_hdr *h = (wrap_hdr *)c->params;
    uint8_t *base = (uint8_t *)c->params;
    const uint32_t total_params = op->params_bytes, total_scratch = op->scratch_bytes;
    const uint8_t stream_in = op->stream_in; /* as the sizing pass left them */
    const int16_t stream_d16 = op->stream_d16, stream_e16 = op->stream_e16;
    edge_op_ctx sizing = *c;
    sizing.params = 0;
    op->params_bytes = op->scratch_bytes = 0;
    saved sv[EDGE_MAX_OP_IO];
    edge_operand_view view[EDGE_MAX_OP_IO];
    uint32_t cb, sb;
    const int direct = runs_direct(c);
    if (!direct) {
        make_view(c, sv, view, 0, 0, &cb, &sb);
        sizing.view = view;
    }
    edge_status st = inner->prepare(&sizing);
    if (!direct) reset_slots(c);
    h->inner_params = op->params_bytes;
    h->inner_scratch = op->scratch_bytes;
    h->direct = (uint8_t)direct;
    op->params_bytes = total_params;
    op->scratch_bytes = total_scratch;
    op->stream_in = stream_in;
    op->stream_d16 = stream_d16;
    op->stream_e16 = stream_e16;
    if (st) return st;
    edge_op_ctx in_c = *c;
    in_c.params = h->inner_params ? base + WRAP_HDR : 0;
    if (direct) {
        if (!in_c.params) return EDGE_OK;
        return inner->prepare(&in_c);
    }
    /* Widen the constants once, and give the wrapped prepare the scratch
     * addresses eval will use, in case it keeps a pointer. */
    uint8_t *consts = base + WRAP_HDR + a16(h->inner_params);
    uint8_t *scratch = op->scratch_offset >= 0
                           ? c->m->arena + c->m->arena_records + op->scratch_offset + a16(h->inner_scratch)
                           : 0;
    make_view(c, sv, view, consts, scratch, &cb, &sb);
    for (uint32_t k = 0; k < op->n_in; k++) {
        if (!view[k].set || !sv[k].is_const || !sv[k].data) continue;
        widen((float *)view[k].data, (const uint16_t *)sv[k].data, sv[k].n);
    }
    in_c.view = view;
    st = in_c.params ? inner->prepare(&in_c) : EDGE_OK;
    reset_slots(c);
    return st;
}

static edge_status wrap_eval(edge_op_ctx *c, const edge_op_impl *inner) {
    const edge_op_rt *op = c->op;
    const wrap_hdr *h = (const wrap_hdr *)c->params;
    uint8_t *base = (uint8_t *)c->params;
    edge_op_ctx in_c = *c;
    in_c.params = h->inner_params ? base + WRAP_HDR : 0;
    if (h->direct) return inner->eval(&in_c);
    saved sv[EDGE_MAX_OP_IO];
    edge_operand_view view[EDGE_MAX_OP_IO];
    uint32_t cb, sb;
    /* No scratch at all when only constants were widened. */
    uint8_t *scratch = c->scratch ? (uint8_t *)c->scratch + a16(h->inner_scratch) : 0;
    in_c.scratch = h->inner_scratch ? c->scratch : 0;
    make_view(c, sv, view, base + WRAP_HDR + a16(h->inner_params), scratch, &cb, &sb);
    for (uint32_t k = 0; k < op->n_in; k++) {
        if (!view[k].set || sv[k].is_const) continue;
        widen((float *)view[k].data, (const uint16_t *)sv[k].data, sv[k].n);
    }
    in_c.view = view;
    edge_status st = inner->eval(&in_c);
    for (uint32_t k = op->n_in; k < op->n_in + op->n_out; k++) {
        if (!view[k].set) continue;
        narrow((uint16_t *)sv[k].data, (const float *)view[k].data, sv[k].n);
    }
    return st;
}

/* The twin of op `name`, running op `inner`'s float32 code (usually the
 * op itself). */
#define WRAP_INNER(name, inner, code, op_name, view)                                        \
    static edge_status prepare_##name(edge_op_ctx *c) { return wrap_prepare(c, &inner); }  \
    static edge_status eval_##name(edge_op_ctx *c) { return wrap_eval(c, &inner); }        \
    const edge_op_impl edge_op_##name##_f = {code, op_name, prepare_##name, eval_##name, view, 0, 0};
#define WRAP(name, code, op_name, view) WRAP_INNER(name, edge_op_##name, code, op_name, view)

WRAP_INNER(add, edge_op_add_float, EDGE_BUILTIN_ADD, "ADD", 0)
WRAP_INNER(sub, edge_op_sub_float, EDGE_BUILTIN_SUB, "SUB", 0)
WRAP_INNER(mul, edge_op_mul_float, EDGE_BUILTIN_MUL, "MUL", 0)
WRAP_INNER(average_pool_2d, edge_op_average_pool_2d_float, EDGE_BUILTIN_AVERAGE_POOL_2D, "AVERAGE_POOL_2D", 0)
WRAP_INNER(max_pool_2d, edge_op_max_pool_2d_float, EDGE_BUILTIN_MAX_POOL_2D, "MAX_POOL_2D", 0)
WRAP(mean, EDGE_BUILTIN_MEAN, "MEAN", 0)
WRAP_INNER(softmax, edge_op_softmax_float, EDGE_BUILTIN_SOFTMAX, "SOFTMAX", 0)
WRAP_INNER(logistic, edge_op_logistic_float, EDGE_BUILTIN_LOGISTIC, "LOGISTIC", 0)
WRAP_INNER(tanh, edge_op_tanh_float, EDGE_BUILTIN_TANH, "TANH", 0)
WRAP_INNER(hard_swish, edge_op_hard_swish_float, EDGE_BUILTIN_HARD_SWISH, "HARD_SWISH", 0)
WRAP_INNER(relu, edge_op_relu_float, EDGE_BUILTIN_RELU, "RELU", 0)
WRAP_INNER(relu6, edge_op_relu6_float, EDGE_BUILTIN_RELU6, "RELU6", 0)
WRAP_INNER(leaky_relu, edge_op_leaky_relu_float, EDGE_BUILTIN_LEAKY_RELU, "LEAKY_RELU", 0)
WRAP(reshape, EDGE_BUILTIN_RESHAPE, "RESHAPE", 1)
WRAP(squeeze, EDGE_BUILTIN_SQUEEZE, "SQUEEZE", 1)
WRAP(pad, EDGE_BUILTIN_PAD, "PAD", 0)
WRAP(padv2, EDGE_BUILTIN_PADV2, "PADV2", 0)
WRAP(concatenation, EDGE_BUILTIN_CONCATENATION, "CONCATENATION", 0)
WRAP(strided_slice, EDGE_BUILTIN_STRIDED_SLICE, "STRIDED_SLICE", 0)
WRAP(quantize, EDGE_BUILTIN_QUANTIZE, "QUANTIZE", 0)
WRAP(maximum, EDGE_BUILTIN_MAXIMUM, "MAXIMUM", 0)
WRAP(minimum, EDGE_BUILTIN_MINIMUM, "MINIMUM", 0)

/* DEQUANTIZE bfloat16 -> float32 is a widening; anything else with a float
 * input 0 goes to the op itself (which says what it does not take). */
static int dq_widens(const edge_op_ctx *c) {
    const edge_tensor_rt *in = edge_in(c, 0), *out = edge_out(c, 0);
    return c->op->n_in == 1 && c->op->n_out == 1 && in && out && in->t.type == EDGE_BFLOAT16 &&
           out->t.type == EDGE_FLOAT32;
}

static edge_status dq_prepare(edge_op_ctx *c) {
    if (!dq_widens(c)) return edge_op_dequantize.prepare(c);
    const edge_tensor_rt *in = edge_in(c, 0), *out = edge_out(c, 0);
    if (edge_numel(&in->t) != edge_numel(&out->t))
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input has %ld elements, output %ld",
                            (long)edge_numel(&in->t), (long)edge_numel(&out->t));
    if (!c->params) {
        c->op->params_bytes = 0;
        c->op->scratch_bytes = 0;
        c->op->macs = 0;
    }
    return EDGE_OK;
}

static edge_status dq_eval(edge_op_ctx *c) {
    if (!dq_widens(c)) return edge_op_dequantize.eval(c);
    const edge_tensor_rt *in = edge_in(c, 0);
    widen((float *)edge_out(c, 0)->t.data, (const uint16_t *)in->t.data, edge_numel(&in->t));
    return EDGE_OK;
}

const edge_op_impl edge_op_dequantize_f = {EDGE_BUILTIN_DEQUANTIZE, "DEQUANTIZE", dq_prepare, dq_eval, 0, 0, 0};
