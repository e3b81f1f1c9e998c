/* SPDX-License-Identifier: Apache-2.0 */
/*
 * image.c — PGM/PPM/BMP decoding and bilinear resizing (see image.h).
 * Every field read from a file is range-checked before it is used: sizes
 * are limited so that width * height * channels fits comfortably in memory
 * and in int32 arithmetic.
 */
#include "image.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIDE 16384
#define MAX_PIXELS ((int64_t)64 * 1024 * 1024)

static int fail(char *err, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (n) vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return -1;
}

static int check_size(int64_t w, int64_t h, char *err, size_t n) {
    if (w <= 0 || h <= 0) return fail(err, n, "image has no pixels (%lldx%lld)", (long long)w, (long long)h);
    if (w > MAX_SIDE || h > MAX_SIDE || w * h > MAX_PIXELS)
        return fail(err, n, "image too large (%lldx%lld; at most %d per side)", (long long)w,
                    (long long)h, MAX_SIDE);
    return 0;
}

static int alloc_pixels(image *img, int with_raw, char *err, size_t n) {
    size_t count = (size_t)img->width * (size_t)img->height;
    img->pixels = malloc(count * (size_t)img->channels);
    img->raw = with_raw ? malloc(count) : NULL;
    if (!img->pixels || (with_raw && !img->raw)) {
        image_free(img);
        return fail(err, n, "out of memory for a %dx%d image", img->width, img->height);
    }
    return 0;
}

void image_free(image *img) {
    free(img->pixels);
    free(img->raw);
    img->pixels = img->raw = NULL;
}

/* ---------------- PGM / PPM ---------------- */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* Whitespace and '#' comments between header fields. */
static void skip_space(cursor *c) {
    while (c->p < c->end) {
        if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n') c->p++;
        } else if (is_space(*c->p)) {
            c->p++;
        } else {
            break;
        }
    }
}

static int read_uint(cursor *c, int64_t max, int64_t *v) {
    skip_space(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return -1;
    int64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        x = x * 10 + (*c->p++ - '0');
        if (x > max) return -1;
    }
    *v = x;
    return 0;
}

static uint8_t scale_sample(uint32_t v, uint32_t maxval) {
    if (maxval == 255) return (uint8_t)v;
    if (v > maxval) v = maxval;
    return (uint8_t)((v * 255u + maxval / 2u) / maxval);
}

static int decode_pnm(const uint8_t *data, size_t len, image *img, char *err, size_t n) {
    const char kind = (char)data[1];
    const int text = kind == '2' || kind == '3';
    cursor c = {data + 2, data + len};
    int64_t w, h, maxval;
    if (read_uint(&c, MAX_SIDE, &w) || read_uint(&c, MAX_SIDE, &h) || read_uint(&c, 65535, &maxval))
        return fail(err, n, "%s header: bad or missing width, height or maxval", kind == '2' || kind == '5' ? "PGM" : "PPM");
    if (maxval < 1) return fail(err, n, "PNM maxval must be 1..65535");
    if (check_size(w, h, err, n)) return -1;
    img->width = (int32_t)w, img->height = (int32_t)h;
    img->channels = (kind == '3' || kind == '6') ? 3 : 1;
    img->format = img->channels == 3 ? "PPM" : "PGM";
    const int with_raw = img->channels == 1 && maxval == 255;
    if (alloc_pixels(img, with_raw, err, n)) return -1;
    const size_t count = (size_t)w * (size_t)h * (size_t)img->channels;
    if (text) {
        for (size_t i = 0; i < count; i++) {
            int64_t v;
            if (read_uint(&c, 65535, &v)) {
                image_free(img);
                return fail(err, n, "%s: sample %zu of %zu missing or bad", img->format, i, count);
            }
            img->pixels[i] = scale_sample((uint32_t)v, (uint32_t)maxval);
        }
    } else {
        /* Exactly one whitespace byte ends the header. */
        if (c.p >= c.end || !is_space(*c.p)) {
            image_free(img);
            return fail(err, n, "%s: no whitespace after the header", img->format);
        }
        c.p++;
        const size_t bps = maxval > 255 ? 2 : 1;
        if ((size_t)(c.end - c.p) / bps < count) {
            image_free(img);
            return fail(err, n, "%s: truncated (%zu samples of %zu bytes needed)", img->format, count, bps);
        }
        for (size_t i = 0; i < count; i++) {
            uint32_t v = bps == 2 ? ((uint32_t)c.p[2 * i] << 8 | c.p[2 * i + 1]) : c.p[i];
            img->pixels[i] = scale_sample(v, (uint32_t)maxval);
        }
    }
    if (with_raw) memcpy(img->raw, img->pixels, count);
    return 0;
}

/* ---------------- BMP ---------------- */

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

