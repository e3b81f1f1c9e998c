/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sub.c — SUB (BuiltinOperator 41): add_sub.c with the second operand
 * subtracted.
 */
#include "add_sub.h"

static edge_status prepare(edge_op_ctx *c) { return edge_addsub_prepare(c, 1, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_addsub_prepare(c, 1, 1); }

const edge_op_impl edge_op_sub = {EDGE_BUILTIN_SUB, "SUB", prepare, edge_addsub_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_sub_float = {EDGE_BUILTIN_SUB, "SUB", prepare_f, edge_addsub_eval_f, 0, 0, 0};
