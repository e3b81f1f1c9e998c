/* SPDX-License-Identifier: Apache-2.0 */
/*
 * edgeq_main.c — the edgeq command line: dispatch to a command (the
 * helpers the commands share are in args.c).
 *
 *   edgeq model.h5 out.tflite [options]   quantize (the default command)
 *   edgeq run model.tflite ...            run a model on the engine
 *   edgeq inspect model.tflite|a.npy      show tensors, ops, arena plan
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "keras/keras_load.h"

/* ---- dispatch ---- */

static void print_help(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " <model.h5|model.keras> <out.tflite> [options]\n"
            "       " EDGEQ_PROGRAM " run <model.tflite> --input <file> [--input <file>...] "
            "[options]\n"
            "       " EDGEQ_PROGRAM " inspect <model.tflite|array.npy> [--json]\n"
            "       " EDGEQ_PROGRAM " --help | --version\n"
            "\n"
            "Quantize a Keras model to an int8 TFLite file (or write it as bfloat16 or\n"
            "float32: --dtype), and run or inspect TFLite models on the edgeq engine\n"
            "(libedge %s).\n"
            "\n"
            "commands:\n"
            "  <model.h5> <out.tflite>  quantize a Keras model to int8 TFLite, or with\n"
            "             --dtype bf16|f32 write it as bfloat16 / float32 (options below)\n"
            "  run        run a model: inputs from .npy or raw files, outputs to files,\n"
            "             latency and a per-op profile ('" EDGEQ_PROGRAM " run --help')\n"
            "  inspect    tensors, operators and the arena plan of a model, or the\n"
            "             dtype and shape of an .npy file ('" EDGEQ_PROGRAM " inspect --help')\n"
            "  export     a .tflite as a C array for firmware ('" EDGEQ_PROGRAM " export --c model.tflite'),\n"
            "             or the header that builds in only its ops ('" EDGEQ_PROGRAM " export --ops')\n"
            "  keras-dump the float graph edgeq loads from a Keras file (debugging)\n"
            "  float-run  run a Keras model on edgeq's float executor (debugging)\n"
            "\n",
            EDGE_VERSION_STRING);
    edgeq_quantize_help_options(fp);
    fprintf(fp,
            "\n"
            "exit codes:\n"
            "  0  success\n"
            "  1  failure: the engine refused the model (its message says why), an input\n"
            "     does not fit the model, or a file could not be read or written; when\n"
            "     quantizing: a bad or truncated model file, NaN/Inf weights, calibration\n"
            "     data of the wrong shape (no output file is left behind)\n"
            "  2  usage error: unknown command or option, a missing or malformed\n"
            "     argument, the wrong number of --input/--output files for the model\n"
            "  3  quantizing: the model uses a layer or option edgeq cannot quantize\n"
            "     (Lambda, custom or unknown layers, unsupported activations or options)\n");
}

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

int edgeq_cmd_export(int argc, char **argv); /* cmd_export.c */
int edgeq_cmd_float_run(int argc, char **argv); /* cmd_float_run.c */

static const command commands[] = {
    {"run", edgeq_cmd_run},
    {"inspect", edgeq_cmd_inspect},
    {"export", edgeq_cmd_export},
    {"float-run", edgeq_cmd_float_run},
    {"keras-dump", edgeq_cmd_keras_dump},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        print_help(stderr);
        return EDGEQ_EXIT_USAGE;
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0 || strcmp(first, "help") == 0) {
        if (strcmp(first, "help") == 0 && argc > 2) {
            /* "edgeq help run" == "edgeq run --help" */
            for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
                if (strcmp(argv[2], commands[c].name) == 0) {
                    char *sub[] = {argv[2], (char *)"--help", NULL};
                    return commands[c].fn(2, sub);
                }
            return edgeq_usage(NULL, "no help on '%s': it is not a command", argv[2]);
        }
        print_help(stdout);
        return EDGEQ_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf(EDGEQ_PROGRAM " %s\n", EDGE_VERSION_STRING);
        return EDGEQ_EXIT_OK;
    }
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++)
        if (strcmp(first, commands[c].name) == 0) return commands[c].fn(argc - 1, argv + 1);
    /* Options of the quantizer may come before the model (edgeq --io int8
     * a.h5 b.tflite), so only a lone unknown option is rejected here. */
    if (first[0] == '-' && first[1] && argc == 2)
        return edgeq_usage(NULL, "unknown option '%s'", first);
    /* A lone word with no '.' or '/' is a mistyped command, not a file. */
    if (argc == 2 && !strchr(first, '.') && !strchr(first, '/'))
        return edgeq_usage(NULL, "unknown command '%s' (commands: run, inspect)", first);
    return edgeq_cmd_quantize(argc - 1, argv + 1);
}
