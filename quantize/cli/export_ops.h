/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export_ops.h — the op-selection header for firmware (`edgeq export --ops`).
 */
#ifndef EDGEQ_EXPORT_OPS_H
#define EDGEQ_EXPORT_OPS_H

/* Load each of the n models and write the header naming the ops they use
 * to `out` (all or nothing) or stdout when out is NULL. Returns an EDGEQ_EXIT_*
 * code; a model the engine refuses fails with the engine's reason. */
int edgeq_export_ops(const char *const *paths, int n, const char *out);

#endif
