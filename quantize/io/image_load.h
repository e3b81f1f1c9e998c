/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_load.h — the image decoders of the calibration reader: PNG, BMP
 * and PGM/PPM, from bytes in memory, plus the conversion of a decoded
 * image into one model input sample (channels and bilinear resize).
 *
 * Supported:
 *   PNG  colour types 0 (grey), 2 (RGB), 3 (palette), 4 (grey + alpha),
 *        6 (RGBA); bit depths 1, 2, 4, 8, 16 as the PNG spec allows them;
 *        Adam7 interlacing; zlib (libz) for the IDAT stream; chunk CRCs
 *        checked. Ancillary chunks are ignored (no gamma or colour
 *        management: the stored values are used).
 *   BMP  BITMAPCOREHEADER / BITMAPINFOHEADER / V4 / V5; 1, 4 and 8-bit
 *        palettes, 24-bit, 32-bit (BI_RGB, or BI_BITFIELDS with the usual
 *        X8R8G8B8 / A8R8G8B8 masks); bottom-up and top-down. No RLE.
 *   PNM  P2, P5 (grey) and P3, P6 (RGB); maxval 1..65535 (16-bit binary
 *        samples big-endian); '#' comments in the header.
 * Refused, with a message naming the file: anything else (JPEG with a
 * hint to convert), truncated or inconsistent data, images wider or taller
 * than EDGEQ_IMAGE_MAX_DIM.
 *
 * Decoded pixels are floats on the 0..255 scale (other bit depths and
 * maxvals scaled to it: v * 255 / max), row-major, channels last; one
 * channel for grey sources (alpha dropped), three for colour ones (palette
 * expanded, alpha dropped).
 */
#ifndef EDGEQ_IMAGE_LOAD_H
#define EDGEQ_IMAGE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#define EDGEQ_IMAGE_MAX_DIM 16384

typedef struct edgeq_image {
    int w, h, c; /* c = 1 or 3 */
    float *px;   /* h * w * c values in 0..255 */
} edgeq_image;

typedef enum edgeq_image_kind {
    EDGEQ_IMAGE_NONE,
    EDGEQ_IMAGE_PNG,
    EDGEQ_IMAGE_BMP,
    EDGEQ_IMAGE_PNM,
    EDGEQ_IMAGE_JPEG /* recognised only to be refused clearly */
} edgeq_image_kind;

/* What the first bytes say (EDGEQ_IMAGE_NONE: not an image). */
edgeq_image_kind edgeq_image_sniff(const uint8_t *buf, size_t len);

/* Decode a whole image file held in `buf`. `name` starts the messages.
 * Returns 0, or -1 with a message in `err`; `img` needs edgeq_image_free
 * either way. */
int edgeq_image_decode(const uint8_t *buf, size_t len, const char *name, edgeq_image *img,
                       char *err, size_t err_len);

/* One [h][w][c] sample (c = 1 or 3) from `img`: channels converted (grey
 * to RGB by copying, RGB to grey with TF's rgb_to_grayscale weights, or the
 * value itself when R = G = B), then resized bilinearly with half-pixel
 * centres as tf.image.resize (antialias=False) does. `out` holds h*w*c
 * floats. Returns 0, or -1 (out of memory / bad c). */
int edgeq_image_to_sample(const edgeq_image *img, int h, int w, int c, float *out);

void edgeq_image_free(edgeq_image *img);

#endif
