/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch_run.c — run a one-input model on the edgeq engine over a batch:
 *
 *   batch_run MODEL.tflite IN.bin OUT.bin
 *
 * IN.bin holds N inputs back to back (each exactly input 0's bytes, e.g. N
 * int8 images); OUT.bin gets output 0's bytes for each, in the same order.
 * One process and one model init for the whole held-out set: what
 * models/evaluate.py and tests/models use. Exit 0 ok, 1 failure, 2 usage.
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
            size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
            uint8_t *grown = aligned_alloc(EDGE_ARENA_ALIGN, ncap);
            if (!grown) break;
            if (n) memcpy(grown, buf, n);
            free(buf);
            buf = grown;
            cap = ncap;
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
    if (fp) fclose(fp);
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: batch_run MODEL.tflite IN.bin OUT.bin\n");
        return 2;
    }
    int rc = 1;
    size_t len = 0, in_len = 0;
    uint8_t *model = read_all(argv[1], &len), *in = NULL, *arena = NULL;
    FILE *out = NULL;
    if (!model) {
        fprintf(stderr, "batch_run: %s: %s\n", argv[1], strerror(errno));
        goto done;
    }
    in = read_all(argv[2], &in_len);
    if (!in) {
        fprintf(stderr, "batch_run: %s: %s\n", argv[2], strerror(errno));
        goto done;
    }
    edge_model m;
    size_t size = (size_t)1 << 16;
    edge_status s = EDGE_ERR_ARENA;
    for (int tries = 0; tries < 12 && s == EDGE_ERR_ARENA; tries++) {
        free(arena);
        arena = aligned_alloc(EDGE_ARENA_ALIGN, size);
        if (!arena) break;
        s = edge_model_init(&m, model, len, arena, size);
        if (s == EDGE_ERR_ARENA)
            size = m.arena_needed > size ? (m.arena_needed + 15) & ~(size_t)15 : size * 2;
    }
    if (s != EDGE_OK) {
        fprintf(stderr, "batch_run: %s: %s\n", argv[1],
                arena ? edge_model_error(&m) : "out of memory");
        goto done;
    }
    if (edge_num_inputs(&m) != 1 || edge_num_outputs(&m) < 1) {
        fprintf(stderr, "batch_run: %s: need a model with one input\n", argv[1]);
        goto done;
    }
    edge_tensor ti = edge_input(&m, 0);
    if (ti.bytes == 0 || in_len % ti.bytes != 0) {
        fprintf(stderr, "batch_run: %s: %zu bytes is not a whole number of %zu-byte inputs\n",
                argv[2], in_len, ti.bytes);
        goto done;
    }
    out = fopen(argv[3], "wb");
    if (!out) {
        fprintf(stderr, "batch_run: %s: %s\n", argv[3], strerror(errno));
        goto done;
    }
    for (size_t k = 0; k < in_len / ti.bytes; k++) {
        ti = edge_input(&m, 0);
        memcpy(ti.data, in + k * ti.bytes, ti.bytes);
        s = edge_invoke(&m);
        if (s != EDGE_OK) {
            fprintf(stderr, "batch_run: invoke %zu: %s: %s\n", k, edge_status_str(s),
                    edge_model_error(&m));
            goto done;
        }
        edge_tensor to = edge_output(&m, 0);
        if (fwrite(to.data, 1, to.bytes, out) != to.bytes) {
            fprintf(stderr, "batch_run: %s: %s\n", argv[3], strerror(errno));
            goto done;
        }
    }
    rc = 0;
done:
    if (out && fclose(out) != 0 && rc == 0) {
        fprintf(stderr, "batch_run: %s: %s\n", argv[3], strerror(errno));
        rc = 1;
    }
    free(arena);
    free(in);
    free(model);
    return rc;
}
