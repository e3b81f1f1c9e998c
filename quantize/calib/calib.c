/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib.c — activation ranges over the calibration set (see calib.h).
 */
#include "calib.h"
#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int edgeq_range_method_parse(const char *s, edgeq_range_method *m) {
    if (!s) return -1;
    if (strcmp(s, "minmax") == 0)
        *m = EDGEQ_RANGE_MINMAX;
    else if (strcmp(s, "percentile") == 0)
        *m = EDGEQ_RANGE_PERCENTILE;
    else if (strcmp(s, "mse") == 0)
        *m = EDGEQ_RANGE_MSE;
    else
        return -1;
    return 0;
}

const char *edgeq_range_method_name(edgeq_range_method m) {
    switch (m) {
    case EDGEQ_RANGE_MINMAX: return "minmax";
    case EDGEQ_RANGE_PERCENTILE: return "percentile";
    case EDGEQ_RANGE_MSE: return "mse";
    }
    return "?";
}

int edgeq_calib_init(edgeq_calib *c, const edgeq_graph *g, edgeq_range_method m, char *err,
                     size_t err_len) {
    memset(c, 0, sizeof *c);
    if (err && err_len) err[0] = 0;
    if ((unsigned)m > EDGEQ_RANGE_MSE) return edgeq_fail(err, err_len, "unknown range method %d", (int)m);
    c->g = g;
    c->method = m;
    c->percentile = EDGEQ_CALIB_PERCENTILE;
    c->node = calloc(g->n > 0 ? (size_t)g->n : 1, sizeof *c->node);
    if (!c->node) return edgeq_fail(err, err_len, "out of memory");
    for (int i = 0; i < g->n; i++) {
        c->node[i].min = INFINITY;
        c->node[i].max = -INFINITY;
        if (m == EDGEQ_RANGE_MINMAX) continue;
        c->node[i].pos = calloc(1, sizeof *c->node[i].pos);
        c->node[i].neg = calloc(1, sizeof *c->node[i].neg);
        if (!c->node[i].pos || !c->node[i].neg) {
            edgeq_calib_free(c);
            return edgeq_fail(err, err_len, "out of memory for calibration histograms");
        }
    }
    return 0;
}

void edgeq_calib_free(edgeq_calib *c) {
    if (c->node && c->g)
        for (int i = 0; i < c->g->n; i++) {
            free(c->node[i].pos);
            free(c->node[i].neg);
        }
    free(c->node);
    memset(c, 0, sizeof *c);
}

/* Make the histogram cover magnitudes up to `top` (> 0). */
static void hist_fit(edgeq_calib_hist *h, float top) {
    if (h->width == 0.0) h->width = (double)top / (EDGEQ_CALIB_BINS - 1);
    while ((double)top >= h->width * EDGEQ_CALIB_BINS) {
        for (int b = 0; b < EDGEQ_CALIB_BINS / 2; b++)
            h->bins[b] = h->bins[2 * b] + h->bins[2 * b + 1];
        memset(h->bins + EDGEQ_CALIB_BINS / 2, 0, sizeof h->bins / 2);
        h->width *= 2.0;
    }
}

static void hist_record(edgeq_calib_node *cn, const float *v, size_t n, float mn, float mx) {
    if (mx > 0.0f) hist_fit(cn->pos, mx);
    if (mn < 0.0f) hist_fit(cn->neg, -mn);
    double ip = cn->pos->width > 0.0 ? 1.0 / cn->pos->width : 0.0;
    double in = cn->neg->width > 0.0 ? 1.0 / cn->neg->width : 0.0;
    for (size_t i = 0; i < n; i++) {
        float x = v[i];
        edgeq_calib_hist *h;
        double mag;
        if (x > 0.0f)
            h = cn->pos, mag = (double)x * ip;
        else if (x < 0.0f)
            h = cn->neg, mag = -(double)x * in;
        else
            continue;
        size_t b = (size_t)mag;
        if (b >= EDGEQ_CALIB_BINS) b = EDGEQ_CALIB_BINS - 1;
        h->bins[b]++;
        h->total++;
    }
}

