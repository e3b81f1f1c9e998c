/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kc.c — reading a layer's config fields, activations, new nodes and the
 * layer's weights (see kc.h).
 */
#include "kc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keras_load.h"

/* The weight arrays a reader handed over (any reader: h5, .keras zip). */
void keras_vars_free(keras_var *vars, int n) {
    for (int i = 0; i < n; i++) {
        free(vars[i].data);
        vars[i].data = NULL;
    }
}

/* edgeq_keras_allow_nonfinite (keras_load.h): process-wide, set before the
 * load (the reader runs in a forked child, which inherits it). */
static int keras_keep_nonfinite;

void edgeq_keras_allow_nonfinite(int on) { keras_keep_nonfinite = on != 0; }

static const char SUPPORTED_ACTS[] =
    "linear, relu, relu6, sigmoid, tanh, softmax, hard_swish (hard_silu), leaky_relu";

/* ---- JSON access ---- */

const cJSON *kc_get(const cJSON *o, const char *key) {
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

const char *kc_str(const cJSON *o, const char *key) {
    const cJSON *v = kc_get(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

int kc_is_null(const cJSON *v) { return !v || cJSON_IsNull(v); }

/* A number; missing or null gives `def`. */
int kc_num(kc *k, const cJSON *cfg, const char *key, double def, double *out) {
    const cJSON *v = kc_get(cfg, key);
    *out = def;
    if (kc_is_null(v)) {
        *out = def;
        return 0;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1) v = cJSON_GetArrayItem(v, 0);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return KC_FAIL(k, "config field '%s' is not a number", key);
    *out = v->valuedouble;
    return 0;
}

int kc_to_int(kc *k, const cJSON *v, const char *key, int lo, int hi, int *out) {
    *out = lo;
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return KC_FAIL(k, "config field '%s' must be an integer in [%d, %d]", key, lo, hi);
    *out = (int)v->valuedouble;
    return 0;
}

int kc_int(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int *out) {
    const cJSON *v = kc_get(cfg, key);
    if (kc_is_null(v)) {
        *out = def;
        return 0;
    }
    if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 1) v = cJSON_GetArrayItem(v, 0);
    return kc_to_int(k, v, key, lo, hi, out);
}

/* Booleans are sometimes written as 0/1 (BatchNormalization "scale": 1). */
int kc_bool(kc *k, const cJSON *cfg, const char *key, int def, int *out) {
    const cJSON *v = kc_get(cfg, key);
    *out = def;
    if (kc_is_null(v))
        *out = def;
    else if (cJSON_IsBool(v))
        *out = cJSON_IsTrue(v);
    else if (cJSON_IsNumber(v))
        *out = v->valuedouble != 0;
    else
        return KC_FAIL(k, "config field '%s' is not a boolean", key);
    return 0;
}

/* An int or a pair [a, b] (kernel_size, strides...). */
int kc_pair(kc *k, const cJSON *cfg, const char *key, int def, int lo, int hi, int out[2]) {
    const cJSON *v = kc_get(cfg, key);
    out[0] = out[1] = def;
    if (kc_is_null(v)) {
        out[0] = out[1] = def;
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        if (kc_to_int(k, v, key, lo, hi, &out[0])) return -1;
        out[1] = out[0];
        return 0;
    }
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0;
    if (n == 1) {
        if (kc_to_int(k, cJSON_GetArrayItem(v, 0), key, lo, hi, &out[0])) return -1;
        out[1] = out[0];
        return 0;
    }
    if (n != 2) return KC_FAIL(k, "config field '%s' must be an integer or a pair", key);
    if (kc_to_int(k, cJSON_GetArrayItem(v, 0), key, lo, hi, &out[0]) ||
        kc_to_int(k, cJSON_GetArrayItem(v, 1), key, lo, hi, &out[1]))
        return -1;
    return 0;
}

int kc_padding(kc *k, const cJSON *cfg, int *same) {
    const char *p = kc_str(cfg, "padding");
    if (!p || strcmp(p, "valid") == 0 || strcmp(p, "VALID") == 0)
        *same = 0;
    else if (strcmp(p, "same") == 0 || strcmp(p, "SAME") == 0)
        *same = 1;
    else
        return KC_FAIL(k, "padding '%s' is not supported (only 'same' and 'valid')", p);
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
        return KC_FAIL(k, "activation '%s' is not supported (supported: %s)", name, SUPPORTED_ACTS);
    return 0;
}

/* The `activation` field: a name, or Keras 3's {"class_name": "function",
 * "config": "relu", "module": "keras.activations"}. */
int kc_act(kc *k, const cJSON *cfg, const char *key, edgeq_act *act, float *alpha,
                     int *act_softmax) {
    const cJSON *v = kc_get(cfg, key);
    *act = EDGEQ_ACT_LINEAR;
    *alpha = 0;
    *act_softmax = 0;
    if (kc_is_null(v)) return act_from_name(k, "linear", act, alpha, act_softmax);
    if (cJSON_IsString(v) && v->valuestring)
        return act_from_name(k, v->valuestring, act, alpha, act_softmax);
    if (cJSON_IsObject(v)) {
        const char *mod = kc_str(v, "module");
        const char *name = kc_str(v, "config");
        const char *cls = kc_str(v, "class_name");
        if (name && (!mod || strncmp(mod, "keras", 5) == 0))
            return act_from_name(k, name, act, alpha, act_softmax);
        return KC_FAIL(k, "custom activation '%s'%s%s%s is not supported (supported: %s)",
                    name ? name : cls ? cls : "?", mod ? " from module '" : "", mod ? mod : "",
                    mod ? "'" : "", SUPPORTED_ACTS);
    }
    return KC_FAIL(k, "config field '%s' is not an activation name", key);
}

/* ---- nodes and weights ---- */

int kc_node(kc *k, edgeq_op op, const char *name, const char *cls, const int *in,
                    int n_in) {
    if (k->g->n >= KERAS_MAX_NODES)
        return KC_FAIL(k, "the model has more than %d nodes", KERAS_MAX_NODES);
    if (n_in > EDGEQ_MAX_INPUTS) return KC_FAIL(k, "more than %d inputs", EDGEQ_MAX_INPUTS);
    int idx = edgeq_graph_add(k->g, op, name);
    if (idx < 0) return KC_FAIL(k, "out of memory");
    edgeq_node *n = &k->g->nodes[idx];
    snprintf(n->keras_class, sizeof n->keras_class, "%s", cls);
    n->n_in = n_in;
    for (int i = 0; i < n_in; i++) n->in[i] = in[i];
    return idx;
}

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

void kc_shape_str(const int *d, int rank, char *buf, size_t len) {
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
int kc_weights(kc *k, const keras_loc *loc, const wspec *spec, int n_spec) {
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
        return KC_FAIL(k, "expected %d weights (%s) from its config, the file has %d%s%s", n_spec,
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
            kc_shape_str(v->dims, v->rank, a, sizeof a);
            kc_shape_str(spec[s].dims, spec[s].rank, b, sizeof b);
            rc = KC_FAIL(k, "weight '%.*s' (%s) has shape %s, but the layer's config needs %s", rl,
                      r, v->path, a, b);
            break;
        }
        for (size_t i = 0; i < v->len && !keras_keep_nonfinite; i++)
            if (!isfinite(v->data[i])) {
                rc = KC_FAIL(k, "weight '%.*s' (%s) holds %s at element %zu: the model is broken "
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
