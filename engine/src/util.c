/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.c — freestanding helpers: memory copies, the error formatter, names.
 */
#include <stdarg.h>

#include "edge_internal.h"

void edge_memcpy(void *dst, const void *src, size_t n) {
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    while (n--) *d++ = *s++;
}

void edge_memset(void *dst, int v, size_t n) {
    uint8_t *d = (uint8_t *)dst;
    while (n--) *d++ = (uint8_t)v;
}

void edge_memmove(void *dst, const void *src, size_t n) {
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if (d == s || n == 0) return;
    if (d < s) {
        /* Forward, eight bytes at a time: each word is read before the
         * write that may overlap its source (fused pairs move rows down). */
        for (; n >= 8; n -= 8, d += 8, s += 8) {
            uint64_t w;
            __builtin_memcpy(&w, s, 8);
            __builtin_memcpy(d, &w, 8);
        }
        while (n--) *d++ = *s++;
    } else {
        /* Backward, likewise. */
        d += n;
        s += n;
        for (; n >= 8; n -= 8) {
            d -= 8;
            s -= 8;
            uint64_t w;
            __builtin_memcpy(&w, s, 8);
            __builtin_memcpy(d, &w, 8);
        }
        while (n--) *--d = *--s;
    }
}

typedef struct sink {
    char *p;
    size_t left;
} sink;

static void put(sink *s, char c) {
    if (s->left > 1) {
        *s->p++ = c;
        s->left--;
    }
}

static void put_str(sink *s, const char *str) {
    if (!str) str = "(null)";
    while (*str) put(s, *str++);
}

static void put_u64(sink *s, uint64_t v, unsigned base) {
    char tmp[24];
    int n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (n) put(s, tmp[--n]);
}

static void put_i64(sink *s, int64_t v) {
    if (v < 0) {
        put(s, '-');
        put_u64(s, (uint64_t)0 - (uint64_t)v, 10);
    } else {
        put_u64(s, (uint64_t)v, 10);
    }
}

static void vformat(sink *s, const char *fmt, va_list ap) {
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            put(s, *fmt);
            continue;
        }
        fmt++;
        int is_long = 0, is_size = 0;
        if (*fmt == 'l') { is_long = 1; fmt++; }
        if (*fmt == 'z') { is_size = 1; fmt++; }
        switch (*fmt) {
        case 's': put_str(s, va_arg(ap, const char *)); break;
        case 'c': put(s, (char)va_arg(ap, int)); break;
        case 'd':
            put_i64(s, is_long ? (int64_t)va_arg(ap, long) : (int64_t)va_arg(ap, int));
            break;
        case 'u':
            if (is_size) put_u64(s, (uint64_t)va_arg(ap, size_t), 10);
            else if (is_long) put_u64(s, (uint64_t)va_arg(ap, unsigned long), 10);
            else put_u64(s, (uint64_t)va_arg(ap, unsigned), 10);
            break;
        case 'x': put_u64(s, (uint64_t)va_arg(ap, unsigned), 16); break;
        case '%': put(s, '%'); break;
        case '\0': return;
        default: put(s, '%'); put(s, *fmt); break;
        }
    }
}

static void set_error(edge_model *m, const char *prefix_name, int64_t op, const char *fmt,
                      va_list ap) {
    sink s = {m->error, sizeof m->error};
    if (op >= 0) {
        put_str(&s, "op ");
        put_i64(&s, op);
        put_str(&s, " (");
        put_str(&s, prefix_name);
        put_str(&s, "): ");
    }
    vformat(&s, fmt, ap);
    *s.p = '\0';
}

edge_status edge_fail(edge_model *m, edge_status st, const char *fmt, ...) {
    if (!m) return st;
    va_list ap;
    va_start(ap, fmt);
    set_error(m, 0, -1, fmt, ap);
    va_end(ap);
    return st;
}

edge_status edge_op_fail(const edge_op_ctx *c, edge_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_error(c->m, edge_builtin_name(c->op->impl ? c->op->impl->code : -1), (int64_t)c->index, fmt, ap);
    va_end(ap);
    return st;
}

const char *edge_status_str(edge_status s) {
    switch (s) {
    case EDGE_OK: return "ok";
    case EDGE_ERR_ARG: return "bad argument";
    case EDGE_ERR_MODEL: return "malformed model";
    case EDGE_ERR_UNSUPPORTED: return "unsupported";
    case EDGE_ERR_ARENA: return "arena too small";
    case EDGE_ERR_SHAPE: return "shape mismatch";
    case EDGE_ERR_STATE: return "bad call order";
    }
    return "unknown status";
}

const char *edge_type_name(edge_type t) {
    switch ((int)t) {
    case 0: return "float32";
    case 1: return "float16";
    case 2: return "int32";
    case 3: return "uint8";
    case 4: return "int64";
    case 5: return "string";
    case 6: return "bool";
    case 7: return "int16";
    case 8: return "complex64";
    case 9: return "int8";
    case 10: return "float64";
    case 11: return "complex128";
    case 12: return "uint64";
    case 13: return "resource";
    case 14: return "variant";
    case 15: return "uint32";
    case 16: return "uint16";
    case 17: return "int4";
    case 18: return "bfloat16";
    default: return "unknown";
    }
}

size_t edge_type_size(edge_type t) {
    switch ((int)t) {
    case 0: case 2: case 15: return 4;
    case 1: case 7: case 16: case 18: return 2;
    case 3: case 6: case 9: return 1;
    case 4: case 10: case 12: case 8: return 8;
    case 11: return 16;
    default: return 0; /* strings, int4, resources: not sized per element */
    }
}
