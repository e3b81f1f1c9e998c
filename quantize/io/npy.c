/* SPDX-License-Identifier: Apache-2.0 */
/*
 * npy.c — see npy.h. Format reference: numpy/lib/format.py (NEP 1):
 * "\x93NUMPY", major, minor, a little-endian header length (uint16 in 1.0,
 * uint32 in 2.0/3.0), then a Python dict literal padded with spaces and
 * ended by '\n' so the data starts on a 64-byte boundary.
 */
#include "npy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "file_util.h"
#include "err.h"

static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

const char *edgeq_npy_dtype_name(char kind, uint32_t itemsize) {
    switch (kind) {
    case 'b': return itemsize == 1 ? "bool" : NULL;
    case 'i':
        switch (itemsize) {
        case 1: return "int8";
        case 2: return "int16";
        case 4: return "int32";
        case 8: return "int64";
        default: return NULL;
        }
    case 'u':
        switch (itemsize) {
        case 1: return "uint8";
        case 2: return "uint16";
        case 4: return "uint32";
        case 8: return "uint64";
        default: return NULL;
        }
    case 'f':
        switch (itemsize) {
        case 2: return "float16";
        case 4: return "float32";
        case 8: return "float64";
        default: return NULL;
        }
    default: return NULL;
    }
}

/* ---- the header dict: a tiny reader for the Python literal NumPy writes ---- */

typedef struct hdr_reader {
    const char *p, *end;
    const char *name;
    char *err;
    size_t err_len;
} hdr_reader;

static void skip_ws(hdr_reader *r) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int accept(hdr_reader *r, char c) {
    skip_ws(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return 1;
    }
    return 0;
}

static int bad_header(hdr_reader *r, const char *what) {
    return edgeq_fail_at(r->err, r->err_len, r->name, "bad .npy header: %s", what);
}

/* A quoted string (either quote; no escapes appear in what NumPy writes). */
static int read_string(hdr_reader *r, char *out, size_t cap) {
    skip_ws(r);
    if (r->p >= r->end || (*r->p != '\'' && *r->p != '"')) return -1;
    char q = *r->p++;
    size_t n = 0;
    while (r->p < r->end && *r->p != q) {
        if (*r->p == '\\' || n + 1 >= cap) return -1;
        out[n++] = *r->p++;
    }
    if (r->p >= r->end) return -1;
    r->p++;
    out[n] = 0;
    return 0;
}

static int read_word(hdr_reader *r, const char *word) {
    skip_ws(r);
    size_t n = strlen(word);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return 0;
    r->p += n;
    return 1;
}

static int read_shape(hdr_reader *r, edgeq_npy *a) {
    if (!accept(r, '(')) return bad_header(r, "'shape' is not a tuple");
    a->rank = 0;
    for (;;) {
        if (accept(r, ')')) return 0;
        skip_ws(r);
        if (r->p >= r->end || *r->p < '0' || *r->p > '9')
            return bad_header(r, "'shape' holds something other than non-negative integers");
        uint64_t v = 0;
        while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
            uint64_t d = (uint64_t)(*r->p - '0');
            if (v > (UINT64_MAX - d) / 10) return bad_header(r, "a dimension is too large");
            v = v * 10 + d;
            r->p++;
        }
        if (r->p < r->end && (*r->p == 'L' || *r->p == 'l')) r->p++; /* Python 2 longs */
        if (a->rank >= EDGEQ_NPY_MAX_DIMS) return bad_header(r, "more than 64 dimensions");
        a->shape[a->rank++] = v;
        if (accept(r, ',')) continue;
        if (accept(r, ')')) return 0;
        return bad_header(r, "'shape' tuple is not closed");
    }
}

