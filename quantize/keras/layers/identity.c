/* SPDX-License-Identifier: Apache-2.0 */
/*
 * identity.c — Dropout and the other layers that do nothing at inference.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers.h"

static int build_identity(kc *k, const keras_call *c, int *out) {
    const char *cls = c->cls;
    const char *nname = c->nname;
    const int *in = c->in;
    int idx = kc_node(k, EDGEQ_OP_IDENTITY, nname, cls, in, 1);
    if (idx < 0) return -1;
    *out = idx;
    return kc_infer(k, idx);
}

const keras_layer keras_layers_identity[] = {
    {"Dropout", build_identity, 0},
    {"SpatialDropout1D", build_identity, 0},
    {"SpatialDropout2D", build_identity, 0},
    {"SpatialDropout3D", build_identity, 0},
    {"GaussianNoise", build_identity, 0},
    {"GaussianDropout", build_identity, 0},
    {"AlphaDropout", build_identity, 0},
    {"ActivityRegularization", build_identity, 0},
    {"Identity", build_identity, 0},
    {NULL, NULL, 0},
};
