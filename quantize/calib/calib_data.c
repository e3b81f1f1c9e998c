/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib_data.c — read the calibration set (see calib_data.h).
 */
#include "calib_data.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

#include "io/file_util.h"
#include "io/image_load.h"
#include "io/npy.h"
#include "err.h"

/* Largest single calibration file read (a stream stops here). */
#define CALIB_FILE_LIMIT ((size_t)4 << 30)
#define CALIB_DIR_DEPTH 8

typedef struct loader {
    const edgeq_graph *g;
    const edgeq_calib_norm *norm; /* NULL: none */
    edgeq_calib_set *set;
    long max;   /* 0: no limit */
    long cap;   /* samples data[] has room for */
    char *err;
    size_t err_len;
} loader;

void edgeq_calib_set_free(edgeq_calib_set *set) {
    for (int k = 0; k < 8; k++) free(set->data[k]);
    memset(set, 0, sizeof *set);
}

static const edgeq_node *input_node(const edgeq_graph *g, int k) {
    return &g->nodes[g->inputs[k]];
}

static int set_init(const edgeq_graph *g, edgeq_calib_set *set, char *err, size_t err_len) {
    memset(set, 0, sizeof *set);
    if (g->n_inputs < 1 || g->n_inputs > 8) {
        if (err && err_len) snprintf(err, err_len, "model has %d inputs", g->n_inputs);
        return -1;
    }
    set->n_inputs = g->n_inputs;
    for (int k = 0; k < g->n_inputs; k++) {
        if (g->inputs[k] < 0 || g->inputs[k] >= g->n) {
            if (err && err_len) snprintf(err, err_len, "graph input %d is not a node", k);
            return -1;
        }
        set->sample_len[k] = edgeq_node_numel(input_node(g, k));
    }
    return 0;
}

static int full(const loader *L) { return L->max > 0 && L->set->count >= L->max; }

/* Room for `more` samples beyond count. */
static int reserve(loader *L, long more) {
    long need = L->set->count + more;
    if (need > INT32_MAX) return edgeq_fail(L->err, L->err_len, "more than %d calibration samples", INT32_MAX);
    if (need <= L->cap) return 0;
    long cap = L->cap ? L->cap : 16;
    while (cap < need) cap *= 2;
    for (int k = 0; k < L->set->n_inputs; k++) {
        size_t bytes = (size_t)cap * L->set->sample_len[k] * sizeof(float);
        if (L->set->sample_len[k] && bytes / L->set->sample_len[k] / sizeof(float) != (size_t)cap)
            return edgeq_fail(L->err, L->err_len, "calibration set too large");
        float *p = realloc(L->set->data[k], bytes ? bytes : 1);
        if (!p) return edgeq_fail(L->err, L->err_len, "out of memory for %ld calibration samples", cap);
        L->set->data[k] = p;
    }
    L->cap = cap;
    return 0;
}

/* "(30,1,40)" of dims[from..rank) */
static void dims_str(const int *dims, int from, int rank, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "(");
    for (int d = from; d < rank && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, d > from ? ",%d" : "%d", dims[d]);
    if (at < cap) snprintf(buf + at, cap - at, rank - from == 1 ? ",)" : ")");
}

static void npy_shape_str(const edgeq_npy *a, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "(");
    for (uint32_t d = 0; d < a->rank && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, d ? ",%llu" : "%llu",
                               (unsigned long long)a->shape[d]);
    if (at < cap) snprintf(buf + at, cap - at, a->rank == 1 ? ",)" : ")");
}

/* How many samples of input `in` the array holds, or -1 when its shape
 * fits neither one sample nor a stack of them. */
static long npy_samples(const edgeq_node *in, const edgeq_npy *a) {
    int r = in->rank;
    if ((int)a->rank == r) { /* [N, sample...] */
        for (int d = 1; d < r; d++)
            if (a->shape[d] != (uint64_t)in->shape[d]) return -1;
        return a->shape[0] > (uint64_t)INT32_MAX ? -1 : (long)a->shape[0];
    }
    if ((int)a->rank == r - 1) { /* one sample without its batch dimension */
        for (int d = 1; d < r; d++)
            if (a->shape[d - 1] != (uint64_t)in->shape[d]) return -1;
        return 1;
    }
    return -1;
}

