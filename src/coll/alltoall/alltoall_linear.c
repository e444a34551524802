/*
 * Alltoall: linear exchange, every block in flight at once, for any p; or
 * in batches of w blocks with a wait between them (linear:w=32, MPICH's
 * throttle).
 *
 * Reference: Thakur, Rabenseifner and Gropp 2005, "Optimization of
 * Collective Communication Operations in MPICH", §4.4 (medium messages:
 * all the receives and sends posted at once, then one wait; MPICH's
 * "scattered" alltoall, Open MPI's basic_linear). Bokhari's Direct exchange
 * sends the same p - 1 blocks in p - 1 rounds; here they form one round:
 * rank i receives from every other rank and sends to (i + j) mod p,
 * j = 1..p-1, in that order (so that not every rank sends to rank 0 first).
 * MPICH 4.0.2's scattered alltoall posts them w = 32 at a time
 * (MPIR_CVAR_ALLTOALL_THROTTLE), j = 0..p-1 in batches [b w, (b + 1) w),
 * j = 0 its own block; with w the batches are the same, one round each.
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
 * blocks to scratch, rho m (p - 1)), then each round of s blocks: s
 * receives posted, then the sends, send j leaving when posted or when send
 * j - 1 is off the link; block j from rank - j arrives alpha after it left,
 * beta m after the one before it at the earliest, so the last is in
 *   o s + max(o s, o + (s - 1) beta m) + alpha + beta m
 * after the round began, and every rank begins the next round then (s =
 * p - 1 in one round; p = 1: the copy alone). With o = 0 and one round:
 * alpha + (p - 1) beta m.
 */
#include <math.h>

#include "coll/coll.h"
#include "coll/params.h"

/* The blocks per batch: all p (one batch, the own block in it) unless w is given. */
static int cs_linear_window(const cs_params *params, int p)
{
    return params && params->window >= 1 && params->window < p ? params->window : p;
}

/* The messages of batch b: j in [b w, (b + 1) w) and below p, but j = 0. */
static int cs_linear_batch(int b, int w, int p)
{
    const int lo = b * w, hi = lo + w < p ? lo + w : p;
    return hi - lo - (lo == 0);
}

/* A round of n blocks each way on one level, at most `load` of a rank's
 * on one of its links (cs_linear_round, coll.h). */
static double cs_linear_round_cost(const cs_model *model, double n, double load, double bytes)
{
    /* the last send leaves after n posted receives and either its own post
     * (posting is slower) or load - 1 blocks on the link before it */
    const double o = model->overhead, bm = model->beta * bytes;
    return o * n + fmax(o * n, o + (load - 1) * bm) + model->alpha + bm;
}

/* The most blocks j in [lo, hi) (but j = 0) that one rank of p sends over,
 * or receives over, one of its links (1 where each message has a path of
 * its own, cs_model_queues: cs_linear_round): on a hypercube (cs_link_out,
 * cs_link_in) they spread over a link per dimension, p / 2 on the busiest
 * of the whole exchange at p = 2^d; else all on its one link. */
static int cs_linear_link_load(const cs_model *model, int p, int lo, int hi)
{
    const int n = hi - lo - (lo == 0);
    if (model->distance != CS_DISTANCE_XOR || n <= 1)
        return n;
    /* O(p n): the last batch's kept, as every size of a communicator asks again */
    static _Thread_local int last_p, last_lo, last_hi, last_most;
    if (p == last_p && lo == last_lo && hi == last_hi)
        return last_most;
    int most = 1;
    for (int r = 0; r < p && most < n; r++) {
        int out[CS_LINKS] = {0}, in[CS_LINKS] = {0};
        for (int j = lo > 1 ? lo : 1; j < hi; j++) {
            const int o = ++out[cs_link_out(model, r, (r + j) % p)], i = ++in[cs_link_in(model, (r - j + p) % p, r)];
            most = o > most ? o : most;
            most = i > most ? i : most;
        }
    }
    last_p = p;
    last_lo = lo;
    last_hi = hi;
    last_most = most;
    return most;
}

