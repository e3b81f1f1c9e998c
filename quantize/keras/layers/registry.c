/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c — the one table of the Keras layers edgeq loads (layers.h).
 * A new family is one line here.
 */
#include <string.h>

#include "layers.h"

static const keras_layer *const families[] = {
    keras_layers_conv,    keras_layers_norm,      keras_layers_activation, keras_layers_merge,
    keras_layers_pool,    keras_layers_reshape,   keras_layers_rescaling,  keras_layers_identity,
};

const keras_layer *keras_layer_find(const char *keras_class) {
    for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
        for (const keras_layer *l = families[f]; l->keras_class; l++)
            if (strcmp(l->keras_class, keras_class) == 0) return l;
    return NULL;
}
