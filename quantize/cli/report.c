/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c — the quantizer's report (see report.h).
 */
#include "report.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edge/quant.h"
#include "cli.h"

static const char *why_of(const char *op, int systolic) {
    if (systolic) {
        if (strcmp(op, "CONV_2D") == 0) return "convolution as implicit im2col tiles on the array";
        return "matrix-vector product on the array";
    }
    static const struct {
        const char *op, *why;
    } t[] = {
        {"CONV_2D", "the engine kept it off the array (see the engine's op notes)"},
        {"FULLY_CONNECTED", "the engine kept it off the array (see the engine's op notes)"},
        {"DEPTHWISE_CONV_2D", "depthwise: one filter per channel, no cross-channel sum to fill the array"},
        {"ADD", "elementwise, no multiply-accumulate"},
        {"SUB", "elementwise, no multiply-accumulate"},
        {"MUL", "elementwise, no multiply-accumulate"},
        {"AVERAGE_POOL_2D", "pooling has no weights"},
        {"MAX_POOL_2D", "pooling has no weights"},
        {"MEAN", "a reduction without weights"},
        {"SOFTMAX", "activation function (exp/normalize)"},
        {"LOGISTIC", "activation function (lookup)"},
        {"TANH", "activation function (lookup)"},
        {"HARD_SWISH", "activation function"},
        {"LEAKY_RELU", "activation function"},
        {"RELU", "activation function (clamp)"},
        {"RELU6", "activation function (clamp)"},
        {"RELU_N1_TO_1", "activation function (clamp)"},
        {"RESHAPE", "a view: no compute"},
        {"PAD", "data movement"},
        {"STRIDED_SLICE", "data movement"},
        {"CONCATENATION", "data movement"},
        {"QUANTIZE", "type conversion at the model's edge"},
        {"DEQUANTIZE", "type conversion at the model's edge"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(op, t[i].op) == 0) return t[i].why;
    return "not a systolic op";
}

typedef struct density {
    int op;
    double d;
} density;

static int by_density(const void *a, const void *b) {
    const density *x = a, *y = b;
    if (x->d != y->d) return x->d > y->d ? -1 : 1;
    return x->op - y->op;
}

int edgeq_report_build(edgeq_report *r, const edgeq_qmodel *m, const edgeq_engine *e,
                       const edgeq_graph *g, long sram_bytes) {
    uint32_t n = e ? edge_num_ops(&e->m) : (uint32_t)m->n_ops;
    r->n_ops = (int)n;
    r->ops = calloc(n ? n : 1, sizeof *r->ops);
    density *dd = calloc(n ? n : 1, sizeof *dd);
    if (!r->ops || !dd) {
        free(dd);
        return -1;
    }
    snprintf(r->source, sizeof r->source, "%s", g->source);
    r->macs = r->cycles = 0;
    r->n_systolic = 0;
    r->param_bytes = r->param_bytes_f32 = r->param_bytes_int8 = 0;
    int nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        edge_op_info info;
        edgeq_report_op *o = &r->ops[i];
        if (!e) {
            o->op = edgeq_builtin_name(m->ops[i].code);
            o->why = "the engine could not load the model";
        } else {
            if (edge_op_info_at(&e->m, i, &info) != EDGE_OK) continue;
            o->op = info.name;
            o->systolic = info.systolic;
            o->why = why_of(info.name, info.systolic);
            o->macs = info.macs;
            o->cycles = info.array_cycles;
        }
        if ((int)i < m->n_ops) {
            size_t f32, i8;
            edgeq_qop_param_bytes_as(m, (int)i, &f32, &i8);
            r->param_bytes_f32 += f32;
            r->param_bytes_int8 += i8;
            o->param_bytes = edgeq_qop_param_bytes(m, (int)i);
            int node = m->ops[i].node;
            if (node >= 0 && node < g->n) snprintf(o->layer, sizeof o->layer, "%s", g->nodes[node].name);
        }
        r->macs += o->macs;
        r->cycles += o->cycles;
        r->n_systolic += o->systolic != 0;
        r->param_bytes += o->param_bytes;
        if (o->param_bytes) {
            dd[nd].op = (int)i;
            dd[nd].d = (double)o->macs / (double)o->param_bytes;
            nd++;
        }
    }
    r->arena_bytes = e ? e->m.arena_needed : 0;
    r->arena_records = e ? e->m.arena_records : 0;
    r->arena_activations = e ? e->m.arena_activations : 0;
    r->sram_bytes = sram_bytes;
    r->cached_bytes = 0;
    r->sram_left = 0;
    if (sram_bytes >= 0 && (size_t)sram_bytes > r->arena_bytes) {
        size_t left = (size_t)sram_bytes - r->arena_bytes;
        qsort(dd, (size_t)nd, sizeof *dd, by_density);
        for (int k = 0; k < nd; k++) {
            edgeq_report_op *o = &r->ops[dd[k].op];
            if (o->param_bytes <= left) {
                o->cached = 1;
                left -= o->param_bytes;
                r->cached_bytes += o->param_bytes;
            }
        }
        r->sram_left = left;
    }
    r->streamed_bytes = r->param_bytes - r->cached_bytes;
    free(dd);
    return 0;
}

