/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unpack.c — UNPACK (BuiltinOperator 88): input 0 cut along `axis` into
 * UnpackOptions.num outputs, each without that dimension (a negative axis
 * counts from the end). As TFLite's kernel: int8, uint8, int16, int32,
 * float32 and bool (and float16/bfloat16 as bytes), the outputs quantized
 * as the input.
 */
#include "data_move.h"

typedef struct unpack_params {
    uint32_t outer; /* product of the dimensions before the axis */
    uint32_t chunk; /* bytes of one output per outer step */
    uint32_t n;
} unpack_params;

static int unpack_type(edge_type t) {
    return t == EDGE_INT8 || t == EDGE_UINT8 || t == EDGE_INT16 || t == EDGE_INT32 || t == EDGE_FLOAT32 ||
           t == EDGE_BOOL || t == EDGE_FLOAT16 || t == EDGE_BFLOAT16;
}

static edge_status prepare(edge_op_ctx *c) {
    const uint32_t n = c->op->n_out;
    const edge_tensor_rt *in = edge_in(c, 0);
    if (c->op->n_in != 1 || !in) return edge_op_fail(c, EDGE_ERR_MODEL, "expects 1 input");
    const uint32_t ot = c->op->options_type;
    if (ot != 0 && ot != EDGE_BUILTIN_OPTIONS_UNPACK_OPTIONS)
        return edge_op_fail(c, EDGE_ERR_MODEL, "options are not UnpackOptions (type %u)", ot);
    const int32_t num = edge_opt_i32(c, EDGE_F_UNPACK_OPTIONS_NUM, 0);
    if (num != (int32_t)n || n == 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "num is %d but the op has %u outputs", num, n);
    if (!unpack_type(in->t.type))
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (int8, uint8, int16, int32, float32, bool)",
                            edge_type_name(in->t.type));
    const int32_t rank = in->t.rank, axis0 = edge_opt_i32(c, EDGE_F_UNPACK_OPTIONS_AXIS, 0);
    const int32_t axis = axis0 < 0 ? axis0 + rank : axis0;
    if (axis < 0 || axis >= rank)
        return edge_op_fail(c, EDGE_ERR_MODEL, "axis %d is outside the input's %d dimensions", axis0, rank);
    if (in->t.dims[axis] != (int32_t)n)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "dimension %d is %d, not the %u outputs", axis, in->t.dims[axis],
                            n);
    if (edge_numel(&in->t) == 0) return edge_op_fail(c, EDGE_ERR_SHAPE, "input is empty");
    for (uint32_t i = 0; i < n; i++) {
        const edge_tensor_rt *o = edge_out(c, i);
        if (!o) return edge_op_fail(c, EDGE_ERR_MODEL, "output %u missing", i);
        if (o->t.type != in->t.type)
            return edge_op_fail(c, EDGE_ERR_MODEL, "output %u is %s, the input %s", i,
                                edge_type_name(o->t.type), edge_type_name(in->t.type));
        int ok = o->t.rank == rank - 1;
        for (int32_t d = 0, k = 0; ok && d < rank; d++)
            if (d != axis) ok = o->t.dims[k++] == in->t.dims[d];
        if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output %u's shape is not the input's without axis %d", i, axis);
        edge_status st = edge_same_quant(c, in, o, "the input");
        if (st) return st;
    }
    unpack_params p;
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; d++) outer *= in->t.dims[d];
    p.outer = (uint32_t)outer;
    p.n = n;
    p.chunk = (uint32_t)(in->t.bytes / (uint64_t)outer / n);
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const unpack_params *p = (const unpack_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    for (uint32_t k = 0; k < p->outer; k++) {
        for (uint32_t i = 0; i < p->n; i++) {
            edge_memcpy((uint8_t *)edge_out_data(c, i) + (size_t)k * p->chunk, src, p->chunk);
            src += p->chunk;
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_unpack = {EDGE_BUILTIN_UNPACK, "UNPACK", prepare, eval, 0, 0, 0};
