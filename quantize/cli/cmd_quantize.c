/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_quantize.c — the main job: `edgeq model.h5 out.tflite [options]`.
 *
 * Keras file -> float graph (keras_load.h) -> passes (passes.h) ->
 * calibration over --calib data or the synthetic fallback (calib.h) ->
 * int8 lowering (lower.h) -> .tflite bytes, checked by loading them in the
 * engine, with the engine's memory plan as TFLM offline metadata
 * (tflite_writer.h) -> int8-vs-float agreement on the calibration samples
 * and the report (report.h) -> the output written to a temporary file and
 * renamed only when complete, so a failed run leaves nothing behind.
 * --dtype bf16|f32 skips calibration: float graph -> passes -> (bf16 with
 * --calib: bias correction, bias_correct.h) -> float lowering -> the same
 * writer and report (agreement only on --calib data).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib/bias_correct.h"
#include "calib/calib.h"
#include "calib/calib_checks.h"
#include "calib/calib_data.h"
#include "cli.h"
#include "io/file_util.h"
#include "graph/float_exec.h"
#include "keras/keras_load.h"
#include "lower/lower.h"
#include "io/output_path.h"
#include "graph/passes.h"
#include "report.h"
#include "lower/tflite_writer.h"

void edgeq_quantize_help_options(FILE *fp) {
    fprintf(fp,
            "quantize options (" EDGEQ_PROGRAM " <model.h5|model.keras> <out.tflite> [options]):\n"
            "  --calib FILE|DIR    representative input data: .npy / .npz (samples along\n"
            "                      axis 0), a folder of images (PGM/PPM/BMP/PNG) or raw\n"
            "                      float32 files, with values as the Keras model takes them\n"
            "                      (before any Rescaling layer). Without it edgeq warns and\n"
            "                      calibrates on synthetic data: N(0,1), or uniform 0..255\n"
            "                      for an input feeding a Rescaling layer\n"
            "  --calib-count N     use at most N samples (synthetic: N; default %d)\n",
            EDGEQ_CALIB_SYNTHETIC_COUNT);
    edgeq_calib_cli_help(fp);
    fprintf(fp,
            "  --range METHOD      activation ranges: minmax (default, as the TF converter),\n"
            "                      percentile (99.99th per side) or mse (least squared error)\n"
            "  --io TYPE           model input/output type: int8 (default), uint8 (QUANTIZE\n"
            "                      ops at the edges) or float (QUANTIZE in, DEQUANTIZE out)\n"
            "  --per-channel-dense one weight scale per Dense output unit (default, as TF\n"
            "                      2.21's converter does)\n"
            "  --per-tensor-dense  one weight scale per Dense layer (as older converters)\n"
            "  --sram-kb N         plan which parameters an N KiB SRAM caches beside the\n"
            "                      activation arena (greedy: most MACs per weight byte first)\n"
            "  --dtype TYPE        int8 (default: the int8 model above), bf16 (bfloat16\n"
            "                      weights, float32 biases, --calib optional) or f32 (a plain\n"
            "                      float32 TFLite model). bf16 and f32 models take and give\n"
            "                      float32; with --calib their outputs are checked against\n"
            "                      the float graph on those samples\n"
            "  --act TYPE          bf16 only: activations inside the model as f32 (default)\n"
            "                      or bf16 (activation tensors at half size, more rounding;\n"
            "                      the report's arena says what the engine needs)\n"
            "  --no-bias-correction  bf16 only: keep the float32 biases as they are. By\n"
            "                      default each Conv2D/DepthwiseConv2D/Dense bias absorbs\n"
            "                      the mean shift its bf16-rounded filter causes, measured\n"
            "                      on the --calib samples (without --calib: no correction)\n"
            "  --allow-nonfinite   bf16/f32 only: keep NaN and infinite weights as they are\n"
            "                      instead of refusing the model\n"
            "  --report FILE.json  also write the report as JSON\n"
            "  --force             replace an existing output that is not a .tflite (or a\n"
            "                      --report that is not a .json); an output that is one of\n"
            "                      the inputs is refused even so\n"
            "  -q, --quiet         print nothing but warnings and errors\n");
}

