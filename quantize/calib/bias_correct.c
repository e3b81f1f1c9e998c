/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bias_correct.c — fold the mean effect of bf16-rounded filters into the
 * float32 biases (see bias_correct.h).
 */
#include "bias_correct.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/bf16.h"
#include "graph/float_exec.h"
#include "lower/lower.h"

/* One weighted layer: its rounded filter, working bias, and the sums of its
 * im2col taps over the samples and output positions. */
typedef struct layer {
    int node;
    int cout;        /* output channels = bias length */
    size_t taps;     /* Dense: inputs; conv: kh * kw * cin */
    float s, o;      /* the input Rescaling the writer folds into W (1, 0: none) */
    float *w16;      /* the executor's filter: bf16(W * s) / s, what the file computes */
    float *dw;       /* bf16(W * s) - W * s: the written filter's rounding error */
    float *bias;     /* the executor's bias: original + correction */
    double *sum;     /* taps */
    double count;    /* positions summed (samples x output positions) */
    double *corr;    /* cout */
} layer;

static int weighted(const edgeq_node *n) {
    return (n->op == EDGEQ_OP_CONV2D || n->op == EDGEQ_OP_DEPTHWISE_CONV2D ||
            n->op == EDGEQ_OP_DENSE) && n->kernel && n->kernel_len > 0;
}

static int all_finite(const float *v, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (!isfinite(v[k])) return 0;
    return 1;
}

static int out_channels(const edgeq_node *n) {
    return n->op == EDGEQ_OP_DEPTHWISE_CONV2D ? n->shape[n->rank - 1] : n->filters;
}

static int setup(const edgeq_graph *g, const edgeq_node *n, int i, layer *L) {
    memset(L, 0, sizeof *L);
    L->node = i;
    L->cout = out_channels(n);
    const edgeq_node *in = &g->nodes[n->in[0]];
    int cin = in->shape[in->rank - 1];
    if (n->op == EDGEQ_OP_DENSE)
        L->taps = (size_t)cin;
    else
        L->taps = (size_t)n->kh * (size_t)n->kw * (size_t)cin;
    L->s = 1.0f;
    L->o = 0.0f;
    edgeq_lower_folded_input(g, i, &L->s, &L->o);
    L->w16 = malloc(n->kernel_len * sizeof(float));
    L->dw = malloc(n->kernel_len * sizeof(float));
    L->bias = calloc((size_t)L->cout, sizeof(float));
    L->sum = calloc(L->taps, sizeof(double));
    L->corr = calloc((size_t)L->cout, sizeof(double));
    if (!L->w16 || !L->dw || !L->bias || !L->sum || !L->corr) return -1;
    for (size_t k = 0; k < n->kernel_len; k++) {
        float w = n->kernel[k] * L->s; /* as lower.c writes it */
        float r = edgeq_bf16_to_f32(edgeq_bf16_from_f32(w));
        L->dw[k] = r - w; /* exact: r and w agree in sign and exponent (or r is a power of 2) */
        L->w16[k] = L->s == 1.0f ? r : r / L->s;
    }
    return 0;
}

/* TensorFlow's padding before the first row / column ('same'), else 0. */
static int pad_before(int in, int out, int k, int stride, int dil, int same) {
    if (!same) return 0;
    long total = (long)(out - 1) * stride + (long)(k - 1) * dil + 1 - in;
    return total > 0 ? (int)(total / 2) : 0;
}

