/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keras_fake.h — a weight reader for the Keras harnesses that serves
 * variables described by the fuzz input instead of reading HDF5.
 *
 * Trailer format (after the config JSON and one NUL byte), one record per
 * read call, in the order the config walker asks for layers:
 *   u8 n_vars (mod KERAS_MAX_VARS+1); per variable: u8 rank (mod 5),
 *   rank x u16 little-endian dims.
 * Variables are unnamed (matched by position) and hold small finite values
 * unless the first dim is 0xfff0..0xffff (then one element is NaN, to reach
 * the non-finite check). An exhausted trailer makes read fail.
 */
#ifndef FUZZ_KERAS_FAKE_H
#define FUZZ_KERAS_FAKE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keras/keras_internal.h"

typedef struct fake_w {
    const unsigned char *p, *end;
} fake_w;

#define FAKE_MAX_ELEMS ((size_t)1 << 18)

static int fake_byte(fake_w *f, unsigned *out) {
    if (f->p >= f->end) return -1;
    *out = *f->p++;
    return 0;
}

static int fake_read(void *ctx, const keras_loc *loc, const char *layer, keras_var *vars, int max,
                     int *n, char *err, size_t errlen) {
    fake_w *f = ctx;
    unsigned nv, b;
    (void)loc;
    *n = 0;
    if (fake_byte(f, &nv)) {
        snprintf(err, errlen, "%s: no weights in the fake file", layer);
        return -1;
    }
    nv %= (unsigned)max + 1;
    for (unsigned i = 0; i < nv; i++) {
        keras_var *v = &vars[i];
        memset(v, 0, sizeof *v);
        snprintf(v->path, sizeof v->path, "fake/%u", i);
        unsigned rank;
        if (fake_byte(f, &rank)) goto trunc;
        v->rank = (int)(rank % 5);
        size_t len = 1;
        int nan = 0;
        for (int d = 0; d < v->rank; d++) {
            unsigned lo, hi;
            if (fake_byte(f, &lo) || fake_byte(f, &hi)) goto trunc;
            unsigned dim = lo | (hi << 8);
            if (d == 0 && dim >= 0xfff0u) {
                nan = 1;
                dim -= 0xfff0u;
            }
            v->dims[d] = (int)dim;
            len *= dim;
            if (len > FAKE_MAX_ELEMS) {
                snprintf(err, errlen, "%s: fake variable too large", layer);
                keras_vars_free(vars, (int)i + 1);
                return -1;
            }
        }
        v->len = len;
        v->data = malloc((len ? len : 1) * sizeof(float));
        if (!v->data) goto trunc;
        for (size_t k = 0; k < len; k++) v->data[k] = 0.01f * (float)(k % 13) + 0.01f;
        if (nan && len) v->data[len / 2] = NAN;
        *n = (int)i + 1;
    }
    *n = (int)nv;
    return 0;
trunc:
    keras_vars_free(vars, *n + 1);
    *n = 0;
    snprintf(err, errlen, "%s: fake weights truncated", layer);
    return -1;
}

#endif
