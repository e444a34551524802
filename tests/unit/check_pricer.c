/*
 * The event pricer (src/sched/pricer.h): hand-worked schedules whose
 * critical path is known (overlap of alpha, the overhead, queueing on a
 * link, a rank that waits, two levels, a receive nothing feeds); and every
 * row that says its closed form is the critical path (cs_alg.critical_path)
 * against the pricer, for every p its restrictions allow up to 64 and some
 * above, sizes, roots, in place or not, forced parameters, with and without
 * overhead. With overhead 0 that includes every multiphase partition of d
 * up to 6: Bokhari's costs, and so his hull, are the pricer's.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/compose/leader.h"
#include "sched/pricer.h"
#include "select/library_rows.h"
#include "select/select.h"
#include "select/select_internal.h"
#include "shard.h"
#include "sim.h"

extern const cs_alg cs_alltoall_multiphase;

/* Size bands (model.bands): a protocol's switch at 64 bytes and another at
 * 2000, where latency steps up and bandwidth changes, as SMPI's factors. */
static const cs_bands pricer_bands = {2, {{64, 2.0, 1.5}, {2000, 5.0, 0.8}}};

static const cs_model pricer_models[] = {
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9},
    {.alpha = 1e-3, .beta = 1e-12, .rho = 1e-13, .gamma = 1e-12, .overhead = 3e-4},
    {.alpha = 1e-9, .beta = 1e-7, .rho = 3e-8, .gamma = 2e-7, .overhead = 5e-8},
    {.alpha = 2e-6, .beta = 2e-10, .rho = 1e-10, .gamma = 2.5e-10, .overhead = 4e-7},
    /* by rendezvous from 16 bytes: the smaller counts below go eagerly */
    {.alpha = 2e-6, .beta = 2e-10, .rho = 1e-10, .gamma = 2.5e-10, .overhead = 4e-7, .rendezvous_from = 16},
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9, .rendezvous_from = 1},
    {.alpha = 2e-6, .beta = 2e-10, .rho = 1e-10, .gamma = 2.5e-10, .overhead = 4e-7, .bands = &pricer_bands},
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9, .rendezvous_from = 1, .bands = &pricer_bands},
};
enum { NPRICER_MODELS = sizeof(pricer_models) / sizeof(pricer_models[0]) };

/* The most a message of at most `bytes` can cost more or less for lying in
 * another of the model's bands. */
static double band_step(const cs_model *mo, double bytes)
{
    double lo_a = 1.0, hi_a = 1.0, lo_b = 1.0, hi_b = 1.0;
    for (int i = 0; mo->bands && i < mo->bands->n; i++) {
        lo_a = fmin(lo_a, mo->bands->band[i].alpha_factor);
        hi_a = fmax(hi_a, mo->bands->band[i].alpha_factor);
        lo_b = fmin(lo_b, mo->bands->band[i].beta_factor);
        hi_b = fmax(hi_b, mo->bands->band[i].beta_factor);
    }
    return mo->alpha * (hi_a - lo_a) + mo->beta * (hi_b - lo_b) * bytes;
}

/* The pricer over the closed form at most, by rendezvous with uneven parts (check_one). */
static const double CS_RENDEZVOUS_UNEVEN = 1.3;

static const char *const pricer_specs[] = {"r=2", "r=3", "r=8", "l=2", "b=0", "k=1", "w=1", "w=3", "w=32"};
enum { NPRICER_SPECS = sizeof(pricer_specs) / sizeof(pricer_specs[0]) };

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) + 1e-18;
}

/* ------------------------------------------------------- worked examples */

static double price(const cs_model *mo, cs_sched *s, int p, int ppn, double *finish)
{
    return cs_price_critical_path(mo, s, p, ppn, finish);
}

static cs_sched *scheds_rounds(int p, int rounds)
{
    cs_sched *s = sim_scheds_new(p);
    for (int r = 0; r < p; r++)
        for (int t = 0; t < rounds; t++)
            cs_sched_round(&s[r]);
    return s;
}

START_TEST(test_pair)
{
    cs_model mo = {.alpha = 1e-6, .beta = 1e-9};
    cs_sched *s = scheds_rounds(2, 1);
    cs_sched_send(&s[0], 1, CS_BUF_SEND, 0, 1000);
    cs_sched_recv(&s[0], 1, CS_BUF_RECV, 0, 1000);
    cs_sched_send(&s[1], 0, CS_BUF_SEND, 0, 1000);
    cs_sched_recv(&s[1], 0, CS_BUF_RECV, 0, 1000);
    ck_assert(near(price(&mo, s, 2, 0, NULL), 1e-6 + 1e-6)); /* alpha + beta m */
    mo.overhead = 1e-7;
    ck_assert(near(price(&mo, s, 2, 0, NULL), 2e-7 + 2e-6)); /* two posts first */
    sim_scheds_free(s, 2);
}
END_TEST

/* Three children send to rank 0 at once: one alpha, three blocks queued on
 * rank 0's link, then three combines. */
START_TEST(test_fan_in)
{
    const cs_model mo = {.alpha = 5e-6, .beta = 1e-9, .gamma = 2e-9, .overhead = 1e-7};
    const size_t m = 1000;
    cs_sched *s = scheds_rounds(4, 1);
    for (int c = 1; c < 4; c++) {
        cs_sched_recv(&s[0], c, CS_BUF_TMP0, (size_t)(c - 1) * m, m);
        cs_sched_reduce(&s[0], CS_BUF_TMP0, (size_t)(c - 1) * m, CS_BUF_RECV, 0, m);
        cs_sched_send(&s[c], 0, CS_BUF_SEND, 0, m);
    }
    double finish[4];
    const double t = price(&mo, s, 4, 0, finish);
    ck_assert(near(t, 1e-7 + 5e-6 + 3e-6 + 6e-6));
    ck_assert(near(finish[1], 1e-7 + 1e-6)); /* a child is done when its block is off its link */
    sim_scheds_free(s, 4);
}
END_TEST

/* The same on one node of 4: its three blocks queue on rank 0's path
 * within the node, unless each pair of the node's ranks has a path of its
 * own (model.node_paths pair): then each is in beta_node m after it left. */
START_TEST(test_fan_in_pairs)
{
    cs_model mo = {.alpha = 5e-6,
                   .beta = 1e-9,
                   .gamma = 2e-9,
                   .overhead = 1e-7,
                   .alpha_node = 1e-6,
                   .beta_node = 5e-10,
                   .node_levels = 1};
    const size_t m = 1000;
    cs_sched *s = scheds_rounds(4, 1);
    for (int c = 1; c < 4; c++) {
        cs_sched_recv(&s[0], c, CS_BUF_TMP0, (size_t)(c - 1) * m, m);
        cs_sched_reduce(&s[0], CS_BUF_TMP0, (size_t)(c - 1) * m, CS_BUF_RECV, 0, m);
        cs_sched_send(&s[c], 0, CS_BUF_SEND, 0, m);
    }
    ck_assert(near(price(&mo, s, 4, 4, NULL), 1e-7 + 1e-6 + 3 * 5e-7 + 6e-6));
    mo.node_pairs = 1;
    ck_assert(near(price(&mo, s, 4, 4, NULL), 1e-7 + 1e-6 + 5e-7 + 6e-6));
    mo.node_levels = 0; /* no node level: one path a rank, whatever node_paths says */
    ck_assert(near(price(&mo, s, 4, 4, NULL), 1e-7 + 5e-6 + 3e-6 + 6e-6));
    sim_scheds_free(s, 4);
}
END_TEST

/* 0 -> 1 in round 0, 1 -> 2 in round 1: rank 2 posts at once but waits
 * for rank 1, two messages long, though its own rounds hold one. */
