/* SPDX-License-Identifier: Apache-2.0 */
/*
 * op_common.h — what most ops' prepare and eval would otherwise each repeat:
 * the opening checks (edge_op_begin: operand counts, the operands that must
 * be there, the options table's type, one element type for input 0 and
 * output 0; every op's prepare starts with it, directly or through the
 * unary, binary and weighted openers built on it), the
 * closing params copy, and the eval of the pure views. Written once here
 * because every op had its own copy, some 150 bytes of code each on a
 * Cortex-M.
 */
#ifndef EDGE_OPS_OP_COMMON_H
#define EDGE_OPS_OP_COMMON_H

#include "ops.h"

/* What an op takes (a const table per op, in flash). */
typedef struct edge_op_form {
    uint8_t in_min, in_max; /* inputs; always one output */
    uint8_t need;           /* bit i: input i must be present (input 0 always) */
    uint8_t checks;         /* EDGE_FORM_* done at the end of edge_op_begin */
    uint8_t options_type;   /* BuiltinOptions type accepted besides none (0) */
    uint8_t options_alt;    /* a second one (PAD takes PADV2's), else 0 */
    const char *options_name; /* "SqueezeOptions", for the message */
} edge_op_form;

enum {
    EDGE_FORM_SAME_TYPE = 1, /* output 0's type is input 0's, else EDGE_ERR_MODEL */
    EDGE_FORM_ONE_TYPE = 2,  /* the same, refused as EDGE_ERR_UNSUPPORTED */
    EDGE_FORM_SIZED = 4,     /* input 0's type has an element size */
    EDGE_FORM_NUMERIC = 8,   /* input 0 is int8, uint8, int16 or float32 */
    EDGE_FORM_ANY_OPTIONS = 16 /* no options check: the op reads its own (or none) */
};

/* EDGE_OK with *in and *out (input 0, output 0) set, or the failure
 * recorded: a wrong count or a missing operand or options table of another
 * type is EDGE_ERR_MODEL; the type checks are those `checks` asks for, in
 * the order above. */
edge_status edge_op_begin(const edge_op_ctx *c, const edge_op_form *f, edge_tensor_rt **in,
                          edge_tensor_rt **out);
/* The type checks alone (for ops that validate other inputs first). */
edge_status edge_op_check_type(const edge_op_ctx *c, const edge_tensor_rt *in,
                               const edge_tensor_rt *out, uint32_t checks);

/* Input and output hold as many elements: EDGE_OK, else EDGE_ERR_SHAPE. */
edge_status edge_op_check_count(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out);

/* The requantization from in's scale to out's (per tensor), as TFLite's
 * QuantizeMultiplier of double(in_scale) / double(out_scale): EDGE_OK, or
 * EDGE_ERR_MODEL for a scale that is not positive, EDGE_ERR_UNSUPPORTED
 * for a shift past 30. */
edge_status edge_op_requant(const edge_op_ctx *c, const edge_tensor_rt *in, const edge_tensor_rt *out,
                            int32_t *mult, int *shift);

/* A tensor as outer x channels x inner elements around its quantized
 * dimension (per-tensor: 1 x 1 x all), for ops that take each channel's
 * scale and zero point in turn. Exact: the products are below 2^31 (or 0
 * for an empty tensor, computed unsigned). */
typedef struct edge_channel_layout {
    int32_t outer, channels, inner;
} edge_channel_layout;
void edge_op_channels(const edge_tensor_rt *t, edge_channel_layout *l);

/* The end of a prepare whose params are the n bytes at p: their size in the
 * sizing pass (c->params NULL), a copy of them in the fill pass. EDGE_OK. */
edge_status edge_op_keep_params(const edge_op_ctx *c, const void *p, uint32_t n);

/* The eval of the pure views (RESHAPE, SQUEEZE): input 0's bytes to output
 * 0, copied only when the planner did not place both on the same bytes. */
edge_status edge_op_view_eval(edge_op_ctx *c);

#endif
