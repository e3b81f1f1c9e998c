/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image_load.c — PNG, BMP and PGM/PPM decoders for calibration images, and
 * the conversion of an image into a model input sample (see image_load.h).
 *
 * Every read is bounds-checked against the buffer: these parse files from
 * anywhere. PNG's zlib stream is inflated here too (RFC 1950/1951, a
 * canonical-Huffman decoder in the manner of zlib's puff.c): edgeq then
 * needs no libz, and the decoder never writes past the size the PNG header
 * implies.
 */
#include "image_load.h"
#include "err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[1] << 8 | p[0]); }

edgeq_image_kind edgeq_image_sniff(const uint8_t *buf, size_t len) {
    static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (len >= 8 && memcmp(buf, png_sig, 8) == 0) return EDGEQ_IMAGE_PNG;
    if (len >= 2 && buf[0] == 'B' && buf[1] == 'M') return EDGEQ_IMAGE_BMP;
    if (len >= 3 && buf[0] == 'P' && strchr("2356", buf[1]) && buf[1] &&
        strchr(" \t\n\r#", buf[2]) && buf[2])
        return EDGEQ_IMAGE_PNM;
    if (len >= 3 && buf[0] == 0xFF && buf[1] == 0xD8 && buf[2] == 0xFF) return EDGEQ_IMAGE_JPEG;
    return EDGEQ_IMAGE_NONE;
}

void edgeq_image_free(edgeq_image *img) {
    free(img->px);
    memset(img, 0, sizeof *img);
}

static int image_alloc(edgeq_image *img, int w, int h, int c, const char *name, char *err,
                       size_t err_len) {
    if (w < 1 || h < 1 || w > EDGEQ_IMAGE_MAX_DIM || h > EDGEQ_IMAGE_MAX_DIM)
        return edgeq_fail(err, err_len, "%s: image size %dx%d (1 to %d pixels a side)", name, w, h,
                    EDGEQ_IMAGE_MAX_DIM);
    img->px = malloc((size_t)w * (size_t)h * (size_t)c * sizeof *img->px);
    if (!img->px) return edgeq_fail(err, err_len, "%s: out of memory for a %dx%d image", name, w, h);
    img->w = w;
    img->h = h;
    img->c = c;
    return 0;
}


/* ======================= inflate (RFC 1950 / 1951) ======================= */

typedef struct inf_state {
    const uint8_t *in;
    size_t in_len, in_pos;
    uint32_t bitbuf;
    int bitcnt;
    uint8_t *out;
    size_t out_len, out_pos;
} inf_state;

/* Next n bits (n <= 16), LSB first; -1 at the end of the input. */
static long inf_bits(inf_state *s, int n) {
    while (s->bitcnt < n) {
        if (s->in_pos >= s->in_len) return -1;
        s->bitbuf |= (uint32_t)s->in[s->in_pos++] << s->bitcnt;
        s->bitcnt += 8;
    }
    long v = (long)(s->bitbuf & ((1u << n) - 1u));
    s->bitbuf >>= n;
    s->bitcnt -= n;
    return v;
}

#define INF_MAXBITS 15

typedef struct huff {
    short count[INF_MAXBITS + 1]; /* codes of each length */
    short symbol[320];            /* symbols ordered by code */
} huff;

/* Canonical code from code lengths; -1 when over-subscribed. Incomplete
 * codes are accepted: decoding a missing code fails cleanly. */
static int huff_build(huff *h, const short *length, int n) {
    short offs[INF_MAXBITS + 1];
    memset(h->count, 0, sizeof h->count);
    for (int i = 0; i < n; i++) h->count[length[i]]++;
    if (h->count[0] == n) return 0;
    int left = 1;
    for (int len = 1; len <= INF_MAXBITS; len++) {
        left <<= 1;
        left -= h->count[len];
        if (left < 0) return -1;
    }
    offs[1] = 0;
    for (int len = 1; len < INF_MAXBITS; len++) offs[len + 1] = (short)(offs[len] + h->count[len]);
    for (int i = 0; i < n; i++)
        if (length[i]) h->symbol[offs[length[i]]++] = (short)i;
    return 0;
}

