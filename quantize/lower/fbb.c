/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fbb.c — the FlatBuffers builder (see fbb.h).
 */
#include "fbb.h"

#include <stdlib.h>
#include <string.h>

/* FlatBuffers offsets are 32-bit; stay well inside the signed range. */
#define FBB_MAX_LEN ((size_t)0x7fffffff)

static void fail(fbb *b, const char *msg) {
    if (!b->error) b->error = msg;
}

int fbb_init(fbb *b, size_t initial) {
    memset(b, 0, sizeof *b);
    size_t cap = initial < 256 ? 256 : (initial + 15) & ~(size_t)15;
    b->buf = aligned_alloc(16, cap);
    if (!b->buf) {
        b->error = "out of memory";
        return -1;
    }
    b->cap = cap;
    b->minalign = 1;
    return 0;
}

void fbb_free(fbb *b) {
    free(b->buf);
    free(b->vtables);
    memset(b, 0, sizeof *b);
}

/* Room for `need` more bytes at the front. */
static int reserve(fbb *b, size_t need) {
    if (b->error) return -1;
    if (need > FBB_MAX_LEN - b->len) {
        fail(b, "the model is larger than a FlatBuffer can hold (2 GiB)");
        return -1;
    }
    if (b->cap - b->len >= need) return 0;
    size_t cap = b->cap;
    while (cap - b->len < need) cap = cap > FBB_MAX_LEN ? FBB_MAX_LEN + need : cap * 2;
    cap = (cap + 15) & ~(size_t)15;
    uint8_t *nb = aligned_alloc(16, cap);
    if (!nb) {
        fail(b, "out of memory");
        return -1;
    }
    memcpy(nb + cap - b->len, b->buf + b->cap - b->len, b->len);
    free(b->buf);
    b->buf = nb;
    b->cap = cap;
    return 0;
}

static uint8_t *front(fbb *b) { return b->buf + b->cap - b->len; }

static void pad(fbb *b, size_t n) {
    if (reserve(b, n)) return;
    b->len += n;
    memset(front(b), 0, n);
}

/* Pad so that after writing `size` more bytes the front is aligned to
 * `align` (a power of two). */
static void prealign(fbb *b, size_t size, size_t align) {
    if (align > b->minalign) b->minalign = align;
    size_t p = (~(b->len + size) + 1) & (align - 1);
    pad(b, p);
}

static void put_le(uint8_t *p, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void push_le(fbb *b, uint64_t v, size_t n) {
    if (reserve(b, n)) return;
    b->len += n;
    put_le(front(b), v, n);
}

static int in_table_misuse(fbb *b) {
    if (b->in_table) {
        fail(b, "internal: object made while a table is open");
        return 1;
    }
    return b->error != NULL;
}

fbb_ref fbb_vector(fbb *b, const void *data, size_t n, size_t elem_size, size_t align) {
    if (in_table_misuse(b)) return 0;
    if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8) {
        fail(b, "internal: bad vector element size");
        return 0;
    }
    if (n > FBB_MAX_LEN / elem_size) {
        fail(b, "the model is larger than a FlatBuffer can hold (2 GiB)");
        return 0;
    }
    if (align < elem_size) align = elem_size;
    size_t bytes = n * elem_size;
    prealign(b, bytes, align < 4 ? 4 : align);
    if (reserve(b, bytes)) return 0;
    b->len += bytes;
    uint8_t *p = front(b);
    const uint8_t *src = data;
    if (elem_size == 1) {
        if (bytes) memcpy(p, src, bytes);
    } else {
        for (size_t i = 0; i < n; i++) {
            uint64_t v = 0;
            switch (elem_size) {
            case 2: { uint16_t t; memcpy(&t, src + i * 2, 2); v = t; } break;
            case 4: { uint32_t t; memcpy(&t, src + i * 4, 4); v = t; } break;
            default: memcpy(&v, src + i * 8, 8); break;
            }
            put_le(p + i * elem_size, v, elem_size);
        }
    }
    push_le(b, (uint32_t)n, 4);
    return b->error ? 0 : (fbb_ref)b->len;
}

