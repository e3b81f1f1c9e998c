/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_keras_h5.c — libFuzzer harness for the whole Keras loader as edgeq
 * runs it on a file: HDF5 (.h5, through libhdf5 and keras_h5.c) or a
 * .keras zip (keras_zip.c, its model.weights.h5 opened by libhdf5 from
 * memory), then the config walker and shape inference with the real
 * weights. The input is written to a temporary file and loaded.
 *
 * In-process (EDGEQ_KERAS_INPROCESS=1), unlike edgeq, which parses in a
 * forked child because libhdf5 1.10.8 crashes and hangs on some damaged
 * files by itself (keras_load.c). A fork per input would hide the child's
 * coverage from libFuzzer and run at ~30 inputs/s; in-process, a crash is
 * reported with its stack, and one inside libhdf5 (not instrumented: a
 * SEGV or a hang, its frames in libhdf5.so) is libhdf5's, absorbed by
 * edgeq's child, while a sanitizer report in quantize/ is edgeq's. Long
 * runs use -fork=1 -ignore_crashes=1 and sort the crashes afterwards
 * (docs/testing.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph/ir.h"
#include "keras/keras_load.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("EDGEQ_KERAS_INPROCESS", "1", 1);
    snprintf(path, sizeof path, "/tmp/fuzz_keras_h5.%ld", (long)getpid());
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    edgeq_graph g;
    char err[1024];
    err[0] = 0;
    const int rc = edgeq_keras_load(path, &g, err, sizeof err);
    if (rc != 0 && !err[0]) abort(); /* every failure says why */
    if (rc == 0) edgeq_graph_free(&g);
    if (getenv("FUZZ_KERAS_DEBUG")) fprintf(stderr, "rc %d: %s\n", rc, rc ? err : "");
    return 0;
}
