/* SPDX-License-Identifier: Apache-2.0 */
/*
 * norm.c — BatchNormalization (folded into the layer before it by the passes).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_batchnorm(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const keras_loc *loc = c->loc;
    const int *in = c->in;
    int center, scale, renorm, axis;
    double eps;
    if (kc_bool(k, cfg, "center", 1, &center) || kc_bool(k, cfg, "scale", 1, &scale) ||
        kc_bool(k, cfg, "renorm", 0, &renorm) || kc_num(k, cfg, "epsilon", 1e-3, &eps) ||
        kc_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis))
        return -1;
    if (renorm) return KC_FAIL(k, "batch renormalization (renorm=True) is not supported");
    if (!(eps > 0)) return KC_FAIL(k, "epsilon must be positive");
    int idx = kc_node(k, EDGEQ_OP_BATCHNORM, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].axis = axis;
    g->nodes[idx].eps = (float)eps;
    if (kc_infer(k, idx)) return -1;
    const edgeq_node *n = &g->nodes[idx];
    int ch = n->shape[n->rank - 1];
    wspec s[4];
    int ns = 0;
    if (scale) s[ns++] = (wspec){"gamma", 1, {ch}, idx, 2};
    if (center) s[ns++] = (wspec){"beta", 1, {ch}, idx, 3};
    s[ns++] = (wspec){"moving_mean", 1, {ch}, idx, 4};
    s[ns++] = (wspec){"moving_variance", 1, {ch}, idx, 5};
    if (kc_weights(k, loc, s, ns)) return -1;
    n = &g->nodes[idx];
    for (int i = 0; i < ch; i++)
        if (n->bn_var[i] < 0) return KC_FAIL(k, "moving_variance[%d] is negative", i);
    *out = idx;
    return 0;
}

const keras_layer keras_layers_norm[] = {
    {"BatchNormalization", build_batchnorm, 0},
    {NULL, NULL, 0},
};
