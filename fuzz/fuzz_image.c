/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_image.c — libFuzzer harness for the calibration image decoders
 * (image_load.c: PNG with its own inflate, BMP, PGM/PPM): any bytes as an
 * image file. A decoded image is converted to samples of a few model input
 * shapes (grey and RGB, down- and up-scaling), as the calibration reader
 * does; a refusal must say why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/image_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)edgeq_image_sniff(data, size);
    edgeq_image img;
    memset(&img, 0, sizeof img);
    char err[512];
    err[0] = 0;
    if (edgeq_image_decode(data, size, "fuzz.img", &img, err, sizeof err) != 0) {
        if (!err[0]) abort();
        edgeq_image_free(&img);
        return 0;
    }
    if (img.w < 1 || img.h < 1 || (img.c != 1 && img.c != 3) || !img.px) abort();
    /* Pixels are on the 0..255 scale. */
    const size_t n = (size_t)img.w * (size_t)img.h * (size_t)img.c;
    for (size_t i = 0; i < n; i++)
        if (!(img.px[i] >= 0.0f && img.px[i] <= 255.0f)) abort();
    static const int shapes[][3] = {{5, 7, 1}, {3, 2, 3}, {1, 1, 1}, {17, 9, 3}};
    float out[17 * 9 * 3];
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (edgeq_image_to_sample(&img, shapes[s][0], shapes[s][1], shapes[s][2], out) != 0) abort();
        for (int i = 0; i < shapes[s][0] * shapes[s][1] * shapes[s][2]; i++)
            if (!(out[i] >= -0.001f && out[i] <= 255.001f)) abort();
    }
    edgeq_image_free(&img);
    return 0;
}
