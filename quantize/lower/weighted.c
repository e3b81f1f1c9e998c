/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weighted.c — lowering the layers with weights: Conv2D, DepthwiseConv2D
 * and Dense (per-channel int8 filters, int32 biases; float and bf16 files
 * keep them as floats). See lower_ctx.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "edge/edge.h"
#include "edge/quant.h"
#include "lower_ctx.h"

/* quantization_driver.cc: a bias may use at most INT32_MAX / 2 steps, to
 * leave the accumulator room. */
#define BIAS_MAX ((double)(INT32_MAX / 2))

/* Symmetric int8 weights and int32 bias, as the converter's legacy float
 * path computes them. Channel of element e: inner ? e % C : e / (n / C).
 *   weight scale  per channel (or one for the tensor): max|w| / 127 in float
 *                 (edgeq_weight_scale);
 *   bias scale    float(in_scale * w_scale), zero point 0; when a bias would
 *                 need more than INT32_MAX / 2 steps, the bias scale becomes
 *                 |b| / (INT32_MAX / 2) and the weight scale follows
 *                 (bias scale / in_scale) — a dead channel (weights ~0 after
 *                 BatchNorm folding) keeps its bias exactly that way;
 *   values        q = round(w * float(1 / scale)) and round(b * float(1 /
 *                 bias scale)) in float, ties away from zero, clamped.
 * Writes wscale[nq], q[n], bscale[nq] and bq[C] (nq = C or 1). */
static int quantize_weights(lower_ctx *c, const edgeq_node *n, const float *w, size_t count, int C,
                            int inner, int per_channel, const float *bias, float in_scale,
                            float *wscale, int8_t *q, float *bscale, int32_t *bq) {
    size_t per = count / (size_t)C;
    int nq = per_channel ? C : 1;
    float *mn = calloc((size_t)C, sizeof *mn), *mx = calloc((size_t)C, sizeof *mx);
    if (!mn || !mx) {
        free(mn);
        free(mx);
        return lq_oom(c);
    }
    for (size_t e = 0; e < count; e++) {
        int ch = inner ? (int)(e % (size_t)C) : (int)(e / per);
        float v = w[e];
        if (!isfinite(v)) {
            free(mn);
            free(mx);
            return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): a weight is NaN or infinite",
                         n->name, n->keras_class);
        }
        if (v < mn[ch]) mn[ch] = v;
        if (v > mx[ch]) mx[ch] = v;
    }
    if (per_channel) {
        for (int k = 0; k < C; k++) wscale[k] = edgeq_weight_scale(mn[k], mx[k]);
    } else {
        float a = 0, b = 0;
        for (int k = 0; k < C; k++) {
            if (mn[k] < a) a = mn[k];
            if (mx[k] > b) b = mx[k];
        }
        wscale[0] = edgeq_weight_scale(a, b);
    }
    free(mn);
    free(mx);
    for (int k = 0; k < C; k++)
        if (bias && !isfinite(bias[k]))
            return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): a bias is NaN or infinite",
                         n->name, n->keras_class);
    for (int k = 0; k < nq; k++) bscale[k] = in_scale * wscale[k];
    if (bias && per_channel) {
        for (int k = 0; k < C; k++) {
            double ab = fabs((double)bias[k]);
            if (ab / (double)bscale[k] > BIAS_MAX) {
                double bs = ab / BIAS_MAX;
                bscale[k] = (float)bs;
                wscale[k] = (float)(bs / (double)in_scale);
            }
        }
    } else if (bias) {
        double half = 0;
        for (int k = 0; k < C; k++)
            if (fabs((double)bias[k]) > half) half = fabs((double)bias[k]);
        if (half / (double)bscale[0] >= BIAS_MAX) {
            double bs = half / BIAS_MAX;
            bscale[0] = (float)bs;
            wscale[0] = (float)(bs / (double)in_scale);
        }
    }
    for (int k = 0; k < nq; k++)
        if (!(wscale[k] > 0.0f) || !isfinite(wscale[k]) || !(bscale[k] > 0.0f) ||
            !isfinite(bscale[k]))
            return lq_failf(c, EDGEQ_LOWER_FAIL,
                         "layer '%s' (%s): weights or bias cannot be quantized (scale %g)",
                         n->name, n->keras_class, (double)wscale[k]);
    for (size_t e = 0; e < count; e++) {
        int ch = inner ? (int)(e % (size_t)C) : (int)(e / per);
        float inv = (float)(1.0 / (double)wscale[per_channel ? ch : 0]);
        float v = edge_roundf(w[e] * inv);
        q[e] = (int8_t)(v < -127.0f ? -127 : v > 127.0f ? 127 : (int)v);
    }
    for (int k = 0; k < C; k++) {
        float inv = (float)(1.0 / (double)bscale[per_channel ? k : 0]);
        double v = bias ? (double)edge_roundf(bias[k] * inv) : 0.0;
        bq[k] = v < -2147483647.0 ? -2147483647 : v > 2147483647.0 ? 2147483647 : (int32_t)v;
    }
    return 0;
}

