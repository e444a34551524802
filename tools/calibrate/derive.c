/*
 * From measured cells to rules (derive.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/derive.h"

static int cs_cal_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cs_cal_node_pairs(const int *node_of, int p, int *pending, int *peer)
{
    for (int r = 0; r < p; r++)
        pending[r] = peer[r] = -1;
    for (int r = 0; r < p; r++) {
        int *first = &pending[node_of[r]]; /* the node's rank waiting for a partner */
        if (*first < 0) {
            *first = r;
        } else {
            peer[*first] = r;
            peer[r] = *first;
            *first = -1;
        }
    }
}

void cs_cal_cross_node_pairs(const int *node_of, int p, int *scratch, int *peer)
{
    int *ord = scratch, *start = scratch + p, *fill = start + p + 1, *rank_at = fill + p;
    int nodes = 0;
    for (int r = 0; r < p; r++) {
        ord[r] = node_of[r] == r ? nodes++ : -1; /* a node's first rank names it */
        peer[r] = -1;
    }
    for (int k = 0; k <= nodes; k++)
        start[k] = 0;
    for (int r = 0; r < p; r++)
        start[ord[node_of[r]] + 1]++;
    for (int k = 0; k < nodes; k++) {
        start[k + 1] += start[k];
        fill[k] = start[k];
    }
    for (int r = 0; r < p; r++) /* the ranks grouped by node, in rank order */
        rank_at[fill[ord[node_of[r]]]++] = r;
    for (int k = 0; k + 1 < nodes; k += 2) {
        const int a = start[k + 1] - start[k], b = start[k + 2] - start[k + 1], n = a < b ? a : b;
        for (int i = 0; i < n; i++) {
            const int x = rank_at[start[k] + i], y = rank_at[start[k + 1] + i];
            peer[x] = y;
            peer[y] = x;
        }
    }
}

double cs_cal_quantile(double *v, int n, double q)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof v[0], cs_cal_cmp);
    const double at = q * (n - 1);
    const int i = (int)floor(at);
    return i + 1 < n ? v[i] + (at - i) * (v[i + 1] - v[i]) : v[n - 1];
}

cs_cal_ratio cs_cal_ratio_of(double *ratios, int n, double floor)
{
    cs_cal_ratio r = {.median = cs_cal_quantile(ratios, n, 0.5)};
    const double half_iqr = 0.5 * (cs_cal_quantile(ratios, n, 0.75) - cs_cal_quantile(ratios, n, 0.25));
    r.noise = fmax(floor, half_iqr / r.median);
    return r;
}

cs_cal_ratio cs_cal_ratio_paired(const double *a, const double *b, int n, double floor)
{
    double v[256];
    if (n > 256)
        n = 256;
    for (int r = 0; r < n; r++)
        v[r] = a[r] / b[r];
    return cs_cal_ratio_of(v, n, floor);
}

cs_cal_ratio cs_cal_ratio_worse(const double *a_loop, const double *b_loop, const double *a_start,
                                const double *b_start, int n, double floor)
{
    const cs_cal_ratio loop = cs_cal_ratio_paired(a_loop, b_loop, n, floor);
    const cs_cal_ratio once = cs_cal_ratio_paired(a_start, b_start, n, floor);
    return once.median > loop.median ? once : loop;
}

cs_choice cs_cal_cell_choice(const cs_cal_cell *cell, const cs_alg **alg, const char **why)
{
    *alg = NULL;
    if (!cell->best) {
        *why = "none of ours runs here";
        return CS_CHOICE_NATIVE;
    }
    /* Ours only where it measured faster beyond the noise: a cell within it is unsure, and a rule
     * for it may verify slower on the next run (it did, at p = 8 on 2 cores). */
    if (!cs_cal_faster(cell->best_native)) {
        *why = cs_cal_slower(cell->best_native) ? "the library measured faster than the best of ours"
                                                : "the best of ours measured no faster than the library";
        return CS_CHOICE_NATIVE;
    }
    if (cell->model && !cs_cal_slower(cell->model_best) && cs_cal_faster(cell->model_native)) {
        *why = "the model's choice measured as fast as the best";
        return CS_CHOICE_AUTO;
    }
    *alg = cell->best;
    if (!cell->model) /* the best may be the model's own pick: it did not lose, the margin kept the library */
        *why = "ours measured faster where the model keeps the library (model.margin)";
    else if (cs_cal_slower(cell->model_best))
        *why = cell->model == cell->best ? "the model's parameters for it measured slower than these"
                                         : "the model's choice measured slower than the best of ours";
    else
        *why = "the model's choice measured no faster than the library, the best of ours faster";
    return CS_CHOICE_FORCED;
}

double cs_cal_cell_gain(const cs_cal_cell *cell)
{
    const char *why;
    const cs_alg *alg;
    switch (cs_cal_cell_choice(cell, &alg, &why)) {
    case CS_CHOICE_AUTO: return cell->model_native.median;
    case CS_CHOICE_FORCED: return cell->best_native.median;
    default: return 1.0;
    }
}

cs_cal_verdict cs_cal_verdict_of(cs_cal_ratio r, double floor)
{
    if (cs_cal_faster(r))
        return CS_CAL_FASTER;
    if (cs_cal_slower(r))
        return CS_CAL_SLOWER;
    return fabs(r.median - 1.0) <= floor ? CS_CAL_AS_FAST : CS_CAL_NOISY;
}

