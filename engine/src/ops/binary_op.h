/* SPDX-License-Identifier: Apache-2.0 */
/*
 * binary_op.h — the operand checks ADD, SUB and MUL share: two inputs and
 * an output of one type (int8, uint8, int16 or float32), the output shape
 * the broadcast of the inputs', the fused activation, and for the
 * quantized types positive scales and zero points inside the type.
 */
#ifndef EDGE_OPS_BINARY_OP_H
#define EDGE_OPS_BINARY_OP_H

#include "../kernels/broadcast.h"
#include "ops.h"

typedef struct binary_operands {
    edge_tensor_rt *in1, *in2, *out;
    edge_type type;
    edge_bcast bc;
    float f_min, f_max;               /* float32: the activation's range */
    float s1, s2, so;                 /* quantized: scales, */
    int32_t z1, z2, zo;               /* zero points, */
    int32_t act_min, act_max;         /* the activation's range */
} binary_operands;

/* options_type / options_name: the op's options table (its field 0 is the
 * fused activation). out_follows_inputs: the output takes the inputs' type
 * whatever the file declares, as add.cc's and sub.cc's Prepare do. */
edge_status edge_binary_operands(edge_op_ctx *c, uint8_t options_type, const char *options_name,
                                 int out_follows_inputs, binary_operands *o);

#endif
