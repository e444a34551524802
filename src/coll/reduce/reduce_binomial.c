/*
 * Reduce by a binomial tree in rank order, for any p: the latency-optimal
 * reduce for short vectors, one-way (the whole-block rounds of Rabenseifner
 * and Träff's butterfly reduce, 2004, §2, here for any p; the usual short-
 * message reduce of MPI libraries).
 *
 * In round j (distance d = 2^j) the rank x with x mod 2d = d sends what it
 * holds, the reduction of ranks x .. min(x + d, p) - 1, to x - d, which
 * joins it to the right of its own run x - d .. x - 1 and holds the run
 * x - d .. min(x + d, p) - 1. Every combine joins adjacent runs, the left
 * one first, so rank 0 ends with m_0 (+) ... (+) m_(p-1) in canonical order
 * and one bracketing; a root other than 0 gets it in one more round. Every
 * rank sends once; received vectors alternate between two scratch buffers
 * (the combine writes into the one just received), so only the root copies
 * (its result into RECV, or its input when rank 0 is the root in place).
 *
 * Restrictions: contiguous datatype. Any operator, any root, MPI_IN_PLACE
 * at the root.
 *
 * Cost, m bytes, L = ceil(log2 p), A = alpha + (beta + gamma) m: rank 0
 * receives in all L rounds and is the slowest (another rank x receives in
 * at most L - 1 rounds and sends once; the root, if not 0, receives once
 * more: (L - 1) A + 2 (alpha + beta m) <= L A + alpha + beta m):
 *   L A + rho m                   root 0 (the result into RECV)
 *   L A + alpha + beta m          root != 0 (rank 0 forwards the result)
 *   p = 1: rho m, or 0 in place.
 */
#include "coll/coll.h"
#include "coll/reduce/knomial.h"

static double cs_reduce_binomial_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_reduce_knomial_cost_r(model, prob, 2);
}

/* The k-nomial tree of radix 2 (reduce_knomial.c). */
static int cs_reduce_binomial_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_reduce_knomial_build_r(prob, 2, rank, s);
}

const cs_alg cs_reduce_binomial = {
    .name = "binomial",
    .description = "binomial tree in rank order, one-way, ceil(log2 p) rounds (+1 for a root other than 0)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_CONTIG,
    .cost = cs_reduce_binomial_cost,
    .build = cs_reduce_binomial_build,
    .critical_path = CS_PATH_EXACT,
};
