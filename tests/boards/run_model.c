/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_model.c — the smallest model runner, for comparing a board build of
 * the engine with the host build on the same inputs (tests/boards):
 *
 *   run_model MODEL.tflite  IN_0.. OUT_0..  [IN_0.. OUT_0.. ...]
 *   run_model MODEL.tflite             (lists the inputs and outputs)
 *
 * After the model come groups of files: one raw input file per model input
 * (exactly the tensor's bytes), then one output file per model output to
 * write. Each group is one invoke, so many inputs cost one process (and
 * one QEMU start). Exit 0 on success, 1 on any failure, 2 on usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h"

static uint8_t *read_all(const char *path, size_t *len) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            uint8_t *grown = aligned_alloc(EDGE_ARENA_ALIGN, cap);
            if (!grown) break;
            if (n) memcpy(grown, buf, n);
            free(buf);
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, fp);
        n += got;
        if (got == 0) {
            int bad = ferror(fp);
            fclose(fp);
            if (bad) break;
            *len = n;
            return buf;
        }
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: run_model MODEL.tflite IN_0.. OUT_0.. [IN_0.. OUT_0.. ...]\n");
        return 2;
    }
    size_t len = 0;
    uint8_t *model = read_all(argv[1], &len);
    if (!model) {
        fprintf(stderr, "run_model: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    edge_model m;
    uint8_t *arena = NULL;
    size_t size = 1 << 18;
    edge_status s = EDGE_ERR_ARENA;
    for (int tries = 0; tries < 8 && s == EDGE_ERR_ARENA; tries++) {
        free(arena);
        arena = aligned_alloc(EDGE_ARENA_ALIGN, size);
        if (!arena) break;
        s = edge_model_init(&m, model, len, arena, size);
        if (s == EDGE_ERR_ARENA) size = m.arena_needed > size ? (m.arena_needed + 15) & ~(size_t)15 : size * 2;
    }
    if (s != EDGE_OK) {
        fprintf(stderr, "run_model: %s: %s: %s\n", argv[1], edge_status_str(s), edge_model_error(&m));
        return 1;
    }
    const int n_in = (int)edge_num_inputs(&m), n_out = (int)edge_num_outputs(&m);
    const int group = n_in + n_out;
    if (argc == 2) {
        /* "input 0 int8 9216" per tensor: what the tests need to make inputs. */
        for (int i = 0; i < n_in + n_out; i++) {
            edge_tensor t = i < n_in ? edge_input(&m, (uint32_t)i) : edge_output(&m, (uint32_t)(i - n_in));
            printf("%s %d %s %zu\n", i < n_in ? "input" : "output", i < n_in ? i : i - n_in,
                   edge_type_name(t.type), t.bytes);
        }
        return 0;
    }
    if (group == 0 || (argc - 2) % group != 0) {
        fprintf(stderr, "run_model: the model has %d inputs and %d outputs: give groups of %d files\n",
                n_in, n_out, group);
        return 2;
    }
    for (int g = 2; g < argc; g += group) {
        for (int i = 0; i < n_in; i++) {
            edge_tensor t = edge_input(&m, (uint32_t)i);
            size_t got = 0;
            uint8_t *data = read_all(argv[g + i], &got);
            if (!data || got != t.bytes) {
                fprintf(stderr, "run_model: %s: %s (input %d needs %zu bytes)\n", argv[g + i],
                        data ? "wrong size" : strerror(errno), i, t.bytes);
                return 1;
            }
            memcpy(t.data, data, t.bytes);
            free(data);
        }
        s = edge_invoke(&m);
        if (s != EDGE_OK) {
            fprintf(stderr, "run_model: invoke: %s: %s\n", edge_status_str(s), edge_model_error(&m));
            return 1;
        }
        for (int o = 0; o < n_out; o++) {
            edge_tensor t = edge_output(&m, (uint32_t)o);
            const char *path = argv[g + n_in + o];
            FILE *fp = fopen(path, "wb");
            if (!fp || fwrite(t.data, 1, t.bytes, fp) != t.bytes || fclose(fp) != 0) {
                fprintf(stderr, "run_model: %s: %s\n", path, strerror(errno));
                return 1;
            }
        }
    }
    free(arena);
    free(model);
    return 0;
}
