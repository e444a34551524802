/*
 * Allreduce as a windowed reduction on the wrapped ring: recursive
 * combination with window n = p and offset 0 (Szymanski, Maniatty and
 * Sinharoy 1995, §3.1, Fig. 2, on a wrapped processor array), in
 * ceil(log2 p) rounds, one fewer than a butterfly with elimination for p
 * not a power of two.
 *
 * Rank i gets m_0 (+) ... (+) m_(p-1) in rank order (the windows of rank i
 * and of its padding position i - p, [i, p-1] and [0, i-1], joined at the
 * end), but bracketed differently on each rank: the results agree bitwise
 * only when the operator is exact. Restrictions: commutative operator on an
 * exact type (integers, logical and bitwise operators, MIN and MAX), or any
 * commutative operator when the configuration allows rank-dependent rounding
 * (reproducible: false; the shim then marks the call exact); contiguous
 * datatype.
 *
 * Cost, m bytes, P = ceil(log2 p) rounds:
 *   max over ranks i of  sum_k (alpha + beta v_ik m) + o n_i + gamma c_i m + rho y_i m
 * with v_ik the vectors in the fuller of rank i's two messages of round k (1
 * or 2; 3 can occur near the wrap for some p >= 13), n_i the messages it
 * posts (o each, the model's overhead), c_i its combining steps
 * and y_i its copies (the result into the receive buffer, packing, operands
 * read twice). The cost function counts them on the schedules of a one-byte
 * vector, which scale with m: exact; O(p log p) once per p and model
 * (cs_window_price keeps the per-rank coefficients), then O(p) per size.
 * On one level: on a map of several nodes the event pricer prices it
 * (cs_alg_priced_on_map, up to 128 ranks; a round's messages off a node
 * share its link: at p = 64 on two nodes of 32, 1 MiB, the closed form
 * said 0.47 ms and SimGrid took 3.95).
 */
#include <math.h>
#include <mpi.h>

#include "coll/coll.h"
#include "coll/window/window.h"

static int cs_allreduce_windowed_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const cs_window_plan *plan = cs_window_plan_cached(prob->p, prob->p, 0, 1);
    if (!plan)
        return MPI_ERR_NO_MEM;
    return cs_window_build(plan, rank, prob->count, prob->elem, (prob->flags & CS_PROB_INPLACE) != 0, s);
}

static double cs_allreduce_windowed_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const cs_window_shape shape = {CS_WIN_RECURSIVE, prob->p, prob->p, 0, 1};
    const cs_model at = cs_model_one_level(model, prob);
    return cs_window_price(&at, &shape, prob->bytes, (prob->flags & CS_PROB_INPLACE) != 0);
}

const cs_alg cs_allreduce_windowed = {
    .name = "windowed",
    .description =
        "recursive combination on the wrapped ring, window p, ceil(log2 p) rounds (Szymanski et al. 1995 s3.1)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_COMMUTATIVE | CS_REQ_EXACT | CS_REQ_CONTIG,
    .cost = cs_allreduce_windowed_cost,
    .build = cs_allreduce_windowed_build,
    .one_level = 1,
};