/* `n` float32 values as a constant of the float file's weight type (bf16
 * rounded to nearest even, or float32 as they are); takes ownership of v. */
static int float_weight_tensors(lower_ctx *c, int i, float *wt, size_t count, int rank,
                                const int32_t *wshape, int C, float *b, int *wt_t, int *b_t) {
    const edgeq_node *n = &c->g->nodes[i];
    *wt_t = lq_float_const(c, n->name, "/kernel", c->wtype, rank, wshape, wt, count);
    if (*wt_t < 0) {
        free(b);
        return lq_oom(c);
    }
    int32_t bshape[1] = {C};
    *b_t = lq_float_const(c, n->name, "/bias", EDGE_FLOAT32, 1, bshape, b, (size_t)C);
    return *b_t < 0 ? lq_oom(c) : 0;
}

/* Weight + bias tensors of a conv-like node from float arrays in TFLite
 * layout. Takes ownership of wt and b. */
static int weight_tensors(lower_ctx *c, int i, float *wt, size_t count, int rank,
                          const int32_t *wshape, int C, int inner, int per_channel, int qdim,
                          float *b, float in_scale, int *wt_t, int *b_t) {
    const edgeq_node *n = &c->g->nodes[i];
    if (c->flt) return float_weight_tensors(c, i, wt, count, rank, wshape, C, b, wt_t, b_t);
    int nq = per_channel ? C : 1;
    float *ws = calloc((size_t)nq, sizeof *ws), *bs = calloc((size_t)nq, sizeof *bs);
    int8_t *q = malloc(count ? count : 1);
    int32_t *bq = malloc((size_t)C * sizeof *bq);
    int rc = 0;
    if (!ws || !bs || !q || !bq) {
        rc = lq_oom(c);
        goto out;
    }
    rc = quantize_weights(c, n, wt, count, C, inner, per_channel, b, in_scale, ws, q, bs, bq);
    if (rc) goto out;
    *wt_t = lq_const_tensor(c, n->name, "/kernel", EDGE_INT8, rank, wshape, q);
    q = NULL;
    if (*wt_t < 0 || lq_set_q(&c->m->t[*wt_t], nq, ws, NULL, per_channel ? qdim : 0)) {
        rc = lq_oom(c);
        goto out;
    }
    int32_t bshape[1] = {C};
    *b_t = lq_const_tensor(c, n->name, "/bias", EDGE_INT32, 1, bshape, bq);
    bq = NULL;
    if (*b_t < 0 || lq_set_q(&c->m->t[*b_t], nq, bs, NULL, 0)) rc = lq_oom(c);
out:
    free(ws);
    free(bs);
    free(q);
    free(bq);
    free(wt);
    free(b);
    return rc;
}

