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

/* R^2 and the relative residuals of the line. */
static void cs_fit_quality(const double *x, const double *t, int n, const cs_sums *m, cs_fit *f)
{
    const double mean = m->st / m->s;
    double res = 0.0, tot = 0.0, sq = 0.0;
    f->max_residual = 0.0;
    for (int i = 0; i < n; i++) {
        const double w = 1.0 / (t[i] * t[i]);
        const double e = t[i] - (f->a + f->b * x[i]);
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
    cs_fit_quality(x, t, n, &m, out);
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
    cs_fit_quality(x, t, n, &m, out);
    return 0;
}
