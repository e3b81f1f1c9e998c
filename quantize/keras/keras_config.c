/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_config.c — a Keras model config (JSON) to edgeq graph nodes.
 *
 * Shared by both file formats. The config shapes handled:
 *   Sequential  {"class_name": "Sequential", "config": {"layers": [...]}}
 *               (Keras <= 2.2: "config" is the layer list itself), with or
 *               without a leading InputLayer (then the input shape is the
 *               first layer's batch_input_shape / batch_shape, or the
 *               model's build_input_shape)
 *   Functional  ("Model" before Keras 2.4) with input_layers,
 *               output_layers and per-layer inbound_nodes: Keras 2 writes
 *               [[["layer", node, tensor, {kwargs}], ...], ...] (one list
 *               per call), Keras 3 [{"args": [...], "kwargs": {...}}] with
 *               the inputs as "__keras_tensor__" objects whose keras_history
 *               is [layer, node, tensor], possibly nested in lists.
 * A layer called several times (shared weights) has several inbound nodes:
 * each call becomes its own node(s). Node indices in references count a
 * layer's calls, except that a nested Functional (and, in Keras 2, a nested
 * Sequential with an InputLayer) starts at 1: its node 0 is the one Keras
 * creates when the model itself is built, which configs leave out. Keras 3
 * applies that offset only in input_layers/output_layers, not in inbound
 * nodes (see resolve()).
 * Functional configs are not guaranteed to list layers in call order when
 * layers are shared, so calls are resolved in passes until every call's
 * inputs exist; the graph comes out in topological order.
 *
 * Nested models are inlined, their node names prefixed with the model's
 * name ("inner/conv2d"). Keras 3's .keras weight paths are computed here
 * (keras_internal.h); the weights come through `keras_weights`.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keras_internal.h"
#include "keras_load.h"
#include "err.h"

/* The weight arrays a reader handed over (any reader: h5, .keras zip). */
void keras_vars_free(keras_var *vars, int n) {
    for (int i = 0; i < n; i++) {
        free(vars[i].data);
        vars[i].data = NULL;
    }
}

#define MAX_OUTS 8 /* outputs of one call (a nested model's outputs) */

/* edgeq_keras_allow_nonfinite (keras_load.h): process-wide, set before the
 * load (the reader runs in a forked child, which inherits it). */
static int keras_keep_nonfinite;

void edgeq_keras_allow_nonfinite(int on) { keras_keep_nonfinite = on != 0; }

static const char SUPPORTED[] =
    "InputLayer, Conv2D, DepthwiseConv2D, SeparableConv2D, Dense, BatchNormalization, "
    "Activation, ReLU, LeakyReLU, Softmax, Add, Subtract, Multiply, Concatenate, "
    "MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D, Flatten, "
    "Reshape, ZeroPadding2D, Rescaling, Dropout, SpatialDropout2D, GaussianNoise, "
    "GaussianDropout, AlphaDropout, ActivityRegularization, and nested Sequential/Functional "
    "models";

static const char SUPPORTED_ACTS[] =
    "linear, relu, relu6, sigmoid, tanh, softmax, hard_swish (hard_silu), leaky_relu";

typedef struct kc {
    edgeq_graph *g;
    const keras_weights *w;
    int major; /* 2 or 3 */
    char *err;
    size_t errlen;
    char layer[EDGEQ_NAME_LEN + 100]; /* "layer 'conv2d' (Conv2D)", for messages */
} kc;

/* How a model being built sits in its parents. */
typedef struct scope {
    char prefix[EDGEQ_NAME_LEN]; /* node-name prefix: "" or "inner/" */
    keras_loc loc;               /* enclosing models' names; zip_path = this container's path */
    int top;                     /* inputs become INPUT nodes */
    int n_bound;                 /* nested: the outer tensors bound to the inputs */
    const int *bound;
} scope;

