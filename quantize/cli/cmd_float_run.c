/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_float_run.c — `edgeq float-run`: run a Keras model on edgeq's float
 * executor (after the graph passes, unless --no-passes), and optionally
 * calibrate it. A test hook: pytest compares its outputs with Keras and with
 * the official float .tflite twins, and reads the ranges calibration found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib/calib.h"
#include "calib/calib_data.h"
#include "cli.h"
#include "io/file_util.h"
#include "graph/float_exec.h"
#include "keras/keras_load.h"
#include "io/npy.h"
#include "graph/passes.h"
#include "io/output_path.h"

#define CMD "float-run"

static void usage(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " " CMD " <model.h5|model.keras> [--input FILE] "
            "[--output FILE]... [options]\n"
            "\n"
            "Run a Keras model on edgeq's float32 reference executor, the one calibration\n"
            "uses.\n"
            "\n"
            "  --input FILE      the samples to run: anything --calib accepts (.npy of one\n"
            "                    sample or N stacked, .npz, an image, raw float32, a folder)\n"
            "  --output FILE     where the model's outputs go (.npy, float32, N samples\n"
            "                    stacked); once per model output, in order\n"
            "  --no-passes       run the graph as loaded (no BatchNorm folding, fusion...)\n"
            "  --graph FILE      write the graph that runs as JSON (nodes, ops, shapes)\n"
            "  --calib FILE|DIR  calibrate on this data (default: the synthetic fallback)\n"
            "  --calib-count N   use at most N calibration samples\n"
            "  --range METHOD    minmax (default), percentile or mse\n"
            "  --ranges FILE     calibrate and write every node's range as JSON\n"
            "  --dump-calib FILE write the calibration samples of input 0 as .npy\n"
            "\n"
            "exit codes: 0 success, 1 failure, 2 usage error\n");
}

static int write_graph_json(const char *path, const edgeq_graph *g, const edgeq_pass_stats *st,
                            char *err, size_t err_len) {
    edgeq_atomic_file f;
    if (edgeq_atomic_open(&f, path, err, err_len) != 0) return -1;
    FILE *fp = f.fp;
    fprintf(fp, "{\"passes\": {\"identities_removed\": %d, \"rescales_folded\": %d, "
                "\"bn_folded\": %d, \"bn_to_depthwise\": %d, \"activations_split\": %d, "
                "\"activations_fused\": %d, \"reshapes_merged\": %d},\n",
            st->identities_removed, st->rescales_folded, st->bn_folded, st->bn_to_depthwise,
            st->activations_split, st->activations_fused, st->reshapes_merged);
    fprintf(fp, " \"inputs\": [");
    for (int k = 0; k < g->n_inputs; k++) {
        fprintf(fp, "%s{\"node\": %d, \"folded\": %d, \"scale\": ", k ? ", " : "", g->inputs[k],
                g->input_folded[k]);
        edgeq_json_number(fp, g->input_folded[k] ? g->input_scale_fold[k] : 1.0);
        fprintf(fp, ", \"offset\": ");
        edgeq_json_number(fp, g->input_folded[k] ? g->input_offset_fold[k] : 0.0);
        fputc('}', fp);
    }
    fprintf(fp, "],\n \"outputs\": [");
    for (int k = 0; k < g->n_outputs; k++) fprintf(fp, "%s%d", k ? ", " : "", g->outputs[k]);
    fprintf(fp, "],\n \"nodes\": [\n");
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        fprintf(fp, "  {\"name\": ");
        edgeq_json_string(fp, n->name);
        fprintf(fp, ", \"op\": ");
        edgeq_json_string(fp, edgeq_op_name(n->op));
        fprintf(fp, ", \"act\": ");
        edgeq_json_string(fp, edgeq_act_name(n->act));
        fprintf(fp, ", \"in\": [");
        for (int k = 0; k < n->n_in; k++) fprintf(fp, "%s%d", k ? ", " : "", n->in[k]);
        fprintf(fp, "], \"shape\": [");
        for (int d = 0; d < n->rank; d++) fprintf(fp, "%s%d", d ? ", " : "", n->shape[d]);
        fprintf(fp, "]");
        if (n->calibrated) {
            fprintf(fp, ", \"min\": ");
            edgeq_json_number(fp, n->range_min);
            fprintf(fp, ", \"max\": ");
            edgeq_json_number(fp, n->range_max);
        }
        fprintf(fp, "}%s\n", i + 1 < g->n ? "," : "");
    }
    fprintf(fp, " ]}\n");
    return edgeq_atomic_commit(&f, err, err_len);
}

