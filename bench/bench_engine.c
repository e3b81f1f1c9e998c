/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_engine.c — time edge_invoke() in-process, for `make bench`.
 *
 *   bench_engine model.tflite --input in0.bin [--input in1.bin ...]
 *                [--warmup K] [--repeat N] [--output out0.bin] [--no-pack] [--serve]
 *
 * Loads the model into an arena of exactly m.arena_needed bytes, runs K
 * untimed invokes, then N timed ones, and prints one JSON object: median,
 * minimum and mean milliseconds per invoke, the arena split and the MACs
 * the engine reports. The weights are packed once (edge_model_pack, in a
 * buffer of its own, reported as pack_bytes) unless --no-pack: LiteRT's
 * XNNPACK packs its weights at init too. Inputs are raw bytes, exactly each input tensor's
 * size. The inputs are copied in before every invoke (the planner reuses an
 * input's bytes once read) outside the clock: each timed interval is one
 * edge_invoke() call and nothing else. --serve instead keeps the model
 * loaded and runs one batch per stdin line "N WARMUP", printing a JSON line
 * of its median, minimum and mean each: `make bench` interleaves short
 * batches of the peers in rounds with no process start in between, as
 * its Python peers run in one process.
 *
 * Hosted C11; links the host libedge.a whole (the op registry refers to the
 * ops weakly). Exit status: 0 ok, 1 the engine or a file failed, 2 usage.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, posix_memalign */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edge/edge.h"

#define MAX_INPUTS 8

typedef struct blob {
    void *data;
    size_t len;
} blob;

/* The whole file in a 16-byte aligned buffer (the engine reads the model's
 * flatbuffer in place). */
static int read_file(const char *path, blob *out) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_engine: cannot open %s\n", path);
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0) goto fail;
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) goto fail;
    out->len = (size_t)n;
    out->data = NULL;
    if (posix_memalign(&out->data, EDGE_ARENA_ALIGN, out->len ? out->len : 1) != 0) goto fail;
    if (out->len && fread(out->data, 1, out->len, f) != out->len) goto fail;
    fclose(f);
    return 0;
fail:
    fprintf(stderr, "bench_engine: cannot read %s\n", path);
    fclose(f);
    return -1;
}

static int write_file(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "bench_engine: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct batch_stats {
    double median, min, mean;
} batch_stats;

/* `warmup` untimed invokes, then `repeat` timed ones (the inputs copied in
 * before each, outside the clock). */
static int run_batch(edge_model *m, edge_tensor *in, const blob *inputs, int n_inputs, long warmup, long repeat,
                     batch_stats *b) {
    double *t = malloc((size_t)repeat * sizeof *t);
    if (!t) return 1;
    for (long r = -warmup; r < repeat; r++) {
        for (int i = 0; i < n_inputs; i++) memcpy(in[i].data, inputs[i].data, inputs[i].len);
        double t0 = now_ns();
        edge_status s = edge_invoke(m);
        double t1 = now_ns();
        if (s != EDGE_OK) {
            fprintf(stderr, "bench_engine: invoke: %s: %s\n", edge_status_str(s), edge_model_error(m));
            free(t);
            return 1;
        }
        if (r >= 0) t[r] = (t1 - t0) * 1e-6;
    }
    double sum = 0;
    for (long r = 0; r < repeat; r++) sum += t[r];
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    b->median = repeat % 2 ? t[repeat / 2] : 0.5 * (t[repeat / 2 - 1] + t[repeat / 2]);
    b->min = t[0];
    b->mean = sum / (double)repeat;
    free(t);
    return 0;
}

