/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_kind.h — everything about one graph op that the Keras layer family
 * owning it provides (keras/layers/, listed in registry.c): its shape rule
 * (written once, used by the loader and the float executor), its float
 * evaluation and its lowering to TFLite operators. The ops older than this
 * table keep theirs in keras_shapes.c, float_exec.c and lower.c.
 */
#ifndef EDGEQ_OP_KIND_H
#define EDGEQ_OP_KIND_H

#include <stddef.h>

#include "graph/ir.h"

struct lower_ctx;

typedef struct edgeq_op_kind {
    edgeq_op op;
    /* The output shape from the node's parameters and its input `in`.
     * Returns 0, or -1 with a message naming the layer. */
    int (*shape)(const edgeq_node *n, const edgeq_node *in, int *rank, int shape[EDGEQ_MAX_RANK],
                 char *err, size_t err_len);
    /* y = the op on x (one input of shape `in`), in float. */
    void (*eval)(const edgeq_node *n, const edgeq_node *in, const float *x, float *y);
    /* Node i as TFLite operators (lower_ctx.h); 0 or EDGEQ_LOWER_*. */
    int (*lower)(struct lower_ctx *c, int i);
    /* 1: data movement, the output keeps its input's scale and zero point
     * (and its type in a float file). */
    int same_params;
} edgeq_op_kind;

/* The kind of `op`, or NULL for the ops handled in place (registry.c). */
const edgeq_op_kind *edgeq_op_kind_of(edgeq_op op);

#endif
