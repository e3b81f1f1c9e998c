/* SPDX-License-Identifier: Apache-2.0 */
/*
 * threads.c — "no global state" under ThreadSanitizer: several models
 * loaded and invoked at once from several threads, each thread with its own
 * edge_model structs, arenas and packed-weight buffers, all sharing the
 * read-only model bytes. Every output must be the bytes the same model gave
 * on its own, single-threaded, before the threads started.
 *
 *   threads [-t THREADS] [-r ROUNDS] model.tflite...
 *
 * Exit 0: every output matched (TSan, built with -fsanitize=thread,
 * reports any data race and exits non-zero itself). Exit 1: a mismatch or
 * a load that failed in a thread but not alone. Exit 2: usage, or no
 * model loaded at all. Files the engine refuses are skipped (said on
 * stderr), so a whole fixtures folder can be given.
 *
 * `-s` (a self-check of the test, not part of the suite): every thread
 * also invokes one shared context, the misuse the engine does not allow;
 * TSan must then report a race (exit 66 under `make test-tsan`'s options).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edge/edge.h"

#define MAX_MODELS 512
#define WORK_BYTES (64u << 20)

typedef struct model_ref {
    const char *path;
    uint8_t *data;
    size_t len, arena_bytes;
    int pack; /* also run with packed weights */
    uint32_t n_in, n_out;
    size_t in_bytes[8], out_bytes[8];
    uint8_t *in[8], *out[8]; /* the inputs, and the single-threaded outputs */
} model_ref;

static model_ref models[MAX_MODELS];
static int n_models;
static int rounds = 3;
static int share; /* -s: also race on one shared context */
static edge_model shared_m;

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = n > 0 ? aligned_alloc(16, ((size_t)n + 15) & ~(size_t)15) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void *arena_alloc(size_t n) { return aligned_alloc(16, (n + 15) & ~(size_t)15); }

/* Load, fill the inputs, invoke; 0 on success. Outputs compared against
 * (or, with record set, stored into) the reference. */
static int run_once(model_ref *r, int packed, int record, char *why, size_t why_len) {
    edge_model m;
    void *arena = arena_alloc(r->arena_bytes);
    void *pack = NULL;
    int rc = 1;
    if (!arena) return snprintf(why, why_len, "out of memory"), 1;
    edge_status st = edge_model_init(&m, r->data, r->len, arena, r->arena_bytes);
    if (st != EDGE_OK) {
        snprintf(why, why_len, "init: %s", m.error);
        goto done;
    }
    if (packed) {
        const size_t n = edge_model_pack_needed(&m);
        if (n) {
            pack = malloc(n);
            if (!pack || edge_model_pack(&m, pack, n) != EDGE_OK) {
                snprintf(why, why_len, "pack failed");
                goto done;
            }
        }
    }
    for (uint32_t i = 0; i < r->n_in; i++) {
        edge_tensor t = edge_input(&m, i);
        memcpy(t.data, r->in[i], r->in_bytes[i]);
    }
    st = edge_invoke(&m);
    if (st != EDGE_OK) {
        snprintf(why, why_len, "invoke: %s", m.error);
        goto done;
    }
    for (uint32_t i = 0; i < r->n_out; i++) {
        edge_tensor t = edge_output(&m, i);
        if (record) {
            r->out[i] = malloc(t.bytes ? t.bytes : 1);
            memcpy(r->out[i], t.data, t.bytes);
        } else if (memcmp(r->out[i], t.data, r->out_bytes[i]) != 0) {
            snprintf(why, why_len, "output %u differs from the single-threaded run%s", i,
                     packed ? " (packed weights)" : "");
            goto done;
        }
    }
    rc = 0;
done:
    free(pack);
    free(arena);
    return rc;
}