START_TEST(test_wait)
{
    const cs_model mo = {.alpha = 1e-6, .beta = 1e-9};
    cs_sched *s = scheds_rounds(3, 0);
    for (int r = 0; r < 3; r++)
        cs_sched_round(&s[r]);
    cs_sched_send(&s[0], 1, CS_BUF_SEND, 0, 500);
    cs_sched_recv(&s[1], 0, CS_BUF_RECV, 0, 500);
    for (int r = 0; r < 3; r++)
        cs_sched_round(&s[r]);
    cs_sched_send(&s[1], 2, CS_BUF_RECV, 0, 500);
    cs_sched_recv(&s[2], 1, CS_BUF_RECV, 0, 500);
    ck_assert(near(price(&mo, s, 3, 0, NULL), 2 * (1e-6 + 5e-7)));
    ck_assert(near(sim_cost_max(s, 3, &mo), 2 * (1e-6 + 5e-7))); /* rank 1's two rounds */
    ck_assert(near(sim_cost_max(s + 2, 1, &mo), 1e-6 + 5e-7));   /* rank 2's own: one */
    sim_scheds_free(s, 3);
}
END_TEST

/* Rendezvous (model.rendezvous_from): rank 1 sends to rank 0 at once, for
 * rank 0's second round, while rank 0 exchanges with rank 2 in its first.
 * Eagerly the block is there when rank 0 gets to it (3 us: both blocks
 * arrive at 1 us and queue on rank 0's link); by rendezvous it leaves when
 * rank 0 begins that round, 2 us, and is in at 4 (rank 1 waits for it to
 * leave: 3). A block below the threshold goes eagerly. */
START_TEST(test_rendezvous)
{
    cs_model mo = {.alpha = 1e-6, .beta = 1e-9};
    cs_sched *s = scheds_rounds(3, 0);
    double finish[3];
    for (int r = 0; r < 3; r++)
        cs_sched_round(&s[r]);
    cs_sched_recv(&s[0], 2, CS_BUF_RECV, 0, 1000);
    cs_sched_send(&s[0], 2, CS_BUF_SEND, 0, 1000);
    cs_sched_recv(&s[2], 0, CS_BUF_RECV, 0, 1000);
    cs_sched_send(&s[2], 0, CS_BUF_SEND, 0, 1000);
    for (int r = 0; r < 3; r++)
        cs_sched_round(&s[r]);
    cs_sched_recv(&s[0], 1, CS_BUF_TMP0, 0, 1000);
    cs_sched_send(&s[1], 0, CS_BUF_SEND, 0, 1000);
    ck_assert(near(price(&mo, s, 3, 0, finish), 3e-6));
    ck_assert(near(finish[1], 1e-6));
    mo.rendezvous_from = 1;
    ck_assert(near(price(&mo, s, 3, 0, finish), 4e-6));
    ck_assert(near(finish[0], 4e-6) && near(finish[1], 3e-6) && near(finish[2], 2e-6));
    mo.rendezvous_from = 1001; /* the blocks are below it: eager */
    ck_assert(near(price(&mo, s, 3, 0, NULL), 3e-6));
    sim_scheds_free(s, 3);
}
END_TEST

/* Rank 0 sends to 1 (its node) and to 2 (another node): each message goes
 * its own way, at its own level's price. */
START_TEST(test_node_levels)
{
    cs_model mo = {.alpha = 4e-6, .beta = 1e-9, .alpha_node = 5e-7, .beta_node = 2e-10, .node_levels = 1};
    double finish[4];
    cs_sched *s = scheds_rounds(4, 1);
    cs_sched_send(&s[0], 1, CS_BUF_SEND, 0, 1000);
    cs_sched_send(&s[0], 2, CS_BUF_SEND, 0, 1000);
    cs_sched_recv(&s[1], 0, CS_BUF_RECV, 0, 1000);
    cs_sched_recv(&s[2], 0, CS_BUF_RECV, 0, 1000);
    price(&mo, s, 4, 2, finish);
    ck_assert(near(finish[1], 5e-7 + 2e-7));
    ck_assert(near(finish[2], 4e-6 + 1e-6));
    price(&mo, s, 4, 1, finish); /* one rank a node: both over the network, queued */
    ck_assert(near(finish[1], 4e-6 + 1e-6) && near(finish[2], 4e-6 + 2e-6));
    mo.node_levels = 0; /* no second level configured: ppn is ignored */
    price(&mo, s, 4, 2, finish);
    ck_assert(near(finish[1], 4e-6 + 1e-6));
    sim_scheds_free(s, 4);
}
END_TEST

/* Ranks 0..3 each send 1000 B to ranks 4..7, in one round. */
static cs_sched *scheds_four_across(void)
{
    cs_sched *s = scheds_rounds(8, 1);
    for (int r = 0; r < 4; r++) {
        cs_sched_send(&s[r], r + 4, CS_BUF_SEND, 0, 1000);
        cs_sched_recv(&s[r + 4], r, CS_BUF_RECV, 0, 1000);
    }
    return s;
}

/* A node's link: ranks 0..3 (node 0) each send 1000 B to ranks 4..7 (node
 * 1) at once. Where the link is slower than a quarter of a rank's, the four
 * messages queue on it, out of node 0 and into node 1: the last is in
 * after alpha + 4 beta_link m; where it is faster, each rank's own beta m. */
START_TEST(test_node_link)
{
    cs_model mo = {
        .alpha = 1e-6, .beta = 1e-9, .alpha_node = 2e-7, .beta_node = 1e-10, .node_levels = 1, .beta_link = 5e-10};
    double finish[8];
    cs_sched *s = scheds_four_across();
    ck_assert(near(price(&mo, s, 8, 4, finish), 1e-6 + 4 * 5e-10 * 1000));
    for (int r = 4; r < 8; r++) /* into node 1 in the order they left node 0 */
        ck_assert(near(finish[r], 1e-6 + (r - 3) * 5e-10 * 1000 > 1e-6 + 1e-9 * 1000 ? 1e-6 + (r - 3) * 5e-7 : 2e-6));
    mo.beta_link = 2e-10; /* four of them at once: 8e-10 per byte, less than a rank's 1e-9 */
    ck_assert(near(price(&mo, s, 8, 4, NULL), 1e-6 + 1e-9 * 1000));
    ck_assert(near(price(&mo, s, 8, 8, NULL), 2e-7 + 1e-10 * 1000)); /* one node: no link */
    mo.beta_link = 0.0;                                              /* none: each rank's own link */
    ck_assert(near(price(&mo, s, 8, 4, NULL), 1e-6 + 1e-9 * 1000));
    sim_scheds_free(s, 8);
}
END_TEST

START_TEST(test_unfed_receive)
{
    const cs_model mo = {.alpha = 1e-6};
    cs_sched *s = scheds_rounds(2, 1);
    cs_sched_recv(&s[0], 1, CS_BUF_RECV, 0, 8);
    ck_assert(price(&mo, s, 2, 0, NULL) < 0);
    sim_scheds_free(s, 2);
}
END_TEST

/* ------------------------------------------- closed forms against pricer */

typedef struct pricer_job {
    const cs_alg *alg;
    int p;
} pricer_job;

static pricer_job *jobs;
static int njobs;

static double pricer_of(const cs_alg *alg, const cs_problem *prob, const cs_params *params, const cs_model *mo,
                        cs_sched *s)
{
    for (int r = 0; r < prob->p; r++) {
        cs_sched_reset(&s[r]);
        ck_assert_int_eq(alg->build(prob, params, r, &s[r]), 0);
    }
    return cs_price_critical_path(mo, s, prob->p, 0, NULL);
}

/* The reductions' closed forms price nominal sizes (m / 2^z): exact when
 * the count divides by p's power-of-two part, else off by up to an element
 * per term of every round, on each side of a rank that waits for another. */
static void check_one(const cs_alg *alg, const cs_problem *prob, cs_params params, const cs_model *mo, cs_sched *s)
{
    if (alg->tune)
        alg->tune(mo, prob, &params);
    const double closed = alg->cost(mo, prob, &params), event = pricer_of(alg, prob, &params, mo, s);
    const size_t pow2 = (size_t)prob->p & (size_t) - (size_t)prob->p;
    const int nominal = prob->coll == CS_COLL_ALLTOALL || prob->count % pow2 == 0;
    /* and under size bands, an uneven part on the other side of a band's from than the nominal size */
    const double tol = sim_rounds_max(s, prob->p) *
                       ((mo->beta + mo->gamma + mo->rho) * (double)prob->elem * 4 + band_step(mo, (double)prob->bytes));
    char args[64] = "";
    if (alg->format)
        alg->format(&params, args, sizeof args);
    /* By rendezvous, uneven parts make the owners of the larger ones begin the next round
     * late, and the blocks for them wait: the closed form, which has every rank begin
     * together, is then a lower bound (seen: 0.80 of the pricer, the linear allreduce). */
    const int uneven = !nominal || (prob->coll != CS_COLL_ALLTOALL && prob->count % (size_t)prob->p != 0);
    const int uneven_rendezvous = uneven && mo->rendezvous_from > 0;
    ck_assert_msg(uneven_rendezvous ? closed <= event + tol && event <= closed * CS_RENDEZVOUS_UNEVEN + tol
                  : nominal         ? near(closed, event)
                                    : fabs(closed - event) <= tol,
                  "%s %s:%s p=%d m=%zu root=%d flags=%u o=%g: closed form %.17g, pricer %.17g", cs_coll_name(alg->coll),
                  alg->name, args, prob->p, prob->bytes, prob->root, prob->flags, mo->overhead, closed, event);
}

