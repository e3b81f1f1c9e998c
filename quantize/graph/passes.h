/* SPDX-License-Identifier: Apache-2.0 */
/*
 * passes.h — graph rewrites between loading and calibration.
 *
 * edgeq_passes_run() turns the loader's layer-per-node graph into the graph
 * the quantizer lowers, one TFLite op (or a fixed small group) per node.
 * In order:
 *
 *  1. IDENTITY nodes (Dropout and friends) are removed; their consumers (and
 *     the graph outputs) read the identity's input instead.
 *  2. A RESCALE whose input is a graph INPUT that feeds nothing else is
 *     folded into that input: the graph records the transform
 *     (input_folded / input_scale_fold / input_offset_fold, see ir.h) and
 *     the INPUT node from then on stands for the rescaled tensor. A RESCALE
 *     anywhere else stays a node (the writer lowers it to MUL + ADD).
 *  3. BATCHNORM folding. A BN whose input is a CONV2D, DEPTHWISE_CONV2D or
 *     DENSE with a linear activation, consumed only by this BN and not a
 *     graph output, is folded into that node's kernel and bias (a bias is
 *     created when the layer had none): per output channel c,
 *       k = gamma_c / sqrt(var_c + eps);  W[..., c] *= k;
 *       b_c = (b_c - mean_c) * k + beta_c.
 *     Any other BN (the first layer of a model, after an Add or a pool, or
 *     after a conv that has other consumers) becomes a per-channel affine
 *     y = x * k + (beta - mean * k) expressed as a DEPTHWISE_CONV2D 1x1,
 *     depth multiplier 1, stride 1, 'valid', with k as its kernel
 *     [1][1][C][1] and the shift as its bias: lowering needs nothing new and
 *     it quantizes like any depthwise conv (per-channel symmetric int8
 *     weights, int32 bias). The TF converter emits MUL + ADD with constant
 *     operands for such a BN; one depthwise op is the same math in one
 *     kernel. For inputs that are not rank 4 ([1,N] after a Dense, [1,T,C])
 *     the depthwise is wrapped in two RESHAPE nodes: [..., C] -> [1,1,M,C]
 *     -> depthwise -> [..., C] (M = elements / C).
 *  4. Activations that TFLite cannot fuse are split off: a CONV2D,
 *     DEPTHWISE_CONV2D, DENSE or ADD whose own activation is softmax becomes
 *     the layer (linear) followed by a new SOFTMAX node over the last axis;
 *     leaky_relu, sigmoid, tanh or hard_swish become a following ACTIVATION
 *     node. Afterwards every fused activation is linear, relu, relu6 or
 *     relu_n1_to_1 (the clamps TFLite's fused_activation_function and the
 *     engine's requantization express).
 *  5. Activation fusion: an ACTIVATION node with act relu, relu6 or
 *     relu_n1_to_1 whose input is a CONV2D, DEPTHWISE_CONV2D, DENSE or ADD
 *     with a linear activation, consumed only by this activation and not a
 *     graph output, is fused into it (the producer keeps its name; the
 *     graph outputs and consumers are rewired to it).
 *  5b. Reshape chains: a RESHAPE whose input is a RESHAPE used only by it
 *     reads that one's input instead (the first goes), and a RESHAPE to the
 *     shape its input already has goes (unless it is a graph output).
 *  6. Compaction: removed nodes are freed, the survivors (and the new
 *     nodes) are renumbered in a topological order that keeps the original
 *     order wherever it can (new nodes follow the node they were made for),
 *     and inputs[] / outputs[] are remapped. Calibration results
 *     (range_min/max, calibrated) are not kept: run the passes first.
 *
 * The graph must be well formed (every input index smaller than the node's
 * own; shapes as the loader computed them); a violation the passes can see
 * is an error. On failure the graph may be partly rewritten but stays
 * consistent and freeable by edgeq_graph_free.
 */
#ifndef EDGEQ_PASSES_H
#define EDGEQ_PASSES_H

#include <stddef.h>

#include "ir.h"

/* What the passes did, for the report and for tests. */
typedef struct edgeq_pass_stats {
    int identities_removed;
    int rescales_folded;        /* into graph inputs */
    int bn_folded;              /* into a conv / depthwise / dense */
    int bn_to_depthwise;        /* BNs with nothing to fold into */
    int activations_split;      /* softmax / sigmoid / ... split off a layer */
    int activations_fused;
    int reshapes_merged;        /* reshapes dropped by step 5b */
} edgeq_pass_stats;

/* Run all the passes above, in place. `stats` may be NULL. Returns 0, or -1
 * with a message naming the layer in `err`. */
int edgeq_passes_run(edgeq_graph *g, edgeq_pass_stats *stats, char *err, size_t err_len);

#endif