/* snprintf for names, where cutting a too-long name short is acceptable. */
static void fmt_name(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fmt_name(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

/* ---- JSON access ---- */

static const cJSON *get(const cJSON *o, const char *key) {
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static const char *get_str(const cJSON *o, const char *key) {
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static int is_null(const cJSON *v) { return !v || cJSON_IsNull(v); }

/* A number; missing or null gives `def`. */
static int get_num(kc *k, const cJSON *cfg, const char *key, double def, double *out) {
    const cJSON *v = get(cfg, key);
    *out = def;
    if (is_null(v)) {
        *out = def;
        return 0;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1) v = cJSON_GetArrayItem(v, 0);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return edgeq_fail_at(k->err, k->errlen, k->layer, "config field '%s' is not a number", key);
    *out = v->valuedouble;
    return 0;
}

static int to_int(kc *k, const cJSON *v, const char *key, int lo, int hi, int *out) {
    *out = lo;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "config field '%s' must be an integer in [%d, %d]", key, lo, hi);
    *out = (int)v->valuedouble;
    return 0;
}

static int get_int(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int *out) {
    const cJSON *v = get(cfg, key);
    if (is_null(v)) {
        *out = def;
        return 0;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1) v = cJSON_GetArrayItem(v, 0);
    return to_int(k, v, key, lo, hi, out);
}

/* Booleans are sometimes written as 0/1 (BatchNormalization "scale": 1). */
static int get_bool(kc *k, const cJSON *cfg, const char *key, int def, int *out) {
    const cJSON *v = get(cfg, key);
    *out = def;
    if (is_null(v))
        *out = def;
    else if (cJSON_IsBool(v))
        *out = cJSON_IsTrue(v);
    else if (cJSON_IsNumber(v))
        *out = v->valuedouble != 0;
    else
        return edgeq_fail_at(k->err, k->errlen, k->layer, "config field '%s' is not a boolean", key);
    return 0;
}

/* An int or a pair [a, b] (kernel_size, strides...). */
static int get_pair(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int out[2]) {
    const cJSON *v = get(cfg, key);
    out[0] = out[1] = def;
    if (is_null(v)) {
        out[0] = out[1] = def;
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        if (to_int(k, v, key, lo, hi, &out[0])) return -1;
        out[1] = out[0];
        return 0;
    }
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if (n == 1) {
        if (to_int(k, cJSON_GetArrayItem(v, 0), key, lo, hi, &out[0])) return -1;
        out[1] = out[0];
        return 0;
    }
    if (n != 2) return edgeq_fail_at(k->err, k->errlen, k->layer, "config field '%s' must be an integer or a pair", key);
    if (to_int(k, cJSON_GetArrayItem(v, 0), key, lo, hi, &out[0]) ||
        to_int(k, cJSON_GetArrayItem(v, 1), key, lo, hi, &out[1]))
        return -1;
    return 0;
}

static int get_padding(kc *k, const cJSON *cfg, int *same) {
    const char *p = get_str(cfg, "padding");
    if (!p || strcmp(p, "valid") == 0 || strcmp(p, "VALID") == 0)
        *same = 0;
    else if (strcmp(p, "same") == 0 || strcmp(p, "SAME") == 0)
        *same = 1;
    else
        return edgeq_fail_at(k->err, k->errlen, k->layer, "padding '%s' is not supported (only 'same' and 'valid')", p);
    return 0;
}

/* ---- activations ---- */

/* act_softmax is set for "softmax", which is a node of its own. */
static int act_from_name(kc *k, const char *name, edgeq_act *act, float *alpha,
                         int *act_softmax) {
    *act = EDGEQ_ACT_LINEAR;
    *alpha = 0;
    *act_softmax = 0;
    if (strcmp(name, "linear") == 0)
        *act = EDGEQ_ACT_LINEAR;
    else if (strcmp(name, "relu") == 0)
        *act = EDGEQ_ACT_RELU;
    else if (strcmp(name, "relu6") == 0)
        *act = EDGEQ_ACT_RELU6;
    else if (strcmp(name, "sigmoid") == 0)
        *act = EDGEQ_ACT_SIGMOID;
    else if (strcmp(name, "tanh") == 0)
        *act = EDGEQ_ACT_TANH;
    else if (strcmp(name, "hard_swish") == 0 || strcmp(name, "hard_silu") == 0)
        *act = EDGEQ_ACT_HARD_SWISH;
    else if (strcmp(name, "leaky_relu") == 0) {
        *act = EDGEQ_ACT_LEAKY_RELU; /* keras.activations.leaky_relu's default slope */
        *alpha = 0.2f;
    } else if (strcmp(name, "softmax") == 0) {
        *act = EDGEQ_ACT_LINEAR;
        *act_softmax = 1;
    } else
        return edgeq_fail_at(k->err, k->errlen, k->layer, "activation '%s' is not supported (supported: %s)", name, SUPPORTED_ACTS);
    return 0;
}

/* The `activation` field: a name, or Keras 3's {"class_name": "function",
 * "config": "relu", "module": "keras.activations"}. */
static int parse_act(kc *k, const cJSON *cfg, const char *key, edgeq_act *act, float *alpha,
                     int *act_softmax) {
    const cJSON *v = get(cfg, key);
    *act = EDGEQ_ACT_LINEAR;
    *alpha = 0;
    *act_softmax = 0;
    if (is_null(v)) return act_from_name(k, "linear", act, alpha, act_softmax);
    if (cJSON_IsString(v) && v->valuestring)
        return act_from_name(k, v->valuestring, act, alpha, act_softmax);
    if (cJSON_IsObject(v)) {
        const char *mod = get_str(v, "module");
        const char *name = get_str(v, "config");
        const char *cls = get_str(v, "class_name");
        if (name && (!mod || strncmp(mod, "keras", 5) == 0))
            return act_from_name(k, name, act, alpha, act_softmax);
        return edgeq_fail_at(k->err, k->errlen, k->layer, "custom activation '%s'%s%s%s is not supported (supported: %s)",
                    name ? name : cls ? cls : "?", mod ? " from module '" : "", mod ? mod : "",
                    mod ? "'" : "", SUPPORTED_ACTS);
    }
    return edgeq_fail_at(k->err, k->errlen, k->layer, "config field '%s' is not an activation name", key);
}

/* ---- nodes and weights ---- */

static int new_node(kc *k, edgeq_op op, const char *name, const char *cls, const int *in,
                    int n_in) {
    if (k->g->n >= KERAS_MAX_NODES)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "the model has more than %d nodes", KERAS_MAX_NODES);
    if (n_in > EDGEQ_MAX_INPUTS) return edgeq_fail_at(k->err, k->errlen, k->layer, "more than %d inputs", EDGEQ_MAX_INPUTS);
    int idx = edgeq_graph_add(k->g, op, name);
    if (idx < 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "out of memory");
    edgeq_node *n = &k->g->nodes[idx];
    snprintf(n->keras_class, sizeof n->keras_class, "%s", cls);
    n->n_in = n_in;
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    return idx;
}

static int infer(kc *k, int idx) { return keras_infer_shape(k->g, idx, k->err, k->errlen); }

typedef struct wspec {
    const char *roles; /* accepted names, '|'-separated: "depthwise_kernel|kernel" */
    int rank;
    int dims[EDGEQ_MAX_RANK];
    int node;          /* destination node; field chosen by `field` */
    int field;         /* 0 kernel, 1 bias, 2 gamma, 3 beta, 4 mean, 5 var */
} wspec;

static int role_matches(const char *roles, const char *role) {
    size_t n = strlen(role);
    const char *p = roles;
    while (*p) {
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, role, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void shape_str(const int *d, int rank, char *buf, size_t len) {
    size_t o = (size_t)snprintf(buf, len, "[");
    for (int i = 0; i < rank && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? ", " : "", d[i]);
    if (o < len) snprintf(buf + o, len - o, "]");
}

static void spec_names(const wspec *s, int n, char *buf, size_t len) {
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < n && o < len; i++) {
        const char *r = s[i].roles, *e = strchr(r, '|');
        int rl = e ? (int)(e - r) : (int)strlen(r);
        o += (size_t)snprintf(buf + o, len - o, "%s%.*s", i ? ", " : "", rl, r);
    }
}

/* Read the layer's variables, match them to `spec` (by name when the file
 * names them, else by position), check shapes and values, and hand them to
 * the nodes. */
static int load_weights(kc *k, const keras_loc *loc, const wspec *spec, int n_spec) {
    keras_var vars[KERAS_MAX_VARS];
    int nv = 0;
    memset(vars, 0, sizeof vars);
    if (k->w->read(k->w->ctx, loc, k->layer, vars, KERAS_MAX_VARS, &nv, k->err, k->errlen) != 0)
        return -1;
    int map[KERAS_MAX_VARS];
    char want[200];
    spec_names(spec, n_spec, want, sizeof want);
    if (nv != n_spec) {
        char have[600];
        size_t o = 0;
        have[0] = 0;
        for (int i = 0; i < nv && o < sizeof have; i++)
            o += (size_t)snprintf(have + o, sizeof have - o, "%s'%s'", i ? ", " : "",
                                  vars[i].role[0] ? vars[i].role : vars[i].path);
        keras_vars_free(vars, nv);
        return edgeq_fail_at(k->err, k->errlen, k->layer, "expected %d weights (%s) from its config, the file has %d%s%s", n_spec,
                    want, nv, nv ? ": " : "", have);
    }
    /* By name when every spec finds exactly one variable of its name. */
    int by_name = 1;
    for (int s = 0; s < n_spec && by_name; s++) {
        int found = -1, count = 0;
        for (int i = 0; i < nv; i++)
            if (vars[i].role[0] && role_matches(spec[s].roles, vars[i].role)) {
                found = i;
                count++;
            }
        if (count != 1)
            by_name = 0;
        else
            map[s] = found;
    }
    if (!by_name)
        for (int s = 0; s < n_spec; s++) map[s] = s;
    int rc = 0;
    for (int s = 0; s < n_spec && rc == 0; s++) {
        keras_var *v = &vars[map[s]];
        const char *r = spec[s].roles, *e = strchr(r, '|');
        int rl = e ? (int)(e - r) : (int)strlen(r);
        int same = v->rank == spec[s].rank;
        for (int d = 0; same && d < v->rank; d++) same = v->dims[d] == spec[s].dims[d];
        if (!same) {
            char a[64], b[64];
            shape_str(v->dims, v->rank, a, sizeof a);
            shape_str(spec[s].dims, spec[s].rank, b, sizeof b);
            rc = edgeq_fail_at(k->err, k->errlen, k->layer, "weight '%.*s' (%s) has shape %s, but the layer's config needs %s", rl,
                      r, v->path, a, b);
            break;
        }
        for (size_t i = 0; i < v->len && !keras_keep_nonfinite; i++)
            if (!isfinite(v->data[i])) {
                rc = edgeq_fail_at(k->err, k->errlen, k->layer, "weight '%.*s' (%s) holds %s at element %zu: the model is broken "
                          "(diverged training?)",
                          rl, r, v->path, isnan(v->data[i]) ? "NaN" : "infinity", i);
                break;
            }
    }
    if (rc == 0) {
        for (int s = 0; s < n_spec; s++) {
            keras_var *v = &vars[map[s]];
            edgeq_node *n = &k->g->nodes[spec[s].node];
            float **dst;
            size_t *len;
            switch (spec[s].field) {
            case 0: dst = &n->kernel, len = &n->kernel_len; break;
            case 1: dst = &n->bias, len = &n->bias_len; break;
            case 2: dst = &n->bn_gamma, len = &n->bn_len; break;
            case 3: dst = &n->bn_beta, len = &n->bn_len; break;
            case 4: dst = &n->bn_mean, len = &n->bn_len; break;
            default: dst = &n->bn_var, len = &n->bn_len; break;
            }
            free(*dst);
            *dst = v->data;
            *len = v->len;
            v->data = NULL;
        }
    }
    keras_vars_free(vars, nv);
    return rc;
}

/* ---- inputs ---- */

static int check_dtype(kc *k, const cJSON *cfg) {
    const cJSON *d = get(cfg, "dtype");
    const char *name = cJSON_IsString(d) ? d->valuestring : get_str(get(d, "config"), "name");
    if (!name) return 0;
    if (strstr(name, "float") || strcmp(name, "bfloat16") == 0) return 0;
    return edgeq_fail_at(k->err, k->errlen, k->layer, "input dtype '%s' is not supported: edgeq quantizes float models", name);
}

/* The shape of an input, from a layer config: batch_input_shape (Keras 2),
 * batch_shape (Keras 3) or shape (no batch). Returns 1 if none given. */
static int shape_from(kc *k, const cJSON *cfg, const char *key, int with_batch, int *shape,
                      int *rank) {
    const cJSON *v = get(cfg, key);
    if (is_null(v)) return 1;
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (n < 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "'%s' is not a list", key);
    int r = n + (with_batch ? 0 : 1);
    if (r < 1 || r > EDGEQ_MAX_RANK)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "input rank %d (with the batch) is not supported (1 to %d)", r,
                    EDGEQ_MAX_RANK);
    shape[0] = 1;
    for (int i = with_batch ? 1 : 0; i < n; i++) {
        const cJSON *d = cJSON_GetArrayItem(v, i);
        int axis = with_batch ? i : i + 1;
        if (is_null(d))
            return edgeq_fail_at(k->err, k->errlen, k->layer, "input dimension %d is unknown (None): edgeq needs a fixed input shape; "
                        "give the model one (keras.Input(shape=...) with numbers)",
                        axis);
        if (to_int(k, d, key, 1, KERAS_MAX_DIM, &shape[axis])) return -1;
    }
    *rank = r;
    return 0;
}

static int input_shape(kc *k, const cJSON *cfg, int *shape, int *rank) {
    int r = shape_from(k, cfg, "batch_input_shape", 1, shape, rank);
    if (r == 1) r = shape_from(k, cfg, "batch_shape", 1, shape, rank);
    if (r == 1) r = shape_from(k, cfg, "shape", 0, shape, rank);
    return r;
}

static void set_layer(kc *k, const char *name, const char *cls) {
    snprintf(k->layer, sizeof k->layer, "layer '%s' (%s)", name, cls);
}

static int make_input(kc *k, const char *name, const int *shape, int rank) {
    if (k->g->n_inputs >= 8) return edgeq_fail_at(k->err, k->errlen, k->layer, "more than 8 model inputs");
    int idx = new_node(k, EDGEQ_OP_INPUT, name, "InputLayer", NULL, 0);
    if (idx < 0) return -1;
    edgeq_node *n = &k->g->nodes[idx];
    n->rank = rank;
    memcpy(n->shape, shape, sizeof n->shape);
    if (infer(k, idx)) return -1;
    k->g->inputs[k->g->n_inputs++] = idx;
    return idx;
}

/* A nested model's InputLayer bound to an outer tensor: shapes must agree. */
static int check_bound(kc *k, const cJSON *cfg, int node) {
    int shape[EDGEQ_MAX_RANK] = {0}, rank = 0;
    int r = input_shape(k, cfg, shape, &rank);
    if (r < 0) {
        /* None dimensions inside a nested model are fine: the outer
         * tensor decides. */
        k->err[0] = 0;
        return 0;
    }
    if (r == 1) return 0;
    const edgeq_node *n = &k->g->nodes[node];
    int same = n->rank == rank;
    for (int i = 1; same && i < rank; i++) same = n->shape[i] == shape[i];
    if (!same) {
        char a[64], b[64];
        shape_str(n->shape, n->rank, a, sizeof a);
        shape_str(shape, rank, b, sizeof b);
        return edgeq_fail_at(k->err, k->errlen, k->layer, "the nested model's input expects shape %s, it is given %s", b, a);
    }
    return 0;
}

/* ---- layers ---- */

static int build_model(kc *k, const cJSON *model, const scope *sc, int *outs, int *n_outs);

static int is_model_class(const char *cls) {
    return strcmp(cls, "Functional") == 0 || strcmp(cls, "Model") == 0 ||
           strcmp(cls, "Sequential") == 0;
}

static int is_identity_class(const char *cls) {
    static const char *const ids[] = {"Dropout",      "SpatialDropout1D", "SpatialDropout2D",
                                      "SpatialDropout3D", "GaussianNoise", "GaussianDropout",
                                      "AlphaDropout", "ActivityRegularization", "Identity"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        if (strcmp(cls, ids[i]) == 0) return 1;
    return 0;
}

/* A fused softmax activation becomes a SOFTMAX node after `idx`. */
static int add_softmax_after(kc *k, int idx, const char *cls) {
    char name[EDGEQ_NAME_LEN];
    snprintf(name, sizeof name, "%.*s/softmax", EDGEQ_NAME_LEN - 10, k->g->nodes[idx].name);
    int s = new_node(k, EDGEQ_OP_SOFTMAX, name, cls, &idx, 1);
    if (s < 0) return -1;
    k->g->nodes[s].axis = -1;
    return infer(k, s) ? -1 : s;
}

static int conv_common(kc *k, const cJSON *cfg, edgeq_node *tmp) {
    int ks[2], st[2], dl[2];
    if (get_pair(k, cfg, "kernel_size", 1, 1, 65535, ks) ||
        get_pair(k, cfg, "strides", 1, 1, 65535, st) ||
        get_pair(k, cfg, "dilation_rate", 1, 1, 65535, dl) || get_padding(k, cfg, &tmp->pad_same))
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

/* Build one call of a (non-model) layer. */
static int emit_op(kc *k, const char *cls, const cJSON *cfg, const char *nname,
                   const keras_loc *loc, const int *in, int n_in, int *out) {
    edgeq_graph *g = k->g;
    int one = n_in == 1;
    int merge = strcmp(cls, "Add") == 0 || strcmp(cls, "Subtract") == 0 ||
                strcmp(cls, "Multiply") == 0 || strcmp(cls, "Concatenate") == 0;
    if (!merge && !one) return edgeq_fail_at(k->err, k->errlen, k->layer, "expects one input, is given %d", n_in);
    if (merge && n_in < 2) return edgeq_fail_at(k->err, k->errlen, k->layer, "needs at least two inputs, is given %d", n_in);

    if (strcmp(cls, "Conv2D") == 0 || strcmp(cls, "DepthwiseConv2D") == 0 ||
        strcmp(cls, "Dense") == 0) {
        int dense = strcmp(cls, "Dense") == 0;
        int dw = strcmp(cls, "DepthwiseConv2D") == 0;
        edgeq_node t;
        memset(&t, 0, sizeof t);
        t.stride_h = t.stride_w = t.dil_h = t.dil_w = 1;
        int use_bias, units = 0, groups = 1, dm = 1, softmax;
        edgeq_act act;
        float alpha;
        if (!dense && conv_common(k, cfg, &t)) return -1;
        if (dense && get_int(k, cfg, "units", 0, 1, KERAS_MAX_DIM, &units)) return -1;
        if (!dense && !dw && (get_int(k, cfg, "filters", 0, 1, KERAS_MAX_DIM, &units) ||
                              get_int(k, cfg, "groups", 1, 1, KERAS_MAX_DIM, &groups)))
            return -1;
        if (dw && get_int(k, cfg, "depth_multiplier", 1, 1, KERAS_MAX_DIM, &dm)) return -1;
        if (get_bool(k, cfg, "use_bias", 1, &use_bias) ||
            parse_act(k, cfg, "activation", &act, &alpha, &softmax))
            return -1;
        edgeq_op op = dense ? EDGEQ_OP_DENSE : dw ? EDGEQ_OP_DEPTHWISE_CONV2D : EDGEQ_OP_CONV2D;
        int idx = new_node(k, op, nname, cls, in, 1);
        if (idx < 0) return -1;
        edgeq_node *n = &g->nodes[idx];
        if (!dense) copy_geometry(n, &t);
        n->filters = units;
        n->groups = groups;
        n->depth_multiplier = dm;
        n->act = act;
        n->alpha = alpha;
        if (infer(k, idx)) return -1;
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
        if (load_weights(k, loc, s, use_bias ? 2 : 1)) return -1;
        *out = softmax ? add_softmax_after(k, idx, cls) : idx;
        return *out < 0 ? -1 : 0;
    }
    if (strcmp(cls, "SeparableConv2D") == 0) {
        edgeq_node t;
        memset(&t, 0, sizeof t);
        int use_bias, filters, dm, softmax;
        edgeq_act act;
        float alpha;
        if (conv_common(k, cfg, &t) || get_int(k, cfg, "filters", 0, 1, KERAS_MAX_DIM, &filters) ||
            get_int(k, cfg, "depth_multiplier", 1, 1, KERAS_MAX_DIM, &dm) ||
            get_bool(k, cfg, "use_bias", 1, &use_bias) ||
            parse_act(k, cfg, "activation", &act, &alpha, &softmax))
            return -1;
        char dname[EDGEQ_NAME_LEN];
        snprintf(dname, sizeof dname, "%.*s/depthwise", EDGEQ_NAME_LEN - 12, nname);
        int d = new_node(k, EDGEQ_OP_DEPTHWISE_CONV2D, dname, cls, in, 1);
        if (d < 0) return -1;
        copy_geometry(&g->nodes[d], &t);
        g->nodes[d].depth_multiplier = dm;
        if (infer(k, d)) return -1;
        int p = new_node(k, EDGEQ_OP_CONV2D, nname, cls, &d, 1);
        if (p < 0) return -1;
        edgeq_node *n = &g->nodes[p];
        n->kh = n->kw = 1;
        n->filters = filters;
        n->act = act;
        n->alpha = alpha;
        if (infer(k, p)) return -1;
        int cin = g->nodes[in[0]].shape[3];
        wspec s[3] = {
            {"depthwise_kernel", 4, {t.kh, t.kw, cin, dm}, d, 0},
            {"pointwise_kernel", 4, {1, 1, cin * dm, filters}, p, 0},
            {"bias", 1, {filters}, p, 1},
        };
        if (load_weights(k, loc, s, use_bias ? 3 : 2)) return -1;
        *out = softmax ? add_softmax_after(k, p, cls) : p;
        return *out < 0 ? -1 : 0;
    }
    if (strcmp(cls, "BatchNormalization") == 0) {
        int center, scale, renorm, axis;
        double eps;
        if (get_bool(k, cfg, "center", 1, &center) || get_bool(k, cfg, "scale", 1, &scale) ||
            get_bool(k, cfg, "renorm", 0, &renorm) || get_num(k, cfg, "epsilon", 1e-3, &eps) ||
            get_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis))
            return -1;
        if (renorm) return edgeq_fail_at(k->err, k->errlen, k->layer, "batch renormalization (renorm=True) is not supported");
        if (!(eps > 0)) return edgeq_fail_at(k->err, k->errlen, k->layer, "epsilon must be positive");
        int idx = new_node(k, EDGEQ_OP_BATCHNORM, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].axis = axis;
        g->nodes[idx].eps = (float)eps;
        if (infer(k, idx)) return -1;
        const edgeq_node *n = &g->nodes[idx];
        int c = n->shape[n->rank - 1];
        wspec s[4];
        int ns = 0;
        if (scale) s[ns++] = (wspec){"gamma", 1, {c}, idx, 2};
        if (center) s[ns++] = (wspec){"beta", 1, {c}, idx, 3};
        s[ns++] = (wspec){"moving_mean", 1, {c}, idx, 4};
        s[ns++] = (wspec){"moving_variance", 1, {c}, idx, 5};
        if (load_weights(k, loc, s, ns)) return -1;
        n = &g->nodes[idx];
        for (int i = 0; i < c; i++)
            if (n->bn_var[i] < 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "moving_variance[%d] is negative", i);
        *out = idx;
        return 0;
    }
    if (strcmp(cls, "Activation") == 0) {
        edgeq_act act;
        float alpha;
        int softmax;
        if (parse_act(k, cfg, "activation", &act, &alpha, &softmax)) return -1;
        edgeq_op op = softmax ? EDGEQ_OP_SOFTMAX
                              : act == EDGEQ_ACT_LINEAR ? EDGEQ_OP_IDENTITY : EDGEQ_OP_ACTIVATION;
        int idx = new_node(k, op, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].act = act;
        g->nodes[idx].alpha = alpha;
        g->nodes[idx].axis = -1;
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "ReLU") == 0 || strcmp(cls, "LeakyReLU") == 0) {
        double maxv = -1, slope, thr;
        int leaky_layer = cls[0] == 'L';
        if (leaky_layer) {
            /* Keras 2 calls the slope alpha, Keras 3 negative_slope. */
            const char *key = get(cfg, "negative_slope") ? "negative_slope" : "alpha";
            if (get_num(k, cfg, key, 0.3, &slope)) return -1;
            thr = 0;
        } else if (get_num(k, cfg, "max_value", -1, &maxv) ||
                   get_num(k, cfg, "negative_slope", 0, &slope) ||
                   get_num(k, cfg, "threshold", 0, &thr))
            return -1;
        edgeq_act act;
        if (thr != 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "ReLU threshold %g is not supported (only 0)", thr);
        if (slope < 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "a negative slope below zero (%g) is not supported", slope);
        if (slope != 0) {
            if (maxv >= 0)
                return edgeq_fail_at(k->err, k->errlen, k->layer, "a leaky ReLU with max_value %g is not supported", maxv);
            act = EDGEQ_ACT_LEAKY_RELU;
        } else if (maxv < 0)
            act = EDGEQ_ACT_RELU;
        else if (maxv == 6)
            act = EDGEQ_ACT_RELU6;
        else
            return edgeq_fail_at(k->err, k->errlen, k->layer, "ReLU max_value %g is not supported (only none and 6)", maxv);
        int idx = new_node(k, EDGEQ_OP_ACTIVATION, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].act = act;
        g->nodes[idx].alpha = act == EDGEQ_ACT_LEAKY_RELU ? (float)slope : 0;
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "Softmax") == 0) {
        int axis;
        if (get_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis)) return -1;
        int idx = new_node(k, EDGEQ_OP_SOFTMAX, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].axis = axis;
        *out = idx;
        return infer(k, idx);
    }
    if (merge) {
        edgeq_op op = cls[0] == 'A'   ? EDGEQ_OP_ADD
                      : cls[0] == 'S' ? EDGEQ_OP_SUBTRACT
                      : cls[0] == 'M' ? EDGEQ_OP_MULTIPLY
                                      : EDGEQ_OP_CONCAT;
        int axis = -1;
        if (op == EDGEQ_OP_SUBTRACT && n_in != 2)
            return edgeq_fail_at(k->err, k->errlen, k->layer, "Subtract takes exactly two inputs, is given %d", n_in);
        if (op == EDGEQ_OP_CONCAT &&
            get_int(k, cfg, "axis", -1, -EDGEQ_MAX_RANK, EDGEQ_MAX_RANK, &axis))
            return -1;
        int idx = new_node(k, op, nname, cls, in, n_in);
        if (idx < 0) return -1;
        g->nodes[idx].axis = axis;
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "MaxPooling2D") == 0 || strcmp(cls, "AveragePooling2D") == 0) {
        int ps[2], st[2] = {1, 1}, same = 0;
        if (get_pair(k, cfg, "pool_size", 2, 1, 65535, ps) || get_padding(k, cfg, &same)) return -1;
        if (is_null(get(cfg, "strides")))
            st[0] = ps[0], st[1] = ps[1];
        else if (get_pair(k, cfg, "strides", 1, 1, 65535, st))
            return -1;
        int idx = new_node(k, cls[0] == 'M' ? EDGEQ_OP_MAXPOOL : EDGEQ_OP_AVGPOOL, nname, cls, in,
                           1);
        if (idx < 0) return -1;
        edgeq_node *n = &g->nodes[idx];
        n->kh = ps[0], n->kw = ps[1], n->stride_h = st[0], n->stride_w = st[1];
        n->pad_same = same;
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "GlobalAveragePooling2D") == 0 || strcmp(cls, "GlobalMaxPooling2D") == 0) {
        int keep;
        if (get_bool(k, cfg, "keepdims", 0, &keep)) return -1;
        int idx = new_node(k, cls[6] == 'A' ? EDGEQ_OP_GLOBAL_AVGPOOL : EDGEQ_OP_GLOBAL_MAXPOOL,
                           nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].keepdims = keep;
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "Flatten") == 0 || strcmp(cls, "Reshape") == 0) {
        int shape[EDGEQ_MAX_RANK] = {1, -1, 0, 0}, rank = 2;
        if (cls[0] == 'R') {
            const cJSON *t = get(cfg, "target_shape");
            int n = cJSON_IsArray(t) ? cJSON_GetArraySize(t) : -1;
            if (n < 1 || n + 1 > EDGEQ_MAX_RANK)
                return edgeq_fail_at(k->err, k->errlen, k->layer, "target_shape must list 1 to %d dimensions", EDGEQ_MAX_RANK - 1);
            rank = n + 1;
            for (int i = 0; i < n; i++) {
                if (to_int(k, cJSON_GetArrayItem(t, i), "target_shape", -1, KERAS_MAX_DIM,
                           &shape[i + 1]))
                    return -1;
                if (shape[i + 1] == 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "target_shape has a zero dimension");
            }
        }
        int idx = new_node(k, EDGEQ_OP_RESHAPE, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].rank = rank;
        memcpy(g->nodes[idx].shape, shape, sizeof shape);
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "ZeroPadding2D") == 0) {
        const cJSON *p = get(cfg, "padding");
        int pad[2][2];
        if (cJSON_IsArray(p) && cJSON_GetArraySize(p) == 2 &&
            cJSON_IsArray(cJSON_GetArrayItem(p, 0))) {
            for (int d = 0; d < 2; d++) {
                const cJSON *pr = cJSON_GetArrayItem(p, d);
                if (!cJSON_IsArray(pr) || cJSON_GetArraySize(pr) != 2)
                    return edgeq_fail_at(k->err, k->errlen, k->layer, "padding must be [[top, bottom], [left, right]]");
                if (to_int(k, cJSON_GetArrayItem(pr, 0), "padding", 0, 65535, &pad[d][0]) ||
                    to_int(k, cJSON_GetArrayItem(pr, 1), "padding", 0, 65535, &pad[d][1]))
                    return -1;
            }
        } else {
            int hw[2];
            if (get_pair(k, cfg, "padding", 1, 0, 65535, hw)) return -1;
            pad[0][0] = pad[0][1] = hw[0];
            pad[1][0] = pad[1][1] = hw[1];
        }
        int idx = new_node(k, EDGEQ_OP_PAD, nname, cls, in, 1);
        if (idx < 0) return -1;
        memcpy(g->nodes[idx].pad[1], pad[0], sizeof pad[0]);
        memcpy(g->nodes[idx].pad[2], pad[1], sizeof pad[1]);
        *out = idx;
        return infer(k, idx);
    }
    if (strcmp(cls, "Rescaling") == 0) {
        double scale, offset;
        if (get_num(k, cfg, "scale", 1.0, &scale) || get_num(k, cfg, "offset", 0.0, &offset))
            return -1;
        int idx = new_node(k, EDGEQ_OP_RESCALE, nname, cls, in, 1);
        if (idx < 0) return -1;
        g->nodes[idx].scale = (float)scale;
        g->nodes[idx].offset = (float)offset;
        *out = idx;
        return infer(k, idx);
    }
    if (is_identity_class(cls)) {
        int idx = new_node(k, EDGEQ_OP_IDENTITY, nname, cls, in, 1);
        if (idx < 0) return -1;
        *out = idx;
        return infer(k, idx);
    }
    if (strchr(cls, '>'))
        return edgeq_fail_at(k->err, k->errlen, k->layer, "a custom layer (registered as '%s'), which edgeq cannot load; "
                       "supported: %s",
                    cls, SUPPORTED);
    return edgeq_fail_at(k->err, k->errlen, k->layer, "layer class '%s' is not supported (supported: %s)", cls, SUPPORTED);
}