START_TEST(test_closed_forms)
{
    if (unit_shard_skip(_i))
        return;
    const cs_alg *alg = jobs[_i].alg;
    const int p = jobs[_i].p;
    const size_t elem = alg->coll == CS_COLL_ALLTOALL ? 1 : 4;
    const size_t counts[] = {1, 3, (size_t)p + 1, 1000};
    const int roots[] = {0, p - 1, p / 2};
    cs_sched *s = sim_scheds_new(p);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        for (int inplace = 0; inplace < 2; inplace++)
            for (int ri = 0; ri < (alg->coll == CS_COLL_REDUCE ? 3 : 1); ri++)
                for (int v = -1; v < NPRICER_SPECS; v++) {
                    cs_params params;
                    cs_params_init(&params);
                    if (v >= 0 && (!alg->parse || alg->parse(pricer_specs[v], &params)))
                        continue;
                    const cs_problem prob = {.coll = alg->coll,
                                             .p = p,
                                             .root = roots[ri],
                                             .count = counts[c],
                                             .elem = elem,
                                             .bytes = counts[c] * elem,
                                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE |
                                                      (inplace ? CS_PROB_INPLACE : 0u)};
                    if (cs_alg_restriction_given(alg, &prob, &params))
                        continue;
                    for (int i = 0; i < NPRICER_MODELS; i++)
                        check_one(alg, &prob, params, &pricer_models[i], s);
                }
    sim_scheds_free(s, p);
}
END_TEST

/* On nodes: ranks in blocks of ppn, a node level and a node's link. The
 * closed forms that price a round on or off the node (cs_model_at_level:
 * the butterfly allreduce, every rank of a node exchanging off it at once;
 * the k-nomial trees, one rank of a node sending off it a round) against the
 * pricer with the same ppn: equal where the levels lie on the nodes' blocks
 * (ppn a power of two; for the trees, nodes that line up with every round:
 * a round's children all on the parent's node, all off it, or those below
 * ppn on it, as r = 16 and r = 4 on nodes of 8), with the link
 * slower and faster than a node's ranks together, with and without o, and
 * by rendezvous. */
static const cs_model node_models[] = {
    {.alpha = 1e-6,
     .beta = 1e-9,
     .rho = 1e-10,
     .gamma = 1e-9,
     .alpha_node = 2e-7,
     .beta_node = 3e-10,
     .node_levels = 1},
    {.alpha = 1e-6,
     .beta = 1e-9,
     .rho = 1e-10,
     .gamma = 1e-9,
     .alpha_node = 2e-7,
     .beta_node = 3e-10,
     .node_levels = 1,
     .beta_link = 6e-10},
    {.alpha = 2e-6,
     .beta = 8e-11,
     .rho = 1e-10,
     .gamma = 2.5e-10,
     .overhead = 4e-7,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .node_levels = 1,
     .beta_link = 7e-11},
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9, .overhead = 1e-7, .beta_link = 1e-10},
    {.alpha = 2e-6,
     .beta = 8e-11,
     .rho = 1e-10,
     .gamma = 2.5e-10,
     .overhead = 4e-7,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .node_levels = 1,
     .beta_link = 7e-11,
     .rendezvous_from = 1},
    /* the network's blocks (a fat tree's leaf switches): a host's messages on and off its block share its link */
    {.alpha = 4e-6,
     .beta = 1e-10,
     .rho = 1e-10,
     .gamma = 2.5e-10,
     .overhead = 2e-8,
     .alpha_node = 2e-6,
     .beta_node = 1e-10,
     .node_levels = 1,
     .ranks_per_node = 8,
     .rendezvous_from = 1},
    /* a path of its own for each pair of a node's ranks (model.node_paths pair), eagerly and by rendezvous */
    {.alpha = 2e-6,
     .beta = 8e-11,
     .rho = 1e-10,
     .gamma = 2.5e-10,
     .overhead = 4e-7,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .node_levels = 1,
     .node_pairs = 1,
     .beta_link = 7e-11},
    {.alpha = 2e-6,
     .beta = 4e-11,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .node_levels = 1,
     .node_pairs = 1,
     .beta_link = 3.6e-11,
     .rendezvous_from = 1},
    /* size bands (model.bands), on a node and off it */
    {.alpha = 2e-6,
     .beta = 8e-11,
     .rho = 1e-10,
     .gamma = 2.5e-10,
     .overhead = 4e-7,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .node_levels = 1,
     .beta_link = 7e-11,
     .bands = &pricer_bands},
    {.alpha = 1e-6,
     .beta = 1e-9,
     .rho = 1e-10,
     .gamma = 1e-9,
     .alpha_node = 2e-7,
     .beta_node = 3e-10,
     .node_levels = 1,
     .node_pairs = 1,
     .bands = &pricer_bands},
};

/* The closed form over the pricer, with a node's link: at most (1.29 seen). */
static const double CS_NODES_LINK_BOUND = 1.3;

/* Do the nodes line up with a tree of radix r over p ranks: in every round
 * (children d apart) a parent's children all on its node, all off it, or
 * those below ppn on it (cs_knomial_links)? */
static int nodes_line_up(int p, int r, int ppn)
{
    for (long d = 1; d < p; d *= r)
        if (ppn % (r * d) != 0 && !(d < ppn && (r * d) % ppn == 0 && ppn % d == 0) && d % ppn != 0)
            return 0;
    return 1;
}

