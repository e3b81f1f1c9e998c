/* SPDX-License-Identifier: Apache-2.0 */
/*
 * add.c — ADD (BuiltinOperator 0): add_sub.c with the operands added.
 */
#include "add_sub.h"

static edge_status prepare(edge_op_ctx *c) { return edge_addsub_prepare(c, 0, 0); }
static edge_status prepare_f(edge_op_ctx *c) { return edge_addsub_prepare(c, 0, 1); }

const edge_op_impl edge_op_add = {EDGE_BUILTIN_ADD, "ADD", prepare, edge_addsub_eval, 0, 0, 0};
/* Only the float twin runs it (float_wrap.c). */
const edge_op_impl edge_op_add_float = {EDGE_BUILTIN_ADD, "ADD", prepare_f, edge_addsub_eval_f, 0, 0, 0};
