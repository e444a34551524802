/*
 * The node-aware compositions (src/coll/compose/): the leader allreduce and
 * reduce in the simulator for every p up to 128 on many node maps (blocks of
 * 2, 3, 4 and 8 with the last node part full, round robin, uneven nodes,
 * ranks of a node not consecutive), with every leaders' row that can run
 * and several node radices, in place or not, commutative or not (not where
 * a node's ranks are not consecutive), at several roots; the results are
 * the simulator's: every leaf, in canonical order where the operator is not
 * commutative. Their restrictions (one rank a node and one node are not
 * candidates; a commutative operator where the ranges are not
 * consecutive), their price under a model without nodes, and the closed
 * form against the event pricer on block maps.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/compose/compose.h"
#include "coll/compose/leader.h"
#include "sched/nodes.h"
#include "sched/pricer.h"
#include "select/select.h"
#include "select/select_internal.h"
#include "shard.h"
#include "sim.h"

extern const cs_alg cs_allreduce_leader;
extern const cs_alg cs_reduce_leader;
extern const cs_alg cs_allreduce_multileader;
extern const cs_alg cs_alltoall_leader;

enum { COMPOSE_MAX_P = 128 };

/* A machine with nodes: latency-bound, and bandwidth-bound with a node's link. */
static const cs_model compose_models[] = {
    {.alpha = 1e-5,
     .beta = 1e-10,
     .rho = 1e-11,
     .gamma = 1e-11,
     .alpha_node = 3e-7,
     .beta_node = 1e-11,
     .node_levels = 1},
    {.alpha = 2e-6,
     .beta = 8e-11,
     .rho = 1e-11,
     .gamma = 5e-11,
     .overhead = 1e-7,
     .alpha_node = 2e-7,
     .beta_node = 2.5e-11,
     .beta_link = 7e-11,
     .node_levels = 1},
};
enum { NMODELS = sizeof compose_models / sizeof compose_models[0] };

/* The maps: each rank's node key. */
typedef enum {
    MAP_BLOCKS2,
    MAP_BLOCKS3,
    MAP_BLOCKS4,
    MAP_BLOCKS8,
    MAP_CYCLIC3, /* round robin over ceil(p / 3) nodes */
    MAP_UNEVEN,  /* consecutive nodes of 1, 2, 3, 4, 1, 2, ... ranks */
    MAP_SCATTER, /* nodes of about 3 whose ranks are not consecutive */
    MAP_ONE_EACH,
    MAP_ONE_NODE,
    NMAPS
} compose_map;

static const char *const compose_map_names[NMAPS] = {"blocks of 2", "blocks of 3", "blocks of 4",
                                                     "blocks of 8", "cyclic",      "uneven",
                                                     "scattered",   "one a node",  "one node"};

static int compose_key(compose_map map, int r, int p)
{
    switch (map) {
    case MAP_BLOCKS2: return r / 2;
    case MAP_BLOCKS3: return r / 3;
    case MAP_BLOCKS4: return r / 4;
    case MAP_BLOCKS8: return r / 8;
    case MAP_CYCLIC3: return r % ((p + 2) / 3);
    case MAP_UNEVEN: {
        int node = 0, left = r;
        while (left >= node % 4 + 1)
            left -= node++ % 4 + 1;
        return node;
    }
    case MAP_SCATTER: return (int)((r * 7u + (unsigned)r / 5) % (unsigned)((p + 2) / 3));
    case MAP_ONE_EACH: return r;
    default: return 0;
    }
}

/* The map of p ranks, as the shim makes it (sched/nodes.h). */
static void compose_map_make(compose_map map, int p, cs_nodes *out)
{
    int keys[COMPOSE_MAX_P];
    for (int r = 0; r < p; r++)
        keys[r] = compose_key(map, r, p);
    ck_assert_int_eq(cs_nodes_from_keys(out, keys, p), 0);
}

static cs_problem compose_problem(cs_coll coll, const cs_nodes *map, int p, size_t count, unsigned flags, int root)
{
    const size_t elem = coll == CS_COLL_ALLTOALL ? 1 : 4;
    return (cs_problem){.coll = coll,
                        .p = p,
                        .root = root,
                        .count = count,
                        .elem = elem,
                        .bytes = count * elem,
                        .flags = flags | CS_PROB_CONTIG | (map->ranges ? CS_PROB_NODE_RANGES : 0u),
                        .ppn = map->ppn,
                        .node = map->node,
                        .nodes = map->nodes};
}

