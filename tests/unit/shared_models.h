/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shared_models.h — unit-test helpers: find ../shared/models and read a
 * model into 16-byte-aligned memory.
 */
#ifndef TEST_SHARED_MODELS_H
#define TEST_SHARED_MODELS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *shared_models_dir(void) {
    const char *env = getenv("EDGE_SHARED_MODELS");
    return env ? env : "../shared/models";
}

/* Reads `rel` (relative to the shared models folder); NULL if absent. */
static uint8_t *read_shared(const char *rel, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", shared_models_dir(), rel);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = aligned_alloc(16, ((size_t)n + 16) & ~(size_t)15);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#endif
