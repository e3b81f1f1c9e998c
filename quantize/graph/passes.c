/* SPDX-License-Identifier: Apache-2.0 */
/*
 * passes.c — graph rewrites between loading and calibration (see passes.h).
 *
 * The passes mark nodes dead and rewire their consumers instead of moving
 * anything; new nodes are appended and given a sort key just before or after
 * the node they were made for. The final compaction frees the dead nodes
 * and renumbers the rest in key order, which is a topological order (Kahn's
 * algorithm picks the smallest key among the ready nodes).
 */
#include "passes.h"
#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pass_state {
    edgeq_graph *g;
    unsigned char *dead; /* per node */
    double *key;         /* per node: the compaction order */
    int cap;             /* of dead[] and key[] */
    edgeq_pass_stats st;
    char *err;
    size_t err_len;
} pass_state;

/* Keep dead[] and key[] as long as the node array. */
static int state_fit(pass_state *s) {
    if (s->g->n <= s->cap) return 0;
    int cap = s->g->n * 2;
    unsigned char *d = realloc(s->dead, (size_t)cap);
    if (!d) return edgeq_fail(s->err, s->err_len, "out of memory");
    s->dead = d;
    double *k = realloc(s->key, (size_t)cap * sizeof *k);
    if (!k) return edgeq_fail(s->err, s->err_len, "out of memory");
    s->key = k;
    memset(s->dead + s->cap, 0, (size_t)(cap - s->cap));
    s->cap = cap;
    return 0;
}

/* Append a node placed at sort key `key`; returns its index or -1. The
 * node array may move: re-take node pointers afterwards. */
static int add_node(pass_state *s, edgeq_op op, const char *name, double key) {
    int i = edgeq_graph_add(s->g, op, name);
    if (i < 0) return edgeq_fail(s->err, s->err_len, "out of memory");
    if (state_fit(s) != 0) return -1;
    s->dead[i] = 0;
    s->key[i] = key;
    return i;
}

/* Every use of node `from` (consumer inputs, graph outputs) becomes `to`. */
static void replace_uses(pass_state *s, int from, int to) {
    edgeq_graph *g = s->g;
    for (int j = 0; j < g->n; j++) {
        if (s->dead[j] || j == to) continue;
        edgeq_node *n = &g->nodes[j];
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] == from) n->in[k] = to;
    }
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == from) g->outputs[k] = to;
}

static int is_output(const edgeq_graph *g, int i) {
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == i) return 1;
    return 0;
}

/* Uses of node i by live nodes, plus one per graph output slot it fills. */
static int uses(const pass_state *s, int i) {
    const edgeq_graph *g = s->g;
    int c = 0;
    for (int j = 0; j < g->n; j++) {
        if (s->dead[j]) continue;
        const edgeq_node *n = &g->nodes[j];
        for (int k = 0; k < n->n_in; k++) c += n->in[k] == i;
    }
    for (int k = 0; k < g->n_outputs; k++) c += g->outputs[k] == i;
    return c;
}

static void node_free_data(edgeq_node *n) {
    free(n->kernel);
    free(n->bias);
    free(n->bn_gamma);
    free(n->bn_beta);
    free(n->bn_mean);
    free(n->bn_var);
    n->kernel = n->bias = n->bn_gamma = n->bn_beta = n->bn_mean = n->bn_var = NULL;
    n->kernel_len = n->bias_len = n->bn_len = 0;
}

static int fusable_clamp(edgeq_act a) {
    return a == EDGEQ_ACT_LINEAR || a == EDGEQ_ACT_RELU || a == EDGEQ_ACT_RELU6 ||
           a == EDGEQ_ACT_RELU_N1_TO_1;
}

static int takes_fused_act(edgeq_op op) {
    return op == EDGEQ_OP_CONV2D || op == EDGEQ_OP_DEPTHWISE_CONV2D || op == EDGEQ_OP_DENSE ||
           op == EDGEQ_OP_ADD;
}