fbb_ref fbb_vector_i32(fbb *b, const int32_t *v, size_t n) { return fbb_vector(b, v, n, 4, 0); }
fbb_ref fbb_vector_f32(fbb *b, const float *v, size_t n) { return fbb_vector(b, v, n, 4, 0); }
fbb_ref fbb_vector_i64(fbb *b, const int64_t *v, size_t n) { return fbb_vector(b, v, n, 8, 0); }

fbb_ref fbb_string(fbb *b, const char *s) {
    if (in_table_misuse(b)) return 0;
    if (!s) s = "";
    size_t n = strlen(s);
    if (n >= FBB_MAX_LEN) {
        fail(b, "string too long");
        return 0;
    }
    prealign(b, n + 1, 4);
    if (reserve(b, n + 1)) return 0;
    b->len += n + 1;
    memcpy(front(b), s, n);
    front(b)[n] = 0;
    push_le(b, (uint32_t)n, 4);
    return b->error ? 0 : (fbb_ref)b->len;
}

fbb_ref fbb_vector_refs(fbb *b, const fbb_ref *refs, size_t n) {
    if (in_table_misuse(b)) return 0;
    if (n > FBB_MAX_LEN / 4) {
        fail(b, "vector too long");
        return 0;
    }
    prealign(b, n * 4, 4);
    if (reserve(b, n * 4 + 4)) return 0;
    /* Element i sits at distance len + 4*(n - i) from the end once all n
     * are written; it points forward to refs[i]. */
    size_t base = b->len;
    b->len += n * 4;
    uint8_t *p = front(b);
    for (size_t i = 0; i < n; i++) {
        size_t at = base + 4 * (n - i);
        if (refs[i] == 0 || refs[i] >= at) {
            fail(b, "internal: vector element refers to a missing or later object");
            return 0;
        }
        put_le(p + 4 * i, (uint32_t)(at - refs[i]), 4);
    }
    push_le(b, (uint32_t)n, 4);
    return b->error ? 0 : (fbb_ref)b->len;
}

void fbb_table_start(fbb *b) {
    if (in_table_misuse(b)) return;
    b->in_table = 1;
    b->table_start = b->len;
    b->max_field = 0;
    memset(b->field_at, 0, sizeof b->field_at);
}

static int field_ok(fbb *b, int field) {
    if (b->error) return 0;
    if (!b->in_table || field < 0 || field >= FBB_MAX_FIELDS) {
        fail(b, "internal: field outside a table or bad field id");
        return 0;
    }
    return 1;
}

static void add_scalar(fbb *b, int field, uint64_t v, size_t size) {
    if (!field_ok(b, field)) return;
    prealign(b, size, size);
    push_le(b, v, size);
    if (b->error) return;
    b->field_at[field] = (uint32_t)b->len;
    if (field + 1 > b->max_field) b->max_field = field + 1;
}

void fbb_add_u8(fbb *b, int field, uint8_t v, uint8_t dflt) {
    if (v != dflt) add_scalar(b, field, v, 1);
}
void fbb_add_i8(fbb *b, int field, int8_t v, int8_t dflt) {
    if (v != dflt) add_scalar(b, field, (uint8_t)v, 1);
}
void fbb_add_i32(fbb *b, int field, int32_t v, int32_t dflt) {
    if (v != dflt) add_scalar(b, field, (uint32_t)v, 4);
}
void fbb_add_u32(fbb *b, int field, uint32_t v, uint32_t dflt) {
    if (v != dflt) add_scalar(b, field, v, 4);
}
void fbb_add_i64(fbb *b, int field, int64_t v, int64_t dflt) {
    if (v != dflt) add_scalar(b, field, (uint64_t)v, 8);
}
void fbb_add_f32(fbb *b, int field, float v, float dflt) {
    if (memcmp(&v, &dflt, sizeof v) == 0) return;
    uint32_t u;
    memcpy(&u, &v, 4);
    add_scalar(b, field, u, 4);
}

