/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reshape.c — Flatten, Reshape and ZeroPadding2D: data movement.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_reshape(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    int shape[EDGEQ_MAX_RANK] = {1, -1, 0, 0}, rank = 2;
    if (cls[0] == 'R') {
        const cJSON *t = kc_get(cfg, "target_shape");
        int n = cJSON_IsArray(t) ? cJSON_GetArraySize(t) : -1;
        if (n < 1 || n + 1 > EDGEQ_MAX_RANK)
            return KC_FAIL(k, "target_shape must list 1 to %d dimensions", EDGEQ_MAX_RANK - 1);
        rank = n + 1;
        for (int i = 0; i < n; i++) {
            if (kc_to_int(k, cJSON_GetArrayItem(t, i), "target_shape", -1, KERAS_MAX_DIM,
                       &shape[i + 1]))
                return -1;
            if (shape[i + 1] == 0) return KC_FAIL(k, "target_shape has a zero dimension");
        }
    }
    int idx = kc_node(k, EDGEQ_OP_RESHAPE, nname, cls, in, 1);
    if (idx < 0) return -1;
    g->nodes[idx].rank = rank;
    memcpy(g->nodes[idx].shape, shape, sizeof shape);
    *out = idx;
    return kc_infer(k, idx);
}

static int build_zero_padding(kc *k, const keras_call *c, int *out) {
    edgeq_graph *g = k->g;
    const char *cls = c->cls;
    const cJSON *cfg = c->cfg;
    const char *nname = c->nname;
    const int *in = c->in;
    const cJSON *p = kc_get(cfg, "padding");
    int pad[2][2];
    if (cJSON_IsArray(p) && cJSON_GetArraySize(p) == 2 &&
        cJSON_IsArray(cJSON_GetArrayItem(p, 0))) {
        for (int d = 0; d < 2; d++) {
            const cJSON *pr = cJSON_GetArrayItem(p, d);
            if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != 2)
                return KC_FAIL(k, "padding must be [[top, bottom], [left, right]]");
            if (kc_to_int(k, cJSON_GetArrayItem(pr, 0), "padding", 0, 65535, &pad[d][0]) ||
                kc_to_int(k, cJSON_GetArrayItem(pr, 1), "padding", 0, 65535, &pad[d][1]))
                return -1;
        }
    } else {
        int hw[2];
        if (kc_pair(k, cfg, "padding", 1, 0, 65535, hw)) return -1;
        pad[0][0] = pad[0][1] = hw[0];
        pad[1][0] = pad[1][1] = hw[1];
    }
    int idx = kc_node(k, EDGEQ_OP_PAD, nname, cls, in, 1);
    if (idx < 0) return -1;
    memcpy(g->nodes[idx].pad[1], pad[0], sizeof pad[0]);
    memcpy(g->nodes[idx].pad[2], pad[1], sizeof pad[1]);
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_reshape[] = {
    {"Flatten", build_reshape, 0},
    {"Reshape", build_reshape, 0},
    {"ZeroPadding2D", build_zero_padding, 0},
    {NULL, NULL, 0},
};