/* A node with exactly one input: the input's index, checked. */
static int single_input(pass_state *s, int i) {
    const edgeq_node *n = &s->g->nodes[i];
    if (n->n_in != 1)
        return edgeq_fail(s->err, s->err_len, "layer '%s' (%s) has %d inputs, expected 1", n->name,
                    edgeq_op_name(n->op), n->n_in);
    return n->in[0];
}

/* ---- 1. identities (and linear activations) ---- */

static int drop_identities(pass_state *s) {
    edgeq_graph *g = s->g;
    for (int i = 0; i < g->n; i++) {
        edgeq_node *n = &g->nodes[i];
        if (s->dead[i]) continue;
        int identity = n->op == EDGEQ_OP_IDENTITY ||
                       (n->op == EDGEQ_OP_ACTIVATION && n->act == EDGEQ_ACT_LINEAR) ||
                       (n->op == EDGEQ_OP_RESCALE && n->scale == 1.0f && n->offset == 0.0f);
        if (!identity) continue;
        int p = single_input(s, i);
        if (p < 0) return -1;
        replace_uses(s, i, p);
        s->dead[i] = 1;
        s->st.identities_removed++;
    }
    return 0;
}

/* ---- 2. a leading Rescaling into the input's quantization ---- */

static int fold_input_rescales(pass_state *s) {
    edgeq_graph *g = s->g;
    for (int i = 0; i < g->n; i++) {
        edgeq_node *n = &g->nodes[i];
        if (s->dead[i] || n->op != EDGEQ_OP_RESCALE) continue;
        int p = single_input(s, i);
        if (p < 0) return -1;
        if (g->nodes[p].op != EDGEQ_OP_INPUT || uses(s, p) != 1) continue;
        int slot = -1;
        for (int k = 0; k < g->n_inputs && k < 8; k++)
            if (g->inputs[k] == p) slot = k;
        if (slot < 0) continue; /* an INPUT node that is not a graph input: leave it */
        if (!isfinite(n->scale) || !isfinite(n->offset) || n->scale == 0.0f)
            return edgeq_fail(s->err, s->err_len, "layer '%s' (Rescaling): scale %g / offset %g cannot be folded",
                        n->name, (double)n->scale, (double)n->offset);
        /* Compose with an earlier fold: (x*s1 + o1)*s2 + o2. */
        float s1 = g->input_folded[slot] ? g->input_scale_fold[slot] : 1.0f;
        float o1 = g->input_folded[slot] ? g->input_offset_fold[slot] : 0.0f;
        g->input_scale_fold[slot] = s1 * n->scale;
        g->input_offset_fold[slot] = o1 * n->scale + n->offset;
        g->input_folded[slot] = 1;
        replace_uses(s, i, p);
        s->dead[i] = 1;
        s->st.rescales_folded++;
    }
    return 0;
}

/* ---- 3. BatchNormalization ---- */

/* Output channels of a conv / depthwise / dense, read off its output shape. */
static int out_channels(const edgeq_node *n) {
    return n->rank > 0 ? n->shape[n->rank - 1] : 0;
}

/* The BN as y = x * k[c] + b[c] (new arrays, C long). */
static int bn_affine(pass_state *s, const edgeq_node *bn, float **k_out, float **b_out) {
    int C = out_channels(bn), axis = bn->axis < 0 ? bn->axis + bn->rank : bn->axis;
    if (axis != 0 && axis != bn->rank - 1) /* 0: unset */
        return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): axis %d: only the last axis is supported",
                    bn->name, bn->axis);
    if (C <= 0 || bn->bn_len != (size_t)C)
        return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): %zu parameters per array for %d channels",
                    bn->name, bn->bn_len, C);
    if (!bn->bn_mean || !bn->bn_var)
        return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): moving mean or variance missing",
                    bn->name);
    float *k = malloc((size_t)C * sizeof *k), *b = malloc((size_t)C * sizeof *b);
    if (!k || !b) {
        free(k);
        free(b);
        return edgeq_fail(s->err, s->err_len, "out of memory");
    }
    for (int c = 0; c < C; c++) {
        double var = (double)bn->bn_var[c] + (double)bn->eps;
        if (!(var > 0.0) || !isfinite(var)) {
            free(k);
            free(b);
            return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): channel %d has variance + epsilon = %g "
                        "(must be > 0)",
                        bn->name, c, var);
        }
        double gamma = bn->bn_gamma ? (double)bn->bn_gamma[c] : 1.0;
        double beta = bn->bn_beta ? (double)bn->bn_beta[c] : 0.0;
        double kk = gamma / sqrt(var);
        k[c] = (float)kk;
        b[c] = (float)(beta - (double)bn->bn_mean[c] * kk);
    }
    *k_out = k;
    *b_out = b;
    return 0;
}