/* The leaders' rows that can run the problem's leaders, each tuned by its tune. */
static int compose_subs(const cs_problem *prob, cs_params *out, int most)
{
    const cs_problem sub = cs_compose_leaders_problem(prob, prob->coll);
    int n, k = 0;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    for (int i = 1; i < n && k < most; i++) {
        if (!table[i]->build || table[i]->rules_only || (table[i]->requires & CS_REQ_NODES) ||
            cs_alg_restriction(table[i], &sub))
            continue;
        cs_params_init(&out[k]);
        if (table[i]->tune)
            table[i]->tune(&compose_models[k % NMODELS], &sub, &out[k]);
        out[k].sub = i;
        out[k].node_radix = 2 + k % 3;
        k++;
    }
    return k;
}

/*
 * Build every rank's schedule and run them in the simulator with the ranks
 * renumbered node by node (node 0's in rank order, then node 1's, ...): the
 * schedules are rank arithmetic on the map, so renumbered they are the same
 * call, and the canonical order of the renumbered ranks is the order the
 * composition promises, which the simulator checks (its commutative
 * operator is not associative). On a map of consecutive ranges the
 * renumbering is none.
 */
static void compose_run(const cs_alg *alg, const cs_problem *prob, const cs_params *params, cs_sched *scheds,
                        const char *map)
{
    sim_report rep = {0};
    char buf[2048];
    int perm[COMPOSE_MAX_P], v = 0;
    cs_sched view[COMPOSE_MAX_P];
    for (int r = 0; r < prob->p; r++) /* alltoall: blocks are placed by rank, none renumbered */
        perm[r] = r;
    for (int j = 0; prob->coll != CS_COLL_ALLTOALL && j < prob->nodes; j++)
        for (int r = 0; r < prob->p; r++)
            if (prob->node[r] == j)
                perm[r] = v++;
    for (int r = 0; r < prob->p; r++) {
        cs_sched_reset(&scheds[r]);
        ck_assert_int_eq(alg->build(prob, params, r, &scheds[r]), 0);
        for (size_t i = 0; i < scheds[r].nsteps; i++)
            if (scheds[r].steps[i].kind == CS_STEP_SEND || scheds[r].steps[i].kind == CS_STEP_RECV)
                scheds[r].steps[i].peer = perm[scheds[r].steps[i].peer];
        view[perm[r]] = scheds[r];
    }
    cs_problem renumbered = *prob;
    renumbered.root = perm[prob->root];
    sim_run(&renumbered, view, 0, &rep);
    ck_assert_msg(rep.total == 0, "%s %s p=%d (%s) count=%zu%s%s root=%d leaders' row %d radix %d: %s",
                  cs_coll_name(alg->coll), alg->name, prob->p, map, prob->count,
                  prob->flags & CS_PROB_INPLACE ? " in place" : "",
                  prob->flags & CS_PROB_COMMUTATIVE ? " commutative" : "", prob->root, params->sub, params->node_radix,
                  sim_report_str(&rep, buf, sizeof buf));
}

