/*
 * Reduce by a k-nomial tree in rank order, radix r, for any p: each round a
 * parent takes the runs of up to r - 1 children at once. binomial is its
 * r = 2 (reduce_binomial.c builds with cs_reduce_knomial_build).
 *
 * Reference: the k-nomial trees of MVAPICH2's short-message reduce (its
 * knomial factor, 4 by default) and of Open MPI's; the tree of Rabenseifner
 * and Träff 2004, §2 (the whole-block rounds, one-way) with r - 1 children
 * a round instead of one.
 *
 * In round t (distance d = r^t) rank x with x mod rd = jd (1 <= j < r) sends
 * what it holds, the reduction of ranks x .. min(x + d, p) - 1, to x - jd;
 * rank x with x mod rd = 0 receives its children x + d, x + 2d, .. (those
 * below p) into slots of a scratch buffer and joins their runs to the right
 * of its own, left to right: every combine joins adjacent runs, so rank 0
 * ends with m_0 (+) ... (+) m_(p-1) in canonical order; a root other than 0
 * gets it in one more round. The slots alternate between two scratch
 * buffers from round to round (the combines leave the result in the last
 * slot), so only the root copies.
 *
 * Under the critical-path model the children of a round send at once: they
 * share one alpha and queue their blocks on the parent's link, so a larger
 * radix pays fewer alphas for more posts (o) and more beta m; tune takes the
 * radix of least critical path among 2..32 unless r=R or l=L is given. l=L
 * asks for the tree of L rounds, with the least radix that has them (r^L >=
 * p: at p = 96, l=2 is r = 10 and l=3 is r = 5), so that a rule measured at
 * one p says the same shape at another.
 *
 * Restrictions: contiguous datatype. Any operator, any root, MPI_IN_PLACE
 * at the root.
 *
 * Cost: the critical path, exactly as the event pricer finds it (pricer
 * suite). A child whose run covers s ranks is the root of the tree over s
 * ranks and sends when that tree is done (T(s)); its block reaches rank 0
 * at T(s) + o + alpha, in whatever round rank 0 is then, and waits for rank
 * 0's link (beta m each, in arrival order). Rank 0's round t ends when its c_t
 * receives are posted (c_t o) and its c_t blocks are in, then combines them
 * (c_t gamma m): T(p) is rank 0's last round's end, computed by recursion
 * over the subtree sizes (full ones r^t cached). Then
 *   T(p) + rho m                      root 0 (the result into RECV)
 *   T(p) + o + alpha + beta m         root != 0 (rank 0 forwards the result)
 *   p = 1: rho m, or 0 in place.
 * With o = 0, p = r^L: L (alpha + (r - 1)(beta + gamma) m) + rho m; binomial
 * (r = 2) on p = 2^L: L (alpha + (beta + gamma) m) + rho m, as before.
 * On nodes (cs_problem.ppn, cs_knomial_links), each child's alpha and beta
 * are those within a node or off it, and rank 0 takes the two kinds on two
 * links: still the pricer's where the nodes line up with every round (a
 * round's children all on the parent's node, all off it, or those below ppn
 * on it: r = 16 or 4 on nodes of 8; pricer suite); a radix whose rounds
 * straddle nodes (r = 5 on nodes of 8) is priced by the event pricer on the
 * node map where it prices maps (prob->node, up to 128 ranks: the lab's
 * nodes of 32 at p = 128, r = 6, 1 MiB: 551 us as if all were off them,
 * SimGrid 324), else as if all were off them.
 * Where each pair of a node's ranks has a path of its own (model.node_paths
 * pair) the blocks from rank 0's node do not queue: each is in beta m after
 * it arrives.
 * By rendezvous (model.rendezvous_from) a child's block leaves only once
 * rank 0 has begun the round that receives it: rank 0's rounds then run in
 * turn, round t's blocks leaving at the later of its start and their sends
 * (cs_knomial_tree_rendezvous); still the pricer's.
 */
#include <math.h>
#include <stdlib.h>

#include "coll/coll.h"
#include "coll/params.h"
#include "coll/reduce/knomial.h"

/* Rounds, and children of rank 0 over all rounds. */
static int cs_knomial_children(int p, int r, int *rounds)
{
    int children = 0;
    *rounds = 0;
    for (long long d = 1; d < p; d *= r) {
        const long long c = (p + d - 1) / d - 1;
        children += (int)(c < r - 1 ? c : r - 1);
        ++*rounds;
    }
    return children;
}

/* A round's messages (children d, 2d, .. apart): start-up and per byte,
 * path[0] off a node and path[1] on it; children j d with j < on take the
 * node's path (cs_knomial_links). */