static void print_help(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " <model.h5|model.keras> <out.tflite> [options]\n"
            "\n"
            "Quantize a Keras float model to a full-int8 TFLite model (or write it as a\n"
            "bfloat16 or float32 one: --dtype), without TensorFlow.\n"
            "Keras 2 legacy HDF5, Keras 3 .keras and .h5 files (told apart by content).\n"
            "The int8 model follows TFLite's quantization spec as the official converter\n"
            "does: per-channel symmetric int8 weights, asymmetric int8 activations, int32\n"
            "biases, fixed softmax/logistic output parameters. The report (stdout) lists\n"
            "each operator, whether it maps to the systolic kernel or the CPU and why,\n"
            "the arena (scratch SRAM) peak, MACs, array cycles, and the int8 model's\n"
            "agreement with the float model on the calibration samples.\n"
            "\n");
    edgeq_quantize_help_options(fp);
    fprintf(fp,
            "  -h, --help          this help\n"
            "\n"
            "exit codes:\n"
            "  0  success\n"
            "  1  a bad or unreadable model or calibration file, NaN/Inf weights or\n"
            "     activations, data of the wrong shape, an output that could not be written\n"
            "  2  usage error\n"
            "  3  the model uses a layer or option edgeq cannot quantize (Lambda, custom\n"
            "     or unknown layers, unsupported activations)\n"
            "No output file is left behind on any failure.\n");
}

typedef struct qopts {
    const char *model, *out, *calib, *report;
    long calib_count;
    edgeq_range_method range;
    const char *range_name;
    edgeq_lower_opts lower;
    const char *io_name;
    long sram_bytes;
    int quiet;
    const char *dtype_name, *act_name;
    int allow_nonfinite;
    int no_bias_correction;
    const char *int8_only_name;
    int force;
    edgeq_calib_cli ccli;
} qopts;