/* Reject what cannot be loaded before looking at the layer's specifics. */
static int check_layer(kc *k, const cJSON *lj, const char *cls, const cJSON *cfg) {
    if (strcmp(cls, "Lambda") == 0)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "Lambda layers hold Python code, which edgeq never runs; rebuild the "
                       "model with built-in layers in its place");
    const char *mod = get_str(lj, "module");
    const char *reg = get_str(lj, "registered_name");
    int builtin = !mod || strncmp(mod, "keras", 5) == 0 || strncmp(mod, "tf_keras", 8) == 0;
    if (reg && strchr(reg, '>')) builtin = 0; /* "package>Name": register_keras_serializable */
    if (!builtin)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "a custom layer (%s%s%s%s%s%s), which edgeq cannot load; supported: %s",
                    mod ? "module '" : "", mod ? mod : "", mod ? "'" : "",
                    reg ? (mod ? ", registered as '" : "registered as '") : "", reg ? reg : "",
                    reg ? "'" : "", SUPPORTED);
    const char *df = get_str(cfg, "data_format");
    if (df && strcmp(df, "channels_first") == 0)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "data_format 'channels_first' is not supported: edgeq works in NHWC "
                       "(channels_last)");
    const cJSON *dt = get(cfg, "dtype");
    const char *pol = get_str(dt, "class_name");
    const char *pname = get_str(get(dt, "config"), "name");
    if ((pol && strstr(pol, "Quantized")) ||
        (pname && (strncmp(pname, "int", 3) == 0 || strncmp(pname, "float8", 6) == 0 ||
                   strncmp(pname, "gptq", 4) == 0)))
        return edgeq_fail_at(k->err, k->errlen, k->layer, "the layer is already quantized by Keras (dtype policy '%s'); give edgeq "
                       "the float model",
                    pname ? pname : pol);
    return 0;
}

