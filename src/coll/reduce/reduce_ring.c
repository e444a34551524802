/*
 * Reduce for any p with small rings: the reduction phase of
 * allreduce_ring.c (butterfly, rings over the odd factors 3, 5, 7 up to
 * rmax, elimination of the rest), then the gather towards the root of
 * reduce_elimination.c; a split ring is gathered in f - 1 rounds.
 *
 * Reference: Rabenseifner and Träff 2004, §3.4, §3.6. Any root, in place at
 * the root. Canonical order.
 *
 * Restrictions: p not a power of two with an odd factor 3, 5 or 7;
 * contiguous datatype.
 *
 * Cost: priced by cs_red_reduce_cost on the ranks that can be slowest
 * (src/coll/reduction/engine.c); ring terms as in allreduce_ring.c.
 */
#include "coll/reduction/engine.h"

static double cs_reduce_ring_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return cs_red_reduce_cost(model, prob, &plan, params->k);
}

static void cs_reduce_ring_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_red_tune_rings(cs_reduce_ring_cost, model, prob, params);
}

static int cs_reduce_ring_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_red r;
    cs_plan_make(prob->p, params->rmax, &plan);
    cs_red_reduce_phase(&r, prob, &plan, params->k, rank, s);
    cs_red_gather_phase(&r, prob->root);
    return s->error;
}

const cs_alg cs_reduce_ring = {
    .name = "ring",
    .description = "butterfly, small rings, elimination, gather to the root (Rabenseifner-Traeff 2004 s3.4)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_NOT_POW2 | CS_REQ_SMALL_ODD | CS_REQ_CONTIG,
    .parse = cs_red_ring_parse,
    .tune = cs_reduce_ring_tune,
    .cost = cs_reduce_ring_cost,
    .build = cs_reduce_ring_build,
    .format = cs_red_ring_format,
    .describe = cs_red_describe,
};
