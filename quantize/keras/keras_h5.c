/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_h5.c — HDF5 helpers, and the legacy HDF5 format written by
 * model.save("x.h5") in Keras 2 (2.0 to 2.21) and Keras 3.
 *
 * Layout: root attributes `model_config` (JSON), `keras_version`,
 * `backend`; /model_weights/<layer> groups, each with a `weight_names`
 * attribute listing its datasets relative to the group ("conv2d/kernel:0",
 * Keras 3: "conv2d/kernel"; nested models: "inner/conv2d/kernel:0" in the
 * top-level layer's group). Attributes are read through the HDF5 library in
 * whatever string shape they were written (see keras_internal.h), never by
 * assuming a byte layout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keras_internal.h"
#include "err.h"

#define MAX_LIST 1000000 /* entries of a string list */

/* H5Dvlen_reclaim was renamed H5Treclaim in HDF5 1.12. */
#if H5_VERSION_GE(1, 12, 0)
#define reclaim_vlen(type, space, buf) H5Treclaim(type, space, H5P_DEFAULT, buf)
#else
#define reclaim_vlen(type, space, buf) H5Dvlen_reclaim(type, space, H5P_DEFAULT, buf)
#endif

void keras_strlist_free(keras_strlist *l) {
    for (int i = 0; i < l->n; i++) free(l->s[i]);
    free(l->s);
    l->s = NULL;
    l->n = 0;
}

void keras_h5_quiet(void) {
    static int done;
    if (!done) {
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        done = 1;
    }
}

typedef struct err_walk {
    char *buf;
    size_t len;
} err_walk;

static herr_t err_walk_cb(unsigned n, const H5E_error2_t *e, void *data) {
    err_walk *w = data;
    if (n == 0 && e->desc && e->desc[0]) snprintf(w->buf, w->len, "%s", e->desc);
    return 0;
}

void keras_h5_last_error(char *buf, size_t len) {
    if (!len) return;
    buf[0] = 0;
    err_walk w = {buf, len};
    /* Upward: entry 0 is where the library detected the problem. */
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, err_walk_cb, &w);
}

static void set_err(char *err, size_t errlen, const char *what) {
    char h5[256];
    keras_h5_last_error(h5, sizeof h5);
    if (h5[0])
        edgeq_fail(err, errlen, "%s (HDF5: %s)", what, h5);
    else
        edgeq_fail(err, errlen, "%s", what);
}

