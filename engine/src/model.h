/* SPDX-License-Identifier: Apache-2.0 */
/*
 * model.h — TFLite schema field ids the engine reads, and the loader's
 * internal entry points (verify.c, plan.c).
 */
#ifndef EDGE_MODEL_H
#define EDGE_MODEL_H

#include "edge_internal.h"

/* Field ids from tflite_schema.fbs (a union takes two ids). */
enum {
    MODEL_VERSION = 0, MODEL_OPCODES = 1, MODEL_SUBGRAPHS = 2, MODEL_DESCRIPTION = 3,
    MODEL_BUFFERS = 4, MODEL_METADATA_BUFFER = 5, MODEL_METADATA = 6,
    OPCODE_DEPRECATED_BUILTIN = 0, OPCODE_CUSTOM = 1, OPCODE_VERSION = 2, OPCODE_BUILTIN = 3,
    SUBGRAPH_TENSORS = 0, SUBGRAPH_INPUTS = 1, SUBGRAPH_OUTPUTS = 2, SUBGRAPH_OPERATORS = 3,
    SUBGRAPH_NAME = 4,
    TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
    TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5, TENSOR_SPARSITY = 6,
    QUANT_MIN = 0, QUANT_MAX = 1, QUANT_SCALE = 2, QUANT_ZERO_POINT = 3, QUANT_DETAILS_TYPE = 4,
    QUANT_DETAILS = 5, QUANT_DIMENSION = 6,
    OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
    OP_CUSTOM_OPTIONS = 5, OP_INTERMEDIATES = 8,
    BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2,
    METADATA_NAME = 0, METADATA_BUFFER = 1
};

#define EDGE_SCHEMA_VERSION 3

/* Structural verification of everything the loader reads: every table,
 * vector and string inside the buffer, every index in range. On failure
 * the model's error names the table and field. */
edge_status edge_verify_model(edge_model *m, fb_table root);

/* Static memory plan (plan.c). Places every non-constant tensor that is not
 * a view, and every op's scratch, in one region by greedy best-fit over
 * overlapping lifetimes. Uses `work` (edge_plan_work_bytes) as temporary
 * space. Sets tensors[i].offset / alias_of and ops[i].scratch_offset, and
 * returns the region's peak in *peak. */
size_t edge_plan_work_bytes(const edge_model *m);
edge_status edge_plan(edge_model *m, void *work, size_t *peak);

/* Tensor i's record read from the model (tensor.c); checked: as fb.c
 * would, a field past its table's inline size reads as absent (the load's
 * read), else unchecked (the rebuild: the load verified everything). */
void edge_tensor_read(const edge_model *m, uint32_t i, edge_tensor_rt *r, int checked);

#define EDGE_ALIGN_UP(x) (((x) + (EDGE_ARENA_ALIGN - 1)) & ~(size_t)(EDGE_ARENA_ALIGN - 1))

#endif
