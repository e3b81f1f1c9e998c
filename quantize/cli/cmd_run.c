/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_run.c — `edgeq run`: run a .tflite model on the engine with inputs
 * from files, write its outputs, time it and profile it per op.
 *
 * Also home of the engine helpers the host commands share (cli.h):
 * loading a model into an exactly sized arena, and reading tensor views.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "io/file_util.h"
#include "io/npy.h"
#include "io/output_path.h"

#define MIB ((size_t)1 << 20)
/* Most bytes read from a pipe or device standing in for a model file. */
#define STREAM_LIMIT (1024 * MIB)

/* ======================= shared engine helpers ======================= */

int edgeq_npy_dtype_of(edge_type t, char *kind, uint32_t *size) {
    switch ((int)t) {
    case EDGE_FLOAT32: *kind = 'f', *size = 4; return 0;
    case EDGE_FLOAT16: *kind = 'f', *size = 2; return 0;
    case 10 /* FLOAT64 */: *kind = 'f', *size = 8; return 0;
    case EDGE_INT8: *kind = 'i', *size = 1; return 0;
    case EDGE_INT16: *kind = 'i', *size = 2; return 0;
    case EDGE_INT32: *kind = 'i', *size = 4; return 0;
    case EDGE_INT64: *kind = 'i', *size = 8; return 0;
    case EDGE_UINT8: *kind = 'u', *size = 1; return 0;
    case 16 /* UINT16 */: *kind = 'u', *size = 2; return 0;
    case 15 /* UINT32 */: *kind = 'u', *size = 4; return 0;
    case 12 /* UINT64 */: *kind = 'u', *size = 8; return 0;
    case EDGE_BOOL: *kind = 'b', *size = 1; return 0;
    default: return -1; /* bfloat16, strings, complex, int4: no plain NumPy dtype */
    }
}

size_t edgeq_tensor_elems(const edge_tensor *t) {
    size_t n = 1;
    for (int32_t i = 0; i < t->rank && i < EDGE_MAX_DIMS; i++)
        n *= t->dims[i] > 0 ? (size_t)t->dims[i] : 0;
    return n;
}

char *edgeq_shape_str(const edge_tensor *t, char *buf, size_t cap) {
    size_t at = 0;
    if (cap == 0) return buf;
    buf[0] = 0;
    int n = snprintf(buf, cap, "[");
    at = n > 0 ? (size_t)n : 0;
    for (int32_t i = 0; i < t->rank && i < EDGE_MAX_DIMS && at < cap; i++) {
        n = snprintf(buf + at, cap - at, i ? ",%d" : "%d", (int)t->dims[i]);
        if (n > 0) at += (size_t)n;
    }
    if (at < cap) snprintf(buf + at, cap - at, "]");
    return buf;
}

int edgeq_type_is_integer(edge_type t) {
    switch ((int)t) {
    case EDGE_FLOAT32:
    case EDGE_FLOAT16:
    case EDGE_BFLOAT16:
    case 10: return 0;
    default: return 1;
    }
}

static double half_bits_to_double(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v = exp == 0    ? ldexp(frac, -24)
               : exp == 31 ? (frac ? (double)NAN : (double)INFINITY)
                           : ldexp(1024 + frac, exp - 25);
    return sign ? -v : v;
}

double edgeq_tensor_value(const edge_tensor *t, size_t i) {
    const uint8_t *p = t->data;
    if (!p) return 0.0;
    switch ((int)t->type) {
    case EDGE_INT8: return (double)((const int8_t *)p)[i];
    case EDGE_UINT8: return (double)p[i];
    case EDGE_BOOL: return p[i] ? 1.0 : 0.0;
    case EDGE_INT16: { int16_t v; memcpy(&v, p + 2 * i, 2); return (double)v; }
    case 16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return (double)v; }
    case EDGE_INT32: { int32_t v; memcpy(&v, p + 4 * i, 4); return (double)v; }
    case 15: { uint32_t v; memcpy(&v, p + 4 * i, 4); return (double)v; }
    case EDGE_INT64: { int64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
    case 12: { uint64_t v; memcpy(&v, p + 8 * i, 8); return (double)v; }
    case EDGE_FLOAT32: { float v; memcpy(&v, p + 4 * i, 4); return (double)v; }
    case 10: { double v; memcpy(&v, p + 8 * i, 8); return v; }
    case EDGE_FLOAT16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return half_bits_to_double(v); }
    case EDGE_BFLOAT16: {
        uint16_t v;
        memcpy(&v, p + 2 * i, 2);
        uint32_t bits = (uint32_t)v << 16;
        float f;
        memcpy(&f, &bits, 4);
        return (double)f;
    }
    default: return 0.0;
    }
}

