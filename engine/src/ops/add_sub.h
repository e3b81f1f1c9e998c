/*
 * add_sub.h — the shared implementation of ADD and SUB (add_sub.c).
 */
#ifndef EDGE_OPS_ADD_SUB_H
#define EDGE_OPS_ADD_SUB_H

#include "ops.h"

/* sub: 0 for ADD, 1 for SUB (a - b). */
edge_status edge_addsub_prepare(edge_op_ctx *c, int sub);
edge_status edge_addsub_eval(edge_op_ctx *c);

#endif
