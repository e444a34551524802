/*
 * Allreduce for any p: butterfly over the power-of-two factor, elimination
 * over the odd factor.
 *
 * Reference: Rabenseifner and Träff 2004, §3.1 (the 3-2 elimination step),
 * §3.3 and Fig. 5 (the non-overlapping protocol: one 3-2 step and pairs of
 * 2-1 steps, all in round 1, leave 2^floor(log2 q) survivors), §3.6 (the
 * butterfly first, over groups of consecutive ranks). The plan and the
 * builders are in src/coll/reduction/. Each stage splits the block while the
 * model (or the threshold b) says so. Canonical order, one bracketing.
 *
 * Restrictions: p not a power of two (there the butterfly is the same
 * algorithm without elimination); contiguous datatype.
 *
 * Cost, p = 2^n q, m bytes, every stage split (the bandwidth mode), about
 *   2 ceil(log2 p) alpha + 2 (1.5 - 1/p') beta m + (1.5 - 1/p') gamma m,
 *   p' = 2^floor(log2 p); every stage whole (latency mode):
 *   (ceil(log2 p) + 1) alpha + (ceil(log2 p) + 1) beta m + ceil(log2 p) gamma m;
 * plus rho m (input copy) and rho m_final (result copy). The exact closed
 * form, per stage and per role of the elimination, is cs_red_allreduce_cost
 * (src/coll/reduction/engine.c).
 */
#include "coll/reduction/engine.h"

static double cs_allreduce_elimination_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, 0, &plan);
    return cs_red_allreduce_cost(model, prob, &plan, params->k);
}

static void cs_allreduce_elimination_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    params->rmax = -1;
    cs_red_tune(cs_allreduce_elimination_cost, model, prob, params);
}

static int cs_allreduce_elimination_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_red r;
    cs_plan_make(prob->p, 0, &plan);
    cs_red_reduce_phase(&r, prob, &plan, params->k, rank, s);
    cs_red_allgather_phase(&r);
    return s->error;
}

const cs_alg cs_allreduce_elimination = {
    .name = "elimination",
    .description = "butterfly, then 3-2 and 2-1 elimination of the odd factor (Rabenseifner-Traeff 2004 s3.3)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_NOT_POW2 | CS_REQ_CONTIG,
    .parse = cs_red_parse,
    .tune = cs_allreduce_elimination_tune,
    .cost = cs_allreduce_elimination_cost,
    .build = cs_allreduce_elimination_build,
    .format = cs_red_format,
    .describe = cs_red_describe,
};