static int huff_decode(inf_state *s, const huff *h) {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= INF_MAXBITS; len++) {
        long b = inf_bits(s, 1);
        if (b < 0) return -1;
        code |= (int)b;
        int count = h->count[len];
        if (code - count < first) return h->symbol[index + (code - first)];
        index += count;
        first += count;
        first <<= 1;
        code <<= 1;
    }
    return -1;
}

static int inf_codes(inf_state *s, const huff *lencode, const huff *distcode) {
    static const short lbase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                   2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const short dbase[30] = {1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                    33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                   6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    for (;;) {
        int sym = huff_decode(s, lencode);
        if (sym < 0) return -1;
        if (sym < 256) {
            if (s->out_pos >= s->out_len) return -1;
            s->out[s->out_pos++] = (uint8_t)sym;
        } else if (sym == 256) {
            return 0;
        } else {
            sym -= 257;
            if (sym >= 29) return -1;
            long e = inf_bits(s, lext[sym]);
            if (e < 0) return -1;
            size_t len = (size_t)(lbase[sym] + e);
            int ds = huff_decode(s, distcode);
            if (ds < 0 || ds >= 30) return -1;
            e = inf_bits(s, dext[ds]);
            if (e < 0) return -1;
            size_t dist = (size_t)(dbase[ds] + e);
            if (dist > s->out_pos || len > s->out_len - s->out_pos) return -1;
            for (size_t i = 0; i < len; i++, s->out_pos++)
                s->out[s->out_pos] = s->out[s->out_pos - dist];
        }
    }
}

static int inf_stored(inf_state *s) {
    s->bitbuf = 0;
    s->bitcnt = 0; /* skip to the byte boundary */
    if (s->in_len - s->in_pos < 4) return -1;
    const uint8_t *p = s->in + s->in_pos;
    unsigned len = (unsigned)p[0] | (unsigned)p[1] << 8;
    unsigned nlen = (unsigned)p[2] | (unsigned)p[3] << 8;
    if (len != (~nlen & 0xffffu)) return -1;
    s->in_pos += 4;
    if (len > s->in_len - s->in_pos || len > s->out_len - s->out_pos) return -1;
    memcpy(s->out + s->out_pos, s->in + s->in_pos, len);
    s->in_pos += len;
    s->out_pos += len;
    return 0;
}

static int inf_fixed(inf_state *s) {
    huff lc, dc;
    short len[288];
    int i = 0;
    for (; i < 144; i++) len[i] = 8;
    for (; i < 256; i++) len[i] = 9;
    for (; i < 280; i++) len[i] = 7;
    for (; i < 288; i++) len[i] = 8;
    huff_build(&lc, len, 288);
    for (i = 0; i < 30; i++) len[i] = 5;
    huff_build(&dc, len, 30);
    return inf_codes(s, &lc, &dc);
}

static int inf_dynamic(inf_state *s) {
    static const short order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                    11, 4,  12, 3, 13, 2, 14, 1, 15};
    short lengths[320];
    huff lc, dc;
    long nlen = inf_bits(s, 5), ndist = inf_bits(s, 5), ncode = inf_bits(s, 4);
    if (nlen < 0 || ndist < 0 || ncode < 0) return -1;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > 286 || ndist > 30) return -1;
    int i;
    for (i = 0; i < ncode; i++) {
        long v = inf_bits(s, 3);
        if (v < 0) return -1;
        lengths[order[i]] = (short)v;
    }
    for (; i < 19; i++) lengths[order[i]] = 0;
    if (huff_build(&lc, lengths, 19) != 0) return -1;
    int idx = 0;
    while (idx < nlen + ndist) {
        int sym = huff_decode(s, &lc);
        if (sym < 0) return -1;
        if (sym < 16) {
            lengths[idx++] = (short)sym;
            continue;
        }
        short rep = 0;
        long n;
        if (sym == 16) {
            if (idx == 0) return -1;
            rep = lengths[idx - 1];
            n = inf_bits(s, 2);
            if (n < 0) return -1;
            n += 3;
        } else if (sym == 17) {
            n = inf_bits(s, 3);
            if (n < 0) return -1;
            n += 3;
        } else {
            n = inf_bits(s, 7);
            if (n < 0) return -1;
            n += 11;
        }
        if (idx + n > nlen + ndist) return -1;
        while (n--) lengths[idx++] = rep;
    }
    if (lengths[256] == 0) return -1; /* no end-of-block code */
    if (huff_build(&lc, lengths, (int)nlen) != 0 ||
        huff_build(&dc, lengths + nlen, (int)ndist) != 0)
        return -1;
    return inf_codes(s, &lc, &dc);
}