void edgeq_report_free(edgeq_report *r) {
    free(r->ops);
    r->ops = NULL;
}

/* ---- agreement ---- */

static void fill_input(const edge_tensor *t, const float *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (t->type == EDGE_FLOAT32) {
            ((float *)t->data)[i] = x[i];
            continue;
        }
        double q = edge_round((double)x[i] / (double)t->scale) + t->zero_point;
        if (t->type == EDGE_INT8)
            ((int8_t *)t->data)[i] = (int8_t)(q < -128 ? -128 : q > 127 ? 127 : q);
        else
            ((uint8_t *)t->data)[i] = (uint8_t)(q < 0 ? 0 : q > 255 ? 255 : q);
    }
}

static double output_value(const edge_tensor *t, size_t i) {
    switch (t->type) {
    case EDGE_FLOAT32: return ((const float *)t->data)[i];
    case EDGE_INT8: return t->scale * (double)(((const int8_t *)t->data)[i] - t->zero_point);
    case EDGE_UINT8: return t->scale * (double)(((const uint8_t *)t->data)[i] - t->zero_point);
    default: return 0.0;
    }
}

/* Per-sample results, summed in sample order afterwards so that the
 * figures do not depend on how samples were split across threads. */
typedef struct agree_job {
    const uint8_t *model;
    size_t model_len;
    const edgeq_calib_set *set;
    float *const *ref;
    const size_t *ref_len;
    int rows[8];
    uint32_t ni, no;
    int first, step;
    double *sig, *noise; /* [sample * no + k] */
    double *maxd, *maxf; /* [sample * no + k]: max |f - q|, max |f| */
    int *agree;          /* [sample * no + k] */
    int failed;
    char err[256];
} agree_job;

