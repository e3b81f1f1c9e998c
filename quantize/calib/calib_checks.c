/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calib_checks.c — does the calibration data look like the model's input?
 * (see calib_checks.h)
 */
#include "calib_checks.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/file_util.h"

/* ---- options ---- */

/* "a" or "a,b,c" (n = 1 or 3; `two`: exactly "a,b"). Returns the count or -1. */
static int parse_floats(const char *v, float *out, int max) {
    if (!v || !*v) return -1;
    int n = 0;
    const char *p = v;
    for (;;) {
        char *end;
        double d = strtod(p, &end);
        if (end == p || !isfinite(d) || n >= max) return -1;
        out[n++] = (float)d;
        if (*end == 0) break;
        if (*end != ',') return -1;
        p = end + 1;
    }
    return n;
}

int edgeq_calib_cli_option(int argc, char **argv, int *i, edgeq_calib_cli *c) {
    const char *v = NULL;
    if (edgeq_opt_value(argc, argv, i, "--calib-range", &v)) {
        float r[2];
        if (parse_floats(v, r, 2) != 2 || !(r[1] > r[0])) {
            edgeq_usage(NULL, "--calib-range needs LO,HI with LO < HI (0,1 maps pixels 0..255 "
                              "to 0..1), not '%s'", v ? v : "");
            return -1;
        }
        c->have_range = 1;
        c->range_lo = r[0];
        c->range_hi = r[1];
        return 1;
    }
    if (edgeq_opt_value(argc, argv, i, "--mean", &v)) {
        int n = parse_floats(v, c->mean, 3);
        if (n != 1 && n != 3) {
            edgeq_usage(NULL, "--mean needs one value or three (per channel, on the 0..255 "
                              "pixel scale), not '%s'", v ? v : "");
            return -1;
        }
        c->n_mean = n;
        return 1;
    }
    if (edgeq_opt_value(argc, argv, i, "--std", &v)) {
        int n = parse_floats(v, c->std, 3);
        int ok = n == 1 || n == 3;
        for (int k = 0; ok && k < n; k++) ok = c->std[k] > 0.0f;
        if (!ok) {
            edgeq_usage(NULL, "--std needs one positive value or three (per channel, on the "
                              "0..255 pixel scale), not '%s'", v ? v : "");
            return -1;
        }
        c->n_std = n;
        return 1;
    }
    return 0;
}

int edgeq_calib_cli_finish(edgeq_calib_cli *c, const char *calib_path) {
    if ((c->n_mean > 0) != (c->n_std > 0))
        return edgeq_usage(NULL, "--mean and --std go together: (pixel - mean) / std");
    if (c->n_mean && c->n_std && c->n_mean != c->n_std)
        return edgeq_usage(NULL, "--mean has %d value%s but --std %d: give both one value or "
                                 "both three", c->n_mean, c->n_mean == 1 ? "" : "s", c->n_std);
    if (c->have_range && c->n_mean)
        return edgeq_usage(NULL, "--calib-range and --mean/--std both say how to scale the "
                                 "images: give one of them");
    if ((c->have_range || c->n_mean) && !calib_path)
        return edgeq_usage(NULL, "%s applies to --calib data", c->have_range ? "--calib-range"
                                                                            : "--mean/--std");
    memset(&c->norm, 0, sizeof c->norm);
    if (c->have_range) {
        c->norm.kind = 1;
        c->norm.lo = c->range_lo;
        c->norm.hi = c->range_hi;
    } else if (c->n_mean) {
        c->norm.kind = 2;
        c->norm.n_mean = c->n_mean;
        for (int k = 0; k < 3; k++) {
            c->norm.mean[k] = c->mean[k < c->n_mean ? k : 0];
            c->norm.std[k] = c->std[k < c->n_std ? k : 0];
        }
    }
    return 0;
}

void edgeq_calib_cli_help(FILE *fp) {
    fprintf(fp,
            "  --calib-range LO,HI image folders: map pixels 0..255 to LO..HI (0,1 for a\n"
            "                      model trained on x/255; -1,1 for x/127.5-1). Arrays are\n"
            "                      fed as they are: there it states the range the model\n"
            "                      expects, and data far from it is a warning\n"
            "  --mean M[,M,M] --std S[,S,S]  image folders: feed (pixel - M) / S, per\n"
            "                      channel, M and S on the 0..255 scale. Without these\n"
            "                      two, images are fed as 0..255 (the report says so)\n");
}

