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

#include "kc.h"
#include "keras_internal.h"
#include "layers/layers.h"
#include "keras_load.h"
#include "err.h"


#define MAX_OUTS 8 /* outputs of one call (a nested model's outputs) */

static const char SUPPORTED[] =
    "InputLayer, Conv2D, DepthwiseConv2D, SeparableConv2D, Dense, BatchNormalization, "
    "Activation, ReLU, LeakyReLU, Softmax, Add, Subtract, Multiply, Concatenate, "
    "MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D, Flatten, "
    "Reshape, ZeroPadding2D, Cropping1D, Cropping2D, Rescaling, Dropout, SpatialDropout2D, GaussianNoise, "
    "GaussianDropout, AlphaDropout, ActivityRegularization, and nested Sequential/Functional "
    "models";

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

/* ---- inputs ---- */

static int check_dtype(kc *k, const cJSON *cfg) {
    const cJSON *d = kc_get(cfg, "dtype");
    const char *name = cJSON_IsString(d) ? d->valuestring : kc_str(kc_get(d, "config"), "name");
    if (!name) return 0;
    if (strstr(name, "float") || strcmp(name, "bfloat16") == 0) return 0;
    return KC_FAIL(k, "input dtype '%s' is not supported: edgeq quantizes float models", name);
}

/* The shape of an input, from a layer config: batch_input_shape (Keras 2),
 * batch_shape (Keras 3) or shape (no batch). Returns 1 if none given. */
static int shape_from(kc *k, const cJSON *cfg, const char *key, int with_batch, int *shape,
                      int *rank) {
    const cJSON *v = kc_get(cfg, key);
    if (kc_is_null(v)) return 1;
    int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
    if (n < 0) return KC_FAIL(k, "'%s' is not a list", key);
    int r = n + (with_batch ? 0 : 1);
    if (r < 1 || r > EDGEQ_MAX_RANK)
        return KC_FAIL(k, "input rank %d (with the batch) is not supported (1 to %d)", r,
                    EDGEQ_MAX_RANK);
    shape[0] = 1;
    for (int i = with_batch ? 1 : 0; i < n; i++) {
        const cJSON *d = cJSON_GetArrayItem(v, i);
        int axis = with_batch ? i : i + 1;
        if (kc_is_null(d))
            return KC_FAIL(k, "input dimension %d is unknown (None): edgeq needs a fixed input shape; "
                        "give the model one (keras.Input(shape=...) with numbers)",
                        axis);
        if (kc_to_int(k, d, key, 1, KERAS_MAX_DIM, &shape[axis])) return -1;
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
    if (k->g->n_inputs >= 8) return KC_FAIL(k, "more than 8 model inputs");
    int idx = kc_node(k, EDGEQ_OP_INPUT, name, "InputLayer", NULL, 0);
    if (idx < 0) return -1;
    edgeq_node *n = &k->g->nodes[idx];
    n->rank = rank;
    memcpy(n->shape, shape, sizeof n->shape);
    if (kc_infer(k, idx)) return -1;
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
        kc_shape_str(n->shape, n->rank, a, sizeof a);
        kc_shape_str(shape, rank, b, sizeof b);
        return KC_FAIL(k, "the nested model's input expects shape %s, it is given %s", b, a);
    }
    return 0;
}

/* ---- layers ---- */

static int build_model(kc *k, const cJSON *model, const scope *sc, int *outs, int *n_outs);

static int is_model_class(const char *cls) {
    return strcmp(cls, "Functional") == 0 || strcmp(cls, "Model") == 0 ||
           strcmp(cls, "Sequential") == 0;
}

/* Build one call of a (non-model) layer: its family's builder (layers.h). */
static int emit_op(kc *k, const char *cls, const cJSON *cfg, const char *nname,
                   const keras_loc *loc, const int *in, int n_in, int *out) {
    const keras_layer *L = keras_layer_find(cls);
    int one = n_in == 1;
    int merge = L && L->merge;
    if (!merge && !one) return KC_FAIL(k, "expects one input, is given %d", n_in);
    if (merge && n_in < 2) return KC_FAIL(k, "needs at least two inputs, is given %d", n_in);
    if (L) {
        keras_call c = {cls, cfg, nname, loc, in, n_in};
        return L->build(k, &c, out);
    }
    if (strchr(cls, '>'))
        return KC_FAIL(k, "a custom layer (registered as '%s'), which edgeq cannot load; "
                       "supported: %s",
                    cls, SUPPORTED);
    return KC_FAIL(k, "layer class '%s' is not supported (supported: %s)", cls, SUPPORTED);
}

