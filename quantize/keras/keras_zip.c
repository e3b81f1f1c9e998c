/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_zip.c — Keras 3 `.keras` archives: a zip holding config.json (the
 * model config), metadata.json (keras_version) and model.weights.h5.
 *
 * The weights file is read into memory and opened as an HDF5 file image
 * (core driver), never extracted to disk. Keras 3's saver does not key
 * variables by layer name: each container (a model, a nested model) stores
 * its layers under `layers/<snake_case(class)>[_N]`, N counting the layers
 * of the same class before it in the container's `layers` list, and a
 * layer's variables as datasets `vars/0`, `vars/1`... in creation order.
 * keras_config.c computes those paths; this file reads them. Recent Keras
 * versions also put the layer's name on the `vars` group (attribute
 * "name"): when it is there and disagrees with the generated path, the
 * layer is looked up by that name among its siblings instead.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "keras_internal.h"

#define MAX_CONFIG_BYTES ((zip_uint64_t)64 << 20)
#define MAX_WEIGHTS_BYTES ((zip_uint64_t)2 << 30)

/* Read the archive member `name`: 0, 1 when absent, -1 on error. The
 * buffer gets a NUL after the data. */
static int read_member(zip_t *za, const char *name, zip_uint64_t limit, char **data, size_t *len,
                       char *err, size_t errlen) {
    *data = NULL;
    *len = 0;
    zip_int64_t idx = zip_name_locate(za, name, 0);
    if (idx < 0) return 1;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, (zip_uint64_t)idx, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        snprintf(err, errlen, "%s: cannot read its zip entry (%s)", name,
                 zip_strerror(za));
        return -1;
    }
    if (st.size > limit) {
        snprintf(err, errlen, "%s: %llu bytes uncompressed, more than the %llu accepted", name,
                 (unsigned long long)st.size, (unsigned long long)limit);
        return -1;
    }
    char *buf = malloc((size_t)st.size + 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory (%llu bytes)", name,
                 (unsigned long long)st.size);
        return -1;
    }
    zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)idx, 0);
    if (!zf) {
        snprintf(err, errlen, "%s: cannot open it in the archive (%s)", name, zip_strerror(za));
        free(buf);
        return -1;
    }
    zip_uint64_t got = 0;
    while (got < st.size) {
        zip_int64_t r = zip_fread(zf, buf + got, st.size - got);
        if (r < 0) {
            snprintf(err, errlen, "%s: cannot decompress it (%s; truncated archive?)", name,
                     zip_file_strerror(zf));
            zip_fclose(zf);
            free(buf);
            return -1;
        }
        if (r == 0) break;
        got += (zip_uint64_t)r;
    }
    /* A clean read ends exactly at the announced size (CRC checked at EOF). */
    char extra;
    zip_int64_t more = got == st.size ? zip_fread(zf, &extra, 1) : 0;
    int close_rc = zip_fclose(zf);
    if (got != st.size || more != 0 || close_rc != 0) {
        snprintf(err, errlen, "%s: read %llu of %llu bytes (truncated or damaged archive)", name,
                 (unsigned long long)got, (unsigned long long)st.size);
        free(buf);
        return -1;
    }
    buf[got] = 0;
    *data = buf;
    *len = (size_t)got;
    return 0;
}

/* 1 if every component of `path` exists in `f` (H5Lexists fails, rather
 * than answering no, when an intermediate group is missing). */
static int path_exists(hid_t f, const char *path) {
    char buf[1100];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return 0;
    for (char *p = buf;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (buf[0] && H5Lexists(f, buf, H5P_DEFAULT) <= 0) return 0;
            if (!c) return 1;
            *p = c;
        }
    }
}

/* The "name" attribute of group `path`, or NULL. */
static char *group_name_attr(hid_t f, const char *path) {
    hid_t grp = H5Gopen2(f, path, H5P_DEFAULT);
    if (grp < 0) return NULL;
    char *name = NULL;
    char e[200];
    if (keras_h5_attr_string(grp, "name", &name, e, sizeof e) != 0) name = NULL;
    H5Gclose(grp);
    return name;
}

