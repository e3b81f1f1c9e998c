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

uint32_t fb_field(fb_table t, uint32_t field, uint32_t size) {
    if (t.pos == 0 || !in_bounds(t.len, t.pos, 4)) return 0;
    /* The vtable sits at pos - soffset (signed). */
    int64_t vt = (int64_t)t.pos - (int64_t)fb_rd_i32(t.buf + t.pos);
    if (vt < 0 || vt > (int64_t)t.len - 4) return 0;
    uint32_t v = (uint32_t)vt;
    uint16_t vt_len = fb_rd_u16(t.buf + v);
    uint16_t tbl_len = fb_rd_u16(t.buf + v + 2);
    if (vt_len < 4 || !in_bounds(t.len, v, vt_len)) return 0;
    uint32_t slot = 4u + 2u * field;
    if (field > 0x7fff || slot + 2u > vt_len) return 0;
    uint16_t off = fb_rd_u16(t.buf + v + slot);
    if (off == 0) return 0;
    if ((uint32_t)off + size > tbl_len) return 0;
    if (!in_bounds(t.len, t.pos, (uint32_t)off + size)) return 0;
    return t.pos + off;
}

int fb_has(fb_table t, uint32_t field) { return fb_field(t, field, 1) != 0; }

uint8_t fb_u8(fb_table t, uint32_t field, uint8_t def) {
    uint32_t o = fb_field(t, field, 1);
    return o ? t.buf[o] : def;
}

int8_t fb_i8(fb_table t, uint32_t field, int8_t def) {
    uint32_t o = fb_field(t, field, 1);
    return o ? (int8_t)t.buf[o] : def;
}

int32_t fb_i32(fb_table t, uint32_t field, int32_t def) {
    uint32_t o = fb_field(t, field, 4);
    return o ? fb_rd_i32(t.buf + o) : def;
}

uint32_t fb_u32(fb_table t, uint32_t field, uint32_t def) {
    uint32_t o = fb_field(t, field, 4);
    return o ? fb_rd_u32(t.buf + o) : def;
}

uint64_t fb_u64(fb_table t, uint32_t field, uint64_t def) {
    uint32_t o = fb_field(t, field, 8);
    return o ? fb_rd_u64(t.buf + o) : def;
}

float fb_f32(fb_table t, uint32_t field, float def) {
    uint32_t o = fb_field(t, field, 4);
    return o ? fb_rd_f32(t.buf + o) : def;
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
    if (t.pos == 0 || !in_bounds(t.len, t.pos, 4)) return 0;
    int64_t vt = (int64_t)t.pos - (int64_t)fb_rd_i32(t.buf + t.pos);
    if (vt < 0 || vt > (int64_t)t.len - 4) return 0;
    uint32_t v = (uint32_t)vt;
    uint16_t vt_len = fb_rd_u16(t.buf + v);
    uint16_t tbl_len = fb_rd_u16(t.buf + v + 2);
    if (vt_len < 4 || (vt_len & 1) || !in_bounds(t.len, v, vt_len)) return 0;
    if (tbl_len < 4 || !in_bounds(t.len, t.pos, tbl_len)) return 0;
    /* Tables and vtables are 4- and 2-byte aligned in a well-formed buffer. */
    if ((t.pos & 3) || (v & 1)) return 0;
    return 1;
}
