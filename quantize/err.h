/* SPDX-License-Identifier: Apache-2.0 */
/*
 * err.h — the one way the quantizer reports an error: a message written
 * into the caller's buffer (`char *err, size_t err_len`; either may be
 * NULL/0 to discard it) and -1 returned, so `return edgeq_fail(...)`.
 */
#ifndef EDGEQ_ERR_H
#define EDGEQ_ERR_H

#include <stdarg.h>
#include <stddef.h>

int edgeq_fail(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int edgeq_vfail(char *err, size_t err_len, const char *fmt, va_list ap);

/* "<where>: <message>", or the message alone when `where` is NULL or "". */
int edgeq_fail_at(char *err, size_t err_len, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "layer '<name>' (<keras class>): <message>". */
int edgeq_fail_layer(char *err, size_t err_len, const char *name, const char *keras_class,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