int lq_lower_conv(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    if (n->rank != 4 || ni->rank != 4)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): only 2-D convolutions of NHWC tensors are supported",
                     n->name, n->keras_class);
    int kh = n->kh, kw = n->kw, groups = n->groups, cout = n->shape[3];
    /* Grouped: TFLite reads the groups from input channels / filter input
     * channels; the filter stays [cout][kh][kw][cin / groups]. */
    if (groups < 1 || ni->shape[3] % groups || cout % groups)
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): %d groups do not divide the channels",
                     n->name, n->keras_class, groups);
    int cin = ni->shape[3] / groups;
    size_t count = (size_t)kh * kw * cin * cout;
    if (!n->kernel || n->kernel_len != count || (n->bias && n->bias_len != (size_t)cout))
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): kernel/bias sizes do not match the layer",
                     n->name, n->keras_class);
    int act;
    int rc = lq_fused_act(c, n, &act);
    if (rc) return rc;
    float s = c->fold_s[i], o = c->fold_o[i];
    float *wt = malloc(count * sizeof *wt), *b = calloc((size_t)cout, sizeof *b);
    if (!wt || !b) {
        free(wt);
        free(b);
        return lq_oom(c);
    }
    /* [kh][kw][cin][cout] -> [cout][kh][kw][cin] */
    for (int y = 0; y < kh; y++)
        for (int x = 0; x < kw; x++)
            for (int ci = 0; ci < cin; ci++)
                for (int co = 0; co < cout; co++) {
                    float v = n->kernel[(((size_t)y * kw + x) * cin + ci) * cout + co];
                    wt[(((size_t)co * kh + y) * kw + x) * cin + ci] = v * s;
                    if (o != 0.0f) b[co] += o * v; /* 0 * Inf would be NaN */
                }
    for (int co = 0; co < cout; co++) b[co] += n->bias ? n->bias[co] : 0.0f;
    int in = lq_in_t(c, n, 0);
    int32_t wshape[4] = {cout, kh, kw, cin};
    int wt_t, b_t;
    rc = weight_tensors(c, i, wt, count, 4, wshape, cout, 0, 1, 0, b, lq_tscale(c, in), &wt_t, &b_t);
    if (rc) return rc;
    int out = lq_act_tensor(c, i);
    if (out < 0) return out;
    /* op_version.cc: int8 is 3, grouped convolution 6. */
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_CONV_2D, groups > 1 ? 6 : lq_ver(c, 3), i);
    if (!op) return lq_oom(c);
    op->n_in = 3;
    op->in[0] = in;
    op->in[1] = wt_t;
    op->in[2] = b_t;
    op->n_out = 1;
    op->out[0] = out;
    op->o.padding = n->pad_same ? 0 : 1;
    op->o.stride_w = n->stride_w;
    op->o.stride_h = n->stride_h;
    op->o.dil_w = n->dil_w;
    op->o.dil_h = n->dil_h;
    op->o.act = act;
    c->node_t[i] = out;
    return 0;
}

