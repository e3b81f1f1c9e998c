/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib_data.h — the calibration set: what `--calib FILE|DIR` names, read
 * into float32 samples shaped like the model's inputs.
 *
 * Sources, told apart by content (magic bytes), not by file name:
 *   .npy   one array: N samples stacked along axis 0 ([N, ...input shape
 *          without the batch]), or a single sample (the input's shape with
 *          or without its batch dimension of 1). Any numeric dtype; values
 *          are used as they are (uint8 pixels stay 0..255).
 *   .npz   for each model input: the array named like the input (the Keras
 *          input layer's name), else, for a one-input model, the first array
 *          whose samples have the input's shape; for a model with several
 *          inputs, the arrays in order. Shapes as for .npy.
 *   image  PGM/PPM (P2, P3, P5, P6; 8 or 16 bit), BMP (8-bit palette, 24
 *          and 32-bit uncompressed), PNG (all colour types and bit depths,
 *          interlaced or not): one sample each, for a model whose input is
 *          [1, H, W, C] with C = 1 or 3. Pixel values are 0..255 (16-bit
 *          and low-maxval images scaled to that range), converted to C
 *          channels (grey -> RGB by copying; RGB -> grey with TF's
 *          rgb_to_grayscale weights 0.2989, 0.5870, 0.1140; alpha dropped)
 *          and resized to H x W bilinearly, as tf.image.resize does
 *          (half-pixel centres, no antialiasing), then mapped by the
 *          caller's edgeq_calib_norm (--calib-range, --mean/--std), if any.
 *          A Rescaling layer in the model then scales them as it would in
 *          Keras. What was read (sizes, conversions, value range) is kept
 *          in set->src[] for the report (calib_checks.h).
 *   raw    a file of float32 little-endian values, a whole number of
 *          samples (in a folder: exactly one sample).
 *   DIR    every file in the folder and its subfolders (sorted by path,
 *          depth at most 8; hidden files and .txt/.csv/.json/.md/.yaml
 *          files skipped), each one of the above.
 * JPEG is refused with a hint to convert. A sample whose shape fits no
 * input is an error naming the file, the expected and the actual shape;
 * a NaN or infinite value is an error naming the file and sample.
 *
 * Models with several inputs take their calibration data from an .npz
 * only.
 *
 * Without --calib the caller uses edgeq_calib_data_synthetic (and must
 * print edgeq_calib_print_synthetic_warning): see there for the
 * distribution.
 */
#ifndef EDGEQ_CALIB_DATA_H
#define EDGEQ_CALIB_DATA_H

#include <stddef.h>
#include <stdio.h>

#include "graph/ir.h"

/* Samples used when neither the data nor --calib-count limits them. */
#define EDGEQ_CALIB_SYNTHETIC_COUNT 100

/* How an image folder's pixels (0..255) become the values fed to the
 * model (--calib-range LO,HI or --mean/--std; calib_checks.h parses them).
 * Only images are transformed: arrays and raw files are fed as they are. */
typedef struct edgeq_calib_norm {
    int kind;       /* 0: none (pixels fed as 0..255), 1: range, 2: mean/std */
    float lo, hi;   /* kind 1: 0 -> lo, 255 -> hi */
    int n_mean;     /* kind 2: 1 or 3 values (one per channel) */
    float mean[3], std[3]; /* kind 2: (pixel - mean[c]) / std[c] */
} edgeq_calib_norm;

/* What was read for one input, before any conversion: for the report and
 * the checks (calib_checks.h). */
typedef struct edgeq_calib_source {
    int files;            /* files that gave samples */
    int images;           /* of which images */
    int arrays;           /* of which .npy/.npz arrays */
    int raws;             /* of which raw float32 */
    char array_desc[96];  /* the first array: "uint8 (100,28,28)" */
    int img_w, img_h, img_c; /* the first image's size and channels (1 or 3) */
    int img_sizes_vary;   /* 1 when images differ in size or channels */
    int resized;          /* images resized to the input's H x W */
    int grey_to_rgb, rgb_to_grey; /* images whose channels were converted */
    double lo, hi, sum;   /* values as read (image pixels on 0..255) */
    double n;             /* values counted in sum */
} edgeq_calib_source;

typedef struct edgeq_calib_set {
    int n_inputs;          /* = the graph's */
    int count;             /* samples */
    size_t sample_len[8];  /* floats per sample of input k */
    float *data[8];        /* input k: count * sample_len[k] floats */
    int synthetic;         /* 1: made by edgeq_calib_data_synthetic */
    char desc[256];        /* "45 samples from specs in x.npz", for messages */
    edgeq_calib_source src[8]; /* per input: what was read (not for synthetic sets) */
    edgeq_calib_norm norm;     /* what the images were scaled with */
} edgeq_calib_set;

/* Read `path` (a file or a folder) for the inputs of `g`. `max_count` > 0
 * stops after that many samples (the first ones, in order); 0 reads all.
 * Returns 0, or -1 with a message in `err` naming the file. Reading
 * nothing (an empty folder) is an error. `set` needs edgeq_calib_set_free
 * either way. */
int edgeq_calib_data_load(const edgeq_graph *g, const char *path, long max_count,
                          edgeq_calib_set *set, char *err, size_t err_len);

/* The same, with the images' pixels mapped by `norm` (NULL: none, pixels
 * fed as 0..255). */
int edgeq_calib_data_load_norm(const edgeq_graph *g, const char *path, long max_count,
                               const edgeq_calib_norm *norm, edgeq_calib_set *set, char *err,
                               size_t err_len);

/* The synthetic fallback: `count` samples (0: EDGEQ_CALIB_SYNTHETIC_COUNT)
 * from a fixed-seed generator, so runs are reproducible:
 *   - an input whose Rescaling was folded by the passes is taken to be
 *     8-bit pixel data (that is what a Rescaling layer on an input is for):
 *     raw values uniform over [0, 255];
 *   - any other input: standard normal, N(0, 1).
 * Neither is the model's real data distribution: activation ranges, and so
 * int8 accuracy, will differ from a calibration on real samples. */
int edgeq_calib_data_synthetic(const edgeq_graph *g, long count, edgeq_calib_set *set, char *err,
                               size_t err_len);

/* The loud multi-line warning for a synthetic set, on `fp` (stderr). */
void edgeq_calib_print_synthetic_warning(FILE *fp, const edgeq_calib_set *set);

/* Sample i of input k. */
static inline const float *edgeq_calib_sample(const edgeq_calib_set *s, int k, int i) {
    return s->data[k] + (size_t)i * s->sample_len[k];
}

void edgeq_calib_set_free(edgeq_calib_set *set);

#endif