/*
 * A batch of blocks j in [lo, hi) (but j = 0) on nodes of ppn ranks, seen
 * from a node's first rank: its n receives posted (o each), then its sends
 * in order, the blocks j < ppn first, to its own node (alpha_node,
 * beta_node, a path of their own, where the model has a node level, and
 * one each where each pair has its own: model.node_paths pair), then
 * the others off it, where every rank of the node sends its own at once
 * (cs_model_off_node with ppn senders; the core, every rank's at once);
 * each path's last block is in after
 * its blocks queue on it, the batch when the slower one's is. An estimate:
 * a node's other ranks send theirs in another order, and a receiver's link
 * may take its blocks later (0.78 to 1.05 of the pricer, 0.80 to 1.41 in batches of 4: a unit test).
 */
static double cs_linear_round_on_nodes(const cs_model *model, const cs_problem *prob, int lo, int hi, double m)
{
    const int ppn = model->node_levels ? prob->ppn : 1, n = hi - lo - (lo == 0); /* no node level: one path */
    const int on_lo = lo > 1 ? lo : 1, on_hi = hi < ppn ? hi : ppn, n_on = on_hi > on_lo ? on_hi - on_lo : 0;
    const int n_off = n - n_on;
    const cs_model on = cs_model_on_node(model), off = cs_model_off_nodes(model, prob->ppn, prob->p);
    const double o = model->overhead;
    const int queued_on = cs_model_queues(model, 1) ? n_on : 1; /* pair paths: none behind another */
    const double t_on = n_on ? o * n + fmax(o * n_on, o + (queued_on - 1) * on.beta * m) + on.alpha + on.beta * m : 0.0;
    const double t_off =
        n_off ? o * n + fmax(o * n, o * (n_on + 1) + (n_off - 1) * off.beta * m) + off.alpha + off.beta * m : 0.0;
    return fmax(t_on, t_off);
}

double cs_linear_round(const cs_model *unsized, const cs_problem *prob, int lo, int hi, double bytes)
{
    const cs_model sized = cs_model_sized(unsized, bytes), *given = &sized; /* every block's band (model.bands) */
    cs_model far = *given; /* the last block in: the farthest pair's (cs_model_level_latency) */
    far.alpha += cs_model_level_latency(given, prob->p, 1, prob->p);
    const cs_model *model = given->distance ? &far : given;
    if (cs_model_nodes(model, prob) && prob->ppn < prob->p)
        return cs_linear_round_on_nodes(model, prob, lo, hi, bytes);
    /* every rank's blocks through the network's core at once (none on one node) */
    const cs_model core = cs_model_through_core(model, prob->ppn > 1 ? 0 : prob->p);
    const int load = cs_model_queues(model, 0) ? cs_linear_link_load(model, prob->p, lo, hi) : 1;
    return cs_linear_round_cost(&core, hi - lo - (lo == 0), load, bytes);
}

static double cs_alltoall_linear_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const double m = (double)prob->bytes, p = prob->p;
    const double copies = (prob->flags & CS_PROB_INPLACE) ? p - 1 : 1;
    if (prob->p == 1)
        return (prob->flags & CS_PROB_INPLACE) ? 0.0 : model->rho * m;
    const int w = cs_linear_window(params, prob->p);
    double t = model->rho * m * copies;
    for (int b = 0; b * w < prob->p; b++)
        if (cs_linear_batch(b, w, prob->p) > 0)
            t += cs_linear_round(model, prob, b * w, b * w + w < prob->p ? b * w + w : prob->p, m);
    return t;
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
    const int w = cs_linear_window(params, p);
    for (int b = 0; b * w < p; b++) {
        if (cs_linear_batch(b, w, p) == 0)
            continue;
        cs_sched_round(s);
        for (int j = b * w > 1 ? b * w : 1; j < (b + 1) * w && j < p; j++) {
            const int to = (rank + j) % p, from_rank = (rank - j + p) % p;
            cs_sched_recv(s, from_rank, CS_BUF_RECV, (size_t)from_rank * m, m);
            cs_sched_send(s, to, from, inplace ? (size_t)(j - 1) * m : (size_t)to * m, m);
        }
    }
    return s->error;
}

const cs_alg cs_alltoall_linear = {
    .name = "linear",
    .description = "every block in flight at once: p - 1 receives and sends posted together, one round (Thakur "
                   "et al. 2005; Open MPI's basic_linear), or w at a time with a wait between (linear:w=32, "
                   "MPICH's scattered)",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_CONTIG,
    .parse = cs_params_parse_window,
    .syntax = CS_PARAMS_SYNTAX_W,
    .format = cs_params_format_window,
    .build = cs_alltoall_linear_build,
    .cost = cs_alltoall_linear_cost,
    .critical_path = CS_PATH_EXACT,
};
