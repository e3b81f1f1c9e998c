/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bias_correct.h — bias correction for bf16 filters (Nagel et al. 2019,
 * "Data-Free Quantization", the empirical variant).
 *
 * Rounding a filter W to bf16 changes each output channel n by
 *   sum_k (bf16(W_nk) - W_nk) * x_k,
 * whose expectation over the data is a constant per channel: a bias shift
 * the network then amplifies (ResNet-8 loses 1.2 % to it, 0.2 % without).
 * This folds its negative into the float32 bias:
 *   b_n -= sum_k (bf16(W_nk) - W_nk) * E[x_k]
 * with E over the calibration samples and every output position of the
 * layer's im2col input (a padded tap counts as 0), for every Conv2D,
 * DepthwiseConv2D and Dense. The filters are still written rounded to
 * nearest even; only the float32 biases change.
 *
 * Sequential: E[x] is measured on the model as the bf16 file computes it
 * (filters rounded, biases corrected) in float32, so a layer's correction
 * sees the inputs its corrected predecessors give. Two passes over the set:
 * the first with rounded filters, the second with the first pass's
 * corrections in place (a third changes nothing measurable on the MLPerf
 * Tiny models).
 *
 * A layer reading a graph input whose Rescaling (x_raw * s + o) the writer
 * folds into its weights (lower.h) is written as bf16(W * s) on raw
 * inputs: its correction uses that filter's error and E[x_raw]. Layers
 * with non-finite weights (--allow-nonfinite) are left alone.
 */
#ifndef EDGEQ_BIAS_CORRECT_H
#define EDGEQ_BIAS_CORRECT_H

#include <stddef.h>

#include "calib_data.h"
#include "graph/ir.h"

#define EDGEQ_BIAS_CORRECT_PASSES 2

typedef struct edgeq_bias_correct_stats {
    int layers;        /* corrected */
    int skipped;       /* weighted layers left alone (folded input rescale) */
    double max_shift;  /* largest |correction| / (max |bias| of the layer, or 1) */
} edgeq_bias_correct_stats;

/* Correct g's biases in place (g after edgeq_passes_run; biases are added
 * where a layer had none). Returns 0, or -1 with a message. */
int edgeq_bias_correct_bf16(edgeq_graph *g, const edgeq_calib_set *set,
                            edgeq_bias_correct_stats *st, char *err, size_t err_len);

#endif