enum { CS_KNOMIAL_FAR = 16 };
typedef struct cs_knomial_link {
    struct {
        double alpha, beta;
    } path[2];
    int on;
    /* model.distance: the latency child j's links beyond the first add
     * off the node (cs_tree_hops), j < CS_KNOMIAL_FAR; the farthest's past it */
    double far[CS_KNOMIAL_FAR];
} cs_knomial_link;

/* One child's message to rank 0: when it reaches rank 0, in which round, by
 * which path, on which of rank 0's links (cs_knomial_queue). */
typedef struct cs_knomial_msg {
    double arrive;
    int round, on, q;
} cs_knomial_msg;

/* Rank 0's link that the block of the child x ranks on takes: the node's
 * path, its one link, none (-1: a path of its own, model.node_paths pair),
 * or on a hypercube the link of x's highest bit
 * (cs_link_in: the tree's parents are multiples of r d, so a child's rank
 * differs from its parent's in x's bits where r is a power of two; for
 * other radices the bits depend on where a subtree lies, and its blocks
 * are priced on one link, an upper bound). */
static int cs_knomial_queue(const cs_model *mo, int on, long long x, int r)
{
    if (!cs_model_queues(mo, on))
        return -1; /* a path of its own */
    if (on)
        return cs_model_node_path(mo) ? CS_LINK_NODE : CS_LINK_NET;
    return (r & (r - 1)) == 0 ? cs_link_in(mo, 0, (long)x) : CS_LINK_NET;
}

/* When a child's block is through rank 0's link q (link[q] its FIFO), beta_m after
 * it gets there; on a path of its own (q < 0), beta_m after it arrives. */
static double cs_knomial_through(double *link, const cs_knomial_msg *msg, double beta_m)
{
    if (msg->q < 0)
        return msg->arrive + beta_m;
    link[msg->q] = (msg->arrive > link[msg->q] ? msg->arrive : link[msg->q]) + beta_m;
    return link[msg->q];
}

/* Is a round's j-th child (1 <= j < r) on its parent's node? */
static int cs_knomial_on(const cs_knomial_link *link, int j)
{
    return j < link->on;
}

/* The start-up of a round's j-th child's message: its path's, and off the node its distance's. */
static double cs_knomial_alpha(const cs_knomial_link *link, int on, int j)
{
    return link->path[on].alpha + (on ? 0.0 : link->far[j < CS_KNOMIAL_FAR ? j : 0]);
}

/*
 * When rank 0 of the tree over ranks 0..n-1 has combined every child's run
 * (its last round's local steps done), every rank starting at 0. A child
 * whose run covers s ranks is the root of the tree over s ranks and sends
 * when that is done (tree(s)); children's messages reach rank 0 o + alpha
 * after, whichever round rank 0 is in, and queue on its link in the order
 * they arrive. full[t] caches tree(r^t). msgs: room for every child of rank
 * 0 (n - 1 at most).
 */
static double cs_knomial_tree(const cs_model *mo, const cs_knomial_link *link_of, double m, int n, int r, double *full,
                              cs_knomial_msg *msgs);

/* When a child's run of s ranks is combined (tree(s), full[t] for s = r^t). */
static double cs_knomial_subtree(const cs_model *mo, const cs_knomial_link *link_of, double m, int s, int r, int t,
                                 long long d, double *full, cs_knomial_msg *msgs)
{
    if (s == d && full[t] >= 0)
        return full[t];
    const double ready = cs_knomial_tree(mo, link_of, m, s, r, full, msgs);
    if (s == d)
        full[t] = ready;
    return ready;
}

/*
 * The same by rendezvous (model.rendezvous_from): a child's block leaves
 * only once rank 0 has begun the round that receives it, so rank 0 runs its
 * rounds in turn: round t begins at s_t, its children's blocks leave at the
 * later of s_t and their sends (tree(s) + o), reach rank 0 alpha after and
 * queue on its link; s_(t+1) is when they and its c_t posts are done, plus
 * c_t gamma m.
 */