static void *agree_worker(void *arg) {
    agree_job *j = arg;
    edgeq_engine e;
    if (edgeq_engine_load(&e, j->model, j->model_len, j->err, sizeof j->err) != 0) {
        j->failed = 1;
        edgeq_engine_free(&e);
        return NULL;
    }
    for (int s = j->first; s < j->set->count; s += j->step) {
        for (uint32_t k = 0; k < j->ni; k++) {
            edge_tensor t = edge_input(&e.m, k);
            fill_input(&t, edgeq_calib_sample(j->set, (int)k, s), j->set->sample_len[k]);
        }
        edge_status st = edge_invoke(&e.m);
        if (st != EDGE_OK) {
            snprintf(j->err, sizeof j->err, "the engine failed on sample %d: %s: %s", s,
                     edge_status_str(st), edge_model_error(&e.m));
            j->failed = 1;
            break;
        }
        for (uint32_t k = 0; k < j->no; k++) {
            edge_tensor t = edge_output(&e.m, k);
            const float *f = j->ref[k] + (size_t)s * j->ref_len[k];
            double sg = 0, ns = 0, md = 0, mf = 0;
            for (size_t i = 0; i < j->ref_len[k]; i++) {
                double q = output_value(&t, i), d = f[i] - q;
                sg += (double)f[i] * f[i];
                ns += d * d;
                if (fabs(d) > md || d != d) md = d != d ? INFINITY : fabs(d);
                if (fabs((double)f[i]) > mf) mf = fabs((double)f[i]);
            }
            int last = t.rank > 0 ? t.dims[t.rank - 1] : 1, ag = 0;
            for (int row = 0; row < j->rows[k]; row++) {
                size_t base = (size_t)row * (size_t)last;
                int af = 0, aq = 0;
                for (int c = 1; c < last; c++) {
                    if (f[base + c] > f[base + af]) af = c;
                    if (output_value(&t, base + c) > output_value(&t, base + aq)) aq = c;
                }
                ag += af == aq;
            }
            size_t at = (size_t)s * j->no + k;
            j->sig[at] = sg;
            j->maxd[at] = md;
            j->maxf[at] = mf;
            j->noise[at] = ns;
            j->agree[at] = ag;
        }
    }
    edgeq_engine_free(&e);
    return NULL;
}