START_TEST(test_closed_forms_on_nodes)
{
    static const int ps[] = {2, 4, 8, 16, 32, 64, 6, 12, 24, 27};
    static const int ppns[] = {2, 4, 8, 16, 3, 9};
    static const struct {
        const cs_alg *alg;
        const char *spec;
        int radix; /* the trees': the nodes line up with them; 0: ppn a power of two */
    } rows[] = {{&cs_allreduce_butterfly, "k=0", 0}, {&cs_allreduce_butterfly, "b=0", 0},
                {&cs_allreduce_butterfly, "k=1", 0}, {&cs_reduce_binomial, NULL, 2},
                {&cs_reduce_knomial, "r=4", 4},      {&cs_reduce_knomial, "r=3", 3},
                {&cs_reduce_knomial, "r=16", 16},    {&cs_reduce_knomial, "r=8", 8}};
    cs_sched *s = sim_scheds_new(64);
    int checked = 0;
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            for (size_t j = 0; j < sizeof ppns / sizeof ppns[0]; j++) {
                const int p = ps[i], ppn = ppns[j];
                int power = 1;
                while (power < ppn)
                    power *= 2;
                if (ppn >= p || (!rows[a].radix && power != ppn))
                    continue;
                for (int root = 0; root < (rows[a].alg->coll == CS_COLL_REDUCE ? p : 1); root += ppn + 1) {
                    const cs_problem prob = {.coll = rows[a].alg->coll,
                                             .p = p,
                                             .root = root,
                                             .count = (size_t)p * 8,
                                             .elem = 4,
                                             .bytes = (size_t)p * 32,
                                             .ppn = ppn,
                                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
                    cs_params params;
                    cs_params_init(&params);
                    if (rows[a].spec)
                        rows[a].alg->parse(rows[a].spec, &params);
                    if (cs_alg_restriction_given(rows[a].alg, &prob, &params))
                        continue;
                    for (size_t m = 0; m < sizeof node_models / sizeof node_models[0]; m++) {
                        const cs_model *mo = &node_models[m];
                        cs_params tuned = params;
                        if (rows[a].alg->tune)
                            rows[a].alg->tune(mo, &prob, &tuned);
                        if (rows[a].radix && !nodes_line_up(p, tuned.radix > 0 ? tuned.radix : 2, ppn))
                            continue; /* the radix tune kept (it may take r = p for a smaller p) */
                        for (int r = 0; r < p; r++) {
                            cs_sched_reset(&s[r]);
                            ck_assert_int_eq(rows[a].alg->build(&prob, &tuned, r, &s[r]), 0);
                        }
                        const double closed = rows[a].alg->cost(mo, &prob, &tuned),
                                     event = cs_price_critical_path(mo, s, p, ppn, NULL);
                        /* the node link's queue takes its messages in the order they came, so a
                         * node's ranks do not finish an exchange together (the first runs ahead),
                         * where the closed form has every one wait for the last: an upper bound */
                        const int queued = mo->beta_link > 0.0 && !rows[a].radix;
                        ck_assert_msg(queued ? closed >= event * (1 - 1e-9) && closed <= event * CS_NODES_LINK_BOUND
                                             : near(closed, event),
                                      "%s %s p=%d ppn=%d root=%d model %zu: closed %.17g, pricer %.17g",
                                      rows[a].alg->name, rows[a].spec ? rows[a].spec : "", p, ppn, root, m, closed,
                                      event);
                        checked++;
                    }
                }
            }
    ck_assert_int_gt(checked, 200);
    sim_scheds_free(s, 64);
}
END_TEST

/* The alltoall rows on nodes, against the pricer: the linear exchange's two
 * paths (the node's blocks first, then the others through a link shared by
 * the node's ranks) within 0.75 to 1.1 of it, 0.75 to 1.45 in batches of 4
 * (seen: 0.78 to 1.05, 0.78 to 1.41, the least by rendezvous with a path
 * for each pair of a node's ranks; one level: down to 0.17, where a
 * node's link carries 8 ranks' blocks); the direct exchange, Bruck and
 * the multiphase exchanges (each phase on its level), whose rounds each
 * wait for a node's ranks through its link where the pricer's FIFO link
 * lets the first run ahead, within 0.95 to 1.7 (seen: 0.99 to 1.69;
 * standard and multiphase 1.00 to 1.66). */
START_TEST(test_alltoall_on_nodes)
{
    static const int ps[] = {16, 32, 64, 24, 48}, ppns[] = {4, 8, 8, 4, 8};
    static const size_t sizes[] = {8, 512, 4096};
    static const struct {
        const char *spec;
        double lo, hi;
    } rows[] = {{"linear", 0.75, 1.1},       {"linear:w=4", 0.75, 1.45},          {"direct", 1 - 1e-9, 1.7},
                {"standard", 1 - 1e-9, 1.7}, {"multiphase:2,2,2", 1 - 1e-9, 1.7}, {"bruck:r=2", 0.95, 1.7},
                {"bruck:r=4", 0.95, 1.7}};
    cs_sched *s = sim_scheds_new(64);
    for (size_t mi = 0; mi < sizeof node_models / sizeof node_models[0]; mi++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
                for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                    const cs_problem prob = {.coll = CS_COLL_ALLTOALL,
                                             .p = ps[i],
                                             .count = sizes[z],
                                             .elem = 1,
                                             .bytes = sizes[z],
                                             .flags = CS_PROB_CONTIG,
                                             .ppn = ppns[i]};
                    const cs_model *mo = &node_models[mi];
                    cs_params params;
                    const char *why;
                    const cs_alg *alg = cs_alg_lookup(CS_COLL_ALLTOALL, rows[a].spec, &params, &why);
                    ck_assert_ptr_nonnull(alg);
                    if (cs_alg_restriction_given(alg, &prob, &params))
                        continue;
                    if (alg->tune)
                        alg->tune(mo, &prob, &params);
                    for (int r = 0; r < prob.p; r++) {
                        cs_sched_reset(&s[r]);
                        ck_assert_int_eq(alg->build(&prob, &params, r, &s[r]), 0);
                    }
                    const double ratio =
                        alg->cost(mo, &prob, &params) / cs_price_critical_path(mo, s, prob.p, prob.ppn, NULL);
                    ck_assert_msg(ratio >= rows[a].lo && ratio <= rows[a].hi,
                                  "%s p=%d ppn=%d %zu B model %zu: %.3f of the pricer", rows[a].spec, prob.p, prob.ppn,
                                  sizes[z], mi, ratio);
                }
    sim_scheds_free(s, 64);
}
END_TEST

/* The linear allreduce on nodes, against the pricer: its two rounds each
 * the linear exchange's estimate on nodes (cs_linear_round),
 * within 0.9 to 1.2 of the pricer (seen: 0.92 to 1.14: the pricer lets a
 * rank that combined early start its second round while the link still
 * carries others' first; with parts of two sizes, count 48 at p = 32, up to
 * 1.33). */
START_TEST(test_linear_allreduce_on_nodes)
{
    static const int ps[] = {16, 32, 24, 48}, ppns[] = {4, 8, 4, 8};
    static const size_t counts[] = {96, 480, 9600}; /* every p divides them: parts of one size */
    cs_sched *s = sim_scheds_new(48);
    for (size_t mi = 0; mi < sizeof node_models / sizeof node_models[0]; mi++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
            for (size_t z = 0; z < sizeof counts / sizeof counts[0]; z++) {
                const cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                                         .p = ps[i],
                                         .count = counts[z],
                                         .elem = 8,
                                         .bytes = 8 * counts[z],
                                         .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE,
                                         .ppn = ppns[i]};
                const cs_model *mo = &node_models[mi];
                cs_params params;
                const char *why;
                const cs_alg *alg = cs_alg_lookup(CS_COLL_ALLREDUCE, "linear", &params, &why);
                ck_assert_ptr_nonnull(alg);
                for (int r = 0; r < prob.p; r++) {
                    cs_sched_reset(&s[r]);
                    ck_assert_int_eq(alg->build(&prob, &params, r, &s[r]), 0);
                }
                const double ratio =
                    alg->cost(mo, &prob, &params) / cs_price_critical_path(mo, s, prob.p, prob.ppn, NULL);
                ck_assert_msg(ratio >= 0.9 && ratio <= 1.2,
                              "linear p=%d ppn=%d count %zu model %zu: %.3f of the pricer", prob.p, prob.ppn, counts[z],
                              mi, ratio);
            }
    sim_scheds_free(s, 48);
}
END_TEST

/* Every ordered partition of d (compositions), up to d = 6, at o = 0. */
static void partitions(int d, int left, int *parts, int n, cs_sched *s)
{
    if (left == 0) {
        cs_params params;
        cs_params_init(&params);
        params.nparts = n;
        for (int i = 0; i < n; i++)
            params.parts[i] = parts[i];
        const cs_problem prob = {
            .coll = CS_COLL_ALLTOALL, .p = 1 << d, .count = 24, .elem = 1, .bytes = 24, .flags = CS_PROB_CONTIG};
        for (int i = 0; i < NPRICER_MODELS; i++) {
            cs_model mo = pricer_models[i];
            mo.overhead = 0.0;
            const double closed = cs_alltoall_multiphase.cost(&mo, &prob, &params);
            const double event = pricer_of(&cs_alltoall_multiphase, &prob, &params, &mo, s);
            ck_assert_msg(near(closed, event), "d=%d, %d parts: %.17g != %.17g", d, n, closed, event);
        }
        return;
    }
    for (int k = 1; k <= left; k++) {
        parts[n] = k;
        partitions(d, left - k, parts, n + 1, s);
    }
}

START_TEST(test_bokhari_partitions)
{
    int parts[8];
    for (int d = 1; d <= 6; d++) {
        cs_sched *s = sim_scheds_new(1 << d);
        partitions(d, d, parts, 0, s);
        sim_scheds_free(s, 1 << d);
    }
}
END_TEST

/* The rows that promise the critical path in closed form are the ones the
 * header names (dropping the flag would drop them from this suite
 * silently); the engine's others are the slowest rank's sum, an estimate. */
START_TEST(test_flagged_rows)
{
    const char *const want[] = {"alltoall:direct",       "alltoall:standard",   "alltoall:multiphase", "alltoall:bruck",
                                "alltoall:linear",       "allreduce:butterfly", "reduce:binomial",     "reduce:knomial",
                                "allreduce:elimination", "allreduce:ring",      "reduce:elimination",  "reduce:ring",
                                "reduce:butterfly"};
    const int kind[] = {CS_PATH_EXACT, CS_PATH_EXACT, CS_PATH_EXACT, CS_PATH_EXACT, CS_PATH_EXACT,
                        CS_PATH_EXACT, CS_PATH_EXACT, CS_PATH_EXACT, CS_PATH_SUM,   CS_PATH_SUM,
                        CS_PATH_SUM,   CS_PATH_SUM,   CS_PATH_SUM};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int c = 0; c < CS_COLL_LAST; c++) {
            int n;
            const cs_alg *const *t = cs_alg_table((cs_coll)c, &n);
            for (int i = 0; i < n; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s:%s", cs_coll_name((cs_coll)c), t[i]->name);
                found |= !strcmp(name, want[w]) && t[i]->critical_path == kind[w];
            }
        }
        ck_assert_msg(found, "%s: no longer priced by its critical path", want[w]);
    }
}
END_TEST