static int bn_fold_into(pass_state *s, int i, int p) {
    edgeq_graph *g = s->g;
    edgeq_node *bn = &g->nodes[i], *conv = &g->nodes[p];
    int C = out_channels(bn);
    if (out_channels(conv) != C || !conv->kernel || conv->kernel_len % (size_t)C != 0)
        return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): %d channels, but its input '%s' has %d",
                    bn->name, C, conv->name, out_channels(conv));
    if (conv->bias && conv->bias_len != (size_t)C)
        return edgeq_fail(s->err, s->err_len, "layer '%s': bias has %zu values for %d output channels", conv->name,
                    conv->bias_len, C);
    float *k, *sh;
    if (bn_affine(s, bn, &k, &sh) != 0) return -1;
    if (!conv->bias) {
        conv->bias = calloc((size_t)C, sizeof *conv->bias);
        if (!conv->bias) {
            free(k);
            free(sh);
            return edgeq_fail(s->err, s->err_len, "out of memory");
        }
        conv->bias_len = (size_t)C;
    }
    /* In all three kernel layouts the output channel is the fastest index
     * (a depthwise's [cin][multiplier] flattens to cin*multiplier + m). */
    for (size_t e = 0; e < conv->kernel_len; e++) conv->kernel[e] *= k[e % (size_t)C];
    for (int c = 0; c < C; c++) conv->bias[c] = conv->bias[c] * k[c] + sh[c];
    free(k);
    free(sh);
    replace_uses(s, i, p);
    s->dead[i] = 1;
    s->st.bn_folded++;
    return 0;
}

/* Turn BN node i into a 1x1 depthwise conv carrying the affine (see
 * passes.h), wrapped in reshapes when its tensor is not rank 4. */
static int bn_to_depthwise(pass_state *s, int i) {
    edgeq_graph *g = s->g;
    edgeq_node *bn = &g->nodes[i];
    int C = out_channels(bn);
    float *k, *sh;
    if (bn_affine(s, bn, &k, &sh) != 0) return -1;
    node_free_data(bn);
    bn->op = EDGEQ_OP_DEPTHWISE_CONV2D;
    bn->kernel = k;
    bn->kernel_len = (size_t)C;
    bn->bias = sh;
    bn->bias_len = (size_t)C;
    bn->kh = bn->kw = 1;
    bn->stride_h = bn->stride_w = bn->dil_h = bn->dil_w = 1;
    bn->groups = bn->depth_multiplier = 1;
    bn->pad_same = 0;
    bn->filters = C;
    bn->act = EDGEQ_ACT_LINEAR;
    s->st.bn_to_depthwise++;
    if (bn->rank == 4) return 0;

    int rank = bn->rank;
    int shape[EDGEQ_MAX_RANK];
    memcpy(shape, bn->shape, sizeof shape);
    int M = (int)(edgeq_node_numel(bn) / (size_t)C);
    char name[EDGEQ_NAME_LEN + 16];
    snprintf(name, sizeof name, "%s/reshape_in", bn->name);
    int r1 = add_node(s, EDGEQ_OP_RESHAPE, name, s->key[i] - 0.25);
    if (r1 < 0) return -1;
    bn = &g->nodes[i];
    snprintf(name, sizeof name, "%s/reshape_out", bn->name);
    replace_uses(s, i, -2); /* park the uses, so the new nodes are not rewired */
    int r2 = add_node(s, EDGEQ_OP_RESHAPE, name, s->key[i] + 0.25);
    if (r2 < 0) return -1;
    bn = &g->nodes[i];
    replace_uses(s, -2, r2);

    edgeq_node *in = &g->nodes[r1], *out = &g->nodes[r2];
    memcpy(in->keras_class, bn->keras_class, sizeof in->keras_class);
    memcpy(out->keras_class, bn->keras_class, sizeof out->keras_class);
    in->n_in = 1;
    in->in[0] = bn->in[0];
    in->rank = 4;
    in->shape[0] = in->shape[1] = 1;
    in->shape[2] = M;
    in->shape[3] = C;
    bn->in[0] = r1;
    bn->rank = 4;
    memcpy(bn->shape, in->shape, sizeof bn->shape);
    out->n_in = 1;
    out->in[0] = i;
    out->rank = rank;
    memcpy(out->shape, shape, sizeof out->shape);
    return 0;
}