static const char *layer_name(const cJSON *lj) {
    const char *n = get_str(lj, "name");
    return n ? n : get_str(get(lj, "config"), "name");
}

/* One call of a layer (or nested model) in scope `sc`; `zip_name` is its
 * key in the container's layers/ group; `call` counts its calls. */
static int emit_layer(kc *k, const scope *sc, const cJSON *lj, const char *zip_name, int call,
                      const int *in, int n_in, int *outs, int *n_outs) {
    const char *cls = get_str(lj, "class_name");
    const char *name = layer_name(lj);
    const cJSON *cfg = get(lj, "config");
    char nname[EDGEQ_NAME_LEN];
    if (call > 0)
        fmt_name(nname, sizeof nname, "%s%s#%d", sc->prefix, name ? name : "?", call);
    else
        fmt_name(nname, sizeof nname, "%s%s", sc->prefix, name ? name : "?");
    set_layer(k, nname, cls ? cls : "?");
    if (!cls || !name) return edgeq_fail_at(k->err, k->errlen, k->layer, "a layer without class_name or name");
    if (check_layer(k, lj, cls, cfg)) return -1;

    keras_loc loc = sc->loc;
    if (loc.depth >= KERAS_MAX_DEPTH)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "models nested more than %d deep", KERAS_MAX_DEPTH);
    loc.names[loc.depth++] = name;
    if ((size_t)snprintf(loc.zip_path, sizeof loc.zip_path, "%s%slayers/%s", sc->loc.zip_path,
                         sc->loc.zip_path[0] ? "/" : "", zip_name) >= sizeof loc.zip_path)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "nested too deep");

    if (is_model_class(cls)) {
        scope sub;
        memset(&sub, 0, sizeof sub);
        fmt_name(sub.prefix, sizeof sub.prefix, "%s/", nname);
        sub.loc = loc;
        sub.top = 0;
        sub.bound = in;
        sub.n_bound = n_in;
        int rc = build_model(k, lj, &sub, outs, n_outs);
        return rc;
    }
    *n_outs = 1;
    return emit_op(k, cls, cfg, nname, &loc, in, n_in, &outs[0]);
}