/* Inflate a zlib stream into out[out_len]; returns the bytes produced, or
 * -1 when the stream is corrupt, truncated, fails its Adler-32, or would
 * produce more than out_len bytes. */
static long zlib_inflate(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len) {
    if (in_len < 6) return -1;
    if ((in[0] & 0x0f) != 8 || (in[0] >> 4) > 7 || (in[1] & 0x20) ||
        ((unsigned)in[0] << 8 | in[1]) % 31 != 0)
        return -1;
    inf_state s;
    memset(&s, 0, sizeof s);
    s.in = in;
    s.in_len = in_len;
    s.in_pos = 2;
    s.out = out;
    s.out_len = out_len;
    long last;
    do {
        last = inf_bits(&s, 1);
        long type = inf_bits(&s, 2);
        if (last < 0 || type < 0) return -1;
        int r = type == 0   ? inf_stored(&s)
                : type == 1 ? inf_fixed(&s)
                : type == 2 ? inf_dynamic(&s)
                            : -1;
        if (r != 0) return -1;
    } while (!last);
    if (s.in_len - s.in_pos < 4) return -1; /* the Adler-32 (whole bytes after the stream) */
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < s.out_pos; i++) {
        a = (a + s.out[i]) % 65521u;
        b = (b + a) % 65521u;
    }
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if (be32(s.in + s.in_pos) != (b << 16 | a)) return -1;
#endif
    return (long)s.out_pos;
}