static int prepare(model_ref *r) {
    void *work = malloc(WORK_BYTES);
    size_t need = 0;
    edge_status st = edge_model_arena_needed(r->data, r->len, work, WORK_BYTES, &need);
    free(work);
    if (st != EDGE_OK) return -1;
    r->arena_bytes = need;
    edge_model m;
    void *arena = arena_alloc(need);
    if (edge_model_init(&m, r->data, r->len, arena, need) != EDGE_OK) {
        free(arena);
        return -1;
    }
    r->n_in = edge_num_inputs(&m);
    r->n_out = edge_num_outputs(&m);
    if (r->n_in > 8 || r->n_out > 8) {
        free(arena);
        return -1;
    }
    for (uint32_t i = 0; i < r->n_in; i++) {
        edge_tensor t = edge_input(&m, i);
        r->in_bytes[i] = t.bytes;
        r->in[i] = malloc(t.bytes ? t.bytes : 1);
        /* Deterministic bytes; float inputs kept finite and small. */
        for (size_t b = 0; b < t.bytes; b++) r->in[i][b] = (uint8_t)((b * 37u + i * 11u + 5u) & 0xff);
        if (t.type == EDGE_FLOAT32)
            for (size_t k = 0; k < t.bytes / 4; k++) {
                float v = (float)((int)((k * 7u + i) % 21u) - 10) / 4.0f;
                memcpy(r->in[i] + 4 * k, &v, 4);
            }
    }
    for (uint32_t i = 0; i < r->n_out; i++) r->out_bytes[i] = edge_output(&m, i).bytes;
    r->pack = edge_model_pack_needed(&m) != 0;
    free(arena);
    char why[256];
    if (run_once(r, 0, 1, why, sizeof why) != 0) return -1;
    return 0;
}

typedef struct worker {
    int id, failures;
    char why[512];
} worker;

static void *work_fn(void *arg) {
    worker *w = (worker *)arg;
    for (int k = 0; k < rounds; k++)
        for (int j = 0; j < n_models; j++) {
            /* Each thread walks the models in its own order. */
            model_ref *r = &models[(j * 7 + w->id * 3 + k) % n_models];
            const int packed = r->pack && ((j + w->id + k) & 1);
            char why[256];
            if (share) (void)edge_invoke(&shared_m);
            if (run_once(r, packed, 0, why, sizeof why) != 0) {
                if (!w->failures++)
                    snprintf(w->why, sizeof w->why, "thread %d: %s: %s", w->id, r->path, why);
            }
        }
    return NULL;
}

int main(int argc, char **argv) {
    int threads = 4;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "-s")) {
            share = 1;
            a--;
            continue;
        }
        if (a + 1 >= argc) return fprintf(stderr, "usage: threads [-t N] [-r N] model...\n"), 2;
        if (!strcmp(argv[a], "-t")) threads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-r")) rounds = atoi(argv[a + 1]);
        else return fprintf(stderr, "unknown option %s\n", argv[a]), 2;
    }
    if (threads < 2 || threads > 64 || rounds < 1) return fprintf(stderr, "bad -t or -r\n"), 2;
    for (; a < argc && n_models < MAX_MODELS; a++) {
        model_ref *r = &models[n_models];
        memset(r, 0, sizeof *r);
        r->path = argv[a];
        r->data = read_file(argv[a], &r->len);
        if (!r->data || prepare(r) != 0) {
            fprintf(stderr, "skipped (does not load or run alone): %s\n", argv[a]);
            continue;
        }
        n_models++;
    }
    if (n_models == 0) return fprintf(stderr, "no model loaded\n"), 2;
    if (share && edge_model_init(&shared_m, models[0].data, models[0].len, arena_alloc(models[0].arena_bytes),
                                 models[0].arena_bytes) != EDGE_OK)
        return fprintf(stderr, "shared context: %s\n", shared_m.error), 2;
    pthread_t tid[64];
    worker w[64];
    for (int i = 0; i < threads; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].id = i;
        if (pthread_create(&tid[i], NULL, work_fn, &w[i]) != 0) return fprintf(stderr, "pthread_create\n"), 2;
    }
    int failures = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        if (w[i].failures) fprintf(stderr, "%s (%d failures)\n", w[i].why, w[i].failures);
        failures += w[i].failures;
    }
    int packed = 0;
    for (int j = 0; j < n_models; j++) packed += models[j].pack;
    printf("%d models (%d with packed weights), %d threads x %d rounds: %s\n", n_models, packed, threads,
           rounds, failures ? "MISMATCH" : "every output as single-threaded");
    return failures ? 1 : 0;
}