/* _i: p - 1. Every map, both rows, roots 0, p - 1, p / 2 and 1 (a leader, or not). */
START_TEST(test_leader_sim)
{
    if (unit_shard_skip(_i))
        return;
    const int p = _i + 1;
    cs_sched *scheds = sim_scheds_new(p);
    const cs_alg *const rows[] = {&cs_allreduce_leader, &cs_reduce_leader, &cs_allreduce_multileader,
                                  &cs_alltoall_leader};
    for (int mp = 0; mp < NMAPS; mp++) {
        cs_nodes map;
        compose_map_make((compose_map)mp, p, &map);
        for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++) {
            const int roots[] = {0, p - 1, p / 2, p > 1 ? 1 : 0}, nroots = rows[a]->coll == CS_COLL_REDUCE ? 4 : 1;
            for (int f = 0; f < 4; f++)
                for (int ri = 0; ri < nroots; ri++) {
                    const unsigned flags = (f & 1 ? CS_PROB_INPLACE : 0u) | (f & 2 ? CS_PROB_COMMUTATIVE : 0u);
                    const size_t count = rows[a] == &cs_allreduce_multileader ? (p <= 16 ? 2 * (size_t)p + 3 : 5)
                                         : p <= 16                            ? 3
                                                                              : 1;
                    const cs_problem prob = compose_problem(rows[a]->coll, &map, p, count, flags, roots[ri]);
                    const char *why = cs_alg_restriction(rows[a], &prob);
                    const bool even = p % map.nodes == 0 && cs_compose_largest(&prob) == p / map.nodes;
                    const bool candidate = map.nodes > 1 && map.nodes < p &&
                                           (map.ranges || (f & 2) || rows[a]->coll == CS_COLL_ALLTOALL) &&
                                           (even || !(rows[a]->requires & CS_REQ_NODE_EVEN));
                    ck_assert_msg(!why == candidate, "%s p=%d (%s): %s", rows[a]->name, p, compose_map_names[mp],
                                  why ? why : "a candidate");
                    if (!candidate)
                        continue;
                    /* every leaders' row at small p, the tuned ones above */
                    cs_params params[8];
                    int n = p <= 24 || ri == 0 ? compose_subs(&prob, params, 8) : 0;
                    for (int m = 0; m < NMODELS; m++) {
                        cs_params_init(&params[n]);
                        params[n].node_level = CS_NODE_OURS; /* the library's node level runs outside the schedule */
                        rows[a]->tune(&compose_models[m], &prob, &params[n]);
                        ck_assert_int_gt(params[n].sub, 0);
                        n++;
                    }
                    for (int v = 0; v < n; v++)
                        compose_run(rows[a], &prob, &params[v], scheds, compose_map_names[mp]);
                }
        }
        cs_nodes_free(&map);
    }
    sim_scheds_free(scheds, p);
}
END_TEST

/* The log's reason names the commutative operator; one a node, one node and
 * no map are not candidates; a model without nodes prices it at infinity. */
START_TEST(test_leader_restrictions)
{
    cs_nodes map;
    compose_map_make(MAP_CYCLIC3, 12, &map);
    cs_problem prob = compose_problem(CS_COLL_ALLREDUCE, &map, 12, 100, 0, 0);
    const char *why = cs_alg_restriction(&cs_allreduce_leader, &prob);
    ck_assert_msg(why && strstr(why, "commutative") && strstr(why, "consecutive"), "%s", why ? why : "none");
    prob.flags |= CS_PROB_COMMUTATIVE;
    ck_assert_ptr_null(cs_alg_restriction(&cs_allreduce_leader, &prob));
    prob.node = NULL;
    ck_assert_ptr_nonnull(cs_alg_restriction(&cs_allreduce_leader, &prob));
    cs_nodes_free(&map);

    compose_map_make(MAP_BLOCKS4, 48, &map);
    prob = compose_problem(CS_COLL_REDUCE, &map, 48, 1 << 16, 0, 5);
    const cs_model flat = {.alpha = 1e-6, .beta = 1e-9, .gamma = 1e-10};
    cs_params params;
    cs_params_init(&params);
    cs_reduce_leader.tune(&flat, &prob, &params);
    ck_assert(isinf(cs_reduce_leader.cost(&flat, &prob, &params)));
    ck_assert(isfinite(cs_reduce_leader.cost(&compose_models[0], &prob, &params)));
    double best;
    cs_params chosen;
    const int row = cs_select_cheapest(&flat, &prob, &chosen, &best);
    int n;
    ck_assert_ptr_ne(cs_alg_table(CS_COLL_REDUCE, &n)[row], &cs_reduce_leader);
    cs_nodes_free(&map);
}
END_TEST

/* Block maps of 2 to 8 ranks a node, every p up to 64 and 96, 128: the closed
 * form (the phases' prices added) within 0.6 to 1.3 times the event pricer's
 * critical path (the leaders' elimination and ring rows are sums that cannot
 * see a rank wait), multileader's within 0.6 to 1.5 (its n senders a node
 * share the link as one queue in the pricer, each finishing in turn). */
