/*
 * weighted_op.h — the operand checks CONV_2D, DEPTHWISE_CONV_2D and
 * FULLY_CONNECTED share: input, weights, optional int32 bias and output,
 * int8 or uint8 throughout, and the expected options table.
 */
#ifndef EDGE_OPS_WEIGHTED_OP_H
#define EDGE_OPS_WEIGHTED_OP_H

#include "ops.h"

typedef struct weighted_operands {
    edge_tensor_rt *in, *w, *bias, *out; /* bias NULL when absent */
    int is_u8;                           /* uint8 (TF1 asymmetric) rather than int8 */
} weighted_operands;

/* w_name ("filter", "weights") and options_name word the errors. */
edge_status edge_weighted_operands(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                   const char *w_name, weighted_operands *o);

static inline uint32_t align16(uint32_t x) { return (x + 15u) & ~15u; }

#endif