/* Reject what cannot be loaded before looking at the layer's specifics. */
static int check_layer(kc *k, const cJSON *lj, const char *cls, const cJSON *cfg) {
    if (strcmp(cls, "Lambda") == 0)
        return KC_FAIL(k, "Lambda layers hold Python code, which edgeq never runs; rebuild the "
                       "model with built-in layers in its place");
    const char *mod = kc_str(lj, "module");
    const char *reg = kc_str(lj, "registered_name");
    int builtin = !mod || strncmp(mod, "keras", 5) == 0 || strncmp(mod, "tf_keras", 8) == 0;
    if (reg && strchr(reg, '>')) builtin = 0; /* "package>Name": register_keras_serializable */
    if (!builtin)
        return KC_FAIL(k, "a custom layer (%s%s%s%s%s%s), which edgeq cannot load; supported: %s",
                    mod ? "module '" : "", mod ? mod : "", mod ? "'" : "",
                    reg ? (mod ? ", registered as '" : "registered as '") : "", reg ? reg : "",
                    reg ? "'" : "", SUPPORTED);
    const char *df = kc_str(cfg, "data_format");
    if (df && strcmp(df, "channels_first") == 0)
        return KC_FAIL(k, "data_format 'channels_first' is not supported: edgeq works in NHWC "
                       "(channels_last)");
    const cJSON *dt = kc_get(cfg, "dtype");
    const char *pol = kc_str(dt, "class_name");
    const char *pname = kc_str(kc_get(dt, "config"), "name");
    if ((pol && strstr(pol, "Quantized")) ||
        (pname && (strncmp(pname, "int", 3) == 0 || strncmp(pname, "float8", 6) == 0 ||
                   strncmp(pname, "gptq", 4) == 0)))
        return KC_FAIL(k, "the layer is already quantized by Keras (dtype policy '%s'); give edgeq "
                       "the float model",
                    pname ? pname : pol);
    return 0;
}

static const char *layer_name(const cJSON *lj) {
    const char *n = kc_str(lj, "name");
    return n ? n : kc_str(kc_get(lj, "config"), "name");
}

/* One call of a layer (or nested model) in scope `sc`; `zip_name` is its
 * key in the container's layers/ group; `call` counts its calls. */