START_TEST(test_leader_price)
{
    static const int blocks[] = {2, 4, 8, 3};
    static const size_t counts[] = {2, 256, 1 << 16};
    const int ps[] = {96, 128};
    const int p = _i < 63 ? _i + 2 : ps[_i - 63];
    if (unit_shard_skip(_i))
        return;
    cs_sched *scheds = sim_scheds_new(p);
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        if (p % blocks[b] || p == blocks[b])
            continue;
        cs_nodes map;
        compose_map_make(b == 3 ? MAP_BLOCKS3 : b == 2 ? MAP_BLOCKS8 : b ? MAP_BLOCKS4 : MAP_BLOCKS2, p, &map);
        ck_assert_int_eq(map.ppn, blocks[b]);
        for (int a = 0; a < 3; a++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int m = 0; m < NMODELS; m++) {
                    const cs_alg *alg = a == 2 ? &cs_allreduce_multileader
                                        : a    ? &cs_reduce_leader
                                               : &cs_allreduce_leader;
                    const cs_problem prob = compose_problem(alg->coll, &map, p, counts[c], CS_PROB_COMMUTATIVE, 0);
                    cs_params params;
                    cs_params_init(&params);
                    params.node_level = CS_NODE_OURS; /* what the schedules hold (test_leader_node_level) */
                    alg->tune(&compose_models[m], &prob, &params);
                    for (int r = 0; r < p; r++) {
                        cs_sched_reset(&scheds[r]);
                        ck_assert_int_eq(alg->build(&prob, &params, r, &scheds[r]), 0);
                    }
                    const double closed = alg->cost(&compose_models[m], &prob, &params);
                    const double priced = cs_price_critical_path(&compose_models[m], scheds, p, map.ppn, NULL);
                    ck_assert_msg(priced > 0 && closed >= 0.6 * priced && closed <= (a == 2 ? 1.5 : 1.3) * priced,
                                  "%s p=%d ppn=%d count=%zu model %d: closed form %g, pricer %g (%.3f)", alg->name, p,
                                  map.ppn, counts[c], m, closed, priced, closed / priced);
                }
        cs_nodes_free(&map);
    }
    sim_scheds_free(scheds, p);
}
END_TEST

/* The leader rows' node level (leader.h): tuned to the cheaper of our tree
 * and the library's reduce (and broadcast) as the library mirror prices
 * them on the node's model; a level given is kept; never the library's
 * where it computes (type, op) wrongly, or on a map the event pricer
 * prices (the schedule holds no library phase to price). Blocks of 8 at
 * p = 32, MPICH's mirror: 1 MiB of a commutative built-in operator goes to
 * MPICH's reduce-scatter and gather, cheaper than a tree; a user operator
 * to its binomial tree, which ours matches or beats. */
START_TEST(test_leader_node_level)
{
    const cs_model *model = &compose_models[1];
    const cs_alg *const rows[] = {&cs_allreduce_leader, &cs_reduce_leader};
    cs_nodes blocks, uneven;
    compose_map_make(MAP_BLOCKS8, 32, &blocks);
    compose_map_make(MAP_UNEVEN, 32, &uneven);
    for (size_t a = 0; a < 2; a++) {
        const unsigned flags[] = {CS_PROB_COMMUTATIVE, CS_PROB_COMMUTATIVE | CS_PROB_USER_OP,
                                  CS_PROB_COMMUTATIVE | CS_PROB_LIBRARY_WRONG};
        for (size_t f = 0; f < 3; f++) {
            const cs_problem prob = compose_problem(rows[a]->coll, &blocks, 32, 1 << 18, flags[f], 3);
            cs_params tuned, level[3];
            cs_params_init(&tuned);
            rows[a]->tune(model, &prob, &tuned);
            for (int l = CS_NODE_OURS; l <= CS_NODE_LIBRARY; l++) {
                cs_params_init(&level[l]);
                level[l].node_level = l;
                rows[a]->tune(model, &prob, &level[l]);
                ck_assert_int_eq(level[l].node_level, l); /* given: kept */
            }
            const double ours = rows[a]->cost(model, &prob, &level[CS_NODE_OURS]),
                         library = rows[a]->cost(model, &prob, &level[CS_NODE_LIBRARY]);
            const int want = f == 0 ? CS_NODE_LIBRARY : CS_NODE_OURS;
            ck_assert_msg(tuned.node_level == want && (f == 2 ? library == ours : (library < ours) == (f == 0)),
                          "%s flags %u: tuned %d, ours %g, library %g", rows[a]->name, flags[f], tuned.node_level, ours,
                          library);
            ck_assert_double_eq(rows[a]->cost(model, &prob, &tuned), ours < library ? ours : library);
            char plan[256];
            rows[a]->describe(&prob, &tuned, plan, sizeof plan);
            ck_assert_msg(!strncmp(plan,
                                   want == CS_NODE_LIBRARY ? "the library's MPI_Reduce on each node, " : "knomial",
                                   want == CS_NODE_LIBRARY ? 39 : 7),
                          "%s", plan);
        }
        const cs_problem odd = compose_problem(rows[a]->coll, &uneven, 32, 1 << 18, CS_PROB_COMMUTATIVE, 0);
        cs_params tuned;
        cs_params_init(&tuned);
        rows[a]->tune(model, &odd, &tuned);
        ck_assert_int_eq(tuned.node_level, CS_NODE_OURS);
    }
    cs_nodes_free(&blocks);
    cs_nodes_free(&uneven);
}
END_TEST