static uint32_t crc32_png(const uint8_t *p, size_t n) {
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* ======================= PNG ======================= */

typedef struct png_info {
    uint32_t w, h;
    int depth, ctype, interlace;
    int samples; /* per pixel in the file: 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA, 1 palette */
    uint8_t plte[256][3];
    int n_plte;
} png_info;

static int paeth(int a, int b, int c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Unfilter `rows` scanlines of `rowbytes` bytes each (after their filter
 * byte) in place; bpp = bytes per complete pixel (at least 1). */
static int png_unfilter(uint8_t *data, size_t rows, size_t rowbytes, size_t bpp) {
    uint8_t *prev = NULL;
    for (size_t r = 0; r < rows; r++) {
        uint8_t *line = data + r * (rowbytes + 1);
        int ft = line[0];
        uint8_t *cur = line + 1;
        for (size_t i = 0; i < rowbytes; i++) {
            int a = i >= bpp ? cur[i - bpp] : 0;
            int b = prev ? prev[i] : 0;
            int c = prev && i >= bpp ? prev[i - bpp] : 0;
            int v = cur[i];
            switch (ft) {
            case 0: break;
            case 1: v += a; break;
            case 2: v += b; break;
            case 3: v += (a + b) / 2; break;
            case 4: v += paeth(a, b, c); break;
            default: return -1;
            }
            cur[i] = (uint8_t)v;
        }
        prev = cur;
    }
    return 0;
}

/* Sample s (0-based, counting every sample of the row) of a row. */
static unsigned png_sample(const uint8_t *row, size_t s, int depth) {
    switch (depth) {
    case 16: return (unsigned)row[2 * s] << 8 | row[2 * s + 1];
    case 8: return row[s];
    default: {
        size_t bit = s * (size_t)depth;
        unsigned byte = row[bit / 8];
        unsigned shift = 8u - (unsigned)depth - (unsigned)(bit % 8);
        return (byte >> shift) & ((1u << depth) - 1u);
    }
    }
}

static size_t png_rowbytes(const png_info *p, uint32_t w) {
    return ((size_t)w * (size_t)p->samples * (size_t)p->depth + 7) / 8;
}

/* Write the unfiltered sub-image (pw x ph, at x0 + i*dx, y0 + j*dy) into img. */
static int png_emit(const png_info *p, const uint8_t *data, uint32_t pw, uint32_t ph, int x0,
                    int y0, int dx, int dy, edgeq_image *img) {
    size_t rb = png_rowbytes(p, pw);
    float maxv = (float)((1u << p->depth) - 1u);
    for (uint32_t j = 0; j < ph; j++) {
        const uint8_t *row = data + j * (rb + 1) + 1;
        for (uint32_t i = 0; i < pw; i++) {
            size_t x = (size_t)x0 + (size_t)i * (size_t)dx, y = (size_t)y0 + (size_t)j * (size_t)dy;
            float *o = img->px + (y * (size_t)img->w + x) * (size_t)img->c;
            size_t s0 = (size_t)i * (size_t)p->samples;
            if (p->ctype == 3) {
                unsigned idx = png_sample(row, s0, p->depth);
                if ((int)idx >= p->n_plte) return -1;
                for (int c = 0; c < 3; c++) o[c] = p->plte[idx][c];
            } else {
                int nc = p->ctype == 0 || p->ctype == 4 ? 1 : 3;
                for (int c = 0; c < nc; c++)
                    o[c] = (float)png_sample(row, s0 + (size_t)c, p->depth) * 255.0f / maxv;
            }
        }
    }
    return 0;
}

static int png_decode(const uint8_t *buf, size_t len, const char *name, edgeq_image *img,
                      char *err, size_t err_len) {
    png_info p;
    memset(&p, 0, sizeof p);
    int seen_ihdr = 0, seen_iend = 0;
    uint8_t *z = NULL, *raw = NULL;
    size_t zlen = 0, zcap = 0;
    int rc = -1;
    size_t at = 8;
    while (at < len && !seen_iend) {
        if (len - at < 12) {
            edgeq_fail(err, err_len, "%s: PNG truncated (a chunk header at byte %zu)", name, at);
            goto out;
        }
        uint32_t clen = be32(buf + at);
        const uint8_t *type = buf + at + 4, *cd = buf + at + 8;
        if (clen > len - at - 12) {
            edgeq_fail(err, err_len, "%s: PNG truncated (chunk '%.4s' of %u bytes at byte %zu)", name,
                 (const char *)type, clen, at);
            goto out;
        }
        uint32_t crc = crc32_png(type, (size_t)clen + 4);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        crc = be32(cd + clen); /* let fuzzers past the checksums */
#endif
        if (crc != be32(cd + clen)) {
            edgeq_fail(err, err_len, "%s: PNG chunk '%.4s' at byte %zu fails its CRC", name,
                 (const char *)type, at);
            goto out;
        }
        if (!seen_ihdr && memcmp(type, "IHDR", 4) != 0) {
            edgeq_fail(err, err_len, "%s: PNG does not start with an IHDR chunk", name);
            goto out;
        }
        if (memcmp(type, "IHDR", 4) == 0) {
            if (clen != 13 || seen_ihdr) {
                edgeq_fail(err, err_len, "%s: bad PNG IHDR chunk", name);
                goto out;
            }
            seen_ihdr = 1;
            p.w = be32(cd);
            p.h = be32(cd + 4);
            p.depth = cd[8];
            p.ctype = cd[9];
            p.interlace = cd[12];
            int d = p.depth, ok;
            switch (p.ctype) {
            case 0: ok = d == 1 || d == 2 || d == 4 || d == 8 || d == 16, p.samples = 1; break;
            case 2: ok = d == 8 || d == 16, p.samples = 3; break;
            case 3: ok = d == 1 || d == 2 || d == 4 || d == 8, p.samples = 1; break;
            case 4: ok = d == 8 || d == 16, p.samples = 2; break;
            case 6: ok = d == 8 || d == 16, p.samples = 4; break;
            default: ok = 0;
            }
            if (!ok || cd[10] != 0 || cd[11] != 0 || p.interlace > 1) {
                edgeq_fail(err, err_len,
                     "%s: unsupported PNG (colour type %d, bit depth %d, compression %d, "
                     "filter %d, interlace %d)",
                     name, p.ctype, d, cd[10], cd[11], p.interlace);
                goto out;
            }
            if (p.w < 1 || p.h < 1 || p.w > EDGEQ_IMAGE_MAX_DIM || p.h > EDGEQ_IMAGE_MAX_DIM) {
                edgeq_fail(err, err_len, "%s: image size %ux%u (1 to %d pixels a side)", name, p.w, p.h,
                     EDGEQ_IMAGE_MAX_DIM);
                goto out;
            }
        } else if (memcmp(type, "PLTE", 4) == 0) {
            if (clen % 3 != 0 || clen / 3 > 256 || clen == 0) {
                edgeq_fail(err, err_len, "%s: bad PNG palette (%u bytes)", name, clen);
                goto out;
            }
            p.n_plte = (int)(clen / 3);
            memcpy(p.plte, cd, clen);
        } else if (memcmp(type, "IDAT", 4) == 0) {
            if (clen == 0) {
                /* an empty IDAT adds nothing */
            } else if (zlen + clen > zcap) {
                size_t cap = (zlen + clen) * 2;
                uint8_t *nz = realloc(z, cap);
                if (!nz) {
                    edgeq_fail(err, err_len, "%s: out of memory", name);
                    goto out;
                }
                z = nz;
                zcap = cap;
            }
            if (clen) memcpy(z + zlen, cd, clen);
            zlen += clen;
        } else if (memcmp(type, "IEND", 4) == 0) {
            seen_iend = 1;
        } else if (!(type[0] & 0x20)) { /* critical chunk we do not know */
            edgeq_fail(err, err_len, "%s: unknown critical PNG chunk '%.4s'", name, (const char *)type);
            goto out;
        }
        at += 12 + (size_t)clen;
    }
    if (seen_ihdr && !seen_iend) {
        edgeq_fail(err, err_len, "%s: PNG truncated (no IEND chunk)", name);
        goto out;
    }
    if (!seen_ihdr || !zlen) {
        edgeq_fail(err, err_len, "%s: PNG has no %s", name, seen_ihdr ? "image data (IDAT)" : "IHDR");
        goto out;
    }
    if (p.ctype == 3 && !p.n_plte) {
        edgeq_fail(err, err_len, "%s: palette PNG without a PLTE chunk", name);
        goto out;
    }

    static const int a7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                 {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
    int passes = p.interlace ? 7 : 1;
    size_t total = 0;
    uint32_t pw[7], ph[7];
    for (int k = 0; k < passes; k++) {
        int x0 = p.interlace ? a7[k][0] : 0, y0 = p.interlace ? a7[k][1] : 0;
        int dx = p.interlace ? a7[k][2] : 1, dy = p.interlace ? a7[k][3] : 1;
        pw[k] = p.w > (uint32_t)x0 ? (p.w - (uint32_t)x0 + (uint32_t)dx - 1) / (uint32_t)dx : 0;
        ph[k] = p.h > (uint32_t)y0 ? (p.h - (uint32_t)y0 + (uint32_t)dy - 1) / (uint32_t)dy : 0;
        if (pw[k] && ph[k]) total += (size_t)ph[k] * (png_rowbytes(&p, pw[k]) + 1);
    }
    /* Deflate expands at most ~1032:1: a header promising more than the
     * data can hold is refused before allocating for it. */
    if (total / 1032 > zlen + 64) {
        edgeq_fail(err, err_len, "%s: PNG image data truncated (%zu bytes for a %ux%u image)", name,
             zlen, p.w, p.h);
        goto out;
    }
    raw = malloc(total + 1);
    if (!raw) {
        edgeq_fail(err, err_len, "%s: out of memory", name);
        goto out;
    }
    long got = zlib_inflate(z, zlen, raw, total);
    if (got < 0 || (size_t)got != total) {
        edgeq_fail(err, err_len, "%s: PNG image data is corrupt or truncated (%s)", name,
             got < 0 ? "bad zlib stream" : "too few bytes");
        goto out;
    }
    int outc = p.ctype == 0 || p.ctype == 4 ? 1 : 3;
    if (image_alloc(img, (int)p.w, (int)p.h, outc, name, err, err_len) != 0) goto out;
    size_t bpp = ((size_t)p.samples * (size_t)p.depth + 7) / 8;
    size_t off = 0;
    for (int k = 0; k < passes; k++) {
        if (!pw[k] || !ph[k]) continue;
        size_t rb = png_rowbytes(&p, pw[k]);
        if (png_unfilter(raw + off, ph[k], rb, bpp) != 0) {
            edgeq_fail(err, err_len, "%s: PNG scanline with an unknown filter type", name);
            goto out;
        }
        int x0 = p.interlace ? a7[k][0] : 0, y0 = p.interlace ? a7[k][1] : 0;
        int dx = p.interlace ? a7[k][2] : 1, dy = p.interlace ? a7[k][3] : 1;
        if (png_emit(&p, raw + off, pw[k], ph[k], x0, y0, dx, dy, img) != 0) {
            edgeq_fail(err, err_len, "%s: PNG palette index beyond its %d-entry palette", name,
                 p.n_plte);
            goto out;
        }
        off += (size_t)ph[k] * (rb + 1);
    }
    rc = 0;
out:
    free(z);
    free(raw);
    return rc;
}

/* ======================= BMP ======================= */

static int bmp_decode(const uint8_t *buf, size_t len, const char *name, edgeq_image *img,
                      char *err, size_t err_len) {
    if (len < 26) return edgeq_fail(err, err_len, "%s: BMP truncated (%zu bytes)", name, len);
    uint32_t data_off = le32(buf + 10), hsize = le32(buf + 14);
    int32_t w, h;
    int bpp, comp = 0;
    uint32_t colors = 0;
    size_t pal_entry = 4;
    if (hsize == 12) {
        w = le16(buf + 18);
        h = (int16_t)le16(buf + 20);
        bpp = le16(buf + 24);
        pal_entry = 3;
    } else if (hsize >= 40 && hsize <= 1024) {
        if (len < 14 + (size_t)hsize) return edgeq_fail(err, err_len, "%s: BMP header truncated", name);
        w = (int32_t)le32(buf + 18);
        h = (int32_t)le32(buf + 22);
        bpp = le16(buf + 28);
        comp = (int)le32(buf + 30);
        colors = le32(buf + 46);
    } else {
        return edgeq_fail(err, err_len, "%s: unsupported BMP header (%u bytes)", name, hsize);
    }
    int top_down = h < 0;
    if (h == INT32_MIN) return edgeq_fail(err, err_len, "%s: bad BMP height", name);
    if (top_down) h = -h;
    if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32)
        return edgeq_fail(err, err_len, "%s: BMP with %d bits per pixel (supported: 1, 4, 8, 24, 32)",
                    name, bpp);
    if (comp == 3 && bpp == 32) {
        /* BI_BITFIELDS: masks follow a 40-byte header, or sit inside V4/V5. */
        size_t mo = 14 + 40;
        if (len < mo + 12) return edgeq_fail(err, err_len, "%s: BMP truncated", name);
        if (le32(buf + mo) != 0x00FF0000u || le32(buf + mo + 4) != 0x0000FF00u ||
            le32(buf + mo + 8) != 0x000000FFu)
            return edgeq_fail(err, err_len, "%s: 32-bit BMP with unusual colour masks", name);
    } else if (comp != 0) {
        return edgeq_fail(err, err_len,
                    "%s: compressed BMP (compression %d): only uncompressed BMPs are supported",
                    name, comp);
    }
    if (w < 1 || h < 1 || w > EDGEQ_IMAGE_MAX_DIM || h > EDGEQ_IMAGE_MAX_DIM)
        return edgeq_fail(err, err_len, "%s: image size %dx%d (1 to %d pixels a side)", name, (int)w,
                    (int)h, EDGEQ_IMAGE_MAX_DIM);
    uint8_t pal[256][3];
    if (bpp <= 8) {
        uint32_t maxc = 1u << bpp;
        if (colors == 0 || colors > maxc) colors = maxc;
        size_t po = 14 + (size_t)hsize + (comp == 3 && hsize == 40 ? 12 : 0);
        if (po + colors * pal_entry > len)
            return edgeq_fail(err, err_len, "%s: BMP palette truncated", name);
        for (uint32_t i = 0; i < colors; i++) { /* stored B, G, R */
            pal[i][0] = buf[po + i * pal_entry + 2];
            pal[i][1] = buf[po + i * pal_entry + 1];
            pal[i][2] = buf[po + i * pal_entry];
        }
    }
    size_t stride = (((size_t)w * (size_t)bpp + 31) / 32) * 4;
    if (data_off > len || stride * (size_t)h > len - data_off)
        return edgeq_fail(err, err_len, "%s: BMP pixel data truncated (%zu bytes needed from byte %u)",
                    name, stride * (size_t)h, data_off);
    if (image_alloc(img, w, h, 3, name, err, err_len) != 0) return -1;
    for (int y = 0; y < h; y++) {
        const uint8_t *row = buf + data_off + (size_t)(top_down ? y : h - 1 - y) * stride;
        float *o = img->px + (size_t)y * (size_t)w * 3;
        for (int x = 0; x < w; x++, o += 3) {
            if (bpp >= 24) {
                const uint8_t *q = row + (size_t)x * (size_t)(bpp / 8);
                o[0] = q[2], o[1] = q[1], o[2] = q[0];
            } else {
                size_t bit = (size_t)x * (size_t)bpp;
                unsigned idx = (row[bit / 8] >> (8u - (unsigned)bpp - (unsigned)(bit % 8))) &
                               ((1u << bpp) - 1u);
                if (idx >= colors) {
                    edgeq_image_free(img);
                    return edgeq_fail(err, err_len, "%s: BMP palette index %u beyond its %u colours",
                                name, idx, colors);
                }
                o[0] = pal[idx][0], o[1] = pal[idx][1], o[2] = pal[idx][2];
            }
        }
    }
    return 0;
}

/* ======================= PGM / PPM ======================= */

/* Next header integer, skipping whitespace and '#' comments. */
static int pnm_int(const uint8_t *buf, size_t len, size_t *at, long *v) {
    size_t i = *at;
    for (;;) {
        while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r' ||
                           buf[i] == '\f' || buf[i] == '\v'))
            i++;
        if (i < len && buf[i] == '#') {
            while (i < len && buf[i] != '\n' && buf[i] != '\r') i++;
            continue;
        }
        break;
    }
    if (i >= len || buf[i] < '0' || buf[i] > '9') return -1;
    long x = 0;
    while (i < len && buf[i] >= '0' && buf[i] <= '9') {
        x = x * 10 + (buf[i] - '0');
        if (x > 1L << 30) return -1;
        i++;
    }
    *v = x;
    *at = i;
    return 0;
}