static double cs_knomial_tree_rendezvous(const cs_model *mo, const cs_knomial_link *link_of, double m, int n, int r,
                                         double *full, cs_knomial_msg *msgs)
{
    double start = 0.0, link[CS_LINKS] = {0.0};
    int t = 0;
    for (long long d = 1; d < n; d *= r, t++) {
        int c = 0;
        for (long long x = d; x < n && x < (long long)r * d; x += d, c++) {
            const int s = (int)(n - x < d ? n - x : d), on = cs_knomial_on(&link_of[t], (int)(x / d));
            const double sent = cs_knomial_subtree(mo, link_of, m, s, r, t, d, full, msgs + c + 1) + mo->overhead;
            msgs[c] = (cs_knomial_msg){(sent > start ? sent : start) + cs_knomial_alpha(&link_of[t], on, (int)(x / d)),
                                       t, on, cs_knomial_queue(mo, on, x, r)};
        }
        for (int i = 1; i < c; i++) { /* the last child's run may be shorter: it arrives first */
            const cs_knomial_msg x = msgs[i];
            int j = i;
            for (; j > 0 && msgs[j - 1].arrive > x.arrive; j--)
                msgs[j] = msgs[j - 1];
            msgs[j] = x;
        }
        double in = start + c * mo->overhead;
        for (int i = 0; i < c; i++) {
            const double through = cs_knomial_through(link, &msgs[i], link_of[t].path[msgs[i].on].beta * m);
            in = through > in ? through : in;
        }
        start = in + c * mo->gamma * m;
    }
    return start;
}

static double cs_knomial_tree(const cs_model *mo, const cs_knomial_link *link_of, double m, int n, int r, double *full,
                              cs_knomial_msg *msgs)
{
    int nmsg = 0, rounds = 0, children[64];
    if (n <= 1)
        return 0.0;
    if (cs_model_rendezvous(mo, (size_t)m))
        return cs_knomial_tree_rendezvous(mo, link_of, m, n, r, full, msgs);
    for (long long d = 1; d < n; d *= r, rounds++) {
        const int t = rounds;
        children[t] = 0;
        for (long long x = d; x < n && x < (long long)r * d; x += d) {
            const int s = (int)(n - x < d ? n - x : d), on = cs_knomial_on(&link_of[t], (int)(x / d));
            const double ready = cs_knomial_subtree(mo, link_of, m, s, r, t, d, full, msgs + nmsg);
            msgs[nmsg++] = (cs_knomial_msg){ready + mo->overhead + cs_knomial_alpha(&link_of[t], on, (int)(x / d)), t,
                                            on, cs_knomial_queue(mo, on, x, r)};
            children[t]++;
        }
    }
    for (int i = 1; i < nmsg; i++) { /* nearly in order already: the rounds arrive in turn */
        const cs_knomial_msg x = msgs[i];
        int j = i;
        for (; j > 0 && msgs[j - 1].arrive > x.arrive; j--)
            msgs[j] = msgs[j - 1];
        msgs[j] = x;
    }
    double link[CS_LINKS] = {0.0}, last[64] = {0}; /* rank 0's links, FIFO each (cs_knomial_queue) */
    for (int i = 0; i < nmsg; i++) {
        const int t = msgs[i].round;
        const double through = cs_knomial_through(link, &msgs[i], link_of[t].path[msgs[i].on].beta * m);
        last[t] = through > last[t] ? through : last[t];
    }
    double t0 = 0.0;
    for (int t = 0; t < rounds; t++) {
        const double posted = t0 + children[t] * mo->overhead;
        t0 = (posted > last[t] ? posted : last[t]) + children[t] * mo->gamma * m;
    }
    return t0;
}

/*
 * On nodes of prob->ppn ranks in blocks: round t's children are d = r^t
 * apart from their parent, which is a multiple of r d from rank 0. Where r d
 * divides ppn every one is on the parent's node (alpha_node, beta_node).
 * Where ppn divides r d and d divides ppn, the parent begins a node and its
 * children j d below ppn are on it, the others off it; where d is a
 * multiple of ppn, all are off it; otherwise (nodes that do not line up with
 * the tree) all are priced off it. Off the node, every sender of a node
 * sends to the same parent, whose link takes their blocks one after
 * another: alpha, and per byte the larger of beta and the node's link
 * (cs_model_off_node with one sender), and the network's core the blocks
 * of every parent of the round at once (cs_model_through_core).
 */
/* The first child j (1 <= j < r) off its parent's node in the round whose
 * children are d apart: r where all are on it, ppn / d where those below
 * ppn are, 1 where all are off it; 0 where the round straddles the nodes. */
static int cs_knomial_first_off(const cs_problem *prob, long long d, int r)
{
    const long long ppn = prob->ppn;
    if (cs_level_on_node(prob, d, r))
        return r;
    if (ppn > 1 && d < ppn && (r * d) % ppn == 0 && ppn % d == 0)
        return (int)(ppn / d);
    return ppn < 1 || d % ppn == 0 ? 1 : 0;
}

