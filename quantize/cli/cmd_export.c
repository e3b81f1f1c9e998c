/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_export.c — `edgeq export --c FILE`: a file as a C array, for firmware
 * that runs a model straight from flash.
 *
 *   edgeq export --c model.tflite > model_data.c
 *
 * writes
 *
 *   const uint8_t model_data[N] __attribute__((aligned(16))) = { ... };
 *   const size_t model_data_len = N;
 *
 * The engine wants its model bytes EDGE_ARENA_ALIGN (16) aligned; `const`
 * puts them in .rodata, i.e. flash on a microcontroller. With --arena the
 * file is loaded as a model once, here on the host, and an arena array sized
 * for it is emitted too, so the firmware's RAM use is known at link time.
 * Any file can be exported (sample inputs, label lists), so only --arena
 * looks inside it.
 */
#include <errno.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io/output_path.h"
#include "export_ops.h"
#include "io/file_util.h"

int edgeq_cmd_export(int argc, char **argv);

#define EXPORT_LIMIT ((size_t)1 << 30) /* most bytes read from a pipe */
#define BYTES_PER_LINE 12

static void print_help(FILE *fp) {
    fprintf(fp,
            "usage: " EDGEQ_PROGRAM " export --c <file> [--name NAME] [--section SECTION]\n"
            "                    [--arena [--arena-bytes N]] [-o out.c]\n"
            "       " EDGEQ_PROGRAM " export --ops <model.tflite>... [-o model_ops.h]\n"
            "\n"
            "Write <file> as a C source file holding a 16-byte aligned const byte array\n"
            "and its length, for firmware that links the engine:\n"
            "  const uint8_t NAME[] (aligned 16);  const size_t NAME_len;\n"
            "Declare them in the firmware as\n"
            "  extern const uint8_t NAME[];  extern const size_t NAME_len;\n"
            "\n"
            "options:\n"
            "  --c              C source output (the only format so far; required)\n"
            "  --name NAME      the array's C identifier (default: model_data)\n"
            "  --section SEC    place the array in linker section SEC (e.g. .rodata.model)\n"
            "  --arena          also emit the arena the model needs:\n"
            "                     uint8_t NAME_arena[] (aligned 16);  const size_t NAME_arena_len;\n"
            "                   sized by loading the model here (a 64-bit host needs a few\n"
            "                   bytes more than a 32-bit target, never fewer)\n"
            "  --arena-bytes N  arena size to emit instead (k/M suffixes)\n"
            "  -o FILE          write to FILE (all or nothing) instead of stdout; an input\n"
            "                   is never overwritten, an existing FILE only when it is a\n"
            "                   .c or .h (--c) or a .h (--ops)\n"
            "  --force          replace an existing FILE of another kind\n"
            "\n"
            "--ops writes a header naming the engine ops the models use (their union),\n"
            "for firmware that links only those: compile the engine's\n"
            "engine/src/ops/registry.c with -DEDGE_OPS_HEADER='\"model_ops.h\"'.\n"
            "\n"
            "exit codes: 0 success, 1 unreadable file or model the engine refuses,\n"
            "2 usage error\n");
}

/* A C identifier: [A-Za-z_][A-Za-z0-9_]*. */
static int is_identifier(const char *s) {
    if (!s || !*s || isdigit((unsigned char)s[0])) return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_')) return 0;
    return 1;
}

/* A section name goes inside a C string literal: keep it to safe characters. */
static int is_section_name(const char *s) {
    if (!s || !*s) return 0;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$')) return 0;
    return 1;
}

/* The file name without directories, with anything that would end a C
 * comment defused. */
static void comment_name(const char *path, char *buf, size_t cap) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t j = 0;
    for (const char *p = base; *p && j + 1 < cap; p++) {
        unsigned char ch = (unsigned char)*p;
        buf[j++] = (ch < 0x20 || ch >= 0x7f || (ch == '/' && p[1] == '*') ||
                    (ch == '*' && p[1] == '/'))
                       ? '_'
                       : (char)ch;
    }
    buf[j] = 0;
}

static int write_c(FILE *fp, const char *path, const char *name, const char *section,
                   const uint8_t *data, size_t len, size_t arena) {
    char shown[256];
    comment_name(path, shown, sizeof shown);
    fprintf(fp,
            "/* %s: %zu bytes of %s, written by `" EDGEQ_PROGRAM " export --c` (libedge %s).\n"
            " * Generated: do not edit. Use it with\n"
            " *   extern const uint8_t %s[];\n"
            " *   extern const size_t %s_len;\n",
            name, len, shown, EDGE_VERSION_STRING, name, name);
    if (arena)
        fprintf(fp,
                " *   extern uint8_t %s_arena[];\n"
                " *   extern const size_t %s_arena_len;\n",
                name, name);
    fprintf(fp,
            " */\n"
            "#include <stddef.h>\n"
            "#include <stdint.h>\n"
            "\n"
            "/* The engine reads the model in place and wants it 16-byte aligned. */\n"
            "#if defined(__GNUC__) || defined(__clang__)\n"
            "#define EDGEQ_ALIGN16 __attribute__((aligned(16)))\n");
    if (section)
        fprintf(fp, "#define EDGEQ_SECTION __attribute__((section(\"%s\")))\n", section);
    else
        fprintf(fp, "#define EDGEQ_SECTION\n");
    fprintf(fp,
            "#elif defined(_MSC_VER)\n"
            "#define EDGEQ_ALIGN16 __declspec(align(16))\n"
            "#define EDGEQ_SECTION\n"
            "#else\n"
            "#error \"no way known to align an array with this compiler\"\n"
            "#endif\n"
            "\n");
    /* An empty file still gets a valid (one-byte) array; _len says 0. */
    fprintf(fp, "EDGEQ_SECTION EDGEQ_ALIGN16 const uint8_t %s[%zu] = {", name, len ? len : 1);
    if (len == 0) fputs("0", fp);
    for (size_t i = 0; i < len; i++) {
        if (i % BYTES_PER_LINE == 0) fputs("\n   ", fp);
        fprintf(fp, " 0x%02x%s", data[i], i + 1 < len ? "," : "");
    }
    fprintf(fp, "\n};\nconst size_t %s_len = %zu;\n", name, len);
    if (arena) {
        fprintf(fp,
                "\n/* Scratch arena for this model (edge_model_init's `arena`). */\n"
                "EDGEQ_ALIGN16 uint8_t %s_arena[%zu];\n"
                "const size_t %s_arena_len = %zu;\n",
                name, arena, name, arena);
    }
    return ferror(fp) ? -1 : 0;
}

