/*
 * Allreduce and reduce for any p: butterfly over the power-of-two factor,
 * elimination over the odd factor.
 *
 * Reference: Rabenseifner and Träff 2004, §3.1 (the 3-2 elimination step),
 * §3.3 and Fig. 5 (the non-overlapping protocol: one 3-2 step and pairs of
 * 2-1 steps, all in round 1, leave 2^floor(log2 q) survivors), §3.6 (the
 * butterfly first, over groups of consecutive ranks), §2 (the routing phase
 * reverses the reduction phase: an allgather for allreduce, a gather to the
 * root for reduce; an eliminated root gets the block from the survivor it
 * fed). The plan and the builders are in plan.c and engine.h. Each stage
 * splits the block while the model (or the threshold b) says so. Canonical
 * order, one bracketing; reduce at any root, in place at the root.
 *
 * Restrictions: p not a power of two (there the butterfly is the same
 * algorithm without elimination); contiguous datatype.
 *
 * Cost of allreduce, p = 2^n q, m bytes, every stage split (the bandwidth
 * mode), about 2 ceil(log2 p) alpha + 2 (1.5 - 1/p') beta m + (1.5 - 1/p')
 * gamma m, p' = 2^floor(log2 p); every stage whole (latency mode):
 * (ceil(log2 p) + 1)(alpha + beta m) + ceil(log2 p) gamma m; plus rho m
 * (input copy) and rho m_final (result copy); with an overhead o per
 * message posted, alpha + 2o per round that exchanges, alpha + o per round
 * of the elimination that only sends or only receives. The exact closed
 * form, per stage and per role of the elimination, is cs_red_allreduce_cost. Reduce:
 * split stages as allreduce, whole levels one way towards the root (a tree
 * over the level's members in ceil(log2 f) rounds, adjacent runs only: no
 * two-way exchange, no hand-over to an eliminated root), then the root
 * receives what its partners hold at every split stage; priced on the
 * ranks that can be slowest by cs_red_reduce_cost (every rank up to 128).
 */
#include "coll/params.h"
#include "coll/reduction/engine.h"

static double cs_elimination_tune_priced(const cs_model *model, const cs_problem *prob, cs_params *params, double stop)
{
    params->rmax = -1; /* no rings */
    return cs_red_tune(cs_red_cost_within, cs_red_cost_floor, model, prob, params, 0, stop);
}

static void cs_elimination_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_elimination_tune_priced(model, prob, params, INFINITY);
}

#define CS_ELIMINATION_ROW(collective, what)                                                                           \
    {                                                                                                                  \
        .name = "elimination", .description = what, .coll = collective, .requires = CS_REQ_NOT_POW2 | CS_REQ_CONTIG,   \
        .parse = cs_params_parse_bk, .tune = cs_elimination_tune, .tune_priced = cs_elimination_tune_priced,           \
        .syntax = CS_PARAMS_SYNTAX_BK, .cost = cs_red_cost, .cost_within = cs_red_cost_within, .build = cs_red_build,  \
        .format = cs_params_format_bk, .describe = cs_red_describe,                                                    \
    }

const cs_alg cs_allreduce_elimination = CS_ELIMINATION_ROW(
    CS_COLL_ALLREDUCE, "butterfly, then 3-2 and 2-1 elimination of the odd factor (Rabenseifner-Traeff 2004 s3.3)");
const cs_alg cs_reduce_elimination = CS_ELIMINATION_ROW(
    CS_COLL_REDUCE, "butterfly and elimination of the odd factor, gather to the root (Rabenseifner-Traeff 2004)");
