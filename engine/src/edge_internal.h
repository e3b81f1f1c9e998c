/* SPDX-License-Identifier: Apache-2.0 */
/*
 * edge_internal.h — what the engine's modules share: the runtime records of
 * tensors and operators, the operator interface, and small helpers.
 * Not part of the public API.
 */
#ifndef EDGE_INTERNAL_H
#define EDGE_INTERNAL_H

#include "edge/edge.h"
#include "edge_config.h"
#include "fb.h"

/* Most inputs + outputs one operator may have (CONCATENATION is the wide one). */
#define EDGE_MAX_OP_IO 64


/* Record of one tensor as operators see it. Not stored per tensor: it is
 * rebuilt from the model and the tensor's edge_tensor_state each time an
 * operator asks for an operand (edge_in, edge_out), into a slot per operand
 * position, so the arena holds 20 bytes per tensor instead of a record. */
typedef struct edge_tensor_rt {
    edge_tensor t;          /* public view; t.data set once planned */
    const uint8_t *q_scale; /* little-endian float32[q_count], or NULL */
    const uint8_t *q_zero;  /* little-endian int64[q_count], or NULL */
    uint32_t q_count;
    int32_t q_dim;          /* quantized_dimension */
    uint32_t buffer;        /* index into the model's buffers */
    int32_t offset;         /* arena offset when planned, else -1 */
    int32_t alias_of;       /* shares the storage of this tensor, else -1 */
    uint8_t is_const;       /* data comes from the model */
    uint8_t is_variable;
} edge_tensor_rt;

/* What the arena keeps of each tensor between calls. */
typedef struct edge_tensor_state {
    int32_t offset;    /* arena offset when planned, else -1 */
    int32_t alias_of;  /* shares the storage of this tensor, else -1 */
    uint32_t data_off; /* constants: where their bytes start in the model */
    uint32_t bytes;    /* t.bytes (a prepare may settle the type: ADD does) */
    uint8_t type;      /* t.type, likewise */
    uint8_t is_const, is_variable;
    uint8_t fused;     /* between a fused pair: never in the arena (see ops/fused.c) */
} edge_tensor_state;

/* Engine-internal state of a loaded model (at the start of the arena). */
typedef struct edge_rt {
    struct edge_tensor_rt *slots; /* [n_slots]: operand records of the running op */
    uint8_t *act;                 /* activations base once planned, else NULL */
    uint32_t tensors_pos;         /* the subgraph's tensor vector in the model */
    uint32_t n_slots;             /* most operands of any op */
} edge_rt;

/* Rebuild tensor t's record into dst; returns dst (tensor.c). */
struct edge_tensor_rt *edge_tensor_record(const edge_model *m, uint32_t t, struct edge_tensor_rt *dst);
/* Tensor t's bytes: in the model (constants), in the arena once planned,
 * else NULL. */
void *edge_tensor_data_at(const edge_model *m, uint32_t t);

struct edge_op_impl;

/* Runtime record of one operator (lives in the arena; fields ordered so
 * that none pads: 80 bytes on 64-bit targets). */
typedef struct edge_op_rt {
    const struct edge_op_impl *impl;
    int32_t *io;             /* n_in inputs then n_out outputs; -1 = optional absent */
    void *params;            /* prepared parameters, params_bytes long */
    fb_table options;        /* builtin_options table (fb_table_null if absent) */
    uint64_t macs;
    uint64_t array_cycles;
    uint32_t params_bytes;
    uint32_t scratch_bytes;  /* per-invoke scratch, planned like a tensor */
    int32_t scratch_offset;  /* its arena offset, else -1 */
    int16_t stream_d16;      /* streaming limit D / 16 (edge_op_set_stream) */
    int16_t stream_e16;      /* reverse limit E / 16, EDGE_STREAM_NO_E if none */
    uint8_t stream_in;       /* bit i: output 0 may overlap input i (see below) */
    uint8_t stream_rev;      /* the plan needs the reverse order (output above input) */
    uint8_t n_in, n_out;     /* at most EDGE_MAX_OP_IO together */
    uint8_t options_type;
    uint8_t systolic;        /* runs on the systolic kernel */
    uint8_t fused;           /* EDGE_FUSED_* */
} edge_op_rt;

