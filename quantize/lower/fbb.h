/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fbb.h — a small FlatBuffers builder, enough to write a .tflite file.
 *
 * Like the official builder it works back to front: children are written
 * before the objects that point at them, because a FlatBuffers offset is
 * unsigned and must point forward (to a higher address). An object is named
 * by an `fbb_ref`: its distance from the end of the finished buffer, which
 * stays fixed while the buffer grows at the front. 0 means "none".
 *
 * Layout rules kept (so the official verifier and TFLite accept the output):
 *   - every scalar is aligned to its own size, every offset and vector length
 *     to 4, relative to the start of the finished buffer (the buffer's total
 *     length is padded to the largest alignment used);
 *   - vectors may ask for a larger alignment of their element data
 *     (tflite Buffer.data is `force_align: 16`);
 *   - tables get a vtable each; identical vtables are shared (the official
 *     builder does the same) — it keeps files small, nothing depends on it.
 *   - only one table is open at a time; strings, vectors and other tables
 *     must be made before a table that refers to them is started.
 *
 * Errors (out of memory, a buffer past 2 GiB, misuse) are sticky: calls
 * after one return 0 and do nothing, and fbb_finish reports it. Little-
 * endian output on any host.
 */
#ifndef EDGEQ_FBB_H
#define EDGEQ_FBB_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t fbb_ref;

#define FBB_MAX_FIELDS 64

typedef struct fbb {
    uint8_t *buf;     /* capacity `cap`; the data occupies the last `len` bytes */
    size_t cap, len;
    size_t minalign;  /* largest alignment used so far */
    const char *error; /* first error, NULL when all is well */

    /* the open table */
    int in_table;
    size_t table_start;             /* len when the table was started */
    uint32_t field_at[FBB_MAX_FIELDS]; /* distance from the end of each field, 0 = absent */
    int max_field;                  /* highest field id + 1 */

    /* written vtables, for sharing: their distance from the end */
    uint32_t *vtables;
    size_t n_vtables, cap_vtables;
} fbb;

/* Start with room for `initial` bytes (grows as needed). Returns 0, -1 out
 * of memory. */
int fbb_init(fbb *b, size_t initial);
void fbb_free(fbb *b);

/* A NUL-terminated string ("" for NULL). */
fbb_ref fbb_string(fbb *b, const char *s);
/* A vector of n scalars of `elem_size` bytes (1, 2, 4 or 8) from host
 * memory, stored little-endian; `align` is the alignment of the element data
 * (0 = elem_size; tflite Buffer.data uses 16). */
fbb_ref fbb_vector(fbb *b, const void *data, size_t n, size_t elem_size, size_t align);
/* Typed shorthands. */
fbb_ref fbb_vector_i32(fbb *b, const int32_t *v, size_t n);
fbb_ref fbb_vector_f32(fbb *b, const float *v, size_t n);
fbb_ref fbb_vector_i64(fbb *b, const int64_t *v, size_t n);
/* A vector of offsets to tables or strings made earlier. */
fbb_ref fbb_vector_refs(fbb *b, const fbb_ref *refs, size_t n);

/* Tables. Fields equal to their schema default are left out, as the
 * official builder does (pass a default that cannot occur to force one). */
void fbb_table_start(fbb *b);
void fbb_add_u8(fbb *b, int field, uint8_t v, uint8_t dflt);
void fbb_add_i8(fbb *b, int field, int8_t v, int8_t dflt);
void fbb_add_i32(fbb *b, int field, int32_t v, int32_t dflt);
void fbb_add_u32(fbb *b, int field, uint32_t v, uint32_t dflt);
void fbb_add_i64(fbb *b, int field, int64_t v, int64_t dflt);
void fbb_add_f32(fbb *b, int field, float v, float dflt);
/* An offset field; nothing is written for ref 0. */
void fbb_add_ref(fbb *b, int field, fbb_ref r);
fbb_ref fbb_table_end(fbb *b);

/* Write the root offset and the 4-character file identifier (may be NULL).
 * On success *out points at the finished bytes inside the builder (valid
 * until fbb_free) — their start is aligned as the builder's allocation is
 * (malloc: at least 16) — and 0 is returned; else -1 and *err names the
 * problem. */
int fbb_finish(fbb *b, fbb_ref root, const char *ident, const uint8_t **out, size_t *len,
               const char **err);

/* Where `r` ended up in the finished buffer of length `len` (a byte index
 * from the start). Handy for patching data in place after fbb_finish. */
static inline size_t fbb_pos(size_t len, fbb_ref r) { return len - r; }

#endif
