/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fb.h — a zero-copy FlatBuffers reader in freestanding C.
 *
 * Every accessor is bounds-checked against the buffer: on a hostile buffer
 * it returns the field's default, a null table or an empty vector instead of
 * reading outside. The structural verifier (verify.c) uses the same checks to
 * reject a malformed model at load with the table and field named.
 * Multi-byte values are little-endian and read byte-wise, so no alignment is
 * assumed.
 */
#ifndef EDGE_FB_H
#define EDGE_FB_H

#include <stddef.h>
#include <stdint.h>

typedef struct fb_table {
    const uint8_t *buf;
    uint32_t len;
    uint32_t pos; /* 0 = null table (no table can start at offset 0) */
} fb_table;

typedef struct fb_vec {
    const uint8_t *buf;
    uint32_t len;
    uint32_t pos;   /* offset of element 0 */
    uint32_t count; /* 0 when absent or invalid */
} fb_vec;

/* Little-endian loads from any address. */
static inline uint16_t fb_rd_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t fb_rd_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline int32_t fb_rd_i32(const uint8_t *p) { return (int32_t)fb_rd_u32(p); }
static inline uint64_t fb_rd_u64(const uint8_t *p) {
    return (uint64_t)fb_rd_u32(p) | ((uint64_t)fb_rd_u32(p + 4) << 32);
}
static inline float fb_rd_f32(const uint8_t *p) {
    union { uint32_t u; float f; } v;
    v.u = fb_rd_u32(p);
    return v.f;
}
/* Element i of a raw little-endian array (vector data, option vectors). */
static inline int32_t fb_i32_at(const uint8_t *data, uint32_t i) { return fb_rd_i32(data + 4u * i); }
static inline float fb_f32_at(const uint8_t *data, uint32_t i) { return fb_rd_f32(data + 4u * i); }
static inline int64_t fb_i64_at(const uint8_t *data, uint32_t i) { return (int64_t)fb_rd_u64(data + 8u * i); }

extern const fb_table fb_table_null;

/* The root table; null if the buffer is too small or the offset is bad. */
fb_table fb_root(const uint8_t *buf, size_t len);
static inline int fb_is_null(fb_table t) { return t.pos == 0; }
/* Is the table's header and vtable wholly inside the buffer? */
int fb_table_ok(fb_table t);

/* Offset of a field's value inside the buffer, 0 if absent or if `size`
 * bytes there would not lie inside the buffer and the table. */
uint32_t fb_field(fb_table t, uint32_t field, uint32_t size);
int fb_has(fb_table t, uint32_t field);

uint8_t fb_u8(fb_table t, uint32_t field, uint8_t def);
int32_t fb_i32(fb_table t, uint32_t field, int32_t def);
uint32_t fb_u32(fb_table t, uint32_t field, uint32_t def);
float fb_f32(fb_table t, uint32_t field, float def);

fb_table fb_table_field(fb_table t, uint32_t field);
/* A vector of elem_size-byte scalars (or of offsets, elem_size 4). Empty if
 * absent or if it would run past the buffer. */
fb_vec fb_vec_field(fb_table t, uint32_t field, uint32_t elem_size);
/* Element i of a vector of tables. */
fb_table fb_vec_table(fb_vec v, uint32_t i);
static inline const uint8_t *fb_vec_data(fb_vec v) { return v.count ? v.buf + v.pos : (const uint8_t *)0; }
/* A NUL-terminated string, or NULL if absent or not terminated in bounds. */
const char *fb_string(fb_table t, uint32_t field);

#endif
