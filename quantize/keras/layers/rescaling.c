/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rescaling.c — Rescaling: x * scale + offset.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_rescaling(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    double scale, offset;
    if (kc_num(k, cfg, "scale", 1.0, &scale) || kc_num(k, cfg, "offset", 0.0, &offset))
        return -1;
    int idx = kc_node(k, EDGEQ_OP_RESCALE, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].scale = (float)scale;
    g->nodes[idx].offset = (float)offset;
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_rescaling[] = {
    {"Rescaling", build_rescaling, 0},
    {NULL, NULL, 0},
};
