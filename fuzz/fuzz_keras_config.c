/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_keras_config.c — libFuzzer harness for edgeq's Keras model-config
 * layer (keras_config.c + keras_shapes.c): the input is a config JSON, a
 * NUL, and a trailer of fake weight shapes (keras_fake.h). The HDF5 reader
 * itself is not fuzzed in-process: libhdf5 1.10.8 crashes on damaged files
 * on its own, which is why keras_load.c parses HDF5 in a forked child.
 */
#include "keras_fake.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    const unsigned char *nul = memchr(data, 0, size);
    size_t json_len = nul ? (size_t)(nul - data) : size;
    fake_w f = {nul ? nul + 1 : data + size, data + size};
    keras_weights w = {fake_read, &f};
    edgeq_graph g;
    memset(&g, 0, sizeof g);
    char err[512];
    int major = json_len & 1 ? 2 : 0; /* also exercise the guess */
    int rc = keras_build_graph((const char *)data, json_len, &w, major, &g, err, sizeof err);
    if (rc != 0 && !err[0]) abort(); /* every failure says why */
    if (getenv("FUZZ_KERAS_DEBUG")) fprintf(stderr, "rc %d nodes %d: %s\n", rc, g.n, rc ? err : "");
    edgeq_graph_free(&g);
    return 0;
}
