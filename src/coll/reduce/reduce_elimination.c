/*
 * Reduce for any p: the reduction phase of allreduce_elimination.c, then a
 * gather towards the root that undoes the splits innermost first (the
 * routing phase of Rabenseifner and Träff 2004, §2, "reversing the
 * communication pattern of the reduction phase"). If the root is an
 * eliminated process, the survivor it fed hands it the block at the end of
 * its level. Any root, in place at the root. Canonical order.
 *
 * Restrictions: p not a power of two; contiguous datatype.
 *
 * Cost: the reduction phase as in allreduce_elimination.c; the root then
 * receives, for every split stage, what its partners hold (alpha + beta
 * m_stage/2 for a halving, (f - 1)(alpha + beta m_stage/f) for a ring);
 * the slowest rank is the root or a rank that leaves its path, priced by
 * cs_red_reduce_cost (src/coll/reduction/engine.c).
 */
#include "coll/reduction/engine.h"

static double cs_reduce_elimination_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, 0, &plan);
    return cs_red_reduce_cost(model, prob, &plan, params->k);
}

static void cs_reduce_elimination_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    params->rmax = -1;
    cs_red_tune(cs_reduce_elimination_cost, model, prob, params);
}

static int cs_reduce_elimination_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_red r;
    cs_plan_make(prob->p, 0, &plan);
    cs_red_reduce_phase(&r, prob, &plan, params->k, rank, s);
    cs_red_gather_phase(&r, prob->root);
    return s->error;
}

const cs_alg cs_reduce_elimination = {
    .name = "elimination",
    .description = "butterfly and elimination of the odd factor, gather to the root (Rabenseifner-Traeff 2004)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_NOT_POW2 | CS_REQ_CONTIG,
    .parse = cs_red_parse,
    .tune = cs_reduce_elimination_tune,
    .cost = cs_reduce_elimination_cost,
    .build = cs_reduce_elimination_build,
    .format = cs_red_format,
    .describe = cs_red_describe,
};
