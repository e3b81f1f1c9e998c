/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.h — what `edgeq model.h5 out.tflite` tells about its result, in
 * the manner of the Edge TPU compiler's log: on stdout, and as JSON with
 * `--report out.json`.
 *
 * Per operator: its TFLite op, the Keras layer it implements, whether the
 * engine runs it on the systolic kernel (CONV_2D, FULLY_CONNECTED: the
 * engine's edge_op_info.systolic) or on the CPU and why, MACs, estimated
 * array cycles, parameter bytes and whether they are cached in SRAM.
 *
 * Memory: the scratch SRAM peak is the engine's arena for the model (tensor
 * and operator records + planned activations and scratch). Parameters
 * (weights, biases, shape constants) live in flash; with `--sram-kb N` the
 * SRAM left after the arena caches some of them. The rule, greedy by
 * density: operators are taken in order of MACs per parameter byte, highest
 * first (the weights reused most per byte moved gain most from being
 * on-chip; ties: the earlier op); an operator's parameters are cached
 * whole if they fit in what is left, else skipped, and the next is tried.
 * Everything not cached is streamed from flash on each invoke.
 *
 * Float files (--dtype bf16|f32): the parameter bytes as written, as
 * float32 and as the int8 file would hold them (edgeq_qop_param_bytes_as),
 * and what bf16 saves against each. When the engine cannot load the file
 * (engine_refused), the per-op part comes from the lowered model: no MACs,
 * no units, no arena.
 *
 * Fidelity: the int8 model (on the engine) against the float graph (edgeq's
 * float executor, which follows Keras) on the calibration samples: per
 * output, top-1 agreement (argmax over the last axis, per row) and the
 * signal-to-noise ratio 10 log10(sum f^2 / sum (f - q)^2) in dB over all
 * samples, q being the dequantized int8 output.
 */
#ifndef EDGEQ_REPORT_H
#define EDGEQ_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "calib/calib_data.h"
#include "graph/ir.h"
#include "lower/lower.h"
#include "lower/tflite_writer.h"

typedef struct edgeq_report_op {
    const char *op;         /* "CONV_2D" */
    char layer[EDGEQ_NAME_LEN]; /* Keras layer, "" for I/O conversions */
    int systolic;
    const char *why;        /* one line: why this unit */
    uint64_t macs, cycles;
    size_t param_bytes;
    int cached;             /* parameters cached in SRAM */
} edgeq_report_op;

typedef struct edgeq_agreement {
    int samples;            /* 0: not measured */
    int n_outputs;
    char name[8][EDGEQ_NAME_LEN];
    int rows[8];            /* top-1 decisions per sample (0: output has one value) */
    double top1[8];         /* fraction of rows whose argmax agrees */
    double snr_db[8];       /* INFINITY when identical */
    double max_rel[8];      /* max |f - q| / max |f| over all samples */
} edgeq_agreement;

typedef struct edgeq_report {
    const char *model_path, *out_path;
    char source[64];
    size_t out_bytes;
    double seconds;         /* load to written file */
    double t_load, t_calib, t_build, t_check; /* phases: load + passes, calibration, lower + write + plan, agreement */
    char calib_desc[256];
    int calib_samples, calib_synthetic;
    const char *calib_text;  /* per-input calibration lines (calib_checks.h), or NULL */
    const char *calib_json;  /* the same as a JSON array, or NULL */
    int calib_warnings;      /* WARNINGs the checks printed */
    const char *range_method, *io;
    int n_ops, n_systolic;
    edgeq_report_op *ops;
    uint64_t macs, cycles;
    size_t arena_bytes, arena_records, arena_activations;
    size_t param_bytes;     /* all constants */
    long sram_bytes;        /* the --sram-kb budget in bytes, -1 if none given */
    size_t cached_bytes, streamed_bytes, sram_left;
    edgeq_agreement agree;
    const char *dtype, *act;          /* "int8" / "bf16" / "f32"; activations */
    size_t param_bytes_f32, param_bytes_int8; /* the same constants as float32, as int8 */
    char engine_refused[512];         /* float files: why the engine could not load it */
    int bias_correction;              /* bf16: biases corrected (bias_correct.h) */
    int bias_corr_layers, bias_corr_skipped, bias_corr_samples, bias_corr_synthetic;
} edgeq_report;

/* Fill the per-op part, the memory figures and the caching plan from the
 * lowered model and the engine loaded on the written file (`e` NULL: the
 * engine could not load it; ops from the model alone). Returns 0 or -1
 * (out of memory). *r needs edgeq_report_free. */
int edgeq_report_build(edgeq_report *r, const edgeq_qmodel *m, const edgeq_engine *e,
                       const edgeq_graph *g, long sram_bytes);

/* Measure agreement: run the engine on every sample of `set` (raw values,
 * quantized to the model's input types) and compare with `ref[k]`, the float
 * graph's output k for all samples (count * ref_len[k] floats). `model` is
 * the written model (EDGE_ARENA_ALIGN-aligned), `e` the engine loaded on it
 * (for its I/O shapes); samples are spread over up to 8 threads, each with
 * an engine context of its own. Returns 0, or -1 with a message (shape
 * mismatch, engine failure). */
int edgeq_report_agreement(edgeq_agreement *a, const uint8_t *model, size_t model_len,
                           const edgeq_engine *e, const edgeq_calib_set *set,
                           const edgeq_graph *g, float *const *ref, const size_t *ref_len,
                           char *err, size_t err_len);

void edgeq_report_print(FILE *fp, const edgeq_report *r);
void edgeq_report_json(FILE *fp, const edgeq_report *r);
void edgeq_report_free(edgeq_report *r);

#endif