static int parse_args(int argc, char **argv, qopts *o) {
    memset(o, 0, sizeof *o);
    o->range = EDGEQ_RANGE_MINMAX;
    o->range_name = "minmax";
    o->io_name = "int8";
    o->sram_bytes = -1;
    o->lower.dense_per_channel = 1;
    o->dtype_name = "int8";
    int npos = 0;
    for (int i = 0; i < argc;) {
        const char *a = argv[i], *v = NULL;
        int ccrc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help(stdout);
            return -1;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
            i++;
        } else if (strcmp(a, "--per-tensor-dense") == 0) {
            o->lower.dense_per_channel = 0;
            o->int8_only_name = a;
            i++;
        } else if (strcmp(a, "--force") == 0) {
            o->force = 1;
            i++;
        } else if (strcmp(a, "--allow-nonfinite") == 0) {
            o->allow_nonfinite = 1;
            i++;
        } else if (strcmp(a, "--no-bias-correction") == 0) {
            o->no_bias_correction = 1;
            i++;
        } else if (strcmp(a, "--per-channel-dense") == 0) {
            o->lower.dense_per_channel = 1;
            i++;
        } else if (edgeq_opt_value(argc, argv, &i, "--calib", &v)) {
            if (!v || !*v) return edgeq_usage(NULL, "--calib needs a file or folder");
            o->calib = v;
        } else if ((ccrc = edgeq_calib_cli_option(argc, argv, &i, &o->ccli)) != 0) {
            if (ccrc < 0) return EDGEQ_EXIT_USAGE;
        } else if (edgeq_opt_value(argc, argv, &i, "--calib-count", &v)) {
            if (edgeq_parse_long(v, 1, 100000000, &o->calib_count) != 0)
                return edgeq_usage(NULL, "--calib-count needs a positive number, not '%s'",
                                   v ? v : "");
        } else if (edgeq_opt_value(argc, argv, &i, "--range", &v)) {
            if (!v || edgeq_range_method_parse(v, &o->range) != 0)
                return edgeq_usage(NULL, "--range is minmax, percentile or mse, not '%s'",
                                   v ? v : "");
            o->range_name = edgeq_range_method_name(o->range);
            o->int8_only_name = "--range";
        } else if (edgeq_opt_value(argc, argv, &i, "--io", &v)) {
            if (v && strcmp(v, "int8") == 0)
                o->lower.io = EDGEQ_IO_INT8;
            else if (v && strcmp(v, "uint8") == 0)
                o->lower.io = EDGEQ_IO_UINT8;
            else if (v && strcmp(v, "float") == 0)
                o->lower.io = EDGEQ_IO_FLOAT;
            else
                return edgeq_usage(NULL, "--io is int8, uint8 or float, not '%s'", v ? v : "");
            o->io_name = v;
            o->int8_only_name = "--io";
        } else if (edgeq_opt_value(argc, argv, &i, "--sram-kb", &v)) {
            long kb;
            if (edgeq_parse_long(v, 0, 1L << 30, &kb) != 0)
                return edgeq_usage(NULL, "--sram-kb needs a size in KiB, not '%s'", v ? v : "");
            o->sram_bytes = kb * 1024;
        } else if (edgeq_opt_value(argc, argv, &i, "--report", &v)) {
            if (!v || !*v) return edgeq_usage(NULL, "--report needs a file name");
            o->report = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--dtype", &v)) {
            if (v && strcmp(v, "int8") == 0)
                o->lower.dtype = EDGEQ_DTYPE_INT8;
            else if (v && strcmp(v, "bf16") == 0)
                o->lower.dtype = EDGEQ_DTYPE_BF16;
            else if (v && strcmp(v, "f32") == 0)
                o->lower.dtype = EDGEQ_DTYPE_F32;
            else
                return edgeq_usage(NULL, "--dtype is int8, bf16 or f32, not '%s'", v ? v : "");
            o->dtype_name = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--act", &v)) {
            if (v && strcmp(v, "f32") == 0)
                o->lower.act_bf16 = 0;
            else if (v && strcmp(v, "bf16") == 0)
                o->lower.act_bf16 = 1;
            else
                return edgeq_usage(NULL, "--act is f32 or bf16, not '%s'", v ? v : "");
            o->act_name = v;
        } else if (a[0] == '-' && a[1]) {
            return edgeq_usage(NULL, "unknown option '%s'", a);
        } else {
            if (npos == 0)
                o->model = a;
            else if (npos == 1)
                o->out = a;
            else
                return edgeq_usage(NULL, "unexpected argument '%s' (one model and one output)", a);
            npos++;
            i++;
        }
    }
    if (npos < 2)
        return edgeq_usage(NULL, npos ? "missing the output file (model.h5 out.tflite)"
                                      : "missing the model and output files");
    if (o->report && strcmp(o->report, o->out) == 0)
        return edgeq_usage(NULL, "--report must not be the output model");
    if (o->act_name && o->lower.dtype != EDGEQ_DTYPE_BF16)
        return edgeq_usage(NULL, "--act applies to --dtype bf16 only (this is --dtype %s)",
                           o->dtype_name);
    if (o->lower.dtype != EDGEQ_DTYPE_INT8 && o->int8_only_name)
        return edgeq_usage(NULL, "%s applies to --dtype int8 only (bf16 and f32 models take "
                           "and give float32 and need no calibration)", o->int8_only_name);
    if (o->allow_nonfinite && o->lower.dtype == EDGEQ_DTYPE_INT8)
        return edgeq_usage(NULL, "--allow-nonfinite applies to --dtype bf16 or f32 only (int8 "
                           "cannot scale NaN or infinite weights)");
    if (o->no_bias_correction && o->lower.dtype != EDGEQ_DTYPE_BF16)
        return edgeq_usage(NULL, "--no-bias-correction applies to --dtype bf16 only (this is "
                           "--dtype %s)", o->dtype_name);
    if (o->lower.dtype == EDGEQ_DTYPE_BF16 && !o->act_name) o->act_name = "f32";
    int crc = edgeq_calib_cli_finish(&o->ccli, o->calib);
    if (crc != 0) return crc;
    /* Never write over an input, or over a file that is not ours to replace. */
    const char *ins[3] = {o->model, o->calib, o->out};
    static const char *const model_ext[] = {".tflite", NULL};
    static const char *const report_ext[] = {".json", NULL};
    crc = edgeq_output_check(o->out, "output", ins, 2, model_ext, o->force);
    if (crc == 0 && o->report)
        crc = edgeq_output_check(o->report, "--report", ins, 3, report_ext, o->force);
    return crc;
}

