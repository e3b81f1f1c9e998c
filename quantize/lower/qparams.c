/* SPDX-License-Identifier: Apache-2.0 */
/*
 * qparams.c — the converter's quantization parameters for a float range
 * (see lower.h).
 */
#include <math.h>

#include "lower.h"

#include "edge/quant.h"

/* quantization_utils.cc ExpandVerySmallRange: a range no wider than this is
 * widened to at least [-5e-7, 5e-7] (a dead ReLU's [0, 0], an all-zero
 * weight channel), so that no scale is 0. */
#define NEAR_ZERO_RANGE 1.0e-6

static void expand_small_range(double *mn, double *mx) {
    if (*mx - *mn > NEAR_ZERO_RANGE) return;
    if (*mn > -NEAR_ZERO_RANGE / 2) *mn = -NEAR_ZERO_RANGE / 2;
    if (*mx < NEAR_ZERO_RANGE / 2) *mx = NEAR_ZERO_RANGE / 2;
}

int edgeq_act_qparams(float rmin, float rmax, float *scale, int32_t *zero_point) {
    if (!isfinite(rmin) || !isfinite(rmax) || rmin > rmax) return -1;
    /* ConvertStatsToQDQs: the range must contain 0 so that 0.0 (padding,
     * ReLU's floor) is exact. */
    double mn = rmin < 0 ? rmin : 0.0, mx = rmax > 0 ? rmax : 0.0;
    expand_small_range(&mn, &mx);
    /* DownCastScale (legacy_float_scale): scale and zero point in float. */
    float s = ((float)mx - (float)mn) / 255.0f;
    if (!(s > 0.0f) || !isfinite(s)) return -1;
    float zp_from_min = (float)(-128.0 - mn / (double)s);
    int32_t zp;
    if (zp_from_min < -128.0f)
        zp = -128;
    else if (zp_from_min > 127.0f)
        zp = 127;
    else
        zp = (int32_t)edge_roundf(zp_from_min);
    *scale = s;
    *zero_point = zp;
    return 0;
}

float edgeq_weight_scale(float wmin, float wmax) {
    double mn = wmin < 0 ? wmin : 0.0, mx = wmax > 0 ? wmax : 0.0;
    double a = fabs(mn) > fabs(mx) ? fabs(mn) : fabs(mx);
    mn = -a;
    mx = a;
    expand_small_range(&mn, &mx);
    return ((float)mx - (float)mn) / 254.0f;
}
