/*
 * Allreduce for any p with small rings: butterfly over the power-of-two
 * factor, a ring over each small odd prime factor (3, 5, 7) up to rmax, and
 * elimination for what is left of the odd factor.
 *
 * Reference: Rabenseifner and Träff 2004, §3.4 (small rings: the exchange
 * of the butterfly generalised to f processes; the local reductions wait
 * until every operand is there, and combine left to right), §3.6 (rings
 * and elimination plugged together). Split ring: f - 1 rounds of m/f;
 * whole ring: Bruck's concatenation in ceil(log2 f) rounds, so p = 3 * 2^n
 * takes ceil(log2 p) rounds for small vectors. Canonical order, one
 * bracketing.
 *
 * Restrictions: p not a power of two with an odd factor 3, 5 or 7;
 * contiguous datatype. rmax (3, 5 or 7) is the model's unless given.
 *
 * Cost: per ring of f on m bytes, split: 2 (f - 1)(alpha + beta m/f) +
 * (f - 1) gamma m/f + 2 rho m/f; whole: ceil(log2 f) alpha + (f - 1)(beta +
 * gamma) m + 2 rho m; other levels as in allreduce_elimination.c; the
 * closed form is cs_red_allreduce_cost (src/coll/reduction/engine.c).
 */
#include "coll/reduction/engine.h"

static double cs_allreduce_ring_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return cs_red_allreduce_cost(model, prob, &plan, params->k);
}

static void cs_allreduce_ring_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_red_tune_rings(cs_allreduce_ring_cost, model, prob, params);
}

static int cs_allreduce_ring_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_red r;
    cs_plan_make(prob->p, params->rmax, &plan);
    cs_red_reduce_phase(&r, prob, &plan, params->k, rank, s);
    cs_red_allgather_phase(&r);
    return s->error;
}

const cs_alg cs_allreduce_ring = {
    .name = "ring",
    .description = "butterfly, small rings over odd factors 3, 5, 7, elimination (Rabenseifner-Traeff 2004 s3.4)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_NOT_POW2 | CS_REQ_SMALL_ODD | CS_REQ_CONTIG,
    .parse = cs_red_ring_parse,
    .tune = cs_allreduce_ring_tune,
    .cost = cs_allreduce_ring_cost,
    .build = cs_allreduce_ring_build,
    .format = cs_red_ring_format,
    .describe = cs_red_describe,
};
