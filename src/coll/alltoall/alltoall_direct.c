/*
 * Alltoall: Direct complete exchange (pairwise XOR).
 *
 * Reference: Bokhari 1993, "Multiphase Complete Exchange", the Direct
 * algorithm (the multiphase exchange with the partition D = {d}). In round
 * j = 1..p-1 rank i exchanges one block of m bytes with rank i ^ j; no block
 * is forwarded, so none is reordered.
 *
 * Restrictions: p a power of two (so that i ^ j is a rank); contiguous
 * datatypes on both sides.
 *
 * Cost, m bytes per block:
 *   (p - 1)(alpha + beta m) + rho m            own block copied
 *   (p - 1)(alpha + beta m) + rho m (p - 1)    in place: each block leaves
 *                                              through an m-byte scratch
 */
#include "coll/coll.h"

static double cs_alltoall_direct_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const double m = (double)prob->bytes, p = prob->p;
    const double copies = (prob->flags & CS_PROB_INPLACE) ? p - 1 : 1;
    return (p - 1) * (model->alpha + model->beta * m) + model->rho * m * copies;
}

static int cs_alltoall_direct_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const size_t m = prob->bytes;
    const int p = prob->p;

    cs_sched_round(s);
    if (!(prob->flags & CS_PROB_INPLACE)) {
        cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * m, CS_BUF_RECV, (size_t)rank * m, m);
        for (int j = 1; j < p; j++) {
            const int peer = rank ^ j;
            cs_sched_round(s);
            cs_sched_send(s, peer, CS_BUF_SEND, (size_t)peer * m, m);
            cs_sched_recv(s, peer, CS_BUF_RECV, (size_t)peer * m, m);
        }
        return s->error;
    }
    /* In place: the block for the next peer is set aside in scratch after
     * each round, since the same bytes are overwritten by what comes back. */
    cs_sched_scratch(s, CS_BUF_TMP0, m);
    if (p > 1)
        cs_sched_copy(s, CS_BUF_RECV, (size_t)(rank ^ 1) * m, CS_BUF_TMP0, 0, m);
    for (int j = 1; j < p; j++) {
        const int peer = rank ^ j;
        cs_sched_round(s);
        cs_sched_send(s, peer, CS_BUF_TMP0, 0, m);
        cs_sched_recv(s, peer, CS_BUF_RECV, (size_t)peer * m, m);
        if (j + 1 < p)
            cs_sched_copy(s, CS_BUF_RECV, (size_t)(rank ^ (j + 1)) * m, CS_BUF_TMP0, 0, m);
    }
    return s->error;
}

const cs_alg cs_alltoall_direct = {
    .name = "direct",
    .description = "pairwise exchange with rank ^ j, p - 1 rounds (Bokhari 1993, D = {d})",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .build = cs_alltoall_direct_build,
    .cost = cs_alltoall_direct_cost,
};
