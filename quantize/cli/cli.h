/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli.h — what the edgeq command-line tool's parts share.
 *
 * edgeq_main.c dispatches `edgeq <command> ...` to one edgeq_cmd_*()
 * function per command; each takes the arguments after the program name
 * (argv[0] is the command word) and returns the process exit code.
 *
 * Exit codes, the same for every command (and listed in `edgeq --help`):
 *   0  success
 *   1  the work failed: the engine refused the model, an input file's data
 *      does not fit the model, a file could not be read or written
 *   2  usage: unknown command or option, a missing or malformed argument,
 *      the wrong number of --input/--output files for the model
 *   3  quantize only: the model uses a layer or option edgeq cannot quantize
 */
#ifndef EDGEQ_CLI_H
#define EDGEQ_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "edge/edge.h"

#define EDGEQ_EXIT_OK 0
#define EDGEQ_EXIT_FAIL 1
#define EDGEQ_EXIT_USAGE 2
#define EDGEQ_EXIT_UNSUPPORTED 3 /* quantize: a layer or option edgeq cannot take */

#define EDGEQ_PROGRAM "edgeq"

/* ---- commands ---- */

int edgeq_cmd_run(int argc, char **argv);     /* cmd_run.c */
int edgeq_cmd_inspect(int argc, char **argv); /* cmd_inspect.c */
int edgeq_cmd_quantize(int argc, char **argv); /* cmd_quantize.c, the default command */
/* The quantizer's options, for `edgeq --help` (cmd_quantize.c). */
void edgeq_quantize_help_options(FILE *fp);

/* ---- messages and argument parsing (args.c) ---- */

/* "edgeq: <message>\n" on stderr. */
void edgeq_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "edgeq <cmd>: <message>\n" and a hint to run `edgeq <cmd> --help`, on
 * stderr; returns EDGEQ_EXIT_USAGE so callers can `return edgeq_usage(...)`. */
int edgeq_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Options: `--name value` or `--name=value`. When argv[*i] is option
 * `name`, returns 1, sets *value (NULL if the value is missing) and moves *i
 * past what it consumed; otherwise returns 0. */
int edgeq_opt_value(int argc, char **argv, int *i, const char *name, const char **value);

/* A byte count: decimal digits with an optional k/K (KiB) or m/M (MiB)
 * suffix, > 0. Returns 0 on success. */
int edgeq_parse_bytes(const char *s, size_t *out);

/* A decimal integer in [lo, hi]. Returns 0 on success. */
int edgeq_parse_long(const char *s, long lo, long hi, long *out);

/* ---- JSON output (args.c) ---- */

/* A JSON string literal with escapes. */
void edgeq_json_string(FILE *fp, const char *s);
/* A JSON number (%.9g), or null for NaN and infinities. */
void edgeq_json_number(FILE *fp, double v);

/* ---- the engine, for host commands (cmd_run.c) ---- */

/* A model file loaded and initialised in an arena of its own. */
typedef struct edgeq_model_file {
    const char *path;
    uint8_t *file;     /* the file's bytes, EDGE_ARENA_ALIGN-aligned */
    size_t file_len;
    uint8_t *arena;    /* EDGE_ARENA_ALIGN-aligned */
    size_t arena_len;  /* what was given to edge_model_init */
    size_t arena_need; /* what edge_model_arena_needed found */
    uint8_t *pack;     /* packed weights (edgeq_model_pack), or NULL */
    size_t pack_len;
    edge_model m;
} edgeq_model_file;

/* Read `path`, find the arena it needs (edge_model_arena_needed, with a
 * work buffer grown until it is big enough), allocate exactly that, or
 * `arena_bytes` when that is non-zero, and edge_model_init. On failure
 * prints the reason (the engine's own message when it refused the model)
 * and returns EDGEQ_EXIT_FAIL; *f needs edgeq_model_close() either way. */
int edgeq_model_open(edgeq_model_file *f, const char *path, size_t arena_bytes);
/* Lay the model's weights out once for this CPU's kernels (edge_model_pack)
 * in a buffer of its own; nothing to do when the build packs nothing. */
int edgeq_model_pack(edgeq_model_file *f);
void edgeq_model_close(edgeq_model_file *f);

/* The NumPy dtype of an engine element type: returns 0 and sets *kind
 * ('b','i','u','f') and *size, or -1 when there is none (bfloat16,
 * strings). */
int edgeq_npy_dtype_of(edge_type t, char *kind, uint32_t *size);

/* Elements of a tensor view (product of dims; 1 for rank 0). */
size_t edgeq_tensor_elems(const edge_tensor *t);

/* "[1,96,96,1]" into buf (always terminated). Returns buf. */
char *edgeq_shape_str(const edge_tensor *t, char *buf, size_t cap);

/* Element i of a tensor's data as a double (0 for types it cannot read). */
double edgeq_tensor_value(const edge_tensor *t, size_t i);

/* 1 when the type's values are integers (print without decimals). */
int edgeq_type_is_integer(edge_type t);

#endif
