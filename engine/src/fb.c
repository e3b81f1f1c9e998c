/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fb.c — bounds-checked FlatBuffers field access (see fb.h).
 */
#include "fb.h"

const fb_table fb_table_null = {0, 0, 0};

/* Is [off, off+size) inside the buffer? Written so nothing overflows. */
static int in_bounds(uint32_t len, uint32_t off, uint32_t size) {
    return off <= len && size <= len - off;
}

fb_table fb_root(const uint8_t *buf, size_t len) {
    fb_table t = fb_table_null;
    if (!buf || len < 8 || len > 0x7fffffffu) return t;
    uint32_t l = (uint32_t)len;
    uint32_t pos = fb_rd_u32(buf);
    if (pos < 4 || !in_bounds(l, pos, 4)) return t;
    t.buf = buf;
    t.len = l;
    t.pos = pos;
    return t;
}

/* Where t's vtable is; UINT32_MAX when the header or the vtable leaves
 * the buffer (or the vtable is shorter than its own two lengths).
 * pos - soffset is taken modulo 2^32: a vtable "below 0" wraps past 2^31,
 * so past the buffer (len < 2^31). */
static uint32_t vtable_of(fb_table t) {
    if (t.pos == 0 || !in_bounds(t.len, t.pos, 4)) return UINT32_MAX;
    const uint32_t v = t.pos - fb_rd_u32(t.buf + t.pos);
    if (v > t.len - 4) return UINT32_MAX;
    const uint32_t vt_len = fb_rd_u16(t.buf + v);
    return vt_len >= 4 && in_bounds(t.len, v, vt_len) ? v : UINT32_MAX;
}

uint32_t fb_field(fb_table t, uint32_t field, uint32_t size) {
    const uint32_t v = vtable_of(t);
    if (v == UINT32_MAX) return 0;
    uint32_t slot = 4u + 2u * field;
    if (field > 0x7fff || slot + 2u > fb_rd_u16(t.buf + v)) return 0;
    uint16_t off = fb_rd_u16(t.buf + v + slot);
    if (off == 0) return 0;
    if ((uint32_t)off + size > fb_rd_u16(t.buf + v + 2)) return 0;
    if (!in_bounds(t.len, t.pos, (uint32_t)off + size)) return 0;
    return t.pos + off;
}

int fb_has(fb_table t, uint32_t field) { return fb_field(t, field, 1) != 0; }

uint8_t fb_u8(fb_table t, uint32_t field, uint8_t def) {
    uint32_t o = fb_field(t, field, 1);
    return o ? t.buf[o] : def;
}

uint32_t fb_u32(fb_table t, uint32_t field, uint32_t def) {
    uint32_t o = fb_field(t, field, 4);
    return o ? fb_rd_u32(t.buf + o) : def;
}

int32_t fb_i32(fb_table t, uint32_t field, int32_t def) { return (int32_t)fb_u32(t, field, (uint32_t)def); }

float fb_f32(fb_table t, uint32_t field, float def) {
    union { uint32_t u; float f; } v;
    v.f = def;
    v.u = fb_u32(t, field, v.u);
    return v.f;
}

/* Follow the uoffset stored at `at`; 0 if it leaves the buffer. */
static uint32_t follow(fb_table t, uint32_t at) {
    uint32_t rel = fb_rd_u32(t.buf + at);
    if (rel == 0 || rel > t.len - at) return 0;
    uint32_t target = at + rel;
    return in_bounds(t.len, target, 4) ? target : 0;
}

fb_table fb_table_field(fb_table t, uint32_t field) {
    fb_table r = fb_table_null;
    uint32_t o = fb_field(t, field, 4);
    if (!o) return r;
    uint32_t p = follow(t, o);
    if (!p) return r;
    r.buf = t.buf;
    r.len = t.len;
    r.pos = p;
    return r;
}

fb_vec fb_vec_field(fb_table t, uint32_t field, uint32_t elem_size) {
    fb_vec v = {0, 0, 0, 0};
    uint32_t o = fb_field(t, field, 4);
    if (!o) return v;
    uint32_t p = follow(t, o);
    if (!p) return v;
    uint32_t n = fb_rd_u32(t.buf + p);
    uint32_t room = t.len - p - 4;
    if (elem_size && n > room / elem_size) return v;
    v.buf = t.buf;
    v.len = t.len;
    v.pos = p + 4;
    v.count = n;
    return v;
}

fb_table fb_vec_table(fb_vec v, uint32_t i) {
    fb_table r = fb_table_null;
    if (i >= v.count) return r;
    fb_table base = {v.buf, v.len, 0};
    uint32_t p = follow(base, v.pos + 4u * i);
    if (!p) return r;
    r.buf = v.buf;
    r.len = v.len;
    r.pos = p;
    return r;
}

const char *fb_string(fb_table t, uint32_t field) {
    fb_vec v = fb_vec_field(t, field, 1);
    if (!v.buf) return 0;
    /* The terminating NUL must lie inside the buffer too. */
    if (v.count >= v.len - v.pos || v.buf[v.pos + v.count] != 0) return 0;
    return (const char *)(v.buf + v.pos);
}

int fb_table_ok(fb_table t) {
    const uint32_t v = vtable_of(t);
    if (v == UINT32_MAX || (fb_rd_u16(t.buf + v) & 1)) return 0;
    const uint32_t tbl_len = fb_rd_u16(t.buf + v + 2);
    if (tbl_len < 4 || !in_bounds(t.len, t.pos, tbl_len)) return 0;
    /* Tables and vtables are 4- and 2-byte aligned in a well-formed buffer. */
    if ((t.pos & 3) || (v & 1)) return 0;
    return 1;
}