static int write_stacked(const char *path, const edgeq_node *n, int count, const float *data,
                         char *err, size_t err_len) {
    uint64_t shape[EDGEQ_MAX_RANK];
    shape[0] = (uint64_t)count;
    for (int d = 1; d < n->rank; d++) shape[d] = (uint64_t)n->shape[d];
    size_t bytes = (size_t)count * edgeq_node_numel(n) * sizeof(float);
    return edgeq_npy_write(path, 'f', 4, (uint32_t)n->rank, shape, data, bytes, err, err_len);
}

int edgeq_cmd_float_run(int argc, char **argv) {
    const char *model = NULL, *input = NULL, *outputs[8], *graph_json = NULL, *calib = NULL;
    const char *ranges = NULL, *dump = NULL, *method_s = "minmax";
    int n_out = 0, passes = 1;
    long calib_count = 0;
    edgeq_range_method method = EDGEQ_RANGE_MINMAX;
    for (int i = 1; i < argc;) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return EDGEQ_EXIT_OK;
        }
        if (strcmp(a, "--no-passes") == 0) {
            passes = 0;
            i++;
        } else if (edgeq_opt_value(argc, argv, &i, "--input", &v)) {
            if (!v) return edgeq_usage(CMD, "--input needs a file");
            if (input)
                return edgeq_usage(CMD, "--input given twice (use an .npz for several inputs)");
            input = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--output", &v)) {
            if (!v) return edgeq_usage(CMD, "--output needs a file");
            if (n_out == 8) return edgeq_usage(CMD, "more than 8 --output files");
            outputs[n_out++] = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--graph", &v)) {
            if (!v) return edgeq_usage(CMD, "--graph needs a file");
            graph_json = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--calib", &v)) {
            if (!v) return edgeq_usage(CMD, "--calib needs a file or folder");
            calib = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--calib-count", &v)) {
            if (edgeq_parse_long(v, 1, 1000000000L, &calib_count) != 0)
                return edgeq_usage(CMD, "--calib-count needs a positive count, not '%s'",
                                   v ? v : "");
        } else if (edgeq_opt_value(argc, argv, &i, "--range", &v)) {
            if (edgeq_range_method_parse(v, &method) != 0)
                return edgeq_usage(CMD, "--range is minmax, percentile or mse, not '%s'",
                                   v ? v : "");
            method_s = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--ranges", &v)) {
            if (!v) return edgeq_usage(CMD, "--ranges needs a file");
            ranges = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--dump-calib", &v)) {
            if (!v) return edgeq_usage(CMD, "--dump-calib needs a file");
            dump = v;
        } else if (a[0] == '-' && a[1]) {
            return edgeq_usage(CMD, "unknown option '%s'", a);
        } else {
            if (model) return edgeq_usage(CMD, "more than one model ('%s', '%s')", model, a);
            model = a;
            i++;
        }
    }
    if (!model) return edgeq_usage(CMD, "no model given");
    if (n_out && !input) return edgeq_usage(CMD, "--output needs --input");
    {
        /* A debugging command: any file name, but never one of the inputs. */
        const char *ins[4] = {model, input, graph_json, calib};
        const char *outs[10];
        int no = 0;
        for (int k = 0; k < n_out; k++) outs[no++] = outputs[k];
        if (ranges) outs[no++] = ranges;
        if (dump) outs[no++] = dump;
        for (int k = 0; k < no; k++) {
            int orc = edgeq_output_check(outs[k], "output", ins, 4, NULL, 1);
            if (orc != 0) return orc;
        }
    }

    char err[1024];
    edgeq_graph g;
    memset(&g, 0, sizeof g);
    edgeq_pass_stats st;
    memset(&st, 0, sizeof st);
    edgeq_calib_set in_set, cal_set;
    memset(&in_set, 0, sizeof in_set);
    memset(&cal_set, 0, sizeof cal_set);
    edgeq_float_exec x;
    memset(&x, 0, sizeof x);
    float *outbuf[8] = {0};
    int rc = EDGEQ_EXIT_FAIL;

    if (edgeq_keras_load(model, &g, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }
    if (passes && edgeq_passes_run(&g, &st, err, sizeof err) != 0) {
        edgeq_error("%s: %s", model, err);
        goto out;
    }
    if (n_out && n_out != g.n_outputs) {
        rc = edgeq_usage(CMD, "the model has %d output%s, %d --output given", g.n_outputs,
                         g.n_outputs == 1 ? "" : "s", n_out);
        goto out;
    }
    if (ranges || dump) {
        if (calib ? edgeq_calib_data_load(&g, calib, calib_count, &cal_set, err, sizeof err)
                  : edgeq_calib_data_synthetic(&g, calib_count, &cal_set, err, sizeof err)) {
            edgeq_error("%s", err);
            goto out;
        }
        if (cal_set.synthetic) edgeq_calib_print_synthetic_warning(stderr, &cal_set);
        if (dump && write_stacked(dump, &g.nodes[g.inputs[0]], cal_set.count, cal_set.data[0],
                                  err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto out;
        }
        if (ranges) {
            if (edgeq_calibrate(&g, &cal_set, method, 1, NULL, NULL, err, sizeof err) != 0) {
                edgeq_error("%s: %s", model, err);
                goto out;
            }
            edgeq_atomic_file f;
            if (edgeq_atomic_open(&f, ranges, err, sizeof err) != 0) {
                edgeq_error("%s", err);
                goto out;
            }
            fprintf(f.fp, "{\"method\": ");
            edgeq_json_string(f.fp, method_s);
            fprintf(f.fp, ", \"samples\": %d, \"source\": ", cal_set.count);
            edgeq_json_string(f.fp, cal_set.desc);
            fprintf(f.fp, ", \"nodes\": [\n");
            for (int i = 0; i < g.n; i++) {
                fprintf(f.fp, "  {\"name\": ");
                edgeq_json_string(f.fp, g.nodes[i].name);
                fprintf(f.fp, ", \"op\": ");
                edgeq_json_string(f.fp, edgeq_op_name(g.nodes[i].op));
                fprintf(f.fp, ", \"min\": ");
                edgeq_json_number(f.fp, g.nodes[i].range_min);
                fprintf(f.fp, ", \"max\": ");
                edgeq_json_number(f.fp, g.nodes[i].range_max);
                fprintf(f.fp, "}%s\n", i + 1 < g.n ? "," : "");
            }
            fprintf(f.fp, "]}\n");
            if (edgeq_atomic_commit(&f, err, sizeof err) != 0) {
                edgeq_error("%s", err);
                goto out;
            }
        }
    }
    if (graph_json && write_graph_json(graph_json, &g, &st, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        goto out;
    }
    if (input) {
        if (edgeq_calib_data_load(&g, input, 0, &in_set, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto out;
        }
        if (edgeq_float_exec_init(&x, &g, err, sizeof err) != 0) {
            edgeq_error("%s: %s", model, err);
            goto out;
        }
        for (int k = 0; k < g.n_outputs; k++) {
            size_t len = edgeq_node_numel(&g.nodes[g.outputs[k]]);
            outbuf[k] = malloc((size_t)in_set.count * len * sizeof(float));
            if (!outbuf[k]) {
                edgeq_error("out of memory for the outputs");
                goto out;
            }
        }
        for (int s = 0; s < in_set.count; s++) {
            const float *in[8];
            for (int k = 0; k < g.n_inputs; k++) in[k] = edgeq_calib_sample(&in_set, k, s);
            if (edgeq_float_exec_run(&x, in, err, sizeof err) != 0) {
                edgeq_error("%s", err);
                goto out;
            }
            for (int k = 0; k < g.n_outputs; k++) {
                size_t len = edgeq_node_numel(&g.nodes[g.outputs[k]]);
                memcpy(outbuf[k] + (size_t)s * len, x.buf[g.outputs[k]], len * sizeof(float));
            }
        }
        for (int k = 0; k < n_out; k++)
            if (write_stacked(outputs[k], &g.nodes[g.outputs[k]], in_set.count, outbuf[k], err,
                              sizeof err) != 0) {
                edgeq_error("%s", err);
                goto out;
            }
        if (!n_out) { /* no --output: print the first sample's outputs */
            for (int k = 0; k < g.n_outputs; k++) {
                const edgeq_node *n = &g.nodes[g.outputs[k]];
                size_t len = edgeq_node_numel(n);
                printf("output %d '%s':", k, n->name);
                for (size_t e = 0; e < len && e < 16; e++) printf(" %.6g", (double)outbuf[k][e]);
                printf("%s\n", len > 16 ? " ..." : "");
            }
        }
    }
    rc = EDGEQ_EXIT_OK;
out:
    for (int k = 0; k < 8; k++) free(outbuf[k]);
    edgeq_float_exec_free(&x);
    edgeq_calib_set_free(&in_set);
    edgeq_calib_set_free(&cal_set);
    edgeq_graph_free(&g);
    return rc;
}
