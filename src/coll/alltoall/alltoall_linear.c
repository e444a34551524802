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
 * Under the model (1-ported: one message at a time each way) it costs what
 * direct costs, and direct stands before it in the table, so the model
 * never prefers it. Where many messages in flight beat p - 1 rounds (a
 * node that drives several links, or an oversubscribed node whose every
 * round waits for a time slice), collshim-calibrate measures it and its
 * rules pick it.
 *
 * In place: the p - 1 blocks to send go to scratch first (the receives
 * write over their slots while they are in flight).
 *
 * Restrictions: contiguous datatypes on both sides.
 *
 * Cost, m bytes per block:
 *   (p - 1)(alpha + beta m) + rho m              own block copied
 *   in place: (p - 1)(alpha + beta m) + rho m (p - 1)
 */
#include "coll/coll.h"

static double cs_alltoall_linear_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const double m = (double)prob->bytes, p = prob->p;
    const double copies = (prob->flags & CS_PROB_INPLACE) ? p - 1 : 1;
    return (p - 1) * (model->alpha + model->beta * m) + model->rho * m * copies;
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
};
