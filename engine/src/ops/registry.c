/* SPDX-License-Identifier: Apache-2.0 */
/*
 * registry.c — maps TFLite builtin operator codes to implementations.
 *
 * By default every op is built in. Firmware that runs known models can keep
 * only the ops they use: compile this file with
 *   -DEDGE_OPS_HEADER='"model_ops.h"'
 * where the header (written by `edgeq export --ops model.tflite`) defines
 *   EDGE_OPS(X)        the int8 ops, e.g. X(conv_2d) X(softmax)
 *   EDGE_FLOAT_OPS(X)  the float twins (names ending in _f), maybe empty
 * The ops left out are never referenced, so a static link drops their code;
 * a model that needs one of them is refused at load, by name.
 */
#include "ops.h"

#ifdef EDGE_OPS_HEADER
#include EDGE_OPS_HEADER
#if !defined(EDGE_OPS) || !defined(EDGE_FLOAT_OPS)
#error "EDGE_OPS_HEADER must define EDGE_OPS(X) and EDGE_FLOAT_OPS(X)"
#endif
#define EDGE_OPS_PARTIAL 1
#else
#define EDGE_OPS EDGE_OP_LIST
#define EDGE_FLOAT_OPS EDGE_FLOAT_OP_LIST
#define EDGE_OPS_PARTIAL 0
#endif

/* Strong references, so a plain static link of libedge.a pulls in every op
 * selected. The trailing 0 ends each list (and keeps an empty one valid). */
#define EDGE_OP_PTR(name) &edge_op_##name,
static const edge_op_impl *const all_ops[] = {EDGE_OPS(EDGE_OP_PTR) 0};
static const edge_op_impl *const float_ops[] = {EDGE_FLOAT_OPS(EDGE_OP_PTR) 0};
#undef EDGE_OP_PTR


const edge_op_impl *edge_op_find(int32_t code) {
    for (uint32_t i = 0; all_ops[i]; i++) {
        if (all_ops[i]->code == code) return all_ops[i];
    }
    return 0;
}

const edge_op_impl *edge_op_find_float(int32_t code) {
    for (uint32_t i = 0; float_ops[i]; i++) {
        if (float_ops[i]->code == code) return float_ops[i];
    }
    return 0;
}

int edge_op_set_partial(void) { return EDGE_OPS_PARTIAL; }
