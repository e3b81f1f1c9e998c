/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ir.h — edgeq's float graph: what the Keras loaders produce and what the
 * passes, the float executor, calibration, quantization and the TFLite
 * writer consume.
 *
 * One node = one layer = one output tensor. Nodes are stored in topological
 * order (every input index is smaller than the node's own). Shapes are NHWC
 * with the batch dimension included and fixed to 1. Weights are float32 in
 * Keras's own layouts (converted at lowering time):
 *   Conv2D kernel          [kh][kw][cin/groups][cout]
 *   DepthwiseConv2D kernel [kh][kw][cin][depth_multiplier]
 *   Dense kernel           [in][out]
 * Everything is heap-owned by the graph; edgeq_graph_free releases it.
 */
#ifndef EDGEQ_IR_H
#define EDGEQ_IR_H

#include <stddef.h>

#define EDGEQ_MAX_RANK 4
#define EDGEQ_MAX_INPUTS 16
#define EDGEQ_NAME_LEN 128

typedef enum edgeq_op {
    EDGEQ_OP_INPUT,
    EDGEQ_OP_CONV2D,
    EDGEQ_OP_DEPTHWISE_CONV2D,
    EDGEQ_OP_DENSE,           /* over the last axis */
    EDGEQ_OP_BATCHNORM,       /* over the last axis; folded away by the passes */
    EDGEQ_OP_ACTIVATION,      /* a standalone activation (act field) */
    EDGEQ_OP_ADD,             /* n-ary, same shapes (Keras Add) */
    EDGEQ_OP_SUBTRACT,
    EDGEQ_OP_MULTIPLY,
    EDGEQ_OP_CONCAT,          /* axis */
    EDGEQ_OP_MAXPOOL,
    EDGEQ_OP_AVGPOOL,
    EDGEQ_OP_GLOBAL_AVGPOOL,  /* keepdims decides the output rank */
    EDGEQ_OP_GLOBAL_MAXPOOL,
    EDGEQ_OP_RESHAPE,         /* Flatten and Reshape: output shape says it */
    EDGEQ_OP_PAD,             /* ZeroPadding2D: pad[][] */
    EDGEQ_OP_RESCALE,         /* Rescaling: x * scale + offset */
    EDGEQ_OP_SOFTMAX,         /* axis -1 */
    EDGEQ_OP_IDENTITY,        /* Dropout and friends; removed by the passes */
    EDGEQ_OP_CROP             /* Cropping1D/2D: crop[][] (keras/layers/cropping.c) */
} edgeq_op;

typedef enum edgeq_act {
    EDGEQ_ACT_LINEAR,
    EDGEQ_ACT_RELU,
    EDGEQ_ACT_RELU6,      /* also ReLU(max_value=6) */
    EDGEQ_ACT_RELU_N1_TO_1,
    EDGEQ_ACT_LEAKY_RELU, /* alpha */
    EDGEQ_ACT_SIGMOID,
    EDGEQ_ACT_TANH,
    EDGEQ_ACT_HARD_SWISH,
    EDGEQ_ACT_SOFTMAX     /* Activation('softmax'): the loader emits EDGEQ_OP_SOFTMAX instead */
} edgeq_act;

typedef struct edgeq_node {
    edgeq_op op;
    char name[EDGEQ_NAME_LEN];      /* the Keras layer name */
    char keras_class[64];           /* "Conv2D", for messages */
    int n_in;
    int in[EDGEQ_MAX_INPUTS];       /* node indices */
    int rank;
    int shape[EDGEQ_MAX_RANK];      /* output shape, batch first (= 1) */

    /* CONV2D, DEPTHWISE_CONV2D, pools */
    int kh, kw, stride_h, stride_w, dil_h, dil_w;
    int pad_same;                   /* 1 = 'same', 0 = 'valid' */
    int filters;                    /* CONV2D cout; DENSE units */
    int groups;                     /* CONV2D groups (1 normally) */
    int depth_multiplier;
    edgeq_act act;                  /* fused (after passes) or standalone activation */
    float alpha;                    /* LEAKY_RELU slope */
    int axis;                       /* CONCAT / SOFTMAX axis (non-negative, batch = 0) */
    int keepdims;                   /* GLOBAL_*POOL */
    int pad[EDGEQ_MAX_RANK][2];     /* PAD: before/after per dimension */
    int crop[EDGEQ_MAX_RANK][2];    /* CROP: removed before/after per dimension */

    float *kernel;                  /* see layouts above; NULL when none */
    size_t kernel_len;
    float *bias;                    /* NULL when use_bias is false */
    size_t bias_len;

    /* BATCHNORM: y = gamma * (x - mean) / sqrt(var + eps) + beta; gamma may
     * be NULL (scale=False), beta may be NULL (center=False). */
    float *bn_gamma, *bn_beta, *bn_mean, *bn_var;
    size_t bn_len;
    float eps;

    /* RESCALE */
    float scale, offset;

    /* Filled by calibration: the float range of this node's output. */
    float range_min, range_max;
    int calibrated;
} edgeq_node;

typedef struct edgeq_graph {
    edgeq_node *nodes;
    int n, cap;
    int n_inputs, inputs[8];        /* node indices of EDGEQ_OP_INPUT nodes */
    int n_outputs, outputs[8];      /* node indices of the model's outputs */
    char source[64];                /* "keras 2.4.0 legacy HDF5", for the report */

    /* Set by edgeq_passes_run when a Rescaling right after input i was
     * folded away: from then on the INPUT node stands for the rescaled
     * tensor, x_raw * input_scale_fold[i] + input_offset_fold[i], where x_raw
     * is what the user feeds. The float executor applies it to the raw
     * inputs it is given. The writer (lower.c) moves it into the weights
     * and bias of the layers the input feeds when all of them are
     * Conv2D/DepthwiseConv2D/Dense (and none pads with a non-zero offset),
     * else emits MUL + ADD; either way the model input takes raw values.
     * 0 in input_folded[i]: no transform. */
    int input_folded[8];
    float input_scale_fold[8], input_offset_fold[8];
} edgeq_graph;

/* Append a zeroed node; returns its index (-1 out of memory). */
int edgeq_graph_add(edgeq_graph *g, edgeq_op op, const char *name);
void edgeq_graph_free(edgeq_graph *g);
const char *edgeq_op_name(edgeq_op op);
const char *edgeq_act_name(edgeq_act act);
/* Elements of a node's output. */
size_t edgeq_node_numel(const edgeq_node *n);

#endif
