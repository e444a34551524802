/*
 * Windowed reduction across ranks: recursive combination (§3.1,
 * window_recursive.c) or prefix-suffix (§3.2, window_prefix_suffix.c), each
 * priced on the schedules it builds (the slowest rank's cost under the
 * model), the cheaper one chosen per call shape.
 */
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
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

/* One rank's schedule of a one-byte vector. */
static int cs_window_shape_build(const cs_window_shape *w, int rank, int inplace, cs_sched *s)
{
    if (!w->wrap)
        return cs_window_method_build(w->method, w->p, w->n, w->r, rank, 1, 1, inplace, s);
    const cs_window_plan *plan = cs_window_plan_cached(w->p, w->n, w->r, 1);
    return plan ? cs_window_build(plan, rank, 1, 1, inplace, s) : MPI_ERR_NO_MEM;
}

/* The last shape's per-rank start-ups a[i], messages posted o[i],
 * per-byte prices k[i] and, under model.distance, links beyond the first of
 * each round's farthest message h[i] (alpha_hop each). */
typedef struct cs_window_coeffs {
    cs_window_shape shape;
    int inplace, ok, distance;
    double beta, gamma, rho;
    double *a, *o, *k, *h;
    int cap;
} cs_window_coeffs;

/* Per thread, so no lock; a key's destructor frees it when its thread ends. */
static _Thread_local cs_window_coeffs cs_window_last_coeffs;
static pthread_once_t cs_window_coeffs_once = PTHREAD_ONCE_INIT;
static pthread_key_t cs_window_coeffs_key;
static int cs_window_coeffs_keyed;

static void cs_window_coeffs_release(void *coeffs)
{
    cs_window_coeffs *c = coeffs;
    free(c->a);
    *c = (cs_window_coeffs){0};
}

static void cs_window_coeffs_key_make(void)
{
    cs_window_coeffs_keyed = pthread_key_create(&cs_window_coeffs_key, cs_window_coeffs_release) == 0;
}

static const cs_window_coeffs *cs_window_coeffs_of(const cs_model *model, const cs_window_shape *shape, int inplace)
{
    cs_window_coeffs *c = &cs_window_last_coeffs;
    cs_window_shape *w = &c->shape;
    if (c->a && w->method == shape->method && w->p == shape->p && w->n == shape->n && w->r == shape->r &&
        w->wrap == shape->wrap && c->inplace == inplace && c->beta == model->beta && c->gamma == model->gamma &&
        c->rho == model->rho && c->distance == model->distance)
        return c->ok ? c : NULL;
    if (shape->p > c->cap) {
        double *a = realloc(c->a, sizeof(double) * 4 * (size_t)shape->p);
        if (!a)
            return NULL;
        if (!c->a) {
            pthread_once(&cs_window_coeffs_once, cs_window_coeffs_key_make);
            if (cs_window_coeffs_keyed)
                pthread_setspecific(cs_window_coeffs_key, c);
        }
        c->a = a;
        c->o = a + shape->p;
        c->k = a + 2 * (size_t)shape->p;
        c->h = a + 3 * (size_t)shape->p;
        c->cap = shape->p;
    }
    const cs_model bytes = {.beta = model->beta, .gamma = model->gamma, .rho = model->rho},
                   hops = {.distance = model->distance, .alpha_hop = 1.0};
    cs_sched s;
    *w = *shape;
    c->inplace = inplace;
    c->beta = model->beta;
    c->gamma = model->gamma;
    c->rho = model->rho;
    c->distance = model->distance;
    c->ok = 1;
    cs_sched_init(&s);
    for (int rank = 0; rank < shape->p && c->ok; rank++) {
        cs_sched_price_start(&s, &bytes);
        c->ok = cs_window_shape_build(shape, rank, inplace, &s) == MPI_SUCCESS;
        c->k[rank] = cs_sched_price_total(&s);
        c->a[rank] = s.priced_starts;
        c->o[rank] = s.priced_posts;
        c->h[rank] = 0.0;
        if (c->ok && model->distance) { /* the same schedule again, counting only links (alpha_hop 1) */
            cs_sched_price_start(&s, &hops);
            s.p_rank = rank;
            c->ok = cs_window_shape_build(shape, rank, inplace, &s) == MPI_SUCCESS;
            c->h[rank] = cs_sched_price_total(&s);
        }
    }
    cs_sched_free(&s);
    return c->ok ? c : NULL;
}

double cs_window_price(const cs_model *unsized, const cs_window_shape *shape, size_t bytes, int inplace)
{
    if (bytes == 0)
        return 0.0;
    const cs_model sized = cs_model_sized(unsized, (double)bytes), *model = &sized; /* every message a vector */
    const cs_window_coeffs *c = cs_window_coeffs_of(model, shape, inplace);
    double worst = 0.0;
    if (!c)
        return HUGE_VAL;
    for (int rank = 0; rank < shape->p; rank++) {
        const double t = c->a[rank] * model->alpha + c->o[rank] * model->overhead + (double)bytes * c->k[rank] +
                         c->h[rank] * model->alpha_hop;
        worst = t > worst ? t : worst;
    }
    return worst;
}

cs_window_method cs_window_method_choose(const cs_model *model, int p, int n, int r, size_t bytes, int inplace,
                                         int inverse, double cost[CS_WIN_METHODS])
{
    double c[CS_WIN_METHODS];
    cs_window_method best = CS_WIN_RECURSIVE;
    for (int m = 0; m < CS_WIN_METHODS; m++) {
        const cs_window_shape shape = {(cs_window_method)m, p, n, r, 0};
        c[m] =
            m == CS_WIN_PREFIX_SUFFIX_INVERSE && !inverse ? HUGE_VAL : cs_window_price(model, &shape, bytes, inplace);
        if (cost)
            cost[m] = c[m];
        if (c[m] < c[best])
            best = (cs_window_method)m;
    }
    return best;
}
