/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cropping.c — Cropping1D and Cropping2D: the CROP op, whole (config,
 * shape, float evaluation, lowering to STRIDED_SLICE). The worked example
 * of docs/adding-a-keras-layer.md.
 */
#include <string.h>

#include "edge/edge.h"
#include "graph/op_kind.h"
#include "layers.h"
#include "lower/lower_ctx.h"

/* ---- config ---- */

/* One amount, or a [before, after] pair, into pair[2]. */
static int crop_pair(kc *k, const cJSON *v, int pair[2]) {
    if (cJSON_IsNumber(v)) {
        if (kc_to_int(k, v, "cropping", 0, KERAS_MAX_DIM, &pair[0])) return -1;
        pair[1] = pair[0];
        return 0;
    }
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2)
        return KC_FAIL(k, "cropping must be a number or a [before, after] pair");
    return kc_to_int(k, cJSON_GetArrayItem(v, 0), "cropping", 0, KERAS_MAX_DIM, &pair[0]) ||
                   kc_to_int(k, cJSON_GetArrayItem(v, 1), "cropping", 0, KERAS_MAX_DIM, &pair[1])
               ? -1
               : 0;
}

/* Cropping1D: cropping = n | [begin, end] on the steps axis (1).
 * Cropping2D: cropping = n | [h, w] | [[top, bottom], [left, right]] on
 * axes 1 and 2. Keras's defaults: (1, 1) and ((0, 0), (0, 0)). */
static int build_cropping(kc *k, const keras_call *c, int *out) {
    int two_d = strcmp(c->cls, "Cropping2D") == 0;
    int crop[2][2] = {{two_d ? 0 : 1, two_d ? 0 : 1}, {0, 0}};
    const cJSON *v = kc_get(c->cfg, "cropping");
    if (!kc_is_null(v)) {
        if (!two_d) {
            if (crop_pair(k, v, crop[0])) return -1;
        } else if (cJSON_IsNumber(v)) {
            if (crop_pair(k, v, crop[0])) return -1;
            crop[1][0] = crop[1][1] = crop[0][0];
        } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 &&
                   cJSON_IsArray(cJSON_GetArrayItem(v, 0))) {
            if (crop_pair(k, cJSON_GetArrayItem(v, 0), crop[0]) ||
                crop_pair(k, cJSON_GetArrayItem(v, 1), crop[1]))
                return -1;
        } else if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
            int hw[2];
            if (kc_pair(k, c->cfg, "cropping", 0, 0, KERAS_MAX_DIM, hw)) return -1;
            crop[0][0] = crop[0][1] = hw[0];
            crop[1][0] = crop[1][1] = hw[1];
        } else {
            return KC_FAIL(k, "cropping must be [[top, bottom], [left, right]]");
        }
    }
    int idx = kc_node(k, EDGEQ_OP_CROP, c->nname, c->cls, c->in, 1);
    if (idx < 0) return -1;
    edgeq_node *n = &k->g->nodes[idx];
    memcpy(n->crop[1], crop[0], sizeof crop[0]);
    if (two_d) memcpy(n->crop[2], crop[1], sizeof crop[1]);
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_cropping[] = {
    {"Cropping1D", build_cropping, 0},
    {"Cropping2D", build_cropping, 0},
    {NULL, NULL, 0},
};

/* ---- the CROP op ---- */

static int crop_shape(const edgeq_node *n, const edgeq_node *in, int *rank,
                      int shape[EDGEQ_MAX_RANK], char *err, size_t err_len) {
    int want = strcmp(n->keras_class, "Cropping2D") == 0 ? 4 : 3;
    if (in->rank != want)
        return edgeq_fail_layer(err, err_len, n->name, n->keras_class, "needs a %d-D input, is given %d-D",
                                want, in->rank);
    *rank = in->rank;
    for (int d = 0; d < EDGEQ_MAX_RANK; d++) shape[d] = 0;
    for (int d = 0; d < in->rank; d++) {
        long v = (long)in->shape[d] - n->crop[d][0] - n->crop[d][1];
        if (n->crop[d][0] < 0 || n->crop[d][1] < 0 || v < 1)
            return edgeq_fail_layer(err, err_len, n->name, n->keras_class,
                                    "cropping %d + %d leaves nothing of dimension %d (size %d)",
                                    n->crop[d][0], n->crop[d][1], d, in->shape[d]);
        shape[d] = (int)v;
    }
    return 0;
}

/* Dimensions padded with 1s to EDGEQ_MAX_RANK. */
static void dims4(const edgeq_node *n, int *d) {
    for (int i = 0; i < EDGEQ_MAX_RANK; i++) d[i] = i < n->rank ? n->shape[i] : 1;
}

static void crop_eval(const edgeq_node *n, const edgeq_node *in, const float *x, float *y) {
    int od[EDGEQ_MAX_RANK], id[EDGEQ_MAX_RANK];
    dims4(n, od);
    dims4(in, id);
    const int *b0 = n->crop[0], *b1 = n->crop[1], *b2 = n->crop[2], *b3 = n->crop[3];
    for (int i0 = 0; i0 < od[0]; i0++)
        for (int i1 = 0; i1 < od[1]; i1++)
            for (int i2 = 0; i2 < od[2]; i2++) {
                size_t src = (((size_t)(i0 + b0[0]) * (size_t)id[1] + (size_t)(i1 + b1[0])) *
                                  (size_t)id[2] +
                              (size_t)(i2 + b2[0])) *
                                 (size_t)id[3] +
                             (size_t)b3[0];
                memcpy(y, x + src, (size_t)od[3] * sizeof *y);
                y += od[3];
            }
}

/* TF's converter lowers the Keras slice to STRIDED_SLICE: begin, end and
 * strides as int32 vectors, no masks; the output keeps the input's
 * parameters. */
static int crop_lower(struct lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *a = &c->g->nodes[n->in[0]];
    int32_t begin[EDGEQ_MAX_RANK], end[EDGEQ_MAX_RANK], strides[EDGEQ_MAX_RANK];
    for (int d = 0; d < n->rank; d++) {
        begin[d] = n->crop[d][0];
        end[d] = a->shape[d] - n->crop[d][1];
        strides[d] = 1;
    }
    int32_t vshape[1] = {n->rank};
    int bt = lq_i32_const(c, n->name, "/begin", 1, vshape, begin);
    int et = bt < 0 ? -1 : lq_i32_const(c, n->name, "/end", 1, vshape, end);
    int st = et < 0 ? -1 : lq_i32_const(c, n->name, "/strides", 1, vshape, strides);
    if (st < 0) return lq_oom(c);
    int in = lq_in_t(c, n, 0);
    int32_t shape[EDGEQ_MAX_RANK];
    lq_shape_of(n, shape);
    int out = lq_same_tensor(c, i, NULL, n->rank, shape, in);
    if (out < 0) return out;
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_STRIDED_SLICE, lq_ver(c, 2), i);
    if (!op) return lq_oom(c);
    op->n_in = 4;
    op->in[0] = in;
    op->in[1] = bt;
    op->in[2] = et;
    op->in[3] = st;
    op->n_out = 1;
    op->out[0] = out;
    c->node_t[i] = out;
    return 0;
}

const edgeq_op_kind keras_op_crop = {EDGEQ_OP_CROP, crop_shape, crop_eval, crop_lower, 1};
