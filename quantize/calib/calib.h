/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib.h — activation ranges: run the float graph over the calibration set
 * and record, for every node's output, the float range its int8 tensor must
 * cover (node->range_min / range_max, node->calibrated = 1).
 *
 * Which tensors: every node output, as TFLite's converter calibrates every
 * activation tensor. Ops whose int8 output parameters are fixed by the
 * TFLite spec (SOFTMAX: scale 1/256, zero point -128; LOGISTIC: the same;
 * TANH: 1/128, 0) get their observed range recorded too, for the report;
 * the quantizer uses the fixed parameters for them.
 *
 * Methods (`--range`):
 *   minmax      (default) the smallest and largest value seen over all
 *               samples, like the TF converter's calibrator.
 *   percentile  per side: the negative and the positive values are ranked
 *               by magnitude separately and each side is clipped at its
 *               99.99th percentile (EDGEQ_CALIB_PERCENTILE), so one outlier
 *               in ten thousand values per side may saturate. Zeros belong
 *               to neither side.
 *   mse         the clipping range [lo, hi] minimizing the expected squared
 *               error of quantizing the observed values to the int8 grid of
 *               that range: values inside cost scale^2 / 12 (uniform
 *               rounding error; exact zeros cost nothing, zero is on the
 *               grid), values outside cost their distance to the clip
 *               point squared; scale = (hi - lo) / 255. Found by coordinate
 *               descent over histogram bin edges (hi with lo fixed, then lo
 *               with hi fixed, until neither moves), starting from min/max.
 * percentile and mse use one histogram per side and node: 2048 bins from 0,
 * widened by merging bin pairs whenever a larger value arrives (so no
 * second pass over the data is needed, and merging is exact).
 *
 * In every method the recorded range contains 0 (TFLite's asymmetric
 * quantization must represent 0 exactly): range_min <= 0 <= range_max. An
 * output that is 0 for every sample gets [0, 0]; the quantizer picks its
 * parameters.
 */
#ifndef EDGEQ_CALIB_H
#define EDGEQ_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "calib_data.h"
#include "graph/float_exec.h"
#include "graph/ir.h"

#define EDGEQ_CALIB_BINS 2048
#define EDGEQ_CALIB_PERCENTILE 99.99

typedef enum edgeq_range_method {
    EDGEQ_RANGE_MINMAX,
    EDGEQ_RANGE_PERCENTILE,
    EDGEQ_RANGE_MSE
} edgeq_range_method;

/* "minmax" / "percentile" / "mse" -> 0 and *m; -1 for anything else. */
int edgeq_range_method_parse(const char *s, edgeq_range_method *m);
const char *edgeq_range_method_name(edgeq_range_method m);

/* One side's histogram: bin b counts magnitudes in [b*width, (b+1)*width). */
typedef struct edgeq_calib_hist {
    double width; /* 0 until the first nonzero value */
    uint64_t total;
    uint64_t bins[EDGEQ_CALIB_BINS];
} edgeq_calib_hist;

typedef struct edgeq_calib_node {
    float min, max;
    edgeq_calib_hist *pos, *neg; /* NULL for minmax */
} edgeq_calib_node;

typedef struct edgeq_calib {
    const edgeq_graph *g;
    edgeq_range_method method;
    double percentile;      /* for EDGEQ_RANGE_PERCENTILE */
    int samples;            /* observed so far */
    edgeq_calib_node *node; /* g->n of them */
} edgeq_calib;

int edgeq_calib_init(edgeq_calib *c, const edgeq_graph *g, edgeq_range_method m, char *err,
                     size_t err_len);

/* Record every node's output of the sample the executor just ran. A NaN or
 * infinite value is an error naming the layer and the sample number. */
int edgeq_calib_observe(edgeq_calib *c, const edgeq_float_exec *x, char *err, size_t err_len);

/* Write the ranges into the graph (range_min, range_max, calibrated). */
int edgeq_calib_finish(edgeq_calib *c, edgeq_graph *g, char *err, size_t err_len);

void edgeq_calib_free(edgeq_calib *c);

/* Called after each sample with the executor's buffers (for the report's
 * int8-vs-float agreement, say). */
typedef void (*edgeq_calib_sample_fn)(void *ctx, int sample, const edgeq_float_exec *x);

/* The whole job: run `g` (after the passes) over `set`, observe, finish.
 * A progress bar goes to stderr when `progress` is set and stderr is a
 * terminal. `on_sample` may be NULL. Returns 0, or -1 with a message. */
int edgeq_calibrate(edgeq_graph *g, const edgeq_calib_set *set, edgeq_range_method m,
                    int progress, edgeq_calib_sample_fn on_sample, void *ctx, char *err,
                    size_t err_len);

#endif