static int shape_error(loader *L, const char *what, int k, const edgeq_npy *a) {
    const edgeq_node *in = input_node(L->g, k);
    char got[128], one[96], batch[96];
    npy_shape_str(a, got, sizeof got);
    dims_str(in->shape, 1, in->rank, one, sizeof one);
    dims_str(in->shape, 0, in->rank, batch, sizeof batch);
    /* "(N,30,1,40)": the stacked form */
    char stacked[112];
    snprintf(stacked, sizeof stacked, "(N,%s", one + 1);
    if (in->rank == 1) snprintf(stacked, sizeof stacked, "(N,)");
    return edgeq_fail(L->err, L->err_len, "%s: calibration data of shape %s does not fit input '%s' %s: expected one sample "
                "%s or %s, or N samples %s",
                what, got, in->name, batch, one, batch, stacked);
}

/* Values as read, for the report (calib_checks.c). */
static void src_note(loader *L, int k, const float *p, size_t n) {
    edgeq_calib_source *c = &L->set->src[k];
    for (size_t i = 0; i < n; i++) {
        double v = p[i];
        if (c->n == 0 && i == 0) c->lo = c->hi = v;
        if (v < c->lo) c->lo = v;
        if (v > c->hi) c->hi = v;
        c->sum += v;
    }
    c->n += (double)n;
}

static int check_finite(loader *L, const float *p, size_t n, const char *what, long sample) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(p[i]))
            return edgeq_fail(L->err, L->err_len, "%s: sample %ld holds %s (value %zu): calibration data must be finite",
                        what, sample, isnan(p[i]) ? "NaN" : "an infinity", i);
    return 0;
}

/* Append up to `avail` samples of input k from array `a` at sample index
 * `base` of the set (count is advanced by the caller). */
static int copy_npy(loader *L, int k, const edgeq_npy *a, long take, const char *what) {
    size_t len = L->set->sample_len[k];
    float *dst = L->set->data[k] + (size_t)L->set->count * len;
    size_t n = (size_t)take * len;
    if (a->kind == 'f' && a->itemsize == 4) {
        memcpy(dst, a->data, n * sizeof *dst); /* little-endian host */
    } else {
        for (size_t i = 0; i < n; i++) dst[i] = (float)edgeq_npy_get_f64(a, i);
    }
    for (long s = 0; s < take; s++)
        if (check_finite(L, dst + (size_t)s * len, len, what, s) != 0) return -1;
    edgeq_calib_source *c = &L->set->src[k];
    if (c->arrays++ == 0) {
        char sh[64];
        npy_shape_str(a, sh, sizeof sh);
        snprintf(c->array_desc, sizeof c->array_desc, "%s %s",
                 edgeq_npy_dtype_name(a->kind, a->itemsize), sh);
    }
    c->files++;
    src_note(L, k, dst, n);
    return 0;
}

/* One .npy array for the one-input model. */
static int add_npy(loader *L, const edgeq_npy *a, const char *what) {
    if (a->kind != 'f' && a->kind != 'i' && a->kind != 'u' && a->kind != 'b')
        return edgeq_fail(L->err, L->err_len, "%s: unsupported dtype", what);
    long n = npy_samples(input_node(L->g, 0), a);
    if (n < 0) return shape_error(L, what, 0, a);
    long take = n;
    if (L->max > 0 && take > L->max - L->set->count) take = L->max - L->set->count;
    if (take <= 0) return 0;
    if (reserve(L, take) != 0 || copy_npy(L, 0, a, take, what) != 0) return -1;
    L->set->count += (int)take;
    return 0;
}

/* ---- .npz ---- */

typedef struct npz_entry {
    char name[256];
    uint8_t *buf;
    edgeq_npy a;
} npz_entry;

