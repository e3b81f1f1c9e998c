/* SPDX-License-Identifier: Apache-2.0 */
/*
 * layers.h — the Keras layers edgeq loads, one file per family in this
 * folder, all listed in ONE table (registry.c). See
 * docs/adding-a-keras-layer.md.
 *
 * A family file holds, for each Keras class it takes, the builder that
 * turns one call of the layer into graph nodes (config fields, nodes,
 * weights). A family that owns a graph op of its own (edgeq_op) also gives
 * that op's shape rule, float evaluation and int8/float lowering in an
 * edgeq_op_kind (op_kind.h), so that everything about the layer is in one
 * file; the older ops still have theirs in keras_shapes.c, float_exec.c
 * and lower.c.
 */
#ifndef EDGEQ_KERAS_LAYERS_H
#define EDGEQ_KERAS_LAYERS_H

#include "keras/kc.h"

typedef struct keras_layer {
    const char *keras_class; /* "Conv2D"; NULL ends a family's list */
    /* One call: graph nodes for c, *out = the node holding its output.
     * Returns 0, or -1 with a message (KC_FAIL). */
    int (*build)(kc *k, const keras_call *c, int *out);
    int merge;               /* takes two or more inputs (else exactly one) */
} keras_layer;

/* The family's layer lists (registry.c gathers them). */
extern const keras_layer keras_layers_conv[], keras_layers_norm[], keras_layers_activation[],
    keras_layers_merge[], keras_layers_pool[], keras_layers_reshape[], keras_layers_rescaling[],
    keras_layers_identity[], keras_layers_cropping[];

/* The entry of a Keras class name, or NULL when edgeq does not load it. */
const keras_layer *keras_layer_find(const char *keras_class);

#endif
