/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_keras_zip.c — libFuzzer harness for the .keras zip layer: the input
 * is a zip archive, opened from memory with libzip; keras_zip.c's member
 * reader pulls config.json, metadata.json and model.weights.h5 out of it
 * (size limits, truncation and CRC checks), and the config goes through
 * keras_build_graph with the fake weight reader (keras_fake.h) fed from
 * model.weights.h5's bytes. The HDF5 image is not opened: libhdf5 1.10.8
 * is not robust against damaged files (see keras_load.c).
 */
#include <zip.h>

#include "keras_fake.h"
/* read_member is static; take it from the source. */
#include "../quantize/keras/keras_zip.c"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    zip_error_t ze;
    zip_error_init(&ze);
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &ze);
    if (!src) {
        zip_error_fini(&ze);
        return 0;
    }
    zip_t *za = zip_open_from_source(src, ZIP_RDONLY, &ze);
    if (!za) {
        zip_source_free(src);
        zip_error_fini(&ze);
        return 0;
    }
    char *config = NULL, *meta = NULL, *weights = NULL;
    size_t config_len = 0, meta_len = 0, weights_len = 0;
    char err[512];
    err[0] = 0;
    if (read_member(za, "config.json", 1 << 20, &config, &config_len, err, sizeof err) < 0 && !err[0])
        abort();
    (void)read_member(za, "metadata.json", 1 << 20, &meta, &meta_len, err, sizeof err);
    (void)read_member(za, "model.weights.h5", 1 << 20, &weights, &weights_len, err, sizeof err);
    if (config) {
        const unsigned char *wb = weights ? (const unsigned char *)weights : (const unsigned char *)"";
        fake_w f = {wb, wb + (weights ? weights_len : 0)};
        keras_weights w = {fake_read, &f};
        edgeq_graph g;
        memset(&g, 0, sizeof g);
        err[0] = 0;
        if (keras_build_graph(config, config_len, &w, 3, &g, err, sizeof err) != 0 && !err[0]) abort();
        edgeq_graph_free(&g);
    }
    free(config);
    free(meta);
    free(weights);
    zip_discard(za);
    zip_error_fini(&ze);
    return 0;
}