static int pnm_decode(const uint8_t *buf, size_t len, const char *name, edgeq_image *img,
                      char *err, size_t err_len) {
    int kind = buf[1] - '0';
    int c = kind == 3 || kind == 6 ? 3 : 1;
    size_t at = 2;
    long w, h, maxv;
    if (pnm_int(buf, len, &at, &w) || pnm_int(buf, len, &at, &h) ||
        pnm_int(buf, len, &at, &maxv))
        return edgeq_fail(err, err_len, "%s: bad P%d header (width, height, maxval)", name, kind);
    if (maxv < 1 || maxv > 65535)
        return edgeq_fail(err, err_len, "%s: P%d maxval %ld (1 to 65535)", name, kind, maxv);
    if (image_alloc(img, (int)(w > EDGEQ_IMAGE_MAX_DIM ? EDGEQ_IMAGE_MAX_DIM + 1 : w),
                    (int)(h > EDGEQ_IMAGE_MAX_DIM ? EDGEQ_IMAGE_MAX_DIM + 1 : h), c, name, err,
                    err_len) != 0)
        return -1;
    size_t n = (size_t)w * (size_t)h * (size_t)c;
    /* v * 255 / maxv as the PNG path does: v * 255 is exact in float, so
     * maxval itself gives 255 (v * (255 / maxv) could give 255.00002). */
    const float fmax = (float)maxv;
    if (kind == 2 || kind == 3) {
        for (size_t i = 0; i < n; i++) {
            long v;
            if (pnm_int(buf, len, &at, &v) || v > maxv) {
                edgeq_image_free(img);
                return edgeq_fail(err, err_len, "%s: P%d sample %zu of %zu missing or above maxval %ld",
                            name, kind, i, n, maxv);
            }
            img->px[i] = (float)v * 255.0f / fmax;
        }
        return 0;
    }
    /* binary: exactly one whitespace byte after maxval */
    if (at >= len || !(buf[at] == ' ' || buf[at] == '\t' || buf[at] == '\n' || buf[at] == '\r' ||
                       buf[at] == '\f' || buf[at] == '\v')) {
        edgeq_image_free(img);
        return edgeq_fail(err, err_len, "%s: P%d needs one whitespace byte after maxval", name, kind);
    }
    at++;
    size_t bps = maxv > 255 ? 2 : 1;
    if (at > len || n * bps > len - at) {
        edgeq_image_free(img);
        return edgeq_fail(err, err_len, "%s: P%d pixel data truncated (%zu bytes needed)", name, kind,
                    n * bps);
    }
    const uint8_t *d = buf + at;
    for (size_t i = 0; i < n; i++) {
        unsigned v = bps == 2 ? (unsigned)d[2 * i] << 8 | d[2 * i + 1] : d[i];
        if ((long)v > maxv) {
            edgeq_image_free(img);
            return edgeq_fail(err, err_len, "%s: P%d sample %zu is %u, above maxval %ld", name, kind, i,
                        v, maxv);
        }
        img->px[i] = (float)v * 255.0f / fmax;
    }
    return 0;
}