static int read_npz(loader *L, const uint8_t *data, size_t len, const char *what,
                    npz_entry **out, int *n_out) {
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(data, len, 0, &ze);
    zip_t *za = src ? zip_open_from_source(src, ZIP_RDONLY, &ze) : NULL;
    if (!za) {
        int rc = edgeq_fail(L->err, L->err_len, "%s: not a readable .npz (zip): %s", what, zip_error_strerror(&ze));
        if (src) zip_source_free(src);
        zip_error_fini(&ze);
        return rc;
    }
    zip_error_fini(&ze);
    zip_int64_t n = zip_get_num_entries(za, 0);
    npz_entry *e = calloc(n > 0 ? (size_t)n : 1, sizeof *e);
    int m = 0, rc = -1;
    if (!e) {
        edgeq_fail(L->err, L->err_len, "out of memory");
        goto out;
    }
    for (zip_int64_t i = 0; i < n; i++) {
        const char *nm = zip_get_name(za, (zip_uint64_t)i, 0);
        zip_stat_t st;
        if (!nm || zip_stat_index(za, (zip_uint64_t)i, 0, &st) != 0 ||
            !(st.valid & ZIP_STAT_SIZE)) {
            edgeq_fail(L->err, L->err_len, "%s: unreadable zip entry %lld", what, (long long)i);
            goto out;
        }
        size_t nl = strlen(nm);
        if (nl < 4 || strcmp(nm + nl - 4, ".npy") != 0) continue; /* not an array */
        if (st.size > CALIB_FILE_LIMIT) {
            edgeq_fail(L->err, L->err_len, "%s: array '%s' is larger than %zu bytes", what, nm, CALIB_FILE_LIMIT);
            goto out;
        }
        npz_entry *x = &e[m];
        snprintf(x->name, sizeof x->name, "%.*s", (int)(nl - 4), nm);
        x->buf = malloc(st.size ? (size_t)st.size : 1);
        if (!x->buf) {
            edgeq_fail(L->err, L->err_len, "%s: out of memory for array '%s'", what, x->name);
            goto out;
        }
        m++;
        zip_file_t *zf = zip_fopen_index(za, (zip_uint64_t)i, 0);
        zip_int64_t got = zf ? zip_fread(zf, x->buf, st.size) : -1;
        if (zf) zip_fclose(zf);
        if (got < 0 || (zip_uint64_t)got != st.size) {
            edgeq_fail(L->err, L->err_len, "%s: cannot read array '%s' (corrupt zip)", what, x->name);
            goto out;
        }
        char perr[256], label[512];
        snprintf(label, sizeof label, "%s: array '%s'", what, x->name);
        if (edgeq_npy_parse(x->buf, (size_t)st.size, label, &x->a, perr, sizeof perr) != 0) {
            edgeq_fail(L->err, L->err_len, "%s", perr);
            goto out;
        }
    }
    rc = 0;
out:
    zip_discard(za); /* also frees src */
    *out = e;
    *n_out = m;
    return rc;
}

static void npz_free(npz_entry *e, int n) {
    for (int i = 0; i < n; i++) free(e[i].buf);
    free(e);
}

static int add_npz(loader *L, const uint8_t *data, size_t len, const char *what) {
    npz_entry *e = NULL;
    int n = 0;
    if (read_npz(L, data, len, what, &e, &n) != 0) {
        npz_free(e, n);
        return -1;
    }
    int rc = -1;
    int pick[8];
    long samples = -1;
    char names[512] = "";
    size_t at = 0;
    for (int i = 0; i < n && at < sizeof names; i++) {
        char sh[96];
        npy_shape_str(&e[i].a, sh, sizeof sh);
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s %s", i ? ", " : "", e[i].name,
                               sh);
    }
    if (n == 0) {
        edgeq_fail(L->err, L->err_len, "%s: the .npz holds no arrays", what);
        goto out;
    }
    for (int k = 0; k < L->set->n_inputs; k++) {
        const edgeq_node *in = input_node(L->g, k);
        pick[k] = -1;
        for (int i = 0; i < n && pick[k] < 0; i++)
            if (strcmp(e[i].name, in->name) == 0) pick[k] = i;
        if (pick[k] < 0 && L->set->n_inputs == 1) {
            for (int i = 0; i < n && pick[k] < 0; i++)
                if (npy_samples(in, &e[i].a) >= 0) pick[k] = i;
            if (pick[k] < 0) {
                char one[96];
                dims_str(in->shape, 1, in->rank, one, sizeof one);
                edgeq_fail(L->err, L->err_len, "%s: no array fits input '%s' (samples of shape %s); the .npz holds: %s",
                     what, in->name, one, names);
                goto out;
            }
        }
        if (pick[k] < 0) {
            if (k >= n) {
                edgeq_fail(L->err, L->err_len, "%s: no array for input '%s' (by name or position); the .npz holds: %s",
                     what, in->name, names);
                goto out;
            }
            pick[k] = k;
        }
        char label[512];
        snprintf(label, sizeof label, "%s: array '%s'", what, e[pick[k]].name);
        long s = npy_samples(in, &e[pick[k]].a);
        if (s < 0) {
            shape_error(L, label, k, &e[pick[k]].a);
            goto out;
        }
        if (samples >= 0 && s != samples) {
            edgeq_fail(L->err, L->err_len, "%s: input arrays hold different numbers of samples (%ld and %ld)", what,
                 samples, s);
            goto out;
        }
        samples = s;
    }
    long take = samples;
    if (L->max > 0 && take > L->max - L->set->count) take = L->max - L->set->count;
    if (take > 0) {
        if (reserve(L, take) != 0) goto out;
        for (int k = 0; k < L->set->n_inputs; k++) {
            char label[512];
            snprintf(label, sizeof label, "%s: array '%s'", what, e[pick[k]].name);
            if (copy_npy(L, k, &e[pick[k]].a, take, label) != 0) goto out;
        }
        L->set->count += (int)take;
    }
    if (L->set->n_inputs == 1)
        snprintf(L->set->desc, sizeof L->set->desc, "array '%.64s' of %.150s", e[pick[0]].name,
                 what);
    rc = 0;
