/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image.h — the few image formats a camera script or an editor writes
 * (PGM, PPM, BMP), decoded to 8-bit gray or RGB, and bilinear resizing.
 *
 * Formats:
 *   PGM  P5 (binary) and P2 (text), maxval 1..65535   -> 1 channel
 *   PPM  P6 (binary) and P3 (text), maxval 1..65535   -> 3 channels
 *   BMP  uncompressed (BI_RGB) 8-bit palettized, 24-bit and 32-bit, and
 *        32-bit BI_BITFIELDS with the usual byte masks; bottom-up or
 *        top-down -> 1 channel when the palette is gray, else 3
 * Samples above 8 bits are scaled to 0..255 with rounding.
 */
#ifndef CLASSIFY_IMAGE_H
#define CLASSIFY_IMAGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct image {
    int32_t width, height, channels; /* channels: 1 (gray) or 3 (RGB) */
    uint8_t *pixels;                 /* row-major, top row first, interleaved */
    /* For 8-bit palettized BMPs and 8-bit PGMs: the stored byte of each
     * pixel before any palette lookup (what --raw feeds the model), else
     * NULL. */
    uint8_t *raw;
    const char *format; /* "PGM", "PPM", "BMP" */
} image;

/* Decode `data` (a whole file). On failure returns -1 and says why in err. */
int image_decode(const uint8_t *data, size_t len, image *img, char *err, size_t err_len);

void image_free(image *img);

/* Bilinear resize of `img` to out_w x out_h with out_c channels (1 or 3),
 * as floats on the 0..255 scale. Sample positions use half-pixel centres
 * (src = (dst + 0.5) * in / out - 0.5, clamped at the edges), as OpenCV's
 * INTER_LINEAR and tf.image.resize do; an image already out_w x out_h is
 * copied exactly. RGB to gray is ITU-R BT.601 luma (0.299, 0.587, 0.114);
 * gray to RGB repeats the value. `out` holds out_h * out_w * out_c floats. */
void image_resize(const image *img, int32_t out_w, int32_t out_h, int32_t out_c, float *out);

#endif