static int fold_batchnorms(pass_state *s) {
    edgeq_graph *g = s->g;
    int n0 = g->n; /* nodes added here are reshapes, never BNs */
    for (int i = 0; i < n0; i++) {
        if (s->dead[i] || g->nodes[i].op != EDGEQ_OP_BATCHNORM) continue;
        int p = single_input(s, i);
        if (p < 0) return -1;
        const edgeq_node *q = &g->nodes[p];
        int foldable = (q->op == EDGEQ_OP_CONV2D || q->op == EDGEQ_OP_DEPTHWISE_CONV2D ||
                        q->op == EDGEQ_OP_DENSE) &&
                       q->act == EDGEQ_ACT_LINEAR && uses(s, p) == 1 && !is_output(g, p);
        if (g->nodes[i].rank < 2)
            return edgeq_fail(s->err, s->err_len, "layer '%s' (BatchNormalization): rank-%d tensor", g->nodes[i].name,
                        g->nodes[i].rank);
        if ((foldable ? bn_fold_into(s, i, p) : bn_to_depthwise(s, i)) != 0) return -1;
    }
    return 0;
}

/* ---- 4. activations TFLite cannot fuse ---- */

static int split_activations(pass_state *s) {
    edgeq_graph *g = s->g;
    int n0 = g->n;
    for (int i = 0; i < n0; i++) {
        edgeq_node *n = &g->nodes[i];
        if (s->dead[i]) continue;
        if (n->op == EDGEQ_OP_ACTIVATION) {
            if (n->act == EDGEQ_ACT_SOFTMAX) { /* a loader may leave it as an activation */
                n->op = EDGEQ_OP_SOFTMAX;
                n->act = EDGEQ_ACT_LINEAR;
                n->axis = n->rank - 1;
            }
            continue;
        }
        if (fusable_clamp(n->act)) continue;
        edgeq_act act = n->act;
        float alpha = n->alpha;
        char name[EDGEQ_NAME_LEN + 16];
        snprintf(name, sizeof name, "%s/%s", n->name, edgeq_act_name(act));
        replace_uses(s, i, -2);
        int a = add_node(s, act == EDGEQ_ACT_SOFTMAX ? EDGEQ_OP_SOFTMAX : EDGEQ_OP_ACTIVATION, name,
                         s->key[i] + 0.5);
        if (a < 0) return -1;
        replace_uses(s, -2, a);
        n = &g->nodes[i];
        edgeq_node *an = &g->nodes[a];
        n->act = EDGEQ_ACT_LINEAR;
        memcpy(an->keras_class, n->keras_class, sizeof an->keras_class);
        an->n_in = 1;
        an->in[0] = i;
        an->rank = n->rank;
        memcpy(an->shape, n->shape, sizeof an->shape);
        if (act == EDGEQ_ACT_SOFTMAX) {
            an->axis = n->rank - 1;
        } else {
            an->act = act;
            an->alpha = alpha;
        }
        s->st.activations_split++;
    }
    return 0;
}

/* ---- 5. activation fusion ---- */

