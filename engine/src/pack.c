/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack.c — packed weights (edge_model_pack, edge.h): the constants some
 * kernels would lay out on every invoke, laid out once in a caller buffer
 * beside the arena. Each op that packs (edge_op_impl.pack) gets its own
 * 32-byte-aligned region, in op order.
 */
#include "edge_internal.h"

#define PACK_ALIGN 32u

static size_t round_up(size_t n) { return (n + PACK_ALIGN - 1) & ~(size_t)(PACK_ALIGN - 1); }

/* The bytes op i packs (0 when its impl packs nothing). */
static uint32_t op_pack(edge_model *m, uint32_t i, uint8_t *dst) {
    edge_op_rt *op = &m->ops[i];
    if (!op->impl->pack || (op->fused & EDGE_FUSED_TAIL)) return 0;
    edge_op_ctx c = {m, i, op, op->params, 0, 0};
    return op->impl->pack(&c, dst);
}

size_t edge_model_pack_needed(const edge_model *m) {
    if (!m || !m->ready) return 0;
    size_t total = 0;
    for (uint32_t i = 0; i < m->n_ops; i++) total += round_up(op_pack((edge_model *)m, i, 0));
    /* Slack to align the caller's buffer. */
    return total ? total + PACK_ALIGN - 1 : 0;
}

edge_status edge_model_pack(edge_model *m, void *buf, size_t len) {
    if (!m) return EDGE_ERR_ARG;
    if (!m->ready) return edge_fail(m, EDGE_ERR_STATE, "pack before a successful edge_model_init");
    const size_t need = edge_model_pack_needed(m);
    if (!need) return EDGE_OK;
    if (!buf) return edge_fail(m, EDGE_ERR_ARG, "pack buffer is NULL");
    if (len < need)
        return edge_fail(m, EDGE_ERR_ARENA, "pack buffer of %zu bytes is too small: this model packs %zu", len,
                         need);
    uint8_t *dst = (uint8_t *)buf + (PACK_ALIGN - (uintptr_t)buf % PACK_ALIGN) % PACK_ALIGN;
    for (uint32_t i = 0; i < m->n_ops; i++) dst += round_up(op_pack(m, i, dst));
    return EDGE_OK;
}
