/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_dump.c — `edgeq keras-dump`: load a Keras model and show the float
 * graph the quantizer would start from. For checking the loader against
 * Keras (tests/quantize/test_keras_load.py) and for users wondering what
 * edgeq made of their model.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "keras/keras_load.h"
#include "io/npy.h"

static void usage_text(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " keras-dump <model.h5|model.keras> [--json] [--weights DIR]\n"
            "\n"
            "Load a Keras model (Keras 2 or 3 .h5, Keras 3 .keras) into edgeq's float graph\n"
            "and print it: one line per node (op, Keras layer and class, inputs, output\n"
            "shape, parameters).\n"
            "\n"
            "options:\n"
            "  --json         print the graph as JSON instead\n"
            "  --weights DIR  write each node's arrays as DIR/<node>.<field>.npy (float32,\n"
            "                 Keras layouts: kernel, bias, gamma, beta, mean, var)\n");
}

/* The Keras-layout shape of a node's kernel. */
static int kernel_shape(const edgeq_graph *g, const edgeq_node *n, uint64_t *shape) {
    int cin = n->n_in ? g->nodes[n->in[0]].shape[g->nodes[n->in[0]].rank - 1] : 0;
    switch (n->op) {
    case EDGEQ_OP_CONV2D:
        shape[0] = (uint64_t)n->kh, shape[1] = (uint64_t)n->kw;
        shape[2] = (uint64_t)(cin / (n->groups ? n->groups : 1)), shape[3] = (uint64_t)n->filters;
        return 4;
    case EDGEQ_OP_DEPTHWISE_CONV2D:
        shape[0] = (uint64_t)n->kh, shape[1] = (uint64_t)n->kw;
        shape[2] = (uint64_t)cin, shape[3] = (uint64_t)n->depth_multiplier;
        return 4;
    case EDGEQ_OP_DENSE:
        shape[0] = (uint64_t)cin, shape[1] = (uint64_t)n->filters;
        return 2;
    default:
        return 0;
    }
}

static int write_arr(const char *dir, int idx, const char *field, const float *data, size_t len,
                     int rank, const uint64_t *shape) {
    char path[4096], err[512];
    uint64_t flat = len;
    size_t prod = 1;
    for (int i = 0; i < rank; i++) prod *= (size_t)shape[i];
    if (rank == 0 || prod != len) {
        rank = 1;
        shape = &flat;
    }
    snprintf(path, sizeof path, "%s/%d.%s.npy", dir, idx, field);
    if (edgeq_npy_write(path, 'f', 4, (uint32_t)rank, shape, data, len * sizeof *data, err,
                        sizeof err) != 0) {
        edgeq_error("%s", err);
        return -1;
    }
    return 0;
}

static int dump_weights(const edgeq_graph *g, const char *dir) {
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        uint64_t ks[4], vs[1] = {n->bn_len};
        int kr = kernel_shape(g, n, ks);
        if (n->kernel && write_arr(dir, i, "kernel", n->kernel, n->kernel_len, kr, ks)) return -1;
        uint64_t bs[1] = {n->bias_len};
        if (n->bias && write_arr(dir, i, "bias", n->bias, n->bias_len, 1, bs)) return -1;
        if (n->bn_gamma && write_arr(dir, i, "gamma", n->bn_gamma, n->bn_len, 1, vs)) return -1;
        if (n->bn_beta && write_arr(dir, i, "beta", n->bn_beta, n->bn_len, 1, vs)) return -1;
        if (n->bn_mean && write_arr(dir, i, "mean", n->bn_mean, n->bn_len, 1, vs)) return -1;
        if (n->bn_var && write_arr(dir, i, "var", n->bn_var, n->bn_len, 1, vs)) return -1;
    }
    return 0;
}

static int is_windowed(edgeq_op op) {
    return op == EDGEQ_OP_CONV2D || op == EDGEQ_OP_DEPTHWISE_CONV2D || op == EDGEQ_OP_MAXPOOL ||
           op == EDGEQ_OP_AVGPOOL;
}

static void print_ints(FILE *fp, const int *v, int n) {
    fputc('[', fp);
    for (int i = 0; i < n; i++) fprintf(fp, "%s%d", i ? ", " : "", v[i]);
    fputc(']', fp);
}