int edgeq_report_agreement(edgeq_agreement *a, const uint8_t *model, size_t model_len,
                           const edgeq_engine *e, const edgeq_calib_set *set,
                           const edgeq_graph *g, float *const *ref, const size_t *ref_len,
                           char *err, size_t err_len) {
    memset(a, 0, sizeof *a);
    uint32_t ni = edge_num_inputs(&e->m), no = edge_num_outputs(&e->m);
    if ((int)ni != set->n_inputs || (int)no != g->n_outputs || no > 8) {
        snprintf(err, err_len, "the written model has %u inputs and %u outputs, the graph %d and %d",
                 ni, no, set->n_inputs, g->n_outputs);
        return -1;
    }
    for (uint32_t k = 0; k < ni; k++) {
        edge_tensor t = edge_input(&e->m, k);
        size_t n = t.bytes / edge_type_size(t.type);
        if (n != set->sample_len[k]) {
            snprintf(err, err_len, "input %u of the written model has %zu values, a sample %zu", k,
                     n, set->sample_len[k]);
            return -1;
        }
    }
    agree_job proto;
    memset(&proto, 0, sizeof proto);
    for (uint32_t k = 0; k < no; k++) {
        edge_tensor t = edge_output(&e->m, k);
        size_t n = t.bytes / edge_type_size(t.type);
        if (n != ref_len[k]) {
            snprintf(err, err_len, "output %u of the written model has %zu values, the graph's %zu",
                     k, n, ref_len[k]);
            return -1;
        }
        snprintf(a->name[k], sizeof a->name[k], "%s", g->nodes[g->outputs[k]].name);
        int last = t.rank > 0 ? t.dims[t.rank - 1] : 1;
        a->rows[k] = last > 1 ? (int)(n / (size_t)last) : 0;
        proto.rows[k] = a->rows[k];
    }
    size_t cells = (size_t)(set->count > 0 ? set->count : 1) * (no ? no : 1);
    double *sig = calloc(cells, sizeof *sig), *noise = calloc(cells, sizeof *noise);
    int *agree = calloc(cells, sizeof *agree);
    double *maxd = calloc(cells, sizeof *maxd), *maxf = calloc(cells, sizeof *maxf);
    int rc = -1;
    /* Samples are independent: one engine context per thread on the same
     * model bytes (the engine keeps no global state). */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int nt = cpus < 1 ? 1 : cpus > 8 ? 8 : (int)cpus;
    if (nt > set->count / 8 + 1) nt = set->count / 8 + 1;
    agree_job jobs[8];
    pthread_t tid[8];
    int started[8] = {0};
    if (!sig || !noise || !agree || !maxd || !maxf) {
        snprintf(err, err_len, "out of memory");
        goto done;
    }
    proto.model = model;
    proto.model_len = model_len;
    proto.set = set;
    proto.ref = ref;
    proto.ref_len = ref_len;
    proto.ni = ni;
    proto.no = no;
    proto.step = nt;
    proto.sig = sig;
    proto.noise = noise;
    proto.agree = agree;
    proto.maxd = maxd;
    proto.maxf = maxf;
    for (int t = 0; t < nt; t++) {
        jobs[t] = proto;
        jobs[t].first = t;
        if (t > 0 && pthread_create(&tid[t], NULL, agree_worker, &jobs[t]) == 0) started[t] = 1;
    }
    /* This thread takes the first share and any thread that could not start. */
    agree_worker(&jobs[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            agree_worker(&jobs[t]);
    }
    for (int t = 0; t < nt; t++)
        if (jobs[t].failed) {
            snprintf(err, err_len, "%s", jobs[t].err);
            goto done;
        }
    a->samples = set->count;
    a->n_outputs = (int)no;
    for (uint32_t k = 0; k < no; k++) {
        double sg = 0, ns = 0, md = 0, mf = 0;
        long ag = 0;
        for (int s = 0; s < set->count; s++) {
            if (maxd[(size_t)s * no + k] > md) md = maxd[(size_t)s * no + k];
            if (maxf[(size_t)s * no + k] > mf) mf = maxf[(size_t)s * no + k];
            sg += sig[(size_t)s * no + k];
            ns += noise[(size_t)s * no + k];
            ag += agree[(size_t)s * no + k];
        }
        long rows = (long)a->rows[k] * set->count;
        a->top1[k] = rows ? (double)ag / (double)rows : NAN;
        a->snr_db[k] = ns > 0 ? 10.0 * log10(sg / ns) : INFINITY;
        a->max_rel[k] = mf > 0 ? md / mf : md > 0 ? INFINITY : 0.0;
    }
    rc = 0;
done:
    free(sig);
    free(noise);
    free(agree);
    free(maxd);
    free(maxf);
    return rc;
}

/* ---- output ---- */

static void human_bytes(char *buf, size_t cap, size_t b) {
    if (b >= 10 * 1024 * 1024)
        snprintf(buf, cap, "%.2f MiB", (double)b / (1024.0 * 1024.0));
    else if (b >= 10 * 1024)
        snprintf(buf, cap, "%.2f KiB", (double)b / 1024.0);
    else
        snprintf(buf, cap, "%zu B", b);
}

void edgeq_report_print(FILE *fp, const edgeq_report *r) {
    char a[32], b[32], c[32];
    int flt = r->dtype && strcmp(r->dtype, "int8") != 0;
    fprintf(fp, "edgeq %s\n", EDGE_VERSION_STRING);
    fprintf(fp, "Model %s successfully in %.0f ms (load %.0f, %s %.0f, lower and "
                "write %.0f, check %.0f).\n\n",
            flt ? "converted" : "quantized", r->seconds * 1000.0, r->t_load * 1000.0,
            flt ? "reference" : "calibrate", r->t_calib * 1000.0, r->t_build * 1000.0,
            r->t_check * 1000.0);
    fprintf(fp, "Input model: %s (%s)\n", r->model_path, r->source[0] ? r->source : "Keras");
    human_bytes(a, sizeof a, r->out_bytes);
    fprintf(fp, "Output model: %s (%s)\n", r->out_path, a);
    if (flt) {
        fprintf(fp, "Data type: %s weights, %s activations, float32 biases and I/O; no "
                    "calibration\n", r->dtype, r->act ? r->act : "f32");
        if (r->calib_samples > 0) fprintf(fp, "Check samples: %s\n", r->calib_desc);
        if (r->calib_text) fputs(r->calib_text, fp);
        if (r->bias_correction)
            fprintf(fp, "Bias correction: %d layers, on %d %s samples%s\n", r->bias_corr_layers,
                    r->bias_corr_samples, r->bias_corr_synthetic ? "SYNTHETIC" : "--calib",
                    r->bias_corr_skipped ? " (some layers left alone)" : "");
    } else {
        fprintf(fp, "Calibration: %s; ranges: %s%s\n", r->calib_desc, r->range_method,
                r->calib_synthetic ? " (SYNTHETIC: not your data)" : "");
        if (r->calib_text) fputs(r->calib_text, fp);
        fprintf(fp, "I/O type: %s\n", r->io);
    }
    if (r->engine_refused[0]) {
        fprintf(fp, "Scratch SRAM peak: unknown: the engine could not load the model (%s)\n",
                r->engine_refused);
    } else {
        human_bytes(a, sizeof a, r->arena_bytes);
        human_bytes(b, sizeof b, r->arena_records);
        human_bytes(c, sizeof c, r->arena_activations);
        fprintf(fp, "Scratch SRAM peak (engine arena): %s = records %s + activations %s\n", a,
                b, c);
    }
    human_bytes(a, sizeof a, r->param_bytes);
    fprintf(fp, "Parameters: %s\n", a);
    if (flt) {
        human_bytes(b, sizeof b, r->param_bytes_f32);
        human_bytes(c, sizeof c, r->param_bytes_int8);
        fprintf(fp, "Parameter bytes: %s %zu, float32 %zu, int8 %zu (weights + int32 biases + "
                    "per-channel scales)\n", r->dtype, r->param_bytes, r->param_bytes_f32,
                r->param_bytes_int8);
        fprintf(fp, "Bytes saved: %lld against float32 (%.1f %%), %lld against int8 (%.1f %%; "
                    "negative: larger)\n",
                (long long)r->param_bytes_f32 - (long long)r->param_bytes,
                r->param_bytes_f32 ? 100.0 * (1.0 - (double)r->param_bytes /
                                                        (double)r->param_bytes_f32) : 0.0,
                (long long)r->param_bytes_int8 - (long long)r->param_bytes,
                r->param_bytes_int8 ? 100.0 * (1.0 - (double)r->param_bytes /
                                                         (double)r->param_bytes_int8) : 0.0);
    }
    if (r->sram_bytes >= 0) {
        human_bytes(a, sizeof a, r->cached_bytes);
        human_bytes(b, sizeof b, r->sram_left);
        human_bytes(c, sizeof c, (size_t)r->sram_bytes);
        fprintf(fp, "On-chip SRAM used for caching parameters: %s (of %s; %s remaining)\n", a, c, b);
        human_bytes(a, sizeof a, r->streamed_bytes);
        fprintf(fp, "Off-chip flash streamed for uncached parameters: %s\n", a);
    } else {
        fprintf(fp, "Parameters are streamed from flash (give --sram-kb N to plan SRAM caching)\n");
    }
    fprintf(fp, "MACs per inference: %llu\n", (unsigned long long)r->macs);
    fprintf(fp, "Estimated systolic array cycles: %llu\n", (unsigned long long)r->cycles);
    if (r->engine_refused[0])
        fprintf(fp, "Total number of operations: %d (units unknown: the engine could not load "
                    "the model)\n\n", r->n_ops);
    else
        fprintf(fp, "Total number of operations: %d, on the systolic kernel: %d, on the CPU: %d\n\n",
                r->n_ops, r->n_systolic, r->n_ops - r->n_systolic);

    /* Summary table by op and unit, in order of first appearance. */
    fprintf(fp, "%-22s %-7s %s\n", "Operator", "Count", "Status");
    for (int i = 0; i < r->n_ops; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = r->ops[j].op && r->ops[i].op && strcmp(r->ops[j].op, r->ops[i].op) == 0 &&
                   r->ops[j].systolic == r->ops[i].systolic;
        if (seen || !r->ops[i].op) continue;
        int count = 0;
        for (int j = i; j < r->n_ops; j++)
            count += r->ops[j].op && strcmp(r->ops[j].op, r->ops[i].op) == 0 &&
                     r->ops[j].systolic == r->ops[i].systolic;
        if (r->engine_refused[0])
            fprintf(fp, "%-22s %-7d Unknown: the engine could not load the model\n",
                    r->ops[i].op, count);
        else if (r->ops[i].systolic)
            fprintf(fp, "%-22s %-7d Mapped to the systolic kernel\n", r->ops[i].op, count);
        else
            fprintf(fp, "%-22s %-7d Runs on the CPU: %s\n", r->ops[i].op, count, r->ops[i].why);
    }

    fprintf(fp, "\n%4s  %-20s %-9s %12s %10s %9s %-6s %s\n", "#", "op", "unit", "MACs", "cycles",
            "params", "cache", "layer");
    for (int i = 0; i < r->n_ops; i++) {
        const edgeq_report_op *o = &r->ops[i];
        fprintf(fp, "%4d  %-20s %-9s %12llu %10llu %9zu %-6s %s\n", i, o->op ? o->op : "?",
                r->engine_refused[0] ? "?" : o->systolic ? "systolic" : "cpu",
                (unsigned long long)o->macs,
                (unsigned long long)o->cycles, o->param_bytes,
                o->param_bytes == 0 ? "-" : o->cached ? "sram" : "flash",
                o->layer[0] ? o->layer : "(I/O)");
    }
    const edgeq_agreement *g = &r->agree;
    if (g->samples > 0) {
        fprintf(fp, "\n%s vs float on the %d %s sample%s%s:\n", flt ? r->dtype : "int8",
                g->samples, flt ? "check" : "calibration", g->samples == 1 ? "" : "s",
                r->calib_synthetic ? " (synthetic: a smoke test, not accuracy)" : "");
        for (int k = 0; k < g->n_outputs; k++) {
            fprintf(fp, "  %-24s SNR %6.2f dB", g->name[k], g->snr_db[k]);
            if (flt) fprintf(fp, "   max rel error %.3g %%", 100.0 * g->max_rel[k]);
            if (g->rows[k] > 0) fprintf(fp, "   top-1 agreement %6.2f %%", 100.0 * g->top1[k]);
            fputc('\n', fp);
        }
    }
}

static void json_key(FILE *fp, const char *k) {
    edgeq_json_string(fp, k);
    fputc(':', fp);
}

void edgeq_report_json(FILE *fp, const edgeq_report *r) {
    fputc('{', fp);
    json_key(fp, "edgeq_version");
    edgeq_json_string(fp, EDGE_VERSION_STRING);
    fputc(',', fp);
    json_key(fp, "model");
    edgeq_json_string(fp, r->model_path);
    fputc(',', fp);
    json_key(fp, "source");
    edgeq_json_string(fp, r->source);
    fputc(',', fp);
    json_key(fp, "output");
    edgeq_json_string(fp, r->out_path);
    fprintf(fp, ",\"output_bytes\":%zu,\"seconds\":", r->out_bytes);
    edgeq_json_number(fp, r->seconds);
    fputs(",\"phase_seconds\":{\"load\":", fp);
    edgeq_json_number(fp, r->t_load);
    fputs(",\"calibrate\":", fp);
    edgeq_json_number(fp, r->t_calib);
    fputs(",\"lower_write\":", fp);
    edgeq_json_number(fp, r->t_build);
    fputs(",\"check\":", fp);
    edgeq_json_number(fp, r->t_check);
    fputc('}', fp);
    fputs(",\"calibration\":{", fp);
    json_key(fp, "source");
    edgeq_json_string(fp, r->calib_desc);
    fprintf(fp, ",\"samples\":%d,\"synthetic\":%s,\"range\":", r->calib_samples,
            r->calib_synthetic ? "true" : "false");
    edgeq_json_string(fp, r->range_method);
    fprintf(fp, ",\"warnings\":%d,\"inputs\":%s", r->calib_warnings,
            r->calib_json ? r->calib_json : "[]");
    fputs("},", fp);
    json_key(fp, "io");
    edgeq_json_string(fp, r->io);
    fputc(',', fp);
    json_key(fp, "dtype");
    edgeq_json_string(fp, r->dtype ? r->dtype : "int8");
    fputc(',', fp);
    json_key(fp, "act");
    edgeq_json_string(fp, r->act ? r->act : "int8");
    if (r->dtype && strcmp(r->dtype, "bf16") == 0) {
        if (r->bias_correction)
            fprintf(fp, ",\"bias_correction\":{\"layers\":%d,\"skipped\":%d,\"samples\":%d,"
                        "\"synthetic\":%s}", r->bias_corr_layers, r->bias_corr_skipped,
                    r->bias_corr_samples, r->bias_corr_synthetic ? "true" : "false");
        else
            fputs(",\"bias_correction\":null", fp);
    }
    fprintf(fp, ",\"param_bytes_float32\":%zu,\"param_bytes_int8\":%zu,\"engine_refused\":",
            r->param_bytes_f32, r->param_bytes_int8);
    if (r->engine_refused[0])
        edgeq_json_string(fp, r->engine_refused);
    else
        fputs("null", fp);
    fprintf(fp,
            ",\"arena_bytes\":%zu,\"arena_records_bytes\":%zu,\"arena_activation_bytes\":%zu,"
            "\"param_bytes\":%zu,\"sram_budget_bytes\":",
            r->arena_bytes, r->arena_records, r->arena_activations, r->param_bytes);
    if (r->sram_bytes >= 0)
        fprintf(fp, "%ld", r->sram_bytes);
    else
        fputs("null", fp);
    fprintf(fp,
            ",\"cached_param_bytes\":%zu,\"streamed_param_bytes\":%zu,\"macs\":%llu,"
            "\"array_cycles\":%llu,\"ops_total\":%d,\"ops_systolic\":%d,\"ops\":[",
            r->cached_bytes, r->streamed_bytes, (unsigned long long)r->macs,
            (unsigned long long)r->cycles, r->n_ops, r->n_systolic);
    for (int i = 0; i < r->n_ops; i++) {
        const edgeq_report_op *o = &r->ops[i];
        if (i) fputc(',', fp);
        fprintf(fp, "{\"index\":%d,\"op\":", i);
        edgeq_json_string(fp, o->op ? o->op : "?");
        fputs(",\"layer\":", fp);
        if (o->layer[0])
            edgeq_json_string(fp, o->layer);
        else
            fputs("null", fp);
        fprintf(fp, ",\"unit\":\"%s\",\"why\":", o->systolic ? "systolic" : "cpu");
        edgeq_json_string(fp, o->why);
        fprintf(fp, ",\"macs\":%llu,\"array_cycles\":%llu,\"param_bytes\":%zu,\"cached\":%s}",
                (unsigned long long)o->macs, (unsigned long long)o->cycles, o->param_bytes,
                o->cached ? "true" : "false");
    }
    fputs("],\"agreement\":", fp);
    const edgeq_agreement *g = &r->agree;
    if (g->samples <= 0) {
        fputs("null", fp);
    } else {
        fprintf(fp, "{\"samples\":%d,\"outputs\":[", g->samples);
        for (int k = 0; k < g->n_outputs; k++) {
            if (k) fputc(',', fp);
            fputs("{\"name\":", fp);
            edgeq_json_string(fp, g->name[k]);
            fputs(",\"snr_db\":", fp);
            edgeq_json_number(fp, g->snr_db[k]);
            fputs(",\"max_rel_error\":", fp);
            edgeq_json_number(fp, g->max_rel[k]);
            fputs(",\"top1_agreement\":", fp);
            edgeq_json_number(fp, g->rows[k] > 0 ? g->top1[k] : NAN);
            fputc('}', fp);
        }
        fputs("]}", fp);
    }
    fputs("}\n", fp);
}