out:
    npz_free(e, n);
    return rc;
}

/* ---- images and raw files ---- */

static int add_image(loader *L, const uint8_t *data, size_t len, const char *what) {
    const edgeq_node *in = input_node(L->g, 0);
    if (in->rank != 4 || (in->shape[3] != 1 && in->shape[3] != 3))
        return edgeq_fail(L->err, L->err_len, "%s: an image, but input '%s' is not an image input ([1,H,W,C] with C = 1 "
                    "or 3)",
                    what, in->name);
    edgeq_image img;
    char ierr[256];
    if (edgeq_image_decode(data, len, what, &img, ierr, sizeof ierr) != 0) {
        edgeq_image_free(&img);
        return edgeq_fail(L->err, L->err_len, "%s", ierr);
    }
    if (L->norm && L->norm->kind == 2 && L->norm->n_mean == 3 && in->shape[3] != 3) {
        edgeq_image_free(&img);
        return edgeq_fail(L->err, L->err_len, "%s: --mean/--std give 3 channels but input '%s' has %d", what, in->name,
                    in->shape[3]);
    }
    int rc = reserve(L, 1);
    float *dst = rc == 0 ? L->set->data[0] + (size_t)L->set->count * L->set->sample_len[0] : NULL;
    if (rc == 0 && edgeq_image_to_sample(&img, in->shape[1], in->shape[2], in->shape[3], dst) != 0)
        rc = edgeq_fail(L->err, L->err_len, "%s: out of memory converting the image", what);
    if (rc == 0) {
        edgeq_calib_source *c = &L->set->src[0];
        if (c->images++ == 0) {
            c->img_w = img.w;
            c->img_h = img.h;
            c->img_c = img.c;
        } else if (c->img_w != img.w || c->img_h != img.h || c->img_c != img.c) {
            c->img_sizes_vary = 1;
        }
        c->files++;
        if (img.w != in->shape[2] || img.h != in->shape[1]) c->resized++;
        if (img.c == 1 && in->shape[3] == 3) c->grey_to_rgb++;
        if (img.c == 3 && in->shape[3] == 1) c->rgb_to_grey++;
        src_note(L, 0, img.px, (size_t)img.w * (size_t)img.h * (size_t)img.c);
        const edgeq_calib_norm *nm = L->norm;
        int C = in->shape[3];
        for (size_t i = 0; nm && nm->kind && i < L->set->sample_len[0]; i++) {
            if (nm->kind == 1) {
                dst[i] = nm->lo + dst[i] * ((nm->hi - nm->lo) / 255.0f);
            } else {
                int ch = nm->n_mean == 1 ? 0 : (int)(i % (size_t)C);
                dst[i] = (dst[i] - nm->mean[ch]) / nm->std[ch];
            }
        }
    }
    edgeq_image_free(&img);
    if (rc == 0) L->set->count++;
    return rc;
}

