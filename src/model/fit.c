/*
 * Weighted least squares for t = a + b*x with weights 1/t^2 (fit.h): the
 * normal equations
 *     a*S + b*Sx  = St
 *     a*Sx + b*Sxx = Sxt
 * with S = sum w, Sx = sum w*x, St = sum w*t, Sxx = sum w*x^2, Sxt = sum w*x*t.
 */
#include <math.h>
#include <string.h>

#include "model/fit.h"

typedef struct cs_sums {
    double s, sx, st, sxx, sxt;
} cs_sums;

static int cs_fit_sums(const double *x, const double *t, int n, cs_sums *m)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < n; i++) {
        if (!(t[i] > 0.0) || !isfinite(t[i]) || !isfinite(x[i]))
            return -1;
        const double w = 1.0 / (t[i] * t[i]);
        m->s += w;
        m->sx += w * x[i];
        m->st += w * t[i];
        m->sxx += w * x[i] * x[i];
        m->sxt += w * x[i] * t[i];
    }
    return 0;
}

/* The fitted time of point i: the line's, or the overhead fit's (x: k, or NULL for the line's). */
static double cs_fit_at(const cs_fit *f, const double *x, const double *k, int i)
{
    if (!k)
        return f->a + f->b * x[i];
    return fmax(k[i] * f->b, f->a + 0.5 * f->b + 0.5 * k[i] * f->b);
}

/* R^2 and the relative residuals of the fit (x for a line, k for the overhead fit). */
static void cs_fit_quality(const double *x, const double *k, const double *t, int n, const cs_sums *m, cs_fit *f)
{
    const double mean = m->st / m->s;
    double res = 0.0, tot = 0.0, sq = 0.0;
    f->max_residual = 0.0;
    for (int i = 0; i < n; i++) {
        const double w = 1.0 / (t[i] * t[i]);
        const double e = t[i] - cs_fit_at(f, x, k, i);
        res += w * e * e;
        tot += w * (t[i] - mean) * (t[i] - mean);
        sq += (e / t[i]) * (e / t[i]);
        if (fabs(e / t[i]) > f->max_residual)
            f->max_residual = fabs(e / t[i]);
    }
    f->r2 = tot > 0.0 ? 1.0 - res / tot : (res == 0.0 ? 1.0 : 0.0);
    f->rms_residual = sqrt(sq / n);
    f->n = n;
}

int cs_fit_slope(const double *x, const double *t, int n, cs_fit *out)
{
    cs_sums m;
    memset(out, 0, sizeof *out);
    if (n < 1 || cs_fit_sums(x, t, n, &m) != 0 || m.sxx <= 0.0)
        return -1;
    out->b = fmax(0.0, m.sxt / m.sxx);
    cs_fit_quality(x, NULL, t, n, &m, out);
    return 0;
}

int cs_fit_line(const double *x, const double *t, int n, cs_fit *out)
{
    cs_sums m;
    memset(out, 0, sizeof *out);
    if (n < 2 || cs_fit_sums(x, t, n, &m) != 0)
        return -1;
    const double det = m.s * m.sxx - m.sx * m.sx;
    if (!(det > 1e-12 * m.s * m.sxx))
        return -1; /* every x the same: no slope to fit */
    out->a = (m.st * m.sxx - m.sx * m.sxt) / det;
    out->b = (m.s * m.sxt - m.sx * m.st) / det;
    if (out->a < 0.0) { /* through the origin */
        out->a = 0.0;
        out->b = fmax(0.0, m.sxt / m.sxx);
        out->clamped = 1;
    } else if (out->b < 0.0) { /* a constant */
        out->b = 0.0;
        out->a = m.st / m.s;
        out->clamped = 1;
    }
    cs_fit_quality(x, NULL, t, n, &m, out);
    return 0;
}

/*
 * cs_fit_overhead: each point is on one of two lines, t = alpha + o/2 + o*k/2
 * (u = 1, v = (k + 1)/2) or t = o*k (u = 0, v = k), whichever is larger
 * under the fit: weighted least squares for (alpha, o) over the points as
 * assigned, then each point reassigned, until none moves.
 */
int cs_fit_overhead(const double *k, const double *t, int n, cs_fit *out)
{
    cs_sums m;
    int posts[64] = {0}; /* 1: the point is bound by the poster's 2k posts */
    memset(out, 0, sizeof *out);
    if (n < 2 || n > 64 || cs_fit_sums(k, t, n, &m) != 0 || !(m.sxx * m.s - m.sx * m.sx > 1e-12 * m.s * m.sxx))
        return -1;
    for (int round = 0; round <= n; round++) {
        double suu = 0, suv = 0, svv = 0, sut = 0, svt = 0;
        for (int i = 0; i < n; i++) {
            const double w = 1.0 / (t[i] * t[i]), u = posts[i] ? 0.0 : 1.0;
            const double v = posts[i] ? k[i] : 0.5 * (k[i] + 1.0);
            suu += w * u * u, suv += w * u * v, svv += w * v * v, sut += w * u * t[i], svt += w * v * t[i];
        }
        const double det = suu * svv - suv * suv;
        out->clamped = 0;
        if (suu > 0 && det > 1e-12 * suu * svv) {
            out->a = (sut * svv - suv * svt) / det;
            out->b = (suu * svt - suv * sut) / det;
        } else { /* every point bound by the posts: no alpha to see */
            out->a = 0.0;
            out->b = svt / svv;
        }
        if (out->a < 0.0) { /* o alone */
            out->a = 0.0;
            out->b = svt / svv;
            out->clamped = 1;
        }
        if (out->b < 0.0) { /* alpha alone: every point on the first line */
            out->b = 0.0;
            out->a = sut / suu;
            out->clamped = 1;
        }
        int moved = 0;
        for (int i = 0; i < n; i++) {
            const int bound = k[i] * out->b > out->a + 0.5 * out->b + 0.5 * k[i] * out->b;
            moved |= bound != posts[i];
            posts[i] = bound;
        }
        if (!moved)
            break;
    }
    cs_fit_quality(NULL, k, t, n, &m, out);
    return 0;
}