/* ------------------------------------------------- the network's core */

/* The network's core (model.beta_core): ranks 0..3 each send 1000 B to
 * ranks 4..7 at once. Without a node map every message crosses it, one
 * FIFO for all: the last is in after alpha + 4 beta_core m where that is
 * more than a rank's beta m; on nodes of 4, they cross it too; on one node
 * of 8, none does. */
START_TEST(test_core)
{
    cs_model mo = {.alpha = 1e-6, .beta = 1e-9, .beta_core = 5e-10};
    double finish[8];
    cs_sched *s = scheds_four_across();
    ck_assert(near(price(&mo, s, 8, 0, finish), 1e-6 + 4 * 5e-10 * 1000));
    for (int r = 4; r < 8; r++) /* through the core in the order they reached it */
        ck_assert(near(finish[r], r < 5 ? 2e-6 : 1e-6 + (r - 3) * 5e-7));
    ck_assert(near(price(&mo, s, 8, 4, NULL), 1e-6 + 4 * 5e-10 * 1000));
    ck_assert(near(price(&mo, s, 8, 8, NULL), 1e-6 + 1e-9 * 1000)); /* one node: not through the core */
    mo.beta_core = 2e-10; /* four at once: 8e-10 per byte, less than a rank's 1e-9 */
    ck_assert(near(price(&mo, s, 8, 0, NULL), 1e-6 + 1e-9 * 1000));
    sim_scheds_free(s, 8);
}
END_TEST

/* A core that never binds (1e-300 s/B) leaves every price as it is, bit for
 * bit, closed form and pricer, with and without nodes: what the core adds
 * takes effect only where total * beta_core passes beta (a row of the
 * closed-form jobs at its p, two counts; the one-level models, and on nodes
 * of 4 those with nodes: a core makes a model without them see nodes, which
 * prices the same sums in another order). */
static void check_core_neutral(const cs_alg *alg, const cs_problem *prob, cs_params params, const cs_model *mo,
                               cs_sched *s)
{
    cs_model core = *mo;
    core.beta_core = 1e-300;
    if (alg->tune)
        alg->tune(mo, prob, &params);
    for (int r = 0; r < prob->p; r++) {
        cs_sched_reset(&s[r]);
        ck_assert_int_eq(alg->build(prob, &params, r, &s[r]), 0);
    }
    const double closed = alg->cost(mo, prob, &params), closed_core = alg->cost(&core, prob, &params);
    const double event = cs_price_critical_path(mo, s, prob->p, prob->ppn, NULL),
                 event_core = cs_price_critical_path(&core, s, prob->p, prob->ppn, NULL);
    ck_assert_msg(closed == closed_core && event == event_core,
                  "%s %s p=%d ppn=%d m=%zu: closed form %.17g, %.17g with the core; pricer %.17g, %.17g",
                  cs_coll_name(alg->coll), alg->name, prob->p, prob->ppn, prob->bytes, closed, closed_core, event,
                  event_core);
}

START_TEST(test_core_neutral)
{
    if (unit_shard_skip(_i))
        return;
    const cs_alg *alg = jobs[_i].alg;
    const int p = jobs[_i].p;
    cs_sched *s = sim_scheds_new(p);
    for (int ppn = 0; ppn <= 4; ppn += 4)
        for (size_t count = 3; count <= 3000; count *= 1000) {
            const cs_problem prob = {.coll = alg->coll,
                                     .p = p,
                                     .count = count,
                                     .elem = 4,
                                     .bytes = 4 * count,
                                     .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE,
                                     .ppn = ppn < p ? ppn : 0};
            cs_params params;
            cs_params_init(&params);
            if (cs_alg_restriction_given(alg, &prob, &params))
                continue;
            for (int i = 0; !prob.ppn && i < NPRICER_MODELS; i++)
                check_core_neutral(alg, &prob, params, &pricer_models[i], s);
            for (size_t i = 0; prob.ppn && i < sizeof node_models / sizeof node_models[0]; i++)
                check_core_neutral(alg, &prob, params, &node_models[i], s);
        }
    sim_scheds_free(s, p);
}
END_TEST

/* The closed forms with the core against the pricer: every allreduce and
 * reduce row (the linear allreduce where every rank has a block: with fewer
 * elements than ranks its nominal blocks, m / p, price the core up to 19
 * times what the few ranks that hold an element send), one rank a node
 * (the lab's Ethernet cluster: 50 us, 125 MB/s a host, a backbone of 1.25
 * GB/s) and on nodes of 4 (the core binding from two ranks at once). One
 * level: within 0.75 to 1.2 (seen: 0.80 to 1.16; the pricer's core is a
 * FIFO, so a round's first messages are through ahead of its last, where
 * the closed forms have every rank wait for the last; the engine's reduce,
 * its one-way rounds p / 2d ranks at once, below). On nodes, 0.4 to 1.4
 * (seen: 0.44 to 1.34): the engine's reduce and the butterfly reduce on
 * nodes under-count the senders of their one-way rounds, down to 0.44 at
 * p = 96. Without the core, the pricer over the closed forms: up to 37
 * times (the linear allreduce on nodes). */
static const double CS_CORE_LO = 0.75, CS_CORE_HI = 1.2, CS_CORE_NODES_LO = 0.4, CS_CORE_NODES_HI = 1.4;

START_TEST(test_core_closed_forms)
{
    static const int ps[] = {8, 16, 32, 64, 12, 24, 48, 96};
    static const size_t counts[] = {2, 8192, 262144};
    const cs_model models[] = {
        {.alpha = 5e-5, .beta = 8e-9, .rho = 1e-10, .gamma = 2.5e-10, .beta_core = 8e-10, .rendezvous_from = 1},
        {.alpha = 1e-6,
         .beta = 1e-9,
         .rho = 1e-10,
         .gamma = 1e-9,
         .alpha_node = 2e-7,
         .beta_node = 3e-10,
         .node_levels = 1,
         .beta_core = 6e-10},
    };
    cs_sched *s = sim_scheds_new(96);
    int checked = 0;
    for (int c = CS_COLL_ALLREDUCE; c <= CS_COLL_REDUCE; c++) {
        int n;
        const cs_alg *const *t = cs_alg_table((cs_coll)c, &n);
        for (int i = 0; i < n; i++)
            for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++)
                for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
                    for (int mi = 0; mi < 2; mi++) {
                        const int p = ps[pi];
                        const cs_problem prob = {.coll = (cs_coll)c,
                                                 .p = p,
                                                 .count = counts[ci],
                                                 .elem = 8,
                                                 .bytes = 8 * counts[ci],
                                                 .ppn = mi ? 4 : 0,
                                                 .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
                        cs_params params;
                        cs_params_init(&params);
                        params.node_level = CS_NODE_OURS; /* the library's node level runs outside the schedule */
                        if (!t[i]->build || !t[i]->cost || cs_alg_restriction(t[i], &prob) ||
                            (!strcmp(t[i]->name, "linear") && counts[ci] < (size_t)p))
                            continue;
                        if (t[i]->tune)
                            t[i]->tune(&models[mi], &prob, &params);
                        int r = 0;
                        for (; r < p; r++) {
                            cs_sched_reset(&s[r]);
                            if (t[i]->build(&prob, &params, r, &s[r]) != 0)
                                break;
                        }
                        if (r < p)
                            continue;
                        const double closed = t[i]->cost(&models[mi], &prob, &params),
                                     event = cs_price_critical_path(&models[mi], s, p, prob.ppn, NULL);
                        /* compositions: sums of their phases, bounded at 1.5 without a core (the
                         * compose suite); with one the multileader's reaches 1.97 (p = 8, nodes
                         * of 4, 64 KiB): an over-price, not yet explained, that never chooses it
                         * wrongly */
                        const int composed = (t[i]->requires & CS_REQ_NODES) != 0;
                        const double lo = mi ? CS_CORE_NODES_LO : CS_CORE_LO, hi = composed ? 2.0
                                                                                   : mi     ? CS_CORE_NODES_HI
                                                                                            : CS_CORE_HI;
                        ck_assert_msg(closed >= event * lo && closed <= event * hi,
                                      "%s %s p=%d ppn=%d m=%zu: closed form %.17g, pricer %.17g (%.3f)",
                                      cs_coll_name(t[i]->coll), t[i]->name, p, prob.ppn, prob.bytes, closed, event,
                                      closed / event);
                        checked++;
                    }
    }
    ck_assert_int_gt(checked, 200);
    sim_scheds_free(s, 96);
}
END_TEST

