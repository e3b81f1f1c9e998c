/* SPDX-License-Identifier: Apache-2.0 */
/*
 * batch_to_space_nd.c — BATCH_TO_SPACE_ND (BuiltinOperator 37): the inverse
 * of SPACE_TO_BATCH_ND on a 3-D or 4-D input [B * prod(block), H, (W,) C]:
 * the batches interleaved back into block_shape (input 1) tiles, then
 * cropped by crops (input 2, [M, 2]), as TFLite's reference kernel: input
 * batch (by * bw + bx) * B + b, pixel (h, w) lands at output
 * (b, h * bh + by - crop_top, w * bw + bx - crop_left) when inside. Both
 * constant int32 (checked at load). Types as TFLite's: float32, int8,
 * uint8, int16, int32 and int64.
 */
#include "data_move.h"

typedef struct b2s_params {
    int32_t in_b, in_h, in_w, depth;
    int32_t batch, out_h, out_w;
    int32_t bh, bw, crop_t, crop_l;
    uint32_t elem;
} b2s_params;

static const edge_op_form form = {3, 3, 6, EDGE_FORM_SAME_TYPE, EDGE_BUILTIN_OPTIONS_BATCH_TO_SPACE_ND_OPTIONS, 0,
                                   "BatchToSpaceNDOptions"};

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
    const edge_tensor_rt *blk = edge_in(c, 1), *crops = edge_in(c, 2);
    st = edge_index_check(c, blk, "block_shape", 0, m, 1);
    if (st) return st;
    if (crops->t.type != EDGE_INT32 || !crops->is_const || crops->t.rank != 2 || crops->t.dims[0] != m ||
        crops->t.dims[1] != 2)
        return edge_op_fail(c, EDGE_ERR_UNSUPPORTED, "crops must be a constant int32 [%d, 2] tensor", m);
    b2s_params p;
    edge_memset(&p, 0, sizeof p);
    p.in_b = in->t.dims[0];
    p.in_h = in->t.dims[1];
    p.in_w = rank == 4 ? in->t.dims[2] : 1;
    p.depth = in->t.dims[rank - 1];
    int32_t blocks[2] = {1, 1}, ct[2] = {0, 0}, cb[2] = {0, 0};
    int64_t prod = 1, full[2] = {p.in_h, p.in_w};
    for (int32_t d = 0; d < m; d++) {
        blocks[d] = (int32_t)edge_index_at(blk->t.data, blk->t.type, (uint32_t)d);
        ct[d] = (int32_t)edge_index_at(crops->t.data, EDGE_INT32, 2u * (uint32_t)d);
        cb[d] = (int32_t)edge_index_at(crops->t.data, EDGE_INT32, 2u * (uint32_t)d + 1u);
        if (blocks[d] < 1 || ct[d] < 0 || cb[d] < 0)
            return edge_op_fail(c, EDGE_ERR_MODEL, "block %d or crops (%d, %d) of dimension %d invalid", blocks[d],
                                ct[d], cb[d], d + 1);
        full[d] *= blocks[d];
        if ((int64_t)ct[d] + cb[d] > full[d])
            return edge_op_fail(c, EDGE_ERR_MODEL, "crops (%d, %d) exceed dimension %d (%ld)", ct[d], cb[d], d + 1,
                                (long)full[d]);
        prod *= blocks[d];
    }
    if (p.in_b % prod != 0)
        return edge_op_fail(c, EDGE_ERR_MODEL, "input batch %d is not a multiple of the %ld blocks", p.in_b,
                            (long)prod);
    p.bh = blocks[0], p.bw = blocks[1], p.crop_t = ct[0], p.crop_l = ct[1];
    p.batch = (int32_t)(p.in_b / prod);
    p.out_h = (int32_t)(full[0] - ct[0] - cb[0]);
    p.out_w = m == 2 ? (int32_t)(full[1] - ct[1] - cb[1]) : 1;
    int ok = out->t.rank == rank && out->t.dims[0] == p.batch && out->t.dims[1] == p.out_h &&
             out->t.dims[rank - 1] == p.depth && (m == 1 || out->t.dims[2] == p.out_w);
    if (!ok) return edge_op_fail(c, EDGE_ERR_SHAPE, "output shape is not the blocks joined and cropped");
    p.elem = (uint32_t)edge_type_size(t);
    return edge_op_keep_params(c, &p, (uint32_t)sizeof p);
}

static edge_status eval(edge_op_ctx *c) {
    const b2s_params *p = (const b2s_params *)c->params;
    const uint8_t *src = (const uint8_t *)edge_in_data(c, 0);
    uint8_t *dst = (uint8_t *)edge_out_data(c, 0);
    const size_t px = (size_t)p->depth * p->elem;
    for (int32_t b = 0; b < p->batch; b++)
        for (int32_t y = 0; y < p->out_h; y++) {
            const int32_t hy = y + p->crop_t, h = hy / p->bh, by = hy % p->bh;
            for (int32_t x = 0; x < p->out_w; x++, dst += px) {
                const int32_t wx = x + p->crop_l, w = wx / p->bw, bx = wx % p->bw;
                const size_t ib = (size_t)(by * p->bw + bx) * (size_t)p->batch + (size_t)b;
                edge_memcpy(dst, src + ((ib * (size_t)p->in_h + (size_t)h) * (size_t)p->in_w + (size_t)w) * px, px);
            }
        }
    return EDGE_OK;
}

const edge_op_impl edge_op_batch_to_space_nd = {EDGE_BUILTIN_BATCH_TO_SPACE_ND, "BATCH_TO_SPACE_ND", prepare,
                                                eval, 0, 0, 0};
