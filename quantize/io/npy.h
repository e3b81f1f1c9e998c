/* SPDX-License-Identifier: Apache-2.0 */
/*
 * npy.h — NumPy .npy files (format versions 1.0, 2.0 and 3.0).
 *
 * What is read: one array of plain numbers in C (row-major) order, with a
 * little-endian (or single-byte) dtype: bool b1, int i1 i2 i4 i8, unsigned
 * u1 u2 u4 u8, float f2 f4 f8. Refused, each with a message that says so:
 * a bad magic or version, a header that is not the dict NumPy writes
 * ({'descr': ..., 'fortran_order': ..., 'shape': (...)}), Fortran order,
 * big-endian, structured / string / object / complex dtypes, and a data
 * section whose size is not exactly what the shape and dtype need
 * (truncated or with trailing bytes).
 *
 * Parsing does not copy: the result points into the caller's buffer.
 * All functions return 0 on success and -1 on failure with a message in
 * `err` (NUL-terminated when err_len > 0).
 */
#ifndef EDGEQ_NPY_H
#define EDGEQ_NPY_H

#include <stddef.h>
#include <stdint.h>

/* NumPy's own limit (NPY_MAXDIMS) is 32 in 1.x and 64 in 2.x. */
#define EDGEQ_NPY_MAX_DIMS 64

typedef struct edgeq_npy {
    char kind;              /* 'b' bool, 'i' signed int, 'u' unsigned int, 'f' float */
    uint32_t itemsize;      /* bytes per element */
    uint32_t rank;          /* 0 for a scalar array */
    uint64_t shape[EDGEQ_NPY_MAX_DIMS];
    size_t count;           /* elements: product of shape (1 when rank is 0) */
    const uint8_t *data;    /* count * itemsize little-endian bytes, in the parsed buffer */
    size_t bytes;           /* count * itemsize */
    uint32_t version;       /* format major version: 1, 2 or 3 */
} edgeq_npy;

/* Parse a whole .npy file held in `buf`. `name` (the file name, may be
 * NULL) starts the error messages. */
int edgeq_npy_parse(const uint8_t *buf, size_t len, const char *name, edgeq_npy *out, char *err,
                    size_t err_len);

/* NumPy's name of a supported dtype ("int8", "float32", "bool"), or NULL. */
const char *edgeq_npy_dtype_name(char kind, uint32_t itemsize);

/* Element i as a double (any supported dtype; int64/uint64 may round). */
double edgeq_npy_get_f64(const edgeq_npy *a, size_t i);

/* Write `data` (`bytes` long, C order, little-endian) as a version 1.0
 * .npy of the given dtype and shape, all or nothing (temp file + rename).
 * Fails when `bytes` is not the shape's element count times itemsize or the
 * dtype is not one of the supported ones. */
int edgeq_npy_write(const char *path, char kind, uint32_t itemsize, uint32_t rank,
                    const uint64_t *shape, const void *data, size_t bytes, char *err,
                    size_t err_len);

/* The header alone (magic through the padded dict and '\n'), as
 * edgeq_npy_write writes it, into `out` (`cap` bytes); its length goes to
 * *len. Lets callers stream the data part themselves. */
int edgeq_npy_header(char kind, uint32_t itemsize, uint32_t rank, const uint64_t *shape,
                     uint8_t *out, size_t cap, size_t *len, char *err, size_t err_len);

#endif