const char *cs_cal_verdict_name(cs_cal_verdict v)
{
    static const char *const names[] = {"faster", "as fast", "slower", "inconclusive (noisy)"};
    return names[v];
}

typedef struct cs_cal_band {
    cs_choice choice;
    const cs_alg *alg;
    const char *given; /* the algorithm's given parameters ("r=8"), or NULL */
    cs_range bytes;
} cs_cal_band;

static int cs_cal_same_given(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The bands of one p: cells[0..n) sorted by bytes. Returns how many. */
static int cs_cal_bands(const cs_cal_cell *cells, int n, cs_cal_band *band)
{
    int nb = 0;
    for (int i = 0; i < n; i++) {
        const char *why;
        const cs_alg *alg;
        const cs_choice choice = cs_cal_cell_choice(&cells[i], &alg, &why);
        const char *given = alg ? cells[i].best_given : NULL;
        const size_t lo = i == 0 ? 0 : (size_t)floor(sqrt((double)cells[i - 1].bytes * (double)cells[i].bytes)) + 1;
        if (nb && band[nb - 1].choice == choice && band[nb - 1].alg == alg &&
            cs_cal_same_given(band[nb - 1].given, given))
            continue;
        if (nb)
            band[nb - 1].bytes.hi = lo - 1;
        band[nb++] = (cs_cal_band){.choice = choice, .alg = alg, .given = given, .bytes = {lo, cells[i].bytes}};
    }
    if (nb) /* up to the largest size measured: above it no rule, so the library */
        band[nb - 1].bytes.hi = cells[n - 1].bytes;
    return nb;
}

static int cs_cal_bands_same(const cs_cal_band *a, int na, const cs_cal_band *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (a[i].choice != b[i].choice || a[i].alg != b[i].alg || !cs_cal_same_given(a[i].given, b[i].given) ||
            a[i].bytes.lo != b[i].bytes.lo || a[i].bytes.hi != b[i].bytes.hi)
            return 0;
    return 1;
}

int cs_cal_rules(const cs_cal_cell *cells, int n, cs_rule *rules, int max, int *cut)
{
    cs_cal_band *prev = calloc((size_t)n + 1, sizeof *prev), *cur = calloc((size_t)n + 1, sizeof *cur);
    int nrules = 0, nprev = 0, prev_p = -1, prev_first = 0;
    *cut = 0;
    if (!prev || !cur) {
        free(prev);
        free(cur);
        *cut = -1;
        return 0;
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && cells[j].p == cells[i].p)
            j++;
        const int nb = cs_cal_bands(cells + i, j - i, cur);
        const int p = cells[i].p;
        if (prev_p == p - 1 && cs_cal_bands_same(prev, nprev, cur, nb)) {
            for (int r = prev_first; r < nrules; r++) /* p - 1's rules take p too */
                rules[r].p_hi = p;
        } else if (nrules + nb > max) {
            (*cut)++;
            nprev = 0;
            prev_p = -1;
            i = j;
            continue;
        } else {
            prev_first = nrules;
            for (int b = 0; b < nb; b++) {
                cs_rule *r = &rules[nrules++];
                memset(r, 0, sizeof *r);
                cs_params_init(&r->params);
                r->p_lo = r->p_hi = p;
                r->bytes = cur[b].bytes;
                r->choice = cur[b].choice;
                r->alg = cur[b].alg;
                if (r->alg && cur[b].given && r->alg->parse)
                    r->alg->parse(cur[b].given, &r->params);
            }
        }
        memcpy(prev, cur, (size_t)nb * sizeof *cur);
        nprev = nb;
        prev_p = p;
        i = j;
    }
    free(prev);
    free(cur);
    return nrules;
}

int cs_cal_latency_block(const double *lat, int p, double *near_out, double *far_out)
{
    double near = p > 1 ? lat[1] : 0.0;
    for (int g = 2; g <= p / 2; g++) {
        near = fmax(near, lat[g - 1]); /* the farthest of ranks 1..g-1 */
        if (p % g != 0)
            continue;
        double far = lat[g];
        for (int r = g + 1; r < p; r++)
            far = fmin(far, lat[r]);
        if (far > CS_CAL_BLOCK_STEP * near) {
            if (near_out && far_out) {
                *near_out = near;
                *far_out = far;
            }
            return g;
        }
    }
    return 0;
}

int cs_cal_late_waited(double late, double a, double b, double overhead, double rho, size_t bytes)
{
    const double eager = overhead + rho * (double)bytes, waits = a + b * (double)bytes;
    return late > sqrt(eager * waits);
}

double cs_cal_core_beta(double one, double many, int pairs)
{
    return pairs > 1 && one > 0.0 && many > CS_CAL_CORE_STEP * one ? many / pairs : 0.0;
}

int cs_cal_core_pairs(const int *node_of, int p, int *scratch, int *peer)
{
    int n = 0;
    for (int r = 0; r < p; r++) {
        peer[r] = -1;
        if (node_of[r] == r)
            scratch[n++] = r;
    }
    for (int i = 0; i < n / 2; i++) {
        peer[scratch[i]] = scratch[i + n / 2];
        peer[scratch[i + n / 2]] = scratch[i];
    }
    return n / 2;
}
