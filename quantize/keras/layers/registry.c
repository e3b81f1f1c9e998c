/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c — the one table of the Keras layers edgeq loads (layers.h).
 * A new family is one line here.
 */
#include <string.h>

#include "graph/op_kind.h"
#include "layers.h"

extern const edgeq_op_kind keras_op_crop;

static const keras_layer *const families[] = {
    keras_layers_conv,    keras_layers_norm,      keras_layers_activation, keras_layers_merge,
    keras_layers_pool,    keras_layers_reshape,   keras_layers_rescaling,  keras_layers_identity,
    keras_layers_cropping,
};

/* The graph ops a family owns whole (op_kind.h). */
static const edgeq_op_kind *const op_kinds[] = {
    &keras_op_crop,
};

const keras_layer *keras_layer_find(const char *keras_class) {
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (const keras_layer *l = families[f]; l->keras_class; l++)
            if (strcmp(l->keras_class, keras_class) == 0) return l;
    return NULL;
}

const edgeq_op_kind *edgeq_op_kind_of(edgeq_op op) {
    for (size_t i = 0; i < sizeof op_kinds / sizeof op_kinds[0]; i++)
        if (op_kinds[i]->op == op) return op_kinds[i];
    return NULL;
}
