/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_inspect.c — `edgeq inspect`: what the engine makes of a model (its
 * tensors, operators and arena plan), or the dtype and shape of an .npy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/file_util.h"
#include "io/npy.h"

static void inspect_help(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " inspect <model.tflite> [--json]\n"
            "       " EDGEQ_PROGRAM " inspect <array.npy> [--json]\n"
            "\n"
            "For a model: load it on the edgeq engine and list its tensors (type, shape,\n"
            "quantization, bytes, constant or arena offset), its operators (inputs ->\n"
            "outputs, MACs, systolic kernel or CPU, array cycles, scratch, and which inputs\n"
            "its output may overlap when they die at it: 'in0<=-256' = output offset at most\n"
            "input 0's - 256, '|>=8832' or at least input 0's + 8832 running backwards;\n"
            "fused pairs: 'runs op 3', the tensor between them 'rows@op2') and the arena plan\n"
            "(records + activations, and each planned tensor's offset and lifetime;\n"
            "overlapping rows are such streaming pairs).\n"
            "For an .npy file: its format version, dtype, shape and size.\n"
            "\n"
            "  --json   print one JSON object instead\n"
            "\n"
            "exit codes: 0 ok; 1 the engine refused the model (the message says why) or the\n"
            "file is unreadable or malformed; 2 usage error.\n");
}

/* ---- .npy ---- */

