/* SPDX-License-Identifier: Apache-2.0 */
/*
 * add_sub.h — the shared implementation of ADD and SUB (add_sub.c).
 */
#ifndef EDGE_OPS_ADD_SUB_H
#define EDGE_OPS_ADD_SUB_H

#include "ops.h"

/* sub: 0 for ADD, 1 for SUB (a - b). float_ok: the float twin's inner
 * op (edge_op_add_float ...); the int8 op refuses float32, so that an
 * int8-only build links no float code. */
edge_status edge_addsub_prepare(edge_op_ctx *c, int sub, int float_ok);
edge_status edge_addsub_eval(edge_op_ctx *c);
edge_status edge_addsub_eval_f(edge_op_ctx *c);

#endif