/* A fused pair (ops/fused.c): the head runs the tail inside its own eval,
 * row by row, and the tensor between them only ever exists as a few rows in
 * the head's scratch. The tail's eval is skipped; for the planner the pair
 * is one op at the head's index, whose streaming output is the tail's. */
enum { EDGE_FUSED_HEAD = 1, EDGE_FUSED_TAIL = 2 };

/*
 * Streaming outputs: the contract that lets the planner overlap an op's
 * output with an input that dies at that op.
 *
 * An op may declare, in its sizing pass (edge_op_set_stream), a set of
 * inputs and a limit D in bytes (a multiple of 16, usually negative). It
 * promises, for output 0 and each declared input i:
 *
 *     after it writes byte w of output 0, the op never reads byte r of
 *     input i with r <= w + D   (byte indices from each tensor's start).
 *
 * Then, when input i is last read by this op, the planner may place output
 * 0 at any offset out_off <= in_off + D, even overlapping input i: a write
 * to output byte w lands on input byte w + (out_off - in_off) <= w + D,
 * which is never read again. Every eval path of the op (portable, x86
 * AVX2/VNNI, Arm DSP/NEON/MVE, whatever the build or CPU picks) must keep
 * the promise, and D must not depend on which one runs: the plan is the
 * same on every target. A kernel writer who changes an op's loop order
 * (channel blocks outermost, tiles out of raster order, reading ahead,
 * writing an output row before reading the input it needs) must change D
 * with it, or clear the declaration.
 *
 * The declarations in use (batch 1 only; stream.c derives D):
 *   - CONV_2D: output pixels in raster (NHWC) order, in tiles of at most 16
 *     pixels starting at multiples of 16 (the x86 panel kernels: 16; the
 *     portable/DSP/NEON GEMM: EDGE_SYSTOLIC_ROWS, which must divide 16), all
 *     channels (and groups) of a tile before the next tile; a tile reads
 *     only the input its own pixels' windows cover (in im2col, panels or
 *     straight from the input) and writes only its own pixels.
 *   - DEPTHWISE_CONV_2D with at most 64 output channels (the portable, DSP
 *     and AVX2 kernels loop over 64-channel blocks outermost; one block
 *     leaves raster order): one output row at a time, raster order.
 *   - AVERAGE_POOL_2D, MAX_POOL_2D: one output pixel at a time, raster order.
 *   - ADD, SUB, MUL: inputs of the output's shape and element size, D = 0:
 *     element i (or a block of them) is read before it is written, in
 *     increasing order.
 *   - Fused pairs (fused.c): the tail's output over the head's input 0, in
 *     chunks of output rows, forwards (D) or backwards (E).
 * For the windowed ops, with tiles [p0, p0 + T) of output pixels:
 *   R(p0) = the lowest input byte any pixel >= p0 reads (its window's first
 *           row and column clipped to the image, NHWC),
 *   W(p0) = min(p0 + T, pixels) * output bytes per pixel,
 *   D     = min over tile starts p0 of R(p0) - W(p0), rounded down to 16.
 * Ops run through float_wrap with a BFLOAT16 operand declare nothing.
 *
 * Reverse: an op that can also produce its output from the end backwards
 * may declare a second limit E for a single input. Run in reverse, it
 * promises: after it writes byte w of output 0, it never reads byte r of
 * the input with r >= w + E. The planner may then place the output at
 * out_off >= in_off + E instead (over the input's end); when it does, it
 * sets stream_rev, and the op must run in reverse. Fused pairs declare both
 * (fused.c).
 *
 * edgeq writes its plan into the .tflite files it makes for TFLM, whose
 * kernels keep no such promise: those plans are made with
 * EDGE_PLAN_NO_OVERLAP (edge_model_init_ex), which ignores declarations.
 */

/* What an operator's prepare and eval see. */
typedef struct edge_op_ctx {
    edge_model *m;
    uint32_t index; /* operator index in the subgraph */
    edge_op_rt *op;
    void *params;   /* prepare: NULL in the sizing pass; eval: prepared params */
    void *scratch;  /* eval: op->scratch_bytes of planned scratch */
    /* NULL, or one entry per operand (inputs then outputs): operands shown
     * to the op as other bytes (float_wrap runs bfloat16 as float32). */
    const struct edge_operand_view *view;
} edge_op_ctx;

