/*
 * broadcast.c — the broadcasting plan and walker (see broadcast.h).
 */
#include "broadcast.h"

int edge_bcast_plan(edge_bcast *p, const int32_t *dims_a, int32_t rank_a, const int32_t *dims_b,
                    int32_t rank_b, const int32_t *dims_out, int32_t rank_out) {
    enum { N = EDGE_BCAST_MAX_DIMS };
    int32_t ea[N], eb[N], eo[N];
    if (rank_a < 0 || rank_b < 0 || rank_out < 0 || rank_a > N || rank_b > N || rank_out > N)
        return 0;
    const int32_t rank = rank_a > rank_b ? rank_a : rank_b;
    if (rank_out != rank) return 0;

    /* Right-align all three shapes in N dimensions, padding with 1. */
    for (int32_t i = 0; i < N; i++) {
        int32_t ia = i - (N - rank_a), ib = i - (N - rank_b), io = i - (N - rank_out);
        ea[i] = ia >= 0 ? dims_a[ia] : 1;
        eb[i] = ib >= 0 ? dims_b[ib] : 1;
        eo[i] = io >= 0 ? dims_out[io] : 1;
        if (ea[i] < 0 || eb[i] < 0) return 0;
        int32_t want;
        if (ea[i] == eb[i]) want = ea[i];
        else if (ea[i] == 1) want = eb[i];
        else if (eb[i] == 1) want = ea[i];
        else return 0;
        if (eo[i] != want) return 0;
    }

    /* Element strides of each operand in its own (dense) layout. */
    int64_t sa[N], sb[N], acc_a = 1, acc_b = 1;
    for (int32_t i = N - 1; i >= 0; i--) {
        sa[i] = ea[i] == 1 ? 0 : acc_a;
        sb[i] = eb[i] == 1 ? 0 : acc_b;
        acc_a *= ea[i];
        acc_b *= eb[i];
    }

    /* Merge from the innermost dimension outwards: dimension i folds into
     * the run inside it when both operands continue it contiguously (or
     * both stay broadcast across it). Extent-1 output dims vanish. */
    int32_t md[N];
    int64_t ma[N], mb[N];
    int32_t m = 0;
    int64_t count = 1;
    for (int32_t i = N - 1; i >= 0; i--) {
        count *= eo[i];
        if (eo[i] == 1) continue;
        if (m > 0) {
            int32_t j = m - 1;
            int64_t inner = md[j];
            int a_ok = (sa[i] == 0 && ma[j] == 0) || (ma[j] != 0 && sa[i] == ma[j] * inner);
            int b_ok = (sb[i] == 0 && mb[j] == 0) || (mb[j] != 0 && sb[i] == mb[j] * inner);
            if (a_ok && b_ok && inner * eo[i] <= 0x7fffffff) {
                md[j] = (int32_t)(inner * eo[i]);
                continue;
            }
        }
        md[m] = eo[i];
        ma[m] = sa[i];
        mb[m] = sb[i];
        m++;
    }
    if (m == 0) { /* all extents 1: one element */
        md[0] = 1;
        ma[0] = 1;
        mb[0] = 1;
        m = 1;
    }
    /* Store outermost first. */
    p->rank = m;
    for (int32_t k = 0; k < m; k++) {
        p->dims[k] = md[m - 1 - k];
        p->stride_a[k] = ma[m - 1 - k];
        p->stride_b[k] = mb[m - 1 - k];
    }
    for (int32_t k = m; k < N; k++) {
        p->dims[k] = 1;
        p->stride_a[k] = 0;
        p->stride_b[k] = 0;
    }
    p->count = count;
    return 1;
}

void edge_bcast_run(const edge_bcast *p, const void *a, const void *b, void *out, size_t elem_size,
                    edge_bcast_row_fn row, const void *ctx) {
    if (p->count <= 0) return;
    const int32_t r = p->rank;
    const int32_t inner = p->dims[r - 1];
    const int64_t ia = p->stride_a[r - 1], ib = p->stride_b[r - 1];
    const uint8_t *pa = (const uint8_t *)a, *pb = (const uint8_t *)b;
    uint8_t *po = (uint8_t *)out;
    int32_t idx[EDGE_BCAST_MAX_DIMS] = {0};
    int64_t off_a = 0, off_b = 0, off_o = 0;
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