/* Keras 3 .keras keys: snake_case(class) with _1, _2... for repeats, over
 * the container's layer list. `names` gets one entry per layer. */
typedef char zipname_t[96];

static int zip_names(const cJSON *layers, int first, zipname_t *names) {
    int n = cJSON_GetArraySize(layers);
    for (int i = first; i < n; i++) {
        const char *cls = get_str(cJSON_GetArrayItem(layers, i), "class_name");
        char base[80];
        keras_snake_case(cls ? cls : "layer", base, sizeof base);
        int seen = 0;
        for (int j = first; j < i; j++) {
            const char *c2 = get_str(cJSON_GetArrayItem(layers, j), "class_name");
            char b2[80];
            keras_snake_case(c2 ? c2 : "layer", b2, sizeof b2);
            if (strcmp(b2, base) == 0) seen++;
        }
        if (seen)
            snprintf(names[i], sizeof names[i], "%s_%d", base, seen);
        else
            snprintf(names[i], sizeof names[i], "%s", base);
    }
    return 0;
}

static int is_input_layer(const cJSON *lj) {
    const char *c = get_str(lj, "class_name");
    return c && strcmp(c, "InputLayer") == 0;
}

static int build_sequential(kc *k, const cJSON *model, const scope *sc, int *outs, int *n_outs) {
    const cJSON *cfg = get(model, "config");
    const cJSON *layers = cJSON_IsArray(cfg) ? cfg : get(cfg, "layers"); /* Keras <= 2.2 */
    const char *mname = cJSON_IsObject(cfg) ? get_str(cfg, "name") : NULL;
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    k->layer[0] = 0;
    if (n < 1) return edgeq_fail_at(k->err, k->errlen, k->layer, "Sequential model '%s' has no layers", mname ? mname : "?");
    int start = is_input_layer(cJSON_GetArrayItem(layers, 0)) ? 1 : 0;
    zipname_t *zn = calloc((size_t)n, sizeof *zn);
    if (!zn) return edgeq_fail_at(k->err, k->errlen, k->layer, "out of memory");
    zip_names(layers, start, zn);
    int cur = -1, rc = -1;
    const cJSON *first = cJSON_GetArrayItem(layers, 0);
    if (sc->top) {
        int shape[EDGEQ_MAX_RANK] = {0}, rank = 0, r;
        char iname[EDGEQ_NAME_LEN];
        const char *fname = layer_name(first);
        set_layer(k, fname ? fname : "?", start ? "InputLayer" : "input");
        if (start) {
            if (check_dtype(k, get(first, "config"))) goto done;
            r = input_shape(k, get(first, "config"), shape, &rank);
            snprintf(iname, sizeof iname, "%s", fname ? fname : "input");
        } else {
            /* No InputLayer (older Keras): the shape sits on the first layer. */
            r = input_shape(k, get(first, "config"), shape, &rank);
            if (r == 1) r = shape_from(k, cfg, "build_input_shape", 1, shape, &rank);
            if (r == 1)
                r = shape_from(k, get(first, "build_config"), "input_shape", 1, shape, &rank);
            snprintf(iname, sizeof iname, "%.100s_input", fname ? fname : "sequential");
        }
        if (r == 1) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "the model has no input shape (no InputLayer, no batch_input_shape): build "
                    "it with keras.Input(shape=...) first");
            goto done;
        }
        if (r < 0) goto done;
        cur = make_input(k, iname, shape, rank);
        if (cur < 0) goto done;
    } else {
        k->layer[0] = 0;
        if (sc->n_bound != 1) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "nested Sequential model '%s' is given %d inputs", mname ? mname : "?",
                 sc->n_bound);
            goto done;
        }
        cur = sc->bound[0];
        if (start) {
            const char *fname = layer_name(first);
            set_layer(k, fname ? fname : "?", "InputLayer");
            if (check_bound(k, get(first, "config"), cur)) goto done;
        }
    }
    for (int i = start; i < n; i++) {
        const cJSON *lj = cJSON_GetArrayItem(layers, i);
        int o[MAX_OUTS], no = 0;
        if (is_input_layer(lj)) {
            set_layer(k, layer_name(lj) ? layer_name(lj) : "?", "InputLayer");
            edgeq_fail_at(k->err, k->errlen, k->layer, "an InputLayer in the middle of a Sequential model");
            goto done;
        }
        if (emit_layer(k, sc, lj, zn[i], 0, &cur, 1, o, &no)) goto done;
        if (no != 1) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "a layer of a Sequential model must have one output, it has %d", no);
            goto done;
        }
        cur = o[0];
    }
    outs[0] = cur;
    *n_outs = 1;
    rc = 0;
