/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflite_writer.h — an edgeq_qmodel (lower.h) as a standard .tflite file.
 *
 * The file is a TFLite schema v3 Model, file identifier "TFL3", with:
 *   - operator_codes: one per BuiltinOperator used, both builtin_code and
 *     deprecated_builtin_code (clamped to 127, as the converter writes it),
 *     version = the highest version among that code's operators;
 *   - one subgraph "main": tensors (int8 activations and weights with their
 *     QuantizationParameters: scale, zero_point (int64), quantized_dimension),
 *     operators with their BuiltinOptions tables, inputs and outputs;
 *   - buffers: buffer 0 empty (the sentinel), one per constant tensor (data
 *     aligned to 16 bytes), activations all on buffer 0;
 *   - metadata "min_runtime_version" (the lowest TFLite release that has
 *     every operator version used) and "OfflineMemoryAllocation": TFLM's
 *     offline plan, int32 [version 0, subgraph count 1, tensor count n,
 *     offset of tensor 0 .. n-1], each offset relative to the start of the
 *     arena's activation area, -1 for constants and for tensors the engine
 *     did not place. The offsets are the engine's own plan, found by loading
 *     the written model with libedge with EDGE_PLAN_NO_OVERLAP: TFLM's
 *     kernels keep none of the engine's streaming promises, so no two
 *     tensors alive at once share a byte there;
 *   - a "serving_default" SignatureDef naming inputs and outputs after the
 *     Keras layers.
 */
#ifndef EDGEQ_TFLITE_WRITER_H
#define EDGEQ_TFLITE_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "edge/edge.h"
#include "lower.h"

/* A model held in memory and loaded into the engine. */
typedef struct edgeq_engine {
    uint8_t *arena;   /* EDGE_ARENA_ALIGN-aligned, arena_len bytes */
    size_t arena_len;
    edge_model m;
} edgeq_engine;

/* Load `data` (EDGE_ARENA_ALIGN-aligned, must outlive `e`) into the engine
 * with exactly the arena it needs. Returns 0, or -1 with the engine's
 * message in `err`; *e needs edgeq_engine_free either way. */
int edgeq_engine_load(edgeq_engine *e, const uint8_t *data, size_t len, char *err, size_t err_len);
/* The same with edge_model_init_ex's flags (EDGE_PLAN_*). */
int edgeq_engine_load_flags(edgeq_engine *e, const uint8_t *data, size_t len, uint32_t flags, char *err,
                            size_t err_len);
void edgeq_engine_free(edgeq_engine *e);

/* Serialize `m` into a new 16-byte-aligned heap block (*out, free()).
 * The offline plan holds -1 everywhere; *plan_at receives the byte index of
 * its first offset (tensor 0) for edgeq_tflite_set_plan. Returns 0, or -1
 * with a message in `err`. */
int edgeq_tflite_serialize(const edgeq_qmodel *m, const char *description, uint8_t **out,
                           size_t *len, size_t *plan_at, char *err, size_t err_len);

/* Fill the offline plan of a serialized model (len bytes) from the
 * engine's plan of the same bytes without streaming overlaps
 * (EDGE_PLAN_NO_OVERLAP). n_tensors must be the model's tensor count.
 * Returns 0, or -1 with a message in `err`. */
int edgeq_tflite_set_plan(uint8_t *data, size_t len, size_t plan_at, int n_tensors, char *err,
                          size_t err_len);

/* Serialize, load in the engine (which checks the model), write the plan.
 * On success *out holds the final bytes and, when `e` is not NULL, *e the
 * engine loaded on them (for the report). */
int edgeq_tflite_build(const edgeq_qmodel *m, const char *description, uint8_t **out,
                       size_t *len, edgeq_engine *e, char *err, size_t err_len);

#endif