static void dump_json(FILE *fp, const edgeq_graph *g) {
    fputs("{\"source\": ", fp);
    edgeq_json_string(fp, g->source);
    fputs(", \"inputs\": ", fp);
    print_ints(fp, g->inputs, g->n_inputs);
    fputs(", \"outputs\": ", fp);
    print_ints(fp, g->outputs, g->n_outputs);
    fputs(", \"nodes\": [\n", fp);
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        fprintf(fp, "  {\"index\": %d, \"op\": ", i);
        edgeq_json_string(fp, edgeq_op_name(n->op));
        fputs(", \"name\": ", fp);
        edgeq_json_string(fp, n->name);
        fputs(", \"class\": ", fp);
        edgeq_json_string(fp, n->keras_class);
        fputs(", \"inputs\": ", fp);
        print_ints(fp, n->in, n->n_in);
        fputs(", \"shape\": ", fp);
        print_ints(fp, n->shape, n->rank);
        fputs(", \"act\": ", fp);
        edgeq_json_string(fp, edgeq_act_name(n->act));
        fputs(", \"alpha\": ", fp);
        edgeq_json_number(fp, n->alpha);
        if (is_windowed(n->op)) {
            fprintf(fp,
                    ", \"kernel_size\": [%d, %d], \"strides\": [%d, %d], \"dilation\": [%d, %d], "
                    "\"padding\": \"%s\"",
                    n->kh, n->kw, n->stride_h, n->stride_w, n->dil_h, n->dil_w,
                    n->pad_same ? "same" : "valid");
        }
        fprintf(fp, ", \"filters\": %d, \"groups\": %d, \"depth_multiplier\": %d, \"axis\": %d",
                n->filters, n->groups, n->depth_multiplier, n->axis);
        fprintf(fp, ", \"keepdims\": %d", n->keepdims);
        if (n->op == EDGEQ_OP_PAD) {
            fputs(", \"pad\": [", fp);
            for (int d = 0; d < EDGEQ_MAX_RANK; d++)
                fprintf(fp, "%s[%d, %d]", d ? ", " : "", n->pad[d][0], n->pad[d][1]);
            fputc(']', fp);
        }
        if (n->op == EDGEQ_OP_CROP) {
            fputs(", \"crop\": [", fp);
            for (int d = 0; d < EDGEQ_MAX_RANK; d++)
                fprintf(fp, "%s[%d, %d]", d ? ", " : "", n->crop[d][0], n->crop[d][1]);
            fputc(']', fp);
        }
        if (n->op == EDGEQ_OP_RESCALE) {
            fputs(", \"scale\": ", fp);
            edgeq_json_number(fp, n->scale);
            fputs(", \"offset\": ", fp);
            edgeq_json_number(fp, n->offset);
        }
        if (n->op == EDGEQ_OP_BATCHNORM) {
            fputs(", \"eps\": ", fp);
            edgeq_json_number(fp, n->eps);
        }
        fputs(", \"weights\": {", fp);
        const char *sep = "";
        uint64_t ks[4];
        int kr = kernel_shape(g, n, ks);
        if (n->kernel) {
            fprintf(fp, "\"kernel\": [");
            for (int d = 0; d < kr; d++) fprintf(fp, "%s%llu", d ? ", " : "", (unsigned long long)ks[d]);
            fprintf(fp, "]");
            sep = ", ";
        }
        if (n->bias) fprintf(fp, "%s\"bias\": [%zu]", sep, n->bias_len), sep = ", ";
        if (n->bn_gamma) fprintf(fp, "%s\"gamma\": [%zu]", sep, n->bn_len), sep = ", ";
        if (n->bn_beta) fprintf(fp, "%s\"beta\": [%zu]", sep, n->bn_len), sep = ", ";
        if (n->bn_mean) fprintf(fp, "%s\"mean\": [%zu]", sep, n->bn_len), sep = ", ";
        if (n->bn_var) fprintf(fp, "%s\"var\": [%zu]", sep, n->bn_len);
        fprintf(fp, "}}%s\n", i + 1 < g->n ? "," : "");
    }
    fputs("]}\n", fp);
}