/* Add the im2col taps of one sample's input x to L->sum. */
static void observe(const edgeq_graph *g, const edgeq_node *n, const float *x, layer *L) {
    const edgeq_node *in = &g->nodes[n->in[0]];
    int cin = in->shape[in->rank - 1];
    if (n->op == EDGEQ_OP_DENSE) {
        size_t pos = edgeq_node_numel(in) / (size_t)cin;
        for (size_t p = 0; p < pos; p++)
            for (int k = 0; k < cin; k++) L->sum[k] += x[p * (size_t)cin + (size_t)k];
        L->count += (double)pos;
        return;
    }
    int H = in->shape[1], W = in->shape[2], OH = n->shape[1], OW = n->shape[2];
    int pt = pad_before(H, OH, n->kh, n->stride_h, n->dil_h, n->pad_same);
    int pl = pad_before(W, OW, n->kw, n->stride_w, n->dil_w, n->pad_same);
    for (int a = 0; a < OH; a++)
        for (int i = 0; i < n->kh; i++) {
            int ih = a * n->stride_h + i * n->dil_h - pt;
            if (ih < 0 || ih >= H) continue; /* padding: adds 0 */
            for (int b = 0; b < OW; b++)
                for (int j = 0; j < n->kw; j++) {
                    int iw = b * n->stride_w + j * n->dil_w - pl;
                    if (iw < 0 || iw >= W) continue;
                    const float *px = x + ((size_t)ih * (size_t)W + (size_t)iw) * (size_t)cin;
                    double *s = L->sum + ((size_t)i * (size_t)n->kw + (size_t)j) * (size_t)cin;
                    for (int c = 0; c < cin; c++) s[c] += px[c];
                }
        }
    L->count += (double)OH * (double)OW;
}

/* corr[n] = -sum_k (bf16(W_nk) - W_nk) * E[x_k], in Keras's layouts. */
static void finish(const edgeq_graph *g, const edgeq_node *n, layer *L) {
    const edgeq_node *in = &g->nodes[n->in[0]];
    int cin = in->shape[in->rank - 1];
    int cout = L->cout;
    for (int co = 0; co < cout; co++) L->corr[co] = 0.0;
    if (L->count <= 0) return;
    for (size_t t = 0; t < L->taps; t++) {
        /* The file's input is the raw x_raw = (x - o) / s; a folded input with
         * an offset has no padded taps (lower.h), so every tap shifts by o. */
        double e = (L->sum[t] / L->count - (double)L->o) / (double)L->s;
        if (e == 0.0) continue;
        if (n->op == EDGEQ_OP_DENSE) { /* [in][out] */
            for (int co = 0; co < cout; co++) {
                size_t k = t * (size_t)cout + (size_t)co;
                L->corr[co] -= (double)L->dw[k] * e;
            }
        } else if (n->op == EDGEQ_OP_DEPTHWISE_CONV2D) { /* [kh][kw][cin][m] */
            int c = (int)(t % (size_t)cin), m = n->depth_multiplier;
            size_t ij = t / (size_t)cin;
            for (int q = 0; q < m; q++) {
                size_t k = (ij * (size_t)cin + (size_t)c) * (size_t)m + (size_t)q;
                L->corr[c * m + q] -= (double)L->dw[k] * e;
            }
        } else { /* [kh][kw][cin/groups][cout]; out channel co reads group co / (cout/groups) */
            int groups = n->groups > 0 ? n->groups : 1;
            int cpg = cin / groups, opg = cout / groups;
            int c = (int)(t % (size_t)cin), grp = c / cpg;
            size_t ij = t / (size_t)cin;
            for (int co = grp * opg; co < (grp + 1) * opg; co++) {
                size_t k = (ij * (size_t)cpg + (size_t)(c % cpg)) * (size_t)cout + (size_t)co;
                L->corr[co] -= (double)L->dw[k] * e;
            }
        }
    }
}

