/* SPDX-License-Identifier: Apache-2.0 */
/*
 * split.c — SPLIT (BuiltinOperator 49): input 1 cut into
 * SplitOptions.num_splits equal parts along the axis given by input 0 (a
 * constant int32 scalar; negative counts from the end), one per output.
 * As TFLite's kernel: float32, uint8, int8, int16 and int32 (int64 and
 * bool too, as bytes), the outputs of the input's type.
 */
#include "data_move.h"

typedef struct split_params {
    uint32_t outer; /* product of the dimensions before the axis */
    uint32_t chunk; /* bytes of one output per outer step */
    uint32_t n;
} split_params;

static int split_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_INT64 || t == EDGE_BOOL;
}

static edge_status prepare(edge_op_ctx *c) {
    const uint32_t n = c->op->n_out;
    const uint32_t ot = c->op->options_type;
    if (c->op->n_in != 2) return edge_op_fail(c, EDGE_ERR_MODEL, "expects 2 inputs, has %u", c->op->n_in);
    if (ot != 0 && ot != EDGE_BUILTIN_OPTIONS_SPLIT_OPTIONS)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not SplitOptions (type %u)", ot);
    const edge_tensor_rt *ax = edge_in(c, 0);
    edge_status st = edge_index_check(c, ax, "axis", 0, 1, 1);
    if (st) return st;
    const int32_t axis0 = (int32_t)edge_index_at(ax->t.data, ax->t.type, 0);
    const edge_tensor_rt *in = edge_in(c, 1);
    if (!in) return edge_op_fail(c, EDGE_ERR_MODEL, "input 1 missing");
    const int32_t num = edge_opt_i32(c, EDGE_F_SPLIT_OPTIONS_NUM_SPLITS, 0);
    if (num != (int32_t)n || n == 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "num_splits is %d but the op has %u outputs", num, n);
    if (!split_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank, axis = axis0 < 0 ? axis0 + rank : axis0;
    if (axis < 0 || axis >= rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside the input's %d dimensions", axis0, rank);
    if (in->t.dims[axis] % (int32_t)n != 0)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "dimension %d (%d) does not split into %u equal parts", axis,
                            in->t.dims[axis], n);
    for (uint32_t i = 0; i < n; i++) {
        const edge_tensor_rt *o = edge_out(c, i);
        if (!o) return edge_op_fail(c, EDGE_ERR_MODEL, "output %u missing", i);
        if (o->t.type != in->t.type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "output %u is %s, the input %s", i,
                                edge_type_name(o->t.type), edge_type_name(in->t.type));
        int ok = o->t.rank == rank;
        for (int32_t d = 0; ok && d < rank; d++)
            ok = o->t.dims[d] == (d == axis ? in->t.dims[d] / (int32_t)n : in->t.dims[d]);
        if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output %u's shape is not a 1/%u of the input's", i, n);
    }
    split_params p;
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; d++) outer *= in->t.dims[d];
    p.outer = (uint32_t)outer;
    p.n = n;
    p.chunk = outer ? (uint32_t)(in->t.bytes / (uint64_t)outer / n) : 0u;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const split_params *p = (const split_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 1);
    for (uint32_t k = 0; k < p->outer; k++) {
        for (uint32_t i = 0; i < p->n; i++) {
            edge_memcpy((uint8_t *)edge_out_data(c, i) + (size_t)k * p->chunk, src, p->chunk);
            src += p->chunk;
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_split = {EDGE_BUILTIN_SPLIT, "SPLIT", prepare, eval, 0, 0, 0};