done:
    free(zn);
    return rc;
}

/* ---- Functional ---- */

typedef struct kref {
    const char *layer;
    int node, tensor;
} kref;

typedef struct kcall {
    int n_in;
    kref in[EDGEQ_MAX_INPUTS];
    int done;
    int n_out;
    int out[MAX_OUTS];
} kcall;

typedef struct klayer {
    const cJSON *json;
    const char *name, *cls;
    int is_input;
    int input_node; /* is_input: its value, -1 until bound */
    int offset;     /* node index of the first call */
    int n_calls;
    kcall *calls;
} klayer;

static int parse_ref(kc *k, const cJSON *r, kref *out) {
    memset(out, 0, sizeof *out);
    out->layer = "";
    /* [name, node, tensor(, kwargs)] */
    if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) < 3 ||
        !cJSON_IsString(cJSON_GetArrayItem(r, 0)))
        return edgeq_fail_at(k->err, k->errlen, k->layer, "a malformed inbound reference (expected [layer, node, tensor])");
    out->layer = cJSON_GetArrayItem(r, 0)->valuestring;
    if (to_int(k, cJSON_GetArrayItem(r, 1), "node index", 0, 1 << 20, &out->node) ||
        to_int(k, cJSON_GetArrayItem(r, 2), "tensor index", 0, MAX_OUTS - 1, &out->tensor))
        return -1;
    return 0;
}

