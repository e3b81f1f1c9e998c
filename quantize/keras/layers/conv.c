/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conv.c — Conv2D, DepthwiseConv2D, SeparableConv2D and Dense: the layers with a kernel.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

/* A fused softmax activation becomes a SOFTMAX node after `idx`. */
static int add_softmax_after(kc *k, int idx, const char *cls) {
    char name[EDGEQ_NAME_LEN];
    snprintf(name, sizeof name, "%.*s/softmax", EDGEQ_NAME_LEN - 10, k->g->nodes[idx].name);
    int s = kc_node(k, EDGEQ_OP_SOFTMAX, name, cls, &idx, 1);
    if (s < 0) return -1;
    k->g->nodes[s].axis = -1;
    return kc_infer(k, s) ? -1 : s;
}

static int conv_common(kc *k, const cJSON *cfg, edgeq_node *tmp) {
    int ks[2], st[2], dl[2];
    if (kc_pair(k, cfg, "kernel_size", 1, 1, 65535, ks) ||
        kc_pair(k, cfg, "strides", 1, 1, 65535, st) ||
        kc_pair(k, cfg, "dilation_rate", 1, 1, 65535, dl) || kc_padding(k, cfg, &tmp->pad_same))
        return -1;
    tmp->kh = ks[0], tmp->kw = ks[1];
    tmp->stride_h = st[0], tmp->stride_w = st[1];
    tmp->dil_h = dl[0], tmp->dil_w = dl[1];
    return 0;
}

static void copy_geometry(edgeq_node *n, const edgeq_node *t) {
    n->kh = t->kh, n->kw = t->kw;
    n->stride_h = t->stride_h, n->stride_w = t->stride_w;
    n->dil_h = t->dil_h, n->dil_w = t->dil_w;
    n->pad_same = t->pad_same;
}

static int build_weighted(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const keras_loc *loc = c->loc;
    const int *in = c->in;
    int dense = strcmp(cls, "Dense") == 0;
    int dw = strcmp(cls, "DepthwiseConv2D") == 0;
    edgeq_node t;
    memset(&t, 0, sizeof t);
    t.stride_h = t.stride_w = t.dil_h = t.dil_w = 1;
    int use_bias, units = 0, groups = 1, dm = 1, softmax;
    edgeq_act act;
    float alpha;
    if (!dense && conv_common(k, cfg, &t)) return -1;
    if (dense && kc_int(k, cfg, "units", 0, 1, KERAS_MAX_DIM, &units)) return -1;
    if (!dense && !dw && (kc_int(k, cfg, "filters", 0, 1, KERAS_MAX_DIM, &units) ||
                          kc_int(k, cfg, "groups", 1, 1, KERAS_MAX_DIM, &groups)))
        return -1;
    if (dw && kc_int(k, cfg, "depth_multiplier", 1, 1, KERAS_MAX_DIM, &dm)) return -1;
    if (kc_bool(k, cfg, "use_bias", 1, &use_bias) ||
        kc_act(k, cfg, "activation", &act, &alpha, &softmax))
        return -1;
    edgeq_op op = dense ? EDGEQ_OP_DENSE : dw ? EDGEQ_OP_DEPTHWISE_CONV2D : EDGEQ_OP_CONV2D;
    int idx = kc_node(k, op, nname, cls, in, 1);
    if (idx < 0) return -1;
    edgeq_node *n = &g->nodes[idx];
    if (!dense) copy_geometry(n, &t);
    n->filters = units;
    n->groups = groups;
    n->depth_multiplier = dm;
    n->act = act;
    n->alpha = alpha;
    if (kc_infer(k, idx)) return -1;
    n = &g->nodes[idx];
    int cin = g->nodes[in[0]].shape[g->nodes[in[0]].rank - 1];
    int cout = n->shape[n->rank - 1];
    wspec s[2];
    memset(s, 0, sizeof s);
    if (dense)
        s[0] = (wspec){"kernel", 2, {cin, units}, idx, 0};
    else if (dw)
        s[0] = (wspec){"depthwise_kernel|kernel", 4, {n->kh, n->kw, cin, dm}, idx, 0};
    else
        s[0] = (wspec){"kernel", 4, {n->kh, n->kw, cin / groups, units}, idx, 0};
    s[1] = (wspec){"bias", 1, {cout}, idx, 1};
    if (kc_weights(k, loc, s, use_bias ? 2 : 1)) return -1;
    *out = softmax ? add_softmax_after(k, idx, cls) : idx;
    return *out < 0 ? -1 : 0;
}

static int build_separable(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const keras_loc *loc = c->loc;
    const int *in = c->in;
    edgeq_node t;
    memset(&t, 0, sizeof t);
    int use_bias, filters, dm, softmax;
    edgeq_act act;
    float alpha;
    if (conv_common(k, cfg, &t) || kc_int(k, cfg, "filters", 0, 1, KERAS_MAX_DIM, &filters) ||
        kc_int(k, cfg, "depth_multiplier", 1, 1, KERAS_MAX_DIM, &dm) ||
        kc_bool(k, cfg, "use_bias", 1, &use_bias) ||
        kc_act(k, cfg, "activation", &act, &alpha, &softmax))
        return -1;
    char dname[EDGEQ_NAME_LEN];
    snprintf(dname, sizeof dname, "%.*s/depthwise", EDGEQ_NAME_LEN - 12, nname);
    int d = kc_node(k, EDGEQ_OP_DEPTHWISE_CONV2D, dname, cls, in, 1);
    if (d < 0) return -1;
    copy_geometry(&g->nodes[d], &t);
    g->nodes[d].depth_multiplier = dm;
    if (kc_infer(k, d)) return -1;
    int p = kc_node(k, EDGEQ_OP_CONV2D, nname, cls, &d, 1);
    if (p < 0) return -1;
    edgeq_node *n = &g->nodes[p];
    n->kh = n->kw = 1;
    n->filters = filters;
    n->act = act;
    n->alpha = alpha;
    if (kc_infer(k, p)) return -1;
    int cin = g->nodes[in[0]].shape[3];
    wspec s[3] = {
        {"depthwise_kernel", 4, {t.kh, t.kw, cin, dm}, d, 0},
        {"pointwise_kernel", 4, {1, 1, cin * dm, filters}, p, 0},
        {"bias", 1, {filters}, p, 1},
    };
    if (kc_weights(k, loc, s, use_bias ? 3 : 2)) return -1;
    *out = softmax ? add_softmax_after(k, p, cls) : p;
    return *out < 0 ? -1 : 0;
}

const keras_layer keras_layers_conv[] = {
    {"Conv2D", build_weighted, 0},
    {"DepthwiseConv2D", build_weighted, 0},
    {"Dense", build_weighted, 0},
    {"SeparableConv2D", build_separable, 0},
    {NULL, NULL, 0},
};
