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

#endif