/* Keras 3 call arguments: every "__keras_tensor__" in `v`, depth first. */
static int collect_tensors(kc *k, const cJSON *v, kcall *c, int depth) {
    if (depth > 16) return edgeq_fail_at(k->err, k->errlen, k->layer, "inbound node arguments nested too deep");
    if (cJSON_IsArray(v)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (collect_tensors(k, e, c, depth + 1)) return -1;
        }
        return 0;
    }
    if (!cJSON_IsObject(v)) return 0;
    const char *cls = get_str(v, "class_name");
    if (cls && strcmp(cls, "__keras_tensor__") == 0) {
        if (c->n_in >= EDGEQ_MAX_INPUTS) return edgeq_fail_at(k->err, k->errlen, k->layer, "more than %d inputs", EDGEQ_MAX_INPUTS);
        return parse_ref(k, get(get(v, "config"), "keras_history"), &c->in[c->n_in++]);
    }
    return 0;
}

static int parse_calls(kc *k, klayer *L) {
    const cJSON *nodes = get(L->json, "inbound_nodes");
    int n = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    if (n == 0) return 0;
    if (n > 4096) return edgeq_fail_at(k->err, k->errlen, k->layer, "more than 4096 calls");
    L->calls = calloc((size_t)n, sizeof *L->calls);
    if (!L->calls) return edgeq_fail_at(k->err, k->errlen, k->layer, "out of memory");
    L->n_calls = n;
    for (int i = 0; i < n; i++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        kcall *c = &L->calls[i];
        if (cJSON_IsObject(node)) { /* Keras 3 */
            if (collect_tensors(k, get(node, "args"), c, 0)) return -1;
        } else if (cJSON_IsArray(node)) { /* Keras 2 */
            const cJSON *r;
            cJSON_ArrayForEach(r, node) {
                if (c->n_in >= EDGEQ_MAX_INPUTS)
                    return edgeq_fail_at(k->err, k->errlen, k->layer, "more than %d inputs", EDGEQ_MAX_INPUTS);
                if (parse_ref(k, r, &c->in[c->n_in++])) return -1;
            }
        } else
            return edgeq_fail_at(k->err, k->errlen, k->layer, "a malformed inbound node");
        if (c->n_in == 0) return edgeq_fail_at(k->err, k->errlen, k->layer, "a call without tensor inputs");
    }
    return 0;
}

/* input_layers / output_layers: [[name, node, tensor], ...] or, in Keras
 * 3 with one tensor, [name, node, tensor]. */
static int parse_io(kc *k, const cJSON *v, const char *key, kref *refs, int max, int *n) {
    *n = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "the model config has no %s", key);
    if (cJSON_IsString(cJSON_GetArrayItem(v, 0))) {
        *n = 1;
        return parse_ref(k, v, &refs[0]);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        if (*n >= max) return edgeq_fail_at(k->err, k->errlen, k->layer, "more than %d %s", max, key);
        if (parse_ref(k, e, &refs[(*n)++])) return -1;
    }
    return 0;
}

static klayer *find_layer(klayer *ls, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(ls[i].name, name) == 0) return &ls[i];
    return NULL;
}

/* 1: *node set; 0: not computed yet; -1: error. `from_io`: the reference
 * is from input_layers/output_layers. Keras 3 numbers calls differently
 * there: its inbound nodes skip a nested Functional's own node 0 (they
 * count only the model's nodes), its input/output lists do not. */
static int resolve(kc *k, klayer *ls, int n, const kref *r, int from_io, int *node) {
    klayer *L = find_layer(ls, n, r->layer);
    if (!L) return edgeq_fail_at(k->err, k->errlen, k->layer, "its input '%s' is not a layer of the model", r->layer);
    if (L->is_input) {
        if (L->input_node < 0)
            return edgeq_fail_at(k->err, k->errlen, k->layer, "its input '%s' is an InputLayer that is not a model input", r->layer);
        *node = L->input_node;
        return 1;
    }
    int c = r->node - (k->major >= 3 && !from_io ? 0 : L->offset);
    if (c < 0 || c >= L->n_calls) {
        if (L->n_calls != 1)
            return edgeq_fail_at(k->err, k->errlen, k->layer, "its input refers to call %d of layer '%s', which has %d calls",
                        r->node, r->layer, L->n_calls);
        c = 0;
    }
    if (!L->calls[c].done) return 0;
    if (r->tensor >= L->calls[c].n_out)
        return edgeq_fail_at(k->err, k->errlen, k->layer, "its input refers to output %d of layer '%s', which has %d", r->tensor,
                    r->layer, L->calls[c].n_out);
    *node = L->calls[c].out[r->tensor];
    return 1;
}

