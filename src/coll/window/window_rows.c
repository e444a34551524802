/*
 * The methods of collshim_window_reduce (include/collshim.h) as rows of the
 * window collective: rank i gets the reduction, in rank order, of the
 * vectors of ranks max(0, i - r) .. min(i - r + n - 1, p - 1) (Szymanski,
 * Maniatty and Sinharoy 1995, eq. (1)). Any p, 1 <= n <= p, 0 <= r < n;
 * contiguous datatypes (the API checks them).
 *
 *   recursive              recursive combination (§3.1, Fig. 2,
 *                          window_recursive.c): ceil(log2 n) rounds
 *   prefix-suffix          prefix and suffix reductions over sections of n
 *                          ranks (§3.2, window_prefix_suffix.c)
 *   prefix-suffix-inverse  the same with the operator's exact inverse
 *                          (§3.2, footnote f): integer sums, MPI_BXOR
 *
 * Cost: the slowest rank's schedule under the model,
 *   max over ranks i of  a_i alpha + m k_i
 * with a_i the messages and k_i the per-byte price of rank i's schedule of
 * a one-byte vector (every length in these schedules is a multiple of m):
 * exact, O(p log n) builds once per shape, then O(p) per size
 * (cs_window_price).
 */
#include "coll/coll.h"
#include "coll/window/window.h"

static cs_window_shape cs_window_shape_of(cs_window_method method, const cs_problem *prob)
{
    return (cs_window_shape){method, prob->p, prob->n, prob->r, 0};
}

static int cs_window_inplace(const cs_problem *prob)
{
    return (prob->flags & CS_PROB_INPLACE) != 0;
}

/* A method's price on prob, on one level (cs_model_one_level). */
static double cs_window_row_price(cs_window_method method, const cs_model *model, const cs_problem *prob)
{
    const cs_window_shape shape = cs_window_shape_of(method, prob);
    const cs_model at = cs_model_one_level(model, prob);
    return cs_window_price(&at, &shape, prob->bytes, cs_window_inplace(prob));
}

static double cs_window_recursive_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_window_row_price(CS_WIN_RECURSIVE, model, prob);
}

static double cs_window_ps_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_window_row_price(CS_WIN_PREFIX_SUFFIX, model, prob);
}

static double cs_window_psi_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_window_row_price(CS_WIN_PREFIX_SUFFIX_INVERSE, model, prob);
}

static int cs_window_recursive_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_window_method_build(CS_WIN_RECURSIVE, prob->p, prob->n, prob->r, rank, prob->count, prob->elem,
                                  cs_window_inplace(prob), s);
}

static int cs_window_ps_row_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_window_method_build(CS_WIN_PREFIX_SUFFIX, prob->p, prob->n, prob->r, rank, prob->count, prob->elem,
                                  cs_window_inplace(prob), s);
}

static int cs_window_psi_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_window_method_build(CS_WIN_PREFIX_SUFFIX_INVERSE, prob->p, prob->n, prob->r, rank, prob->count,
                                  prob->elem, cs_window_inplace(prob), s);
}

const cs_alg cs_window_recursive = {
    .name = "recursive",
    .description = "recursive combination, ceil(log2 n) rounds (Szymanski et al. 1995 s3.1)",
    .coll = CS_COLL_WINDOW,
    .cost = cs_window_recursive_cost,
    .build = cs_window_recursive_build,
};

const cs_alg cs_window_prefix_suffix = {
    .name = "prefix-suffix",
    .description = "prefix and suffix reductions over sections of n ranks (Szymanski et al. 1995 s3.2)",
    .coll = CS_COLL_WINDOW,
    .cost = cs_window_ps_cost,
    .build = cs_window_ps_row_build,
};

const cs_alg cs_window_prefix_suffix_inverse = {
    .name = "prefix-suffix-inverse",
    .description = "prefix reductions and the operator's exact inverse (Szymanski et al. 1995 s3.2, note f)",
    .coll = CS_COLL_WINDOW,
    .requires = CS_REQ_INVERSE,
    .cost = cs_window_psi_cost,
    .build = cs_window_psi_build,
    .instead = &cs_window_prefix_suffix,
};
