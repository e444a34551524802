/*
 * Size bands by segmented least squares (bands.h). The points are few (a
 * calibration's sizes, tens to hundreds), so every run's line is fitted
 * outright and its points' errors summed (cs_fit_line, O(n) a run, O(n^3)
 * in all): running sums would lose the small residuals of a good fit to
 * cancellation, and cannot cap a point's part (cs_bands_loss).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/bands.h"
#include "model/fit.h"

/* The fewest points of a run: two would fit any pair exactly, so a single
 * noisy point and a neighbour could buy a band of their own. */
enum { CS_BANDS_RUN_MIN = 3 };

#define CS_BANDS_SAME 0.05  /* lines this close (relative prices): one band */
#define CS_BANDS_MINOR 0.05 /* a term under this share of every time of a run: not measured there */

/* A run of points [lo, hi) and its line t = a + b*x. */
typedef struct cs_run {
    int lo, hi;
    double a, b;
} cs_run;

static int cs_bands_input_ok(const double *x, const double *t, int n, double alpha, double beta, double tol)
{
    if (n < 1 || !(alpha > 0.0) || !(beta > 0.0) || !(tol > 0.0) || !isfinite(alpha) || !isfinite(beta))
        return 0;
    for (int i = 0; i < n; i++) {
        if (!(t[i] > 0.0) || !isfinite(t[i]) || !(x[i] >= 0.0) || !isfinite(x[i]))
            return 0;
        if (i > 0 && x[i] < x[i - 1])
            return 0;
    }
    return 1;
}

double cs_bands_time(const cs_bands *b, double alpha, double beta, double m)
{
    double af = 1.0, bf = 1.0;
    for (int i = 0; b && i < b->n && (double)b->band[i].from <= m; i++) {
        af = b->band[i].alpha_factor;
        bf = b->band[i].beta_factor;
    }
    return alpha * af + beta * bf * m;
}

/*
 * A point's part of a fit's cost: its squared relative error, at most cap.
 * With cap = tol^2 = the penalty of a band, a band must set right more than
 * one point off by tol or more: one point far off (a timing disturbed once)
 * then costs no more than one a little over tol, and buys no band.
 */
static double cs_bands_loss(double e, double cap)
{
    return fmin(e * e, cap);
}

/* The cost of bands b (NULL: the line) over the points, and in *off how
 * many points they miss by more than tol (e^2 > cap). */
static double cs_bands_cost(const double *x, const double *t, int n, const cs_bands *b, double alpha, double beta,
                            double cap, int *off)
{
    double cost = 0.0;
    *off = 0;
    for (int i = 0; i < n; i++) {
        const double e = (t[i] - cs_bands_time(b, alpha, beta, x[i])) / t[i];
        cost += cs_bands_loss(e, cap);
        *off += e * e > cap;
    }
    return cost;
}

static int cmp_double(const void *p, const void *q)
{
    const double u = *(const double *)p, v = *(const double *)q;
    return (u > v) - (u < v);
}

/*
 * The variance of the points' relative noise, robustly: each point against
 * the chord of its two neighbours, which a line through all three meets
 * exactly, so only noise (and the few points beside a band's edge, which
 * the median ignores) leaves a residual. The residual's variance is
 * (1 + w^2 + (1-w)^2) times the noise's, w the chord's weight.
 */
static double cs_bands_noise(const double *x, const double *t, int n, double *scratch)
{
    int m = 0;
    for (int i = 1; i + 1 < n; i++) {
        if (!(x[i - 1] < x[i] && x[i] < x[i + 1]))
            continue;
        const double w = (x[i + 1] - x[i]) / (x[i + 1] - x[i - 1]);
        const double chord = w * t[i - 1] + (1.0 - w) * t[i + 1];
        scratch[m++] = fabs(t[i] - chord) / t[i] / sqrt(1.0 + w * w + (1.0 - w) * (1.0 - w));
    }
    if (m < 3)
        return 0.0;
    qsort(scratch, (size_t)m, sizeof *scratch, cmp_double);
    const double sigma = scratch[m / 2] / 0.6745; /* the median of |N(0, s)| is 0.6745 s */
    return sigma * sigma;
}

