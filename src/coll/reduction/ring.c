/*
 * Allreduce and reduce for any p with small rings: butterfly over the
 * power-of-two factor, a ring over each small odd prime factor (3, 5, 7) up
 * to rmax, and elimination (elimination.c) for what is left of the odd
 * factor; routing as in elimination.c.
 *
 * Reference: Rabenseifner and Träff 2004, §3.4 (small rings: the exchange
 * of the butterfly generalised to f processes; the local reductions wait
 * until every operand is there, and combine left to right), §3.6 (rings
 * and elimination plugged together). Split ring: f - 1 rounds of m/f;
 * whole ring: Bruck's concatenation in ceil(log2 f) rounds, so p = 3 * 2^n
 * and 9 * 2^n take ceil(log2 p) rounds for small vectors. Canonical order,
 * one bracketing.
 *
 * Restrictions: p not a power of two with an odd factor 3, 5 or 7;
 * contiguous datatype. rmax (3, 5 or 7) is the model's unless given.
 *
 * Cost: per ring of f on m bytes, split: 2 (f - 1)(alpha + beta m/f) +
 * (f - 1) gamma m/f + 2 rho m/f; whole: ceil(log2 f) alpha + (f - 1)(beta +
 * gamma) m + 2 rho m; other levels as in elimination.c (cs_red_cost).
 * Reduce's whole rings go one way, at most ceil(log2 f)(alpha + (beta +
 * gamma) m) on the member of the root (elimination.c).
 */
#include "coll/params.h"
#include "coll/reduction/engine.h"

static double cs_ring_tune_priced(const cs_model *model, const cs_problem *prob, cs_params *params, double stop)
{
    return cs_red_tune_rings(cs_red_cost_within, model, prob, params, stop);
}

static void cs_ring_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_ring_tune_priced(model, prob, params, INFINITY);
}

#define CS_RING_ROW(collective, what)                                                                                  \
    {                                                                                                                  \
        .name = "ring", .description = what, .coll = collective,                                                       \
        .requires = CS_REQ_NOT_POW2 | CS_REQ_SMALL_ODD | CS_REQ_CONTIG, .parse = cs_params_parse_bkr,                  \
        .syntax = CS_PARAMS_SYNTAX_BKR, .tune = cs_ring_tune, .tune_priced = cs_ring_tune_priced, .cost = cs_red_cost, \
        .cost_within = cs_red_cost_within, .build = cs_red_build, .format = cs_params_format_bkr,                      \
        .describe = cs_red_describe,                                                                                   \
    }

const cs_alg cs_allreduce_ring = CS_RING_ROW(
    CS_COLL_ALLREDUCE, "butterfly, small rings over odd factors 3, 5, 7, elimination (Rabenseifner-Traeff 2004 s3.4)");
const cs_alg cs_reduce_ring = CS_RING_ROW(
    CS_COLL_REDUCE, "butterfly, small rings, elimination, gather to the root (Rabenseifner-Traeff 2004 s3.4)");
