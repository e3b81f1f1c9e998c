/* SPDX-License-Identifier: Apache-2.0 */
/*
 * float_exec.h — edgeq's float32 reference executor of the graph IR.
 *
 * Calibration runs the float model with it, and `edgeq float-run` exposes it
 * for tests against Keras and the official float .tflite twins. It computes
 * what Keras / TensorFlow compute, op by op:
 *   - CONV2D: groups, dilation, strides; 'same' padding as TensorFlow pads:
 *     out = ceil(in / stride), total = max((out - 1) * stride + (k - 1) *
 *     dilation + 1 - in, 0), the smaller half before, the larger after;
 *     'valid': out = floor((in - (k - 1) * dilation - 1) / stride) + 1.
 *   - DEPTHWISE_CONV2D: output channel c * multiplier + m.
 *   - DENSE: over the last axis (any leading dimensions).
 *   - MAXPOOL / AVGPOOL: the same window arithmetic (dilation 1); an average
 *     over 'same' padding divides by the number of in-bounds elements only,
 *     as TF does; a max ignores the padding.
 *   - GLOBAL_AVGPOOL / GLOBAL_MAXPOOL: over every axis between the batch and
 *     the last (H and W of a rank-4 tensor, T of a rank-3 one).
 *   - ADD (n-ary), SUBTRACT, MULTIPLY: NumPy broadcasting (right-aligned,
 *     dimensions equal or 1).
 *   - CONCAT, PAD (zeros), RESHAPE, RESCALE (x * scale + offset), IDENTITY,
 *     BATCHNORM (gamma * (x - mean) / sqrt(var + eps) + beta), SOFTMAX over
 *     `axis` (0, the batch axis, is read as the last axis: a softmax over a
 *     batch of one is meaningless).
 *   - activations, fused or standalone: relu, relu6, relu_n1_to_1 (clamp to
 *     [-1, 1]), leaky_relu (x < 0 ? alpha * x : x), sigmoid, tanh,
 *     hard_swish (x * relu6(x + 3) / 6), softmax (over the last axis).
 * Accumulation is in float32, as TF's CPU kernels do (the summation order
 * differs, so results agree to float rounding, ~1e-6 relative).
 *
 * It runs graphs before or after edgeq_passes_run. Inputs are given as the
 * user's raw data: an input whose Rescaling was folded by the passes
 * (graph->input_folded) gets the recorded transform applied first, so
 * before and after the passes the same inputs give the same outputs.
 *
 * edgeq_float_exec_init checks the whole graph first — every node's output
 * shape against its inputs and parameters, weight array lengths — so a graph
 * from a hostile file can make init fail but never makes run read or write
 * out of bounds.
 */
#ifndef EDGEQ_FLOAT_EXEC_H
#define EDGEQ_FLOAT_EXEC_H

#include <stddef.h>

#include "ir.h"

/* Largest tensor the executor accepts, in elements (1 GiB of floats). */
#define EDGEQ_FLOAT_MAX_ELEMS ((size_t)1 << 28)

typedef struct edgeq_float_exec {
    const edgeq_graph *g; /* borrowed: must outlive the executor, unchanged */
    float **buf;          /* buf[i]: node i's output, edgeq_node_numel() floats */
} edgeq_float_exec;

/* Validate `g` and allocate one output buffer per node. Returns 0, or -1
 * with a message naming the layer in `err`. *x needs edgeq_float_exec_free
 * either way (safe on a failed or zeroed executor). */
int edgeq_float_exec_init(edgeq_float_exec *x, const edgeq_graph *g, char *err, size_t err_len);

/* Run one sample. inputs[k] holds graph input k (g->inputs[k]): the numel
 * of that node, as raw values (see above). Afterwards x->buf[i] holds every
 * node's output; the graph outputs are x->buf[g->outputs[k]]. Returns 0
 * (it cannot fail once init succeeded, except for NULL inputs: -1). */
int edgeq_float_exec_run(edgeq_float_exec *x, const float *const *inputs, char *err,
                         size_t err_len);

void edgeq_float_exec_free(edgeq_float_exec *x);

/* The output shape node i must have, from its inputs and parameters (the
 * inputs' own shapes are taken as given). Returns 0, or -1 with a message
 * naming the layer. Used by init; exposed for the passes' and loaders'
 * tests. */
int edgeq_float_infer_shape(const edgeq_graph *g, int i, int *rank, int shape[EDGEQ_MAX_RANK],
                            char *err, size_t err_len);

#endif
