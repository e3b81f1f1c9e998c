/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lower.h — from the calibrated float graph to int8 TFLite operators.
 *
 * edgeq_lower() takes the graph after edgeq_passes_run() and calibration
 * (every node's range_min/range_max set) and produces an edgeq_qmodel: the
 * tensors, constant data and operators of a full-integer TFLite model,
 * ready for tflite_writer.h. It follows TFLite's int8 quantization spec and
 * copies the TF converter's choices (MLIR quantizer, legacy float scales),
 * so that the same calibration ranges give the same parameters:
 *
 *   activations  int8 asymmetric: the range is widened to contain 0, a range
 *                narrower than 1e-6 becomes [-0.5, 0.5] around it; scale =
 *                (max - min) / 255 in float; zero point = round(-128 - min /
 *                scale), clamped to [-128, 127] (so 0.0 is exact).
 *   weights      int8 symmetric in [-127, 127], per output channel for
 *                CONV_2D (OHWI, quantized_dimension 0) and
 *                DEPTHWISE_CONV_2D (1HW(C*M), quantized_dimension 3) and, with
 *                dense_per_channel, FULLY_CONNECTED ([out][in], dimension 0:
 *                what TF 2.21's converter does by default), else one scale
 *                per Dense (what the MLPerf Tiny twins' older converter did).
 *                scale = max|w| / 127 (a range narrower than 1e-6 is widened
 *                to [-5e-7, 5e-7]); q = round(w * (1 / scale)) in float.
 *   bias         int32, scale = input scale * weight scale (per channel),
 *                zero point 0; absent biases become zeros (as the converter
 *                writes them). A bias that would need more than INT32_MAX/2
 *                steps gets scale |b| / (INT32_MAX/2) and its weights the
 *                matching scale (dead channels after BatchNorm folding).
 *   fixed output SOFTMAX and LOGISTIC: 1/256, -128; TANH: 1/128, 0.
 *   same params  MAX_POOL_2D, AVERAGE_POOL_2D, RESHAPE, PAD keep their
 *                input's scale and zero point; CONCATENATION's inputs get
 *                its output's (the producer is retargeted when the concat
 *                is its only consumer, else a QUANTIZE requantizes).
 *   own range    CONV_2D, DEPTHWISE, FULLY_CONNECTED, ADD, SUB, MUL, MEAN,
 *                RELU*, LEAKY_RELU, HARD_SWISH, CONCATENATION.
 *
 * Layer to op: Conv2D -> CONV_2D (kernel [kh][kw][cin][cout] ->
 * [cout][kh][kw][cin]); DepthwiseConv2D -> DEPTHWISE_CONV_2D ([kh][kw][cin]
 * [m] -> [1][kh][kw][cin*m]); Dense -> FULLY_CONNECTED ([in][out] ->
 * [out][in], keep_num_dims for inputs of rank > 2); n-ary Add/Subtract/
 * Multiply -> a chain of binary ops; GlobalAveragePooling2D -> MEAN;
 * GlobalMaxPooling2D -> MAX_POOL_2D over the whole plane (+ RESHAPE);
 * Flatten/Reshape -> RESHAPE; ZeroPadding2D -> PAD; Rescaling -> MUL + ADD
 * with constant operands; Activation -> RELU / RELU6 / RELU_N1_TO_1 /
 * LEAKY_RELU / LOGISTIC / TANH / HARD_SWISH.
 *
 * A Rescaling that the passes folded into a graph input (graph->
 * input_folded) is applied to the first layer instead when every consumer
 * of that input is a Conv2D/DepthwiseConv2D/Dense (and, with a non-zero
 * offset, pads nothing): W' = W * s, b' = b + o * sum(W). The model's input
 * tensor then takes the raw data the user has, quantized from the raw range.
 * Otherwise the transform is lowered as MUL + ADD right after the input.
 * Either way the model's input tensors take the raw values the float
 * executor takes (float_exec.h), quantized with their own parameters.
 *
 * I/O (`io`): int8 leaves the int8 tensors as the model's inputs and
 * outputs; uint8 adds a QUANTIZE at each edge (same scale, zero point +
 * 128); float adds QUANTIZE after each float input and DEQUANTIZE before
 * each float output.
 *
 * Float files (`dtype` F32 or BF16; `edgeq --dtype f32|bf16`): the same operators from the same graph passes, no calibration, no
 * quantization parameters and no QUANTIZE/DEQUANTIZE ops. The model's
 * inputs and outputs are FLOAT32 always; activations inside are FLOAT32,
 * or BFLOAT16 with act_bf16; CONV_2D / DEPTHWISE_CONV_2D /
 * FULLY_CONNECTED filters and every other float constant are BFLOAT16
 * (FLOAT32 for dtype F32), biases FLOAT32 (the kernels accumulate in
 * float32). bf16 values are float32 rounded to nearest even (bf16.h).
 * Ops that only move data (RESHAPE) keep their input's type; an op
 * feeding a model output through such ops writes FLOAT32.
 */
#ifndef EDGEQ_LOWER_H
#define EDGEQ_LOWER_H

#include <stddef.h>
#include <stdint.h>

#include "graph/ir.h"

#define EDGEQ_QT_MAX_RANK 6
#define EDGEQ_QOP_MAX_IN 4

/* Return codes of edgeq_lower (0 on success). */
#define EDGEQ_LOWER_FAIL (-1)        /* bad data (NaN range, overflow, no memory) */
#define EDGEQ_LOWER_UNSUPPORTED (-2) /* a layer or option with no int8 lowering */

typedef enum edgeq_io { EDGEQ_IO_INT8, EDGEQ_IO_UINT8, EDGEQ_IO_FLOAT } edgeq_io;
typedef enum edgeq_dtype { EDGEQ_DTYPE_INT8, EDGEQ_DTYPE_BF16, EDGEQ_DTYPE_F32 } edgeq_dtype;

typedef struct edgeq_lower_opts {
    edgeq_io io;
    int dense_per_channel; /* FULLY_CONNECTED weights per output channel (CLI default 1) */
    edgeq_dtype dtype;
    int act_bf16;          /* dtype BF16: BFLOAT16 activations inside the model */
} edgeq_lower_opts;

typedef struct edgeq_qtensor {
    char *name;               /* owned */
    int type;                 /* edge_type: TFLite's TensorType (edge/schema.h) */
    int rank;
    int32_t shape[EDGEQ_QT_MAX_RANK];
    int n_q;                  /* quantization entries; 0 = none */
    float *scale;             /* owned, n_q */
    int64_t *zero_point;      /* owned, n_q */
    int qdim;                 /* quantized_dimension */
    uint8_t *data;            /* constant contents (owned), NULL for activations */
    size_t bytes;             /* of data, or of the activation */
    int node;                 /* float node whose output this holds, -1 if none */
} edgeq_qtensor;

/* Options of one operator: the fields its BuiltinOptions table has. */
typedef struct edgeq_qop_opts {
    int padding;              /* 0 SAME, 1 VALID */
    int stride_w, stride_h, dil_w, dil_h;
    int filter_w, filter_h;   /* pools */
    int depth_multiplier;
    int act;                  /* fused ActivationFunctionType */
    int axis;                 /* CONCATENATION */
    int keep_dims;            /* MEAN; FULLY_CONNECTED keep_num_dims */
    float beta;               /* SOFTMAX */
    float alpha;              /* LEAKY_RELU */
} edgeq_qop_opts;

typedef struct edgeq_qop {
    int code;                 /* BuiltinOperator: EDGE_BUILTIN_* (edge/schema.h) */
    int version;              /* operator version, as the converter's op_version */
    int n_in, in[EDGEQ_QOP_MAX_IN]; /* tensor indices, -1 = optional absent */
    int n_out, out[1];
    edgeq_qop_opts o;
    int node;                 /* float node it implements, -1 for I/O conversions */
} edgeq_qop;

typedef struct edgeq_qmodel {
    edgeq_qtensor *t;
    int n_t, cap_t;
    edgeq_qop *ops;
    int n_ops, cap_ops;
    int n_inputs, inputs[8];  /* tensor indices, in graph input order */
    int n_outputs, outputs[8];
    char io_names_in[8][EDGEQ_NAME_LEN];  /* signature names (the Keras layer names) */
    char io_names_out[8][EDGEQ_NAME_LEN];
} edgeq_qmodel;

/* Lower `g` (after passes and calibration) into `m` (zeroed). Returns 0, or
 * EDGEQ_LOWER_FAIL / EDGEQ_LOWER_UNSUPPORTED with a message naming the layer
 * in `err`; *m needs edgeq_qmodel_free either way. */
/* Does node i read a graph input whose Rescaling (x_raw * s + o) the
 * lowering moves into node i's weights (W * s, b + o * sum(W); see
 * above)? 1 and *s, *o if so, else 0. */
int edgeq_lower_folded_input(const edgeq_graph *g, int i, float *s, float *o);

int edgeq_lower(const edgeq_graph *g, const edgeq_lower_opts *opts, edgeq_qmodel *m, char *err,
                size_t err_len);
void edgeq_qmodel_free(edgeq_qmodel *m);

/* "CONV_2D" for a BuiltinOperator this file emits ("?" otherwise). */
const char *edgeq_builtin_name(int code);

/* The converter's activation parameters for a calibrated range (see above):
 * int8 [qmin, qmax] = [-128, 127]. Returns 0, -1 for NaN/Inf. */
int edgeq_act_qparams(float rmin, float rmax, float *scale, int32_t *zero_point);

/* Symmetric weight scale for a channel whose values lie in [wmin, wmax]. */
float edgeq_weight_scale(float wmin, float wmax);

/* Bytes of the constant inputs of op i (weights, bias, shape vectors). */
size_t edgeq_qop_param_bytes(const edgeq_qmodel *m, int i);

/* What op i's constants would take as float32 (every float constant 4
 * bytes a value) and in edgeq's int8 file (filters 1 byte a value, biases
 * 4, other float constants 1; plus the quantization parameters: a float
 * scale and an int64 zero point per channel of filters and biases, one
 * pair per other float constant). Integer constants count as they are. */
void edgeq_qop_param_bytes_as(const edgeq_qmodel *m, int i, size_t *f32, size_t *int8);

#endif
