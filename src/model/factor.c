/*
 * The cheapest mixed-radix multiphase exchange (model/factor.h): dynamic
 * programming over the divisors of p, at one block size or as the hull of
 * optimality over all of them.
 *
 * Theorem (Bokhari's Theorem 1 for a mixed radix). Let K be optimal at
 * m >= 0 and a, b two of its factors, q = ab, c = m beta p / q. Replacing
 * {a, b} by any other factorisation of q leaves a factorisation of p, so
 * {a, b} is at least as cheap as the single phase {q} and as every pair
 * {a', b'} with a' b' = q. With g_k as in factor.h,
 *   g_a + g_b = (alpha - c)(a + b) + 2(m beta p + rho m p - alpha),
 * a function of a + b alone (all pairs of q meet at c = alpha, Property 7);
 *   g_q - (g_a + g_b) = (alpha - c)(a - 1)(b - 1) - rho m p.
 * If c < alpha the pair with the least a + b, the most balanced, is
 * strictly the cheapest pair; if c >= alpha the single phase is at least
 * as cheap as every pair, strictly unless rho m = 0 and c = alpha. So an
 * unbalanced pair is beaten at every m except, with rho = 0, the single
 * point c = alpha: it never has a face on the hull. For p = 2^d this is
 * the equipartition condition |d_i - d_j| <= 1 of Theorem 1. The tests
 * check it, and the recursion below, against every factorisation of every
 * p <= 4096.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/factor.h"

/* Divisors of any int: 2095133040 has 1600. */
#define CS_FACTOR_MAX_DIV 1600

int cs_divisors(int p, int *out, int max)
{
    int lo = 0, hi = 0, high[CS_FACTOR_MAX_DIV];
    for (int d = 1; (long long)d * d <= p; d++) {
        if (p % d)
            continue;
        if (lo == max)
            return -1;
        out[lo++] = d;
        if (d != p / d) {
            if (hi == CS_FACTOR_MAX_DIV)
                return -1;
            high[hi++] = p / d;
        }
    }
    if (lo + hi > max)
        return -1;
    for (int i = hi - 1; i >= 0; i--)
        out[lo++] = high[i];
    return lo;
}

cs_part_line cs_factor_line(int p, const int *factors, int n)
{
    cs_part_line l = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        l.msgs += factors[i] - 1;
        l.wire += (int64_t)(factors[i] - 1) * (p / factors[i]);
        l.copied += p;
    }
    return l;
}

static int cs_int_cmp(const void *x, const void *y)
{
    const int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* The index of q among the divisors div[0..n) (sorted). */
static int cs_divisor_index(const int *div, int n, int q)
{
    const int *at = bsearch(&q, div, (size_t)n, sizeof *div, cs_int_cmp);
    return at ? (int)(at - div) : -1;
}

/* Follow the recursion's choices from p down to 1, factors increasing. */
static int cs_factor_unwind(const int *div, int nd, const int *pick, int *factors)
{
    int n = 0;
    for (int q = div[nd - 1]; q > 1 && n < CS_FACTOR_MAX; q /= factors[n - 1])
        factors[n++] = pick[cs_divisor_index(div, nd, q)];
    qsort(factors, (size_t)n, sizeof *factors, cs_int_cmp);
    return n;
}

int cs_factor_best(const cs_model *model, int p, double m, int *factors, double *cost)
{
    static _Thread_local int div[CS_FACTOR_MAX_DIV], pick[CS_FACTOR_MAX_DIV];
    static _Thread_local double best[CS_FACTOR_MAX_DIV];
    const int nd = cs_divisors(p, div, CS_FACTOR_MAX_DIV);
    if (nd < 0)
        return -1;
    best[0] = 0;
    for (int i = 1; i < nd; i++) {
        best[i] = INFINITY;
        for (int j = 1; j <= i; j++) {
            if (div[i] % div[j])
                continue;
            const cs_part_line phase = cs_factor_line(p, &div[j], 1);
            const double t = cs_part_line_cost(model, &phase, m) + best[cs_divisor_index(div, i, div[i] / div[j])];
            if (t < best[i]) {
                best[i] = t;
                pick[i] = div[j];
            }
        }
    }
    if (cost)
        *cost = best[nd - 1];
    return cs_factor_unwind(div, nd, pick, factors);
}

int cs_factor_balanced(const int *factors, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const int a = factors[i] < factors[j] ? factors[i] : factors[j];
            const long long q = (long long)factors[i] * factors[j];
            for (long long d = a + 1; d * d <= q; d++)
                if (q % d == 0)
                    return 0;
        }
    return 1;
}

/* ---- the hull ------------------------------------------------------------ */

/* A line of the envelope of one divisor q: a first factor k and a line of
 * the envelope of q / k. */
typedef struct cs_fline {
    cs_part_line l;
    int k, prev; /* prev: index into the lines of q / k (-1 for q = 1) */
} cs_fline;

