/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_model.c — a program built the way an edgeq user builds one (against
 * an installed libedge through pkg-config or find_package, or with the
 * sources through add_subdirectory): loads MODEL, fills its one input with
 * the bytes of INPUT, invokes, and prints the output bytes as signed
 * integers and the index of the largest.
 *
 *   run_model MODEL INPUT     exit 0; 1 when the engine refuses; 2 usage/IO
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h"

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 16)) != NULL &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: run_model MODEL INPUT\n");
        return 2;
    }
    size_t model_len = 0, input_len = 0;
    unsigned char *model_bytes = read_file(argv[1], &model_len);
    unsigned char *input = read_file(argv[2], &input_len);
    if (!model_bytes || !input) {
        fprintf(stderr, "run_model: cannot read %s\n", model_bytes ? argv[2] : argv[1]);
        return 2;
    }
    /* A generous arena (malloc aligns to 16 on the hosts this runs on: the
     * engine's EDGE_ARENA_ALIGN); edge_model.arena_needed says what the
     * model really used. */
    const size_t arena_len = 1u << 24;
    void *arena = malloc(arena_len);
    edge_model m;
    edge_status s = edge_model_init(&m, model_bytes, model_len, arena, arena_len);
    if (s != EDGE_OK) {
        fprintf(stderr, "run_model: %s: %s\n", edge_status_str(s), edge_model_error(&m));
        return 1;
    }
    edge_tensor in = edge_input(&m, 0);
    if (in.bytes != input_len) {
        fprintf(stderr, "run_model: the input has %zu bytes, the model wants %zu\n", input_len, in.bytes);
        return 2;
    }
    memcpy(in.data, input, input_len);
    s = edge_invoke(&m);
    if (s != EDGE_OK) {
        fprintf(stderr, "run_model: invoke: %s: %s\n", edge_status_str(s), edge_model_error(&m));
        return 1;
    }
    edge_tensor out = edge_output(&m, 0);
    const signed char *v = (const signed char *)out.data;
    size_t best = 0;
    printf("output:");
    for (size_t i = 0; i < out.bytes; i++) {
        printf(" %d", v[i]);
        if (v[i] > v[best]) best = i;
    }
    printf("\ntop: %zu\n", best);
    free(arena);
    free(model_bytes);
    free(input);
    return 0;
}
