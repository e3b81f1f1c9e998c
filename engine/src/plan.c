/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan.c — the static memory planner.
 *
 * Every buffer that lives in the arena (non-constant tensors that are not
 * views of another, and per-op scratch) gets a lifetime [first op, last op]
 * from the execution order. Buffers are placed largest first, each at the
 * smallest gap among the already-placed buffers whose lifetimes overlap its
 * own (best fit), else on top. The result is fixed before the first invoke.
 *
 * Two buffers alive at the same time get bytes of their own, except an op's
 * output 0 and an input that dies at that op when the op declares a
 * streaming limit D for it ("Streaming outputs" in edge_internal.h): the
 * output may then sit anywhere at or below the input's offset + D, over the
 * input's bytes too. EDGE_PLAN_NO_OVERLAP ignores the declarations.
 */
#include "model.h"

/* Sizes and offsets count 16-byte units (EDGE_ARENA_ALIGN): every size is
 * rounded up to 16 and every limit D, E is stored / 16, so every offset is
 * a multiple of 16 and all of the planner's math fits in 32 bits (below
 * 2^31 bytes is below 2^27 units; see PLAN_FAR), none of it the 64-bit
 * arithmetic a 32-bit core pays for in instructions. */
typedef struct plan_item {
    uint32_t size;
    uint32_t first, last;
    uint32_t id; /* tensor index, or n_tensors + op index for scratch */
    int32_t offset;
} plan_item;
#define PLAN_UNIT 16u
typedef char plan_unit_check[EDGE_ARENA_ALIGN == PLAN_UNIT ? 1 : -1];
/* The most units that fit in 2 GiB - 1 bytes. */
#define PLAN_MAX_UNITS 0x7ffffff

size_t edge_plan_work_bytes(const edge_model *m) {
    size_t n = (size_t)m->n_tensors + m->n_ops;
    return EDGE_ALIGN_UP(n * sizeof(plan_item)) + EDGE_ALIGN_UP(n * sizeof(uint32_t));
}

static int32_t root_of(const edge_model *m, int32_t t) {
    while (t >= 0 && m->tensors[t].alias_of >= 0) t = m->tensors[t].alias_of;
    return t;
}

static int is_graph_io(const uint8_t *vec, uint32_t n, int32_t t) {
    for (uint32_t i = 0; i < n; i++)
        if (fb_i32_at(vec, i) == t) return 1;
    return 0;
}

/* Output 0 of a view op can share its input's bytes when both are arena
 * tensors of the same size and nothing else claims the output. */
static void mark_views(edge_model *m) {
    for (uint32_t i = 0; i < m->n_ops; i++) {
        edge_op_rt *op = &m->ops[i];
        if (!op->impl || !op->impl->view_of_input0 || op->n_in < 1 || op->n_out < 1) continue;
        int32_t in = op->io[0], out = op->io[op->n_in];
        if (in < 0 || out < 0 || in == out) continue;
        edge_tensor_state *ti = &m->tensors[in], *to = &m->tensors[out];
        if (ti->is_const || to->is_const || ti->is_variable || to->is_variable) continue;
        if (ti->bytes != to->bytes || is_graph_io(m->inputs, m->n_inputs, out)) continue;
        to->alias_of = root_of(m, in);
    }
}

/* Strategy bit 0: first fit (lowest offset) instead of best fit (smallest
 * gap). Bit 1: free placement: offsets may go below 0, each buffer where it
 * grows the extent least (then all shift up). strategy / 4: the order,
 * largest first, by first use, or by last use backwards: a streaming output
 * wants to sit below its input, and its own output below it, which placing
 * in execution order upward from 0 often cannot give them; placed
 * backwards, each input comes after its output, above it. */
#define PLAN_STRATEGIES 12u

static int goes_before(const plan_item *x, const plan_item *y, uint32_t strategy) {
    const uint32_t order = strategy / 4u;
    if (order == 1u) {
        if (x->first != y->first) return x->first < y->first;
        if (x->size != y->size) return x->size > y->size;
        return x->id < y->id;
    }
    if (order == 2u) {
        if (x->last != y->last) return x->last > y->last;
        if (x->size != y->size) return x->size > y->size;
        return x->id < y->id;
    }
    if (x->size != y->size) return x->size > y->size;
    if (x->first != y->first) return x->first < y->first;
    return x->id < y->id;
}

