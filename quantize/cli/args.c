/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c — the message, option and JSON helpers every edgeq command shares
 * (declared in cli.h). Kept apart from edgeq_main.c so that the commands
 * depend on these helpers and main depends on the commands, never back.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- messages ---- */

void edgeq_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs(EDGEQ_PROGRAM ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int edgeq_usage(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, EDGEQ_PROGRAM "%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry '" EDGEQ_PROGRAM "%s%s --help'.\n", cmd ? " " : "", cmd ? cmd : "");
    va_end(ap);
    return EDGEQ_EXIT_USAGE;
}

/* ---- options ---- */

int edgeq_opt_value(int argc, char **argv, int *i, const char *name, const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        *i += 1;
        return 1;
    }
    if (a[n] != 0) return 0;
    *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    *i += *value ? 2 : 1;
    return 1;
}

int edgeq_parse_long(const char *s, long lo, long hi, long *out) {
    if (!s || !*s) return -1;
    long v = 0;
    int neg = 0;
    const char *p = s;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    if (!*p) return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        long d = *p - '0';
        if (v > (LONG_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    if (neg) v = -v;
    if (v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int edgeq_parse_bytes(const char *s, size_t *out) {
    if (!s || !*s) return -1;
    size_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    if (p == s) return -1;
    size_t mul = 1;
    if (*p == 'k' || *p == 'K')
        mul = 1024, p++;
    else if (*p == 'm' || *p == 'M')
        mul = 1024 * 1024, p++;
    if (*p == 'i' && p[1] == 'B' && mul > 1)
        p += 2; /* "64KiB" */
    else if (*p == 'B' && mul > 1)
        p++;
    if (*p || v == 0 || v > SIZE_MAX / mul) return -1;
    *out = v * mul;
    return 0;
}

/* ---- JSON ---- */

void edgeq_json_string(FILE *fp, const char *s) {
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp); /* UTF-8 passes through */
        }
    }
    fputc('"', fp);
}

void edgeq_json_number(FILE *fp, double v) {
    if (isnan(v) || isinf(v))
        fputs("null", fp);
    else
        fprintf(fp, "%.9g", v);
}
