/* SPDX-License-Identifier: Apache-2.0 */
/*
 * builtin_names.c — TFLite builtin operator names, for messages. Apart
 * from registry.c (which firmware recompiles with its op list) so that the
 * error path (util.c) does not depend on the op table.
 */
#include "ops.h"

static const char *const builtin_names[] = {
#include "builtin_names.inc"
};

const char *edge_builtin_name(int32_t code) {
    if (code == EDGE_BUILTIN_CUSTOM) return "CUSTOM";
    if (code >= 0 && (uint32_t)code < sizeof builtin_names / sizeof builtin_names[0] &&
        builtin_names[code])
        return builtin_names[code];
    return "UNKNOWN";
}