/* ------------------------------------------------------------- distance */

/* model.distance: 0 -> 1, 2 -> 5 and 3 -> 4 at once, 1000 B each. Under
 * XOR 1, 3 and 3 links; under the difference 1, 3 and 1: each message's
 * alpha_hop per link beyond the first on top of alpha + beta m; none: all
 * alike, whatever alpha_hop. */
START_TEST(test_distance_pair)
{
    cs_model mo = {.alpha = 1e-6, .beta = 1e-9, .alpha_hop = 5e-7};
    static const int from[] = {0, 2, 3}, to[] = {1, 5, 4};
    double finish[6];
    cs_sched *s = scheds_rounds(6, 1);
    for (int i = 0; i < 3; i++) {
        cs_sched_send(&s[from[i]], to[i], CS_BUF_SEND, 0, 1000);
        cs_sched_recv(&s[to[i]], from[i], CS_BUF_RECV, 0, 1000);
    }
    mo.distance = CS_DISTANCE_XOR;
    ck_assert(near(price(&mo, s, 6, 0, finish), 2e-6 + 2 * 5e-7));
    ck_assert(near(finish[1], 2e-6) && near(finish[5], 3e-6) && near(finish[4], 3e-6));
    mo.distance = CS_DISTANCE_DIFFERENCE;
    price(&mo, s, 6, 0, finish);
    ck_assert(near(finish[1], 2e-6) && near(finish[5], 3e-6) && near(finish[4], 2e-6));
    mo.distance = CS_DISTANCE_NONE;
    ck_assert(near(price(&mo, s, 6, 0, NULL), 2e-6));
    sim_scheds_free(s, 6);
}
END_TEST

/* A hypercube's rank has a link per dimension (cs_link_in, cs_link_out):
 * rank 0 takes 1 MB from ranks 1, 2 and 4 at once on three links, one beta
 * m and the farthest's latency; from 1, 3, 5 and 7 (highest bits 0, 1, 2
 * and 2) the last two queue on one link, 2 beta m; rank 0 sending to 1, 3
 * and 5 (lowest bit 0 all) queues them on one link, 3 beta m. On one link
 * (no distance, or the difference) every case is 3 or 4 beta m. */
