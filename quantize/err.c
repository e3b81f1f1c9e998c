/* SPDX-License-Identifier: Apache-2.0 */
/* err.c — see err.h. */
#include "err.h"

#include <stdio.h>

int edgeq_vfail(char *err, size_t err_len, const char *fmt, va_list ap) {
    if (err && err_len) vsnprintf(err, err_len, fmt, ap);
    return -1;
}

int edgeq_fail(char *err, size_t err_len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    edgeq_vfail(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

int edgeq_fail_at(char *err, size_t err_len, const char *where, const char *fmt, ...) {
    if (!err || !err_len) return -1;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (where && where[0])
        snprintf(err, err_len, "%s: %s", where, msg);
    else
        snprintf(err, err_len, "%s", msg);
    return -1;
}

int edgeq_fail_layer(char *err, size_t err_len, const char *name, const char *keras_class,
                     const char *fmt, ...) {
    if (!err || !err_len) return -1;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(err, err_len, "layer '%s' (%s): %s", name, keras_class, msg);
    return -1;
}