typedef struct zip_ctx {
    hid_t file;
} zip_ctx;

/* Among the siblings of `zip_path` (the container's layers/ group), the
 * one whose vars group is named `self`; 0 when found, path in `out`. */
static int find_by_name(hid_t f, const char *zip_path, const char *self, char *out,
                        size_t outlen) {
    char container[1100];
    snprintf(container, sizeof container, "%s", zip_path);
    char *slash = strrchr(container, '/');
    if (!slash) return -1;
    *slash = 0; /* ".../layers" */
    if (!path_exists(f, container)) return -1;
    hid_t grp = H5Gopen2(f, container, H5P_DEFAULT);
    if (grp < 0) return -1;
    H5G_info_t info;
    int found = 0;
    if (H5Gget_info(grp, &info) >= 0) {
        for (hsize_t i = 0; i < info.nlinks && i < 100000; i++) {
            char child[256];
            ssize_t nl = H5Lget_name_by_idx(grp, ".", H5_INDEX_NAME, H5_ITER_INC, i, child,
                                            sizeof child, H5P_DEFAULT);
            if (nl <= 0 || (size_t)nl >= sizeof child) continue;
            char vars[1400];
            if ((size_t)snprintf(vars, sizeof vars, "%s/%s/vars", container, child) >= sizeof vars ||
                !path_exists(f, vars))
                continue;
            char *name = group_name_attr(f, vars);
            if (name && strcmp(name, self) == 0) {
                if ((size_t)snprintf(out, outlen, "%s/%s", container, child) < outlen) found++;
            }
            free(name);
        }
    }
    H5Gclose(grp);
    return found == 1 ? 0 : -1;
}

static int zip_read_vars(void *vctx, const keras_loc *loc, const char *layer, keras_var *vars,
                         int max, int *n_out, char *err, size_t errlen) {
    zip_ctx *c = vctx;
    *n_out = 0;
    const char *self = loc->names[loc->depth - 1];
    char base[1100], vpath[1200];
    snprintf(base, sizeof base, "%s", loc->zip_path);
    snprintf(vpath, sizeof vpath, "%s/vars", base);
    int ok = path_exists(c->file, vpath);
    if (ok) {
        char *name = group_name_attr(c->file, vpath);
        if (name && strcmp(name, self) != 0) ok = 0;
        free(name);
    }
    if (!ok) {
        char alt[1100];
        if (find_by_name(c->file, base, self, alt, sizeof alt) != 0) {
            snprintf(err, errlen,
                     "%s: its weights are not in model.weights.h5 (expected group '%s')", layer,
                     vpath);
            return -1;
        }
        snprintf(base, sizeof base, "%s", alt);
        snprintf(vpath, sizeof vpath, "%s/vars", base);
    }
    hid_t grp = H5Gopen2(c->file, vpath, H5P_DEFAULT);
    if (grp < 0) {
        snprintf(err, errlen, "%s: cannot open '%s' in model.weights.h5", layer, vpath);
        return -1;
    }
    H5G_info_t info;
    if (H5Gget_info(grp, &info) < 0) {
        snprintf(err, errlen, "%s: cannot list '%s'", layer, vpath);
        H5Gclose(grp);
        return -1;
    }
    if (info.nlinks > (hsize_t)max) {
        snprintf(err, errlen, "%s: %llu variables in '%s', more than expected", layer,
                 (unsigned long long)info.nlinks, vpath);
        H5Gclose(grp);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < (int)info.nlinks; i++) {
        char name[16], msg[400];
        snprintf(name, sizeof name, "%d", i);
        keras_var *v = &vars[i];
        if (keras_h5_read_var(grp, name, v, msg, sizeof msg) != 0) {
            snprintf(err, errlen, "%s: %s/%s", layer, vpath, msg);
            rc = -1;
            break;
        }
        v->role[0] = 0;
        if ((size_t)snprintf(v->path, sizeof v->path, "%s/%d", vpath, i) >= sizeof v->path)
            v->path[sizeof v->path - 1] = 0; /* only for messages */
        *n_out = i + 1;
    }
    H5Gclose(grp);
    if (rc != 0) {
        keras_vars_free(vars, *n_out);
        *n_out = 0;
    }
    return rc;
}