START_TEST(test_distance_links)
{
    const cs_model xor = {.alpha = 1e-6, .beta = 1e-9, .distance = CS_DISTANCE_XOR};
    cs_model line = xor;
    line.distance = CS_DISTANCE_DIFFERENCE;
    const size_t m = 1000000;
    static const struct {
        int n, peer[4], gather;
        double xor_m, one_m; /* beta m's */
    } cases[] = {
        {3, {1, 2, 4}, 1, 1, 3},
        {4, {1, 3, 5, 7}, 1, 2, 4},
        {3, {1, 3, 5}, 0, 3, 3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cs_sched *s = scheds_rounds(8, 1);
        for (int i = 0; i < cases[c].n; i++) {
            const int peer = cases[c].peer[i];
            cs_sched_send(&s[cases[c].gather ? peer : 0], cases[c].gather ? 0 : peer, CS_BUF_SEND, 0, m);
            cs_sched_recv(&s[cases[c].gather ? 0 : peer], cases[c].gather ? peer : 0, CS_BUF_RECV, 0, m);
        }
        const double t = price(&xor, s, 8, 0, NULL), t_line = price(&line, s, 8, 0, NULL);
        ck_assert_msg(near(t, xor.alpha + cases[c].xor_m * xor.beta *(double)m), "case %zu: %.17g", c, t);
        ck_assert_msg(t_line >= (xor.alpha + cases[c].one_m * xor.beta *(double)m) * (1 - 1e-12),
                      "case %zu one link: %.17g", c, t_line);
        sim_scheds_free(s, 8);
    }
}
END_TEST

/* Where the model has no distance, prices are those of a model without
 * alpha_hop, bit for bit: every row of the suite's cases (its closed form
 * and the pricer), each model. */
START_TEST(test_distance_none)
{
    if (unit_shard_skip(_i))
        return;
    const cs_alg *alg = jobs[_i].alg;
    const int p = jobs[_i].p;
    const size_t elem = alg->coll == CS_COLL_ALLTOALL ? 1 : 4;
    cs_sched *s = sim_scheds_new(p);
    for (size_t count = 1; count <= 1000; count *= 1000)
        for (int i = 0; i < NPRICER_MODELS; i++) {
            const cs_problem prob = {.coll = alg->coll,
                                     .p = p,
                                     .root = p / 2,
                                     .count = count,
                                     .elem = elem,
                                     .bytes = count * elem,
                                     .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
            cs_model hop = pricer_models[i];
            hop.alpha_hop = 3e-6;
            cs_params params;
            cs_params_init(&params);
            if (alg->tune)
                alg->tune(&pricer_models[i], &prob, &params);
            ck_assert(alg->cost(&hop, &prob, &params) == alg->cost(&pricer_models[i], &prob, &params));
            ck_assert(pricer_of(alg, &prob, &params, &hop, s) == pricer_of(alg, &prob, &params, &pricer_models[i], s));
        }
    sim_scheds_free(s, p);
}
END_TEST

/*
 * The closed forms under distance against the pricer, eagerly (no o, 1 us
 * a link, 10 GB/s), p = 6 to 64 (alltoall to 48), 8 B to 32 KiB. Where a
 * round's partners lie at one distance (the butterflies, the k-nomial and
 * binomial trees, the linear alltoall: its one alpha is its farthest
 * block's) they are equal. A level of the allreduce engine (ring,
 * elimination) takes its farthest pair's latency in every round, and the
 * linear allreduce its farthest block's: an upper bound, at most 1.9 (1.2)
 * times the pricer. Reduce's engine prices the ranks that can be slowest,
 * each its own messages' links, which does not see a partner delayed by
 * farther ones: a lower bound, at least 0.7. Bruck's rounds take their
 * shift's farthest pair (a wrap-around one under the difference): at most
 * 2.7. The direct exchange pays each round rank 0's partner's links: at
 * p = 2^d under xor every pair of a round is as far apart (equal; 1.05
 * under the difference), a shift's rounds are not (0.7 to 1.45). The
 * windowed allreduce sums, rank by rank, each round's farthest message:
 * an upper bound, at most 2.7 times the pricer, whose ranks overlap rounds
 * (on the lab's hypercube-64 at 8 B SMPI took 21.05 us, the closed form
 * says 21.01, the pricer 11.0).
 * Multiphase does not price distance yet.
 */
typedef struct distance_bound {
    const char *coll, *name;
    double lo, hi;
} distance_bound;

static const distance_bound distance_bounds[] = {
    {"allreduce", "butterfly", 1.0, 1.0},   {"reduce", "butterfly", 1.0, 1.0}, {"reduce", "knomial", 1.0, 1.0},
    {"reduce", "binomial", 1.0, 1.0},       {"alltoall", "linear", 1.0, 1.0},  {"allreduce", "ring", 1.0, 1.9},
    {"allreduce", "elimination", 1.0, 1.9}, {"allreduce", "linear", 1.0, 1.2}, {"reduce", "ring", 0.7, 1.0},
    {"reduce", "elimination", 0.7, 1.0},    {"alltoall", "bruck", 1.0, 2.7},   {"alltoall", "direct", 0.7, 1.5},
    {"allreduce", "windowed", 1.0, 2.7},
};

/* Under xor a rank has a link per dimension (cs_link_out, cs_link_in): the
 * k-nomial tree is still exact where its radix is a power of two (a child
 * differs from its parent in its offset's bits) and an upper bound
 * otherwise (its blocks priced on one link); the linear exchanges price the
 * busiest link's blocks, an estimate. */
static const distance_bound xor_bounds[] = {
    {"reduce", "knomial", 1.0, 2.0},
    {"alltoall", "linear", 0.99, 1.3},
    {"allreduce", "linear", 1.0, 1.4},
};

/* The bound of b's row under distance d (its radix r, where it has one). */
static distance_bound distance_bound_of(const distance_bound *b, int d, int r)
{
    for (size_t i = 0; d == CS_DISTANCE_XOR && i < sizeof xor_bounds / sizeof xor_bounds[0]; i++)
        if (!strcmp(xor_bounds[i].coll, b->coll) && !strcmp(xor_bounds[i].name, b->name) &&
            (strcmp(b->name, "knomial") || (r & (r - 1)) != 0))
            return xor_bounds[i];
    return *b;
}

START_TEST(test_distance_closed_forms)
{
    static const int ps[] = {6, 12, 16, 24, 32, 40, 48, 64};
    const distance_bound *b = &distance_bounds[_i];
    const cs_coll coll = !strcmp(b->coll, "allreduce") ? CS_COLL_ALLREDUCE
                         : !strcmp(b->coll, "reduce")  ? CS_COLL_REDUCE
                                                       : CS_COLL_ALLTOALL;
    cs_params given;
    const char *why;
    const cs_alg *alg = cs_alg_lookup(coll, b->name, &given, &why);
    ck_assert_ptr_nonnull(alg);
    for (int d = CS_DISTANCE_XOR; d <= CS_DISTANCE_DIFFERENCE; d++)
        for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++)
            for (size_t count = 1; count <= 4096; count *= 64) {
                const int p = ps[k];
                const size_t elem = coll == CS_COLL_ALLTOALL ? 1 : 8;
                const cs_problem prob = {.coll = coll,
                                         .p = p,
                                         .count = count,
                                         .elem = elem,
                                         .bytes = count * elem,
                                         .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE |
                                                  (alg->requires & CS_REQ_EXACT ? CS_PROB_EXACT : 0u)};
                if ((coll == CS_COLL_ALLTOALL && p > 48) || cs_alg_restriction(alg, &prob))
                    continue;
                const cs_model mo = {.alpha = 1e-6, .beta = 1e-10, .distance = d, .alpha_hop = 1e-6};
                cs_params params;
                cs_params_init(&params);
                if (alg->tune)
                    alg->tune(&mo, &prob, &params);
                cs_sched *s = sim_scheds_new(p);
                const double closed = alg->cost(&mo, &prob, &params), event = pricer_of(alg, &prob, &params, &mo, s);
                sim_scheds_free(s, p);
                const distance_bound bd = distance_bound_of(b, d, params.radix);
                ck_assert_msg(closed >= bd.lo * event * (1 - 1e-9) && closed <= bd.hi * event * (1 + 1e-9),
                              "%s %s p=%d m=%zu distance %d: closed form %.6g, pricer %.6g (%.3f, bound %.2f..%.1f)",
                              b->coll, b->name, p, prob.bytes, d, closed, event, closed / event, bd.lo, bd.hi);
            }
}
END_TEST

/* A map the event pricer does not price (beyond cs_alg_map_priced's sizes)
 * that is blocks of 8 with the last node part full (alltoall at p = 44,
 * the reductions at p = 140): every flat row's closed form on that shape
 * (cs_alg_map_shape: ppn 8) against the pricer on the map: within 0.75
 * to 1.75 of it, and nearer on average than the one level it was priced
 * on before. */
START_TEST(test_part_full_shape)
{
    static const size_t sizes[] = {8, 512, 32768, 262144};
    static const int models[] = {2, 6, 7}; /* node_models: rank paths; pair paths eager, by rendezvous */
    double err_shaped = 0.0, err_flat = 0.0;
    int cells = 0;
    for (int c = 0; c < CS_COLL_LAST; c++) {
        int n;
        const cs_alg *const *t = cs_alg_table((cs_coll)c, &n);
        const int p = c == CS_COLL_ALLTOALL ? CS_MAP_PRICED_ALLTOALL_MAX + 12 : CS_MAP_PRICED_MAX + 12;
        if (c == CS_COLL_WINDOW)
            continue;
        int *node = malloc((size_t)p * sizeof *node);
        for (int r = 0; r < p; r++)
            node[r] = r / 8;
        cs_sched *s = sim_scheds_new(p);
        for (int i = 0; i < n; i++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
                    const cs_model *mo = &node_models[models[mi]];
                    const size_t elem = c == CS_COLL_ALLTOALL ? 1 : 4;
                    const cs_problem prob = {.coll = (cs_coll)c,
                                             .p = p,
                                             .count = sizes[z] / elem,
                                             .elem = elem,
                                             .bytes = sizes[z],
                                             .node = node,
                                             .nodes = (p + 7) / 8,
                                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_NODE_RANGES};
                    cs_params params;
                    cs_params_init(&params);
                    if (!t[i]->build || t[i]->rules_only || (t[i]->requires & CS_REQ_NODES) ||
                        cs_alg_restriction(t[i], &prob))
                        continue;
                    ck_assert(!cs_alg_map_priced(mo, &prob) && cs_model_map_uneven(mo, &prob));
                    if (t[i]->tune)
                        t[i]->tune(mo, &prob, &params);
                    for (int r = 0; r < p; r++) {
                        cs_sched_reset(&s[r]);
                        ck_assert_int_eq(t[i]->build(&prob, &params, r, &s[r]), 0);
                    }
                    const double event = cs_price_critical_path_map(mo, s, p, node, prob.nodes, NULL),
                                 shaped = cs_alg_cost_on_map(t[i], mo, &prob, &params),
                                 flat = t[i]->cost(mo, &prob, &params);
                    ck_assert_msg(shaped >= 0.75 * event && shaped <= 1.75 * event,
                                  "%s %s p=%d %zu B model %d: the shape %.3f of the pricer (one level %.3f)",
                                  cs_coll_name(t[i]->coll), t[i]->name, p, sizes[z], models[mi], shaped / event,
                                  flat / event);
                    err_shaped += fabs(shaped / event - 1);
                    err_flat += fabs(flat / event - 1);
                    cells++;
                }
        sim_scheds_free(s, p);
        free(node);
    }
    /* seen: 0.77 to 1.71 of the pricer, 11% off on average; one level 0.17 to 1.51, 27% */
    ck_assert_int_gt(cells, 100);
    ck_assert_msg(err_shaped < 0.6 * err_flat, "the shape %.3f off on average, one level %.3f", err_shaped / cells,
                  err_flat / cells);
}
END_TEST

/* A row whose closed form sees one level (the windowed allreduce) on nodes
 * of one size: priced by the event pricer on the map up to 128 ranks (2
 * nodes of 32, 1 MiB: each round's messages off a node share its link,
 * which one level leaves out), past that by the closed form. */
/* A column of a process grid (one rank a node, each node's link shared with
 * 7 other columns, share 8): a row whose closed form is the slowest rank's
 * sum (the reduce engine's elimination) is priced by the event pricer on
 * the map, which sees the waits the shared links lengthen, and so is
 * chosen where it is cheapest there; a row whose closed form is the
 * critical path (the k-nomial tree) keeps it; a column that shares nothing
 * keeps the sum. */
START_TEST(test_column_on_map)
{
    extern const cs_alg cs_reduce_elimination, cs_reduce_knomial;
    const cs_model mo = {.alpha = 2e-6,
                         .beta = 8e-11,
                         .alpha_node = 2e-7,
                         .beta_node = 2.5e-11,
                         .node_levels = 1,
                         .node_pairs = 1,
                         .beta_link = 7.25e-11 * 8, /* the model of a column shares the link (cs_model_shared) */
                         .rendezvous_from = 1};
    int node[6] = {0, 1, 2, 3, 4, 5};
    cs_problem prob = {.coll = CS_COLL_REDUCE,
                       .p = 6,
                       .count = 1024,
                       .elem = 4,
                       .bytes = 4096,
                       .ppn = 1,
                       .node = node,
                       .nodes = 6,
                       .share = 8,
                       .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
    cs_params params;
    cs_params_init(&params);
    params.k = 1;
    const double sum = cs_reduce_elimination.cost(&mo, &prob, &params),
                 priced = cs_alg_cost_on_map(&cs_reduce_elimination, &mo, &prob, &params);
    ck_assert_double_eq(priced, cs_alg_price_map(&cs_reduce_elimination, &mo, &prob, &params));
    ck_assert_msg(priced > 1.2 * sum, "elimination on the column: %.3g on the map, %.3g its sum", priced, sum);
    cs_params_init(&params);
    params.radix = 3;
    ck_assert_double_eq(cs_alg_cost_on_map(&cs_reduce_knomial, &mo, &prob, &params),
                        cs_reduce_knomial.cost(&mo, &prob, &params));
    double best;
    const int chosen = cs_select_cheapest_from(&mo, &prob, -1, &params, &best);
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_REDUCE, &n);
    ck_assert_msg(chosen >= 0 && table[chosen] == &cs_reduce_knomial, "chosen: %s",
                  chosen >= 0 ? table[chosen]->name : "none");
    prob.share = 1; /* alone on its nodes' links: the sum, as before */
    cs_params_init(&params);
    params.k = 1;
    ck_assert_double_eq(cs_alg_cost_on_map(&cs_reduce_elimination, &mo, &prob, &params),
                        cs_reduce_elimination.cost(&mo, &prob, &params));
}
END_TEST

START_TEST(test_one_level_on_map)
{
    extern const cs_alg cs_allreduce_windowed;
    const cs_model *mo = &node_models[7];
    for (int p = 64; p <= 192; p += 128) {
        int *node = malloc((size_t)p * sizeof *node);
        for (int r = 0; r < p; r++)
            node[r] = r / 32;
        const cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                                 .p = p,
                                 .count = 262144,
                                 .elem = 4,
                                 .bytes = 1048576,
                                 .ppn = 32,
                                 .node = node,
                                 .nodes = p / 32,
                                 .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_EXACT | CS_PROB_NODE_RANGES};
        cs_params params;
        cs_params_init(&params);
        const double closed = cs_allreduce_windowed.cost(mo, &prob, &params),
                     priced = cs_alg_cost_on_map(&cs_allreduce_windowed, mo, &prob, &params);
        if (p <= CS_MAP_PRICED_MAX) {
            cs_sched *s = sim_scheds_new(p);
            for (int r = 0; r < p; r++)
                ck_assert_int_eq(cs_allreduce_windowed.build(&prob, &params, r, &s[r]), 0);
            ck_assert_double_eq(priced, cs_price_critical_path_map(mo, s, p, node, prob.nodes, NULL));
            ck_assert_msg(priced > 2 * closed, "p=%d: on the map %.3g, one level %.3g", p, priced, closed);
            sim_scheds_free(s, p);
        } else {
            ck_assert_double_eq(priced, closed);
        }
        free(node);
    }
}
END_TEST