/* Whether a band may start at point i: not between two measurements of one size. */
static int cs_bands_edge(const double *x, int n, int i)
{
    return i == 0 || i == n || x[i - 1] < x[i];
}

/* The cost of run [i, j) under its own line, INFINITY where that is no run. */
static double cs_run_cost(const double *x, const double *t, int n, int i, int j, double cap)
{
    cs_fit f;
    if (j - i < CS_BANDS_RUN_MIN || !cs_bands_edge(x, n, i) || !cs_bands_edge(x, n, j) ||
        cs_fit_line(x + i, t + i, j - i, &f) != 0)
        return INFINITY;
    double c = 0.0;
    for (int k = i; k < j; k++)
        c += cs_bands_loss((t[k] - f.a - f.b * x[k]) / t[k], cap);
    return c;
}

/* cost[i * (n + 1) + j]: the cost of run [i, j). */
static void cs_bands_costs(const double *x, const double *t, int n, double cap, double *cost)
{
    for (int i = 0; i <= n; i++)
        for (int j = 0; j <= n; j++)
            cost[i * (n + 1) + j] = cs_run_cost(x, t, n, i, j, cap);
}

/*
 * The runs covering [0, n) of least cost plus lambda per run, at most
 * CS_BANDS_MAX of them: best[k][j], the least cost of [0, j) in k runs, is
 * best[k-1][i] + cost(i, j) for the best i (from[k][j]), and the number of
 * runs the k with the least best[k][n] + lambda*k. The runs' bounds go to
 * run[]; returns their number, 0 where none covers.
 */
static int cs_bands_runs(const double *cost, int n, double lambda, double *best, int *from, cs_run *run)
{
    const int w = n + 1;
    int k = 0;
    for (int j = 0; j <= n; j++)
        best[j] = j == 0 ? 0.0 : INFINITY;
    for (int r = 1; r <= CS_BANDS_MAX; r++)
        for (int j = 0; j <= n; j++) {
            best[r * w + j] = INFINITY;
            for (int i = 0; i < j; i++) {
                const double c = best[(r - 1) * w + i] + cost[i * w + j];
                if (c < best[r * w + j]) {
                    best[r * w + j] = c;
                    from[r * w + j] = i;
                }
            }
            if (j == n && isfinite(best[r * w + n]) &&
                (k == 0 || best[r * w + n] + lambda * r < best[k * w + n] + lambda * k))
                k = r;
        }
    for (int r = k, j = n; r > 0; j = from[r * w + j], r--) {
        run[r - 1].lo = from[r * w + j];
        run[r - 1].hi = j;
    }
    return k;
}

/* The largest share a line a + b*x takes of the times of run r's points. */
static double cs_run_share(const double *x, const double *t, const cs_run *r, double a, double b)
{
    double share = 0.0;
    for (int i = r->lo; i < r->hi; i++)
        share = fmax(share, (a + b * x[i]) / t[i]);
    return share;
}

/* r->a that fits best with r->b held: sum w (t - b x) / sum w, w = 1/t^2. */
static void cs_run_refit_a(const double *x, const double *t, cs_run *r)
{
    double num = 0.0, den = 0.0;
    for (int i = r->lo; i < r->hi; i++) {
        num += (t[i] - r->b * x[i]) / (t[i] * t[i]);
        den += 1.0 / (t[i] * t[i]);
    }
    r->a = fmax(0.0, num / den);
}

/* r->b that fits best with r->a held: sum w x (t - a) / sum w x^2. */
static void cs_run_refit_b(const double *x, const double *t, cs_run *r)
{
    double num = 0.0, den = 0.0;
    for (int i = r->lo; i < r->hi; i++) {
        num += x[i] * (t[i] - r->a) / (t[i] * t[i]);
        den += x[i] * x[i] / (t[i] * t[i]);
    }
    if (den > 0.0)
        r->b = fmax(0.0, num / den);
}

