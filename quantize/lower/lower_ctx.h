/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lower_ctx.h — the lowering's working state and the helpers that add
 * tensors and operators to the model being built (emit.c). Shared by
 * lower.c and the layer families' lowering (keras/layers/).
 */
#ifndef EDGEQ_LOWER_CTX_H
#define EDGEQ_LOWER_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "lower.h"

typedef struct lower_ctx {
    const edgeq_graph *g;
    const edgeq_lower_opts *o;
    edgeq_qmodel *m;
    char *err;
    size_t err_len;
    int *node_t;    /* node -> tensor with its int8 output, -1 none yet */
    int *n_users;   /* distinct consumer nodes, + 1 per graph-output use */
    float *fold_s;  /* per node: input rescale folded into its weights (1, 0: none) */
    float *fold_o;
    /* Float files (dtype F32/BF16): */
    int flt;        /* 1: no quantization at all */
    int act_type;   /* activations inside the model: FLOAT32 or BFLOAT16 */
    int wtype;      /* filters and other float constants: FLOAT32 or BFLOAT16 */
    char *want_f32; /* per node: its output must be FLOAT32 (feeds a model output) */
} lower_ctx;

/* The message into c->err; returns `code` (EDGEQ_LOWER_FAIL / _UNSUPPORTED). */
int lq_failf(lower_ctx *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int lq_oom(lower_ctx *c);
size_t lq_type_size(int type);
int lq_ver(const lower_ctx *c, int int8_version);
int lq_node_type(const lower_ctx *c, int i);
size_t lq_numel_of(int rank, const int32_t *shape);
int lq_new_tensor(lower_ctx *c, const char *name, const char *suffix, int type, int rank, const int32_t *shape);
int lq_set_q(edgeq_qtensor *t, int n, const float *scale, const int64_t *zp, int qdim);
int lq_set_q1(edgeq_qtensor *t, float scale, int64_t zp);
int lq_copy_q(edgeq_qtensor *dst, const edgeq_qtensor *src);
int lq_same_q(const edgeq_qtensor *a, const edgeq_qtensor *b);
int lq_const_tensor(lower_ctx *c, const char *name, const char *suffix, int type, int rank, const int32_t *shape, void *data);
int lq_i32_const(lower_ctx *c, const char *name, const char *suffix, int rank, const int32_t *shape, const int32_t *values);
edgeq_qop *lq_new_op(lower_ctx *c, int code, int version, int node);
edgeq_qop *lq_op1(lower_ctx *c, int code, int version, int node, int in, int out);
void lq_shape_of(const edgeq_node *n, int32_t *shape);
int lq_act_tensor_range(lower_ctx *c, int i, const char *suffix, int rank, const int32_t *shape, float lo, float hi);
int lq_act_tensor(lower_ctx *c, int i);
int lq_fixed_tensor(lower_ctx *c, int i, const char *suffix, float scale, int32_t zp);
int lq_same_tensor(lower_ctx *c, int i, const char *suffix, int rank, const int32_t *shape, int like);
int lq_in_t(lower_ctx *c, const edgeq_node *n, int k);
float lq_tscale(lower_ctx *c, int t);

/* emit.c: the fused activation TFLite can take for node n (*act), or an
 * error for one it cannot; a float constant tensor owning `data`. */
int lq_fused_act(lower_ctx *c, const edgeq_node *n, int *act);
int lq_float_const(lower_ctx *c, const char *name, const char *suffix, int type, int rank, const int32_t *shape, float *v, size_t n);

/* weighted.c: node i lowered (0 or EDGEQ_LOWER_*). */
int lq_lower_conv(lower_ctx *c, int i);
int lq_lower_depthwise(lower_ctx *c, int i);
int lq_lower_dense(lower_ctx *c, int i);

#endif