static int usage(void) {
    fprintf(stderr, "usage: bench_engine model.tflite --input FILE [--input FILE...]\n"
                    "                    [--warmup K] [--repeat N] [--output FILE] [--no-pack] [--serve]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *output_path = NULL;
    const char *input_paths[MAX_INPUTS];
    int n_inputs = 0;
    long warmup = 10, repeat = 100;
    int pack = 1, serve = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--input") && i + 1 < argc) {
            if (n_inputs == MAX_INPUTS) return usage();
            input_paths[n_inputs++] = argv[++i];
        } else if (!strcmp(a, "--output") && i + 1 < argc) {
            output_path = argv[++i];
        } else if (!strcmp(a, "--warmup") && i + 1 < argc) {
            warmup = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--repeat") && i + 1 < argc) {
            repeat = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(a, "--no-pack")) {
            pack = 0;
        } else if (!strcmp(a, "--serve")) {
            serve = 1;
        } else if (a[0] != '-' && !model_path) {
            model_path = a;
        } else {
            return usage();
        }
    }
    if (!model_path || warmup < 0 || repeat < 1) return usage();

    blob model, inputs[MAX_INPUTS];
    if (read_file(model_path, &model) != 0) return 1;
    for (int i = 0; i < n_inputs; i++)
        if (read_file(input_paths[i], &inputs[i]) != 0) return 1;

    /* The exact need, found in a generous work area; then the real arena. */
    size_t need = 0, work_len = (size_t)64 << 20;
    void *work = NULL;
    if (posix_memalign(&work, EDGE_ARENA_ALIGN, work_len) != 0) return 1;
    edge_status s = edge_model_arena_needed(model.data, model.len, work, work_len, &need);
    free(work);
    static edge_model m;
    void *arena = NULL;
    if (s == EDGE_OK && posix_memalign(&arena, EDGE_ARENA_ALIGN, need ? need : 1) != 0) return 1;
    if (s == EDGE_OK) s = edge_model_init(&m, model.data, model.len, arena, need);
    if (s != EDGE_OK) {
        fprintf(stderr, "bench_engine: %s: %s: %s\n", model_path, edge_status_str(s),
                edge_model_error(&m));
        return 1;
    }

    const size_t pack_len = pack ? edge_model_pack_needed(&m) : 0;
    void *packed = NULL;
    if (pack_len && posix_memalign(&packed, EDGE_ARENA_ALIGN, pack_len) != 0) return 1;
    if (pack_len && (s = edge_model_pack(&m, packed, pack_len)) != EDGE_OK) {
        fprintf(stderr, "bench_engine: %s: pack: %s: %s\n", model_path, edge_status_str(s), edge_model_error(&m));
        return 1;
    }

    if ((uint32_t)n_inputs != edge_num_inputs(&m)) {
        fprintf(stderr, "bench_engine: the model has %u inputs, %d given\n",
                (unsigned)edge_num_inputs(&m), n_inputs);
        return 2;
    }
    edge_tensor in[MAX_INPUTS];
    for (int i = 0; i < n_inputs; i++) {
        in[i] = edge_input(&m, (uint32_t)i);
        if (in[i].bytes != inputs[i].len) {
            fprintf(stderr, "bench_engine: input %d: %s has %zu bytes, the tensor %zu\n", i,
                    input_paths[i], inputs[i].len, in[i].bytes);
            return 1;
        }
    }

    uint64_t macs = 0;
    for (uint32_t i = 0; i < edge_num_ops(&m); i++) {
        edge_op_info info;
        if (edge_op_info_at(&m, i, &info) == EDGE_OK) macs += info.macs;
    }

    if (serve) {
        /* One batch per line "N WARMUP" on stdin, one JSON line each. */
        char line[64];
        while (fgets(line, sizeof line, stdin)) {
            long n = 0, w = 0;
            if (sscanf(line, "%ld %ld", &n, &w) != 2 || n < 1 || w < 0) break;
            batch_stats b;
            if (run_batch(&m, in, inputs, n_inputs, w, n, &b) != 0) return 1;
            printf("{\"repeat\":%ld,\"median_ms\":%.6f,\"min_ms\":%.6f,\"mean_ms\":%.6f}\n", n, b.median,
                   b.min, b.mean);
            fflush(stdout);
        }
    } else {
        batch_stats b;
        if (run_batch(&m, in, inputs, n_inputs, warmup, repeat, &b) != 0) return 1;
        if (output_path) {
            edge_tensor o = edge_output(&m, 0);
            if (write_file(output_path, o.data, o.bytes) != 0) return 1;
        }
        printf("{\"arena_bytes\":%zu,\"arena_records\":%zu,"
               "\"arena_activations\":%zu,\"pack_bytes\":%zu,\"macs\":%llu,\"ops\":%u,\"warmup\":%ld,\"repeat\":%ld,"
               "\"median_ms\":%.6f,\"min_ms\":%.6f,\"mean_ms\":%.6f}\n",
               m.arena_needed, m.arena_records, m.arena_activations, pack_len,
               (unsigned long long)macs, (unsigned)edge_num_ops(&m), warmup, repeat, b.median, b.min, b.mean);
    }
    free(packed);
    free(arena);
    for (int i = 0; i < n_inputs; i++) free(inputs[i].data);
    free(model.data);
    return 0;
}