/* The loader says "not supported" for layers and options it knows it cannot
 * take; everything else it refuses is a bad file. */
static int load_exit_code(const char *msg) {
    if (strstr(msg, "not supported") || strstr(msg, "Lambda") || strstr(msg, "custom layer") ||
        strstr(msg, "cannot load"))
        return EDGEQ_EXIT_UNSUPPORTED;
    return EDGEQ_EXIT_FAIL;
}

/* The float graph's outputs for every calibration sample, kept for the
 * agreement check. */
typedef struct float_outputs {
    const edgeq_graph *g;
    int count;
    size_t len[8];
    float *out[8];
} float_outputs;

static void keep_outputs(void *ctx, int sample, const edgeq_float_exec *x) {
    float_outputs *f = ctx;
    if (sample >= f->count) return;
    for (int k = 0; k < f->g->n_outputs; k++)
        memcpy(f->out[k] + (size_t)sample * f->len[k], x->buf[f->g->outputs[k]],
               f->len[k] * sizeof(float));
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Float files: the float graph's outputs on every --calib sample, for the
 * agreement check (no calibration: the executor alone). */
static int float_reference(const edgeq_graph *g, const edgeq_calib_set *set, float_outputs *fo,
                           char *err, size_t err_len) {
    edgeq_float_exec x;
    memset(&x, 0, sizeof x);
    int rc = edgeq_float_exec_init(&x, g, err, err_len);
    for (int s = 0; rc == 0 && s < set->count; s++) {
        const float *in[8];
        for (int k = 0; k < set->n_inputs && k < 8; k++) in[k] = edgeq_calib_sample(set, k, s);
        rc = edgeq_float_exec_run(&x, in, err, err_len);
        if (rc == 0) keep_outputs(fo, s, &x);
    }
    edgeq_float_exec_free(&x);
    return rc;
}

/* Float files: serialize, and let the engine check and plan them when it
 * can run them; when it cannot (an engine without float kernels for some
 * op), the file is still written, without a memory plan, with a warning.
 * Returns 0 (*loaded says whether `e` holds the engine) or -1. */
static int build_float(const edgeq_qmodel *m, const char *desc, uint8_t **bytes, size_t *n,
                       edgeq_engine *e, int *loaded, char *why, size_t why_len, char *err,
                       size_t err_len) {
    size_t plan_at;
    *loaded = 0;
    if (edgeq_tflite_serialize(m, desc, bytes, n, &plan_at, err, err_len) != 0) return -1;
    if (edgeq_engine_load(e, *bytes, *n, why, why_len) != 0) {
        edgeq_engine_free(e);
        return 0;
    }
    if (edgeq_tflite_set_plan(*bytes, *n, plan_at, m->n_t, why, why_len) != 0) {
        edgeq_engine_free(e);
        return 0;
    }
    *loaded = 1;
    return 0;
}

int edgeq_cmd_quantize(int argc, char **argv) {
    qopts o;
    int prc = parse_args(argc, argv, &o);
    if (prc < 0) return EDGEQ_EXIT_OK; /* --help */
    if (prc > 0) return prc;

    double t0 = now_seconds();
    char err[1024] = "";
    int rc = EDGEQ_EXIT_FAIL;
    int flt = o.lower.dtype != EDGEQ_DTYPE_INT8, loaded = 1;
    char why[512] = "";
    edgeq_graph g;
    edgeq_calib_set set;
    edgeq_bias_correct_stats bcs;
    edgeq_qmodel qm;
    edgeq_engine eng;
    edgeq_report rep;
    float_outputs fo;
    edgeq_atomic_file af, rf;
    edgeq_model_expect expect;
    edgeq_calib_findings cfind;
    uint8_t *bytes = NULL;
    size_t nbytes = 0;
    memset(&g, 0, sizeof g);
    memset(&set, 0, sizeof set);
    memset(&qm, 0, sizeof qm);
    memset(&eng, 0, sizeof eng);
    memset(&rep, 0, sizeof rep);
    memset(&fo, 0, sizeof fo);
    memset(&af, 0, sizeof af);
    memset(&rf, 0, sizeof rf);
    memset(&expect, 0, sizeof expect);
    memset(&cfind, 0, sizeof cfind);

    /* Fail fast on an output that cannot be created, before the real work. */
    const char *probe[2] = {o.out, o.report};
    for (int k = 0; k < 2; k++) {
        if (!probe[k]) continue;
        if (edgeq_atomic_open(&af, probe[k], err, sizeof err) != 0) {
            edgeq_error("%s", err);
            return EDGEQ_EXIT_FAIL;
        }
        edgeq_atomic_abort(&af);
        memset(&af, 0, sizeof af);
    }

    edgeq_keras_allow_nonfinite(o.allow_nonfinite);
    if (edgeq_keras_load(o.model, &g, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        rc = load_exit_code(err);
        goto done;
    }
    /* What the model says about its input, before the passes fold it away. */
    if (edgeq_model_expect_read(&g, &expect) != 0) {
        edgeq_error("out of memory");
        goto done;
    }
    edgeq_model_expect_prev(&expect, o.out);
    if (edgeq_passes_run(&g, NULL, err, sizeof err) != 0) {
        edgeq_error("%s: %s", o.model, err);
        goto done;
    }

    double t1 = now_seconds();
    /* int8 calibrates on --calib or synthetic data; float files need no
     * calibration and use --calib only to check their outputs. */
    if (o.calib) {
        if (edgeq_calib_data_load_norm(&g, o.calib, o.calib_count, &o.ccli.norm, &set, err,
                                       sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
        if (edgeq_calib_check(&g, &expect, &set, &o.ccli, stderr, &cfind) != 0) {
            edgeq_error("out of memory");
            goto done;
        }
    } else if (!flt) {
        if (edgeq_calib_data_synthetic(&g, o.calib_count, &set, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
        edgeq_calib_print_synthetic_warning(stderr, &set);
    }

    fo.g = &g;
    fo.count = set.count;
    for (int k = 0; k < g.n_outputs && set.count > 0; k++) {
        fo.len[k] = edgeq_node_numel(&g.nodes[g.outputs[k]]);
        fo.out[k] = malloc((size_t)set.count * fo.len[k] * sizeof(float) + 1);
        if (!fo.out[k]) {
            edgeq_error("out of memory (float outputs of %d samples)", set.count);
            goto done;
        }
    }
    if (!flt) {
        if (edgeq_calibrate(&g, &set, o.range, !o.quiet, keep_outputs, &fo, err, sizeof err) != 0) {
            edgeq_error("%s: calibration: %s", o.model, err);
            goto done;
        }
    } else if (set.count > 0) {
        if (float_reference(&g, &set, &fo, err, sizeof err) != 0) {
            edgeq_error("%s: the float graph: %s", o.model, err);
            goto done;
        }
    }

    /* bf16: fold the mean shift of the rounded filters into the biases,
     * measured on the --calib samples (after the float reference above,
     * which must stay the float model's). Not on synthetic data: on
     * str_ww, N(0,1) samples made the correction 4x worse than none
     * (README "bf16 models"). */
    if (o.lower.dtype == EDGEQ_DTYPE_BF16 && !o.no_bias_correction && set.count <= 0 && !o.quiet)
        fprintf(stderr, EDGEQ_PROGRAM ": note: no --calib: the bf16 biases are not corrected "
                        "for the filters' rounding (give --calib with ~100 real samples)\n");
    if (o.lower.dtype == EDGEQ_DTYPE_BF16 && !o.no_bias_correction && set.count > 0) {
        const edgeq_calib_set *bs = &set;
        if (edgeq_bias_correct_bf16(&g, bs, &bcs, err, sizeof err) != 0) {
            edgeq_error("%s: bias correction: %s", o.model, err);
            goto done;
        }
        rep.bias_correction = 1;
        rep.bias_corr_layers = bcs.layers;
        rep.bias_corr_skipped = bcs.skipped;
        rep.bias_corr_samples = bs->count;
        rep.bias_corr_synthetic = bs->synthetic;
    }

    double t2 = now_seconds();
    int lrc = edgeq_lower(&g, &o.lower, &qm, err, sizeof err);
    if (lrc != 0) {
        edgeq_error("%s: %s", o.model, err);
        rc = lrc == EDGEQ_LOWER_UNSUPPORTED ? EDGEQ_EXIT_UNSUPPORTED : EDGEQ_EXIT_FAIL;
        goto done;
    }
    char desc[160];
    snprintf(desc, sizeof desc, "edgeq %s (%s)", EDGE_VERSION_STRING,
             g.source[0] ? g.source : "Keras");
    if (!flt) {
        if (edgeq_tflite_build(&qm, desc, &bytes, &nbytes, &eng, err, sizeof err) != 0) {
            edgeq_error("%s: %s", o.model, err);
            goto done;
        }
    } else {
        if (build_float(&qm, desc, &bytes, &nbytes, &eng, &loaded, why, sizeof why, err,
                        sizeof err) != 0) {
            edgeq_error("%s: %s", o.model, err);
            goto done;
        }
        if (!loaded)
            fprintf(stderr, EDGEQ_PROGRAM ": warning: %s: written without a memory plan and "
                            "without the engine's check (%s)\n", o.out, why);
    }
    if (edgeq_report_build(&rep, &qm, loaded ? &eng : NULL, &g, o.sram_bytes) != 0) {
        edgeq_error("out of memory");
        goto done;
    }
    double t3 = now_seconds();
    if (loaded && set.count > 0 &&
        edgeq_report_agreement(&rep.agree, bytes, nbytes, &eng, &set, &g, fo.out, fo.len, err,
                               sizeof err) != 0) {
        edgeq_error("%s: checking the %s model: %s", o.model, o.dtype_name, err);
        goto done;
    }

    double t4 = now_seconds();
    rep.t_load = t1 - t0;
    rep.t_calib = t2 - t1;
    rep.t_build = t3 - t2;
    rep.t_check = t4 - t3;
    /* Both files complete before either replaces anything. */
    if (edgeq_atomic_open(&af, o.out, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        goto done;
    }
    if (fwrite(bytes, 1, nbytes, af.fp) != nbytes) {
        edgeq_error("%s: write failed: %s", o.out, strerror(errno));
        goto done;
    }
    rep.model_path = o.model;
    rep.out_path = o.out;
    rep.out_bytes = nbytes;
    rep.dtype = o.dtype_name;
    rep.act = flt ? (o.act_name ? o.act_name : "f32") : "int8";
    if (!loaded) snprintf(rep.engine_refused, sizeof rep.engine_refused, "%s", why);
    if (set.count > 0) snprintf(rep.calib_desc, sizeof rep.calib_desc, "%s", set.desc);
    rep.calib_samples = set.count;
    rep.calib_text = cfind.text;
    rep.calib_json = cfind.json;
    rep.calib_warnings = cfind.warnings;
    rep.calib_synthetic = set.synthetic;
    rep.range_method = flt ? "none" : o.range_name;
    rep.io = flt ? "float32" : o.io_name;
    if (o.report) {
        if (edgeq_atomic_open(&rf, o.report, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
    }
    rep.seconds = now_seconds() - t0;
    if (o.report) edgeq_report_json(rf.fp, &rep);
    if (edgeq_atomic_commit(&af, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        goto done;
    }
    if (o.report && edgeq_atomic_commit(&rf, err, sizeof err) != 0) {
        edgeq_error("%s", err);
        remove(o.out); /* all or nothing */
        goto done;
    }
    if (!o.quiet) edgeq_report_print(stdout, &rep);
    rc = EDGEQ_EXIT_OK;
done:
    edgeq_atomic_abort(&af);
    edgeq_atomic_abort(&rf);
    for (int k = 0; k < 8; k++) free(fo.out[k]);
    edgeq_report_free(&rep);
    edgeq_calib_findings_free(&cfind);
    edgeq_model_expect_free(&expect);
    edgeq_engine_free(&eng);
    free(bytes);
    edgeq_qmodel_free(&qm);
    edgeq_calib_set_free(&set);
    edgeq_graph_free(&g);
    return rc;
}
