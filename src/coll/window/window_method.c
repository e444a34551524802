/*
 * Windowed reduction across ranks: recursive combination (§3.1,
 * window_recursive.c) or prefix-suffix (§3.2, window_prefix_suffix.c), each
 * priced on the schedules it builds (the slowest rank's cost under the
 * model), the cheaper one chosen per call shape.
 */
#include <math.h>
#include <mpi.h>
#include <string.h>

#include "coll/window/window.h"

static const char *const cs_window_method_names[CS_WIN_METHODS] = {"recursive", "prefix-suffix",
                                                                   "prefix-suffix-inverse"};

const char *cs_window_method_name(cs_window_method method)
{
    return (unsigned)method < CS_WIN_METHODS ? cs_window_method_names[method] : "?";
}

int cs_window_method_parse(const char *name)
{
    for (int m = 0; m < CS_WIN_METHODS; m++)
        if (strcmp(name, cs_window_method_names[m]) == 0)
            return m;
    return -1;
}

int cs_window_method_build(cs_window_method method, int p, int n, int r, int rank, size_t count, size_t elem,
                           int inplace, cs_sched *s)
{
    if (method != CS_WIN_RECURSIVE)
        return cs_window_ps_build(p, n, r, rank, count, elem, inplace, method == CS_WIN_PREFIX_SUFFIX_INVERSE, s);
    if (p < 1 || n < 1 || n > p || r < 0 || r >= n)
        return MPI_ERR_ARG;
    const cs_window_plan *plan = cs_window_plan_cached(p, n, r, 0);
    return plan ? cs_window_build(plan, rank, count, elem, inplace, s) : MPI_ERR_NO_MEM;
}

double cs_window_price(const cs_model *model, int p, size_t bytes, int inplace, cs_window_rank_fn fn, const void *arg)
{
    const double m = (double)bytes;
    const cs_model scaled = {
        .alpha = model->alpha, .beta = model->beta * m, .rho = model->rho * m, .gamma = model->gamma * m};
    cs_sched s;
    double worst = 0.0;

    if (bytes == 0)
        return 0.0;
    cs_sched_init(&s);
    for (int rank = 0; rank < p; rank++) {
        cs_sched_price_start(&s, &scaled);
        if (fn(arg, rank, inplace, &s) != MPI_SUCCESS) {
            worst = HUGE_VAL;
            break;
        }
        const double c = cs_sched_price_total(&s);
        worst = c > worst ? c : worst;
    }
    cs_sched_free(&s);
    return worst;
}

typedef struct cs_window_shape {
    cs_window_method method;
    int p, n, r;
} cs_window_shape;

static int cs_window_shape_build(const void *arg, int rank, int inplace, cs_sched *s)
{
    const cs_window_shape *w = arg;
    return cs_window_method_build(w->method, w->p, w->n, w->r, rank, 1, 1, inplace, s);
}

cs_window_method cs_window_method_choose(const cs_model *model, int p, int n, int r, size_t bytes, int inplace,
                                         int inverse, double cost[CS_WIN_METHODS])
{
    double c[CS_WIN_METHODS];
    cs_window_method best = CS_WIN_RECURSIVE;
    for (int m = 0; m < CS_WIN_METHODS; m++) {
        const cs_window_shape shape = {(cs_window_method)m, p, n, r};
        c[m] = m == CS_WIN_PREFIX_SUFFIX_INVERSE && !inverse
                   ? HUGE_VAL
                   : cs_window_price(model, p, bytes, inplace, cs_window_shape_build, &shape);
        if (cost)
            cost[m] = c[m];
        if (c[m] < c[best])
            best = (cs_window_method)m;
    }
    return best;
}