/* Strip a fixed-length string's padding. */
static char *dup_fixed(const char *p, size_t size, H5T_str_t pad) {
    size_t n = 0;
    while (n < size && p[n]) n++;
    if (pad == H5T_STR_SPACEPAD)
        while (n > 0 && p[n - 1] == ' ') n--;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

/* Read attribute `attr` as a list of strings. */
static int read_attr_strings(hid_t attr, const char *name, keras_strlist *out, char *err,
                             size_t errlen) {
    int rc = -1;
    hid_t ftype = H5Aget_type(attr), space = H5Aget_space(attr), mtype = -1;
    char msg[160];
    if (ftype < 0 || space < 0) {
        snprintf(msg, sizeof msg, "attribute '%s' cannot be read", name);
        set_err(err, errlen, msg);
        goto done;
    }
    hssize_t np = H5Sget_simple_extent_npoints(space);
    if (np < 0 || np > MAX_LIST) {
        snprintf(err, errlen, "attribute '%s' has an invalid size", name);
        goto done;
    }
    size_t n = (size_t)np;
    H5T_class_t cls = H5Tget_class(ftype);
    if (cls != H5T_STRING) {
        if (n == 0) { /* weight-less layers: an empty float64 array */
            rc = 0;
            goto done;
        }
        snprintf(err, errlen, "attribute '%s' is not a string (HDF5 type class %d)", name,
                 (int)cls);
        goto done;
    }
    if (n == 0) {
        rc = 0;
        goto done;
    }
    out->s = calloc(n, sizeof *out->s);
    if (!out->s) {
        snprintf(err, errlen, "out of memory reading attribute '%s'", name);
        goto done;
    }
    htri_t vlen = H5Tis_variable_str(ftype);
    mtype = H5Tcopy(H5T_C_S1);
    if (vlen < 0 || mtype < 0 || H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0) {
        set_err(err, errlen, "cannot set up a string type");
        goto done;
    }
    if (vlen) {
        char **ptrs = calloc(n, sizeof *ptrs);
        if (!ptrs || H5Tset_size(mtype, H5T_VARIABLE) < 0) {
            free(ptrs);
            snprintf(err, errlen, "out of memory reading attribute '%s'", name);
            goto done;
        }
        if (H5Aread(attr, mtype, ptrs) < 0) {
            free(ptrs);
            snprintf(msg, sizeof msg, "attribute '%s' cannot be read", name);
            set_err(err, errlen, msg);
            goto done;
        }
        int ok = 1;
        for (size_t i = 0; i < n; i++) {
            const char *p = ptrs[i] ? ptrs[i] : "";
            out->s[i] = strdup(p);
            if (!out->s[i]) ok = 0;
            out->n = (int)i + 1;
        }
        reclaim_vlen(mtype, space, ptrs);
        free(ptrs);
        if (!ok) {
            snprintf(err, errlen, "out of memory reading attribute '%s'", name);
            goto done;
        }
    } else {
        /* One byte more than the file's strings, null-terminated: numpy's
         * |S14 holds 14 characters and no terminator. */
        size_t size = H5Tget_size(ftype) + 1;
        if (size < 2 || size > ((size_t)1 << 30) / n) {
            snprintf(err, errlen, "attribute '%s' has an invalid string size", name);
            goto done;
        }
        char *buf = malloc(n * size);
        if (!buf || H5Tset_size(mtype, size) < 0) {
            free(buf);
            snprintf(err, errlen, "out of memory reading attribute '%s'", name);
            goto done;
        }
        if (H5Aread(attr, mtype, buf) < 0) {
            free(buf);
            snprintf(msg, sizeof msg, "attribute '%s' cannot be read", name);
            set_err(err, errlen, msg);
            goto done;
        }
        H5T_str_t pad = H5Tget_strpad(ftype);
        int ok = 1;
        for (size_t i = 0; i < n; i++) {
            out->s[i] = dup_fixed(buf + i * size, size, pad);
            if (!out->s[i]) ok = 0;
            out->n = (int)i + 1;
        }
        free(buf);
        if (!ok) {
            snprintf(err, errlen, "out of memory reading attribute '%s'", name);
            goto done;
        }
    }
    rc = 0;
done:
    if (rc != 0) keras_strlist_free(out);
    if (mtype >= 0) H5Tclose(mtype);
    if (ftype >= 0) H5Tclose(ftype);
    if (space >= 0) H5Sclose(space);
    return rc;
}

static int attr_list_one(hid_t obj, const char *name, keras_strlist *out, char *err,
                         size_t errlen) {
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot look up attribute '%s'", name);
        set_err(err, errlen, msg);
        return -1;
    }
    if (!ex) return 1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "cannot open attribute '%s'", name);
        set_err(err, errlen, msg);
        return -1;
    }
    int rc = read_attr_strings(a, name, out, err, errlen);
    H5Aclose(a);
    return rc;
}

int keras_h5_attr_string(hid_t obj, const char *name, char **out, char *err, size_t errlen) {
    keras_strlist l = {0, NULL};
    *out = NULL;
    int rc = attr_list_one(obj, name, &l, err, errlen);
    if (rc != 0) return rc;
    if (l.n != 1) {
        keras_strlist_free(&l);
        snprintf(err, errlen, "attribute '%s' is not a single string", name);
        return -1;
    }
    *out = l.s[0];
    free(l.s);
    return 0;
}

int keras_h5_attr_strlist(hid_t obj, const char *name, keras_strlist *out, char *err,
                          size_t errlen) {
    out->n = 0;
    out->s = NULL;
    int rc = attr_list_one(obj, name, out, err, errlen);
    if (rc <= 0) return rc;
    /* Keras splits attributes over HDF5's 64 KiB header limit into
     * name0, name1, ... */
    char part[160];
    int found = 0;
    for (int i = 0;; i++) {
        if ((size_t)snprintf(part, sizeof part, "%s%d", name, i) >= sizeof part) break;
        keras_strlist p = {0, NULL};
        rc = attr_list_one(obj, part, &p, err, errlen);
        if (rc < 0) {
            keras_strlist_free(out);
            return -1;
        }
        if (rc == 1) break;
        found = 1;
        if (p.n > 0) {
            if (out->n > MAX_LIST - p.n) {
                keras_strlist_free(&p);
                keras_strlist_free(out);
                snprintf(err, errlen, "attribute '%s' is too long", name);
                return -1;
            }
            char **s = realloc(out->s, (size_t)(out->n + p.n) * sizeof *s);
            if (!s) {
                keras_strlist_free(&p);
                keras_strlist_free(out);
                snprintf(err, errlen, "out of memory reading attribute '%s'", name);
                return -1;
            }
            out->s = s;
            memcpy(out->s + out->n, p.s, (size_t)p.n * sizeof *s);
            out->n += p.n;
            free(p.s);
        }
    }
    return found ? 0 : 1;
}