int keras_zip_load(const char *path, edgeq_graph *g, char *err, size_t errlen) {
    keras_h5_quiet();
    int zerr = 0;
    zip_t *za = zip_open(path, ZIP_RDONLY, &zerr);
    if (!za) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        snprintf(err, errlen, "cannot open as a zip archive (.keras): %s (truncated file?)",
                 zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return -1;
    }
    int rc = -1;
    char *config = NULL, *meta = NULL, *weights = NULL;
    size_t config_len = 0, meta_len = 0, weights_len = 0;
    hid_t fapl = -1, f = -1;
    char e2[400];

    int r = read_member(za, "config.json", MAX_CONFIG_BYTES, &config, &config_len, e2, sizeof e2);
    if (r != 0) {
        if (r == 1)
            snprintf(err, errlen, "a zip without config.json: not a Keras 3 .keras model");
        else
            snprintf(err, errlen, "%s", e2);
        goto done;
    }
    char version[32] = "3";
    if (read_member(za, "metadata.json", MAX_CONFIG_BYTES, &meta, &meta_len, e2, sizeof e2) == 0) {
        cJSON *m = cJSON_ParseWithLength(meta, meta_len);
        const cJSON *v = m ? cJSON_GetObjectItemCaseSensitive(m, "keras_version") : NULL;
        if (v && cJSON_IsString(v) && v->valuestring) snprintf(version, sizeof version, "%s", v->valuestring);
        cJSON_Delete(m);
    }
    snprintf(g->source, sizeof g->source, "keras %s .keras zip", version);

    r = read_member(za, "model.weights.h5", MAX_WEIGHTS_BYTES, &weights, &weights_len, e2,
                    sizeof e2);
    if (r != 0) {
        if (r == 1 && zip_name_locate(za, "model.weights.json", 0) >= 0)
            snprintf(err, errlen,
                     "sharded weights (model.weights.json) are not supported; save the model "
                     "without max_shard_size");
        else if (r == 1)
            snprintf(err, errlen, "the archive has no model.weights.h5");
        else
            snprintf(err, errlen, "%s", e2);
        goto done;
    }
    if (weights_len < 8 || memcmp(weights, "\x89HDF\r\n\x1a\n", 8) != 0) {
        snprintf(err, errlen, "model.weights.h5 in the archive is not an HDF5 file");
        goto done;
    }
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0 ||
        H5Pset_file_image(fapl, weights, weights_len) < 0) {
        keras_h5_last_error(e2, sizeof e2);
        snprintf(err, errlen, "cannot set up an in-memory HDF5 file (%s)", e2);
        goto done;
    }
    f = H5Fopen("model.weights.h5", H5F_ACC_RDONLY, fapl);
    if (f < 0) {
        keras_h5_last_error(e2, sizeof e2);
        snprintf(err, errlen, "model.weights.h5 in the archive cannot be opened (HDF5: %s)", e2);
        goto done;
    }
    zip_ctx ctx = {f};
    keras_weights w = {zip_read_vars, &ctx};
    /* tf.keras 2.13+ writes .keras zips too, with Keras 2 configs. */
    int major = version[0] >= '1' && version[0] <= '9' && version[1] == '.' ? version[0] - '0' : 3;
    rc = keras_build_graph(config, config_len, &w, major, g, err, errlen);
done:
    if (f >= 0) H5Fclose(f);
    if (fapl >= 0) H5Pclose(fapl);
    free(config);
    free(meta);
    free(weights);
    zip_discard(za);
    return rc;
}