/* descr: "<f4", "|i1", "=u2" (native; this host is little-endian), ">i1". */
static int read_descr(hdr_reader *r, edgeq_npy *a) {
    skip_ws(r);
    if (r->p < r->end && (*r->p == '[' || *r->p == '{'))
        return edgeq_fail_at(r->err, r->err_len, r->name,
                    "structured dtypes (record arrays) are not supported; save a plain numeric "
                    "array");
    char d[32];
    if (read_string(r, d, sizeof d) != 0) return bad_header(r, "'descr' is not a dtype string");
    const char *s = d;
    char order = 0;
    if (*s == '<' || *s == '>' || *s == '|' || *s == '=') order = *s++;
    char kind = *s ? *s++ : 0;
    uint32_t size = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9' && digits < 6) {
        size = size * 10 + (uint32_t)(*s++ - '0');
        digits++;
    }
    if (*s || !digits) {
        if (kind == 'O')
            return edgeq_fail_at(r->err, r->err_len, r->name, "object arrays are not supported");
        return edgeq_fail_at(r->err, r->err_len, r->name, "unsupported dtype '%s'", d);
    }
    if (kind == '?') kind = 'b';
    const char *tname = edgeq_npy_dtype_name(kind, size);
    if (!tname) {
        const char *why = kind == 'c'   ? " (complex)"
                          : kind == 'S' || kind == 'U' || kind == 'a' ? " (strings)"
                          : kind == 'M' || kind == 'm' ? " (dates/times)"
                          : kind == 'V' ? " (raw void)"
                                        : "";
        return edgeq_fail_at(r->err, r->err_len, r->name,
                    "unsupported dtype '%s'%s; use bool, int8..int64, uint8..uint64 or "
                    "float16/32/64",
                    d, why);
    }
    if (order == '>' && size > 1)
        return edgeq_fail_at(r->err, r->err_len, r->name,
                    "big-endian dtype '%s' is not supported; save with "
                    "a.astype(a.dtype.newbyteorder('<'))",
                    d);
    a->kind = kind;
    a->itemsize = size;
    return 0;
}

static int parse_dict(hdr_reader *r, edgeq_npy *a) {
    int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
    if (!accept(r, '{')) return bad_header(r, "it does not start with '{'");
    for (;;) {
        if (accept(r, '}')) break;
        char key[32];
        if (read_string(r, key, sizeof key) != 0) return bad_header(r, "expected a quoted key");
        if (!accept(r, ':')) return bad_header(r, "expected ':' after a key");
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (read_descr(r, a) != 0) return -1;
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (read_word(r, "True"))
                fortran = 1;
            else if (!read_word(r, "False"))
                return bad_header(r, "'fortran_order' is neither True nor False");
            have_order = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (read_shape(r, a) != 0) return -1;
            have_shape = 1;
        } else {
            return edgeq_fail_at(r->err, r->err_len, r->name, "bad .npy header: unexpected or repeated key '%s'",
                        key);
        }
        if (accept(r, ',')) continue;
        if (accept(r, '}')) break;
        return bad_header(r, "expected ',' or '}' after a value");
    }
    skip_ws(r);
    if (r->p != r->end) return bad_header(r, "text after the closing '}'");
    if (!have_descr || !have_order || !have_shape)
        return bad_header(r, "it needs the keys 'descr', 'fortran_order' and 'shape'");
    if (fortran)
        return edgeq_fail_at(r->err, r->err_len, r->name,
                    "Fortran-order arrays are not supported; save np.ascontiguousarray(a) "
                    "instead");
    return 0;
}

