/*
 * max_pool_2d.c — MAX_POOL_2D (BuiltinOperator 17).
 *
 * As TFLite's reference MaxPool; the shared prepare is in pool_2d.c.
 */
#include "pool_2d.h"

static edge_status prepare(edge_op_ctx *c) { return edge_pool2d_prepare(c, 0); }

static edge_status eval(edge_op_ctx *c) {
    const pool2d_params *p = (const pool2d_params *)c->params;
    const void *in = edge_in_data(c, 0);
    void *out = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: edge_max_pool_s8(&p->pp, (const int8_t *)in, (int8_t *)out); break;
    case EDGE_UINT8: edge_max_pool_u8(&p->pp, (const uint8_t *)in, (uint8_t *)out); break;
    case EDGE_INT16: edge_max_pool_s16(&p->pp, (const int16_t *)in, (int16_t *)out); break;
    default: edge_max_pool_f32(&p->pp, (const float *)in, (float *)out); break;
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_max_pool_2d = {17, "MAX_POOL_2D", prepare, eval, 0};