static void cs_knomial_links(const cs_model *model, const cs_problem *prob, int r, int rounds, cs_knomial_link *link_of)
{
    const cs_model on = cs_model_hop(model, prob, 1, 1), off = cs_model_hop(model, prob, 0, 1);
    long long d = 1;
    for (int t = 0; t < rounds; t++, d *= r) {
        const int shape = cs_knomial_first_off(prob, d, r);
        const int first_off = shape ? shape : 1; /* straddling: all priced off the node */
        /* the round's parents each take their children's blocks through the core at once */
        const cs_model core = cs_model_through_core(&off, (prob->p - d - 1) / (r * d) + 1);
        link_of[t] = (cs_knomial_link){{{core.alpha, core.beta}, {on.alpha, on.beta}}, first_off, {0.0}};
        for (int j = 0; model->distance && j < CS_KNOMIAL_FAR && j < r; j++) { /* j = 0: the farthest child */
            const long hops = cs_tree_hops(model->distance, prob->p, (long)d, r, j);
            link_of[t].far[j] = hops > 1 ? model->alpha_hop * (double)(hops - 1) : 0.0;
        }
    }
}

/* Do the nodes of prob line up with every round of the tree of radix r
 * (cs_knomial_first_off)? */
static int cs_knomial_lines_up(const cs_problem *prob, int r)
{
    for (long long d = 1; d < prob->p; d *= r)
        if (!cs_knomial_first_off(prob, d, r))
            return 0;
    return 1;
}

extern const cs_alg cs_reduce_knomial;

double cs_reduce_knomial_cost_r(const cs_model *unsized, const cs_problem *prob, int r)
{
    const double m = (double)prob->bytes;
    const cs_model sized = cs_model_sized(unsized, m), *model = &sized; /* every message m (model.bands) */
    if (prob->p == 1)
        return (prob->flags & CS_PROB_INPLACE) ? 0.0 : model->rho * m;
    /* a tree whose rounds straddle the nodes, on a node map the event pricer prices */
    if (cs_alg_blocks_on_map(model, prob) && !cs_knomial_lines_up(prob, r)) {
        cs_params params;
        cs_params_init(&params);
        params.radix = r;
        const double t = cs_alg_price_map(&cs_reduce_knomial, model, prob, &params);
        if (t >= 0.0)
            return t;
    }
    double full[64];
    for (int t = 0; t < 64; t++)
        full[t] = -1.0;
    /* Rank 0's children and, below them, those of each subtree being priced:
     * fewer than p, and at most rounds (r - 1) a level, rounds levels deep. */
    int rounds;
    cs_knomial_children(prob->p, r, &rounds);
    const long long need = (long long)rounds * rounds * (r - 1);
    cs_knomial_msg on_stack[512], *msgs = on_stack;
    if (need > 512 && prob->p > 512 && !(msgs = malloc((size_t)prob->p * sizeof *msgs)))
        return INFINITY;
    cs_knomial_link link_of[64];
    cs_knomial_links(model, prob, r, rounds, link_of);
    const double done = cs_knomial_tree(model, link_of, m, prob->p, r, full, msgs);
    if (msgs != on_stack)
        free(msgs);
    if (prob->root == 0)
        return done + model->rho * m;
    /* rank 0 forwards the result: to a root on its node or off it */
    const cs_model last = cs_model_hop(model, prob, prob->ppn > 1 && prob->root / prob->ppn == 0, 1);
    return done + model->overhead + last.alpha + cs_model_hop_latency(model, 0, prob->root) + last.beta * m;
}