int edgeq_npy_parse(const uint8_t *buf, size_t len, const char *name, edgeq_npy *out, char *err,
                    size_t err_len) {
    edgeq_npy a;
    memset(&a, 0, sizeof a);
    memset(out, 0, sizeof *out);
    if (len < 10 || memcmp(buf, npy_magic, sizeof npy_magic) != 0)
        return edgeq_fail_at(err, err_len, name, "not a .npy file (no \\x93NUMPY magic)");
    uint8_t major = buf[6], minor = buf[7];
    size_t hdr_len, hdr_start;
    if (major == 1) {
        hdr_len = (size_t)buf[8] | (size_t)buf[9] << 8;
        hdr_start = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12) return edgeq_fail_at(err, err_len, name, "bad .npy header: file ends inside it");
        hdr_len = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
                  (size_t)buf[11] << 24;
        hdr_start = 12;
    } else {
        return edgeq_fail_at(err, err_len, name, "unsupported .npy format version %u.%u", major, minor);
    }
    if (hdr_len > len - hdr_start)
        return edgeq_fail_at(err, err_len, name,
                    "bad .npy header: it claims %zu bytes but the file has %zu after the magic",
                    hdr_len, len - hdr_start);
    a.version = major;
    hdr_reader r = {(const char *)buf + hdr_start, (const char *)buf + hdr_start + hdr_len, name,
                    err, err_len};
    for (const char *c = r.p; c < r.end; c++)
        if (*c == 0) return edgeq_fail_at(err, err_len, name, "bad .npy header: it contains a NUL byte");
    if (parse_dict(&r, &a) != 0) return -1;

    size_t count = 1;
    for (uint32_t i = 0; i < a.rank; i++) {
        if (a.shape[i] != 0 && count > SIZE_MAX / a.shape[i])
            return edgeq_fail_at(err, err_len, name, "shape is too large");
        count *= (size_t)a.shape[i];
    }
    if (count > SIZE_MAX / a.itemsize) return edgeq_fail_at(err, err_len, name, "shape is too large");
    size_t need = count * a.itemsize, have = len - hdr_start - hdr_len;
    if (have != need) {
        char shape[256];
        size_t at = 0;
        shape[at++] = '(';
        for (uint32_t i = 0; i < a.rank && at < sizeof shape - 24; i++) {
            int n = snprintf(shape + at, sizeof shape - at, i ? ", %llu" : "%llu",
                             (unsigned long long)a.shape[i]);
            if (n > 0) at += (size_t)n;
        }
        snprintf(shape + at, sizeof shape - at, "%s)", a.rank == 1 ? "," : "");
        if (have < need)
            return edgeq_fail_at(err, err_len, name,
                        "truncated: shape %s of %s needs %zu data bytes, the file has %zu", shape,
                        edgeq_npy_dtype_name(a.kind, a.itemsize), need, have);
        return edgeq_fail_at(err, err_len, name,
                    "wrong size: shape %s of %s needs %zu data bytes, the file has %zu (%zu "
                    "extra)",
                    shape, edgeq_npy_dtype_name(a.kind, a.itemsize), need, have, have - need);
    }
    a.count = count;
    a.bytes = need;
    a.data = buf + hdr_start + hdr_len;
    *out = a;
    return 0;
}

/* ---- element access ---- */

static uint64_t load_le(const uint8_t *p, uint32_t n) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static double half_to_double(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = frac / 16777216.0; /* subnormal: frac * 2^-24 */
    else if (exp == 31)
        v = frac ? (double)NAN : (double)INFINITY;
    else {
        v = 1.0 + frac / 1024.0;
        for (int e = exp - 15; e > 0; e--) v *= 2.0;
        for (int e = exp - 15; e < 0; e++) v *= 0.5;
    }
    return sign ? -v : v;
}

double edgeq_npy_get_f64(const edgeq_npy *a, size_t i) {
    const uint8_t *p = a->data + i * a->itemsize;
    uint64_t bits = load_le(p, a->itemsize);
    switch (a->kind) {
    case 'b': return bits ? 1.0 : 0.0;
    case 'u': return (double)bits;
    case 'i': {
        uint32_t shift = 64 - 8 * a->itemsize;
        /* sign-extend through the top bits (two's complement, done in unsigned) */
        uint64_t ext = shift ? (bits << shift) : bits;
        int64_t v;
        memcpy(&v, &ext, sizeof v);
        return (double)(v >> shift);
    }
    case 'f':
        if (a->itemsize == 2) return half_to_double((uint16_t)bits);
        if (a->itemsize == 4) {
            uint32_t b32 = (uint32_t)bits;
            float f;
            memcpy(&f, &b32, sizeof f);
            return (double)f;
        } else {
            double d;
            memcpy(&d, &bits, sizeof d);
            return d;
        }
    default: return 0.0;
    }
}