int edgeq_cmd_export(int argc, char **argv) {
    const char *path = NULL, *name = "model_data", *section = NULL, *out = NULL;
    int c_format = 0, want_arena = 0, ops_format = 0, force = 0;
    const char *paths[64];
    int n_paths = 0;
    size_t arena_bytes = 0;
    for (int i = 1; i < argc;) {
        const char *a = argv[i], *v = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(stdout);
            return EDGEQ_EXIT_OK;
        } else if (strcmp(a, "--c") == 0) {
            c_format = 1, i++;
        } else if (strcmp(a, "--ops") == 0) {
            ops_format = 1, i++;
        } else if (strcmp(a, "--force") == 0) {
            force = 1, i++;
        } else if (strcmp(a, "--arena") == 0) {
            want_arena = 1, i++;
        } else if (edgeq_opt_value(argc, argv, &i, "--name", &v)) {
            if (!v) return edgeq_usage("export", "--name needs a value");
            if (!is_identifier(v))
                return edgeq_usage("export", "--name '%s' is not a C identifier", v);
            name = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--section", &v)) {
            if (!v) return edgeq_usage("export", "--section needs a value");
            if (!is_section_name(v))
                return edgeq_usage("export",
                                   "--section '%s': use letters, digits, '_', '.' or '$'", v);
            section = v;
        } else if (edgeq_opt_value(argc, argv, &i, "--arena-bytes", &v)) {
            if (edgeq_parse_bytes(v, &arena_bytes) != 0)
                return edgeq_usage("export", "--arena-bytes needs a byte count such as 96k");
            want_arena = 1;
        } else if (edgeq_opt_value(argc, argv, &i, "-o", &v) ||
                   edgeq_opt_value(argc, argv, &i, "--output", &v)) {
            if (!v) return edgeq_usage("export", "-o needs a file name");
            out = v;
        } else if (a[0] == '-' && a[1]) {
            return edgeq_usage("export", "unknown option '%s'", a);
        } else {
            if (n_paths == (int)(sizeof paths / sizeof paths[0]))
                return edgeq_usage("export", "too many files");
            paths[n_paths++] = a, i++;
        }
    }
    if (n_paths == 0) return edgeq_usage("export", "no file given");
    if (c_format + ops_format != 1)
        return edgeq_usage("export", "say which output: --c (a C source file) or --ops (a header)");
    if (out) {
        static const char *const c_ext[] = {".c", ".h", NULL};
        static const char *const h_ext[] = {".h", NULL};
        int orc = edgeq_output_check(out, "output", paths, n_paths, ops_format ? h_ext : c_ext,
                                     force);
        if (orc != 0) return orc;
    }
    if (ops_format) {
        if (want_arena || section || strcmp(name, "model_data") != 0)
            return edgeq_usage("export", "--ops takes no --name, --section or --arena");
        return edgeq_export_ops(paths, n_paths, out);
    }
    if (n_paths > 1)
        return edgeq_usage("export", "--c: one file at a time ('%s' and '%s')", paths[0], paths[1]);
    path = paths[0];

    int rc = EDGEQ_EXIT_FAIL;
    char err[512];
    uint8_t *data = NULL;
    size_t len = 0, arena = 0;
    edgeq_model_file mf;
    int have_model = 0;
    if (want_arena && arena_bytes == 0) {
        /* Loads, verifies and plans the model: a file the engine refuses
         * fails here, with the engine's reason, not on the board. */
        have_model = 1;
        if (edgeq_model_open(&mf, path, 0) != EDGEQ_EXIT_OK) goto done;
        data = mf.file, len = mf.file_len;
        arena = mf.arena_need;
    } else {
        if (edgeq_read_file_limit(path, 16, EXPORT_LIMIT, &data, &len, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
        arena = arena_bytes;
    }
    /* Keep the arena a whole number of 16-byte blocks. */
    arena = (arena + 15u) & ~(size_t)15u;

    if (out) {
        edgeq_atomic_file af;
        if (edgeq_atomic_open(&af, out, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
        if (write_c(af.fp, path, name, section, data, len, arena) != 0) {
            edgeq_atomic_abort(&af);
            edgeq_error("%s: write failed: %s", out, strerror(errno));
            goto done;
        }
        if (edgeq_atomic_commit(&af, err, sizeof err) != 0) {
            edgeq_error("%s", err);
            goto done;
        }
    } else {
        if (write_c(stdout, path, name, section, data, len, arena) != 0 || fflush(stdout) != 0) {
            edgeq_error("writing to stdout failed");
            goto done;
        }
    }
    rc = EDGEQ_EXIT_OK;
done:
    if (have_model)
        edgeq_model_close(&mf);
    else
        free(data);
    return rc;
}