static void dump_text(FILE *fp, const edgeq_graph *g) {
    fprintf(fp, "%s: %d nodes, inputs ", g->source, g->n);
    print_ints(fp, g->inputs, g->n_inputs);
    fputs(", outputs ", fp);
    print_ints(fp, g->outputs, g->n_outputs);
    fputc('\n', fp);
    for (int i = 0; i < g->n; i++) {
        const edgeq_node *n = &g->nodes[i];
        char shape[64], ins[64];
        size_t o = 0;
        shape[0] = ins[0] = 0;
        for (int d = 0; d < n->rank; d++)
            o += (size_t)snprintf(shape + o, sizeof shape - o, "%s%d", d ? "x" : "", n->shape[d]);
        o = 0;
        for (int d = 0; d < n->n_in && o < sizeof ins; d++)
            o += (size_t)snprintf(ins + o, sizeof ins - o, "%s%d", d ? "," : "", n->in[d]);
        fprintf(fp, "%4d  %-22s %-28s %-10s %-14s", i, edgeq_op_name(n->op), n->name,
                n->n_in ? ins : "-", shape);
        if (is_windowed(n->op))
            fprintf(fp, " k%dx%d s%dx%d d%dx%d %s", n->kh, n->kw, n->stride_h, n->stride_w,
                    n->dil_h, n->dil_w, n->pad_same ? "same" : "valid");
        if (n->op == EDGEQ_OP_CONV2D && n->groups != 1) fprintf(fp, " groups=%d", n->groups);
        if (n->op == EDGEQ_OP_DEPTHWISE_CONV2D) fprintf(fp, " dm=%d", n->depth_multiplier);
        if (n->act != EDGEQ_ACT_LINEAR) fprintf(fp, " act=%s", edgeq_act_name(n->act));
        if (n->act == EDGEQ_ACT_LEAKY_RELU) fprintf(fp, "(%g)", n->alpha);
        if (n->op == EDGEQ_OP_CONCAT || n->op == EDGEQ_OP_SOFTMAX) fprintf(fp, " axis=%d", n->axis);
        if (n->op == EDGEQ_OP_RESCALE) fprintf(fp, " x*%g%+g", n->scale, n->offset);
        if (n->op == EDGEQ_OP_BATCHNORM)
            fprintf(fp, " eps=%g%s%s", n->eps, n->bn_gamma ? "" : " no-gamma",
                    n->bn_beta ? "" : " no-beta");
        if ((n->op == EDGEQ_OP_GLOBAL_AVGPOOL || n->op == EDGEQ_OP_GLOBAL_MAXPOOL) && n->keepdims)
            fputs(" keepdims", fp);
        if (n->op == EDGEQ_OP_IDENTITY) fprintf(fp, " (%s)", n->keras_class);
        fputc('\n', fp);
    }
}

int edgeq_cmd_keras_dump(int argc, char **argv) {
    const char *model = NULL, *wdir = NULL;
    int json = 0;
    for (int i = 1; i < argc;) {
        const char *v;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_text(stdout);
            return EDGEQ_EXIT_OK;
        }
        if (strcmp(argv[i], "--json") == 0) {
            json = 1;
            i++;
        } else if (edgeq_opt_value(argc, argv, &i, "--weights", &v)) {
            if (!v) return edgeq_usage("keras-dump", "--weights needs a directory");
            wdir = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return edgeq_usage("keras-dump", "unknown option '%s'", argv[i]);
        } else {
            if (model) return edgeq_usage("keras-dump", "more than one model given");
            model = argv[i++];
        }
    }
    if (!model) return edgeq_usage("keras-dump", "no model given");
    if (wdir && mkdir(wdir, 0777) != 0 && errno != EEXIST) {
        edgeq_error("%s: %s", wdir, strerror(errno));
        return EDGEQ_EXIT_FAIL;
    }
    edgeq_graph g;
    char err[1200];
    if (edgeq_keras_load(model, &g, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        return EDGEQ_EXIT_FAIL;
    }
    if (json)
        dump_json(stdout, &g);
    else
        dump_text(stdout, &g);
    int rc = EDGEQ_EXIT_OK;
    if (wdir && dump_weights(&g, wdir) != 0) rc = EDGEQ_EXIT_FAIL;
    edgeq_graph_free(&g);
    return rc;
}
