/* SPDX-License-Identifier: Apache-2.0 */
/*
 * max_pool_2d.c — MAX_POOL_2D (BuiltinOperator 17).
 *
 * As TFLite's reference MaxPool; the shared prepare is in pool_2d.c.
 */
#include "pool_2d.h"

static edge_status prepare(edge_op_ctx *c) { return edge_pool2d_prepare(c, 0, 0); }
static edge_status eval(edge_op_ctx *c) { return edge_pool2d_eval(c, 1); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_pool2d_prepare(c, 0, 1); }
static edge_status eval_f(edge_op_ctx *c) { return edge_pool2d_eval_f(c, 1); }

const edge_op_impl edge_op_max_pool_2d = {EDGE_BUILTIN_MAX_POOL_2D, "MAX_POOL_2D", prepare, eval, 0, 0, 0};
/* The float32 code, run by the float twin (float_wrap.c). */
const edge_op_impl edge_op_max_pool_2d_float = {EDGE_BUILTIN_MAX_POOL_2D, "MAX_POOL_2D", prepare_f, eval_f, 0, 0, 0};
