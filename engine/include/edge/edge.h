/* SPDX-License-Identifier: Apache-2.0 */
/*
 * edge.h — the whole public API of libedge, the edgeq inference engine.
 *
 * libedge runs a TFLite flatbuffer straight from a const byte array (flash).
 * It allocates nothing and keeps no global state: the caller owns the
 * `edge_model` context and one scratch arena, and every call returns an
 * `edge_status` whose `edge_status_str()` and `edge_model_error()` say in
 * words what went wrong.
 *
 * Lifecycle:
 *   edge_model m;
 *   edge_status s = edge_model_init(&m, model_data, model_len, arena, arena_len);
 *   if (s == EDGE_ERR_ARENA)  -> m.arena_needed holds the exact bytes needed
 *   edge_tensor in = edge_input(&m, 0);   fill in.data (in.bytes bytes)
 *   edge_invoke(&m);
 *   edge_tensor out = edge_output(&m, 0); read out.data
 *
 * Size every input and output buffer from edge_tensor.bytes (the engine
 * checks nothing the caller writes through `data`).
 *
 * Inputs must be filled before every edge_invoke(): the planner reuses an
 * input's bytes for later tensors once the input has been read (as TFLM
 * does), which is what keeps the arena small.
 *
 * The model bytes must stay valid and unchanged while the context is used.
 * The arena must be 16-byte aligned (EDGE_ARENA_ALIGN); it holds the tensor
 * and operator records, the prepared per-op parameters and every activation
 * tensor, placed ahead of time by the static planner.
 */
#ifndef EDGE_EDGE_H
#define EDGE_EDGE_H

#include <stddef.h>
#include <stdint.h>

#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define EDGE_VERSION_STRING "0.1.0"
#define EDGE_MAX_DIMS 6
#define EDGE_ARENA_ALIGN 16
#define EDGE_ERROR_LEN 192

typedef enum edge_status {
    EDGE_OK = 0,
    EDGE_ERR_ARG,         /* a NULL pointer, an index out of range */
    EDGE_ERR_MODEL,       /* the flatbuffer is malformed or inconsistent */
    EDGE_ERR_UNSUPPORTED, /* an op, type or option the engine does not run */
    EDGE_ERR_ARENA,       /* arena too small: see edge_model.arena_needed */
    EDGE_ERR_SHAPE,       /* tensor shapes or sizes do not agree */
    EDGE_ERR_STATE        /* call out of order (invoke before a good init) */
} edge_status;

/* Element types (edge_type) use TFLite's TensorType numbers, so they can be
 * compared with the file directly: edge/schema.h has them all. */

/* A view of one tensor. `data` points into the arena (activations) or into
 * the model (constants, which must not be written). */
typedef struct edge_tensor {
    edge_type type;
    int32_t rank;
    int32_t dims[EDGE_MAX_DIMS];
    size_t bytes;
    void *data;
    float scale;        /* per-tensor scale; 0 when not quantized */
    int32_t zero_point; /* per-tensor zero point */
    const char *name;   /* NUL-terminated, from the model; "" if none */
} edge_tensor;

/* Called before (end = 0) and after (end = 1) each operator when set; the
 * host supplies the clock. */
typedef void (*edge_profile_fn)(void *user, uint32_t op_index, const char *op_name, int end);

struct edge_tensor_state;
struct edge_op_rt;
struct edge_rt;

/* The context. Fields are readable; only the engine writes them. */
typedef struct edge_model {
    const uint8_t *data;
    size_t len;
    uint8_t *arena;
    size_t arena_len;
    size_t arena_needed;     /* bytes this model needs (set by init) */
    int arena_needed_exact;  /* 0 when arena_needed is only a lower bound */
    size_t arena_records;    /* of which tensor/op records and op parameters */
    size_t arena_activations; /* of which planned activations and scratch */
    struct edge_tensor_state *tensors; /* what is kept of each tensor (engine-internal) */
    uint32_t n_tensors;
    struct edge_rt *rt;                /* engine-internal */
    struct edge_op_rt *ops;
    uint32_t n_ops;
    const uint8_t *inputs;  /* flatbuffer int32 vectors of tensor indices */
    uint32_t n_inputs;
    const uint8_t *outputs;
    uint32_t n_outputs;
    edge_profile_fn profile;
    void *profile_user;
    uint32_t flags;         /* EDGE_PLAN_* given to edge_model_init_ex */
    uint32_t ready;
    char error[EDGE_ERROR_LEN];
} edge_model;

/* Verify, plan and prepare the model in `arena`. On EDGE_ERR_ARENA,
 * m->arena_needed holds the exact size to retry with (as long as the arena
 * could at least hold the records; otherwise a lower bound, also said in
 * the message). */
