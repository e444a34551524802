/*
 * Alltoall: linear exchange, every block in flight at once, for any p.
 *
 * Reference: Thakur, Rabenseifner and Gropp 2005, "Optimization of
 * Collective Communication Operations in MPICH", §4.4 (medium messages:
 * all the receives and sends posted at once, then one wait; MPICH's
 * "scattered" alltoall, Open MPI's basic_linear). Bokhari's Direct exchange
 * sends the same p - 1 blocks in p - 1 rounds; here they form one round:
 * rank i receives from every other rank and sends to (i + j) mod p,
 * j = 1..p-1, in that order (so that not every rank sends to rank 0 first).
 *
 * Under the critical-path model its messages overlap their alpha: one
 * alpha, p - 1 blocks queued on each link and 2(p - 1) posts, where direct
 * pays p - 1 alphas; it wins where alpha is large against beta m and o
 * (small and medium blocks).
 *
 * In place: the p - 1 blocks to send go to scratch first (the receives
 * write over their slots while they are in flight).
 *
 * Restrictions: contiguous datatypes on both sides.
 *
 * Cost (the critical path, every rank alike; m bytes per block, o the
 * overhead per post): the own block copied, rho m (in place: the p - 1
 * blocks to scratch, rho m (p - 1)), then the round: p - 1 receives posted,
 * then the sends, send j leaving when posted or when send j - 1 is off the
 * link; block j from rank - j arrives alpha after it left, beta m after the
 * one before it at the earliest, so the last is in
 *   o (p - 1) + max(o (p - 1), o + (p - 2) beta m) + alpha + beta m
 * (p = 1: the copy alone). With o = 0: alpha + (p - 1) beta m.
 */
#include <math.h>

#include "coll/coll.h"

static double cs_alltoall_linear_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const double m = (double)prob->bytes, p = prob->p;
    const double copies = (prob->flags & CS_PROB_INPLACE) ? p - 1 : 1, o = model->overhead, bm = model->beta * m;
    if (prob->p == 1)
        return (prob->flags & CS_PROB_INPLACE) ? 0.0 : model->rho * m;
    /* the last send leaves after p - 1 posted receives and either its own
     * post (posting is slower) or p - 2 blocks on the link before it */
    const double last_leaves = o * (p - 1) + fmax(o * (p - 1), o + (p - 2) * bm);
    return model->rho * m * copies + last_leaves + model->alpha + bm;
}

static int cs_alltoall_linear_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const size_t m = prob->bytes;
    const int p = prob->p, inplace = (prob->flags & CS_PROB_INPLACE) != 0;
    /* In place the blocks to send are in scratch, without the own block:
     * block b at (b - rank - 1) mod p, i.e. in sending order. */
    const cs_buf from = inplace ? CS_BUF_TMP0 : CS_BUF_SEND;

    cs_sched_round(s);
    if (!inplace) {
        cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * m, CS_BUF_RECV, (size_t)rank * m, m);
    } else if (p > 1) {
        /* blocks rank + 1 .. p - 1, then 0 .. rank - 1 */
        cs_sched_scratch(s, CS_BUF_TMP0, (size_t)(p - 1) * m);
        cs_sched_copy(s, CS_BUF_RECV, (size_t)(rank + 1) * m, CS_BUF_TMP0, 0, (size_t)(p - 1 - rank) * m);
        cs_sched_copy(s, CS_BUF_RECV, 0, CS_BUF_TMP0, (size_t)(p - 1 - rank) * m, (size_t)rank * m);
    }
    if (p == 1)
        return s->error;
    cs_sched_round(s);
    for (int j = 1; j < p; j++) {
        const int to = (rank + j) % p, from_rank = (rank - j + p) % p;
        cs_sched_recv(s, from_rank, CS_BUF_RECV, (size_t)from_rank * m, m);
        cs_sched_send(s, to, from, inplace ? (size_t)(j - 1) * m : (size_t)to * m, m);
    }
    return s->error;
}

const cs_alg cs_alltoall_linear = {
    .name = "linear",
    .description = "every block in flight at once: p - 1 receives and sends posted together, one round (Thakur "
                   "et al. 2005; MPICH's scattered, Open MPI's basic_linear); the model prices it as direct",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_CONTIG,
    .build = cs_alltoall_linear_build,
    .cost = cs_alltoall_linear_cost,
    .critical_path = CS_PATH_EXACT,
};
