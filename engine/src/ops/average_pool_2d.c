/*
 * average_pool_2d.c — AVERAGE_POOL_2D (BuiltinOperator 1).
 *
 * As TFLite's reference AveragePool (see kernels/pool.h for the rounding); the shared prepare is in pool_2d.c.
 */
#include "pool_2d.h"

static edge_status prepare(edge_op_ctx *c) { return edge_pool2d_prepare(c, 1); }

static edge_status eval(edge_op_ctx *c) {
    const pool2d_params *p = (const pool2d_params *)c->params;
    const void *in = edge_in_data(c, 0);
    void *out = edge_out_data(c, 0);
    switch (p->type) {
    case EDGE_INT8: edge_avg_pool_s8(&p->pp, (const int8_t *)in, (int8_t *)out); break;
    case EDGE_UINT8: edge_avg_pool_u8(&p->pp, (const uint8_t *)in, (uint8_t *)out); break;
    case EDGE_INT16: edge_avg_pool_s16(&p->pp, (const int16_t *)in, (int16_t *)out); break;
    default: edge_avg_pool_f32(&p->pp, (const float *)in, (float *)out); break;
    }
    return EDGE_OK;
}

const edge_op_impl edge_op_average_pool_2d = {1, "AVERAGE_POOL_2D", prepare, eval, 0};
