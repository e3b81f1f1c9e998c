/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weighted_op_f.h — the operand checks the float twins of CONV_2D,
 * DEPTHWISE_CONV_2D and FULLY_CONNECTED share: input, weights, optional
 * bias and output, each FLOAT32 or BFLOAT16 independently.
 */
#ifndef EDGE_OPS_WEIGHTED_OP_F_H
#define EDGE_OPS_WEIGHTED_OP_F_H

#include "ops.h"

typedef struct weighted_operands_f {
    edge_tensor_rt *in, *w, *bias, *out; /* bias NULL when absent */
} weighted_operands_f;

/* w_name ("filter", "weights") and options_name word the errors. Int8
 * weights under float activations (TFLite's "hybrid" ops) are refused with
 * a message that says so. */
edge_status edge_weighted_operands_f(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                     const char *w_name, weighted_operands_f *o);

static inline int edge_is_float_type(edge_type t) { return t == EDGE_FLOAT32 || t == EDGE_BFLOAT16; }

#endif