static int build_functional(kc *k, const cJSON *model, const scope *sc, int *outs,
                            int *n_outs) {
    const cJSON *cfg = get(model, "config");
    const cJSON *layers = get(cfg, "layers");
    const char *mname = get_str(cfg, "name");
    k->layer[0] = 0;
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    if (n < 1) return edgeq_fail_at(k->err, k->errlen, k->layer, "model '%s' has no layers", mname ? mname : "?");
    klayer *ls = calloc((size_t)n, sizeof *ls);
    zipname_t *zn = calloc((size_t)n, sizeof *zn);
    int rc = -1;
    if (!ls || !zn) {
        edgeq_fail_at(k->err, k->errlen, k->layer, "out of memory");
        goto done;
    }
    zip_names(layers, 0, zn);
    for (int i = 0; i < n; i++) {
        klayer *L = &ls[i];
        L->json = cJSON_GetArrayItem(layers, i);
        L->name = layer_name(L->json);
        L->cls = get_str(L->json, "class_name");
        L->input_node = -1;
        set_layer(k, L->name ? L->name : "?", L->cls ? L->cls : "?");
        if (!L->name || !L->cls) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "a layer without name or class_name");
            goto done;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(ls[j].name, L->name) == 0) {
                edgeq_fail_at(k->err, k->errlen, k->layer, "two layers have this name");
                goto done;
            }
        L->is_input = strcmp(L->cls, "InputLayer") == 0;
        if (strcmp(L->cls, "Functional") == 0 || strcmp(L->cls, "Model") == 0)
            L->offset = 1;
        else if (strcmp(L->cls, "Sequential") == 0 && k->major < 3) {
            const cJSON *sl = get(get(L->json, "config"), "layers");
            L->offset = is_input_layer(cJSON_GetArrayItem(sl, 0)) ? 1 : 0;
        }
        if (!L->is_input && parse_calls(k, L)) goto done;
    }
    /* Inputs, in input_layers order. */
    kref io[MAX_OUTS > 8 ? MAX_OUTS : 8];
    int n_io;
    memset(io, 0, sizeof io);
    k->layer[0] = 0;
    if (parse_io(k, get(cfg, "input_layers"), "input_layers", io, 8, &n_io)) goto done;
    if (!sc->top && n_io != sc->n_bound) {
        edgeq_fail_at(k->err, k->errlen, k->layer, "nested model '%s' has %d inputs, it is given %d", mname ? mname : "?", n_io,
             sc->n_bound);
        goto done;
    }
    for (int p = 0; p < n_io; p++) {
        klayer *L = find_layer(ls, n, io[p].layer);
        if (!L || !L->is_input) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "model input '%s' is not an InputLayer of the model", io[p].layer);
            goto done;
        }
        set_layer(k, L->name, "InputLayer");
        const cJSON *lcfg = get(L->json, "config");
        if (sc->top) {
            int shape[EDGEQ_MAX_RANK] = {0}, rank = 0;
            if (check_dtype(k, lcfg)) goto done;
            int r = input_shape(k, lcfg, shape, &rank);
            if (r == 1) edgeq_fail_at(k->err, k->errlen, k->layer, "the input has no shape");
            if (r != 0) goto done;
            L->input_node = make_input(k, L->name, shape, rank);
            if (L->input_node < 0) goto done;
        } else {
            L->input_node = sc->bound[p];
            if (check_bound(k, lcfg, L->input_node)) goto done;
        }
    }
    /* Calls, in passes until nothing is left. */
    for (int progress = 1; progress;) {
        progress = 0;
        for (int i = 0; i < n; i++) {
            klayer *L = &ls[i];
            for (int c = 0; c < L->n_calls; c++) {
                kcall *call = &L->calls[c];
                if (call->done) continue;
                int in[EDGEQ_MAX_INPUTS], ready = 1;
                set_layer(k, L->name, L->cls);
                for (int j = 0; j < call->n_in && ready; j++) {
                    int r = resolve(k, ls, n, &call->in[j], 0, &in[j]);
                    if (r < 0) goto done;
                    ready = r;
                }
                if (!ready) continue;
                if (emit_layer(k, sc, L->json, zn[i], c, in, call->n_in, call->out,
                               &call->n_out))
                    goto done;
                call->done = 1;
                progress = 1;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < ls[i].n_calls; c++)
            if (!ls[i].calls[c].done) {
                set_layer(k, ls[i].name, ls[i].cls);
                edgeq_fail_at(k->err, k->errlen, k->layer, "its inputs are never computed (a cycle, or a missing layer)");
                goto done;
            }
    k->layer[0] = 0;
    if (parse_io(k, get(cfg, "output_layers"), "output_layers", io, MAX_OUTS, &n_io)) goto done;
    for (int p = 0; p < n_io; p++) {
        k->layer[0] = 0;
        int r = resolve(k, ls, n, &io[p], 1, &outs[p]);
        if (r < 0) goto done;
        if (r == 0) {
            edgeq_fail_at(k->err, k->errlen, k->layer, "model output '%s' is never computed", io[p].layer);
            goto done;
        }
    }
    *n_outs = n_io;
    rc = 0;
done:
    if (ls)
        for (int i = 0; i < n; i++) free(ls[i].calls);
    free(ls);
    free(zn);
    return rc;
}

static int build_model(kc *k, const cJSON *model, const scope *sc, int *outs, int *n_outs) {
    const char *cls = get_str(model, "class_name");
    k->layer[0] = 0;
    if (!cls) return edgeq_fail_at(k->err, k->errlen, k->layer, "the model config has no class_name");
    if (strcmp(cls, "Sequential") == 0) return build_sequential(k, model, sc, outs, n_outs);
    if (strcmp(cls, "Functional") == 0 || strcmp(cls, "Model") == 0)
        return build_functional(k, model, sc, outs, n_outs);
    return edgeq_fail_at(k->err, k->errlen, k->layer, "the top-level model is a '%s'; edgeq loads Sequential and Functional models "
                   "(subclassed models cannot be loaded from their config)",
                cls);
}

/* Keras 3 writes inbound nodes as objects, Keras 2 as lists. */
static int guess_major(const cJSON *j, int depth) {
    if (depth > 64) return 0;
    const cJSON *nodes = get(j, "inbound_nodes");
    if (cJSON_IsArray(nodes) && cJSON_GetArraySize(nodes) > 0)
        return cJSON_IsObject(cJSON_GetArrayItem(nodes, 0)) ? 3 : 2;
    const cJSON *layers = get(get(j, "config"), "layers");
    const cJSON *e;
    if (cJSON_IsArray(layers))
        cJSON_ArrayForEach(e, layers) {
            int m = guess_major(e, depth + 1);
            if (m) return m;
        }
    return 0;
}

int keras_build_graph(const char *json, size_t json_len, const keras_weights *w, int keras_major,
                      edgeq_graph *g, char *err, size_t errlen) {
    kc k;
    memset(&k, 0, sizeof k);
    k.g = g;
    k.w = w;
    k.err = err;
    k.errlen = errlen;
    cJSON *root = cJSON_ParseWithLength(json, json_len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        snprintf(err, errlen, "the model config is not valid JSON (near byte %td)",
                 at && at >= json && at <= json + json_len ? at - json : (ptrdiff_t)-1);
        return -1;
    }
    k.major = keras_major;
    if (k.major != 2 && k.major != 3) {
        k.major = guess_major(root, 0);
        if (!k.major) k.major = 3;
    }
    scope sc;
    memset(&sc, 0, sizeof sc);
    sc.top = 1;
    int outs[MAX_OUTS], n_outs = 0;
    int rc = build_model(&k, root, &sc, outs, &n_outs);
    if (rc == 0) {
        for (int i = 0; i < n_outs; i++) g->outputs[i] = outs[i];
        g->n_outputs = n_outs;
        if (g->n_inputs == 0) rc = edgeq_fail_at(k.err, k.errlen, k.layer, "the model has no inputs");
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- names ---- */

static int is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }

void keras_snake_case(const char *in, char *out, size_t outlen) {
    /* Python's re.sub, step by step (matches do not overlap and the scan
     * resumes after each):
     *   \W+ -> ""; (.)([A-Z][a-z]+) -> \1_\2; ([a-z])([A-Z]) -> \1_\2; lower */
    char a[256], b[512], c[1024];
    size_t n = 0;
    for (const char *p = in; *p && n + 1 < sizeof a; p++)
        if (is_upper(*p) || is_lower(*p) || (*p >= '0' && *p <= '9') || *p == '_' ||
            (unsigned char)*p >= 0x80)
            a[n++] = *p;
    a[n] = 0;
    size_t o = 0, i = 0;
    while (i < n) {
        if (i + 2 < n && a[i] != '\n' && is_upper(a[i + 1]) && is_lower(a[i + 2])) {
            size_t e = i + 3;
            while (e < n && is_lower(a[e])) e++;
            b[o++] = a[i];
            b[o++] = '_';
            for (size_t j = i + 1; j < e; j++) b[o++] = a[j];
            i = e;
        } else {
            b[o++] = a[i++];
        }
    }
    b[o] = 0;
    size_t m = o;
    o = 0;
    i = 0;
    while (i < m) {
        if (i + 1 < m && is_lower(b[i]) && is_upper(b[i + 1])) {
            c[o++] = b[i];
            c[o++] = '_';
            c[o++] = b[i + 1];
            i += 2;
        } else {
            c[o++] = b[i++];
        }
    }
    c[o] = 0;
    for (size_t j = 0; j < o; j++)
        if (is_upper(c[j])) c[j] = (char)(c[j] - 'A' + 'a');
    snprintf(out, outlen, "%s", c);
}