int keras_h5_read_var(hid_t loc, const char *path, keras_var *v, char *err, size_t errlen) {
    int rc = -1;
    hid_t ds = -1, space = -1, type = -1;
    memset(v->dims, 0, sizeof v->dims);
    v->data = NULL;
    v->len = 0;
    v->rank = 0;
    snprintf(v->path, sizeof v->path, "%s", path);
    htri_t ex = H5Lexists(loc, path, H5P_DEFAULT);
    if (ex <= 0) {
        snprintf(err, errlen, "weight dataset '%s' is missing", path);
        return -1;
    }
    ds = H5Dopen2(loc, path, H5P_DEFAULT);
    if (ds < 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "weight '%s' is not a readable dataset", path);
        set_err(err, errlen, msg);
        return -1;
    }
    type = H5Dget_type(ds);
    space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        set_err(err, errlen, "cannot read a weight's type");
        goto done;
    }
    if (H5Tget_class(type) != H5T_FLOAT) {
        snprintf(err, errlen, "weight '%s' is not floating point (HDF5 type class %d)", path,
                 (int)H5Tget_class(type));
        goto done;
    }
    int rank = H5Sget_simple_extent_ndims(space);
    if (rank < 0 || rank > EDGEQ_MAX_RANK) {
        snprintf(err, errlen, "weight '%s' has %d dimensions (at most %d supported)", path, rank,
                 EDGEQ_MAX_RANK);
        goto done;
    }
    hsize_t dims[EDGEQ_MAX_RANK] = {0};
    if (rank > 0 && H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        set_err(err, errlen, "cannot read a weight's shape");
        goto done;
    }
    size_t n = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] == 0 || dims[i] > KERAS_MAX_DIM || n > KERAS_MAX_ELEMS / dims[i]) {
            snprintf(err, errlen, "weight '%s' has an unusable dimension %llu", path,
                     (unsigned long long)dims[i]);
            goto done;
        }
        n *= (size_t)dims[i];
        v->dims[i] = (int)dims[i];
    }
    v->rank = rank;
    v->data = malloc(n * sizeof *v->data);
    if (!v->data) {
        snprintf(err, errlen, "out of memory for weight '%s' (%zu floats)", path, n);
        goto done;
    }
    if (H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v->data) < 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "weight '%s' cannot be read", path);
        set_err(err, errlen, msg);
        free(v->data);
        v->data = NULL;
        goto done;
    }
    v->len = n;
    rc = 0;
done:
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    if (ds >= 0) H5Dclose(ds);
    return rc;
}

/* ---- legacy format: weights by name ---- */

typedef struct legacy_ctx {
    hid_t mw; /* /model_weights */
} legacy_ctx;

/* Split "a/b/kernel:0" into components (in place); returns the count. */
static int split_path(char *s, char **comp, int max) {
    int n = 0;
    char *p = s;
    while (*p && n < max) {
        comp[n++] = p;
        char *q = strchr(p, '/');
        if (!q) break;
        *q = 0;
        p = q + 1;
    }
    return n;
}

static void role_of(const char *last, char *role, size_t len) {
    snprintf(role, len, "%s", last);
    char *c = strrchr(role, ':'); /* "kernel:0" */
    if (c) *c = 0;
}

