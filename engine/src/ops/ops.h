/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops.h — every operator implementation the registry knows. One file per op
 * in this folder defines each `edge_op_<name>` (see edge_internal.h for the
 * prepare/eval contract).
 */
#ifndef EDGE_OPS_H
#define EDGE_OPS_H

#include "../edge_internal.h"

/* The shape and data-movement ops: one implementation for every element
 * type, float32 included, so their float twins (the `_f` names `edgeq
 * export --ops` writes for a float32 input 0) are the ops themselves. */
#define EDGE_DATA_OP_LIST(X)                                                   \
    X(shape) X(expand_dims) X(pack) X(unpack) X(split) X(split_v)             \
    X(transpose) X(slice) X(tile) X(fill) X(zeros_like) X(broadcast_to)       \
    X(cast) X(reverse_v2) X(gather) X(gather_nd) X(space_to_depth)            \
    X(depth_to_space) X(space_to_batch_nd) X(batch_to_space_nd) X(mirror_pad)  \
    X(broadcast_args) X(dynamic_update_slice) X(embedding_lookup)
#define edge_op_shape_f edge_op_shape
#define edge_op_expand_dims_f edge_op_expand_dims
#define edge_op_pack_f edge_op_pack
#define edge_op_unpack_f edge_op_unpack
#define edge_op_split_f edge_op_split
#define edge_op_split_v_f edge_op_split_v
#define edge_op_transpose_f edge_op_transpose
#define edge_op_slice_f edge_op_slice
#define edge_op_tile_f edge_op_tile
#define edge_op_fill_f edge_op_fill
#define edge_op_zeros_like_f edge_op_zeros_like
#define edge_op_broadcast_to_f edge_op_broadcast_to
#define edge_op_cast_f edge_op_cast
#define edge_op_reverse_v2_f edge_op_reverse_v2
#define edge_op_gather_f edge_op_gather
#define edge_op_gather_nd_f edge_op_gather_nd
#define edge_op_space_to_depth_f edge_op_space_to_depth
#define edge_op_depth_to_space_f edge_op_depth_to_space
#define edge_op_space_to_batch_nd_f edge_op_space_to_batch_nd
#define edge_op_batch_to_space_nd_f edge_op_batch_to_space_nd
#define edge_op_mirror_pad_f edge_op_mirror_pad
#define edge_op_broadcast_args_f edge_op_broadcast_args
#define edge_op_dynamic_update_slice_f edge_op_dynamic_update_slice
#define edge_op_embedding_lookup_f edge_op_embedding_lookup

#define EDGE_OP_LIST(X)                                                        \
    X(conv_2d) X(depthwise_conv_2d) X(fully_connected)                        \
    X(add) X(sub) X(mul)                                                      \
    X(average_pool_2d) X(max_pool_2d) X(mean)                                 \
    X(softmax) X(logistic) X(tanh) X(hard_swish) X(relu) X(relu6)             \
    X(leaky_relu) X(quantize) X(dequantize)                                   \
    X(reshape) X(squeeze) X(pad) X(padv2) X(concatenation) X(strided_slice)    \
    X(maximum) X(minimum) EDGE_DATA_OP_LIST(X)

/* Float twins of ops whose int8 file stays int8-only: chosen by the loader
 * when the op's input 0 is FLOAT32 or BFLOAT16 (edge_op_find_float). Each
 * `edge_op_<name>` here has the same `code` as its int8 op. */
#define EDGE_FLOAT_OP_LIST(X)                                                  \
    X(conv_2d_f) X(depthwise_conv_2d_f) X(fully_connected_f)                  \
    X(add_f) X(sub_f) X(mul_f)                                                \
    X(average_pool_2d_f) X(max_pool_2d_f) X(mean_f)                           \
    X(softmax_f) X(logistic_f) X(tanh_f) X(hard_swish_f) X(relu_f) X(relu6_f) \
    X(leaky_relu_f) X(quantize_f) X(dequantize_f)                             \
    X(reshape_f) X(squeeze_f) X(pad_f) X(padv2_f) X(concatenation_f)         \
    X(strided_slice_f) X(maximum_f) X(minimum_f)

/* The float32 code of ops whose float twin (float_wrap.c) runs it apart
 * from the int8 op, so that int8-only builds leave it out. */
extern const edge_op_impl edge_op_softmax_float;
extern const edge_op_impl edge_op_average_pool_2d_float;
extern const edge_op_impl edge_op_max_pool_2d_float;
extern const edge_op_impl edge_op_add_float, edge_op_sub_float, edge_op_mul_float;
extern const edge_op_impl edge_op_logistic_float, edge_op_tanh_float, edge_op_hard_swish_float;
extern const edge_op_impl edge_op_relu_float, edge_op_relu6_float, edge_op_leaky_relu_float;

#define EDGE_OP_DECLARE(name) extern const edge_op_impl edge_op_##name;
EDGE_OP_LIST(EDGE_OP_DECLARE)
EDGE_FLOAT_OP_LIST(EDGE_OP_DECLARE)
#undef EDGE_OP_DECLARE

#endif