/* ---- what the model tells ---- */

/* How many times node idx is used (as an input or a graph output); *only
 * is the last consuming node (-1: none). */
static int uses_of(const edgeq_graph *g, int idx, int *only) {
    int n = 0;
    *only = -1;
    for (int i = idx + 1; i < g->n; i++)
        for (int j = 0; j < g->nodes[i].n_in; j++)
            if (g->nodes[i].in[j] == idx) {
                n++;
                *only = i;
            }
    for (int k = 0; k < g->n_outputs; k++)
        if (g->outputs[k] == idx) n++;
    return n;
}

static int read_one(const edgeq_graph *g, int input, edgeq_input_expect *x) {
    x->pre_scale = 1.0f;
    x->pre_offset = 0.0f;
    int at = input, next = -1;
    /* Rescaling, Dropout-like identities and padding on the way. */
    for (int hops = 0; hops < 16; hops++) {
        if (uses_of(g, at, &next) != 1 || next < 0) return 0;
        const edgeq_node *n = &g->nodes[next];
        if (n->op == EDGEQ_OP_RESCALE) {
            x->pre_offset = x->pre_offset * n->scale + n->offset;
            x->pre_scale *= n->scale;
        } else if (n->op != EDGEQ_OP_IDENTITY && n->op != EDGEQ_OP_PAD) {
            break;
        }
        at = next;
    }
    const edgeq_node *L = &g->nodes[next];
    const edgeq_node *in = &g->nodes[input];
    if (L->op != EDGEQ_OP_CONV2D && L->op != EDGEQ_OP_DEPTHWISE_CONV2D && L->op != EDGEQ_OP_DENSE)
        return 0;
    if (L->act != EDGEQ_ACT_LINEAR || !L->kernel || in->rank < 1) return 0;
    int bn_at = -1;
    if (uses_of(g, next, &bn_at) != 1 || bn_at < 0 || g->nodes[bn_at].op != EDGEQ_OP_BATCHNORM)
        return 0;
    const edgeq_node *B = &g->nodes[bn_at];
    int cin = in->shape[in->rank - 1], cout = L->rank > 0 ? L->shape[L->rank - 1] : 0;
    if (cin < 1 || cout < 1 || !B->bn_mean || !B->bn_var || B->bn_len != (size_t)cout) return 0;
    size_t taps;
    if (L->op == EDGEQ_OP_CONV2D) {
        if (L->groups > 1 || L->kh < 1 || L->kw < 1) return 0;
        taps = (size_t)L->kh * (size_t)L->kw;
        if (L->kernel_len != taps * (size_t)cin * (size_t)cout) return 0;
    } else if (L->op == EDGEQ_OP_DEPTHWISE_CONV2D) {
        int dm = L->depth_multiplier > 0 ? L->depth_multiplier : 1;
        taps = (size_t)L->kh * (size_t)L->kw;
        if (cout != cin * dm || L->kernel_len != taps * (size_t)cout) return 0;
    } else {
        taps = 1;
        if (L->kernel_len != (size_t)cin * (size_t)cout) return 0;
    }
    x->a = calloc((size_t)cin * (size_t)cout, sizeof *x->a);
    x->bias = calloc((size_t)cout, sizeof *x->bias);
    x->mu = calloc((size_t)cout, sizeof *x->mu);
    x->sigma = calloc((size_t)cout, sizeof *x->sigma);
    if (!x->a || !x->bias || !x->mu || !x->sigma) return -1;
    for (size_t t = 0; t < taps; t++)
        for (int ci = 0; ci < cin; ci++)
            for (int c = 0; c < cout; c++) {
                float w;
                if (L->op == EDGEQ_OP_DEPTHWISE_CONV2D) {
                    int dm = cout / cin;
                    if (c / dm != ci) continue;
                    w = L->kernel[t * (size_t)cout + (size_t)c];
                } else {
                    w = L->kernel[(t * (size_t)cin + (size_t)ci) * (size_t)cout + (size_t)c];
                }
                x->a[(size_t)c * (size_t)cin + (size_t)ci] += w;
            }
    for (int c = 0; c < cout; c++) {
        x->bias[c] = L->bias && L->bias_len == (size_t)cout ? L->bias[c] : 0.0f;
        x->mu[c] = B->bn_mean[c];
        x->sigma[c] = sqrtf(B->bn_var[c] + B->eps);
        if (!isfinite(x->sigma[c]) || !(x->sigma[c] > 0.0f)) return 0;
    }
    x->cin = cin;
    x->cout = cout;
    snprintf(x->layer, sizeof x->layer, "%.60s (%.20s) + %.60s", L->name, L->keras_class,
             B->name);
    x->bn = 1;
    return 0;
}