static int fuse_activations(pass_state *s) {
    edgeq_graph *g = s->g;
    for (int i = 0; i < g->n; i++) {
        edgeq_node *n = &g->nodes[i];
        if (s->dead[i] || n->op != EDGEQ_OP_ACTIVATION) continue;
        if (n->act != EDGEQ_ACT_RELU && n->act != EDGEQ_ACT_RELU6 &&
            n->act != EDGEQ_ACT_RELU_N1_TO_1)
            continue;
        int p = single_input(s, i);
        if (p < 0) return -1;
        edgeq_node *q = &g->nodes[p];
        if (!takes_fused_act(q->op) || q->act != EDGEQ_ACT_LINEAR || uses(s, p) != 1 ||
            is_output(g, p))
            continue;
        q->act = n->act;
        replace_uses(s, i, p);
        s->dead[i] = 1;
        s->st.activations_fused++;
    }
    return 0;
}

/* ---- 5b. reshape chains ---- */

/* A RESHAPE of a RESHAPE (used only there) reads the first one's input; a
 * RESHAPE to the shape it already has (and not a graph output) goes. Both
 * come from Flatten/Reshape layers next to the reshapes step 3 adds. */
static int merge_reshapes(pass_state *s) {
    edgeq_graph *g = s->g;
    for (int i = 0; i < g->n; i++) {
        edgeq_node *n = &g->nodes[i];
        if (s->dead[i] || n->op != EDGEQ_OP_RESHAPE) continue;
        int p = single_input(s, i);
        if (p < 0) return -1;
        const edgeq_node *q = &g->nodes[p];
        if (q->op == EDGEQ_OP_RESHAPE && q->act == EDGEQ_ACT_LINEAR && uses(s, p) == 1 &&
            !is_output(g, p)) {
            if (q->n_in != 1) return single_input(s, p);
            n->in[0] = q->in[0];
            s->dead[p] = 1;
            s->st.reshapes_merged++;
            q = &g->nodes[n->in[0]];
        }
        if (n->act == EDGEQ_ACT_LINEAR && !is_output(g, i) && q->rank == n->rank &&
            memcmp(q->shape, n->shape, sizeof(int) * (size_t)n->rank) == 0) {
            replace_uses(s, i, n->in[0]);
            s->dead[i] = 1;
            s->st.reshapes_merged++;
        }
    }
    return 0;
}

/* ---- 6. compaction ---- */

static int compact(pass_state *s) {
    edgeq_graph *g = s->g;
    int n = g->n;
    int *newidx = malloc((size_t)n * sizeof *newidx);
    int *order = malloc((size_t)n * sizeof *order);
    unsigned char *done = calloc((size_t)n, 1);
    edgeq_node *nodes = NULL;
    int m = 0, rc = -1;
    if (!newidx || !order || !done) {
        edgeq_fail(s->err, s->err_len, "out of memory");
        goto out;
    }
    /* Kahn's algorithm, smallest key first; O(n^2) is fine for layer graphs. */
    for (;;) {
        int best = -1;
        for (int i = 0; i < n; i++) {
            if (s->dead[i] || done[i]) continue;
            int ready = 1;
            for (int k = 0; k < g->nodes[i].n_in && ready; k++) {
                int p = g->nodes[i].in[k];
                if (p < 0 || p >= n || s->dead[p]) {
                    edgeq_fail(s->err, s->err_len, "layer '%s': input %d refers to a removed or missing node",
                         g->nodes[i].name, k);
                    goto out;
                }
                ready = done[p];
            }
            if (ready && (best < 0 || s->key[i] < s->key[best])) best = i;
        }
        if (best < 0) break;
        done[best] = 1;
        newidx[best] = m;
        order[m++] = best;
    }
    for (int i = 0; i < n; i++)
        if (!s->dead[i] && !done[i]) {
            edgeq_fail(s->err, s->err_len, "layer '%s' is part of a cycle", g->nodes[i].name);
            goto out;
        }
    nodes = malloc((size_t)(m ? m : 1) * sizeof *nodes);
    if (!nodes) {
        edgeq_fail(s->err, s->err_len, "out of memory");
        goto out;
    }
    for (int j = 0; j < m; j++) {
        nodes[j] = g->nodes[order[j]];
        for (int k = 0; k < nodes[j].n_in; k++) nodes[j].in[k] = newidx[nodes[j].in[k]];
        nodes[j].range_min = nodes[j].range_max = 0.0f;
        nodes[j].calibrated = 0;
    }
    for (int k = 0; k < g->n_inputs; k++) {
        int p = g->inputs[k];
        if (p < 0 || p >= n || s->dead[p]) {
            edgeq_fail(s->err, s->err_len, "graph input %d refers to a removed or missing node", k);
            goto out;
        }
        g->inputs[k] = newidx[p];
    }
    for (int k = 0; k < g->n_outputs; k++) {
        int p = g->outputs[k];
        if (p < 0 || p >= n || s->dead[p]) {
            edgeq_fail(s->err, s->err_len, "graph output %d refers to a removed or missing node", k);
            goto out;
        }
        g->outputs[k] = newidx[p];
    }
    for (int i = 0; i < n; i++)
        if (s->dead[i]) node_free_data(&g->nodes[i]);
    free(g->nodes);
    g->nodes = nodes;
    g->cap = m ? m : 1;
    g->n = m;
    nodes = NULL;
    rc = 0;
out:
    free(nodes);
    free(newidx);
    free(order);
    free(done);
    return rc;
}

