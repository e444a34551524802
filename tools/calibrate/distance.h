/*
 * Does a message's latency depend on its peer (model.distance)? From the
 * latencies of a few pairs of ranks (rank 0's to every rank and a handful
 * of others, measured by collshim-calibrate --fit), as pure functions: the
 * pairs to sample, and the form their latencies follow.
 */
#ifndef CS_CAL_DISTANCE_H
#define CS_CAL_DISTANCE_H

#include "common.h"

/* One pair's latency: half a round trip of a small message, seconds. */
typedef struct cs_cal_pair_latency {
    int a, b;
    double t;
} cs_cal_pair_latency;

/* Pairs of ranks below p besides rank 0's, whose hops the two forms count
 * apart (the neighbours either side of a power of two: many bits, one
 * apart; ranks a power of two apart: one bit, many apart): at most max,
 * into pair[i][0..1]; returns how many. */
int cs_cal_distance_pairs(int p, int (*pair)[2], int max);

/* What the latencies follow: how well a form fits them, and the fit. */
typedef struct cs_cal_distance_fit {
    int distance;     /* CS_DISTANCE_XOR, CS_DISTANCE_DIFFERENCE, or CS_DISTANCE_NONE */
    double alpha;     /* the latency at one link */
    double alpha_hop; /* per link beyond the first */
    double rms;       /* the form's residuals, root mean square of (t - fit) / t */
    double rms_flat;  /* one latency for every pair's */
} cs_cal_distance_fit;

/* The form the latencies s[0..n) follow: the one of XOR and difference
 * whose line t = alpha + alpha_hop (hops - 1) fits them within
 * CS_CAL_DISTANCE_FIT, at most half the residual of one latency for all,
 * clearly better than the other, and whose farthest pair is at least
 * CS_CAL_DISTANCE_SPAN times its nearest; else none (noise, a fat tree's
 * levels, one switch). Returns the form. */
#define CS_CAL_DISTANCE_FIT 0.1
#define CS_CAL_DISTANCE_SPAN 1.25
int cs_cal_distance_fit_of(const cs_cal_pair_latency *s, int n, cs_cal_distance_fit *fit);

#endif