typedef struct edge_operand_view {
    void *data;     /* NULL: the sizing pass, data not known yet */
    uint32_t bytes;
    uint8_t type;   /* edge_type */
    uint8_t set;    /* 0: the operand as the model has it */
} edge_operand_view;

/*
 * An operator implementation.
 *
 * prepare() is called twice at load time. First with c->params == NULL: it
 * validates types and shapes and sets c->op->params_bytes, scratch_bytes,
 * macs, array_cycles and systolic. Then with c->params pointing at
 * params_bytes of zeroed, 16-byte-aligned arena: it fills them (requant
 * multipliers, packed weights...). Tensor data pointers are not valid yet in
 * prepare (except constants'). eval() computes; it never fails on a model
 * prepare accepted except for runtime-only checks.
 */
typedef struct edge_op_impl {
    int32_t code;
    const char *name;
    edge_status (*prepare)(edge_op_ctx *c);
    edge_status (*eval)(edge_op_ctx *c);
    /* Output 0 may share input 0's bytes (a pure view: RESHAPE, SQUEEZE).
     * eval must still copy when the data pointers differ. */
    uint8_t view_of_input0;
    /* Optional (edge_model_pack): the bytes of constants this op lays out
     * once for its kernel instead of on every eval, e.g. weights re-laid
     * for vector loads; with dst (32-byte aligned) it also lays them out
     * there and keeps the pointer in its params. 0: nothing to pack. */
    uint32_t (*pack)(edge_op_ctx *c, uint8_t *dst);
    /* Optional: 1 when this op may head a fused pair with the
     * DEPTHWISE_CONV_2D after it (ops/fused.c; the int8 CONV_2D). */
    uint8_t fuse_head;
} edge_op_impl;

/* Registry (ops/registry.c). */
const edge_op_impl *edge_op_find(int32_t builtin_code);
/* The float twin of an op (EDGE_FLOAT_OP_LIST), or NULL. */
const edge_op_impl *edge_op_find_float(int32_t builtin_code);
const char *edge_builtin_name(int32_t builtin_code); /* "CONV_2D", "UNKNOWN" */
/* 1 when this build keeps only some ops (EDGE_OPS_HEADER, see registry.c). */
int edge_op_set_partial(void);

/* Operands: NULL when the index is out of range or the slot is -1. */
edge_tensor_rt *edge_in(const edge_op_ctx *c, uint32_t i);
edge_tensor_rt *edge_out(const edge_op_ctx *c, uint32_t i);
/* An operand's data alone, without rebuilding its record (for eval); NULL
 * when absent. */
void *edge_in_data(const edge_op_ctx *c, uint32_t i);
void *edge_out_data(const edge_op_ctx *c, uint32_t i);

/* Builtin options by field id (as numbered in the schema; a union counts two
 * ids). Absent table or field: the default. */
int32_t edge_opt_i32(const edge_op_ctx *c, uint32_t field, int32_t def);
int32_t edge_opt_u8(const edge_op_ctx *c, uint32_t field, int32_t def); /* byte enums, bools */
float edge_opt_f32(const edge_op_ctx *c, uint32_t field, float def);
/* An int32 vector option: its elements (read with fb_i32_at) and count;
 * NULL and 0 when absent. */
const uint8_t *edge_opt_vec_i32(const edge_op_ctx *c, uint32_t field, uint32_t *count);

/* Quantization of a tensor: channel i's scale and zero point (i clamped to
 * the per-tensor value when the tensor is per-tensor). */
float edge_q_scale(const edge_tensor_rt *t, uint32_t i);
int32_t edge_q_zero(const edge_tensor_rt *t, uint32_t i);

/* Element count, and dims[i] with negative i counting from the end. */
int64_t edge_numel(const edge_tensor *t);
int32_t edge_dim(const edge_tensor *t, int32_t i);
int edge_same_shape(const edge_tensor *a, const edge_tensor *b);

/* Declare, in the sizing pass, that output 0 streams over the inputs in
 * in_mask (bit i = input i, i < 8) with limit d bytes (see "Streaming
 * outputs" above). Rounds d down to 16; a d too negative to store
 * declares nothing (always safe). */
void edge_op_set_stream(edge_op_ctx *c, uint32_t in_mask, int64_t d);