static int decode_bmp(const uint8_t *d, size_t len, image *img, char *err, size_t n) {
    if (len < 26) return fail(err, n, "BMP: truncated header");
    const uint32_t off = le32(d + 10), hsize = le32(d + 14);
    int64_t w, h;
    uint32_t bpp, comp = 0, ncolors = 0;
    if (hsize == 12) { /* OS/2 BITMAPCOREHEADER */
        w = le16(d + 18), h = le16(d + 20), bpp = le16(d + 24);
    } else if (hsize >= 40 && len >= 14 + 40) {
        w = (int32_t)le32(d + 18), h = (int32_t)le32(d + 22);
        if (le16(d + 26) != 1) return fail(err, n, "BMP: planes must be 1");
        bpp = le16(d + 28), comp = le32(d + 30), ncolors = le32(d + 46);
    } else {
        return fail(err, n, "BMP: unknown header size %u", hsize);
    }
    const int top_down = h < 0;
    if (top_down) h = -h;
    if (check_size(w, h, err, n)) return -1;
    if (bpp != 8 && bpp != 24 && bpp != 32)
        return fail(err, n, "BMP: %u bits per pixel (8, 24 and 32 are supported)", bpp);
    if (!(comp == 0 || (comp == 3 && bpp == 32)))
        return fail(err, n, "BMP: compressed images (type %u) are not supported", comp);
    if (comp == 3) {
        if (len < 14 + 40 + 12) return fail(err, n, "BMP: truncated bit masks");
        if (le32(d + 54) != 0x00ff0000u || le32(d + 58) != 0x0000ff00u || le32(d + 62) != 0x000000ffu)
            return fail(err, n, "BMP: only the usual 8-bit channel masks are supported");
    }

    /* The palette follows the header(s): 3-byte entries for the core
     * header, 4-byte (B, G, R, 0) otherwise. */
    uint8_t pal[256][3];
    int gray = bpp == 8;
    if (bpp == 8) {
        const size_t entry = hsize == 12 ? 3 : 4;
        size_t count = ncolors ? ncolors : 256;
        if (count > 256) return fail(err, n, "BMP: %zu palette entries", count);
        const size_t pal_at = 14 + (size_t)hsize;
        if (pal_at > len || (len - pal_at) / entry < count) return fail(err, n, "BMP: truncated palette");
        memset(pal, 0, sizeof pal);
        for (size_t i = 0; i < count; i++) {
            const uint8_t *e = d + pal_at + i * entry;
            pal[i][0] = e[2], pal[i][1] = e[1], pal[i][2] = e[0];
            if (e[0] != e[1] || e[1] != e[2]) gray = 0;
        }
    }

    const size_t row_bytes = (((size_t)w * bpp + 31) / 32) * 4;
    if (off > len || (len - off) / row_bytes < (size_t)h) return fail(err, n, "BMP: truncated pixel data");
    img->width = (int32_t)w, img->height = (int32_t)h, img->channels = gray ? 1 : 3;
    img->format = "BMP";
    if (alloc_pixels(img, bpp == 8, err, n)) return -1;
    for (int64_t y = 0; y < h; y++) {
        const uint8_t *row = d + off + (size_t)(top_down ? y : h - 1 - y) * row_bytes;
        uint8_t *dst = img->pixels + (size_t)y * (size_t)w * (size_t)img->channels;
        for (int64_t x = 0; x < w; x++) {
            if (bpp == 8) {
                const uint8_t idx = row[x];
                img->raw[(size_t)y * (size_t)w + (size_t)x] = idx;
                if (gray)
                    dst[x] = pal[idx][0];
                else
                    memcpy(dst + 3 * x, pal[idx], 3);
            } else {
                const uint8_t *px = row + (size_t)x * (bpp / 8);
                dst[3 * x] = px[2], dst[3 * x + 1] = px[1], dst[3 * x + 2] = px[0];
            }
        }
    }
    return 0;
}

int image_decode(const uint8_t *data, size_t len, image *img, char *err, size_t err_len) {
    memset(img, 0, sizeof *img);
    if (len >= 2 && data[0] == 'P' && data[1] >= '2' && data[1] <= '6' && data[1] != '4')
        return decode_pnm(data, len, img, err, err_len);
    if (len >= 2 && data[0] == 'B' && data[1] == 'M') return decode_bmp(data, len, img, err, err_len);
    if (len >= 2 && data[0] == 'P' && (data[1] == '1' || data[1] == '4'))
        return fail(err, err_len, "PBM (1-bit) images are not supported; use PGM or PPM");
    return fail(err, err_len, "not a PGM, PPM or BMP image");
}

/* ---------------- resizing ---------------- */

/* Pixel (x, y) channel c of the image as out_c channels want it. */
static float sample(const image *img, int32_t x, int32_t y, int32_t c, int32_t out_c) {
    const uint8_t *px = img->pixels + ((size_t)y * (size_t)img->width + (size_t)x) * (size_t)img->channels;
    if (img->channels == out_c) return px[c];
    if (img->channels == 1) return px[0];
    return 0.299f * px[0] + 0.587f * px[1] + 0.114f * px[2];
}

void image_resize(const image *img, int32_t out_w, int32_t out_h, int32_t out_c, float *out) {
    const float sx = (float)img->width / (float)out_w, sy = (float)img->height / (float)out_h;
    for (int32_t y = 0; y < out_h; y++) {
        float fy = ((float)y + 0.5f) * sy - 0.5f;
        if (fy < 0) fy = 0;
        int32_t y0 = (int32_t)fy;
        if (y0 > img->height - 1) y0 = img->height - 1;
        const int32_t y1 = y0 + 1 < img->height ? y0 + 1 : y0;
        const float wy = fy - (float)y0 > 1.0f ? 1.0f : fy - (float)y0;
        for (int32_t x = 0; x < out_w; x++) {
            float fx = ((float)x + 0.5f) * sx - 0.5f;
            if (fx < 0) fx = 0;
            int32_t x0 = (int32_t)fx;
            if (x0 > img->width - 1) x0 = img->width - 1;
            const int32_t x1 = x0 + 1 < img->width ? x0 + 1 : x0;
            const float wx = fx - (float)x0 > 1.0f ? 1.0f : fx - (float)x0;
            for (int32_t c = 0; c < out_c; c++) {
                const float top = sample(img, x0, y0, c, out_c) * (1 - wx) + sample(img, x1, y0, c, out_c) * wx;
                const float bot = sample(img, x0, y1, c, out_c) * (1 - wx) + sample(img, x1, y1, c, out_c) * wx;
                out[((size_t)y * (size_t)out_w + (size_t)x) * (size_t)out_c + (size_t)c] = top * (1 - wy) + bot * wy;
            }
        }
    }
}