/* A decision that a breakpoint holds is a lookup: where the model chose a
 * composition, the breakpoint keeps its row across the nodes and its node
 * level (params sub, node_radix, node_level), so a call tunes nothing; the
 * parameters it runs are those a full tune finds for the call. Blocks of 8
 * at p = 64 and of 32 at p = 128, allreduce and reduce from 8 B to 4 MiB. */
START_TEST(test_decision_keeps_composition)
{
    static const struct {
        int p, ppn;
    } maps[] = {{64, 8}, {128, 32}};
    const cs_coll colls[] = {CS_COLL_ALLREDUCE, CS_COLL_REDUCE};
    int composed = 0;
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        const int p = maps[i].p, ppn = maps[i].ppn;
        int *node = malloc((size_t)p * sizeof *node);
        for (int r = 0; r < p; r++)
            node[r] = r / ppn;
        for (size_t c = 0; c < sizeof colls / sizeof colls[0]; c++) {
            cs_config cfg;
            cs_config_defaults(&cfg);
            cfg.model = compose_models[1];
            static cs_select_cache cache;
            memset(&cache, 0, sizeof cache);
            for (size_t bytes = 8; bytes <= 4u << 20; bytes *= 8) {
                const cs_problem prob = {.coll = colls[c],
                                         .p = p,
                                         .count = bytes,
                                         .elem = 1,
                                         .bytes = bytes,
                                         .ppn = ppn,
                                         .node = node,
                                         .nodes = p / ppn,
                                         .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_NODE_RANGES};
                cs_decision d;
                cs_select(&cfg, &cache, &prob, &d);
                if (!(d.alg->requires & CS_REQ_NODES))
                    continue;
                composed++;
                const cs_breakpoints *bp = &cache.bp[colls[c]][1]; /* the commutative variant */
                const int entry = cs_breakpoints_entry(bp, bytes);
                ck_assert_int_eq(bp->sub[entry], d.params.sub); /* held, not tuned again */
                ck_assert_int_eq(bp->node_radix[entry], d.params.node_radix);
                cs_params full;
                cs_params_init(&full);
                d.alg->tune(&cfg.model, &prob, &full);
                ck_assert_msg(d.params.sub > 0 && d.params.sub == full.sub && d.params.node_radix == full.node_radix &&
                                  d.params.node_level == full.node_level && d.params.radix == full.radix &&
                                  d.params.k == full.k,
                              "%s %s p=%d %zu B: sub %d/%d node_radix %d/%d node_level %d/%d radix %d/%d k %d/%d",
                              cs_coll_name(colls[c]), d.alg->name, p, bytes, d.params.sub, full.sub,
                              d.params.node_radix, full.node_radix, d.params.node_level, full.node_level,
                              d.params.radix, full.radix, d.params.k, full.k);
            }
        }
        free(node);
    }
    ck_assert_int_gt(composed, 2);
}
END_TEST

Suite *make_compose_suite(void)
{
    Suite *suite = suite_create("compose");
    TCase *tc = tcase_create("leader");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_leader_restrictions);
    tcase_add_test(tc, test_leader_node_level);
    tcase_add_test(tc, test_decision_keeps_composition);
    tcase_add_loop_test(tc, test_leader_sim, 0, COMPOSE_MAX_P);
    tcase_add_loop_test(tc, test_leader_price, 0, 65);
    suite_add_tcase(suite, tc);
    return suite;
}
