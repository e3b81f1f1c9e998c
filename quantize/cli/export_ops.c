/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_ops.c — `edgeq export --ops model.tflite...`: the header that builds
 * the engine with only the ops these models use (engine/src/ops/registry.c,
 * EDGE_OPS_HEADER). Each model is loaded as the engine loads it, so the list
 * holds exactly the implementations it picked: the int8 op, or its float
 * twin when the op's input 0 is FLOAT32 or BFLOAT16.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export_ops.h"
#include "io/file_util.h"

#define MAX_CODES 256 /* builtin codes tracked (TFLite has about 210) */

/* used[code]: bit 0 the int8 op, bit 1 the float twin. */
typedef struct op_set {
    unsigned char used[MAX_CODES];
    const char *name[MAX_CODES];
} op_set;

static int add_model(op_set *s, const char *path) {
    edgeq_model_file mf;
    int rc = edgeq_model_open(&mf, path, 0);
    if (rc == EDGEQ_EXIT_OK) {
        for (uint32_t i = 0; i < edge_num_ops(&mf.m); i++) {
            edge_op_info info;
            if (edge_op_info_at(&mf.m, i, &info) != EDGE_OK || info.builtin_code < 0 ||
                info.builtin_code >= MAX_CODES) {
                edgeq_error("%s: op %u: no op info", path, i);
                rc = EDGEQ_EXIT_FAIL;
                break;
            }
            int is_float = 0;
            if (info.n_inputs > 0 && info.io[0] >= 0) {
                const edge_type t = edge_tensor_at(&mf.m, (uint32_t)info.io[0]).type;
                is_float = t == EDGE_FLOAT32 || t == EDGE_BFLOAT16;
            }
            s->used[info.builtin_code] |= (unsigned char)(is_float ? 2 : 1);
            s->name[info.builtin_code] = info.name;
        }
    }
    edgeq_model_close(&mf);
    return rc;
}

/* "CONV_2D" -> "conv_2d": the op's name in ops.h's lists. */
static void put_ident(FILE *fp, const char *name, const char *suffix) {
    fputs("    X(", fp);
    for (const char *p = name; *p; p++)
        fputc(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p, fp);
    fprintf(fp, "%s) \\\n", suffix);
}

static int write_header(FILE *fp, const op_set *s, const char *const *paths, int n) {
    fprintf(fp, "/* The engine ops these models use, written by `" EDGEQ_PROGRAM
                " export --ops` (libedge %s):\n",
            EDGE_VERSION_STRING);
    for (int i = 0; i < n; i++) {
        const char *base = strrchr(paths[i], '/');
        base = base ? base + 1 : paths[i];
        fputs(" *   ", fp);
        for (const char *p = base; *p; p++) /* keep the comment a comment */
            fputc((*p == '*' && p[1] == '/') || *p < 0x20 ? '_' : *p, fp);
        fputc('\n', fp);
    }
    fprintf(fp,
            " * Build the engine's engine/src/ops/registry.c with\n"
            " *   -DEDGE_OPS_HEADER='\"<this file>\"'\n"
            " * and only these ops are linked in. Generated: do not edit. */\n"
            "#ifndef EDGEQ_MODEL_OPS_H\n"
            "#define EDGEQ_MODEL_OPS_H\n\n");
    for (int pass = 0; pass < 2; pass++) {
        fprintf(fp, "#define %s(X) \\\n", pass ? "EDGE_FLOAT_OPS" : "EDGE_OPS");
        for (int c = 0; c < MAX_CODES; c++)
            if (s->used[c] & (1 << pass)) put_ident(fp, s->name[c], pass ? "_f" : "");
        fputs("    /* end */\n\n", fp);
    }
    fputs("#endif\n", fp);
    return ferror(fp) ? -1 : 0;
}

int edgeq_export_ops(const char *const *paths, int n, const char *out) {
    op_set s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < n; i++)
        if (add_model(&s, paths[i]) != EDGEQ_EXIT_OK) return EDGEQ_EXIT_FAIL;
    char err[512];
    if (!out) {
        if (write_header(stdout, &s, paths, n) != 0 || fflush(stdout) != 0) {
            edgeq_error("writing to stdout failed");
            return EDGEQ_EXIT_FAIL;
        }
        return EDGEQ_EXIT_OK;
    }
    edgeq_atomic_file af;
    if (edgeq_atomic_open(&af, out, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }
    if (write_header(af.fp, &s, paths, n) != 0) {
        edgeq_atomic_abort(&af);
        edgeq_error("%s: write failed: %s", out, strerror(errno));
        return EDGEQ_EXIT_FAIL;
    }
    if (edgeq_atomic_commit(&af, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }
    return EDGEQ_EXIT_OK;
}