/* Far enough to stand for "no bound": placed offsets are within
 * +-PLAN_MAX_UNITS, sizes at most that, so a span's ends are within
 * [-2^27 - 2^15, 2^28 + 2^15] and a bounded gap below 1.5 * 2^28 + 2^16:
 * an unbounded gap (at least PLAN_FAR - 2^27 - 2^15) is larger than any
 * bounded one, as with any larger PLAN_FAR, and the widest (2 * PLAN_FAR,
 * no span at all) still fits in an int32. */
#define PLAN_FAR 0x30000000

/* Whether output 0 of op k = out->first may overlap `in` (a declared input
 * that dies at op k, and every input slot of op k holding it is declared);
 * then the limit D in *d, and in *e the reverse limit E, or INT32_MAX if
 * none: above any size, which is all E is compared with. */
static int stream_limit(const edge_model *m, const plan_item *out, const plan_item *in, int32_t *d,
                        int32_t *e) {
    const uint32_t nt = m->n_tensors, k = out->first;
    if (out->id >= nt || in->id >= nt || k >= m->n_ops || in->last != k) return 0;
    const edge_op_rt *op = &m->ops[k];
    /* A fused pair streams the tail's output over the head's inputs. */
    const edge_op_rt *producer = (op->fused & EDGE_FUSED_HEAD) && k + 1 < m->n_ops ? &m->ops[k + 1] : op;
    if (!op->stream_in || producer->n_out < 1 || root_of(m, producer->io[producer->n_in]) != (int32_t)out->id)
        return 0;
    int found = 0;
    for (uint32_t i = 0; i < op->n_in; i++) {
        if (root_of(m, op->io[i]) != (int32_t)in->id) continue;
        if (i >= 8 || !(op->stream_in & (1u << i))) return 0;
        found = 1;
    }
    *e = op->stream_e16 != EDGE_STREAM_NO_E && !(op->stream_in & (op->stream_in - 1u)) ? op->stream_e16
                                                                                          : INT32_MAX;
    *d = op->stream_d16;
    return found;
}