/* After edge_op_set_stream with one input: the op can also run in reverse
 * (see "Streaming outputs"), with limit e (rounded up to 16; too large to
 * store: no reverse). */
#define EDGE_STREAM_NO_E INT16_MAX
void edge_op_set_stream_reverse(edge_op_ctx *c, int64_t e);

/* D for a windowed op over one NHWC image (see "Streaming outputs"): in_px
 * and out_px are bytes per pixel, tile the output pixels per tile. */
typedef struct edge_window_geom {
    int32_t in_h, in_w, out_h, out_w;
    int32_t stride_h, stride_w, pad_h, pad_w;
    int64_t in_px, out_px;
} edge_window_geom;
int64_t edge_window_stream_d(const edge_window_geom *g, int64_t tile);

/* ADD, SUB, MUL: D = 0 over each of inputs a, b (b may be NULL) that has
 * the output's shape and type (a broadcast input is read out of order). */
void edge_stream_elementwise(edge_op_ctx *c, const edge_tensor_rt *a, const edge_tensor_rt *b,
                             const edge_tensor_rt *out);

/* Fused pairs (ops/fused.c): a 1x1 stride-1 CONV_2D (the head) followed by
 * the DEPTHWISE_CONV_2D that alone reads its output. */
typedef void (*edge_rows_fn)(const void *state, int32_t r0, int32_t r1, uint8_t *dst);
/* The head's sizing pass: fuse with the next op if it can. in_row_bytes:
 * one row of the head's input. On success marks both ops and the tensor,
 * declares the pair's streaming limit over the head's input 0, and returns
 * the ring's rows and bytes (the head adds them to its scratch). */
int edge_fuse_try(edge_op_ctx *c, int64_t in_row_bytes, uint32_t *ring_rows, uint32_t *ring_bytes);
/* The head's eval: the tail's output, computing the head's output rows
 * [r0, r1) into dst with rows(state, r0, r1, dst) as the tail needs them,
 * `chunk` tail output rows at a time (0: the planned chunks, whose ring is
 * in the head's scratch). */
edge_status edge_fused_run(const edge_op_ctx *c, uint8_t *ring, uint32_t ring_rows, int32_t chunk,
                           edge_rows_fn rows, const void *state);
/* Larger chunks for a ring of the caller's own (host stack): the chunk of
 * about `pixels` tail output pixels, or less, whose ring fits max_bytes
 * (its rows in *ring_rows); 0 when none beats the planned chunks. Any
 * chunking keeps the pair's streaming limits: every chunk end is one of
 * the planned chunks' ends, and each chunk reads before it writes. */
int32_t edge_fused_chunk(const edge_op_ctx *c, int32_t pixels, uint32_t max_bytes, uint32_t *ring_rows);

/* The checks a one-input elementwise op starts with: 1 input and 1 output,
 * both there, of one type, that type in `types` (EDGE_TYPE_BIT of each;
 * `names` lists them for the message), one shape, and, for a type other than
 * float32, quantization on both. EDGE_OK with *in and *out set, or the
 * failure recorded. */
#define EDGE_TYPE_BIT(t) (1u << (uint32_t)(t))
#define EDGE_TYPES_F32_8BIT \
    (EDGE_TYPE_BIT(EDGE_FLOAT32) | EDGE_TYPE_BIT(EDGE_INT8) | (EDGE_WITH_UINT8 ? EDGE_TYPE_BIT(EDGE_UINT8) : 0u))
#define EDGE_TYPES_F32_8BIT_S16 (EDGE_TYPES_F32_8BIT | EDGE_TYPE_BIT(EDGE_INT16))
edge_status edge_unary_prepare(const edge_op_ctx *c, uint32_t types, const char *names,
                               edge_tensor_rt **in, edge_tensor_rt **out);

/* Record an error ("op 3 (CONV_2D): <message>") on the model and return s.
 * fmt understands %s %d %u %ld %lu %zu %x %c and %%. */
edge_status edge_op_fail(const edge_op_ctx *c, edge_status s, const char *fmt, ...);
edge_status edge_fail(edge_model *m, edge_status s, const char *fmt, ...);

/* Freestanding memory helpers (no libc in the core). */
void edge_memcpy(void *dst, const void *src, size_t n);
void edge_memset(void *dst, int v, size_t n);
void edge_memmove(void *dst, const void *src, size_t n);

#endif