int edgeq_calib_observe(edgeq_calib *c, const edgeq_float_exec *x, char *err, size_t err_len) {
    const edgeq_graph *g = c->g;
    for (int i = 0; i < g->n; i++) {
        const float *v = x->buf[i];
        size_t n = edgeq_node_numel(&g->nodes[i]);
        float mn = INFINITY, mx = -INFINITY;
        int nan = 0;
        for (size_t e = 0; e < n; e++) {
            float t = v[e];
            mn = t < mn ? t : mn;
            mx = t > mx ? t : mx;
            nan |= t != t;
        }
        if (nan || !isfinite(mn) || !isfinite(mx))
            return edgeq_fail(err, err_len,
                        "layer '%s' (%s) computes %s on calibration sample %d: the model's "
                        "weights or the sample are not usable",
                        g->nodes[i].name, edgeq_op_name(g->nodes[i].op),
                        nan ? "NaN" : "an infinity", c->samples);
        edgeq_calib_node *cn = &c->node[i];
        if (mn < cn->min) cn->min = mn;
        if (mx > cn->max) cn->max = mx;
        if (cn->pos) hist_record(cn, v, n, mn, mx);
    }
    c->samples++;
    return 0;
}

/* Magnitude below which `pct` percent of the side's values lie
 * (interpolated inside the bin), capped at the side's largest value. */
static double hist_percentile(const edgeq_calib_hist *h, double pct, double side_max) {
    if (h->total == 0) return 0.0;
    double target = (double)h->total * pct / 100.0, cum = 0.0;
    for (int b = 0; b < EDGEQ_CALIB_BINS; b++) {
        double next = cum + (double)h->bins[b];
        if (next >= target && h->bins[b]) {
            double edge = ((double)b + (target - cum) / (double)h->bins[b]) * h->width;
            return edge < side_max ? edge : side_max;
        }
        cum = next;
    }
    return side_max;
}

/* Per-side suffix sums over bin centres, for the clipping error. */
typedef struct side_sums {
    double *cnt, *s1, *s2; /* [j]: sums over bins >= j; EDGEQ_CALIB_BINS + 1 entries */
    double width, max;
    int top;               /* candidates j = 1..top (clip at min(j*width, max)) */
} side_sums;

static int side_sums_init(side_sums *s, const edgeq_calib_hist *h, double side_max) {
    memset(s, 0, sizeof *s);
    s->cnt = calloc(3 * (EDGEQ_CALIB_BINS + 1), sizeof(double));
    if (!s->cnt) return -1;
    s->s1 = s->cnt + EDGEQ_CALIB_BINS + 1;
    s->s2 = s->s1 + EDGEQ_CALIB_BINS + 1;
    s->width = h->width;
    s->max = side_max;
    for (int b = EDGEQ_CALIB_BINS - 1; b >= 0; b--) {
        double c = ((double)b + 0.5) * h->width, n = (double)h->bins[b];
        if (c > side_max) c = side_max;
        s->cnt[b] = s->cnt[b + 1] + n;
        s->s1[b] = s->s1[b + 1] + n * c;
        s->s2[b] = s->s2[b + 1] + n * c * c;
    }
    s->top = h->total && h->width > 0.0 ? (int)(side_max / h->width) + 1 : 0;
    if (s->top > EDGEQ_CALIB_BINS) s->top = EDGEQ_CALIB_BINS;
    return 0;
}

static double side_clip(const side_sums *s, int j) {
    double t = (double)j * s->width;
    return t < s->max ? t : s->max;
}

/* Values clipped at candidate j: their squared error, and how many are not
 * clipped (*inside). */
static double side_err(const side_sums *s, int j, double *inside) {
    double t = side_clip(s, j);
    *inside = s->cnt[0] - s->cnt[j];
    double e = s->s2[j] - 2.0 * t * s->s1[j] + t * t * s->cnt[j];
    return e > 0.0 ? e : 0.0;
}

/* Best candidate on side a with the other side's clip (tb) and inside
 * count (ib) fixed. */
static int side_best(const side_sums *a, double tb, double ib, double eb) {
    int best = a->top;
    double best_e = INFINITY;
    for (int j = 1; j <= a->top; j++) {
        double ia, ea = side_err(a, j, &ia);
        double scale = (side_clip(a, j) + tb) / 255.0;
        double e = ea + eb + scale * scale / 12.0 * (ia + ib);
        if (e < best_e) best_e = e, best = j;
    }
    return best;
}

static int mse_range(const edgeq_calib_node *cn, float *lo, float *hi) {
    side_sums p, n;
    double pmax = cn->max > 0.0f ? (double)cn->max : 0.0;
    double nmax = cn->min < 0.0f ? -(double)cn->min : 0.0;
    if (side_sums_init(&p, cn->pos, pmax) != 0) return -1;
    if (side_sums_init(&n, cn->neg, nmax) != 0) {
        free(p.cnt);
        return -1;
    }
    int jp = p.top, jn = n.top;
    for (int it = 0; it < 32; it++) {
        int old_p = jp, old_n = jn;
        double in_n, en = n.top ? side_err(&n, jn, &in_n) : (in_n = 0.0, 0.0);
        if (p.top) jp = side_best(&p, n.top ? side_clip(&n, jn) : 0.0, in_n, en);
        double in_p, ep = p.top ? side_err(&p, jp, &in_p) : (in_p = 0.0, 0.0);
        if (n.top) jn = side_best(&n, p.top ? side_clip(&p, jp) : 0.0, in_p, ep);
        if (jp == old_p && jn == old_n) break;
    }
    *hi = p.top ? (float)side_clip(&p, jp) : 0.0f;
    *lo = n.top ? -(float)side_clip(&n, jn) : 0.0f;
    free(p.cnt);
    free(n.cnt);
    return 0;
}

