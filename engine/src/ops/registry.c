/*
 * registry.c — maps TFLite builtin operator codes to implementations.
 */
#include "ops.h"

/* Strong references, so a plain static link of libedge.a pulls in every op. */
#define EDGE_OP_PTR(name) &edge_op_##name,
static const edge_op_impl *const all_ops[] = {EDGE_OP_LIST(EDGE_OP_PTR)};
static const edge_op_impl *const float_ops[] = {EDGE_FLOAT_OP_LIST(EDGE_OP_PTR) 0};
#undef EDGE_OP_PTR

static const char *const builtin_names[] = {
#include "builtin_names.inc"
};

const edge_op_impl *edge_op_find(int32_t code) {
    for (uint32_t i = 0; i < sizeof all_ops / sizeof all_ops[0]; i++) {
        if (all_ops[i] && all_ops[i]->code == code) return all_ops[i];
    }
    return 0;
}

const edge_op_impl *edge_op_find_float(int32_t code) {
    for (uint32_t i = 0; float_ops[i]; i++) {
        if (float_ops[i]->code == code) return float_ops[i];
    }
    return 0;
}

const char *edge_builtin_name(int32_t code) {
    if (code == 32) return "CUSTOM";
    if (code >= 0 && (uint32_t)code < sizeof builtin_names / sizeof builtin_names[0] &&
        builtin_names[code])
        return builtin_names[code];
    return "UNKNOWN";
}