/* float32 -> bfloat16, nearest even, NaN kept NaN (as the engine's bf16.h). */
static uint16_t edgeq_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static void *alloc_aligned(size_t n) {
    size_t rounded = (n + EDGE_ARENA_ALIGN - 1) & ~(size_t)(EDGE_ARENA_ALIGN - 1);
    if (rounded < n) return NULL;
    return aligned_alloc(EDGE_ARENA_ALIGN, rounded ? rounded : EDGE_ARENA_ALIGN);
}

static void report_refusal(const char *path, edge_status s, const edge_model *m) {
    const char *msg = edge_model_error(m);
    if (msg && *msg)
        edgeq_error("%s: %s: %s", path, edge_status_str(s), msg);
    else
        edgeq_error("%s: %s", path, edge_status_str(s));
}

int edgeq_model_open(edgeq_model_file *f, const char *path, size_t arena_bytes) {
    char err[512];
    memset(f, 0, sizeof *f);
    f->path = path;
    if (edgeq_read_file_limit(path, EDGE_ARENA_ALIGN, STREAM_LIMIT, &f->file, &f->file_len, err,
                              sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }

    /* The work buffer only has to be big enough; untouched pages cost
     * nothing, so start generous and grow if the engine asks for more. */
    const size_t work_cap = (size_t)1 << (sizeof(size_t) > 4 ? 34 : 30);
    size_t work_len = 64 * MIB;
    if (f->file_len < (work_cap - work_len) / 4) work_len += 4 * f->file_len;
    for (;;) {
        uint8_t *work = alloc_aligned(work_len);
        if (!work) {
            edgeq_error("%s: out of memory (a %zu-byte work arena to size the model)", path,
                        work_len);
            return EDGEQ_EXIT_FAIL;
        }
        size_t need = 0;
        edge_status s = edge_model_arena_needed(f->file, f->file_len, work, work_len, &need);
        if (s == EDGE_OK) {
            free(work);
            f->arena_need = need;
            break;
        }
        if (s == EDGE_ERR_ARENA && work_len < work_cap) {
            free(work);
            size_t next = work_len <= work_cap / 4 ? work_len * 4 : work_cap;
            if (need > next / 2 && need <= work_cap / 2) next = need * 2;
            work_len = next;
            continue;
        }
        /* Refused: load it once more in the work buffer to get the words. */
        edge_model probe;
        memset(&probe, 0, sizeof probe);
        edge_status s2 = edge_model_init(&probe, f->file, f->file_len, work, work_len);
        report_refusal(path, s2 != EDGE_OK ? s2 : s, &probe);
        free(work);
        return EDGEQ_EXIT_FAIL;
    }

    f->arena_len = arena_bytes ? arena_bytes : f->arena_need;
    f->arena = alloc_aligned(f->arena_len);
    if (!f->arena) {
        edgeq_error("%s: out of memory (a %zu-byte arena)", path, f->arena_len);
        return EDGEQ_EXIT_FAIL;
    }
    edge_status s = edge_model_init(&f->m, f->file, f->file_len, f->arena, f->arena_len);
    if (s == EDGE_ERR_ARENA && arena_bytes) {
        edgeq_error("%s: an arena of %zu bytes is too small: the model needs %zu (%s)", path,
                    arena_bytes, f->m.arena_needed ? f->m.arena_needed : f->arena_need,
                    edge_model_error(&f->m));
        return EDGEQ_EXIT_FAIL;
    }
    if (s != EDGE_OK) {
        report_refusal(path, s, &f->m);
        return EDGEQ_EXIT_FAIL;
    }
    return EDGEQ_EXIT_OK;
}

int edgeq_model_pack(edgeq_model_file *f) {
    const size_t need = edge_model_pack_needed(&f->m);
    if (!need) return EDGEQ_EXIT_OK;
    f->pack = alloc_aligned(need);
    if (!f->pack) {
        edgeq_error("%s: out of memory (%zu bytes of packed weights; --no-pack runs without)", f->path, need);
        return EDGEQ_EXIT_FAIL;
    }
    f->pack_len = need;
    edge_status s = edge_model_pack(&f->m, f->pack, f->pack_len);
    if (s != EDGE_OK) {
        report_refusal(f->path, s, &f->m);
        return EDGEQ_EXIT_FAIL;
    }
    return EDGEQ_EXIT_OK;
}

void edgeq_model_close(edgeq_model_file *f) {
    free(f->pack);
    f->pack = NULL;
    free(f->arena);
    free(f->file);
    f->arena = NULL;
    f->file = NULL;
}

/* ============================== run ============================== */

static void run_help(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " run <model.tflite> --input <file> [--input <file>...]\n"
            "                   [--output <file>...] [--repeat N] [--json] [--profile]\n"
            "                   [--arena BYTES] [--no-pack] [--labels FILE]\n"
            "\n"
            "Run a TFLite model on the edgeq engine.\n"
            "\n"
            "  --input FILE    one per model input, in order. FILE.npy: dtype and element\n"
            "                  count must match the tensor (float data is not quantized\n"
            "                  for an int8/uint8 input: give the quantized values; a\n"
            "                  bfloat16 input takes float32, rounded to nearest even). Any\n"
            "                  other name: raw little-endian bytes, exactly the tensor's size.\n"
            "  --output FILE   one per model output, in order (fewer is fine): FILE.npy gets\n"
            "                  the tensor's dtype and shape (bfloat16 as float32, exact),\n"
            "                  anything else the raw bytes.\n"
            "                  Written all or nothing (temp file + rename).\n"
            "  --repeat N      invoke N times (default 1); the median latency is reported\n"
            "  --profile       time each operator (mean per invoke, %% of total)\n"
            "  --json          print one JSON object (always includes the per-op profile)\n"
            "                  (--profile and --json time N more runs with the op clock on,\n"
            "                  so the latency figures never include its cost)\n"
            "  --arena BYTES   use this arena size instead of the exact need (k/M suffix ok)\n"
            "  --no-pack       re-lay weights on every invoke instead of once into a buffer\n"
            "                  beside the arena (edge_model_pack; x86 AVX2 conv and FC)\n"
            "  --labels FILE   class names, one per line, to name each output's argmax\n"
            "  --force         let --output replace an existing file that is not .npy, .bin\n"
            "                  or .raw (an input file is never overwritten)\n"
            "\n"
            "exit codes: 0 ok; 1 the model was refused, an input does not fit, or a file\n"
            "could not be read or written; 2 usage error (incl. wrong number of inputs).\n");
}

