/*
 * Allreduce: butterfly with recursive halving and doubling.
 *
 * Reference: Rabenseifner and Träff 2004, §2, Fig. 1-3. The reduction
 * engine's power-of-two plan (src/coll/reduction/engine.h): p = 2^n is n
 * butterfly levels; in round z a rank exchanges with rank ^ 2^z (its bit z
 * flipped). While z < k it sends half of its block and keeps the other half
 * (recursive halving, the bandwidth mode); from round k on it exchanges its
 * whole block (the latency mode). The threshold b of the paper ("halve while
 * the block is larger than b") and the count k of halving rounds say the
 * same thing; the model picks k when the configuration gives neither. The
 * routing phase reverses the k halving rounds as an allgather by recursive
 * doubling. The vector is reduced in RECV (no scratch copy of the input).
 *
 * Canonical order: the partner whose bit z is 1 holds the right operand, so
 * after round z each block is ((m_i0 + ... ) + ( ... + m_i0+2^(z+1)-1)) with
 * the same balanced bracketing on every rank and for every element.
 *
 * Restrictions: p a power of two; contiguous datatype. Any operator:
 * canonical order, one bracketing, bitwise the same result on every rank.
 *
 * Cost, m bytes, n = log2 p, k halving rounds (0 <= k <= n):
 *   rho m                                   copy of the input (unless in place)
 * + sum_{z<k} [alpha + (beta + gamma) m/2^(z+1)]      halving rounds
 * + (n - k) [alpha + (beta + gamma) m/2^k]            whole-block rounds
 * + rho m/2^k                               result left in scratch by a
 *                                           non-commutative combine (n >= 1)
 * + sum_{z<k} [alpha + beta m/2^(z+1)]      allgather
 * k = n, m >> b: about 2 n alpha + 2 beta m + gamma m (bandwidth mode);
 * k = 0: n (alpha + (beta + gamma) m) (latency mode). In price.c. On
 * nodes (cs_problem.ppn), round z's alpha and beta are those of ranks 2^z
 * apart (cs_model_at_level): the pricer's without a node's link, within 1.3
 * times it with one (pricer suite).
 */
#include "coll/params.h"
#include "coll/reduction/engine.h"

static void cs_allreduce_butterfly_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_red_tune(cs_red_cost_pow2_within, NULL, model, prob, params, 1, INFINITY);
}

const cs_alg cs_allreduce_butterfly = {
    .name = "butterfly",
    .description = "recursive halving and doubling, threshold b (Rabenseifner-Traeff 2004 s2)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .parse = cs_params_parse_bk,
    .syntax = CS_PARAMS_SYNTAX_BK,
    .tune = cs_allreduce_butterfly_tune,
    .cost = cs_red_cost_pow2,
    .build = cs_red_build_pow2,
    .format = cs_params_format_bk,
    .critical_path = CS_PATH_EXACT,
};
