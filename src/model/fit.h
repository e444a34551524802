/*
 * Fitting the model to measurements: a straight line t = a + b*x by least
 * squares, as collshim-calibrate fits alpha and beta to ping-pong times
 * (t = alpha + beta*m), and the per-byte costs rho and gamma (a = 0).
 */
#ifndef CS_FIT_H
#define CS_FIT_H

typedef struct cs_fit {
    double a, b;         /* t = a + b*x, both >= 0 */
    double r2;           /* coefficient of determination, of the weighted fit */
    double max_residual; /* the largest |t - fit| / t over the points */
    double rms_residual; /* root mean square of (t - fit) / t */
    int n;               /* points */
    int clamped;         /* 1: the free fit had a < 0 or b < 0, and that one is 0 */
} cs_fit;

/*
 * Fit t = a + b*x to n points (x[i], t[i]), t[i] > 0, minimising the sum of
 * squared *relative* errors ((t - a - b*x) / t)^2: times spanning six orders
 * of magnitude (a 0-byte and a 4 MiB message) all count, where plain least
 * squares would fit the largest and leave a (alpha) to chance. A negative a
 * or b (noise; a model cost is >= 0) is set to 0 and the other refitted.
 * Returns 0, or -1 when the points do not determine a line (n < 2, a t <= 0,
 * all x equal).
 */
int cs_fit_line(const double *x, const double *t, int n, cs_fit *out);

/* The same with a = 0: t = b*x (a per-byte cost). n >= 1. */
int cs_fit_slope(const double *x, const double *t, int n, cs_fit *out);

/*
 * o (overhead) and alpha from k-way round trips of tiny messages
 * (collshim-calibrate --fit): one rank sends one message to each of k peers
 * (round robin when k is more than the peers), then receives one back from
 * each, and each peer returns what it got; t[i] is half a round trip with
 * k[i] messages each way (no bytes to speak of). The pricer
 * (sched/pricer.h) prices such a round trip, as rounds of a schedule, at
 * max(2*k*o, 2*alpha + o + k*o): the poster pays o for each of its 2k posts,
 * the peers one o each, and concurrent messages pay alpha once. So a point
 * lies on t = alpha + o/2 + o*k/2 until the posts bind it, then on t = o*k.
 * Fits both lines (weighted as cs_fit_line; a point on the one that is
 * larger under the fit) and returns 0 with out->a = alpha, out->b = o, or -1
 * as cs_fit_line. Messages that each paid their own alpha (no overlap) show
 * as an o near alpha.
 */
int cs_fit_overhead(const double *k, const double *t, int n, cs_fit *out);

#endif
