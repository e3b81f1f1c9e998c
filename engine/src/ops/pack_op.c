/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack_op.c — PACK (BuiltinOperator 83): N inputs of one shape stacked
 * along a new dimension `axis` of the output (PackOptions.values_count must be N;
 * a negative axis counts from the end of the output's rank). As TFLite's
 * kernel: int8, uint8, int16, int32, uint32, int64 and float32, every
 * input quantized as the output (it does not rescale).
 * (Not pack.c: engine/src has one, and flat object layouts such as
 * PlatformIO's would take one for the other.)
 */
#include "data_move.h"

typedef struct pack_params {
    uint32_t outer; /* product of the dimensions before the axis */
    uint32_t chunk; /* bytes of one input per outer step */
    uint32_t n;
} pack_params;

static const edge_op_form form = {1, EDGE_MAX_OP_IO - 1, 0, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_PACK_OPTIONS,
                                   0, "PackOptions"};

static int pack_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_UINT32 ||
           t == EDGE_INT64 || t == EDGE_FLOAT32;
}

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in0, *out;
    edge_status st = edge_op_begin(c, &form, &in0, &out);
    if (st) return st;
    const uint32_t n = c->op->n_in;
    const int32_t count = edge_opt_i32(c, EDGE_F_PACK_OPTIONS_VALUES_COUNT, 0);
    if (count != (int32_t)n)
        return edge_op_fail(c, EDGE_ERR_MODEL, "values_count is %d but the op has %u inputs", count, n);
    if (!pack_type(in0->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (int8, uint8, int16, int32, uint32, int64, float32)",
                            edge_type_name(in0->t.type));
    const int32_t rank = in0->t.rank, axis0 = edge_opt_i32(c, EDGE_F_PACK_OPTIONS_AXIS, 0);
    const int32_t axis = axis0 < 0 ? axis0 + rank + 1 : axis0;
    if (axis < 0 || axis > rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside [%d, %d]", axis0, -rank - 1, rank);
    if (out->t.rank != rank + 1)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "output is %d-D, expected %d-D", out->t.rank, rank + 1);
    for (uint32_t i = 0; i < n; i++) {
        const edge_tensor_rt *t = edge_in(c, i);
        if (!t) return edge_op_fail(c, EDGE_ERR_MODEL, "input %u missing", i);
        if (t->t.type != in0->t.type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "input %u is %s, input 0 %s", i, edge_type_name(t->t.type),
                                edge_type_name(in0->t.type));
        for (int32_t d = 0, k = 0; d <= rank; d++) {
            const int32_t want = d == axis ? (int32_t)n : t->t.dims[k++];
            if (t->t.rank != rank || out->t.dims[d] != want)
                return edge_op_fail(c, EDGE_ERR_SHAPE, "input %u's shape does not stack into the output's", i);
        }
        st = edge_same_quant(c, t, out, "an input");
        if (st) return st;
    }
    pack_params p;
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; d++) outer *= out->t.dims[d];
    p.outer = (uint32_t)outer;
    p.n = n;
    p.chunk = outer ? (uint32_t)(in0->t.bytes / (uint64_t)outer) : 0u;
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const pack_params *p = (const pack_params *)c->params;
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    for (uint32_t k = 0; k < p->outer; k++) {
        for (uint32_t i = 0; i < p->n; i++) {
            edge_memcpy(dst, (const uint8_t *)edge_in_data(c, i) + (size_t)k * p->chunk, p->chunk);
            dst += p->chunk;
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_pack = {EDGE_BUILTIN_PACK, "PACK", prepare, eval, 0, 0, 0};
