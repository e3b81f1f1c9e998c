/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peer_clock.c — a C timing loop for a peer's invoke function, loaded by
 * bench.py through ctypes, so that no Python runs between the two clock
 * reads.
 *
 * TFLM's pip package exports its C++ entry points; bench.py looks up
 * MicroInterpreter::Invoke and passes its address with the interpreter
 * object. On x86-64 (System V) a non-virtual member function taking no
 * arguments is called exactly like a C function taking `this`, and
 * TfLiteStatus is an int.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <string.h>
#include <time.h>

typedef int (*peer_invoke_fn)(void *self);

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Calls fn(self) n times; before each call copies `len` bytes from src to
 * dst (the input; outside the clock when len > 0). ns[i] gets the i-th
 * call's nanoseconds. Returns 0, or the first non-zero status fn gave. */
int peer_time_calls(void *fn_addr, void *self, int n, double *ns, void *dst, const void *src,
                    size_t len) {
    peer_invoke_fn fn;
    memcpy(&fn, &fn_addr, sizeof fn);
    for (int i = 0; i < n; i++) {
        if (len) memcpy(dst, src, len);
        double t0 = now_ns();
        int s = fn(self);
        double t1 = now_ns();
        if (s != 0) return s;
        ns[i] = t1 - t0;
    }
    return 0;
}