static int emit_layer(kc *k, const scope *sc, const cJSON *lj, const char *zip_name, int call,
                      const int *in, int n_in, int *outs, int *n_outs) {
    const char *cls = kc_str(lj, "class_name");
    const char *name = layer_name(lj);
    const cJSON *cfg = kc_get(lj, "config");
    char nname[EDGEQ_NAME_LEN];
    if (call > 0)
        fmt_name(nname, sizeof nname, "%s%s#%d", sc->prefix, name ? name : "?", call);
    else
        fmt_name(nname, sizeof nname, "%s%s", sc->prefix, name ? name : "?");
    set_layer(k, nname, cls ? cls : "?");
    if (!cls || !name) return KC_FAIL(k, "a layer without class_name or name");
    if (check_layer(k, lj, cls, cfg)) return -1;

    keras_loc loc = sc->loc;
    if (loc.depth >= KERAS_MAX_DEPTH)
        return KC_FAIL(k, "models nested more than %d deep", KERAS_MAX_DEPTH);
    loc.names[loc.depth++] = name;
    if ((size_t)snprintf(loc.zip_path, sizeof loc.zip_path, "%s%slayers/%s", sc->loc.zip_path,
                         sc->loc.zip_path[0] ? "/" : "", zip_name) >= sizeof loc.zip_path)
        return KC_FAIL(k, "nested too deep");

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
        const char *cls = kc_str(cJSON_GetArrayItem(layers, i), "class_name");
        char base[80];
        keras_snake_case(cls ? cls : "layer", base, sizeof base);
        int seen = 0;
        for (int j = first; j < i; j++) {
            const char *c2 = kc_str(cJSON_GetArrayItem(layers, j), "class_name");
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
    const char *c = kc_str(lj, "class_name");
    return c && strcmp(c, "InputLayer") == 0;
}

static int build_sequential(kc *k, const cJSON *model, const scope *sc, int *outs, int *n_outs) {
    const cJSON *cfg = kc_get(model, "config");
    const cJSON *layers = cJSON_IsArray(cfg) ? cfg : kc_get(cfg, "layers"); /* Keras <= 2.2 */
    const char *mname = cJSON_IsObject(cfg) ? kc_str(cfg, "name") : NULL;
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    k->layer[0] = 0;
    if (n < 1) return KC_FAIL(k, "Sequential model '%s' has no layers", mname ? mname : "?");
    int start = is_input_layer(cJSON_GetArrayItem(layers, 0)) ? 1 : 0;
    zipname_t *zn = calloc((size_t)n, sizeof *zn);
    if (!zn) return KC_FAIL(k, "out of memory");
    zip_names(layers, start, zn);
    int cur = -1, rc = -1;
    const cJSON *first = cJSON_GetArrayItem(layers, 0);
    if (sc->top) {
        int shape[EDGEQ_MAX_RANK] = {0}, rank = 0, r;
        char iname[EDGEQ_NAME_LEN];
        const char *fname = layer_name(first);
        set_layer(k, fname ? fname : "?", start ? "InputLayer" : "input");
        if (start) {
            if (check_dtype(k, kc_get(first, "config"))) goto done;
            r = input_shape(k, kc_get(first, "config"), shape, &rank);
            snprintf(iname, sizeof iname, "%s", fname ? fname : "input");
        } else {
            /* No InputLayer (older Keras): the shape sits on the first layer. */
            r = input_shape(k, kc_get(first, "config"), shape, &rank);
            if (r == 1) r = shape_from(k, cfg, "build_input_shape", 1, shape, &rank);
            if (r == 1)
                r = shape_from(k, kc_get(first, "build_config"), "input_shape", 1, shape, &rank);
            snprintf(iname, sizeof iname, "%.100s_input", fname ? fname : "sequential");
        }
        if (r == 1) {
            KC_FAIL(k, "the model has no input shape (no InputLayer, no batch_input_shape): build "
                    "it with keras.Input(shape=...) first");
            goto done;
        }
        if (r < 0) goto done;
        cur = make_input(k, iname, shape, rank);
        if (cur < 0) goto done;
    } else {
        k->layer[0] = 0;
        if (sc->n_bound != 1) {
            KC_FAIL(k, "nested Sequential model '%s' is given %d inputs", mname ? mname : "?",
                 sc->n_bound);
            goto done;
        }
        cur = sc->bound[0];
        if (start) {
            const char *fname = layer_name(first);
            set_layer(k, fname ? fname : "?", "InputLayer");
            if (check_bound(k, kc_get(first, "config"), cur)) goto done;
        }
    }
    for (int i = start; i < n; i++) {
        const cJSON *lj = cJSON_GetArrayItem(layers, i);
        int o[MAX_OUTS], no = 0;
        if (is_input_layer(lj)) {
            set_layer(k, layer_name(lj) ? layer_name(lj) : "?", "InputLayer");
            KC_FAIL(k, "an InputLayer in the middle of a Sequential model");
            goto done;
        }
        if (emit_layer(k, sc, lj, zn[i], 0, &cur, 1, o, &no)) goto done;
        if (no != 1) {
            KC_FAIL(k, "a layer of a Sequential model must have one output, it has %d", no);
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
        return KC_FAIL(k, "a malformed inbound reference (expected [layer, node, tensor])");
    out->layer = cJSON_GetArrayItem(r, 0)->valuestring;
    if (kc_to_int(k, cJSON_GetArrayItem(r, 1), "node index", 0, 1 << 20, &out->node) ||
        kc_to_int(k, cJSON_GetArrayItem(r, 2), "tensor index", 0, MAX_OUTS - 1, &out->tensor))
        return -1;
    return 0;
}

/* Keras 3 call arguments: every "__keras_tensor__" in `v`, depth first. */
static int collect_tensors(kc *k, const cJSON *v, kcall *c, int depth) {
    if (depth > 16) return KC_FAIL(k, "inbound node arguments nested too deep");
    if (cJSON_IsArray(v)) {
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            if (collect_tensors(k, e, c, depth + 1)) return -1;
        }
        return 0;
    }
    if (!cJSON_IsObject(v)) return 0;
    const char *cls = kc_str(v, "class_name");
    if (cls && strcmp(cls, "__keras_tensor__") == 0) {
        if (c->n_in >= EDGEQ_MAX_INPUTS) return KC_FAIL(k, "more than %d inputs", EDGEQ_MAX_INPUTS);
        return parse_ref(k, kc_get(kc_get(v, "config"), "keras_history"), &c->in[c->n_in++]);
    }
    return 0;
}

static int parse_calls(kc *k, klayer *L) {
    const cJSON *nodes = kc_get(L->json, "inbound_nodes");
    int n = cJSON_IsArray(nodes) ? cJSON_GetArraySize(nodes) : 0;
    if (n == 0) return 0;
    if (n > 4096) return KC_FAIL(k, "more than 4096 calls");
    L->calls = calloc((size_t)n, sizeof *L->calls);
    if (!L->calls) return KC_FAIL(k, "out of memory");
    L->n_calls = n;
    for (int i = 0; i < n; i++) {
        const cJSON *node = cJSON_GetArrayItem(nodes, i);
        kcall *c = &L->calls[i];
        if (cJSON_IsObject(node)) { /* Keras 3 */
            if (collect_tensors(k, kc_get(node, "args"), c, 0)) return -1;
        } else if (cJSON_IsArray(node)) { /* Keras 2 */
            const cJSON *r;
            cJSON_ArrayForEach(r, node) {
                if (c->n_in >= EDGEQ_MAX_INPUTS)
                    return KC_FAIL(k, "more than %d inputs", EDGEQ_MAX_INPUTS);
                if (parse_ref(k, r, &c->in[c->n_in++])) return -1;
            }
        } else
            return KC_FAIL(k, "a malformed inbound node");
        if (c->n_in == 0) return KC_FAIL(k, "a call without tensor inputs");
    }
    return 0;
}

/* input_layers / output_layers: [[name, node, tensor], ...] or, in Keras
 * 3 with one tensor, [name, node, tensor]. */
static int parse_io(kc *k, const cJSON *v, const char *key, kref *refs, int max, int *n) {
    *n = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        return KC_FAIL(k, "the model config has no %s", key);
    if (cJSON_IsString(cJSON_GetArrayItem(v, 0))) {
        *n = 1;
        return parse_ref(k, v, &refs[0]);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, v) {
        if (*n >= max) return KC_FAIL(k, "more than %d %s", max, key);
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
    if (!L) return KC_FAIL(k, "its input '%s' is not a layer of the model", r->layer);
    if (L->is_input) {
        if (L->input_node < 0)
            return KC_FAIL(k, "its input '%s' is an InputLayer that is not a model input", r->layer);
        *node = L->input_node;
        return 1;
    }
    int c = r->node - (k->major >= 3 && !from_io ? 0 : L->offset);
    if (c < 0 || c >= L->n_calls) {
        if (L->n_calls != 1)
            return KC_FAIL(k, "its input refers to call %d of layer '%s', which has %d calls",
                        r->node, r->layer, L->n_calls);
        c = 0;
    }
    if (!L->calls[c].done) return 0;
    if (r->tensor >= L->calls[c].n_out)
        return KC_FAIL(k, "its input refers to output %d of layer '%s', which has %d", r->tensor,
                    r->layer, L->calls[c].n_out);
    *node = L->calls[c].out[r->tensor];
    return 1;
}

static int build_functional(kc *k, const cJSON *model, const scope *sc, int *outs,
                            int *n_outs) {
    const cJSON *cfg = kc_get(model, "config");
    const cJSON *layers = kc_get(cfg, "layers");
    const char *mname = kc_str(cfg, "name");
    k->layer[0] = 0;
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    if (n < 1) return KC_FAIL(k, "model '%s' has no layers", mname ? mname : "?");
    klayer *ls = calloc((size_t)n, sizeof *ls);
    zipname_t *zn = calloc((size_t)n, sizeof *zn);
    int rc = -1;
    if (!ls || !zn) {
        KC_FAIL(k, "out of memory");
        goto done;
    }
    zip_names(layers, 0, zn);
    for (int i = 0; i < n; i++) {
        klayer *L = &ls[i];
        L->json = cJSON_GetArrayItem(layers, i);
        L->name = layer_name(L->json);
        L->cls = kc_str(L->json, "class_name");
        L->input_node = -1;
        set_layer(k, L->name ? L->name : "?", L->cls ? L->cls : "?");
        if (!L->name || !L->cls) {
            KC_FAIL(k, "a layer without name or class_name");
            goto done;
        }
        for (int j = 0; j < i; j++)
            if (strcmp(ls[j].name, L->name) == 0) {
                KC_FAIL(k, "two layers have this name");
                goto done;
            }
        L->is_input = strcmp(L->cls, "InputLayer") == 0;
        if (strcmp(L->cls, "Functional") == 0 || strcmp(L->cls, "Model") == 0)
            L->offset = 1;
        else if (strcmp(L->cls, "Sequential") == 0 && k->major < 3) {
            const cJSON *sl = kc_get(kc_get(L->json, "config"), "layers");
            L->offset = is_input_layer(cJSON_GetArrayItem(sl, 0)) ? 1 : 0;
        }
        if (!L->is_input && parse_calls(k, L)) goto done;
    }
    /* Inputs, in input_layers order. */
    kref io[MAX_OUTS > 8 ? MAX_OUTS : 8];
    int n_io;
    memset(io, 0, sizeof io);
    k->layer[0] = 0;
    if (parse_io(k, kc_get(cfg, "input_layers"), "input_layers", io, 8, &n_io)) goto done;
    if (!sc->top && n_io != sc->n_bound) {
        KC_FAIL(k, "nested model '%s' has %d inputs, it is given %d", mname ? mname : "?", n_io,
             sc->n_bound);
        goto done;
    }
    for (int p = 0; p < n_io; p++) {
        klayer *L = find_layer(ls, n, io[p].layer);
        if (!L || !L->is_input) {
            KC_FAIL(k, "model input '%s' is not an InputLayer of the model", io[p].layer);
            goto done;
        }
        set_layer(k, L->name, "InputLayer");
        const cJSON *lcfg = kc_get(L->json, "config");
        if (sc->top) {
            int shape[EDGEQ_MAX_RANK] = {0}, rank = 0;
            if (check_dtype(k, lcfg)) goto done;
            int r = input_shape(k, lcfg, shape, &rank);
            if (r == 1) KC_FAIL(k, "the input has no shape");
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
                KC_FAIL(k, "its inputs are never computed (a cycle, or a missing layer)");
                goto done;
            }
    k->layer[0] = 0;
    if (parse_io(k, kc_get(cfg, "output_layers"), "output_layers", io, MAX_OUTS, &n_io)) goto done;
    for (int p = 0; p < n_io; p++) {
        k->layer[0] = 0;
        int r = resolve(k, ls, n, &io[p], 1, &outs[p]);
        if (r < 0) goto done;
        if (r == 0) {
            KC_FAIL(k, "model output '%s' is never computed", io[p].layer);
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
    const char *cls = kc_str(model, "class_name");
    k->layer[0] = 0;
    if (!cls) return KC_FAIL(k, "the model config has no class_name");
    if (strcmp(cls, "Sequential") == 0) return build_sequential(k, model, sc, outs, n_outs);
    if (strcmp(cls, "Functional") == 0 || strcmp(cls, "Model") == 0)
        return build_functional(k, model, sc, outs, n_outs);
    return KC_FAIL(k, "the top-level model is a '%s'; edgeq loads Sequential and Functional models "
                   "(subclassed models cannot be loaded from their config)",
                cls);
}

/* Keras 3 writes inbound nodes as objects, Keras 2 as lists. */
static int guess_major(const cJSON *j, int depth) {
    if (depth > 64) return 0;
    const cJSON *nodes = kc_get(j, "inbound_nodes");
    if (cJSON_IsArray(nodes) && cJSON_GetArraySize(nodes) > 0)
        return cJSON_IsObject(cJSON_GetArrayItem(nodes, 0)) ? 3 : 2;
    const cJSON *layers = kc_get(kc_get(j, "config"), "layers");
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
    k.infer = keras_infer_shape;
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
        if (g->n_inputs == 0) rc = KC_FAIL(&k, "the model has no inputs");
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