int lq_lower_depthwise(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    if (n->rank != 4 || ni->rank != 4)
        return lq_failf(c, EDGEQ_LOWER_UNSUPPORTED, "layer '%s' (%s): only 2-D convolutions of NHWC tensors are supported",
                     n->name, n->keras_class);
    int kh = n->kh, kw = n->kw, cin = ni->shape[3], mult = n->depth_multiplier;
    int C = cin * mult;
    size_t count = (size_t)kh * kw * C;
    if (C != n->shape[3] || !n->kernel || n->kernel_len != count ||
        (n->bias && n->bias_len != (size_t)C))
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): kernel/bias sizes do not match the layer",
                     n->name, n->keras_class);
    int act;
    int rc = lq_fused_act(c, n, &act);
    if (rc) return rc;
    float s = c->fold_s[i], o = c->fold_o[i];
    float *wt = malloc(count * sizeof *wt), *b = calloc((size_t)C, sizeof *b);
    if (!wt || !b) {
        free(wt);
        free(b);
        return lq_oom(c);
    }
    /* [kh][kw][cin][m] is already [1][kh][kw][cin*m] in memory. */
    for (size_t e = 0; e < count; e++) {
        wt[e] = n->kernel[e] * s;
        if (o != 0.0f) b[e % (size_t)C] += o * n->kernel[e];
    }
    for (int k = 0; k < C; k++) b[k] += n->bias ? n->bias[k] : 0.0f;
    int in = lq_in_t(c, n, 0);
    int32_t wshape[4] = {1, kh, kw, C};
    int wt_t, b_t;
    rc = weight_tensors(c, i, wt, count, 4, wshape, C, 1, 1, 3, b, lq_tscale(c, in), &wt_t, &b_t);
    if (rc) return rc;
    int out = lq_act_tensor(c, i);
    if (out < 0) return out;
    /* float: 1, 2 with dilation */
    int dw_version = c->flt ? (n->dil_w > 1 || n->dil_h > 1 ? 2 : 1) : 3;
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_DEPTHWISE_CONV_2D, dw_version, i);
    if (!op) return lq_oom(c);
    op->n_in = 3;
    op->in[0] = in;
    op->in[1] = wt_t;
    op->in[2] = b_t;
    op->n_out = 1;
    op->out[0] = out;
    op->o.padding = n->pad_same ? 0 : 1;
    op->o.stride_w = n->stride_w;
    op->o.stride_h = n->stride_h;
    op->o.dil_w = n->dil_w;
    op->o.dil_h = n->dil_h;
    op->o.depth_multiplier = mult;
    op->o.act = act;
    c->node_t[i] = out;
    return 0;
}

int lq_lower_dense(lower_ctx *c, int i) {
    const edgeq_node *n = &c->g->nodes[i];
    const edgeq_node *ni = &c->g->nodes[n->in[0]];
    int N = ni->shape[ni->rank - 1], U = n->shape[n->rank - 1];
    size_t count = (size_t)N * U;
    if (!n->kernel || n->kernel_len != count || (n->bias && n->bias_len != (size_t)U))
        return lq_failf(c, EDGEQ_LOWER_FAIL, "layer '%s' (%s): kernel/bias sizes do not match the layer",
                     n->name, n->keras_class);
    int act;
    int rc = lq_fused_act(c, n, &act);
    if (rc) return rc;
    float s = c->fold_s[i], o = c->fold_o[i];
    float *wt = malloc(count * sizeof *wt), *b = calloc((size_t)U, sizeof *b);
    if (!wt || !b) {
        free(wt);
        free(b);
        return lq_oom(c);
    }
    /* [in][out] -> [out][in] */
    for (int k = 0; k < N; k++)
        for (int u = 0; u < U; u++) {
            float v = n->kernel[(size_t)k * U + u];
            wt[(size_t)u * N + k] = v * s;
            if (o != 0.0f) b[u] += o * v;
        }
    for (int u = 0; u < U; u++) b[u] += n->bias ? n->bias[u] : 0.0f;
    int in = lq_in_t(c, n, 0);
    int32_t wshape[2] = {U, N};
    int pc = c->o->dense_per_channel;
    int wt_t, b_t;
    rc = weight_tensors(c, i, wt, count, 2, wshape, U, 0, pc, 0, b, lq_tscale(c, in), &wt_t, &b_t);
    if (rc) return rc;
    int out = lq_act_tensor(c, i);
    if (out < 0) return out;
    int keep = ni->rank > 2;
    /* op_version.cc: int8 is 4 (per-channel too, as TF 2.21 writes it),
     * keep_num_dims 5. */
    edgeq_qop *op = lq_new_op(c, EDGE_BUILTIN_FULLY_CONNECTED, keep ? 5 : lq_ver(c, 4), i);
    if (!op) return lq_oom(c);
    op->n_in = 3;
    op->in[0] = in;
    op->in[1] = wt_t;
    op->in[2] = b_t;
    op->n_out = 1;
    op->out[0] = out;
    op->o.act = act;
    op->o.keep_dims = keep;
    c->node_t[i] = out;
    return 0;
}
