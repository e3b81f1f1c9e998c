/* SPDX-License-Identifier: Apache-2.0 */
/*
 * broadcast.c — the broadcasting plan and walker (see broadcast.h).
 *
 * 32-bit arithmetic throughout (a tensor holds at most 2^31 - 1 elements);
 * strides and extents are products in uint32, whose wrap is defined, so a
 * shape with a 0 extent (no elements, any other extents) is harmless.
 */
#include "../broadcast.h"

int edge_bcast_plan(edge_bcast *p, const int32_t *dims_a, int32_t rank_a, const int32_t *dims_b,
                    int32_t rank_b, const int32_t *dims_out, int32_t rank_out) {
    enum { N = EDGE_BCAST_MAX_DIMS };
    if (rank_a < 0 || rank_b < 0 || rank_a > N || rank_b > N) return 0;
    if (rank_out != (rank_a > rank_b ? rank_a : rank_b)) return 0;

    /* From the innermost dimension outwards (shapes right-aligned, padded
     * with 1): check the extents, take each operand's element stride (0
     * where it broadcasts), and fold dimension k into the merged run inside
     * it when both operands continue that run contiguously (or both stay
     * broadcast across it). Extent-1 output dims vanish. */
    uint32_t md[N], ma[N], mb[N], acc_a = 1, acc_b = 1, count = 1;
    int32_t m = 0;
    for (int32_t k = 1; k <= N; k++) {
        const int32_t ea = k <= rank_a ? dims_a[rank_a - k] : 1;
        const int32_t eb = k <= rank_b ? dims_b[rank_b - k] : 1;
        const int32_t eo = k <= rank_out ? dims_out[rank_out - k] : 1;
        const int32_t want = ea == 1 ? eb : ea;
        if (want < 0 || (eb != 1 && eb != want) || eo != want) return 0;
        const uint32_t e = (uint32_t)eo;
        const uint32_t sa = ea == 1 ? 0 : acc_a, sb = eb == 1 ? 0 : acc_b;
        acc_a *= (uint32_t)ea;
        acc_b *= (uint32_t)eb;
        count *= e;
        if (e == 1) continue;
        if (m > 0) {
            const int32_t j = m - 1;
            const int a_ok = sa == 0 ? ma[j] == 0 : ma[j] != 0 && sa == ma[j] * md[j];
            const int b_ok = sb == 0 ? mb[j] == 0 : mb[j] != 0 && sb == mb[j] * md[j];
            if (a_ok && b_ok) {
                md[j] *= e;
                continue;
            }
        }
        md[m] = e;
        ma[m] = sa;
        mb[m] = sb;
        m++;
    }
    if (m == 0) { /* all extents 1: one element */
        md[0] = ma[0] = mb[0] = 1;
        m = 1;
    }
    /* Store outermost first. */
    p->rank = m;
    for (int32_t k = 0; k < m; k++) {
        p->dims[k] = (int32_t)md[m - 1 - k];
        p->stride_a[k] = (int32_t)ma[m - 1 - k];
        p->stride_b[k] = (int32_t)mb[m - 1 - k];
    }
    p->count = (int32_t)count;
    return 1;
}

void edge_bcast_run(const edge_bcast *p, const void *a, const void *b, void *out, size_t elem_size,
                    edge_bcast_row_fn row, const void *ctx) {
    if (p->count <= 0) return;
    const int32_t r = p->rank;
    const int32_t inner = p->dims[r - 1];
    const int32_t ia = p->stride_a[r - 1], ib = p->stride_b[r - 1];
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    int32_t idx[EDGE_BCAST_MAX_DIMS] = {0};
    int32_t off_a = 0, off_b = 0, off_o = 0;
    for (;;) {
        row(ctx, pa + (size_t)off_a * elem_size, ia, pb + (size_t)off_b * elem_size, ib,
            po + (size_t)off_o * elem_size, inner);
        off_o += inner;
        /* Odometer over the outer dimensions. */
        int32_t d = r - 2;
        for (; d >= 0; d--) {
            off_a += p->stride_a[d];
            off_b += p->stride_b[d];
            if (++idx[d] < p->dims[d]) break;
            off_a -= p->stride_a[d] * p->dims[d];
            off_b -= p->stride_b[d] * p->dims[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}
