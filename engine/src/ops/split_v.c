/* SPDX-License-Identifier: Apache-2.0 */
/*
 * split_v.c — SPLIT_V (BuiltinOperator 102): input 0 cut along the axis of
 * input 2 (a constant int32 scalar; negative counts from the end) into
 * parts of the sizes input 1 lists (constant int32 or int64, one per
 * output; one -1 takes what the others leave), as TFLite's kernel. Types:
 * float32, uint8, int8, int16, int32 and int64 (bool too, as bytes).
 */
#include "data_move.h"

typedef struct split_v_params {
    uint32_t outer; /* product of the dimensions before the axis */
    uint32_t n;
    uint32_t chunk[]; /* bytes of output i per outer step (n entries) */
} split_v_params;

static int split_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    const uint32_t n = c->op->n_out;
    const uint32_t ot = c->op->options_type;
    if (c->op->n_in != 3) return edge_op_fail(c, EDGE_ERR_MODEL, "expects 3 inputs, has %u", c->op->n_in);
    if (ot != 0 && ot != EDGE_BUILTIN_OPTIONS_SPLIT_V_OPTIONS)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not SplitVOptions (type %u)", ot);
    const edge_tensor_rt *in = edge_in(c, 0), *sz = edge_in(c, 1), *ax = edge_in(c, 2);
    if (!in) return edge_op_fail(c, EDGE_ERR_MODEL, "input 0 missing");
    const int32_t num = edge_opt_i32(c, EDGE_F_SPLIT_V_OPTIONS_NUM_SPLITS, 0);
    if (num != (int32_t)n || n == 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "num_splits is %d but the op has %u outputs", num, n);
    edge_status st = edge_index_check(c, sz, "size_splits", 1, (int32_t)n, 1);
    if (!st) st = edge_index_check(c, ax, "axis", 0, 1, 1);
    if (st) return st;
    if (sz->t.rank != 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "size_splits must be 1-D");
    if (!split_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t axis0 = (int32_t)edge_index_at(ax->t.data, ax->t.type, 0);
    const int32_t rank = in->t.rank, axis = axis0 < 0 ? axis0 + rank : axis0;
    if (axis < 0 || axis >= rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside the input's %d dimensions", axis0, rank);
    /* The sizes, the -1 resolved; every part must fit. */
    const int32_t dim = in->t.dims[axis];
    int64_t sum = 0;
    int32_t stretch = -1;
    for (uint32_t i = 0; i < n; i++) {
        const int64_t s = edge_index_at(sz->t.data, sz->t.type, i);
        if (s == -1 && stretch < 0) {
            stretch = (int32_t)i;
            continue;
        }
        if (s < 0 || s > dim)
            return edge_op_fail(c, EDGE_ERR_MODEL, "size_splits[%u] = %ld is outside [0, %d]", i, (long)s, dim);
        sum += s;
    }
    if (stretch < 0 ? sum != dim : sum > dim)
        return edge_op_fail(c, EDGE_ERR_MODEL, "size_splits add up to %ld, dimension %d is %d", (long)sum, axis,
                            dim);
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < axis; d++) outer *= in->t.dims[d];
    for (int32_t d = axis + 1; d < rank; d++) inner *= in->t.dims[d];
    const uint32_t es = (uint32_t)edge_type_size(in->t.type);
    const uint32_t bytes = (uint32_t)(sizeof(split_v_params) + n * sizeof(uint32_t));
    if (!c->params) {
        c->op->params_bytes = bytes;
    }
    split_v_params *p = (split_v_params *)c->params;
    for (uint32_t i = 0; i < n; i++) {
        const int64_t s = (int32_t)i == stretch ? dim - sum : edge_index_at(sz->t.data, sz->t.type, i);
        const edge_tensor_rt *o = edge_out(c, i);
        if (!o) return edge_op_fail(c, EDGE_ERR_MODEL, "output %u missing", i);
        if (o->t.type != in->t.type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "output %u is %s, the input %s", i,
                                edge_type_name(o->t.type), edge_type_name(in->t.type));
        int ok = o->t.rank == rank;
        for (int32_t d = 0; ok && d < rank; d++) ok = o->t.dims[d] == (d == axis ? s : in->t.dims[d]);
        if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output %u's shape is not part %u of the input", i, i);
        if (p) p->chunk[i] = (uint32_t)(s * inner * es);
    }
    if (p) {
        p->outer = (uint32_t)outer;
        p->n = n;
    }
    return EDGE_OK;
}

static edge_status eval(edge_op_ctx *c) {
    const split_v_params *p = (const split_v_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint32_t off[EDGE_MAX_OP_IO] = {0};
    for (uint32_t k = 0; k < p->outer; k++) {
        for (uint32_t i = 0; i < p->n; i++) {
            edge_memcpy((uint8_t *)edge_out_data(c, i) + off[i], src, p->chunk[i]);
            src += p->chunk[i];
            off[i] += p->chunk[i];
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_split_v = {EDGE_BUILTIN_SPLIT_V, "SPLIT_V", prepare, eval, 0, 0, 0};