static int add_raw(loader *L, const uint8_t *data, size_t len, const char *what, int in_dir) {
    size_t one = L->set->sample_len[0] * sizeof(float);
    if (len == 0 || len % one != 0 || (in_dir && len != one)) {
        const edgeq_node *in = input_node(L->g, 0);
        char batch[96];
        dims_str(in->shape, 0, in->rank, batch, sizeof batch);
        return edgeq_fail(L->err, L->err_len, "%s: %zu bytes: not an .npy, .npz or image, and not raw float32 samples "
                    "of input '%s' %s (%zu bytes each%s)",
                    what, len, in->name, batch, one, in_dir ? ", one per file" : "");
    }
    long n = (long)(len / one);
    if (L->max > 0 && n > L->max - L->set->count) n = L->max - L->set->count;
    if (n <= 0) return 0;
    if (reserve(L, n) != 0) return -1;
    float *dst = L->set->data[0] + (size_t)L->set->count * L->set->sample_len[0];
    memcpy(dst, data, (size_t)n * one); /* little-endian host */
    for (long s = 0; s < n; s++)
        if (check_finite(L, dst + (size_t)s * L->set->sample_len[0], L->set->sample_len[0], what,
                         s) != 0)
            return -1;
    L->set->src[0].raws++;
    L->set->src[0].files++;
    src_note(L, 0, dst, (size_t)n * L->set->sample_len[0]);
    L->set->count += (int)n;
    return 0;
}

static int add_file(loader *L, const char *path, int in_dir) {
    uint8_t *data = NULL;
    size_t len = 0;
    char ferr[512];
    if (edgeq_read_file_limit(path, 16, CALIB_FILE_LIMIT, &data, &len, ferr, sizeof ferr) != 0)
        return edgeq_fail(L->err, L->err_len, "%s", ferr);
    int rc;
    static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    if (len >= 6 && memcmp(data, npy_magic, 6) == 0) {
        if (L->set->n_inputs != 1) {
            rc = edgeq_fail(L->err, L->err_len, "%s: the model has %d inputs: give their calibration data as one .npz",
                      path, L->set->n_inputs);
        } else {
            edgeq_npy a;
            char perr[512];
            rc = edgeq_npy_parse(data, len, path, &a, perr, sizeof perr) != 0
                     ? edgeq_fail(L->err, L->err_len, "%s", perr)
                     : add_npy(L, &a, path);
        }
    } else if (len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0) {
        rc = add_npz(L, data, len, path);
    } else if (L->set->n_inputs != 1) {
        rc = edgeq_fail(L->err, L->err_len, "%s: the model has %d inputs: give their calibration data as one .npz", path,
                  L->set->n_inputs);
    } else if (edgeq_image_sniff(data, len) != EDGEQ_IMAGE_NONE) {
        rc = add_image(L, data, len, path);
    } else {
        rc = add_raw(L, data, len, path, in_dir);
    }
    free(data);
    return rc;
}

/* ---- folders ---- */

typedef struct path_list {
    char **p;
    size_t n, cap;
} path_list;

static int skipped_name(const char *name) {
    static const char *const ext[] = {".txt", ".csv", ".json", ".md", ".yaml", ".yml"};
    if (name[0] == '.') return 1;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
        if (edgeq_has_ext(name, ext[i])) return 1;
    return 0;
}

static int list_dir(loader *L, const char *dir, int depth, path_list *out) {
    if (depth > CALIB_DIR_DEPTH) return edgeq_fail(L->err, L->err_len, "%s: folders nested too deep", dir);
    DIR *d = opendir(dir);
    if (!d) return edgeq_fail(L->err, L->err_len, "%s: cannot open folder", dir);
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (skipped_name(de->d_name)) continue;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *p = malloc(len);
        if (!p) {
            rc = edgeq_fail(L->err, L->err_len, "out of memory");
            break;
        }
        snprintf(p, len, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p, &st) != 0) {
            free(p); /* a dangling link: nothing to read */
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = list_dir(L, p, depth + 1, out);
            free(p);
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 64;
            char **np = realloc(out->p, cap * sizeof *np);
            if (!np) {
                free(p);
                rc = edgeq_fail(L->err, L->err_len, "out of memory");
                break;
            }
            out->p = np;
            out->cap = cap;
        }
        out->p[out->n++] = p;
    }
    closedir(d);
    return rc;
}