int cs_reduce_knomial_build_r(const cs_problem *prob, int r, int rank, cs_sched *s)
{
    const int p = prob->p, root = prob->root;
    const size_t m = prob->bytes;
    const int inplace_root = rank == root && (prob->flags & CS_PROB_INPLACE);
    cs_buf acc = inplace_root ? CS_BUF_RECV : CS_BUF_SEND, slots = CS_BUF_TMP0;
    size_t at = 0; /* where acc holds the run */
    int rounds;

    if (p == 1) {
        cs_sched_round(s);
        cs_sched_copy(s, acc, 0, CS_BUF_RECV, 0, m);
        return s->error;
    }
    cs_knomial_children(p, r, &rounds);
    long long d = 1;
    for (int t = 0; t < rounds; t++, d *= r) {
        const long long digit = (rank / d) % r;
        cs_sched_round(s);
        if (rank % d) /* sent its run in an earlier round */
            continue;
        if (digit) {
            cs_sched_send(s, (int)(rank - digit * d), acc, at, m);
            continue;
        }
        int c = 0;
        while (c < r - 1 && rank + (c + 1) * d < p)
            c++;
        if (!c)
            continue;
        cs_sched_scratch(s, slots, (size_t)c * m);
        for (int j = 0; j < c; j++)
            cs_sched_recv(s, (int)(rank + (j + 1) * d), slots, (size_t)j * m, m);
        /* own run on the left, then each child's: slot j = (acc .. child j) */
        for (int j = 0; j < c; j++) {
            cs_sched_reduce(s, acc, at, slots, (size_t)j * m, m);
            acc = slots;
            at = (size_t)j * m;
        }
        slots = slots == CS_BUF_TMP0 ? CS_BUF_TMP1 : CS_BUF_TMP0;
    }
    cs_sched_round(s);
    if (root != 0 && rank == 0)
        cs_sched_send(s, root, acc, at, m);
    else if (root != 0 && rank == root)
        cs_sched_recv(s, 0, CS_BUF_RECV, 0, m);
    else if (rank == root)
        cs_sched_copy(s, acc, at, CS_BUF_RECV, 0, m);
    return s->error;
}

/* The least radix whose tree has at most L rounds at p: the least r >= 2 with
 * r^L >= p, searched up from just below p^(1/L) (rounding). */
static int cs_knomial_radix_of_levels(int p, int levels)
{
    const int below = (int)pow((double)p, 1.0 / levels) - 1;
    for (int r = below > 2 ? below : 2;; r++) {
        long long reach = 1;
        for (int i = 0; i < levels && reach < p; i++)
            reach *= r;
        if (reach >= p)
            return r;
    }
}

/* r=R, else the least radix with l=L rounds, else 4. */
static int cs_knomial_radix(const cs_problem *prob, const cs_params *params)
{
    if (params->radix >= 2)
        return params->radix;
    return params->levels >= 1 ? cs_knomial_radix_of_levels(prob->p, params->levels) : 4;
}

static double cs_reduce_knomial_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_reduce_knomial_cost_r(model, prob, cs_knomial_radix(prob, params));
}

static int cs_reduce_knomial_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_reduce_knomial_build_r(prob, cs_knomial_radix(prob, params), rank, s);
}

/* The radix in effect, as r=R (the log and collshim-calibrate name it so): l=L's
 * radix at this p; one above p builds the tree of r = p (every rank a child of
 * rank 0 in one round). */
static void cs_reduce_knomial_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    /* Neither given: the radix of least critical path among a few (the
     * parent's concurrent children share one alpha; each adds o and beta m).
     * Prices equal but for rounding (sums in another order) keep the smaller
     * radix: fewer messages at once into a node, where the model does not
     * see a network's paths shared (the lab's hypercube, reduce of 4 KiB at
     * p = 64: r = 4, 5 and 6 at 6.6912 us each under its fitted model; SMPI
     * ran r = 5 in 13.2 us, r = 4 in 7.2). */
    static const int candidates[] = {2, 3, 4, 5, 6, 8, 12, 16, 32};
    if (params->radix < 2 && params->levels < 1) {
        double best = INFINITY;
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            const int r = candidates[i] < prob->p ? candidates[i] : (prob->p < 2 ? 2 : prob->p);
            const double t = cs_reduce_knomial_cost_r(model, prob, r);
            if (t < best * (1.0 - 1e-12)) {
                best = t;
                params->radix = r;
            }
            if (candidates[i] >= prob->p)
                break;
        }
    }
    params->radix = cs_knomial_radix(prob, params);
    params->levels = -1;
    if (params->radix > prob->p)
        params->radix = prob->p < 2 ? 2 : prob->p;
}

const cs_alg cs_reduce_knomial = {
    .name = "knomial",
    .description =
        "k-nomial tree in rank order, radix r (knomial:r=8; the model's if not given) or the least radix with l "
        "rounds (knomial:l=2), one-way, ceil(log_r p) rounds of up to r - 1 children at once (+1 for a "
        "root other than 0)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_CONTIG,
    .parse = cs_params_parse_radix_or_levels,
    .syntax = "expected r=<radix>, a radix of at least 2 (knomial:r=8), or l=<rounds>, at least 1 (knomial:l=2)",
    .tune = cs_reduce_knomial_tune,
    .cost = cs_reduce_knomial_cost,
    .build = cs_reduce_knomial_build,
    .format = cs_params_format_radix_or_levels,
    .measured = (const char *const[]){"r=8", "r=16", "l=2", "l=3", NULL},
    .critical_path = CS_PATH_EXACT,
};
