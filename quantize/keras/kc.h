/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kc.h — what a Keras layer family (keras/layers/) needs to turn one layer
 * call into graph nodes: the config reader (kc), typed config fields that
 * fail with a message naming the layer, new nodes, shape inference and the
 * layer's weights. Implemented in kc.c; the model walk is keras_config.c.
 */
#ifndef EDGEQ_KERAS_KC_H
#define EDGEQ_KERAS_KC_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "err.h"
#include "keras_internal.h"

typedef struct kc {
    edgeq_graph *g;
    const keras_weights *w;
    int major; /* 2 or 3 */
    char *err;
    size_t errlen;
    char layer[EDGEQ_NAME_LEN + 100]; /* "layer 'conv2d' (Conv2D)", for messages */
    /* keras_infer_shape, reached through the reader so that the layer
     * families, which the shape rules consult, do not call back into them. */
    int (*infer)(edgeq_graph *g, int node, char *err, size_t errlen);
} kc;

/* `return KC_FAIL(k, "...", ...)`: the message, prefixed with the layer. */
#define KC_FAIL(k, ...) edgeq_fail_at((k)->err, (k)->errlen, (k)->layer, __VA_ARGS__)

/* One call of a layer, as the model walk hands it to the layer's family. */
typedef struct keras_call {
    const char *cls;       /* Keras class name */
    const cJSON *cfg;      /* the layer's config object */
    const char *nname;     /* node name (scope prefix, "#n" for repeated calls) */
    const keras_loc *loc;  /* where its weights are */
    const int *in;         /* input nodes */
    int n_in;
} keras_call;

typedef struct wspec {
    const char *roles; /* accepted names, '|'-separated: "depthwise_kernel|kernel" */
    int rank;
    int dims[EDGEQ_MAX_RANK];
    int node;          /* destination node; field chosen by `field` */
    int field;         /* 0 kernel, 1 bias, 2 gamma, 3 beta, 4 mean, 5 var */
} wspec;

/* Shape inference for node `idx` (keras_infer_shape). */
static inline int kc_infer(kc *k, int idx) { return k->infer(k->g, idx, k->err, k->errlen); }

const cJSON *kc_get(const cJSON *o, const char *key);
const char *kc_str(const cJSON *o, const char *key);
int kc_is_null(const cJSON *v);
int kc_num(kc *k, const cJSON *cfg, const char *key, double def, double *out);
int kc_to_int(kc *k, const cJSON *v, const char *key, int lo, int hi, int *out);
int kc_int(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int *out);
int kc_bool(kc *k, const cJSON *cfg, const char *key, int def, int *out);
int kc_pair(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int out[2]);
int kc_padding(kc *k, const cJSON *cfg, int *same);
int kc_act(kc *k, const cJSON *cfg, const char *key, edgeq_act *act, float *alpha, int *act_softmax);
int kc_node(kc *k, edgeq_op op, const char *name, const char *cls, const int *in, int n_in);
void kc_shape_str(const int *d, int rank, char *buf, size_t len);
int kc_weights(kc *k, const keras_loc *loc, const wspec *spec, int n_spec);

#endif
