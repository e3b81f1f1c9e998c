/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_npy.c — libFuzzer harness for edgeq's .npy reader (npy.c), which
 * reads calibration data and reference arrays: any bytes as a .npy file.
 * A parse that succeeds must describe exactly the bytes it points at, and
 * every element is read back; a failure must say why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    edgeq_npy a;
    char err[512];
    err[0] = 0;
    if (edgeq_npy_parse(data, size, "fuzz.npy", &a, err, sizeof err) != 0) {
        if (!err[0]) abort(); /* every failure says why */
        return 0;
    }
    /* The data lies inside the buffer and is exactly count * itemsize. */
    if (a.bytes != a.count * a.itemsize) abort();
    if (a.data < data || a.data + a.bytes != data + size) abort();
    if (!edgeq_npy_dtype_name(a.kind, a.itemsize)) abort();
    volatile double sink = 0;
    for (size_t i = 0; i < a.count; i++) sink += edgeq_npy_get_f64(&a, i);
    (void)sink;
    return 0;
}