typedef struct run_opts {
    const char *model;
    const char **inputs;
    int n_inputs;
    const char **outputs;
    int n_outputs;
    long repeat;
    int json;
    int profile;
    size_t arena;
    int no_pack;
    int force;
    const char *labels_path;
    char **labels; /* one per class, from --labels */
    size_t n_labels;
} run_opts;

/* Returns -1 to continue, else an exit code. */
static int parse_run_args(int argc, char **argv, run_opts *o) {
    o->repeat = 1;
    for (int i = 1; i < argc;) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            run_help(stdout);
            return EDGEQ_EXIT_OK;
        }
        if (strcmp(a, "--json") == 0) {
            o->json = 1, i++;
        } else if (strcmp(a, "--profile") == 0) {
            o->profile = 1, i++;
        } else if (strcmp(a, "--no-pack") == 0) {
            o->no_pack = 1, i++;
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1, i++;
        } else if (edgeq_opt_value(argc, argv, &i, "--input", &v) ||
                   edgeq_opt_value(argc, argv, &i, "-i", &v)) {
            if (!v || !*v) return edgeq_usage("run", "--input needs a file name");
            o->inputs[o->n_inputs++] = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--output", &v) ||
                   edgeq_opt_value(argc, argv, &i, "-o", &v)) {
            if (!v || !*v) return edgeq_usage("run", "--output needs a file name");
            o->outputs[o->n_outputs++] = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--repeat", &v) ||
                   edgeq_opt_value(argc, argv, &i, "-n", &v)) {
            if (!v) return edgeq_usage("run", "--repeat needs a count");
            if (edgeq_parse_long(v, 1, 100000000L, &o->repeat) != 0)
                return edgeq_usage("run", "--repeat wants a whole number from 1 to 100000000, "
                                          "not '%s'", v);
        } else if (edgeq_opt_value(argc, argv, &i, "--arena", &v)) {
            if (!v) return edgeq_usage("run", "--arena needs a size in bytes");
            if (edgeq_parse_bytes(v, &o->arena) != 0)
                return edgeq_usage("run", "--arena wants a byte count like 65536 or 64k, not '%s'",
                                   v);
        } else if (edgeq_opt_value(argc, argv, &i, "--labels", &v)) {
            if (!v || !*v) return edgeq_usage("run", "--labels needs a file name");
            o->labels_path = v;
        } else if (a[0] == '-' && a[1]) {
            return edgeq_usage("run", "unknown option '%s'", a);
        } else {
            if (o->model)
                return edgeq_usage("run", "one model only ('%s' and '%s'); inputs go after --input",
                                   o->model, a);
            o->model = a;
            i++;
        }
    }
    if (!o->model) return edgeq_usage("run", "no model given");
    /* Never write over the model, an input, the labels or another output. */
    static const char *const out_ext[] = {".npy", ".bin", ".raw", NULL};
    for (int k = 0; k < o->n_outputs; k++) {
        const char *ins[64];
        int n = 0;
        ins[n++] = o->model;
        ins[n++] = o->labels_path;
        for (int j = 0; j < o->n_inputs && n < 64; j++) ins[n++] = o->inputs[j];
        for (int j = 0; j < o->n_outputs && n < 64; j++)
            if (j != k) ins[n++] = o->outputs[j];
        int orc = edgeq_output_check(o->outputs[k], "--output", ins, n, out_ext, o->force);
        if (orc != 0) return orc;
    }
    return -1;
}

