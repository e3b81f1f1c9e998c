/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broadcast_args.c — BROADCAST_ARGS (BuiltinOperator 145): the shape two
 * shapes broadcast to (inputs 0 and 1: 1-D int32 or int64, the output of
 * the same type and as long as the longer), NumPy's rule as TFLite's
 * kernel: aligned at the end, a 1 takes the other's size. The shapes may
 * be computed: incompatible ones stop the op with EDGE_ERR_SHAPE at
 * invoke (at load when both are constant).
 */
#include "data_move.h"

typedef struct bargs_params {
    int32_t na, nb, n;
    uint32_t is64;
} bargs_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE, 0, 0, "no options"};

static edge_status run(const edge_op_ctx *c, const bargs_params *p, const void *a, const void *b, uint8_t *dst) {
    const edge_type t = p->is64 ? EDGE_INT64 : EDGE_INT32;
    for (int32_t i = 0; i < p->n; i++) {
        const int32_t ia = i - (p->n - p->na), ib = i - (p->n - p->nb);
        const int64_t x = ia >= 0 ? edge_index_at(a, t, (uint32_t)ia) : 1;
        const int64_t y = ib >= 0 ? edge_index_at(b, t, (uint32_t)ib) : 1;
        if (x != y && x != 1 && y != 1)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "shapes do not broadcast: %ld against %ld at %d", (long)x,
                                (long)y, i);
        const int64_t v = x == 1 ? y : x;
        if (dst) {
            const uint32_t es = p->is64 ? 8u : 4u;
            for (uint32_t k = 0; k < es; k++) dst[(uint32_t)i * es + k] = (uint8_t)((uint64_t)v >> (8u * k));
        }
    }
    return EDGE_OK;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *a, *out;
    edge_status st = edge_op_begin(c, &form, &a, &out);
    if (st) return st;
    const edge_tensor_rt *b = edge_in(c, 1);
    st = edge_index_check(c, a, "shape 0", 1, -1, 0);
    if (!st) st = edge_index_check(c, b, "shape 1", 1, -1, 0);
    if (st) return st;
    if (b->t.type != a->t.type) return edge_op_fail(c, EDGE_ERR_MODEL, "the two shapes differ in type");
    bargs_params p;
    p.na = (int32_t)edge_numel(&a->t);
    p.nb = (int32_t)edge_numel(&b->t);
    p.n = p.na > p.nb ? p.na : p.nb;
    p.is64 = a->t.type == EDGE_INT64;
    if (out->t.rank != 1 || out->t.dims[0] != p.n)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output must be a vector of %d elements", p.n);
    if (a->is_const && b->is_const) {
        st = run(c, &p, a->t.data, b->t.data, 0);
        if (st) return st;
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    return run(c, (const bargs_params *)c->params, edge_in_data(c, 0), edge_in_data(c, 1),
               (uint8_t *)edge_out_data(c, 0));
}

const edge_op_impl edge_op_broadcast_args = {EDGE_BUILTIN_BROADCAST_ARGS, "BROADCAST_ARGS", prepare, eval, 0, 0, 0};
