/*
 * plan.c — the static memory planner.
 *
 * Every buffer that lives in the arena (non-constant tensors that are not
 * views of another, and per-op scratch) gets a lifetime [first op, last op]
 * from the execution order. Buffers are placed largest first, each at the
 * smallest gap among the already-placed buffers whose lifetimes overlap its
 * own (best fit), else on top. The result is fixed before the first invoke.
 */
#include "model.h"

typedef struct plan_item {
    uint32_t size;
    uint32_t first, last;
    uint32_t id; /* tensor index, or n_tensors + op index for scratch */
    uint32_t offset;
} plan_item;

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

/* Strategy bit 0: order by first use (then size) instead of largest first.
 * Bit 1: first fit (lowest offset) instead of best fit (smallest gap). */
#define PLAN_STRATEGIES 4u

static int goes_before(const plan_item *x, const plan_item *y, uint32_t strategy) {
    if (strategy & 1u) {
        if (x->first != y->first) return x->first < y->first;
        if (x->size != y->size) return x->size > y->size;
        return x->id < y->id;
    }
    if (x->size != y->size) return x->size > y->size;
    if (x->first != y->first) return x->first < y->first;
    return x->id < y->id;
}

/* Sorts items by the strategy's order (deterministic: ties by index), then
 * places each at a gap among the already-placed buffers whose lifetimes
 * overlap its own, else on top. Returns the peak. Insertion sort: graphs
 * here have hundreds of buffers. */
static size_t place(plan_item *items, uint32_t *placed, uint32_t count, uint32_t strategy) {
    for (uint32_t a = 1; a < count; a++) {
        plan_item x = items[a];
        uint32_t b = a;
        while (b > 0 && goes_before(&x, &items[b - 1], strategy)) {
            items[b] = items[b - 1];
            b--;
        }
        items[b] = x;
    }
    size_t top = 0;
    for (uint32_t a = 0; a < count; a++) {
        plan_item *x = &items[a];
        /* Placed buffers alive at the same time, in offset order. */
        uint32_t np = 0;
        for (uint32_t b = 0; b < a; b++) {
            const plan_item *y = &items[b];
            if (y->size == 0 || y->last < x->first || y->first > x->last) continue;
            uint32_t c = np++;
            while (c > 0 && items[placed[c - 1]].offset > y->offset) {
                placed[c] = placed[c - 1];
                c--;
            }
            placed[c] = b;
        }
        uint32_t cursor = 0, best = UINT32_MAX, best_gap = UINT32_MAX;
        for (uint32_t k = 0; k < np; k++) {
            const plan_item *y = &items[placed[k]];
            if (y->offset > cursor) {
                uint32_t gap = y->offset - cursor;
                if (gap >= x->size && gap < best_gap) {
                    best_gap = gap;
                    best = cursor;
                    if (strategy & 2u) break;
                }
            }
            if (y->offset + y->size > cursor) cursor = y->offset + y->size;
        }
        x->offset = best != UINT32_MAX ? best : cursor;
        if ((size_t)x->offset + x->size > top) top = (size_t)x->offset + x->size;
    }
    return top;
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

    /* Lifetimes from the execution order. */
    for (uint32_t i = 0; i < m->n_ops; i++) {
        const edge_op_rt *op = &m->ops[i];
        for (uint32_t k = 0; k < op->n_in + op->n_out; k++) {
            int32_t t = op->io[k];
            if (t < 0) continue;
            if (items[t].first > i) items[t].first = i;
            if (items[t].last < i) items[t].last = i;
        }
    }
    for (uint32_t k = 0; k < m->n_inputs; k++) items[fb_i32_at(m->inputs, k)].first = 0;
    for (uint32_t k = 0; k < m->n_outputs; k++) {
        plan_item *it = &items[fb_i32_at(m->outputs, k)];
        it->last = end;
        if (it->first == UINT32_MAX) it->first = 0;
    }
    for (uint32_t t = 0; t < nt; t++) {
        if (m->tensors[t].is_variable) {
            items[t].first = 0;
            items[t].last = end;
        }
    }
    /* A view keeps its root alive for as long as the view is used. */
    for (uint32_t t = 0; t < nt; t++) {
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
        plan_item it = items[t];
        it.size = (uint32_t)EDGE_ALIGN_UP(tr->bytes);
        items[count++] = it;
    }
    for (uint32_t i = 0; i < m->n_ops; i++) {
        m->ops[i].scratch_offset = -1;
        if (!m->ops[i].scratch_bytes) continue;
        plan_item it = {(uint32_t)EDGE_ALIGN_UP(m->ops[i].scratch_bytes), i, i, nt + i, 0};
        items[count++] = it;
    }

    /* Greedy placement is a heuristic: a few orders and fit rules are tried
     * and the smallest peak is kept (then replayed, so offsets match it). */
    uint32_t best_s = 0;
    size_t best_top = SIZE_MAX;
    for (uint32_t s = 0; s < PLAN_STRATEGIES; s++) {
        size_t top = place(items, placed, count, s);
        if (top < best_top) best_top = top, best_s = s;
    }
    *peak = place(items, placed, count, best_s);

    for (uint32_t a = 0; a < count; a++) {
        const plan_item *x = &items[a];
        if (x->id < nt) m->tensors[x->id].offset = (int32_t)x->offset;
        else m->ops[x->id - nt].scratch_offset = (int32_t)x->offset;
    }
    return EDGE_OK;
}