/* A k-nomial tree whose rounds straddle the nodes (r = 6 on nodes of 32 at
 * p = 128) is priced by the event pricer on the map, exactly; one that lines
 * up with them (r = 4) by its closed form, the same as without the map; and
 * without the map, r = 6 as if its children were all off the node (more). */
START_TEST(test_knomial_straddling_on_map)
{
    const cs_model *mo = &node_models[7];
    const int p = 128;
    int node[128];
    for (int r = 0; r < p; r++)
        node[r] = r / 32;
    cs_problem prob = {.coll = CS_COLL_REDUCE,
                       .p = p,
                       .count = 65536,
                       .elem = 4,
                       .bytes = 262144,
                       .ppn = 32,
                       .node = node,
                       .nodes = 4,
                       .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_NODE_RANGES};
    cs_problem bare = prob;
    bare.node = NULL;
    bare.nodes = 0;
    cs_sched *s = sim_scheds_new(p);
    for (int radix = 4; radix <= 6; radix += 2) {
        cs_params params;
        cs_params_init(&params);
        params.radix = radix;
        for (int r = 0; r < p; r++) {
            cs_sched_reset(&s[r]);
            ck_assert_int_eq(cs_reduce_knomial.build(&prob, &params, r, &s[r]), 0);
        }
        const double on_map = cs_reduce_knomial.cost(mo, &prob, &params),
                     without = cs_reduce_knomial.cost(mo, &bare, &params),
                     event = cs_price_critical_path_map(mo, s, p, node, prob.nodes, NULL);
        if (radix == 6) {
            ck_assert_double_eq(on_map, event);
            ck_assert_msg(without > 1.3 * event, "r=6: without the map %.4g, the pricer %.4g", without, event);
        } else {
            ck_assert_double_eq(on_map, without);
            ck_assert_msg(fabs(on_map / event - 1) < 1e-9, "r=4: closed %.6g, pricer %.6g", on_map, event);
        }
    }
    sim_scheds_free(s, p);
}
END_TEST

static void jobs_make(void)
{
    static const int above[] = {96, 100, 128};
    for (int c = 0; c < CS_COLL_LAST; c++) {
        int n;
        const cs_alg *const *t = cs_alg_table((cs_coll)c, &n);
        for (int i = 0; i < n; i++)
            for (int k = 1; t[i]->critical_path == CS_PATH_EXACT && k <= 64 + 3; k++) {
                const int p = k <= 64 ? k : above[k - 65];
                const cs_problem prob = {.coll = (cs_coll)c,
                                         .p = p,
                                         .count = 1,
                                         .elem = 1,
                                         .bytes = 1,
                                         .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
                if (cs_alg_restriction(t[i], &prob))
                    continue;
                jobs = realloc(jobs, (size_t)(njobs + 1) * sizeof *jobs);
                if (!jobs)
                    abort();
                jobs[njobs++] = (pricer_job){t[i], p};
            }
    }
}

Suite *make_pricer_suite(void)
{
    Suite *s = suite_create("pricer");
    TCase *tc = tcase_create("pricer");
    tcase_set_timeout(tc, 600);
    jobs_make();
    tcase_add_test(tc, test_pair);
    tcase_add_test(tc, test_fan_in);
    tcase_add_test(tc, test_fan_in_pairs);
    tcase_add_test(tc, test_part_full_shape);
    tcase_add_test(tc, test_one_level_on_map);
    tcase_add_test(tc, test_column_on_map);
    tcase_add_test(tc, test_knomial_straddling_on_map);
    tcase_add_test(tc, test_wait);
    tcase_add_test(tc, test_rendezvous);
    tcase_add_test(tc, test_node_levels);
    tcase_add_test(tc, test_node_link);
    tcase_add_test(tc, test_core);
    tcase_add_test(tc, test_core_closed_forms);
    tcase_add_loop_test(tc, test_core_neutral, 0, njobs);
    tcase_add_test(tc, test_closed_forms_on_nodes);
    tcase_add_test(tc, test_alltoall_on_nodes);
    tcase_add_test(tc, test_linear_allreduce_on_nodes);
    tcase_add_test(tc, test_unfed_receive);
    tcase_add_test(tc, test_flagged_rows);
    tcase_add_test(tc, test_bokhari_partitions);
    tcase_add_loop_test(tc, test_closed_forms, 0, njobs);
    tcase_add_test(tc, test_distance_pair);
    tcase_add_test(tc, test_distance_links);
    tcase_add_loop_test(tc, test_distance_none, 0, njobs);
    tcase_add_loop_test(tc, test_distance_closed_forms, 0, sizeof distance_bounds / sizeof distance_bounds[0]);
    suite_add_tcase(s, tc);
    return s;
}