int edgeq_calib_finish(edgeq_calib *c, edgeq_graph *g, char *err, size_t err_len) {
    if (g != c->g && (g->n != c->g->n))
        return edgeq_fail(err, err_len, "calibration was set up for another graph");
    if (c->samples == 0) return edgeq_fail(err, err_len, "no calibration samples were run");
    for (int i = 0; i < g->n; i++) {
        const edgeq_calib_node *cn = &c->node[i];
        float lo = cn->min, hi = cn->max;
        if (c->method == EDGEQ_RANGE_PERCENTILE) {
            hi = (float)hist_percentile(cn->pos, c->percentile, hi > 0.0f ? (double)hi : 0.0);
            lo = -(float)hist_percentile(cn->neg, c->percentile, lo < 0.0f ? -(double)lo : 0.0);
        } else if (c->method == EDGEQ_RANGE_MSE) {
            if (mse_range(cn, &lo, &hi) != 0) return edgeq_fail(err, err_len, "out of memory");
        }
        g->nodes[i].range_min = lo < 0.0f ? lo : 0.0f;
        g->nodes[i].range_max = hi > 0.0f ? hi : 0.0f;
        g->nodes[i].calibrated = 1;
    }
    return 0;
}

/* ---- the whole job ---- */

static void progress_bar(int done, int total) {
    char bar[41];
    int fillw = total ? (int)((long long)done * 40 / total) : 40;
    for (int i = 0; i < 40; i++) bar[i] = i < fillw ? '#' : '.';
    bar[40] = 0;
    fprintf(stderr, "\rcalibrating [%s] %d/%d", bar, done, total);
    if (done == total) fputc('\n', stderr);
    fflush(stderr);
}

int edgeq_calibrate(edgeq_graph *g, const edgeq_calib_set *set, edgeq_range_method m,
                    int progress, edgeq_calib_sample_fn on_sample, void *ctx, char *err,
                    size_t err_len) {
    edgeq_float_exec x;
    edgeq_calib c;
    memset(&c, 0, sizeof c);
    if (set->n_inputs != g->n_inputs)
        return edgeq_fail(err, err_len, "calibration data has %d inputs, the model %d", set->n_inputs,
                    g->n_inputs);
    for (int k = 0; k < g->n_inputs; k++)
        if (g->inputs[k] < 0 || g->inputs[k] >= g->n ||
            set->sample_len[k] != edgeq_node_numel(&g->nodes[g->inputs[k]]))
            return edgeq_fail(err, err_len, "calibration samples of input %d have %zu values, the "
                        "model's input %zu", k, set->sample_len[k],
                        g->inputs[k] >= 0 && g->inputs[k] < g->n
                            ? edgeq_node_numel(&g->nodes[g->inputs[k]])
                            : (size_t)0);
    if (set->count < 1) return edgeq_fail(err, err_len, "no calibration samples");
    if (edgeq_float_exec_init(&x, g, err, err_len) != 0) {
        edgeq_float_exec_free(&x);
        return -1;
    }
    int rc = edgeq_calib_init(&c, g, m, err, err_len);
    int bar = progress && isatty(STDERR_FILENO);
    int step = set->count / 100 > 0 ? set->count / 100 : 1;
    for (int s = 0; rc == 0 && s < set->count; s++) {
        const float *in[8];
        for (int k = 0; k < set->n_inputs; k++) in[k] = edgeq_calib_sample(set, k, s);
        rc = edgeq_float_exec_run(&x, in, err, err_len);
        if (rc == 0) rc = edgeq_calib_observe(&c, &x, err, err_len);
        if (rc == 0 && on_sample) on_sample(ctx, s, &x);
        if (bar && (rc != 0 || (s + 1) % step == 0 || s + 1 == set->count)) {
            progress_bar(s + 1, set->count);
            if (rc != 0) fputc('\n', stderr);
        }
    }
    if (rc == 0) rc = edgeq_calib_finish(&c, g, err, err_len);
    edgeq_calib_free(&c);
    edgeq_float_exec_free(&x);
    return rc;
}
