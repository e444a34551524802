/*
 * Reduce: butterfly reduction phase, then a gather towards the root.
 *
 * Reference: Rabenseifner and Träff 2004, §2 ("the routing phase is most
 * easily implemented by reversing the communication pattern of the
 * reduction phase"). The reduction engine's power-of-two plan
 * (src/coll/reduction/engine.h), as allreduce_butterfly.c, with reduce's
 * rounds: the halving rounds z < k exchange halves with rank ^ 2^z; the
 * whole-block rounds z >= k go one way (a binomial tree): the rank whose
 * bit z differs from the root's, bit z of rank ^ root, sends its block and
 * is done. After the reduction phase the 2^k ranks that agree with the root
 * on bits k..n-1 hold the result in blocks; the gather undoes the halving
 * rounds, last first: in round z the rank whose bit z differs from the
 * root's sends all it holds to its partner and is done. The root reduces in
 * RECV, the others in scratch.
 *
 * Restrictions: p a power of two; contiguous datatype. Any operator, any
 * root, in place at the root: canonical order, one bracketing.
 *
 * Cost, m bytes, n = log2 p >= 1, k halving rounds, s = m/2^k:
 *   R = sum_{z<k} [alpha + 2o + (beta + gamma) m/2^(z+1)] + (n - k) [alpha + o + (beta + gamma) s]
 *   G = sum_{z<k} [alpha + o + beta m/2^(z+1)]      the gather
 *   (o per message posted: a send and a receive in a halving round, one
 *   message in the others)
 *   root:  rho m (unless in place) + rho s (if a non-commutative combine left
 *          its block in scratch: the parity of the root's zero bits) + G
 *   other: rho m + G for k >= 1 (root ^ 1 gathers as long as the root);
 *          rho m - gamma m for k = 0 (root ^ 2^(n-1) sends its last block
 *          instead of combining it)
 *   cost = R + max(root, other); p = 1: rho m, or 0 in place. The
 *   closed form is in price.c.
 */
#include "coll/params.h"
#include "coll/reduction/engine.h"

static void cs_reduce_butterfly_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_red_tune(cs_red_cost_pow2_within, NULL, model, prob, params, 1, INFINITY);
}

const cs_alg cs_reduce_butterfly = {
    .name = "butterfly",
    .description = "recursive halving, then gather to the root (Rabenseifner-Traeff 2004 s2)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .parse = cs_params_parse_bk,
    .syntax = CS_PARAMS_SYNTAX_BK,
    .tune = cs_reduce_butterfly_tune,
    .cost = cs_red_cost_pow2,
    .build = cs_red_build_pow2,
    .format = cs_params_format_bk,
};
