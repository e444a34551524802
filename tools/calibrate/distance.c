/*
 * The distance a network's latency follows (distance.h).
 */
#include <math.h>
#include <stdlib.h>

#include "calibrate/distance.h"
#include "model/fit.h"

static int cs_cal_add_pair(int (*pair)[2], int n, int max, int p, int a, int b)
{
    if (n >= max || a < 0 || b < 0 || a >= p || b >= p || a == b || a == 0 || b == 0)
        return n; /* rank 0's pairs are measured already */
    for (int i = 0; i < n; i++)
        if ((pair[i][0] == a && pair[i][1] == b) || (pair[i][0] == b && pair[i][1] == a))
            return n;
    pair[n][0] = a;
    pair[n][1] = b;
    return n + 1;
}

int cs_cal_distance_pairs(int p, int (*pair)[2], int max)
{
    int x = 1, n = 0;
    while (2 * x < p)
        x *= 2;                                             /* the largest power of two below p */
    n = cs_cal_add_pair(pair, n, max, p, x - 1, x);         /* log2 x + 1 bits, 1 apart */
    n = cs_cal_add_pair(pair, n, max, p, x / 2 - 1, x / 2); /* log2 x bits, 1 apart */
    n = cs_cal_add_pair(pair, n, max, p, 1, 1 + x);         /* 1 bit, x apart */
    n = cs_cal_add_pair(pair, n, max, p, 1, 1 + x / 2);     /* 1 bit, x / 2 apart */
    n = cs_cal_add_pair(pair, n, max, p, 1, 2);             /* 2 bits, 1 apart */
    n = cs_cal_add_pair(pair, n, max, p, p - 2, p - 1);
    return n;
}

/* Fit t = alpha + alpha_hop (hops - 1) under `distance`: the residuals' rms, or INFINITY. */
static double cs_cal_form(const cs_cal_pair_latency *s, int n, int distance, double *alpha, double *hop, double *span)
{
    double *x = malloc(2 * sizeof(double) * (size_t)n), *t = x + n, rms = INFINITY;
    cs_fit f;
    long lo = -1, hi = -1;
    if (!x)
        return INFINITY;
    for (int i = 0; i < n; i++) {
        const long h = cs_hops(distance, s[i].a, s[i].b);
        x[i] = (double)(h - 1);
        t[i] = s[i].t;
        lo = lo < 0 || h < lo ? h : lo;
        hi = h > hi ? h : hi;
    }
    if (cs_fit_line(x, t, n, &f) == 0 && f.a > 0.0) {
        *alpha = f.a;
        *hop = f.b;
        *span = (f.a + f.b * (double)(hi - 1)) / (f.a + f.b * (double)(lo - 1));
        rms = f.rms_residual;
    }
    free(x);
    return rms;
}

int cs_cal_distance_fit_of(const cs_cal_pair_latency *s, int n, cs_cal_distance_fit *fit)
{
    double mean = 0.0, flat = 0.0;
    *fit = (cs_cal_distance_fit){.distance = CS_DISTANCE_NONE};
    if (n < 3)
        return CS_DISTANCE_NONE;
    for (int i = 0; i < n; i++)
        mean += s[i].t / n;
    for (int i = 0; i < n; i++)
        flat += (s[i].t - mean) * (s[i].t - mean) / (s[i].t * s[i].t) / n;
    fit->rms_flat = sqrt(flat);
    double a[2], h[2], span[2], rms[2];
    for (int k = 0; k < 2; k++)
        rms[k] = cs_cal_form(s, n, k ? CS_DISTANCE_DIFFERENCE : CS_DISTANCE_XOR, &a[k], &h[k], &span[k]);
    const int best = rms[1] < rms[0];
    fit->rms = rms[best];
    if (!(rms[best] <= CS_CAL_DISTANCE_FIT && rms[best] <= 0.5 * fit->rms_flat && rms[best] < 0.5 * rms[!best] &&
          h[best] > 0.0 && span[best] >= CS_CAL_DISTANCE_SPAN))
        return CS_DISTANCE_NONE;
    fit->distance = best ? CS_DISTANCE_DIFFERENCE : CS_DISTANCE_XOR;
    fit->alpha = a[best];
    fit->alpha_hop = h[best];
    return fit->distance;
}
