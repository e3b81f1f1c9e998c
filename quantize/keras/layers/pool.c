/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pool.c — MaxPooling2D, AveragePooling2D and their global forms.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_pool(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    int ps[2], st[2] = {1, 1}, same = 0;
    if (kc_pair(k, cfg, "pool_size", 2, 1, 65535, ps) || kc_padding(k, cfg, &same)) return -1;
    if (kc_is_null(kc_get(cfg, "strides")))
        st[0] = ps[0], st[1] = ps[1];
    else if (kc_pair(k, cfg, "strides", 1, 1, 65535, st))
        return -1;
    int idx = kc_node(k, cls[0] == 'M' ? EDGEQ_OP_MAXPOOL : EDGEQ_OP_AVGPOOL, nname, cls, in,
                       1);
    if (idx < 0) return -1;
    edgeq_node *n = &g->nodes[idx];
    n->kh = ps[0], n->kw = ps[1], n->stride_h = st[0], n->stride_w = st[1];
    n->pad_same = same;
    *out = idx;
    return kc_infer(k, idx);
}

static int build_global_pool(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    int keep;
    if (kc_bool(k, cfg, "keepdims", 0, &keep)) return -1;
    int idx = kc_node(k, cls[6] == 'A' ? EDGEQ_OP_GLOBAL_AVGPOOL : EDGEQ_OP_GLOBAL_MAXPOOL,
                       nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].keepdims = keep;
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_pool[] = {
    {"MaxPooling2D", build_pool, 0},
    {"AveragePooling2D", build_pool, 0},
    {"GlobalAveragePooling2D", build_global_pool, 0},
    {"GlobalMaxPooling2D", build_global_pool, 0},
    {NULL, NULL, 0},
};