edge_status edge_model_init(edge_model *m, const uint8_t *data, size_t len, void *arena,
                            size_t arena_len);

/* The exact arena bytes `data` needs, found by loading it into `work` (any
 * caller buffer; a host tool passes a generous one). */
edge_status edge_model_arena_needed(const uint8_t *data, size_t len, void *work, size_t work_len,
                                    size_t *needed);

/* Planning options for the _ex forms (0 = what edge_model_init does).
 *
 * EDGE_PLAN_NO_OVERLAP: every tensor gets bytes of its own for its whole
 * lifetime. By default an op's output may overlap an input that dies at
 * that op, where the engine's kernels are known to read ahead of what they
 * write (docs/engine.md, "Streaming outputs"); such a plan is only valid
 * with the engine's own kernels. This one suits any interpreter (edgeq
 * writes it as TFLM's offline memory plan), at the cost of a larger arena. */
#define EDGE_PLAN_NO_OVERLAP 1u

edge_status edge_model_init_ex(edge_model *m, const uint8_t *data, size_t len, void *arena,
                               size_t arena_len, uint32_t flags);
edge_status edge_model_arena_needed_ex(const uint8_t *data, size_t len, void *work, size_t work_len,
                                       uint32_t flags, size_t *needed);

edge_status edge_invoke(edge_model *m);

/* Packed weights (optional; host builds). Some kernels re-lay an op's
 * constant weights for their vector loads on every invoke (the x86 AVX2
 * convolution: 5-10% of a MobileNet's time). Given a second buffer after
 * a successful init, edge_model_pack lays them out there once, and every
 * invoke reads them from it; the outputs are the same bytes. The arena is
 * unchanged. The buffer must stay untouched while the model is in use; a
 * new init forgets it.
 *
 * edge_model_pack_needed: the bytes a buffer needs (alignment slack
 * included), 0 when this build on this CPU packs nothing.
 * edge_model_pack: EDGE_ERR_ARENA when len is below that, EDGE_ERR_STATE
 * before a successful init. */
size_t edge_model_pack_needed(const edge_model *m);
edge_status edge_model_pack(edge_model *m, void *buf, size_t len);

uint32_t edge_num_inputs(const edge_model *m);
uint32_t edge_num_outputs(const edge_model *m);
/* An empty view (data == NULL, rank 0) when the index is out of range. */
edge_tensor edge_input(const edge_model *m, uint32_t i);
edge_tensor edge_output(const edge_model *m, uint32_t i);

/* Any tensor of the graph, for tools. */
uint32_t edge_num_tensors(const edge_model *m);
edge_tensor edge_tensor_at(const edge_model *m, uint32_t i);

/* Operators, for tools and reports. */
typedef struct edge_op_info {
    const char *name;      /* "CONV_2D" */
    int32_t builtin_code;  /* TFLite BuiltinOperator */
    uint32_t n_inputs, n_outputs;
    const int32_t *io;     /* n_inputs input then n_outputs output tensor indices (-1 = none) */
    uint64_t macs;         /* multiply-accumulates per invoke */
    int systolic;          /* 1 when the op runs on the systolic kernel */
    uint64_t array_cycles; /* estimated systolic array cycles */
    uint32_t scratch_bytes;
    /* Streaming: bit i set when output 0 may overlap input i once input i
     * dies at this op, placed at most stream_limit bytes above it (usually
     * negative: below). 0 when the op streams over nothing or the model was
     * planned with EDGE_PLAN_NO_OVERLAP. */
    uint32_t stream_inputs;
    int32_t stream_limit;
    /* The op can also run backwards, its output then at least this many
     * bytes above the input (INT32_MAX: it cannot); stream_reverse 1 when the
     * plan needs it to. */
    int32_t stream_limit_reverse;
    uint32_t stream_reverse;
    /* 1: this op also runs op i + 1, row by row; the tensor between them
     * (this op's output 0) is never in the arena (edge_tensor.data NULL),
     * and stream_limit is about op i + 1's output. 2: this op runs inside
     * op i - 1 (its own time shows there). 0: neither. */
    uint32_t fused;
} edge_op_info;
uint32_t edge_num_ops(const edge_model *m);
edge_status edge_op_info_at(const edge_model *m, uint32_t i, edge_op_info *info);

/* Arena offset of a planned tensor, -1 for constants and unplanned ones. */
int64_t edge_tensor_arena_offset(const edge_model *m, uint32_t i);

void edge_set_profiler(edge_model *m, edge_profile_fn fn, void *user);

const char *edge_status_str(edge_status s);
/* The last error in words: what, where (op index, table, field). */
const char *edge_model_error(const edge_model *m);
const char *edge_type_name(edge_type t);
size_t edge_type_size(edge_type t);

#ifdef __cplusplus
}
#endif
#endif