int edgeq_model_expect_read(const edgeq_graph *g, edgeq_model_expect *e) {
    memset(e, 0, sizeof *e);
    e->n_inputs = g->n_inputs < 8 ? g->n_inputs : 8;
    for (int k = 0; k < e->n_inputs; k++) {
        if (g->inputs[k] < 0 || g->inputs[k] >= g->n) continue;
        edgeq_input_expect *x = &e->in[k];
        const edgeq_node *in = &g->nodes[g->inputs[k]];
        e->in_rank[k] = in->rank;
        for (int d = 0; d < in->rank && d < 4; d++) e->in_shape[k][d] = in->shape[d];
        if (read_one(g, g->inputs[k], x) != 0) return -1;
        if (!x->bn) {
            free(x->a);
            free(x->bias);
            free(x->mu);
            free(x->sigma);
            x->a = x->bias = x->mu = x->sigma = NULL;
        }
    }
    return 0;
}

void edgeq_model_expect_prev(edgeq_model_expect *e, const char *out) {
    if (!out || !edgeq_has_ext(out, ".tflite")) return;
    uint8_t *file = NULL, *work = NULL;
    size_t len = 0;
    char err[256];
    if (edgeq_read_file_limit(out, EDGE_ARENA_ALIGN, (size_t)1 << 30, &file, &len, err,
                              sizeof err) != 0)
        return; /* not there: a new output */
    size_t work_len = ((size_t)64 << 20) + 4 * len;
    work_len = (work_len + EDGE_ARENA_ALIGN - 1) / EDGE_ARENA_ALIGN * EDGE_ARENA_ALIGN;
    work = aligned_alloc(EDGE_ARENA_ALIGN, work_len);
    edge_model m;
    memset(&m, 0, sizeof m);
    if (work && edge_model_init(&m, file, len, work, work_len) == EDGE_OK) {
        uint32_t n = edge_num_inputs(&m);
        for (uint32_t k = 0; k < n && k < (uint32_t)e->n_inputs; k++) {
            edge_tensor t = edge_input(&m, k);
            edgeq_input_expect *x = &e->in[k];
            int same = t.rank == e->in_rank[k];
            for (int d = 0; same && d < t.rank; d++) same = t.dims[d] == e->in_shape[k][d];
            if (same && t.scale > 0.0f && (t.type == EDGE_INT8 || t.type == EDGE_UINT8)) {
                int qmin = t.type == EDGE_INT8 ? -128 : 0, qmax = t.type == EDGE_INT8 ? 127 : 255;
                x->has_prev = 1;
                x->prev_lo = (float)(qmin - t.zero_point) * t.scale;
                x->prev_hi = (float)(qmax - t.zero_point) * t.scale;
                snprintf(x->prev_type, sizeof x->prev_type, "%s", edge_type_name(t.type));
            }
        }
        snprintf(e->prev_path, sizeof e->prev_path, "%.255s", out);
    }
    free(work);
    free(file);
}

void edgeq_model_expect_free(edgeq_model_expect *e) {
    for (int k = 0; k < 8; k++) {
        free(e->in[k].a);
        free(e->in[k].bias);
        free(e->in[k].mu);
        free(e->in[k].sigma);
    }
    memset(e, 0, sizeof *e);
}

/* ---- the checks ---- */

typedef struct fed_stats {
    double lo, hi, mean;
    int channels;
    double *ch_mean; /* [channels] */
} fed_stats;

static int fed_of(const edgeq_calib_set *set, const edgeq_node *in, int k, fed_stats *f) {
    memset(f, 0, sizeof *f);
    f->channels = in->rank > 0 && in->shape[in->rank - 1] > 0 ? in->shape[in->rank - 1] : 1;
    size_t n = (size_t)set->count * set->sample_len[k];
    if (set->sample_len[k] % (size_t)f->channels) f->channels = 1;
    f->ch_mean = calloc((size_t)f->channels, sizeof *f->ch_mean);
    if (!f->ch_mean) return -1;
    const float *p = set->data[k];
    double sum = 0.0;
    f->lo = f->hi = n ? p[0] : 0.0;
    for (size_t i = 0; i < n; i++) {
        double v = p[i];
        if (v < f->lo) f->lo = v;
        if (v > f->hi) f->hi = v;
        sum += v;
        f->ch_mean[i % (size_t)f->channels] += v;
    }
    f->mean = n ? sum / (double)n : 0.0;
    size_t per = n / (size_t)f->channels;
    for (int c = 0; c < f->channels; c++) f->ch_mean[c] = per ? f->ch_mean[c] / (double)per : 0.0;
    return 0;
}