static int inspect_npy(const char *path, int json) {
    uint8_t *buf;
    size_t len;
    char err[512];
    if (edgeq_read_file_limit(path, 16, (size_t)1 << 30, &buf, &len, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }
    edgeq_npy a;
    if (edgeq_npy_parse(buf, len, path, &a, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        free(buf);
        return EDGEQ_EXIT_FAIL;
    }
    const char *dtype = edgeq_npy_dtype_name(a.kind, a.itemsize);
    if (json) {
        fputs("{\"file\":", stdout);
        edgeq_json_string(stdout, path);
        printf(",\"npy_version\":%u,\"dtype\":\"%s\",\"shape\":[", a.version, dtype);
        for (uint32_t i = 0; i < a.rank; i++)
            printf("%s%llu", i ? "," : "", (unsigned long long)a.shape[i]);
        printf("],\"count\":%zu,\"bytes\":%zu}\n", a.count, a.bytes);
    } else {
        printf("%s: .npy v%u.0, %s, shape (", path, a.version, dtype);
        for (uint32_t i = 0; i < a.rank; i++)
            printf("%s%llu", i ? ", " : "", (unsigned long long)a.shape[i]);
        printf("%s), %zu element%s, %zu data bytes\n", a.rank == 1 ? "," : "", a.count,
               a.count == 1 ? "" : "s", a.bytes);
        if (a.count) {
            printf("  values ");
            for (size_t k = 0; k < a.count && k < 8; k++)
                printf("%s%.6g", k ? ", " : "", edgeq_npy_get_f64(&a, k));
            printf("%s\n", a.count > 8 ? ", ..." : "");
        }
    }
    free(buf);
    return fflush(stdout) == 0 ? EDGEQ_EXIT_OK : EDGEQ_EXIT_FAIL;
}

/* ---- a model ---- */

typedef struct tensor_row {
    edge_tensor t;
    int64_t offset;    /* planned arena offset, or -1 */
    int is_const;      /* data lies in the model file */
    int in_arena;      /* data lies in the arena (planned or a view) */
    int64_t first_op;  /* lifetime: first and last op touching it, -1 if none */
    int64_t last_op;
    int graph_input;   /* input index, or -1 */
    int graph_output;  /* output index, or -1 */
    int fused_in;      /* only ever rows inside this (fused) op's scratch, or -1 */
} tensor_row;

static int ptr_in(const void *p, const void *base, size_t len) {
    const uint8_t *q = p, *b = base;
    return p && base && q >= b && q < b + len;
}

/* Graph inputs/outputs are known only as views: find the tensor index of a
 * view by its name and data pointer (a reshape may share the data). */
static int64_t find_tensor(const tensor_row *rows, uint32_t n, const edge_tensor *v) {
    for (uint32_t i = 0; i < n; i++)
        if (rows[i].t.data == v->data && rows[i].t.name == v->name) return i;
    for (uint32_t i = 0; i < n; i++)
        if (rows[i].t.data == v->data && v->name && rows[i].t.name &&
            strcmp(rows[i].t.name, v->name) == 0)
            return i;
    return -1;
}

static void touch(tensor_row *r, int64_t op) {
    if (r->first_op < 0 || op < r->first_op) r->first_op = op;
    if (op > r->last_op) r->last_op = op;
}

static void print_io(FILE *fp, const int32_t *io, uint32_t n, int json) {
    fputc('[', fp);
    for (uint32_t k = 0; k < n; k++) {
        if (io[k] < 0)
            fprintf(fp, "%s%s", k ? "," : "", json ? "null" : "-");
        else
            fprintf(fp, "%s%d", k ? "," : "", (int)io[k]);
    }
    fputc(']', fp);
}

#define CHART_COLS 64

static void print_plan_chart(const tensor_row *rows, uint32_t n_tensors, uint32_t n_ops) {
    /* planned tensors by offset */
    uint32_t *order = malloc((n_tensors ? n_tensors : 1) * sizeof *order);
    uint32_t n = 0;
    if (!order) return;
    for (uint32_t i = 0; i < n_tensors; i++)
        if (rows[i].offset >= 0) order[n++] = i;
    for (uint32_t x = 1; x < n; x++) /* insertion sort: offset, then lifetime */
        for (uint32_t y = x; y > 0; y--) {
            const tensor_row *p = &rows[order[y - 1]], *q = &rows[order[y]];
            if (p->offset < q->offset || (p->offset == q->offset && p->first_op <= q->first_op))
                break;
            uint32_t tmp = order[y - 1];
            order[y - 1] = order[y];
            order[y] = tmp;
        }
    if (!n || !n_ops) {
        free(order);
        return;
    }
    uint32_t cols = n_ops < CHART_COLS ? n_ops : CHART_COLS;
    printf("\nplanned tensors (one row each, by offset; columns: ops 0..%u%s, '#' = live)\n",
           n_ops - 1, cols < n_ops ? ", several ops per column" : "");
    printf("  %10s %10s  %-6s |%*s|\n", "offset", "bytes", "tensor", (int)cols, "");
    for (uint32_t k = 0; k < n; k++) {
        const tensor_row *r = &rows[order[k]];
        char bar[CHART_COLS + 1];
        for (uint32_t c = 0; c < cols; c++) {
            /* column c covers ops [c*n_ops/cols, (c+1)*n_ops/cols) */
            int64_t lo = (int64_t)((uint64_t)c * n_ops / cols);
            int64_t hi = (int64_t)((uint64_t)(c + 1) * n_ops / cols) - 1;
            int live = r->first_op >= 0 && r->first_op <= hi && r->last_op >= lo;
            bar[c] = live ? '#' : '.';
        }
        bar[cols] = 0;
        printf("  %10lld %10zu  %-6u |%s| %s\n", (long long)r->offset, r->t.bytes, order[k], bar,
               r->t.name && *r->t.name ? r->t.name : "");
    }
    free(order);
}

static void print_model_human(const char *path, edgeq_model_file *f, tensor_row *rows,
                              uint32_t n_tensors) {
    edge_model *m = &f->m;
    uint32_t n_ops = edge_num_ops(m);
    uint32_t n_in = edge_num_inputs(m), n_out = edge_num_outputs(m);
    printf("model  %s (%zu bytes): %u tensor%s, %u op%s, %u input%s, %u output%s\n", path,
           f->file_len, n_tensors, n_tensors == 1 ? "" : "s", n_ops, n_ops == 1 ? "" : "s", n_in,
           n_in == 1 ? "" : "s", n_out, n_out == 1 ? "" : "s");
    printf("\ntensors\n");
    printf("  %5s  %-8s %-18s %12s %6s %10s  %-14s %s\n", "#", "type", "shape", "scale", "zp",
           "bytes", "where", "name");
    for (uint32_t i = 0; i < n_tensors; i++) {
        const tensor_row *r = &rows[i];
        char shape[128], where[48], scale[24], zp[16];
        edgeq_shape_str(&r->t, shape, sizeof shape);
        if (r->is_const)
            snprintf(where, sizeof where, "const");
        else if (r->offset >= 0)
            snprintf(where, sizeof where, "arena@%lld", (long long)r->offset);
        else if (r->in_arena)
            snprintf(where, sizeof where, "view");
        else if (r->fused_in >= 0)
            snprintf(where, sizeof where, "rows@op%d", r->fused_in);
        else
            snprintf(where, sizeof where, "-");
        if (r->graph_input >= 0)
            snprintf(where + strlen(where), sizeof where - strlen(where), " in%d", r->graph_input);
        if (r->graph_output >= 0)
            snprintf(where + strlen(where), sizeof where - strlen(where), " out%d",
                     r->graph_output);
        if (r->t.scale != 0) {
            snprintf(scale, sizeof scale, "%.6g", (double)r->t.scale);
            snprintf(zp, sizeof zp, "%d", (int)r->t.zero_point);
        } else {
            snprintf(scale, sizeof scale, "-");
            snprintf(zp, sizeof zp, "-");
        }
        printf("  %5u  %-8s %-18s %12s %6s %10zu  %-14s %s\n", i, edge_type_name(r->t.type),
               shape, scale, zp, r->t.bytes, where, r->t.name ? r->t.name : "");
    }
    printf("\nops\n");
    printf("  %5s  %-22s %-28s %14s  %-8s %12s %9s  %s\n", "#", "op", "inputs -> outputs", "MACs",
           "unit", "cycles", "scratch", "stream");
    uint64_t macs = 0, cycles = 0;
    uint32_t systolic = 0;
    for (uint32_t k = 0; k < n_ops; k++) {
        edge_op_info info;
        memset(&info, 0, sizeof info);
        if (edge_op_info_at(m, k, &info) != EDGE_OK) {
            printf("  %5u  (no info)\n", k);
            continue;
        }
        char io[512]; /* "[a,b,-] -> [c]", built first so the column lines up */
        size_t at = 0;
        io[0] = 0;
        for (int side = 0; side < 2; side++) {
            uint32_t from = side ? info.n_inputs : 0;
            uint32_t cnt = side ? info.n_outputs : info.n_inputs;
            int n = snprintf(io + at, sizeof io - at, "%s[", side ? " -> " : "");
            if (n > 0 && (size_t)n < sizeof io - at) at += (size_t)n;
            for (uint32_t q = 0; q < cnt && at < sizeof io - 16; q++) {
                int32_t idx = info.io ? info.io[from + q] : -1;
                n = idx < 0 ? snprintf(io + at, sizeof io - at, "%s-", q ? "," : "")
                            : snprintf(io + at, sizeof io - at, "%s%d", q ? "," : "", (int)idx);
                if (n > 0 && (size_t)n < sizeof io - at) at += (size_t)n;
            }
            n = snprintf(io + at, sizeof io - at, "]");
            if (n > 0 && (size_t)n < sizeof io - at) at += (size_t)n;
        }
        char stream[80] = "-";
        size_t sa = 0;
        for (uint32_t q = 0; q < 32 && sa + 24 < sizeof stream; q++)
            if (info.stream_inputs & (1u << q)) {
                sa += (size_t)snprintf(stream + sa, sizeof stream - sa, "%sin%u<=%d", sa ? "," : "", q,
                                       (int)info.stream_limit);
                if (info.stream_limit_reverse != INT32_MAX && sa < sizeof stream)
                    sa += (size_t)snprintf(stream + sa, sizeof stream - sa, "|>=%d%s",
                                           (int)info.stream_limit_reverse, info.stream_reverse ? " (runs backwards)" : "");
            }
        if (info.fused == 1)
            snprintf(stream + sa, sizeof stream - sa, "%sruns op %u", sa ? ", " : "", k + 1);
        else if (info.fused == 2)
            snprintf(stream, sizeof stream, "runs in op %u", k - 1);
        printf("  %5u  %-22s %-28s %14llu  %-8s %12llu %9u  %s\n", k, info.name ? info.name : "?",
               io, (unsigned long long)info.macs, info.systolic ? "systolic" : "cpu",
               (unsigned long long)info.array_cycles, info.scratch_bytes, stream);
        macs += info.macs;
        cycles += info.array_cycles;
        systolic += info.systolic ? 1u : 0u;
    }
    printf("  %5s  %u of %u ops on the systolic kernel, %llu MACs, %llu array cycles\n", "",
           systolic, n_ops, (unsigned long long)macs, (unsigned long long)cycles);
    printf("\narena  %zu bytes = records %zu + activations %zu\n", m->arena_needed,
           m->arena_records, m->arena_activations);
    print_plan_chart(rows, n_tensors, n_ops);
}

static void print_model_json(const char *path, edgeq_model_file *f, tensor_row *rows,
                             uint32_t n_tensors) {
    edge_model *m = &f->m;
    FILE *fp = stdout;
    uint32_t n_ops = edge_num_ops(m);
    fputs("{\"model\":", fp);
    edgeq_json_string(fp, path);
    fprintf(fp, ",\"model_bytes\":%zu,\"arena_bytes\":%zu,\"arena_records\":%zu,"
                "\"arena_activations\":%zu,\"inputs\":[",
            f->file_len, m->arena_needed, m->arena_records, m->arena_activations);
    int first = 1;
    for (uint32_t io = 0; io < 2; io++) {
        uint32_t want = io ? edge_num_outputs(m) : edge_num_inputs(m);
        if (io) fputs("],\"outputs\":[", fp);
        first = 1;
        for (uint32_t k = 0; k < want; k++) {
            int64_t idx = -1;
            for (uint32_t i = 0; i < n_tensors && idx < 0; i++)
                if ((io ? rows[i].graph_output : rows[i].graph_input) == (int)k) idx = i;
            fprintf(fp, "%s%lld", first ? "" : ",", (long long)idx);
            first = 0;
        }
    }
    fputs("],\"tensors\":[", fp);
    for (uint32_t i = 0; i < n_tensors; i++) {
        const tensor_row *r = &rows[i];
        fprintf(fp, "%s{\"index\":%u,\"name\":", i ? "," : "", i);
        edgeq_json_string(fp, r->t.name);
        fputs(",\"type\":", fp);
        edgeq_json_string(fp, edge_type_name(r->t.type));
        fputs(",\"shape\":[", fp);
        for (int32_t d = 0; d < r->t.rank && d < EDGE_MAX_DIMS; d++)
            fprintf(fp, "%s%d", d ? "," : "", (int)r->t.dims[d]);
        fputs("],\"scale\":", fp);
        edgeq_json_number(fp, (double)r->t.scale);
        fprintf(fp, ",\"zero_point\":%d,\"bytes\":%zu,\"const\":%s,", (int)r->t.zero_point, r->t.bytes,
                r->is_const ? "true" : "false");
        if (r->fused_in >= 0) fprintf(fp, "\"rows_in_op\":%d,", r->fused_in);
        fputs("\"arena_offset\":", fp);
        if (r->offset >= 0)
            fprintf(fp, "%lld", (long long)r->offset);
        else
            fputs("null", fp);
        if (r->first_op >= 0)
            fprintf(fp, ",\"first_op\":%lld,\"last_op\":%lld}", (long long)r->first_op,
                    (long long)r->last_op);
        else
            fputs(",\"first_op\":null,\"last_op\":null}", fp);
    }
    fputs("],\"ops\":[", fp);
    for (uint32_t k = 0; k < n_ops; k++) {
        edge_op_info info;
        memset(&info, 0, sizeof info);
        edge_status s = edge_op_info_at(m, k, &info);
        fprintf(fp, "%s{\"index\":%u,\"name\":", k ? "," : "", k);
        edgeq_json_string(fp, s == EDGE_OK && info.name ? info.name : "?");
        fprintf(fp, ",\"builtin_code\":%d,\"inputs\":", (int)info.builtin_code);
        if (info.io)
            print_io(fp, info.io, info.n_inputs, 1);
        else
            fputs("[]", fp);
        fputs(",\"outputs\":", fp);
        if (info.io)
            print_io(fp, info.io + info.n_inputs, info.n_outputs, 1);
        else
            fputs("[]", fp);
        fprintf(fp, ",\"macs\":%llu,\"systolic\":%s,\"array_cycles\":%llu,\"scratch_bytes\":%u",
                (unsigned long long)info.macs, info.systolic ? "true" : "false",
                (unsigned long long)info.array_cycles, info.scratch_bytes);
        fputs(",\"stream_inputs\":[", fp);
        for (uint32_t q = 0, n = 0; q < 32; q++)
            if (info.stream_inputs & (1u << q)) fprintf(fp, "%s%u", n++ ? "," : "", q);
        fprintf(fp, "],\"stream_limit\":%d,\"stream_limit_reverse\":", (int)info.stream_limit);
        if (info.stream_limit_reverse != INT32_MAX)
            fprintf(fp, "%d", (int)info.stream_limit_reverse);
        else
            fputs("null", fp);
        fprintf(fp, ",\"stream_reverse\":%s,\"fused\":%u}", info.stream_reverse ? "true" : "false",
                (unsigned)info.fused);
    }
    fputs("]}\n", fp);
}

static int inspect_model(const char *path, int json) {
    edgeq_model_file f;
    int rc = edgeq_model_open(&f, path, 0);
    tensor_row *rows = NULL;
    if (rc != EDGEQ_EXIT_OK) goto done;
    edge_model *m = &f.m;
    uint32_t n_tensors = edge_num_tensors(m), n_ops = edge_num_ops(m);
    rows = calloc(n_tensors ? n_tensors : 1, sizeof *rows);
    if (!rows) {
        edgeq_error("out of memory");
        rc = EDGEQ_EXIT_FAIL;
        goto done;
    }
    for (uint32_t i = 0; i < n_tensors; i++) {
        tensor_row *r = &rows[i];
        r->t = edge_tensor_at(m, i);
        r->offset = edge_tensor_arena_offset(m, i);
        r->is_const = ptr_in(r->t.data, f.file, f.file_len);
        r->in_arena = ptr_in(r->t.data, f.arena, f.arena_len);
        r->first_op = r->last_op = -1;
        r->graph_input = r->graph_output = -1;
        r->fused_in = -1;
    }
    for (uint32_t k = 0; k < edge_num_inputs(m); k++) {
        edge_tensor v = edge_input(m, k);
        int64_t idx = find_tensor(rows, n_tensors, &v);
        if (idx >= 0) {
            rows[idx].graph_input = (int)k;
            touch(&rows[idx], 0); /* alive from the start */
        }
    }
    for (uint32_t k = 0; k < n_ops; k++) {
        edge_op_info info;
        if (edge_op_info_at(m, k, &info) != EDGE_OK || !info.io) continue;
        for (uint32_t q = 0; q < info.n_inputs + info.n_outputs; q++)
            if (info.io[q] >= 0 && (uint32_t)info.io[q] < n_tensors) touch(&rows[info.io[q]], k);
        const int32_t x = info.n_outputs ? info.io[info.n_inputs] : -1;
        if (info.fused == 1 && x >= 0 && (uint32_t)x < n_tensors) rows[x].fused_in = (int)k;
    }
    for (uint32_t k = 0; k < edge_num_outputs(m); k++) {
        edge_tensor v = edge_output(m, k);
        int64_t idx = find_tensor(rows, n_tensors, &v);
        if (idx >= 0) {
            rows[idx].graph_output = (int)k;
            if (n_ops) touch(&rows[idx], (int64_t)n_ops - 1); /* alive to the end */
        }
    }
    if (json)
        print_model_json(path, &f, rows, n_tensors);
    else
        print_model_human(path, &f, rows, n_tensors);
    rc = fflush(stdout) == 0 ? EDGEQ_EXIT_OK : EDGEQ_EXIT_FAIL;
done:
    free(rows);
    edgeq_model_close(&f);
    return rc;
}

int edgeq_cmd_inspect(int argc, char **argv) {
    const char *path = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            inspect_help(stdout);
            return EDGEQ_EXIT_OK;
        }
        if (strcmp(a, "--json") == 0)
            json = 1;
        else if (a[0] == '-' && a[1])
            return edgeq_usage("inspect", "unknown option '%s'", a);
        else if (path)
            return edgeq_usage("inspect", "one file at a time ('%s' and '%s')", path, a);
        else
            path = a;
    }
    if (!path) return edgeq_usage("inspect", "no file given");
    if (edgeq_has_ext(path, ".npy")) return inspect_npy(path, json);
    return inspect_model(path, json);
}
