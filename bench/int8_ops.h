/* SPDX-License-Identifier: Apache-2.0 */
/* bench/int8_ops.h — the op selection (engine/src/ops/registry.c,
 * EDGE_OPS_HEADER) of the engine's whole int8 op set without the float32 /
 * bf16 twins: what the .text target counts. */
#define EDGE_OPS(X) EDGE_OP_LIST(X)
#define EDGE_FLOAT_OPS(X)