/* "[1,96,96,3]" of a node */
static void node_shape(const edgeq_node *n, char *buf, size_t cap) {
    size_t at = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < n->rank && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, d ? ",%d" : "%d", n->shape[d]);
    if (at < cap) snprintf(buf + at, cap - at, "]");
}

static const char *chan_name(int c) { return c == 1 ? "grey" : c == 3 ? "RGB" : "?"; }

#define WARN(...)                                                                                  \
    do {                                                                                           \
        if (warn) fprintf(warn, EDGEQ_PROGRAM ": WARNING: " __VA_ARGS__);                         \
        nwarn++;                                                                                   \
        if (jw) {                                                                                  \
            char wbuf_[1024];                                                                      \
            snprintf(wbuf_, sizeof wbuf_, __VA_ARGS__);                                            \
            size_t wl_ = strlen(wbuf_);                                                            \
            if (wl_ && wbuf_[wl_ - 1] == '\n') wbuf_[wl_ - 1] = 0;                                 \
            fputs(jwarn_n++ ? "," : "", jw);                                                       \
            edgeq_json_string(jw, wbuf_);                                                          \
        }                                                                                          \
    } while (0)

int edgeq_calib_check(const edgeq_graph *g, const edgeq_model_expect *e,
                      const edgeq_calib_set *set, const edgeq_calib_cli *cli, FILE *warn,
                      edgeq_calib_findings *out) {
    memset(out, 0, sizeof *out);
    if (set->count <= 0 || set->synthetic) return 0;
    size_t tlen = 0, jlen = 0;
    FILE *t = open_memstream(&out->text, &tlen);
    FILE *j = open_memstream(&out->json, &jlen);
    FILE *jw = NULL;
    char *jwarn = NULL;
    size_t jwlen = 0;
    int nwarn = 0, rc = 0;
    if (!t || !j) {
        if (t) fclose(t);
        if (j) fclose(j);
        return -1;
    }
    fputc('[', j);
    for (int k = 0; k < set->n_inputs && k < g->n_inputs; k++) {
        const edgeq_node *in = &g->nodes[g->inputs[k]];
        const edgeq_calib_source *src = &set->src[k];
        const edgeq_input_expect *x = k < e->n_inputs ? &e->in[k] : NULL;
        char shape[64];
        node_shape(in, shape, sizeof shape);
        int jwarn_n = 0;
        jwarn = NULL;
        jwlen = 0;
        jw = open_memstream(&jwarn, &jwlen);
        fed_stats f;
        if (fed_of(set, in, k, &f) != 0) {
            rc = -1;
            if (jw) fclose(jw);
            free(jwarn);
            break;
        }
        double span = f.hi - f.lo;

        /* As read. */
        char read_desc[256];
        if (src->images) {
            if (src->img_sizes_vary)
                snprintf(read_desc, sizeof read_desc, "%d image%s of several sizes (first %s "
                         "%dx%d)", src->images, src->images == 1 ? "" : "s",
                         chan_name(src->img_c), src->img_w, src->img_h);
            else
                snprintf(read_desc, sizeof read_desc, "%d %s %dx%d image%s", src->images,
                         chan_name(src->img_c), src->img_w, src->img_h,
                         src->images == 1 ? "" : "s");
            if (src->arrays || src->raws) {
                size_t l = strlen(read_desc);
                snprintf(read_desc + l, sizeof read_desc - l, " and %d other file%s",
                         src->arrays + src->raws, src->arrays + src->raws == 1 ? "" : "s");
            }
        } else if (src->arrays) {
            snprintf(read_desc, sizeof read_desc, "%s%s", src->array_desc,
                     src->arrays > 1 ? " and more arrays" : "");
        } else {
            snprintf(read_desc, sizeof read_desc, "raw float32, %d file%s", src->raws,
                     src->raws == 1 ? "" : "s");
        }
        double src_mean = src->n > 0 ? src->sum / src->n : 0.0;
        fprintf(t, "Calibration input '%s' %s:\n", in->name, shape);
        fprintf(t, "  as read: %s; values %.6g..%.6g, mean %.6g%s\n", read_desc, src->lo,
                src->hi, src_mean, src->images ? " (pixels)" : "");
        char norm_desc[160];
        const edgeq_calib_norm *nm = &set->norm;
        if (!src->images)
            snprintf(norm_desc, sizeof norm_desc, "as read");
        else if (nm->kind == 1)
            snprintf(norm_desc, sizeof norm_desc, "pixels 0..255 mapped to %g..%g "
                     "(--calib-range)", (double)nm->lo, (double)nm->hi);
        else if (nm->kind == 2 && nm->n_mean == 1)
            snprintf(norm_desc, sizeof norm_desc, "(pixel - %g) / %g (--mean/--std)",
                     (double)nm->mean[0], (double)nm->std[0]);
        else if (nm->kind == 2)
            snprintf(norm_desc, sizeof norm_desc, "(pixel - [%g,%g,%g]) / [%g,%g,%g] "
                     "(--mean/--std)", (double)nm->mean[0], (double)nm->mean[1],
                     (double)nm->mean[2], (double)nm->std[0], (double)nm->std[1],
                     (double)nm->std[2]);
        else
            snprintf(norm_desc, sizeof norm_desc, "pixels fed as 0..255 (the default: no "
                     "--calib-range or --mean/--std)");
        fprintf(t, "  as fed:  %d x %s; values %.6g..%.6g, mean %.6g; %s\n", set->count, shape,
                f.lo, f.hi, f.mean, norm_desc);
        if (g->input_folded[k])
            fprintf(t, "  the model then scales them: x * %g + %g (its Rescaling) -> %.6g..%.6g\n",
                    (double)g->input_scale_fold[k], (double)g->input_offset_fold[k],
                    f.lo * g->input_scale_fold[k] + g->input_offset_fold[k],
                    f.hi * g->input_scale_fold[k] + g->input_offset_fold[k]);

        /* Conversions. */
        if (src->resized || src->grey_to_rgb || src->rgb_to_grey) {
            char what[256] = "";
            size_t at = 0;
            if (src->grey_to_rgb)
                at += (size_t)snprintf(what + at, sizeof what - at, "%d grey -> RGB (copied to "
                                       "3 channels)", src->grey_to_rgb);
            if (src->rgb_to_grey)
                at += (size_t)snprintf(what + at, sizeof what - at, "%s%d RGB -> grey",
                                       at ? ", " : "", src->rgb_to_grey);
            if (src->resized && at < sizeof what) {
                if (src->img_sizes_vary)
                    snprintf(what + at, sizeof what - at, "%s%d resized to %dx%d", at ? ", " : "",
                             src->resized, in->shape[2], in->shape[1]);
                else
                    snprintf(what + at, sizeof what - at, "%s%d resized %dx%d -> %dx%d "
                             "(bilinear)", at ? ", " : "", src->resized, src->img_w, src->img_h,
                             in->shape[2], in->shape[1]);
            }
            fprintf(t, "  converted: %s\n", what);
            WARN("calibration images converted to fit input '%s' %s: %s of %d images; are "
                 "they the kind of data the model was trained on?\n", in->name, shape, what,
                 src->images);
        }

        /* A folded Rescaling expects data spanning about 1/|scale|. */
        if (g->input_folded[k] && g->input_scale_fold[k] != 0.0f) {
            double want = 1.0 / fabs((double)g->input_scale_fold[k]);
            if (span > 0 && (span * 20.0 < want || span > want * 20.0))
                WARN("input '%s': the model starts with a Rescaling (x * %g + %g) made for data "
                     "spanning about %.4g (like 0..%.4g), but the calibration data spans %.4g "
                     "(%.4g..%.4g)%s\n", in->name, (double)g->input_scale_fold[k],
                     (double)g->input_offset_fold[k], want, want, span, f.lo, f.hi,
                     span < want ? ": already rescaled? feed the values the Keras model takes "
                                   "(pixels 0..255)" : "");
        }

        /* The first layer's BatchNormalization statistics. */
        if (x && x->bn && f.channels == x->cin) {
            double z2 = 0.0, le = 0.0, ee = 0.0;
            for (int c = 0; c < x->cout; c++) {
                double lin = 0.0;
                for (int ci = 0; ci < x->cin; ci++)
                    lin += (double)x->a[(size_t)c * (size_t)x->cin + (size_t)ci] *
                           (f.ch_mean[ci] * x->pre_scale + x->pre_offset);
                double expect = (double)x->mu[c] - (double)x->bias[c];
                double z = (lin - expect) / (double)x->sigma[c];
                z2 += z * z;
                le += lin * expect;
                ee += expect * expect;
            }
            double zr = sqrt(z2 / x->cout);
            double kfit = ee > 0 ? le / ee : 0.0;
            fprintf(t, "  first layer %s: its moving mean predicted from this data is off by "
                       "%.3g standard deviations (rms; above %.3g warns)\n", x->layer, zr,
                    EDGEQ_CALIB_BN_Z);
            if (zr > EDGEQ_CALIB_BN_Z) {
                char hint[200] = "";
                if (kfit > 4.0)
                    snprintf(hint, sizeof hint, ": the data looks about %.0fx larger than what it "
                             "was trained on%s", kfit,
                             kfit > 64.0 && f.hi > 2.0 ? " (0..255 where it expects 0..1? "
                                                         "--calib-range 0,1 for images)" : "");
                else if (kfit > 0.0 && kfit < 0.25)
                    snprintf(hint, sizeof hint, ": the data looks about %.0fx smaller than what "
                             "it was trained on", 1.0 / kfit);
                WARN("input '%s': the calibration data does not match the statistics the model "
                     "was trained with (first layer %s: moving mean off by %.3g standard "
                     "deviations)%s\n", in->name, x->layer, zr, hint);
            }
        }

        /* A previous .tflite's input range. */
        if (x && x->has_prev) {
            double pspan = (double)x->prev_hi - (double)x->prev_lo;
            fprintf(t, "  previous %s: %s input covered %.6g..%.6g\n", e->prev_path,
                    x->prev_type, (double)x->prev_lo, (double)x->prev_hi);
            if (span > 0 && pspan > 0 && (span * 8.0 < pspan || span > pspan * 8.0))
                WARN("input '%s': the calibration data spans %.4g..%.4g, but %s (being replaced) "
                     "took %.4g..%.4g: one of the two calibrations was not the model's data\n",
                     in->name, f.lo, f.hi, e->prev_path, (double)x->prev_lo,
                     (double)x->prev_hi);
        }

        /* Arrays and a user-given range. */
        if (cli && cli->have_range && !src->images) {
            double uspan = (double)cli->range_hi - (double)cli->range_lo;
            if (span * 4.0 < uspan || span > uspan * 4.0 || f.lo < cli->range_lo - uspan ||
                f.hi > cli->range_hi + uspan)
                WARN("input '%s': the calibration data spans %.4g..%.4g, far from "
                     "--calib-range %g,%g (arrays are fed as they are: the range is checked, "
                     "not applied)\n", in->name, f.lo, f.hi, (double)cli->range_lo,
                     (double)cli->range_hi);
        }

        /* JSON */
        if (jw) fclose(jw);
        fprintf(j, "%s{\"input\":", k ? "," : "");
        edgeq_json_string(j, in->name);
        fputs(",\"read\":", j);
        edgeq_json_string(j, read_desc);
        fputs(",\"read_min\":", j);
        edgeq_json_number(j, src->lo);
        fputs(",\"read_max\":", j);
        edgeq_json_number(j, src->hi);
        fputs(",\"read_mean\":", j);
        edgeq_json_number(j, src_mean);
        fputs(",\"fed_min\":", j);
        edgeq_json_number(j, f.lo);
        fputs(",\"fed_max\":", j);
        edgeq_json_number(j, f.hi);
        fputs(",\"fed_mean\":", j);
        edgeq_json_number(j, f.mean);
        fputs(",\"normalisation\":", j);
        edgeq_json_string(j, norm_desc);
        fprintf(j, ",\"resized\":%d,\"grey_to_rgb\":%d,\"rgb_to_grey\":%d,\"warnings\":[%s]}",
                src->resized, src->grey_to_rgb, src->rgb_to_grey, jwarn ? jwarn : "");
        free(jwarn);
        jwarn = NULL;
        free(f.ch_mean);
    }
    fputc(']', j);
    fclose(t);
    fclose(j);
    out->warnings = nwarn;
    return rc;
}

void edgeq_calib_findings_free(edgeq_calib_findings *f) {
    free(f->text);
    free(f->json);
    memset(f, 0, sizeof *f);
}
