/*
 * Alltoall: the Standard exchange (Johnsson and Ho 1988), as Bokhari 1993
 * states it in §2.1: d = log2 p phases, one per bit of the rank; in each a
 * rank sends half of its data, m p / 2 bytes, to rank ^ 2^j and reorders all
 * of it. It is the multiphase exchange with D = {1,...,1}, built by
 * multiphase.h (see alltoall_multiphase.c for the layout).
 *
 * Restrictions: p a power of two; contiguous datatypes.
 *
 * Cost, m bytes per block (eq. 2 with every d_i = 1; §3's t_standard):
 *   d (alpha + beta m p / 2 + rho m p)             d >= 2
 *   p = 2 is Direct's schedule: alpha + beta m + rho m
 */
#include "coll/alltoall/multiphase.h"

/* {1, ..., 1}: d ones (none for p not a power of two, which cannot run). */
static int cs_standard_parts(int p, int *parts)
{
    const int d = cs_log2_exact(p);
    for (int i = 0; i < d; i++)
        parts[i] = 1;
    return d;
}

static double cs_alltoall_standard_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    int parts[CS_MAX_PARTS];
    const int d = cs_standard_parts(prob->p, parts);
    return cs_multiphase_cost(model, prob, parts, d);
}

static int cs_alltoall_standard_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    int parts[CS_MAX_PARTS];
    const int d = cs_standard_parts(prob->p, parts);
    return cs_multiphase_build(prob, parts, d, rank, s);
}

const cs_alg cs_alltoall_standard = {
    .name = "standard",
    .description = "log2 p phases over one bit each, half the data per message (Johnsson and Ho; Bokhari 1993, "
                   "D = {1,...,1})",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .cost = cs_alltoall_standard_cost,
    .build = cs_alltoall_standard_build,
    .critical_path = CS_PATH_EXACT,
};