/*
 * A term that run r does not measure (under CS_BANDS_MINOR of every time):
 * the first of the candidates (a measuring neighbour's, the model's; < 0:
 * none) that does not matter there either, so that setting it changes no
 * time by more than the term itself did. Returns -1 where neither does.
 */
static double cs_run_borrow(const double *x, const double *t, const cs_run *r, int slope, double near, double model)
{
    const double cand[2] = {near, model};
    for (int c = 0; c < 2; c++)
        if (cand[c] >= 0.0 && cs_run_share(x, t, r, slope ? 0.0 : cand[c], slope ? cand[c] : 0.0) < CS_BANDS_MINOR)
            return cand[c];
    return -1.0;
}

/*
 * Each run's line, its unmeasured terms borrowed (cs_run_borrow): a slope
 * from the nearest run above that measures one (sizes too small for beta
 * take the next band's bandwidth), an intercept from the nearest below
 * (sizes too large for alpha keep the latency of the band before); either
 * else the model's. Slopes first, from the runs' own fits, then intercepts.
 */
static void cs_runs_fit(const double *x, const double *t, cs_run *run, int k, double alpha, double beta)
{
    for (int r = 0; r < k; r++) {
        cs_fit f;
        cs_fit_line(x + run[r].lo, t + run[r].lo, run[r].hi - run[r].lo, &f);
        run[r].a = f.a;
        run[r].b = f.b;
    }
    double near = -1.0;
    for (int r = k - 1; r >= 0; r--) {
        if (cs_run_share(x, t, &run[r], 0.0, run[r].b) >= CS_BANDS_MINOR) {
            near = run[r].b;
            continue;
        }
        const double b = cs_run_borrow(x, t, &run[r], 1, near, beta);
        if (b >= 0.0) {
            run[r].b = b;
            cs_run_refit_a(x, t, &run[r]);
        }
    }
    near = -1.0;
    for (int r = 0; r < k; r++) {
        if (cs_run_share(x, t, &run[r], run[r].a, 0.0) >= CS_BANDS_MINOR) {
            near = run[r].a;
            continue;
        }
        const double a = cs_run_borrow(x, t, &run[r], 0, near, alpha);
        if (a >= 0.0) {
            run[r].a = a;
            cs_run_refit_b(x, t, &run[r]);
        }
    }
}

/*
 * How far apart lines a1 + b1*x and a2 + b2*x price points [lo, hi): the
 * largest difference relative to the larger. Prices, not factors: a term
 * too small to matter at those sizes (a slope over a few bytes) may differ
 * by any factor without making the bands any different.
 */
static double cs_lines_apart(const double *x, int lo, int hi, double a1, double b1, double a2, double b2)
{
    double d = 0.0;
    for (int i = lo; i < hi; i++) {
        const double p = a1 + b1 * x[i], q = a2 + b2 * x[i];
        if (fmax(p, q) > 0.0)
            d = fmax(d, fabs(p - q) / fmax(p, q));
    }
    return d;
}

/* How many runs from the first the model's line prices within
 * CS_BANDS_SAME: they need no band, the model prices their sizes. */
static int cs_runs_on_model(const double *x, const cs_run *run, int k, double alpha, double beta)
{
    int m = 0;
    while (m < k && cs_lines_apart(x, run[m].lo, run[m].hi, run[m].a, run[m].b, alpha, beta) <= CS_BANDS_SAME)
        m++;
    return m;
}

/*
 * Join the two adjacent runs that price their points closest, if within
 * CS_BANDS_SAME of each other, and refit. Not runs on the model's line
 * (cs_runs_on_model): they are no bands already, and joined, their line
 * might leave the model's. Returns the runs left.
 */
