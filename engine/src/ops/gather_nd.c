/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gather_nd.c — GATHER_ND (BuiltinOperator 107): for each index vector in
 * input 1 (its last dimension k, int16, int32 or int64), the slice
 * params[i0, ..., ik-1, :] of input 0, as TFLite's reference kernel:
 *   output = indices[:-1] + params[k:].
 * Constant indices are checked at load; computed ones at invoke, where an
 * index outside its dimension stops the op with EDGE_ERR_ARG before
 * anything is read out of bounds. Params of any fixed-size type, moved as
 * bytes.
 */
#include "data_move.h"

typedef struct gather_nd_params {
    uint32_t n;      /* index vectors */
    uint32_t depth;  /* k */
    uint32_t chunk;  /* bytes of one slice */
    uint32_t idx_type;
    int32_t dims[EDGE_MAX_DIMS];    /* params' first k dimensions */
    uint32_t stride[EDGE_MAX_DIMS]; /* slices per index step of each */
} gather_nd_params;

static const edge_op_form form = {2, 2, 2, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED,
                                   EDGE_BUILTIN_OPTIONS_GATHER_ND_OPTIONS, 0, "GatherNdOptions"};

static int64_t index_at(const void *data, uint32_t type, uint32_t i) {
    if (type == EDGE_INT16) return (int16_t)fb_rd_u16((const uint8_t *)data + 2u * i);
    return edge_index_at(data, (edge_type)type, i);
}

/* The first bad index, or -1. */
static int64_t first_bad(const gather_nd_params *p, const void *idx) {
    for (uint32_t i = 0; i < p->n * p->depth; i++) {
        const int64_t v = index_at(idx, p->idx_type, i);
        if (v < 0 || v >= p->dims[i % p->depth]) return (int64_t)i;
    }
    return -1;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *idx = edge_in(c, 1);
    const edge_type it = idx->t.type;
    if (it != EDGE_INT32 && it != EDGE_INT64 && it != EDGE_INT16)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "indices are %s (int16, int32 or int64 supported)",
                            edge_type_name(it));
    const int32_t rank = in->t.rank, irank = idx->t.rank;
    if (irank < 1) return edge_op_fail(c, EDGE_ERR_SHAPE, "indices must have at least 1 dimension");
    const int32_t k = idx->t.dims[irank - 1];
    if (k < 1 || k > rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "index depth %d does not fit params' %d dimensions", k, rank);
    int ok = out->t.rank == irank - 1 + rank - k;
    for (int32_t d = 0; ok && d < irank - 1; d++) ok = out->t.dims[d] == idx->t.dims[d];
    for (int32_t d = k; ok && d < rank; d++) ok = out->t.dims[irank - 1 + d - k] == in->t.dims[d];
    if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not indices[:-1] + params[k:]");
    gather_nd_params p;
    edge_memset(&p, 0, sizeof p);
    int64_t inner = 1;
    for (int32_t d = k; d < rank; d++) inner *= in->t.dims[d];
    p.n = (uint32_t)(edge_numel(&idx->t) / k);
    p.depth = (uint32_t)k;
    p.chunk = (uint32_t)(inner * (int64_t)edge_type_size(in->t.type));
    p.idx_type = (uint32_t)it;
    uint32_t s = 1;
    for (int32_t d = k - 1; d >= 0; d--) {
        p.dims[d] = in->t.dims[d];
        p.stride[d] = s;
        s *= (uint32_t)in->t.dims[d];
    }
    if (idx->is_const) {
        const int64_t bad = first_bad(&p, idx->t.data);
        if (bad >= 0)
            return edge_op_fail(c, EDGE_ERR_MODEL, "index element %ld is outside its dimension", (long)bad);
    }
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const gather_nd_params *p = (const gather_nd_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    const void *idx = edge_in_data(c, 1);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const int64_t bad = first_bad(p, idx);
    if (bad >= 0)
        return edge_op_fail(c, EDGE_ERR_ARG, "index element %ld is %ld, outside [0, %d)", (long)bad,
                            (long)index_at(idx, p->idx_type, (uint32_t)bad), p->dims[bad % p->depth]);
    for (uint32_t i = 0; i < p->n; i++, dst += p->chunk) {
        size_t at = 0;
        for (uint32_t d = 0; d < p->depth; d++)
            at += (size_t)index_at(idx, p->idx_type, i * p->depth + d) * p->stride[d];
        edge_memcpy(dst, src + at * p->chunk, p->chunk);
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_gather_nd = {EDGE_BUILTIN_GATHER_ND, "GATHER_ND", prepare, eval, 0, 0, 0};