/* ---- writing ---- */

int edgeq_npy_header(char kind, uint32_t itemsize, uint32_t rank, const uint64_t *shape,
                     uint8_t *out, size_t cap, size_t *len, char *err, size_t err_len) {
    if (!edgeq_npy_dtype_name(kind, itemsize))
        return edgeq_fail_at(err, err_len, NULL, "no .npy dtype for kind '%c' size %u", kind, itemsize);
    if (rank > EDGEQ_NPY_MAX_DIMS)
        return edgeq_fail_at(err, err_len, NULL, "too many dimensions (%u) for .npy", rank);
    char dict[2048];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%c%u', 'fortran_order': False, 'shape': (",
                     itemsize == 1 ? '|' : '<', kind, itemsize);
    size_t at = (size_t)n;
    for (uint32_t i = 0; i < rank; i++) {
        n = snprintf(dict + at, sizeof dict - at, "%llu,%s", (unsigned long long)shape[i],
                     i + 1 < rank ? " " : "");
        if (n < 0 || (size_t)n >= sizeof dict - at)
            return edgeq_fail_at(err, err_len, NULL, ".npy header too long");
        at += (size_t)n;
    }
    /* NumPy writes "(5,)" for one dimension and "(2, 3)" for more. */
    if (rank > 1 && dict[at - 1] == ',') at--;
    n = snprintf(dict + at, sizeof dict - at, "), }");
    if (n < 0 || (size_t)n >= sizeof dict - at)
        return edgeq_fail_at(err, err_len, NULL, ".npy header too long");
    at += (size_t)n;
    /* pad with spaces and a final '\n' so the data starts 64-byte aligned */
    size_t total = 10 + at + 1;
    total = (total + 63) & ~(size_t)63;
    size_t hdr_len = total - 10;
    if (total > cap) return edgeq_fail_at(err, err_len, NULL, ".npy header does not fit");
    memcpy(out, npy_magic, sizeof npy_magic);
    out[6] = 1;
    out[7] = 0;
    out[8] = (uint8_t)(hdr_len & 0xff);
    out[9] = (uint8_t)(hdr_len >> 8);
    memcpy(out + 10, dict, at);
    memset(out + 10 + at, ' ', hdr_len - at - 1);
    out[total - 1] = '\n';
    *len = total;
    return 0;
}

int edgeq_npy_write(const char *path, char kind, uint32_t itemsize, uint32_t rank,
                    const uint64_t *shape, const void *data, size_t bytes, char *err,
                    size_t err_len) {
    uint8_t hdr[4096];
    size_t hdr_len;
    if (edgeq_npy_header(kind, itemsize, rank, shape, hdr, sizeof hdr, &hdr_len, err, err_len) !=
        0)
        return -1;
    size_t count = 1;
    for (uint32_t i = 0; i < rank; i++) {
        if (shape[i] != 0 && count > SIZE_MAX / shape[i])
            return edgeq_fail_at(err, err_len, path, "shape too large");
        count *= (size_t)shape[i];
    }
    if (count > SIZE_MAX / itemsize || count * itemsize != bytes)
        return edgeq_fail_at(err, err_len, path, "%zu data bytes do not match the shape (%zu elements of %u)",
                    bytes, count, itemsize);
    edgeq_atomic_file f;
    if (edgeq_atomic_open(&f, path, err, err_len) != 0) return -1;
    if (fwrite(hdr, 1, hdr_len, f.fp) != hdr_len ||
        (bytes && fwrite(data, 1, bytes, f.fp) != bytes)) {
        edgeq_atomic_abort(&f);
        return edgeq_fail_at(err, err_len, path, "write failed");
    }
    return edgeq_atomic_commit(&f, err, err_len);
}
