/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reshape.c — RESHAPE (BuiltinOperator 22): a pure view of its input.
 *
 * The output tensor's static shape in the model is authoritative (the engine
 * runs no dynamic shapes). The requested shape is only checked against it:
 * TFLite takes it from the second input when that is an int32 vector, else
 * from ReshapeOptions.new_shape, where the legacy value [0] means a scalar;
 * one -1 entry stretches to fit the element count. A non-constant shape input
 * cannot be checked and is ignored. Any element type: the bytes are copied,
 * and only when the planner did not already place the output on the input.
 */
#include "op_common.h"

enum { RESHAPE_OPTIONS_TYPE = EDGE_BUILTIN_OPTIONS_RESHAPE_OPTIONS };
enum { OPT_NEW_SHAPE = EDGE_F_RESHAPE_OPTIONS_NEW_SHAPE };

/* Does the requested shape (n int32 entries at `shape`) resolve to `out`'s? */
static edge_status check_new_shape(const edge_op_ctx *c, const uint8_t *shape, uint32_t n,
                                   int64_t in_count, const edge_tensor *out, const char *from) {
    int32_t dims[EDGE_MAX_DIMS];
    if (n > EDGE_MAX_DIMS)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "new shape from %s has %u dimensions (at most %d)",
                            from, n, EDGE_MAX_DIMS);
    int64_t known = 1;
    int32_t stretch = -1;
    for (uint32_t i = 0; i < n; i++) {
        dims[i] = fb_i32_at(shape, i);
        if (dims[i] == -1) {
            if (stretch >= 0)
                return edge_op_fail(c, EDGE_ERR_MODEL, "new shape from %s has more than one -1", from);
            stretch = (int32_t)i;
        } else if (dims[i] < 0) {
            return edge_op_fail(c, EDGE_ERR_MODEL, "new shape from %s has dimension %u = %d", from,
                                i, dims[i]);
        } else {
            known *= dims[i];
            if (known > 0x7fffffff)
                return edge_op_fail(c, EDGE_ERR_SHAPE, "new shape from %s is too large", from);
        }
    }
    if (stretch >= 0) {
        if (known == 0)
            return edge_op_fail(c, EDGE_ERR_SHAPE, "new shape from %s: cannot infer -1 beside a 0",
                                from);
        dims[stretch] = (int32_t)(in_count / known);
    }
    if ((int32_t)n != out->rank)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "new shape from %s has %u dimensions, the output %d", from, n,
                            out->rank);
    for (uint32_t i = 0; i < n; i++)
        if (dims[i] != out->dims[i])
            return edge_op_fail(c, EDGE_ERR_SHAPE,
                                "new shape from %s disagrees with the output's shape: dimension %u is %d, "
                                "the output's %d",
                                from, i, dims[i], out->dims[i]);
    return EDGE_OK;
}

static const edge_op_form form = {1, 2, 0, EDGE_FORM_SAME_TYPE | EDGE_FORM_SIZED, RESHAPE_OPTIONS_TYPE, 0,
                                   "ReshapeOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_tensor_rt *shape = edge_in(c, 1);
    const int64_t in_count = edge_numel(&in->t), out_count = edge_numel(&out->t);
    if (in_count != out_count || in->t.bytes != out->t.bytes)
        return edge_op_fail(c, EDGE_ERR_SHAPE, "input has %ld elements but output has %ld",
                            (long)in_count, (long)out_count);

    if (shape && shape->t.rank == 1 && shape->t.type == EDGE_INT32) {
        if (shape->is_const)
            st = check_new_shape(c, (const uint8_t *)shape->t.data, (uint32_t)shape->t.dims[0],
                                 in_count, &out->t, "the shape input");
    } else {
        uint32_t n = 0;
        const uint8_t *v = edge_opt_vec_i32(c, OPT_NEW_SHAPE, &n);
        if (n == 1 && fb_i32_at(v, 0) == 0) n = 0; /* legacy spelling of a scalar */
        if (v) st = check_new_shape(c, v, n, in_count, &out->t, "new_shape");
    }
    return st;
}

const edge_op_impl edge_op_reshape = {EDGE_BUILTIN_RESHAPE, "RESHAPE", prepare, edge_op_view_eval, 1, 0, 0};