static int cs_runs_merge(const double *x, const double *t, cs_run *run, int k, double alpha, double beta)
{
    int best = -1;
    double closest = CS_BANDS_SAME;
    for (int r = cs_runs_on_model(x, run, k, alpha, beta); r + 1 < k; r++) {
        const double d = cs_lines_apart(x, run[r].lo, run[r + 1].hi, run[r].a, run[r].b, run[r + 1].a, run[r + 1].b);
        if (d <= closest) {
            closest = d;
            best = r;
        }
    }
    if (best < 0)
        return k;
    run[best].hi = run[best + 1].hi;
    memmove(&run[best + 1], &run[best + 2], (size_t)(k - best - 2) * sizeof *run);
    cs_runs_fit(x, t, run, k - 1, alpha, beta);
    return k - 1;
}

/* The bands of the runs past those on the model's line, the first of all
 * from 0; k <= CS_BANDS_MAX. */
static void cs_runs_bands(const double *x, const cs_run *run, int k, double alpha, double beta, cs_bands *b)
{
    b->n = 0;
    for (int r = cs_runs_on_model(x, run, k, alpha, beta); r < k; r++) {
        b->band[b->n].from = r == 0 ? 0 : (size_t)x[run[r].lo];
        b->band[b->n].alpha_factor = run[r].a / alpha;
        b->band[b->n].beta_factor = run[r].b / beta;
        b->n++;
    }
}

/* The bands of the best runs at penalty lambda, joined where they are
 * alike. Returns their number, or -1 where no run fits. */
static int cs_bands_search(const double *x, const double *t, int n, double alpha, double beta, double lambda,
                           const double *cost, double *best, int *from, cs_run *run, cs_bands *b)
{
    int k = cs_bands_runs(cost, n, lambda, best, from, run);
    if (k == 0)
        return -1;
    cs_runs_fit(x, t, run, k, alpha, beta);
    for (int left = 0; left != k;) {
        left = k;
        k = cs_runs_merge(x, t, run, k, alpha, beta);
    }
    cs_runs_bands(x, run, k, alpha, beta, b);
    return b->n;
}

int cs_bands_fit(const double *x, const double *t, int n, double alpha, double beta, double tol, cs_bands *out)
{
    if (!out)
        return -1;
    out->n = 0;
    if (!x || !t || !cs_bands_input_ok(x, t, n, alpha, beta, tol))
        return -1;
    const double cap = tol * tol;
    int line_off, bands_off;
    const double line_cost = cs_bands_cost(x, t, n, NULL, alpha, beta, cap, &line_off);
    if (line_off == 0)
        return 0;
    const size_t w = (size_t)n + 1;
    double *cost = malloc(w * w * sizeof *cost);
    double *best = malloc((CS_BANDS_MAX + 1) * w * sizeof *best);
    int *from = malloc((CS_BANDS_MAX + 1) * w * sizeof *from);
    cs_run *run = malloc(CS_BANDS_MAX * sizeof *run);
    int rc = -1;
    if (cost && best && from && run) {
        rc = 0;
        cs_bands_costs(x, t, n, cap, cost);
        /* A run must buy more than setting one point right by tol, and
         * more than noise could: the Bayesian information criterion's
         * price of its 3 parameters (a, b, where it starts), sigma^2 ln n
         * each. (best is the scratch of the noise: filled only later.) */
        const double noise = cs_bands_noise(x, t, n, best);
        const double lambda = fmax(cap, 3.0 * noise * log((double)n));
        cs_bands b;
        /* Kept where they pay for themselves and set right some of the
         * points the line misses by more than tol: bands that only refine
         * what is within tol while a point beyond stays beyond (one timing
         * disturbed) would change every user's prices for nothing. */
        if (cs_bands_search(x, t, n, alpha, beta, lambda, cost, best, from, run, &b) >= 0 &&
            cs_bands_cost(x, t, n, &b, alpha, beta, cap, &bands_off) + lambda * b.n < line_cost && bands_off < line_off)
            *out = b;
    }
    free(cost);
    free(best);
    free(from);
    free(run);
    return rc;
}