static int32_t min32(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t max32(int32_t a, int32_t b) { return a > b ? a : b; }

/* The units placed buffer y keeps x from: [*lo, *hi), meaning x.off is
 * forbidden in (lo - x.size, hi), which is empty when hi <= lo - x.size
 * (hi may be below lo: the span is then a barrier x must not straddle).
 * Its own units, unless x and y are a streaming pair, allowed to overlap
 * when out.off <= in.off + D, or out.off >= in.off + E in reverse: the
 * difference out.off - in.off is forbidden in (max(-out.size, D),
 * min(in.size, E)), so
 *   - output x over input y: y blocks [y.off + max(0, x.size + D), y.off + min(y.size, E));
 *   - input x under output y: y blocks [y.off + max(0, x.size - E), y.off + min(y.size, -D)). */
static void blocked(const edge_model *m, const plan_item *x, const plan_item *y, int32_t *lo, int32_t *hi) {
    const int32_t yo = y->offset, ys = (int32_t)y->size, xs = (int32_t)x->size;
    *lo = yo;
    *hi = yo + ys;
    if (m->flags & EDGE_PLAN_NO_OVERLAP) return;
    int32_t d, e;
    if (stream_limit(m, x, y, &d, &e)) {
        *lo = yo + max32(0, xs + d);
        *hi = yo + min32(ys, e);
    } else if (stream_limit(m, y, x, &d, &e)) {
        *lo = yo + max32(0, xs - e);
        *hi = yo + min32(ys, -d);
    }
}

/* Sorts items by the strategy's order (deterministic: ties by index), then
 * places each at a gap among the already-placed buffers whose lifetimes
 * overlap its own. Returns the peak, every offset then >= 0, or -1 when
 * the activations would not fit in 2 GiB. Insertion sorts: graphs here have
 * hundreds of buffers. */
static int32_t place(const edge_model *m, plan_item *items, uint32_t *placed, uint32_t count,
                     uint32_t strategy) {
    for (uint32_t a = 1; a < count; a++) {
        plan_item x = items[a];
        uint32_t b = a;
        while (b > 0 && goes_before(&x, &items[b - 1], strategy)) {
            items[b] = items[b - 1];
            b--;
        }
        items[b] = x;
    }
    const int free = (strategy & 2u) != 0;
    int32_t gmin = 0, gmax = 0; /* the extent so far */
    for (uint32_t a = 0; a < count; a++) {
        plan_item *x = &items[a];
        /* Could never fit (see below): refused first, the bounds above
         * then hold. */
        if (x->size > PLAN_MAX_UNITS) return -1;
        const int32_t size = (int32_t)x->size;
        x->offset = 0;
        if (free && size == 0) continue;
        /* Placed buffers alive at the same time that block some units, in
         * order of the first unit they block. */
        uint32_t np = 0;
        for (uint32_t b = 0; b < a; b++) {
            const plan_item *y = &items[b];
            if (y->size == 0 || y->last < x->first || y->first > x->last) continue;
            int32_t lo, hi, lo2, hi2;
            blocked(m, x, y, &lo, &hi);
            if (hi <= lo - size) continue; /* forbids nothing */
            uint32_t c = np++;
            while (c > 0) {
                blocked(m, x, &items[placed[c - 1]], &lo2, &hi2);
                if (lo2 <= lo) break;
                placed[c] = placed[c - 1];
                c--;
            }
            placed[c] = b;
        }
        /* Every gap, the last unbounded above (and, when free, the first
         * unbounded below). Upward from 0: the best (or first) gap that
         * fits, the top one when none does. Free: in each gap, the offset
         * nearest the ones that keep the extent ([want_lo, want_hi]); the
         * gap of least extent wins, ties to the smaller gap (or the lower
         * offset). */
        const int32_t want_lo = min32(gmin, gmax - size), want_hi = max32(gmin, gmax - size);
        int32_t cursor = free ? -PLAN_FAR : 0, off = 0, best_cost = INT32_MAX, best_gap = INT32_MAX;
        for (uint32_t k = 0; k <= np; k++) {
            int32_t lo = PLAN_FAR, hi = PLAN_FAR;
            if (k < np) blocked(m, x, &items[placed[k]], &lo, &hi);
            const int32_t gap = lo - cursor;
            if (!free) {
                if (lo > cursor && gap >= size && gap < best_gap) {
                    best_gap = gap;
                    off = cursor;
                    if (strategy & 1u) break;
                }
            } else if (gap >= size) {
                const int32_t top = lo - size;
                const int32_t c = top < want_lo ? top : (cursor > want_hi ? cursor : max32(cursor, want_lo));
                const int32_t cost = max32(gmax, c + size) - min32(gmin, c);
                if (cost < best_cost || (cost == best_cost && ((strategy & 1u) ? c < off : gap < best_gap))) {
                    best_cost = cost;
                    best_gap = gap;
                    off = c;
                }
            }
            if (hi > cursor) cursor = hi;
        }
        if (off < -PLAN_MAX_UNITS || off > PLAN_MAX_UNITS - size) return -1;
        x->offset = off;
        gmin = min32(gmin, off);
        gmax = max32(gmax, off + size);
    }
    if (gmax - gmin > PLAN_MAX_UNITS) return -1;
    for (uint32_t a = 0; a < count; a++)
        if (items[a].size) items[a].offset -= gmin;
    return gmax - gmin;
}

edge_status edge_plan(edge_model *m, void *work, size_t *peak) {
    uint32_t nt = m->n_tensors, n = nt + m->n_ops;
    plan_item *items = (plan_item *)work;
    uint32_t *placed = (uint32_t *)((uint8_t *)work + EDGE_ALIGN_UP(n * sizeof(plan_item)));
    const uint32_t end = m->n_ops; /* "alive after the last op" */

    for (uint32_t t = 0; t < nt; t++) {
        m->tensors[t].offset = -1;
        m->tensors[t].alias_of = -1;
        items[t].size = 0;
        items[t].first = UINT32_MAX;
        items[t].last = 0;
        items[t].id = t;
    }
    mark_views(m);

    /* Lifetimes from the execution order; a fused pair's tail runs inside
     * its head, and the tensor between them is never in the arena. */
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        const uint32_t at = (op->fused & EDGE_FUSED_TAIL) && i > 0 ? i - 1 : i;
        for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = op->io[k];
            if (t < 0 || m->tensors[t].fused) continue;
            if (items[t].first > at) items[t].first = at;
            if (items[t].last < at) items[t].last = at;
        }
    }
    for (uint32_t k = 0; k < m->n_inputs; k++) items[fb_i32_at(m->inputs, k)].first = 0;
    for (uint32_t k = 0; k < m->n_outputs; k++) {
        plan_item *it = &items[fb_i32_at(m->outputs, k)];
        it->last = end;
        if (it->first == UINT32_MAX) it->first = 0;
    }
    /* A variable lives throughout; a view keeps its root alive for as long
     * as the view is used (neither is ever the other's root). */
    for (uint32_t t = 0; t < nt; t++) {
        if (m->tensors[t].is_variable) {
            items[t].first = 0;
            items[t].last = end;
        }
        int32_t r = root_of(m, (int32_t)t);
        if (r == (int32_t)t || items[t].first == UINT32_MAX) continue;
        if (items[r].first > items[t].first) items[r].first = items[t].first;
        if (items[r].last < items[t].last) items[r].last = items[t].last;
    }

    /* Collect what needs arena space. */
    uint32_t count = 0;
    for (uint32_t t = 0; t < nt; t++) {
        const edge_tensor_state *tr = &m->tensors[t];
        if (tr->is_const || tr->alias_of >= 0 || items[t].first == UINT32_MAX) continue;
        if (tr->bytes > 0x7fffffffu) return edge_fail(m, EDGE_ERR_UNSUPPORTED, "tensor %u is too large", t);
        items[count] = items[t]; /* count <= t */
        items[count++].size = (uint32_t)EDGE_ALIGN_UP(tr->bytes) / PLAN_UNIT;
    }
    for (uint32_t i = 0; i < m->n_ops; i++) {
        m->ops[i].scratch_offset = -1;
        m->ops[i].stream_rev = 0; /* set below, once placed */
        if (!m->ops[i].scratch_bytes) continue;
        plan_item it = {(uint32_t)EDGE_ALIGN_UP(m->ops[i].scratch_bytes) / PLAN_UNIT, i, i, nt + i, 0};
        items[count++] = it;
    }

    /* Greedy placement is a heuristic: a few orders and fit rules are tried
     * and the smallest peak is kept (then replayed, so offsets match it). */
    uint32_t best_s = 0;
    int32_t best_top = INT32_MAX;
    for (uint32_t s = 0; s < PLAN_STRATEGIES; s++) {
        const int32_t top = place(m, items, placed, count, s);
        if (top >= 0 && top < best_top) best_top = top, best_s = s;
    }
    const int32_t top = best_top == INT32_MAX ? -1 : place(m, items, placed, count, best_s);
    if (top < 0) return edge_fail(m, EDGE_ERR_UNSUPPORTED, "activations larger than 2 GiB");
    *peak = (size_t)top * PLAN_UNIT;

    /* Each buffer's offset in bytes; an op whose output overlaps its input
     * above D runs in reverse (the placement kept the difference >= E
     * then). */
    for (uint32_t a = 0; a < count; a++) {
        const plan_item *out = &items[a];
        const int32_t off = out->offset * (int32_t)PLAN_UNIT;
        if (out->id >= nt) {
            m->ops[out->id - nt].scratch_offset = off;
            continue;
        }
        m->tensors[out->id].offset = off;
        if (out->first >= m->n_ops || out->size == 0) continue;
        for (uint32_t b = 0; b < count; b++) {
            const plan_item *in = &items[b];
            int32_t d, e;
            if (!in->size || !stream_limit(m, out, in, &d, &e)) continue;
            const int32_t delta = out->offset - in->offset;
            if (delta > d && delta < (int32_t)in->size && delta > -(int32_t)out->size)
                m->ops[out->first].stream_rev = 1;
        }
    }
    return EDGE_OK;
}
