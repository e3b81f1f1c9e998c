/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib_checks.h — calibration data that does not look like the model's
 * input is said so, never silently used.
 *
 * The quantizer (cmd_quantize.c) calls, in this order:
 *   edgeq_calib_cli_option    --calib-range LO,HI, --mean M[,M,M], --std S[,S,S]
 *   edgeq_calib_cli_finish    their consistency (usage errors)
 *   edgeq_model_expect_read   on the graph as loaded, BEFORE the passes: what
 *                             the model tells about its input (a leading
 *                             Rescaling, the BatchNormalization statistics
 *                             right after the first Conv2D/DepthwiseConv2D/
 *                             Dense)
 *   edgeq_model_expect_prev   an existing output .tflite being replaced: the
 *                             float range its int8 input covers (inputs of
 *                             the same shape only: another model's file
 *                             tells nothing)
 *   edgeq_calib_check         after the data was read: one report line per
 *                             input "as read" and "as fed", and a WARNING on
 *                             `warn` (stderr) for each mismatch found:
 *     - images resized or converted (grey <-> RGB) to fit the input;
 *     - a folded Rescaling of scale s expects data spanning about 1/|s|
 *       (1/255: 0..255): the data spans 20x less or more;
 *     - the first layer's BatchNormalization moving mean, predicted from the
 *       data's per-channel means through the layer's weights, is off by
 *       more than EDGEQ_CALIB_BN_Z of its moving standard deviation (rms
 *       over channels): the data is not scaled like the training data (the
 *       fitted factor, e.g. "about 255x", is printed);
 *     - the previous .tflite's input range and the data's differ by 8x;
 *     - arrays given with --calib-range LO,HI (for arrays a statement of
 *       the expected range, not a transform) span 4x more or less than it,
 *       or lie outside it by more than its span.
 *   edgeq_calib_findings_free, edgeq_model_expect_free
 *
 * Image pixels are 0..255; --calib-range maps them to LO..HI, --mean/--std
 * (on the 0..255 scale, one value or one per channel) to (p - M) / S.
 * Without either they are fed as 0..255 and the report says so.
 */
#ifndef EDGEQ_CALIB_CHECKS_H
#define EDGEQ_CALIB_CHECKS_H

#include <stddef.h>
#include <stdio.h>

#include "calib_data.h"
#include "graph/ir.h"

/* rms z-score of the first BatchNormalization's moving mean above which
 * the data is called mis-scaled. */
#define EDGEQ_CALIB_BN_Z 6.0

typedef struct edgeq_calib_cli {
    edgeq_calib_norm norm;
    int have_range, n_mean, n_std;
    float range_lo, range_hi; /* --calib-range as given */
    float mean[3], std[3];
} edgeq_calib_cli;

/* When argv[*i] is one of the options: parse it, advance *i and return 1;
 * a malformed value prints a usage error and returns -1 (exit code
 * EDGEQ_EXIT_USAGE); otherwise 0. */
int edgeq_calib_cli_option(int argc, char **argv, int *i, edgeq_calib_cli *c);

/* After all options: --mean without --std (or the reverse), --calib-range
 * with --mean, --mean/--std without --calib: a usage error (returns
 * EDGEQ_EXIT_USAGE after printing it), else 0. */
int edgeq_calib_cli_finish(edgeq_calib_cli *c, const char *calib_path);

/* The help lines of the three options. */
void edgeq_calib_cli_help(FILE *fp);

typedef struct edgeq_input_expect {
    int bn;                      /* 1: the statistics below were found */
    char layer[160];             /* "conv2d (Conv2D) + batch_normalization" */
    int cin, cout;
    float *a;                    /* [cout][cin]: the layer's weights summed over space */
    float *bias, *mu, *sigma;    /* [cout] */
    float pre_scale, pre_offset; /* Rescaling layers between input and layer */
    int has_prev;                /* a previous .tflite's input range */
    float prev_lo, prev_hi;
    char prev_type[16];
} edgeq_input_expect;

typedef struct edgeq_model_expect {
    int n_inputs;
    edgeq_input_expect in[8];
    int in_rank[8], in_shape[8][4]; /* the inputs' shapes */
    char prev_path[256];
} edgeq_model_expect;

/* Read on the graph before edgeq_passes_run. Returns 0 (-1 out of memory). */
int edgeq_model_expect_read(const edgeq_graph *g, edgeq_model_expect *e);

/* `out` names an existing .tflite that the run will replace: note the
 * float range of each quantized input it has. Silent when it is not a
 * model the engine loads. */
void edgeq_model_expect_prev(edgeq_model_expect *e, const char *out);

void edgeq_model_expect_free(edgeq_model_expect *e);

typedef struct edgeq_calib_findings {
    char *text;   /* report lines, each ending in '\n' (NULL: none) */
    char *json;   /* a JSON array, one object per input (NULL: none) */
    int warnings; /* WARNING lines printed */
} edgeq_calib_findings;

/* `g` after the passes (its inputs' folded Rescaling). Returns 0 (-1 out
 * of memory). */
int edgeq_calib_check(const edgeq_graph *g, const edgeq_model_expect *e,
                      const edgeq_calib_set *set, const edgeq_calib_cli *cli, FILE *warn,
                      edgeq_calib_findings *out);

void edgeq_calib_findings_free(edgeq_calib_findings *f);

#endif