int edgeq_bias_correct_bf16(edgeq_graph *g, const edgeq_calib_set *set,
                            edgeq_bias_correct_stats *st, char *err, size_t err_len) {
    memset(st, 0, sizeof *st);
    if (!set || set->count <= 0) {
        snprintf(err, err_len, "bias correction needs calibration samples");
        return -1;
    }
    int nl = 0;
    layer *L = calloc((size_t)g->n + 1, sizeof *L);
    edgeq_node *nodes = malloc((size_t)g->n * sizeof *nodes + 1);
    edgeq_graph w = *g; /* the model as the bf16 file computes it */
    edgeq_float_exec x;
    memset(&x, 0, sizeof x);
    int rc = -1;
    if (!L || !nodes) goto oom;
    memcpy(nodes, g->nodes, (size_t)g->n * sizeof *nodes);
    w.nodes = nodes;
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        if (!weighted(n)) continue;
        const edgeq_node *in = &g->nodes[n->in[0]];
        int ok = n->n_in >= 1 && in->rank >= 1 &&
                 (n->op == EDGEQ_OP_DENSE || (n->rank == 4 && in->rank == 4)) &&
                 (!n->bias || n->bias_len == (size_t)out_channels(n)) &&
                 all_finite(n->kernel, n->kernel_len) &&
                 (!n->bias || all_finite(n->bias, n->bias_len));
        if (!ok) {
            st->skipped++;
            continue;
        }
        if (setup(g, n, i, &L[nl]) != 0) {
            nl++;
            goto oom;
        }
        nodes[i].kernel = L[nl].w16;
        nodes[i].bias = L[nl].bias;
        nodes[i].bias_len = (size_t)L[nl].cout;
        nl++;
    }
    if (nl == 0) {
        rc = 0;
        goto out;
    }
    if (edgeq_float_exec_init(&x, &w, err, err_len) != 0) goto out;
    for (int pass = 0; pass < EDGEQ_BIAS_CORRECT_PASSES; pass++) {
        for (int l = 0; l < nl; l++) {
            const edgeq_node *n = &g->nodes[L[l].node];
            for (int co = 0; co < L[l].cout; co++)
                L[l].bias[co] = (float)((n->bias ? (double)n->bias[co] : 0.0) + L[l].corr[co]);
            memset(L[l].sum, 0, L[l].taps * sizeof(double));
            L[l].count = 0;
        }
        for (int s = 0; s < set->count; s++) {
            const float *in[8];
            for (int k = 0; k < set->n_inputs && k < 8; k++) in[k] = edgeq_calib_sample(set, k, s);
            if (edgeq_float_exec_run(&x, in, err, err_len) != 0) goto out;
            for (int l = 0; l < nl; l++) {
                const edgeq_node *n = &g->nodes[L[l].node];
                observe(g, n, x.buf[n->in[0]], &L[l]);
            }
        }
        for (int l = 0; l < nl; l++) finish(g, &g->nodes[L[l].node], &L[l]);
    }
    /* Into the real graph: biases only (the filters are rounded when written). */
    for (int l = 0; l < nl; l++) {
        edgeq_node *n = &g->nodes[L[l].node];
        int cout = L[l].cout, finite = 1;
        for (int co = 0; co < cout; co++)
            finite &= isfinite((float)((n->bias ? (double)n->bias[co] : 0.0) + L[l].corr[co]));
        if (!finite) { /* a filter near the float range: W * s overflowed */
            st->skipped++;
            continue;
        }
        if (!n->bias) {
            n->bias = calloc((size_t)cout, sizeof(float));
            if (!n->bias) goto oom;
            n->bias_len = (size_t)cout;
        }
        double bmax = 0;
        for (int co = 0; co < cout; co++) bmax = fmax(bmax, fabs((double)n->bias[co]));
        for (int co = 0; co < cout; co++) {
            float b = (float)((double)n->bias[co] + L[l].corr[co]);
            double shift = fabs(L[l].corr[co]) / (bmax > 0 ? bmax : 1.0);
            if (shift > st->max_shift) st->max_shift = shift;
            n->bias[co] = b;
        }
        st->layers++;
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, err_len, "out of memory (bias correction)");
out:
    edgeq_float_exec_free(&x);
    for (int l = 0; L && l < nl; l++) {
        free(L[l].w16);
        free(L[l].dw);
        free(L[l].bias);
        free(L[l].sum);
        free(L[l].corr);
    }
    free(L);
    free(nodes);
    return rc;
}