static const char *plural(size_t n, const char *word, char *buf, size_t cap) {
    snprintf(buf, cap, "%zu %s%s", n, word, n == 1 ? "" : "s");
    return buf;
}

/* The bytes of one input, kept because the planner may reuse an input's
 * storage once it has been read: each invoke starts by copying them in. */
typedef struct input_data {
    uint8_t *file; /* the whole file */
    const uint8_t *bytes;
    size_t len;
} input_data;

/* Read input i's file and check it against the tensor. Returns 0, or
 * prints why and returns -1. */
static int load_input(edge_model *m, uint32_t i, const char *path, input_data *d) {
    edge_tensor in = edge_input(m, i);
    char shape[128], err[512];
    edgeq_shape_str(&in, shape, sizeof shape);
    const char *tname = edge_type_name(in.type);
    const char *iname = in.name && *in.name ? in.name : "(unnamed)";
    if (!in.data) {
        edgeq_error("input %u '%s' has no data buffer", i, iname);
        return -1;
    }
    uint8_t *buf;
    size_t len;
    /* a stream may say anything up to the tensor plus a generous .npy header */
    size_t limit = in.bytes < SIZE_MAX - MIB ? in.bytes + MIB : SIZE_MAX;
    if (edgeq_read_file_limit(path, 16, limit, &buf, &len, err, sizeof err) != 0) {
        edgeq_error("input %u: %s", i, err);
        return -1;
    }
    int rc = -1;
    if (edgeq_has_ext(path, ".npy")) {
        edgeq_npy a;
        char kind;
        uint32_t size;
        size_t elems = edgeq_tensor_elems(&in);
        if (edgeq_npy_parse(buf, len, path, &a, err, sizeof err) != 0) {
            edgeq_error("input %u: %s", i, err);
        } else if (in.type == EDGE_BFLOAT16 && a.kind == 'f' && a.itemsize == 4 &&
                   a.count == elems) {
            /* NumPy has no bfloat16: a float32 .npy is rounded (nearest
             * even), in place (element i's 2 bytes land at or before its
             * 4 bytes, which were read first). */
            uint8_t *p = (uint8_t *)(uintptr_t)a.data;
            for (size_t e = 0; e < elems; e++) {
                float f;
                memcpy(&f, p + 4 * e, 4);
                uint16_t b = edgeq_f32_to_bf16(f);
                memcpy(p + 2 * e, &b, 2);
            }
            d->bytes = a.data;
            d->len = in.bytes;
            rc = 0;
        } else if (edgeq_npy_dtype_of(in.type, &kind, &size) != 0) {
            edgeq_error("input %u '%s' is %s, which has no .npy dtype; give its raw bytes in a "
                        "file not named .npy",
                        i, iname, tname);
        } else if (a.kind != kind || a.itemsize != size) {
            const char *ntype = edgeq_npy_dtype_name(a.kind, a.itemsize);
            if (a.kind == 'f' && (in.type == EDGE_INT8 || in.type == EDGE_UINT8) && in.scale != 0)
                edgeq_error("input %u '%s' is %s (quantized: scale %g, zero point %d) but %s holds "
                            "%s; edgeq does not quantize inputs: save "
                            "clip(round(x / %g) + %d) as %s",
                            i, iname, tname, (double)in.scale, (int)in.zero_point, path, ntype,
                            (double)in.scale, (int)in.zero_point, tname);
            else
                edgeq_error("input %u '%s' is %s but %s holds %s", i, iname, tname, path, ntype);
        } else if (a.count != elems) {
            edgeq_error("input %u '%s' is %s %s (%zu elements) but %s holds %zu elements", i,
                        iname, tname, shape, elems, path, a.count);
        } else if (a.bytes != in.bytes) {
            edgeq_error("input %u '%s': tensor has %zu bytes, %s has %zu", i, iname, in.bytes,
                        path, a.bytes);
        } else {
            d->bytes = a.data;
            d->len = a.bytes;
            rc = 0;
        }
    } else if (len != in.bytes) {
        edgeq_error("input %u '%s' (%s %s) needs exactly %zu bytes; %s has %zu", i, iname, tname,
                    shape, in.bytes, path, len);
    } else {
        d->bytes = buf;
        d->len = len;
        rc = 0;
    }
    if (rc == 0)
        d->file = buf;
    else
        free(buf);
    return rc;
}