/* ======================= dispatch and conversion ======================= */

int edgeq_image_decode(const uint8_t *buf, size_t len, const char *name, edgeq_image *img,
                       char *err, size_t err_len) {
    memset(img, 0, sizeof *img);
    switch (edgeq_image_sniff(buf, len)) {
    case EDGEQ_IMAGE_PNG: return png_decode(buf, len, name, img, err, err_len);
    case EDGEQ_IMAGE_BMP: return bmp_decode(buf, len, name, img, err, err_len);
    case EDGEQ_IMAGE_PNM: return pnm_decode(buf, len, name, img, err, err_len);
    case EDGEQ_IMAGE_JPEG:
        return edgeq_fail(err, err_len,
                    "%s: JPEG is not supported; convert the images to PNG (e.g. `mogrify "
                    "-format png *.jpg`)",
                    name);
    default: return edgeq_fail(err, err_len, "%s: not a PNG, BMP, PGM or PPM image", name);
    }
}

/* TF's ResizeBilinear source coordinate (half_pixel_centers). */
static void bilinear_axis(int out_size, int in_size, int o, int *lo, int *hi, float *lerp) {
    float scale = (float)in_size / (float)out_size;
    float in = ((float)o + 0.5f) * scale - 0.5f;
    float fl = floorf(in);
    int l = (int)fl, h = (int)ceilf(in);
    *lo = l < 0 ? 0 : l;
    *hi = h > in_size - 1 ? in_size - 1 : h;
    *lerp = in - fl;
}

