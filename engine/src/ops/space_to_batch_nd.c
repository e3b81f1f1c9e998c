/* SPDX-License-Identifier: Apache-2.0 */
/*
 * space_to_batch_nd.c — SPACE_TO_BATCH_ND (BuiltinOperator 38): a 3-D or
 * 4-D input [B, H, (W,) C] zero-padded (paddings: input 2, [M, 2]) and cut
 * into block_shape (input 1, M entries) tiles that become batches, as
 * TFLite's reference kernel: output batch (by * bw + bx) * B + b, pixel
 * (oh, ow) is padded input (b, oh * bh + by, ow * bw + bx). The padding
 * value is the output's zero point for quantized 8-bit types, else 0.
 * block_shape and paddings are constant int32 (checked at load). Types as
 * TFLite's: float32, int8, uint8, int16, int32 and int64.
 */
#include "data_move.h"

typedef struct s2b_params {
    int32_t batch, in_h, in_w, depth; /* the input's (in_w 1 when 3-D) */
    int32_t out_b, out_h, out_w;
    int32_t bh, bw, pad_t, pad_l;
    uint32_t elem;
    uint8_t fill[8]; /* one padding element */
} s2b_params;

static const edge_op_form form = {3, 3, 6, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_SPACE_TO_BATCH_ND_OPTIONS, 0,
                                   "SpaceToBatchNDOptions"};

static edge_status prepare(edge_op_ctx *c) {
    edge_tensor_rt *in, *out;
    edge_status st = edge_op_begin(c, &form, &in, &out);
    if (st) return st;
    const edge_type t = in->t.type;
    if (t != EDGE_FLOAT32 && t != EDGE_INT8 && t != EDGE_UINT8 && t != EDGE_INT16 && t != EDGE_INT32 &&
        t != EDGE_INT64)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED,
                            "type %s not supported (float32, int8, uint8, int16, int32, int64)", edge_type_name(t));
    const int32_t rank = in->t.rank, m = rank - 2;
    if (rank != 3 && rank != 4)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "input is %d-D (TFLite takes 3-D and 4-D)", rank);
    const edge_tensor_rt *blk = edge_in(c, 1), *pads = edge_in(c, 2);
    st = edge_index_check(c, blk, "block_shape", 0, m, 1);
    if (st) return st;
    if (pads->t.type != EDGE_INT32 || !pads->is_const || pads->t.rank != 2 || pads->t.dims[0] != m ||
        pads->t.dims[1] != 2)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "paddings must be a constant int32 [%d, 2] tensor", m);
    s2b_params p;
    edge_memset(&p, 0, sizeof p);
    p.batch = in->t.dims[0];
    p.in_h = in->t.dims[1];
    p.in_w = rank == 4 ? in->t.dims[2] : 1;
    p.depth = in->t.dims[rank - 1];
    int32_t blocks[2] = {1, 1}, pt[2] = {0, 0}, pb[2] = {0, 0};
    int64_t prod = 1;
    for (int32_t d = 0; d < m; d++) {
        blocks[d] = (int32_t)edge_index_at(blk->t.data, blk->t.type, (uint32_t)d);
        pt[d] = (int32_t)edge_index_at(pads->t.data, EDGE_INT32, 2u * (uint32_t)d);
        pb[d] = (int32_t)edge_index_at(pads->t.data, EDGE_INT32, 2u * (uint32_t)d + 1u);
        const int64_t padded = (int64_t)in->t.dims[d + 1] + pt[d] + pb[d];
        if (blocks[d] < 1 || pt[d] < 0 || pb[d] < 0 || padded % blocks[d] != 0)
            return edge_op_fail(c, EDGE_ERR_MODEL, "block %d and paddings (%d, %d) do not tile dimension %d (%d)",
                                blocks[d], pt[d], pb[d], d + 1, in->t.dims[d + 1]);
        prod *= blocks[d];
    }
    p.bh = blocks[0], p.bw = blocks[1], p.pad_t = pt[0], p.pad_l = pt[1];
    const int64_t ob = (int64_t)p.batch * prod, oh = ((int64_t)p.in_h + pt[0] + pb[0]) / blocks[0];
    const int64_t ow = m == 2 ? ((int64_t)p.in_w + pt[1] + pb[1]) / blocks[1] : 1;
    int ok = out->t.rank == rank && out->t.dims[0] == ob && out->t.dims[1] == oh &&
             out->t.dims[rank - 1] == p.depth && (m == 1 || out->t.dims[2] == ow);
    if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not the padded input cut into blocks");
    p.out_b = (int32_t)ob, p.out_h = (int32_t)oh, p.out_w = (int32_t)ow;
    p.elem = (uint32_t)edge_type_size(t);
    if (t == EDGE_INT8 || t == EDGE_UINT8) p.fill[0] = (uint8_t)edge_q_zero(out, 0);
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const s2b_params *p = (const s2b_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const size_t px = (size_t)p->depth * p->elem;
    for (int32_t ob = 0; ob < p->out_b; ob++) {
        const int32_t b = ob % p->batch, blk = ob / p->batch;
        const int32_t by = blk / p->bw, bx = blk % p->bw;
        for (int32_t oh = 0; oh < p->out_h; oh++) {
            const int32_t h = oh * p->bh + by - p->pad_t;
            for (int32_t ow = 0; ow < p->out_w; ow++, dst += px) {
                const int32_t w = ow * p->bw + bx - p->pad_l;
                if (h < 0 || h >= p->in_h || w < 0 || w >= p->in_w) {
                    for (size_t k = 0; k < px; k += p->elem) edge_memcpy(dst + k, p->fill, p->elem);
                } else {
                    edge_memcpy(dst, src + (((size_t)b * (size_t)p->in_h + (size_t)h) * (size_t)p->in_w + (size_t)w) * px, px);
                }
            }
        }
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_space_to_batch_nd = {EDGE_BUILTIN_SPACE_TO_BATCH_ND, "SPACE_TO_BATCH_ND", prepare,
                                                eval, 0, 0, 0};
