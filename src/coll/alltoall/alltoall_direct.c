/*
 * Alltoall: Direct complete exchange (pairwise), for any p.
 *
 * Reference: Bokhari 1993, "Multiphase Complete Exchange", §2.2, the Direct
 * algorithm (the multiphase exchange with the partition D = {d}). No block is
 * forwarded, so none is reordered. In round j = 1..p-1 rank i
 *   p = 2^d:   exchanges one block of m bytes with rank i ^ j (the paper's
 *              exclusive-OR schedule: sender and receiver are one peer);
 *   otherwise: sends to (i + j) mod p and receives from (i - j) mod p, as
 *              MPICH's pairwise alltoall does.
 *
 * In place, a block must leave before its slot is written:
 *   p = 2^d:   the block for the next peer goes to an m-byte scratch after
 *              each round (the peer's answer lands where it was): p - 1 copies;
 *   otherwise: round j writes slot i - j, whose block leaves in round p - j;
 *              for j <= p/2 that is later (or, j = p/2, the same round), so
 *              those floor(p/2) blocks are set aside in scratch first, before
 *              any message.
 *
 * Restrictions: contiguous datatypes on both sides.
 *
 * Cost, m bytes per block (on nodes: cs_direct_rounds_on_nodes):
 *   (p - 1)(alpha + beta m) + rho m                 own block copied
 *   + alpha_hop per link beyond the first of rank 0's partner each round
 *   (model.distance, cs_direct_hops; not on nodes)
 *   in place: (p - 1)(alpha + beta m) + rho m c,    c = p - 1 (p = 2^d),
 *                                                   c = floor(p/2) (otherwise)
 */
#include "coll/coll.h"

static int cs_direct_pow2(int p)
{
    return (p & (p - 1)) == 0;
}

/*
 * On nodes of ppn ranks (cs_model_at_level): p = 2^d and ppn a power of two,
 * the rounds j < ppn exchange within a node and the others off it, every
 * rank of a node at once; otherwise round j's peers are j apart, off the
 * node for some of its ranks (the slowest), min(j, ppn) of them (ppn from
 * j = ppn on) sending off it at once.
 */
static double cs_direct_rounds_on_nodes(const cs_model *given, const cs_problem *prob, double m)
{
    const int p = prob->p, ppn = prob->ppn < p ? prob->ppn : p;
    const int xor_on = cs_direct_pow2(p) && cs_direct_pow2(ppn);
    const cs_model on1 = cs_model_on_node(given), all1 = cs_model_off_node(given, ppn);
    const cs_model on = cs_model_pairwise(&on1), all = cs_model_pairwise(&all1);
    double t = (p - ppn) * (all.alpha + all.beta * m);
    for (int j = 1; j < ppn; j++) {
        const cs_model off = cs_model_off_node(given, j), pairwise = cs_model_pairwise(&off);
        t += xor_on ? on.alpha + on.beta * m : pairwise.alpha + pairwise.beta * m;
    }
    return t;
}

/* The links beyond the first that rank 0's partner of each of the p - 1
 * rounds is away, summed (model.distance): 0 ^ j and 0 + j are j. Under
 * xor at p = 2^d every pair of a round is popcount j links apart (exact,
 * the pricer suite); a shift's rounds mix nearer and farther pairs (within
 * 0.7 to 1.45 of the pricer). */
static long cs_direct_hops(int distance, int p)
{
    long sum = 0;
    for (int j = 1; j < p; j++)
        sum += cs_hops(distance, 0, j) - 1;
    return sum;
}

static double cs_alltoall_direct_cost(const cs_model *unsized, const cs_problem *prob, const cs_params *params)
{
    const cs_model sized = cs_model_sized(unsized, (double)prob->bytes), *given = &sized; /* every message m */
    const cs_model pairwise = cs_model_pairwise(given), *model = &pairwise;
    const double m = (double)prob->bytes, p = prob->p;
    const double copies = !(prob->flags & CS_PROB_INPLACE) ? 1 : cs_direct_pow2(prob->p) ? p - 1 : prob->p / 2;
    const double far = given->distance ? given->alpha_hop * (double)cs_direct_hops(given->distance, prob->p) : 0.0;
    const double rounds = cs_model_nodes(given, prob) ? cs_direct_rounds_on_nodes(given, prob, m)
                                                      : (p - 1) * (model->alpha + model->beta * m) + far;
    return rounds + model->rho * m * copies;
}

/* p = 2^d: the exclusive-OR schedule. */
static int cs_direct_xor(const cs_problem *prob, int rank, cs_sched *s)
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

/* Any p: out to rank + j, in from rank - j. In place, the block of round
 * p - j (j <= p/2) waits in scratch slot j - 1. */
static int cs_direct_shift(const cs_problem *prob, int rank, cs_sched *s)
{
    const size_t m = prob->bytes;
    const int p = prob->p, inplace = (prob->flags & CS_PROB_INPLACE) != 0;

    cs_sched_round(s);
    if (!inplace)
        cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * m, CS_BUF_RECV, (size_t)rank * m, m);
    else {
        cs_sched_scratch(s, CS_BUF_TMP0, (size_t)(p / 2) * m);
        for (int j = 1; j <= p / 2; j++)
            cs_sched_copy(s, CS_BUF_RECV, (size_t)((rank - j + p) % p) * m, CS_BUF_TMP0, (size_t)(j - 1) * m, m);
    }
    for (int j = 1; j < p; j++) {
        const int to = (rank + j) % p, from = (rank - j + p) % p;
        cs_sched_round(s);
        if (!inplace)
            cs_sched_send(s, to, CS_BUF_SEND, (size_t)to * m, m);
        else if (p - j <= p / 2)
            cs_sched_send(s, to, CS_BUF_TMP0, (size_t)(p - j - 1) * m, m);
        else
            cs_sched_send(s, to, CS_BUF_RECV, (size_t)to * m, m);
        cs_sched_recv(s, from, CS_BUF_RECV, (size_t)from * m, m);
    }
    return s->error;
}

static int cs_alltoall_direct_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_direct_pow2(prob->p) ? cs_direct_xor(prob, rank, s) : cs_direct_shift(prob, rank, s);
}

const cs_alg cs_alltoall_direct = {
    .name = "direct",
    .description = "pairwise exchange, p - 1 rounds: rank ^ j on p = 2^d (Bokhari 1993, D = {d}), else rank + j "
                   "out and rank - j in",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_CONTIG,
    .build = cs_alltoall_direct_build,
    .cost = cs_alltoall_direct_cost,
    .critical_path = CS_PATH_EXACT,
};
