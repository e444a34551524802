/*
 * Allreduce: reduce-scatter and allgather by linear exchange, every part in
 * flight at once, for any p.
 *
 * Reference: Rabenseifner's algorithm (Rabenseifner and Träff 2004, §2:
 * a reduce-scatter, then an allgather) with both phases as the linear
 * exchange of Thakur, Rabenseifner and Gropp 2005, §4.4 (all receives and
 * sends posted at once, then one wait); SimGrid's allreduce "rab2" (a
 * reduce-scatter by alltoall, then an allgather), which beat every row of
 * ours on the scale lab's fat tree (2.3 times at 4 KiB, p = 64).
 *
 * The vector splits into p parts, part j = elements [count j / p,
 * count (j + 1) / p). Round 1: rank r receives part r of every other rank
 * (into a slot each of scratch) and sends every other rank j its part j,
 * rank r + j first; then combines the p slots left to right, m_0 (+) m_1
 * (+) ... (+) m_(p-1), its own input copied into its slot, and puts the
 * result into part r of RECV. Round 2: rank r sends part r to every other
 * rank and receives theirs. Each part is combined once, by its owner, in
 * canonical order with one bracketing: any operator, bitwise the same
 * result on every rank. In place the input is RECV: round 1's sends are
 * done before its local steps write part r, and round 2 writes the others.
 *
 * Where the butterfly pays 2 log2 p start-ups, this pays 2, and 4 (p - 1)
 * posts: it wins where alpha is large against o (a fat tree's hops). Its
 * bytes are the butterfly's, but every rank sends nearly all of them off
 * its node, where the butterfly's first stages stay on it. The scale lab
 * (SimGrid, p = 64 and 96) measured 0.43 to 0.88 of our best on a fat tree
 * of one rank a host, 8 B to 1 MiB; 2.5 and 5.4 times the ring at 64 KiB
 * and 1 MiB on multi-core nodes (a node's ranks share its link), and 2
 * times the butterfly at 8 B on a hypercube (a message to a far rank
 * crosses 6 hops, the butterfly's each one). On nodes the model prices a
 * node's link as the linear alltoall's rounds do; but within one node's
 * memory (a real node's p - 1 copies queue there too, 5.5 times the
 * library at 8 B, p = 16) and over hops it does not see the queue, so it
 * never chooses this row (rules_only): a forced choice or
 * collshim-calibrate's measured rules run it.
 *
 * Restrictions: contiguous datatype. Zero-length parts (0 < count < p)
 * are sent all the same, so every rank posts alike; count 0 sends nothing.
 *
 * Cost (the critical path; L = ceil(count / p) elements in bytes, the
 * largest part, s = p - 1 messages each way): each round as the linear
 * alltoall prices one of s blocks of L bytes,
 *   X = o s + max(o s, o + (s - 1) beta L) + alpha + beta L
 * (on nodes its estimate with a node's link: cs_linear_round),
 * and between them the owner of a largest part copies and combines:
 *   2 X + 2 rho L + (p - 1) gamma L
 * (p = 1 or count 0: rho m, 0 in place). Exact when p divides count; otherwise the
 * parts of L - 1 elements make it at most an element per message dearer.
 */
#include "coll/reduction/engine.h" /* cs_part: the engine's parts of a block */

/* First element of part j of `parts` (count past the last part). */
static size_t cs_linear_part(size_t count, int parts, int j)
{
    return j < parts ? cs_part(0, count, parts, j) : count;
}

static double cs_allreduce_linear_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const int p = prob->p;
    if (p == 1 || prob->count == 0)
        return (prob->flags & CS_PROB_INPLACE) ? 0.0 : model->rho * (double)prob->bytes;
    const double L = (double)((prob->count + (size_t)p - 1) / (size_t)p * prob->elem), s = p - 1;
    return 2 * cs_linear_round(model, prob, 0, p, L) + 2 * model->rho * L + s * model->gamma * L;
}

int cs_allreduce_linear_build_parts(const cs_problem *prob, int parts, int rank, cs_sched *s)
{
    const int p = prob->p, k = parts;
    const size_t e = prob->elem, count = prob->count;
    const cs_buf in = (prob->flags & CS_PROB_INPLACE) ? CS_BUF_RECV : CS_BUF_SEND;
    const size_t lo = cs_linear_part(count, k, rank) * e, len = cs_linear_part(count, k, rank + 1) * e - lo;

    cs_sched_round(s);
    if (p == 1 || count == 0) {
        cs_sched_copy(s, in, 0, CS_BUF_RECV, 0, count * e); /* nothing in place */
        return s->error;
    }
    /* slot x of TMP0 gets rank x's part `rank`; an empty part's (count < p)
     * messages are received where its part would be, no scratch */
    if (len)
        cs_sched_scratch(s, CS_BUF_TMP0, (size_t)p * len);
    const cs_buf slots = len ? CS_BUF_TMP0 : CS_BUF_RECV;
    for (int j = 1; j < p; j++) {
        const int to = (rank + j) % p, from = (rank - j + p) % p;
        const size_t to_lo = cs_linear_part(count, k, to) * e, to_hi = cs_linear_part(count, k, to + 1) * e;
        cs_sched_recv(s, from, slots, len ? (size_t)from * len : lo, len);
        cs_sched_send(s, to, in, to_lo, to_hi - to_lo);
    }
    cs_sched_copy(s, in, lo, CS_BUF_TMP0, (size_t)rank * len, len);
    for (int x = 1; x < p; x++) /* slot x = (m_0 (+) ... (+) m_(x-1)) (+) m_x */
        cs_sched_reduce(s, CS_BUF_TMP0, (size_t)(x - 1) * len, CS_BUF_TMP0, (size_t)x * len, len);
    cs_sched_copy(s, CS_BUF_TMP0, (size_t)(p - 1) * len, CS_BUF_RECV, lo, len);

    cs_sched_round(s);
    for (int j = 1; j < p; j++) {
        const int to = (rank + j) % p, from = (rank - j + p) % p;
        const size_t from_lo = cs_linear_part(count, k, from) * e, from_hi = cs_linear_part(count, k, from + 1) * e;
        cs_sched_recv(s, from, CS_BUF_RECV, from_lo, from_hi - from_lo);
        cs_sched_send(s, to, CS_BUF_RECV, lo, len);
    }
    return s->error;
}

static int cs_allreduce_linear_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_allreduce_linear_build_parts(prob, prob->p, rank, s);
}

const cs_alg cs_allreduce_linear = {
    .name = "linear",
    .description = "reduce-scatter and allgather, each one round with every part in flight at once: 2 start-ups, "
                   "4 (p - 1) posts (Rabenseifner's algorithm with Thakur et al. 2005's linear exchange; SimGrid's "
                   "rab2)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_CONTIG,
    .build = cs_allreduce_linear_build,
    .cost = cs_allreduce_linear_cost,
    .critical_path = CS_PATH_EXACT,
    .rules_only = 1,
};
