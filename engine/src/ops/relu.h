/*
 * relu.h — RELU and RELU6 share one body: RELU6 is RELU with an upper
 * bound at 6.
 */
#ifndef EDGE_OPS_RELU_H
#define EDGE_OPS_RELU_H

#include "ops.h"

edge_status edge_relu_prepare(edge_op_ctx *c, int capped_at_6);
edge_status edge_relu_eval(edge_op_ctx *c);

#endif