void fbb_add_ref(fbb *b, int field, fbb_ref r) {
    if (r == 0 || !field_ok(b, field)) return;
    prealign(b, 4, 4);
    if (reserve(b, 4)) return;
    b->len += 4;
    if (r >= b->len) {
        fail(b, "internal: field refers to a later object");
        return;
    }
    put_le(front(b), (uint32_t)(b->len - r), 4);
    b->field_at[field] = (uint32_t)b->len;
    if (field + 1 > b->max_field) b->max_field = field + 1;
}

fbb_ref fbb_table_end(fbb *b) {
    if (b->error) return 0;
    if (!b->in_table) {
        fail(b, "internal: table end without a start");
        return 0;
    }
    prealign(b, 4, 4);
    push_le(b, 0, 4); /* the vtable offset, patched below */
    if (b->error) return 0;
    b->in_table = 0;
    size_t table = b->len;
    size_t obj_size = table - b->table_start;
    size_t vt_size = 4 + 2 * (size_t)b->max_field;
    if (obj_size > 0xffff) {
        fail(b, "internal: table too large");
        return 0;
    }
    uint8_t vt[4 + 2 * FBB_MAX_FIELDS];
    put_le(vt, vt_size, 2);
    put_le(vt + 2, obj_size, 2);
    for (int f = 0; f < b->max_field; f++)
        put_le(vt + 4 + 2 * f, b->field_at[f] ? table - b->field_at[f] : 0, 2);

    /* Share an identical vtable written earlier. */
    size_t vt_at = 0;
    for (size_t i = 0; i < b->n_vtables; i++) {
        const uint8_t *o = b->buf + b->cap - b->vtables[i];
        if (o[0] == vt[0] && o[1] == vt[1] && memcmp(o, vt, vt_size) == 0) {
            vt_at = b->vtables[i];
            break;
        }
    }
    if (!vt_at) {
        if (reserve(b, vt_size)) return 0;
        b->len += vt_size;
        memcpy(front(b), vt, vt_size);
        vt_at = b->len;
        if (b->n_vtables == b->cap_vtables) {
            size_t nc = b->cap_vtables ? b->cap_vtables * 2 : 64;
            uint32_t *nv = realloc(b->vtables, nc * sizeof *nv);
            if (!nv) {
                fail(b, "out of memory");
                return 0;
            }
            b->vtables = nv;
            b->cap_vtables = nc;
        }
        b->vtables[b->n_vtables++] = (uint32_t)vt_at;
    }
    /* vtable address = table address - soffset */
    int32_t soff = (int32_t)((int64_t)vt_at - (int64_t)table);
    put_le(b->buf + b->cap - table, (uint32_t)soff, 4);
    return (fbb_ref)table;
}

int fbb_finish(fbb *b, fbb_ref root, const char *ident, const uint8_t **out, size_t *len,
               const char **err) {
    if (!b->error && b->in_table) fail(b, "internal: finish with a table open");
    if (!b->error && (root == 0 || root > b->len)) fail(b, "internal: bad root");
    if (!b->error) {
        prealign(b, 4 + (ident ? 4 : 0), b->minalign < 4 ? 4 : b->minalign);
        if (ident) {
            if (!reserve(b, 4)) {
                b->len += 4;
                memcpy(front(b), ident, 4);
            }
        }
        prealign(b, 4, 4);
        if (!reserve(b, 4)) {
            b->len += 4;
            put_le(front(b), (uint32_t)(b->len - root), 4);
        }
    }
    if (b->error) {
        if (err) *err = b->error;
        return -1;
    }
    *out = front(b);
    *len = b->len;
    return 0;
}