typedef struct cs_fsort {
    const cs_model *model;
} cs_fsort;

/* Decreasing slope; equal slopes by fewer messages, then by first factor. */
static int cs_fline_cmp(const void *x, const void *y, void *arg)
{
    const cs_model *mo = ((const cs_fsort *)arg)->model;
    const cs_fline *a = x, *b = y;
    const double sa = mo->beta * (double)a->l.wire + mo->rho * (double)a->l.copied;
    const double sb = mo->beta * (double)b->l.wire + mo->rho * (double)b->l.copied;
    if (sa != sb)
        return sa < sb ? 1 : -1;
    if (a->l.msgs != b->l.msgs)
        return a->l.msgs < b->l.msgs ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

typedef struct cs_fhull_work {
    int nd, div[CS_FACTOR_MAX_DIV];
    int start[CS_FACTOR_MAX_DIV + 1]; /* lines of divisor i: line[start[i] .. start[i+1]) */
    cs_fline *line, *cand;
    cs_part_line *plain;
    int *keep;
} cs_fhull_work;

/* The envelope of divisor i from those of its divisors; -1 if too many faces. */
static int cs_fhull_divisor(const cs_model *model, cs_fhull_work *w, int i)
{
    const int q = w->div[i];
    int nc = 0;
    for (int j = 1; j <= i; j++) {
        if (q % w->div[j])
            continue;
        const int r = cs_divisor_index(w->div, i, q / w->div[j]);
        const cs_part_line first = cs_factor_line(w->div[w->nd - 1], &w->div[j], 1);
        for (int t = w->start[r]; t < w->start[r + 1]; t++) {
            const cs_part_line *rest = &w->line[t].l;
            w->cand[nc++] = (cs_fline){
                {first.msgs + rest->msgs, first.wire + rest->wire, first.copied + rest->copied}, w->div[j], t};
        }
    }
    qsort_r(w->cand, (size_t)nc, sizeof *w->cand, cs_fline_cmp, &(cs_fsort){model});
    for (int c = 0; c < nc; c++)
        w->plain[c] = w->cand[c].l;
    const int nf = cs_envelope(model, w->plain, nc, w->keep);
    if (nf > CS_FACTOR_MAX_FACES)
        return -1;
    for (int f = 0; f < nf; f++)
        w->line[w->start[i] + f] = w->cand[w->keep[f]];
    w->start[i + 1] = w->start[i] + nf;
    return 0;
}

static void cs_fhull_face(const cs_fhull_work *w, int t, cs_factor_face *f)
{
    f->line = w->line[t].l;
    f->n = 0;
    for (; t >= 0 && w->line[t].prev >= 0 && f->n < CS_FACTOR_MAX; t = w->line[t].prev)
        f->factors[f->n++] = w->line[t].k;
    qsort(f->factors, (size_t)f->n, sizeof *f->factors, cs_int_cmp);
}

int cs_factor_hull_compute(const cs_model *model, int p, cs_factor_hull *hull)
{
    cs_fhull_work *w = calloc(1, sizeof *w);
    int rc = -1;
    memset(hull, 0, sizeof *hull);
    hull->p = p;
    if (!w || (w->nd = cs_divisors(p, w->div, CS_FACTOR_MAX_DIV)) < 0)
        goto fn_exit;
    const size_t ncand = (size_t)w->nd * CS_FACTOR_MAX_FACES;
    w->line = malloc(ncand * sizeof *w->line);
    w->cand = malloc(ncand * sizeof *w->cand);
    w->plain = malloc(ncand * sizeof *w->plain);
    w->keep = malloc(ncand * sizeof *w->keep);
    if (!w->line || !w->cand || !w->plain || !w->keep)
        goto fn_exit;
    w->line[0] = (cs_fline){{0, 0, 0}, 1, -1}; /* q = 1: no phase */
    w->start[0] = 0;
    w->start[1] = 1;
    for (int i = 1; i < w->nd; i++)
        if (cs_fhull_divisor(model, w, i))
            goto fn_exit;
    const int top = w->nd - 1;
    hull->nfaces = w->start[top + 1] - w->start[top];
    for (int f = 0; f < hull->nfaces; f++) {
        cs_factor_face *face = &hull->face[f];
        cs_fhull_face(w, w->start[top] + f, face);
        if (f > 0) {
            face->from = cs_part_line_vertex(model, &hull->face[f - 1].line, &face->line);
            face->first = cs_hull_first_byte(face->from);
        }
    }
    rc = 0;
fn_exit:
    if (w) {
        free(w->line);
        free(w->cand);
        free(w->plain);
        free(w->keep);
    }
    free(w);
    return rc;
}

int cs_factors_format(const int *factors, int n, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    if (n == 1)
        return snprintf(buf, size, "1x%d", factors[0]);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0, i ? "x%d" : "%d",
                                factors[i]);
    return (int)len;
}
