/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ir.c — the float graph's container (see ir.h).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

int edgeq_graph_add(edgeq_graph *g, edgeq_op op, const char *name) {
    if (g->n == g->cap) {
        int cap = g->cap ? g->cap * 2 : 32;
        edgeq_node *p = realloc(g->nodes, (size_t)cap * sizeof *p);
        if (!p) return -1;
        g->nodes = p;
        g->cap = cap;
    }
    edgeq_node *n = &g->nodes[g->n];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->stride_h = n->stride_w = n->dil_h = n->dil_w = n->groups = n->depth_multiplier = 1;
    n->eps = 1e-3f;
    n->scale = 1.0f;
    if (name) {
        strncpy(n->name, name, sizeof n->name - 1);
    }
    return g->n++;
}

void edgeq_graph_free(edgeq_graph *g) {
    for (int i = 0; i < g->n; i++) {
        edgeq_node *n = &g->nodes[i];
        free(n->kernel);
        free(n->bias);
        free(n->bn_gamma);
        free(n->bn_beta);
        free(n->bn_mean);
        free(n->bn_var);
    }
    free(g->nodes);
    memset(g, 0, sizeof *g);
}

const char *edgeq_op_name(edgeq_op op) {
    static const char *const names[] = {
        "Input", "Conv2D", "DepthwiseConv2D", "Dense", "BatchNormalization", "Activation",
        "Add", "Subtract", "Multiply", "Concatenate", "MaxPooling2D", "AveragePooling2D",
        "GlobalAveragePooling2D", "GlobalMaxPooling2D", "Reshape", "ZeroPadding2D", "Rescaling",
        "Softmax", "Identity", "Cropping"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

const char *edgeq_act_name(edgeq_act act) {
    static const char *const names[] = {"linear", "relu", "relu6", "relu_n1_to_1", "leaky_relu",
                                        "sigmoid", "tanh", "hard_swish", "softmax"};
    return (unsigned)act < sizeof names / sizeof names[0] ? names[act] : "?";
}

size_t edgeq_node_numel(const edgeq_node *n) {
    size_t e = 1;
    for (int i = 0; i < n->rank; i++) e *= (size_t)n->shape[i];
    return e;
}