static void fill_inputs(edge_model *m, const input_data *d, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        edge_tensor in = edge_input(m, i);
        memcpy(in.data, d[i].bytes, d[i].len);
    }
}

/* Write output i into a temporary file beside `path`; it becomes `path`
 * only when every output was written (commit_outputs). */
static int stage_output(edge_model *m, uint32_t i, const char *path, edgeq_atomic_file *af) {
    edge_tensor out = edge_output(m, i);
    char err[512];
    uint8_t hdr[4096];
    size_t hdr_len = 0;
    uint8_t *widened = NULL; /* bf16 output as float32 for .npy */
    const uint8_t *body = out.data;
    size_t body_len = out.bytes;
    if (!out.data) {
        edgeq_error("output %u has no data buffer", i);
        return -1;
    }
    if (edgeq_has_ext(path, ".npy")) {
        char kind;
        uint32_t size;
        uint64_t shape[EDGE_MAX_DIMS];
        if (out.type == EDGE_BFLOAT16) {
            /* NumPy has no bfloat16: written as float32 (exact). */
            kind = 'f';
            size = 4;
            widened = malloc(edgeq_tensor_elems(&out) * 4 + 1);
            if (!widened) {
                edgeq_error("out of memory");
                return -1;
            }
            for (size_t e = 0; e < edgeq_tensor_elems(&out); e++) {
                float f = (float)edgeq_tensor_value(&out, e);
                memcpy(widened + 4 * e, &f, 4);
            }
            body = widened;
            body_len = edgeq_tensor_elems(&out) * 4;
        } else if (edgeq_npy_dtype_of(out.type, &kind, &size) != 0) {
            edgeq_error("output %u is %s, which has no .npy dtype; write it to a raw file "
                        "(a name not ending in .npy)",
                        i, edge_type_name(out.type));
            return -1;
        }
        for (int32_t d = 0; d < out.rank && d < EDGE_MAX_DIMS; d++)
            shape[d] = out.dims[d] > 0 ? (uint64_t)out.dims[d] : 0;
        if (!widened && edgeq_tensor_elems(&out) * size != out.bytes) {
            edgeq_error("output %u: %zu bytes do not match its shape", i, out.bytes);
            return -1;
        }
        if (edgeq_npy_header(kind, size, (uint32_t)out.rank, shape, hdr, sizeof hdr, &hdr_len, err,
                             sizeof err) != 0) {
            edgeq_error("output %u: %s", i, err);
            free(widened);
            return -1;
        }
    }
    if (edgeq_atomic_open(af, path, err, sizeof err) != 0) {
        edgeq_error("output %u: %s", i, err);
        free(widened);
        return -1;
    }
    if ((hdr_len && fwrite(hdr, 1, hdr_len, af->fp) != hdr_len) ||
        (body_len && fwrite(body, 1, body_len, af->fp) != body_len)) {
        edgeq_error("output %u: %s: write failed: %s", i, path, strerror(errno));
        edgeq_atomic_abort(af);
        free(widened);
        return -1;
    }
    free(widened);
    return 0;
}

/* Write all outputs, or (as far as the file system allows) none. */
static int write_outputs(edge_model *m, const run_opts *o) {
    edgeq_atomic_file *af = calloc((size_t)o->n_outputs + 1, sizeof *af);
    char err[512];
    int rc = 0, k = 0;
    if (!af) {
        edgeq_error("out of memory");
        return -1;
    }
    for (; k < o->n_outputs; k++)
        if (stage_output(m, (uint32_t)k, o->outputs[k], &af[k]) != 0) {
            rc = -1;
            break;
        }
    if (rc != 0) {
        for (int j = 0; j < k; j++) edgeq_atomic_abort(&af[j]);
    } else {
        for (int j = 0; j < o->n_outputs; j++)
            if (rc != 0) {
                edgeq_atomic_abort(&af[j]);
            } else if (edgeq_atomic_commit(&af[j], err, sizeof err) != 0) {
                edgeq_error("output %d: %s", j, err);
                rc = -1;
            }
    }
    free(af);
    return rc;
}

/* Labels: one per line; '\r' and trailing blanks dropped. The lines point
 * into `text`, which the caller keeps. */
