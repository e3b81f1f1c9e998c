/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_internal.h — what the Keras loader's files share (not a public
 * API: see keras_load.h).
 *
 *   keras_load.c    format detection by magic bytes, error prefixing
 *   keras_h5.c      HDF5 helpers + the legacy .h5 format (model_config
 *                   attribute, /model_weights/<layer> groups)
 *   keras_zip.c     the Keras 3 .keras zip (config.json + model.weights.h5
 *                   opened as an in-memory HDF5 image)
 *   keras_config.c  the model config JSON -> graph nodes (both formats)
 *   keras_shapes.c  output shape of every node
 *
 * Weights are fetched through `keras_weights`, so the config walker does
 * not know where they live: the legacy format finds a layer's variables by
 * the names in `weight_names`, the .keras format by the path Keras 3's
 * saver generates from class names (`layers/<snake_case_class>[_N]/vars/<i>`).
 */
#ifndef EDGEQ_KERAS_INTERNAL_H
#define EDGEQ_KERAS_INTERNAL_H

#include <hdf5.h>
#include <stddef.h>

#include "graph/ir.h"

#define KERAS_MAX_DEPTH 8         /* nested models inside each other */
#define KERAS_MAX_VARS 8          /* variables of one layer */
#define KERAS_MAX_NODES 65536     /* graph nodes, after inlining */
/* Largest tensor (activation or weight) accepted, in elements (1 GiB of
 * float32): guards against absurd dimensions before anything is allocated. */
#define KERAS_MAX_ELEMS ((size_t)1 << 28)
#define KERAS_MAX_DIM (1 << 24)   /* largest single dimension */

/* Where a layer's weights are: the chain of Keras layer names from the top
 * model (names[0] is the top-level layer, names[depth-1] the layer itself),
 * and for .keras files the generated path of its weights group. */
typedef struct keras_loc {
    int depth;
    const char *names[KERAS_MAX_DEPTH];
    char zip_path[1024];
} keras_loc;

/* One variable of a layer, as read from the file. */
typedef struct keras_var {
    char role[64];          /* "kernel", "moving_mean"... from the weight name; "" if unnamed */
    char path[256];         /* where it was found, for messages */
    int rank;
    int dims[EDGEQ_MAX_RANK];
    float *data;            /* heap, len floats */
    size_t len;
} keras_var;

typedef struct keras_weights {
    /* Read all variables of the layer at `loc`, in the file's order, into
     * vars[0..*n). `layer` names it in messages ("layer 'conv2d' (Conv2D)").
     * Returns 0, or -1 with a message; on failure nothing stays allocated. */
    int (*read)(void *ctx, const keras_loc *loc, const char *layer, keras_var *vars, int max,
                int *n, char *err, size_t errlen);
    void *ctx;
} keras_weights;

void keras_vars_free(keras_var *vars, int n);

/* ---- keras_config.c ---- */

/* Build the graph from a model config JSON (the `model_config` attribute
 * or config.json). `keras_major` is the Keras major version that wrote it
 * (2 or 3; 0 when unknown: guessed from the config). Returns 0 or -1 with a
 * message naming the layer. */
int keras_build_graph(const char *json, size_t json_len, const keras_weights *w, int keras_major,
                      edgeq_graph *g, char *err, size_t errlen);

/* Keras's naming.to_snake_case: "GlobalAveragePooling2D" ->
 * "global_average_pooling2d", "ReLU" -> "re_lu". */
void keras_snake_case(const char *in, char *out, size_t outlen);

/* ---- keras_shapes.c ---- */

/* Compute g->nodes[node].shape/rank from its inputs and parameters
 * (RESHAPE: the target, with one -1 allowed, is in shape/rank already;
 * INPUT: checked only). Normalizes `axis` where the op has one. Returns 0
 * or -1 with a message naming the layer. */
int keras_infer_shape(edgeq_graph *g, int node, char *err, size_t errlen);

/* ---- keras_h5.c ---- */

typedef struct keras_strlist {
    int n;
    char **s;
} keras_strlist;

void keras_strlist_free(keras_strlist *l);

/* Silence HDF5's automatic error printing (once per process). */
void keras_h5_quiet(void);

/* The innermost message of HDF5's current error stack ("truncated file:
 * eof = ..."), or "" — call right after the failing HDF5 call. */
void keras_h5_last_error(char *buf, size_t len);

/* An attribute of `obj` as one string (variable- or fixed-length, scalar
 * or a one-element array). Returns 0, 1 when there is no such attribute,
 * -1 on a read error (message in err). *out is malloc'd. */
int keras_h5_attr_string(hid_t obj, const char *name, char **out, char *err, size_t errlen);

/* A string-list attribute in any of the shapes Keras writes: fixed- or
 * variable-length string arrays, a split list name0, name1..., or an empty
 * array of any type (weight-less layers: float64). Returns 0, 1 when
 * absent, -1 on error. */
int keras_h5_attr_strlist(hid_t obj, const char *name, keras_strlist *out, char *err,
                          size_t errlen);

/* Read the float dataset `path` (relative to `loc`) into *v, converting
 * any float type to float32; rejects non-float data, more than
 * EDGEQ_MAX_RANK dimensions and sizes beyond KERAS_MAX_ELEMS. */
int keras_h5_read_var(hid_t loc, const char *path, keras_var *v, char *err, size_t errlen);

/* Legacy HDF5 (file path) / Keras 3 zip: fill `g`. Messages do not repeat
 * the file name (keras_load.c adds it). */
int keras_h5_load(const char *path, edgeq_graph *g, char *err, size_t errlen);
int keras_zip_load(const char *path, edgeq_graph *g, char *err, size_t errlen);

#endif
