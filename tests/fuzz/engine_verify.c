/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_verify.c — the engine's side of the verifier differential:
 * prints "<0|1> FILE" per file, 1 when edge_verify_model (the structural
 * verifier alone, not the later semantic checks) accepts it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = aligned_alloc(16, ((size_t)n + 16) & ~(size_t)15);
        if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) return 2;
        fclose(f);
        edge_model m;
        memset(&m, 0, sizeof m);
        m.data = buf;
        m.len = (size_t)n;
        edge_status st = edge_verify_model(&m, fb_root(buf, (size_t)n));
        printf("%d %s%s%s\n", st == EDGE_OK, argv[i], st ? "\t" : "", st ? m.error : "");
        free(buf);
    }
    return 0;
}