static int cmp_path(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_dir(loader *L, const char *dir) {
    path_list pl = {0};
    int rc = list_dir(L, dir, 0, &pl);
    if (rc == 0 && pl.n == 0) rc = edgeq_fail(L->err, L->err_len, "%s: the folder holds no calibration files", dir);
    if (rc == 0) qsort(pl.p, pl.n, sizeof *pl.p, cmp_path);
    for (size_t i = 0; rc == 0 && i < pl.n && !full(L); i++) rc = add_file(L, pl.p[i], 1);
    for (size_t i = 0; i < pl.n; i++) free(pl.p[i]);
    free(pl.p);
    return rc;
}

int edgeq_calib_data_load(const edgeq_graph *g, const char *path, long max_count,
                          edgeq_calib_set *set, char *err, size_t err_len) {
    return edgeq_calib_data_load_norm(g, path, max_count, NULL, set, err, err_len);
}

int edgeq_calib_data_load_norm(const edgeq_graph *g, const char *path, long max_count,
                               const edgeq_calib_norm *norm, edgeq_calib_set *set, char *err,
                               size_t err_len) {
    if (err && err_len) err[0] = 0;
    if (set_init(g, set, err, err_len) != 0) return -1;
    loader L = {g, norm, set, max_count > 0 ? max_count : 0, 0, err, err_len};
    if (norm) set->norm = *norm;
    struct stat st;
    if (stat(path, &st) != 0) return edgeq_fail(L.err, L.err_len, "%s: no such file or folder", path);
    int rc = S_ISDIR(st.st_mode) ? add_dir(&L, path) : add_file(&L, path, 0);
    if (rc != 0) return -1;
    if (set->count == 0) return edgeq_fail(L.err, L.err_len, "%s: no calibration samples", path);
    char what[200];
    if (set->desc[0])
        snprintf(what, sizeof what, "%.199s", set->desc);
    else
        snprintf(what, sizeof what, "%.199s", path);
    snprintf(set->desc, sizeof set->desc, "%d sample%s from %s", set->count,
             set->count == 1 ? "" : "s", what);
    return 0;
}

/* ---- synthetic ---- */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1). */
static double unit(uint64_t *s) {
    return ((double)(splitmix64(s) >> 11) + 0.5) / 9007199254740992.0;
}

int edgeq_calib_data_synthetic(const edgeq_graph *g, long count, edgeq_calib_set *set, char *err,
                               size_t err_len) {
    if (err && err_len) err[0] = 0;
    if (set_init(g, set, err, err_len) != 0) return -1;
    loader L = {g, NULL, set, 0, 0, err, err_len};
    if (count <= 0) count = EDGEQ_CALIB_SYNTHETIC_COUNT;
    if (count > INT32_MAX) return edgeq_fail(L.err, L.err_len, "too many synthetic samples");
    if (reserve(&L, count) != 0) return -1;
    uint64_t seed = 0x65646765712d6361ull; /* fixed: runs are reproducible */
    char dist[160] = "";
    for (int k = 0; k < g->n_inputs; k++) {
        size_t n = (size_t)count * set->sample_len[k];
        float *p = set->data[k];
        if (g->input_folded[k]) {
            for (size_t i = 0; i < n; i++) p[i] = (float)(unit(&seed) * 255.0);
        } else {
            for (size_t i = 0; i < n; i += 2) { /* Marsaglia's polar method: two per draw */
                double u, v, q;
                do {
                    u = 2.0 * unit(&seed) - 1.0;
                    v = 2.0 * unit(&seed) - 1.0;
                    q = u * u + v * v;
                } while (q >= 1.0 || q == 0.0);
                double f = sqrt(-2.0 * log(q) / q);
                p[i] = (float)(u * f);
                if (i + 1 < n) p[i + 1] = (float)(v * f);
            }
        }
        size_t at = strlen(dist);
        snprintf(dist + at, sizeof dist - at, "%s%s", k ? ", " : "",
                 g->input_folded[k] ? "uniform over [0, 255] (pixels: the input has a Rescaling)"
                                    : "normal N(0, 1)");
    }
    set->count = (int)count;
    set->synthetic = 1;
    snprintf(set->desc, sizeof set->desc, "%d synthetic samples, %s", set->count, dist);
    return 0;
}

void edgeq_calib_print_synthetic_warning(FILE *fp, const edgeq_calib_set *set) {
    fprintf(fp,
            "edgeq: WARNING: ************************************************************\n"
            "edgeq: WARNING: NO CALIBRATION DATA (--calib): calibrating on SYNTHETIC data:\n"
            "edgeq: WARNING:   %s.\n"
            "edgeq: WARNING: Activation ranges, and so int8 accuracy, will differ from a\n"
            "edgeq: WARNING: calibration on real inputs. Pass --calib FILE|DIR with ~100\n"
            "edgeq: WARNING: representative samples (.npy/.npz, images, raw float32).\n"
            "edgeq: WARNING: ************************************************************\n",
            set->desc);
}