static int legacy_read(void *vctx, const keras_loc *loc, const char *layer, keras_var *vars,
                       int max, int *n_out, char *err, size_t errlen) {
    legacy_ctx *c = vctx;
    *n_out = 0;
    const char *top = loc->names[0];
    const char *self = loc->names[loc->depth - 1];
    htri_t ex = top[0] && !strchr(top, '/') ? H5Lexists(c->mw, top, H5P_DEFAULT) : 0;
    if (ex <= 0) {
        snprintf(err, errlen, "%s: no weights group '/model_weights/%s' in the file", layer, top);
        return -1;
    }
    hid_t grp = H5Gopen2(c->mw, top, H5P_DEFAULT);
    if (grp < 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s: '/model_weights/%s' is not a group", layer, top);
        set_err(err, errlen, msg);
        return -1;
    }
    keras_strlist names = {0, NULL};
    char e2[300];
    int rc = keras_h5_attr_strlist(grp, "weight_names", &names, e2, sizeof e2);
    if (rc != 0) {
        if (rc == 1) snprintf(e2, sizeof e2, "no 'weight_names' attribute");
        snprintf(err, errlen, "%s: /model_weights/%s: %s", layer, top, e2);
        H5Gclose(grp);
        return -1;
    }
    /* Score each name by how many trailing layer names of `loc` it carries
     * before its variable name: "inner/conv2d/kernel:0" scores 2 for
     * [outer, inner, conv2d]. Keep the best-scoring ones. */
    int *score = calloc((size_t)names.n + 1, sizeof *score);
    if (!score) {
        snprintf(err, errlen, "out of memory");
        keras_strlist_free(&names);
        H5Gclose(grp);
        return -1;
    }
    int best = 0;
    for (int i = 0; i < names.n; i++) {
        char buf[512];
        char *comp[32];
        snprintf(buf, sizeof buf, "%s", names.s[i]);
        int nc = split_path(buf, comp, 32);
        int s = 0;
        for (int k = nc - 2, d = loc->depth - 1; k >= 0 && d >= 0; k--, d--) {
            if (strcmp(comp[k], loc->names[d]) != 0) break;
            s++;
        }
        score[i] = s;
        if (s > best) best = s;
    }
    int fallback = best == 0 && loc->depth == 1; /* renamed layer: take the whole group */
    if (best == 0 && !fallback) {
        snprintf(err, errlen, "%s: no weights named '.../%s/...' in /model_weights/%s", layer,
                 self, top);
        rc = -1;
        goto out;
    }
    rc = 0;
    for (int i = 0; i < names.n && rc == 0; i++) {
        if (!fallback && score[i] != best) continue;
        if (*n_out >= max) {
            snprintf(err, errlen, "%s: more than %d weights", layer, max);
            rc = -1;
            break;
        }
        keras_var *v = &vars[*n_out];
        char msg[400];
        if (keras_h5_read_var(grp, names.s[i], v, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s: /model_weights/%s: %s", layer, top, msg);
            rc = -1;
            break;
        }
        char buf[512];
        char *comp[32];
        snprintf(buf, sizeof buf, "%s", names.s[i]);
        int nc = split_path(buf, comp, 32);
        role_of(nc ? comp[nc - 1] : "", v->role, sizeof v->role);
        snprintf(v->path, sizeof v->path, "/model_weights/%s/%s", top, names.s[i]);
        (*n_out)++;
    }
    if (rc != 0) {
        keras_vars_free(vars, *n_out);
        *n_out = 0;
    }
out:
    free(score);
    keras_strlist_free(&names);
    H5Gclose(grp);
    return rc;
}

static int major_of(const char *version) {
    if (!version) return 0;
    int m = atoi(version);
    return m >= 1 && m <= 9 ? m : 0;
}

int keras_h5_load(const char *path, edgeq_graph *g, char *err, size_t errlen) {
    keras_h5_quiet();
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        set_err(err, errlen, "cannot open as HDF5 (truncated or damaged file?)");
        return -1;
    }
    int rc = -1;
    char *config = NULL, *version = NULL;
    hid_t mw = -1;
    char e2[400];
    int r = keras_h5_attr_string(f, "model_config", &config, e2, sizeof e2);
    if (r != 0) {
        if (r == 1) {
            if (H5Lexists(f, "layers", H5P_DEFAULT) > 0 || H5Lexists(f, "vars", H5P_DEFAULT) > 0)
                snprintf(err, errlen,
                         "this is a Keras 3 weights file (model.save_weights) without the "
                         "model's config; save the whole model with model.save(\"model.keras\")");
            else
                snprintf(err, errlen,
                         "no 'model_config' attribute: this HDF5 file holds no Keras model "
                         "config (weights only, from save_weights?); save the whole model with "
                         "model.save()");
        } else {
            snprintf(err, errlen, "%s", e2);
        }
        goto done;
    }
    r = keras_h5_attr_string(f, "keras_version", &version, e2, sizeof e2);
    if (r < 0) version = NULL;
    int major = major_of(version);
    snprintf(g->source, sizeof g->source, "keras %s legacy HDF5", version ? version : "?");

    /* Files of models without any weight may lack /model_weights. */
    htri_t has_mw = H5Lexists(f, "model_weights", H5P_DEFAULT);
    if (has_mw > 0) {
        mw = H5Gopen2(f, "model_weights", H5P_DEFAULT);
        if (mw < 0) {
            set_err(err, errlen, "'/model_weights' is not a group");
            goto done;
        }
    } else {
        mw = H5Gopen2(f, "/", H5P_DEFAULT);
    }
    legacy_ctx ctx = {mw};
    keras_weights w = {legacy_read, &ctx};
    rc = keras_build_graph(config, strlen(config), &w, major, g, err, errlen);
done:
    free(config);
    free(version);
    if (mw >= 0) H5Gclose(mw);
    H5Fclose(f);
    return rc;
}
