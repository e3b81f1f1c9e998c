/* SPDX-License-Identifier: Apache-2.0 */
/*
 * merge.c — Add, Subtract, Multiply and Concatenate: the layers of two or more inputs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_merge(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    int n_in = c->n_in;
    edgeq_op op = cls[0] == 'A'   ? EDGEQ_OP_ADD
                  : cls[0] == 'S' ? EDGEQ_OP_SUBTRACT
                  : cls[0] == 'M' ? EDGEQ_OP_MULTIPLY
                                  : EDGEQ_OP_CONCAT;
    int axis = -1;
    if (op == EDGEQ_OP_SUBTRACT && n_in != 2)
        return KC_FAIL(k, "Subtract takes exactly two inputs, is given %d", n_in);
    if (op == EDGEQ_OP_CONCAT &&
        kc_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis))
        return -1;
    int idx = kc_node(k, op, nname, cls, in, n_in);
    if (idx < 0) return -1;
    g->nodes[idx].axis = axis;
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_merge[] = {
    {"Add", build_merge, 1},
    {"Subtract", build_merge, 1},
    {"Multiply", build_merge, 1},
    {"Concatenate", build_merge, 1},
    {NULL, NULL, 0},
};