static int load_labels(run_opts *o, uint8_t **text) {
    size_t len;
    char err[512];
    if (edgeq_read_file_limit(o->labels_path, 16, 64 * MIB, text, &len, err, sizeof err) != 0) {
        edgeq_error("--labels: %s", err);
        return -1;
    }
    char *s = (char *)*text;
    size_t lines = 1;
    for (size_t k = 0; k < len; k++) lines += s[k] == '\n';
    o->labels = calloc(lines, sizeof *o->labels);
    if (!o->labels) {
        edgeq_error("out of memory");
        return -1;
    }
    char *p = s;
    while (p < s + len) {
        char *e = memchr(p, '\n', (size_t)(s + len - p));
        char *next = e ? e + 1 : s + len;
        if (!e) e = s + len;
        while (e > p && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
        *e = 0;
        o->labels[o->n_labels++] = p;
        p = next;
    }
    return 0;
}

static const char *label_of(const run_opts *o, long k) {
    return k >= 0 && (size_t)k < o->n_labels ? o->labels[k] : NULL;
}

/* ---- timing ---- */

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n) {
    if (!n) return 0.0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct op_profile {
    double *total_ms; /* per op, summed over the profiled runs */
    uint32_t n_ops;
    int64_t start;
} op_profile;

static void profile_hook(void *user, uint32_t op_index, const char *op_name, int end) {
    op_profile *p = user;
    (void)op_name;
    int64_t t = now_ns();
    if (!end)
        p->start = t;
    else if (op_index < p->n_ops)
        p->total_ms[op_index] += (double)(t - p->start) * 1e-6;
}

/* ---- printing ---- */

/* The argmax of a small 1-D/2-D output (a class index), or -1. */
static long output_argmax(const edge_tensor *t) {
    size_t n = edgeq_tensor_elems(t);
    if (t->rank < 1 || t->rank > 2 || n < 2 || n > 1000 || !t->data) return -1;
    if (t->type == EDGE_STRING || edge_type_size(t->type) == 0) return -1;
    size_t best = 0;
    double bv = edgeq_tensor_value(t, 0);
    for (size_t k = 1; k < n; k++) {
        double v = edgeq_tensor_value(t, k);
        if (v > bv) bv = v, best = k;
    }
    return (long)best;
}

static void print_value(FILE *fp, const edge_tensor *t, size_t k) {
    double v = edgeq_tensor_value(t, k);
    if (edgeq_type_is_integer(t->type)) {
        fprintf(fp, "%.0f", v);
        if (t->scale != 0)
            fprintf(fp, " (%.4g)", (double)t->scale * (v - (double)t->zero_point));
    } else {
        fprintf(fp, "%.6g", v);
    }
}

#define SHOW_VALUES 8

static void print_human(const run_opts *o, edgeq_model_file *f, const double *lat_sorted,
                        double lat_median, const op_profile *prof, long prof_runs) {
    edge_model *m = &f->m;
    char a[32], b[32], c[32];
    uint32_t n_ops = edge_num_ops(m), n_out = edge_num_outputs(m);
    printf("model      %s (%zu bytes; %s, %s, %s)\n", o->model, f->file_len,
           plural(n_ops, "op", a, sizeof a), plural(edge_num_inputs(m), "input", b, sizeof b),
           plural(n_out, "output", c, sizeof c));
    printf("arena      %zu bytes (records %zu, activations %zu)", m->arena_needed,
           m->arena_records, m->arena_activations);
    if (f->arena_len != m->arena_needed) printf("; given %zu", f->arena_len);
    printf("\n");
    if (f->pack_len) printf("packed     %zu bytes of weights laid out once (--no-pack: none)\n", f->pack_len);
    printf("latency    %.4g ms median, %.4g ms min (%ld run%s)\n", lat_median, lat_sorted[0],
           o->repeat, o->repeat == 1 ? "" : "s");
    for (uint32_t i = 0; i < n_out; i++) {
        edge_tensor t = edge_output(m, i);
        char shape[128];
        printf("output %-3u %s %s %s", i, t.name && *t.name ? t.name : "(unnamed)",
               edge_type_name(t.type), edgeq_shape_str(&t, shape, sizeof shape));
        if (t.scale != 0) printf(" scale %g zero point %d", (double)t.scale, (int)t.zero_point);
        printf("\n           values ");
        size_t n = edgeq_tensor_elems(&t);
        for (size_t k = 0; k < n && k < SHOW_VALUES; k++) {
            if (k) printf(", ");
            print_value(stdout, &t, k);
        }
        if (n > SHOW_VALUES) printf(", ... (%zu values)", n);
        printf("\n");
        long am = output_argmax(&t);
        if (am >= 0) {
            const char *label = label_of(o, am);
            printf("           argmax %ld%s%s%s: ", am, label ? " \"" : "", label ? label : "",
                   label ? "\"" : "");
            print_value(stdout, &t, (size_t)am);
            printf("\n");
        }
    }
    if (o->profile && prof) {
        double total = 0;
        for (uint32_t k = 0; k < n_ops; k++) total += prof->total_ms[k];
        printf("\nprofile (mean per invoke over %ld run%s)\n", prof_runs, prof_runs == 1 ? "" : "s");
        printf("  %4s  %-24s %10s %7s %14s  %s\n", "#", "op", "ms", "%", "MACs", "unit");
        for (uint32_t k = 0; k < n_ops; k++) {
            edge_op_info info;
            memset(&info, 0, sizeof info);
            if (edge_op_info_at(m, k, &info) != EDGE_OK) info.name = "?";
            double ms = prof->total_ms[k] / (double)prof_runs;
            printf("  %4u  %-24s %10.4f %6.1f%% %14llu  %s\n", k, info.name ? info.name : "?", ms,
                   total > 0 ? 100.0 * prof->total_ms[k] / total : 0.0,
                   (unsigned long long)info.macs, info.systolic ? "systolic" : "cpu");
        }
        printf("  %4s  %-24s %10.4f %6.1f%%\n", "", "total", total / (double)prof_runs, 100.0);
    }
}

static void print_json(const run_opts *o, edgeq_model_file *f, const double *lat_sorted,
                       double lat_median, const op_profile *prof, long prof_runs) {
    edge_model *m = &f->m;
    FILE *fp = stdout;
    fputs("{\"model\":", fp);
    edgeq_json_string(fp, o->model);
    fprintf(fp, ",\"model_bytes\":%zu,\"arena_bytes\":%zu,\"arena_records\":%zu,"
                "\"arena_activations\":%zu,\"pack_bytes\":%zu,\"latency_ms_median\":",
            f->file_len, m->arena_needed, m->arena_records, m->arena_activations, f->pack_len);
    edgeq_json_number(fp, lat_median);
    fputs(",\"latency_ms_min\":", fp);
    edgeq_json_number(fp, lat_sorted[0]);
    fprintf(fp, ",\"repeat\":%ld,\"ops\":[", o->repeat);
    uint32_t n_ops = edge_num_ops(m);
    double total = 0;
    for (uint32_t k = 0; k < n_ops; k++) total += prof->total_ms[k];
    for (uint32_t k = 0; k < n_ops; k++) {
        edge_op_info info;
        memset(&info, 0, sizeof info);
        if (edge_op_info_at(m, k, &info) != EDGE_OK) info.name = NULL;
        fprintf(fp, "%s{\"index\":%u,\"name\":", k ? "," : "", k);
        edgeq_json_string(fp, info.name ? info.name : "?");
        fputs(",\"ms\":", fp);
        edgeq_json_number(fp, prof->total_ms[k] / (double)prof_runs);
        fputs(",\"percent\":", fp);
        edgeq_json_number(fp, total > 0 ? 100.0 * prof->total_ms[k] / total : 0.0);
        fprintf(fp, ",\"macs\":%llu,\"systolic\":%s,\"array_cycles\":%llu}",
                (unsigned long long)info.macs, info.systolic ? "true" : "false",
                (unsigned long long)info.array_cycles);
    }
    fputs("],\"outputs\":[", fp);
    for (uint32_t i = 0; i < edge_num_outputs(m); i++) {
        edge_tensor t = edge_output(m, i);
        fprintf(fp, "%s{\"name\":", i ? "," : "");
        edgeq_json_string(fp, t.name);
        fputs(",\"type\":", fp);
        edgeq_json_string(fp, edge_type_name(t.type));
        fputs(",\"shape\":[", fp);
        for (int32_t d = 0; d < t.rank && d < EDGE_MAX_DIMS; d++)
            fprintf(fp, "%s%d", d ? "," : "", (int)t.dims[d]);
        fputs("],\"scale\":", fp);
        edgeq_json_number(fp, (double)t.scale);
        fprintf(fp, ",\"zero_point\":%d,\"argmax\":", (int)t.zero_point);
        long am = output_argmax(&t);
        if (am >= 0)
            fprintf(fp, "%ld", am);
        else
            fputs("null", fp);
        if (label_of(o, am)) {
            fputs(",\"label\":", fp);
            edgeq_json_string(fp, label_of(o, am));
        }
        fputs(",\"values\":[", fp);
        size_t n = edgeq_tensor_elems(&t);
        for (size_t k = 0; k < n && k < 16; k++) {
            if (k) fputc(',', fp);
            edgeq_json_number(fp, edgeq_tensor_value(&t, k));
        }
        fputs("]}", fp);
    }
    fputs("]}\n", fp);
}

/* ---- the command ---- */

int edgeq_cmd_run(int argc, char **argv) {
    run_opts o;
    memset(&o, 0, sizeof o);
    o.inputs = calloc((size_t)argc + 1, sizeof *o.inputs);
    o.outputs = calloc((size_t)argc + 1, sizeof *o.outputs);
    edgeq_model_file f;
    memset(&f, 0, sizeof f);
    double *lat = NULL;
    input_data *inputs = NULL;
    uint8_t *labels_text = NULL;
    uint32_t n_in = 0;
    op_profile prof = {NULL, 0, 0};
    int rc;
    if (!o.inputs || !o.outputs) {
        edgeq_error("out of memory");
        rc = EDGEQ_EXIT_FAIL;
        goto done;
    }
    rc = parse_run_args(argc, argv, &o);
    if (rc >= 0) goto done;

    rc = edgeq_model_open(&f, o.model, o.arena);
    if (rc == EDGEQ_EXIT_OK && !o.no_pack) rc = edgeq_model_pack(&f);
    if (rc != EDGEQ_EXIT_OK) goto done;
    edge_model *m = &f.m;
    n_in = edge_num_inputs(m);
    uint32_t n_out = edge_num_outputs(m);
    char a[32];
    if (o.n_inputs == 0 && n_in > 0) {
        rc = edgeq_usage("run", "model has %s; give --input for each", plural(n_in, "input", a, sizeof a));
        goto done;
    }
    if ((uint32_t)o.n_inputs != n_in) {
        rc = edgeq_usage("run", "model has %s but %d --input %s given",
                         plural(n_in, "input", a, sizeof a), o.n_inputs,
                         o.n_inputs == 1 ? "was" : "were");
        goto done;
    }
    if ((uint32_t)o.n_outputs > n_out) {
        rc = edgeq_usage("run", "model has %s but %d --output were given",
                         plural(n_out, "output", a, sizeof a), o.n_outputs);
        goto done;
    }
    rc = EDGEQ_EXIT_FAIL;
    if (o.labels_path && load_labels(&o, &labels_text) != 0) goto done;
    inputs = calloc(n_in ? n_in : 1, sizeof *inputs);
    if (!inputs) {
        edgeq_error("out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n_in; i++)
        if (load_input(m, i, o.inputs[i], &inputs[i]) != 0) goto done;

    /* Latency runs without the profiler, so its clock reads do not count. */
    lat = malloc((size_t)o.repeat * sizeof *lat);
    if (!lat) {
        edgeq_error("out of memory");
        goto done;
    }
    for (long r = 0; r < o.repeat; r++) {
        fill_inputs(m, inputs, n_in);
        int64_t t0 = now_ns();
        edge_status s = edge_invoke(m);
        lat[r] = (double)(now_ns() - t0) * 1e-6;
        if (s != EDGE_OK) {
            report_refusal(o.model, s, m);
            goto done;
        }
    }
    double lat_median = median(lat, (size_t)o.repeat); /* sorts lat */

    long prof_runs = 0;
    uint32_t n_ops = edge_num_ops(m);
    prof.n_ops = n_ops;
    prof.total_ms = calloc(n_ops ? n_ops : 1, sizeof *prof.total_ms);
    if (!prof.total_ms) {
        edgeq_error("out of memory");
        goto done;
    }
    if (o.profile || o.json) {
        edge_set_profiler(m, profile_hook, &prof);
        for (long r = 0; r < o.repeat; r++) {
            fill_inputs(m, inputs, n_in);
            edge_status s = edge_invoke(m);
            if (s != EDGE_OK) {
                report_refusal(o.model, s, m);
                goto done;
            }
            prof_runs++;
        }
        edge_set_profiler(m, NULL, NULL);
    }

    if (write_outputs(m, &o) != 0) goto done;

    if (o.json)
        print_json(&o, &f, lat, lat_median, &prof, prof_runs ? prof_runs : 1);
    else
        print_human(&o, &f, lat, lat_median, &prof, prof_runs ? prof_runs : 1);
    rc = fflush(stdout) == 0 ? EDGEQ_EXIT_OK : EDGEQ_EXIT_FAIL;

done:
    if (inputs)
        for (uint32_t i = 0; i < n_in; i++) free(inputs[i].file);
    free(inputs);
    free(prof.total_ms);
    free(lat);
    edgeq_model_close(&f);
    free(o.inputs);
    free(o.outputs);
    free(o.labels);
    free(labels_text);
    return rc;
}
