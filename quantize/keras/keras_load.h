/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_load.h — read a Keras model file into edgeq's float graph (ir.h).
 *
 * Formats, told apart by their first bytes, never by the file name:
 *   "\x89HDF\r\n\x1a\n"  Keras 2 legacy HDF5 (model.save("x.h5"), Keras
 *                        2.0 to 2.21) and Keras 3's legacy .h5: the
 *                        `model_config` JSON attribute and /model_weights
 *   "PK\x03\x04"         a Keras 3 .keras zip: config.json +
 *                        model.weights.h5 (read from memory)
 *
 * Models: Sequential (with or without an InputLayer), Functional (Keras 2
 * and Keras 3 inbound-node formats), shared layers (a layer called several
 * times becomes one node per call) and nested models (inlined: node names
 * carry the path, "outer/inner/conv2d").
 *
 * Layers: InputLayer, Conv2D, DepthwiseConv2D, SeparableConv2D (split into
 * a DEPTHWISE_CONV2D node "<name>/depthwise" and a 1x1 CONV2D node
 * "<name>"), Dense, BatchNormalization, Activation, ReLU, LeakyReLU,
 * Softmax, Add, Subtract, Multiply, Concatenate, MaxPooling2D,
 * AveragePooling2D, GlobalAveragePooling2D, GlobalMaxPooling2D, Flatten,
 * Reshape, ZeroPadding2D, Rescaling, and Dropout, SpatialDropout2D,
 * GaussianNoise, GaussianDropout, AlphaDropout, ActivityRegularization as
 * identities. A layer's `activation` becomes node->act, except softmax,
 * which becomes a SOFTMAX node "<name>/softmax" after it.
 *
 * What the graph holds beyond ir.h's comments: DEPTHWISE_CONV2D nodes set
 * `filters` to their output channels (cin * depth_multiplier); BATCHNORM,
 * SOFTMAX and CONCAT set `axis` (non-negative, batch = 0); every node's
 * shape has been inferred and checked, and every weight's shape checked
 * against the config and scanned for NaN/Inf.
 *
 * Refused, each with a message naming the file, the layer and its class:
 * Lambda layers (their Python code is never run), custom and unknown
 * layers (with what is supported), channels_first, unsupported
 * activations or options, missing or misshapen weights, NaN/Inf weights,
 * unknown (None) input dimensions, tensors of more than 4 dimensions or
 * absurd sizes, and files that are truncated, not HDF5/zip, or lack the
 * model config (weights-only files).
 */
#ifndef EDGEQ_KERAS_LOAD_H
#define EDGEQ_KERAS_LOAD_H

#include <stddef.h>

#include "graph/ir.h"

/* Load `path` into `g`. Returns 0 on success; on failure returns -1,
 * leaves `g` zeroed and puts a message starting with `path` in `err`
 * (NUL-terminated when errlen > 0). The file is parsed in a forked child
 * process (libhdf5 can crash or hang on damaged files; see keras_load.c),
 * so a crash or a 60 s hang there is an error here too; stdio is flushed
 * before the fork. EDGEQ_KERAS_INPROCESS=1 parses in-process instead. */
int edgeq_keras_load(const char *path, edgeq_graph *g, char *err, size_t errlen);

/* Keep NaN and infinite weights instead of refusing the model (the float
 * and bf16 writers store them as they are: `edgeq --dtype bf16
 * --allow-nonfinite`). Off by default; applies to later loads. */
void edgeq_keras_allow_nonfinite(int on);

/* `edgeq keras-dump model [--json] [--weights DIR]`: print the loaded
 * graph (text, or JSON), and write each node's float arrays as
 * DIR/<node>.<field>.npy in Keras's layouts (keras_dump.c). */
int edgeq_cmd_keras_dump(int argc, char **argv);

#endif
