/* SPDX-License-Identifier: Apache-2.0 */
/*
 * embedding_lookup.c — EMBEDDING_LOOKUP (BuiltinOperator 7): the rows of
 * input 1 (value, at least 2-D) that input 0 (1-D int32 ids) names, as
 * TFLite's kernel: a byte copy of each row for float32 values, and for
 * int8/uint8 values into an output of the same type; into a float32
 * output (the hybrid form) each element is the value's byte read as int8
 * times its scale (TFLite's double product, rounded to float). An id
 * outside the rows stops the op with EDGE_ERR_ARG at invoke (at load when
 * the ids are constant), before anything is read.
 */
#include "data_move.h"

typedef struct embed_params {
    uint32_t n;     /* ids */
    uint32_t rows;
    uint32_t row;   /* elements per row */
    uint32_t elem;  /* value element bytes */
    uint32_t hybrid;
    float scale;
} embed_params;

static const edge_op_form form = {2, 2, 2, 0, 0, 0, "no options"};

static int64_t first_bad(const embed_params *p, const void *ids) {
    for (uint32_t i = 0; i < p->n; i++) {
        const int64_t v = edge_index_at(ids, EDGE_INT32, i);
        if (v < 0 || v >= p->rows) return (int64_t)i;
    }
    return -1;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *ids, *out;
    edge_status st = edge_op_begin(c, &form, &ids, &out);
    if (st) return st;
    st = edge_index_check(c, ids, "ids", 0, -1, 0);
    if (st) return st;
    if (ids->t.rank != 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "ids must be 1-D");
    const edge_tensor_rt *v = edge_in(c, 1);
    const edge_type vt = v->t.type, ot = out->t.type;
    const int hybrid = (vt == EDGE_INT8 || vt == EDGE_UINT8) && ot == EDGE_FLOAT32;
    if (!(vt == EDGE_FLOAT32 || vt == EDGE_INT8 || vt == EDGE_UINT8) || (!hybrid && ot != vt))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "value %s -> output %s not supported (float32, int8 or uint8; int8/uint8 -> float32)",
                            edge_type_name(vt), edge_type_name(ot));
    if (v->t.rank < 2) return edge_op_fail(c, EDGE_ERR_SHAPE, "value must have at least 2 dimensions");
    int ok = out->t.rank == v->t.rank && out->t.dims[0] == ids->t.dims[0];
    for (int32_t d = 1; ok && d < v->t.rank; d++) ok = out->t.dims[d] == v->t.dims[d];
    if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not [ids] + value[1:]");
    embed_params p;
    edge_memset(&p, 0, sizeof p);
    p.n = (uint32_t)ids->t.dims[0];
    p.rows = (uint32_t)v->t.dims[0];
    p.row = p.rows ? (uint32_t)(edge_numel(&v->t) / p.rows) : 0u;
    p.elem = (uint32_t)edge_type_size(vt);
    p.hybrid = (uint32_t)hybrid;
    p.scale = edge_q_scale(v, 0);
    if (ids->is_const && first_bad(&p, ids->t.data) >= 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "id %ld is outside the %u rows", (long)first_bad(&p, ids->t.data),
                            p.rows);
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const embed_params *p = (const embed_params *)c->params;
    const void *ids = edge_in_data(c, 0);
    const uint8_t *v = (const uint8_t *)edge_in_data(c, 1);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const int64_t bad = first_bad(p, ids);
    if (bad >= 0)
        return edge_op_fail(c, EDGE_ERR_ARG, "id %ld is %ld, outside [0, %u)", (long)bad,
                            (long)edge_index_at(ids, EDGE_INT32, (uint32_t)bad), p->rows);
    const size_t row_bytes = (size_t)p->row * p->elem;
    for (uint32_t i = 0; i < p->n; i++) {
        const uint8_t *r = v + (size_t)edge_index_at(ids, EDGE_INT32, i) * row_bytes;
        if (!p->hybrid) {
            edge_memcpy(dst, r, row_bytes);
            dst += row_bytes;
            continue;
        }
        for (uint32_t j = 0; j < p->row; j++, dst += 4) {
            /* TFLite multiplies in double; an 8-bit integer times a float
             * is exact in double, so the float product (rounded once) is
             * the same number. */
            const float f = (float)(int8_t)r[j] * p->scale;
            edge_memcpy(dst, &f, 4);
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_embedding_lookup = {EDGE_BUILTIN_EMBEDDING_LOOKUP, "EMBEDDING_LOOKUP", prepare, eval,
                                               0, 0, 0};