int edgeq_image_to_sample(const edgeq_image *img, int h, int w, int c, float *out) {
    if ((c != 1 && c != 3) || h < 1 || w < 1) return -1;
    size_t n = (size_t)img->w * (size_t)img->h;
    float *conv = malloc(n * (size_t)c * sizeof *conv);
    if (!conv) return -1;
    for (size_t i = 0; i < n; i++) {
        const float *p = img->px + i * (size_t)img->c;
        if (img->c == c) {
            memcpy(conv + i * (size_t)c, p, (size_t)c * sizeof *p);
        } else if (c == 3) {
            conv[3 * i] = conv[3 * i + 1] = conv[3 * i + 2] = p[0];
        } else if (p[0] == p[1] && p[1] == p[2]) {
            conv[i] = p[0];
        } else {
            conv[i] = 0.2989f * p[0] + 0.5870f * p[1] + 0.1140f * p[2];
        }
    }
    if (img->w == w && img->h == h) {
        memcpy(out, conv, n * (size_t)c * sizeof *out);
        free(conv);
        return 0;
    }
    for (int y = 0; y < h; y++) {
        int y0, y1;
        float ly;
        bilinear_axis(h, img->h, y, &y0, &y1, &ly);
        for (int x = 0; x < w; x++) {
            int x0, x1;
            float lx;
            bilinear_axis(w, img->w, x, &x0, &x1, &lx);
            const float *tl = conv + ((size_t)y0 * (size_t)img->w + (size_t)x0) * (size_t)c;
            const float *tr = conv + ((size_t)y0 * (size_t)img->w + (size_t)x1) * (size_t)c;
            const float *bl = conv + ((size_t)y1 * (size_t)img->w + (size_t)x0) * (size_t)c;
            const float *br = conv + ((size_t)y1 * (size_t)img->w + (size_t)x1) * (size_t)c;
            float *o = out + ((size_t)y * (size_t)w + (size_t)x) * (size_t)c;
            for (int k = 0; k < c; k++) {
                float top = tl[k] + (tr[k] - tl[k]) * lx;
                float bot = bl[k] + (br[k] - bl[k]) * lx;
                o[k] = top + (bot - top) * ly;
            }
        }
    }
    free(conv);
    return 0;
}
