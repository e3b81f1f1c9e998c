/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_cli.c — libFuzzer harness for edgeq's command line: the input is
 * an argument vector (arguments separated by NUL bytes, at most 24), given
 * to edgeq's main() (dispatch, every command's option parsing and its
 * usage errors) and to the shared option helpers (edgeq_parse_long,
 * edgeq_parse_bytes, edgeq_opt_value, the JSON writers).
 *
 * The harness works in an empty temporary directory, so that relative
 * paths name nothing; run it with -close_fd_mask=3 (help texts and usage
 * messages on every input). Exit codes are checked: 0 to 3 only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main edgeq_real_main
#include "../quantize/cli/edgeq_main.c"
#undef main

#define MAX_ARGS 24

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* No forked Keras loader: its child's exit() would end a libFuzzer
     * process (and nothing here names a real model file anyway). */
    setenv("EDGEQ_KERAS_INPROCESS", "1", 1);
    char dir[] = "/tmp/fuzz_cli.XXXXXX";
    if (!mkdtemp(dir) || chdir(dir) != 0) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    char *args[MAX_ARGS + 2];
    int argc = 0;
    args[argc++] = (char *)"edgeq";
    for (char *p = buf; argc <= MAX_ARGS && p <= buf + size;) {
        args[argc++] = p;
        p += strlen(p) + 1;
    }
    args[argc] = NULL;

    /* The helpers on every argument. */
    FILE *null = fopen("/dev/null", "w");
    for (int i = 1; i < argc; i++) {
        long v;
        size_t b;
        if (edgeq_parse_long(args[i], -1000, 1000, &v) == 0 && (v < -1000 || v > 1000)) abort();
        (void)edgeq_parse_long(args[i], LONG_MIN, LONG_MAX, &v);
        if (edgeq_parse_bytes(args[i], &b) == 0 && b == 0) abort();
        if (null) {
            edgeq_json_string(null, args[i]);
            edgeq_json_number(null, strtod(args[i], NULL));
        }
        int j = i;
        const char *value = NULL;
        if (edgeq_opt_value(argc, args, &j, "--input", &value) && (j <= i || j > argc)) abort();
    }
    if (null) fclose(null);

    const int rc = edgeq_real_main(argc, args);
    if (rc < 0 || rc > 3) abort();
    free(buf);
    return 0;
}
