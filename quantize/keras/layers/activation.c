/* SPDX-License-Identifier: Apache-2.0 */
/*
 * activation.c — Activation, ReLU, LeakyReLU and Softmax.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_activation(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    edgeq_act act;
    float alpha;
    int softmax;
    if (kc_act(k, cfg, "activation", &act, &alpha, &softmax)) return -1;
    edgeq_op op = softmax ? EDGEQ_OP_SOFTMAX
                          : act == EDGEQ_ACT_LINEAR ? EDGEQ_OP_IDENTITY : EDGEQ_OP_ACTIVATION;
    int idx = kc_node(k, op, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].act = act;
    g->nodes[idx].alpha = alpha;
    g->nodes[idx].axis = -1;
    *out = idx;
    return kc_infer(k, idx);
}

static int build_relu(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    double maxv = -1, slope, thr;
    int leaky_layer = cls[0] == 'L';
    if (leaky_layer) {
        /* Keras 2 calls the slope alpha, Keras 3 negative_slope. */
        const char *key = kc_get(cfg, "negative_slope") ? "negative_slope" : "alpha";
        if (kc_num(k, cfg, key, 0.3, &slope)) return -1;
        thr = 0;
    } else if (kc_num(k, cfg, "max_value", -1, &maxv) ||
               kc_num(k, cfg, "negative_slope", 0, &slope) ||
               kc_num(k, cfg, "threshold", 0, &thr))
        return -1;
    edgeq_act act;
    if (thr != 0) return KC_FAIL(k, "ReLU threshold %g is not supported (only 0)", thr);
    if (slope < 0) return KC_FAIL(k, "a negative slope below zero (%g) is not supported", slope);
    if (slope != 0) {
        if (maxv >= 0)
            return KC_FAIL(k, "a leaky ReLU with max_value %g is not supported", maxv);
        act = EDGEQ_ACT_LEAKY_RELU;
    } else if (maxv < 0)
        act = EDGEQ_ACT_RELU;
    else if (maxv == 6)
        act = EDGEQ_ACT_RELU6;
    else
        return KC_FAIL(k, "ReLU max_value %g is not supported (only none and 6)", maxv);
    int idx = kc_node(k, EDGEQ_OP_ACTIVATION, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].act = act;
    g->nodes[idx].alpha = act == EDGEQ_ACT_LEAKY_RELU ? (float)slope : 0;
    *out = idx;
    return kc_infer(k, idx);
}

static int build_softmax(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    int axis;
    if (kc_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis)) return -1;
    int idx = kc_node(k, EDGEQ_OP_SOFTMAX, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].axis = axis;
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_activation[] = {
    {"Activation", build_activation, 0},
    {"ReLU", build_relu, 0},
    {"LeakyReLU", build_relu, 0},
    {"Softmax", build_softmax, 0},
    {NULL, NULL, 0},
};
