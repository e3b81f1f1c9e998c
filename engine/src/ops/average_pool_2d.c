/* SPDX-License-Identifier: Apache-2.0 */
/*
 * average_pool_2d.c — AVERAGE_POOL_2D (BuiltinOperator 1).
 *
 * As TFLite's reference AveragePool (see kernels/pool.h for the rounding); the shared prepare is in pool_2d.c.
 */
#include "pool_2d.h"

static edge_status prepare(edge_op_ctx *c) { return edge_pool2d_prepare(c, 1, 0); }
static edge_status eval(edge_op_ctx *c) { return edge_pool2d_eval(c, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_pool2d_prepare(c, 1, 1); }
static edge_status eval_f(edge_op_ctx *c) { return edge_pool2d_eval_f(c, 0); }

const edge_op_impl edge_op_average_pool_2d = {EDGE_BUILTIN_AVERAGE_POOL_2D, "AVERAGE_POOL_2D", prepare, eval, 0, 0, 0};
/* The float32 code, run by the float twin (float_wrap.c). */
const edge_op_impl edge_op_average_pool_2d_float = {EDGE_BUILTIN_AVERAGE_POOL_2D, "AVERAGE_POOL_2D", prepare_f, eval_f, 0, 0, 0};