/* ---- driver ---- */

static int check_graph(pass_state *s) {
    const edgeq_graph *g = s->g;
    if (g->n_inputs < 0 || g->n_inputs > 8 || g->n_outputs < 0 || g->n_outputs > 8)
        return edgeq_fail(s->err, s->err_len, "graph has %d inputs and %d outputs (at most 8 each)", g->n_inputs,
                    g->n_outputs);
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        if (n->n_in < 0 || n->n_in > EDGEQ_MAX_INPUTS)
            return edgeq_fail(s->err, s->err_len, "layer '%s': %d inputs", n->name, n->n_in);
        for (int k = 0; k < n->n_in; k++)
            if (n->in[k] < 0 || n->in[k] >= i)
                return edgeq_fail(s->err, s->err_len, "layer '%s': input %d is node %d, not an earlier node", n->name, k,
                            n->in[k]);
        if (n->rank < 0 || n->rank > EDGEQ_MAX_RANK)
            return edgeq_fail(s->err, s->err_len, "layer '%s': rank %d", n->name, n->rank);
    }
    for (int k = 0; k < g->n_inputs; k++)
        if (g->inputs[k] < 0 || g->inputs[k] >= g->n)
            return edgeq_fail(s->err, s->err_len, "graph input %d is node %d of %d", k, g->inputs[k], g->n);
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] < 0 || g->outputs[k] >= g->n)
            return edgeq_fail(s->err, s->err_len, "graph output %d is node %d of %d", k, g->outputs[k], g->n);
    return 0;
}

int edgeq_passes_run(edgeq_graph *g, edgeq_pass_stats *stats, char *err, size_t err_len) {
    pass_state s;
    memset(&s, 0, sizeof s);
    s.g = g;
    s.err = err;
    s.err_len = err_len;
    if (err && err_len) err[0] = 0;
    int rc = check_graph(&s);
    if (rc == 0) rc = state_fit(&s);
    if (rc == 0) {
        if (s.dead) memset(s.dead, 0, (size_t)s.cap);
        for (int i = 0; i < g->n; i++) s.key[i] = (double)i;
    }
    if (rc == 0) rc = drop_identities(&s);
    if (rc == 0) rc = fold_input_rescales(&s);
    if (rc == 0) rc = fold_batchnorms(&s);
    if (rc == 0) rc = split_activations(&s);
    if (rc == 0) rc = fuse_activations(&s);
    if (rc == 0) rc = merge_reshapes(&s);
    if (rc == 0) rc = compact(&s);
    /* On failure the dead nodes are still in the array, owning their data,
     * so edgeq_graph_free releases everything. */
    if (stats) *stats = s.st;
    free(s.dead);
    free(s.key);
    return rc;
}
