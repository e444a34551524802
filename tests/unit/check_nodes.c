/*
 * The node map (src/sched/nodes.h) and pricing on it: the map built from
 * each rank's node key (blocks, a last node part full, round robin, uneven
 * nodes, one rank a node, a sub-communicator's ranks); on blocks of one size
 * every row's price the same with the map as without it, to the bit; on
 * other maps a message priced by the level it crosses (a ring's neighbours
 * dealt round robin are on different nodes), and a row whose closed form
 * assumes blocks priced by the event pricer on the map.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "sched/nodes.h"
#include "sched/pricer.h"
#include "select/select_internal.h"
#include "sim.h"

extern const cs_alg cs_alltoall_direct;

/* Two levels and a node's link that binds: off a node costs more. */
static const cs_model nodes_model = {.alpha = 2e-6,
                                     .beta = 2e-10,
                                     .rho = 1e-10,
                                     .gamma = 2.5e-10,
                                     .overhead = 4e-7,
                                     .alpha_node = 3e-7,
                                     .beta_node = 5e-11,
                                     .node_levels = 1,
                                     .beta_link = 1e-9};

/* The map of keys[0..p-1], checked against node[] (NULL: not checked), its count and ppn. */
static cs_nodes map_of(const int *keys, int p, const int *node, int nodes, int ppn)
{
    cs_nodes map;
    ck_assert_int_eq(cs_nodes_from_keys(&map, keys, p), 0);
    ck_assert_int_eq(map.nodes, nodes);
    ck_assert_int_eq(map.ppn, ppn);
    for (int r = 0; node && r < p; r++)
        ck_assert_msg(map.node[r] == node[r], "rank %d: node %d, expected %d", r, map.node[r], node[r]);
    return map;
}

/* World ranks world[0..p-1] of a communicator under ranks_per_node block. */
static cs_nodes map_of_world(const int *world, int p, int world_size, int block, int cyclic, const int *node, int nodes,
                             int ppn)
{
    int keys[64];
    for (int r = 0; r < p; r++)
        keys[r] = cs_nodes_world_key(world[r], world_size, block, cyclic);
    return map_of(keys, p, node, nodes, ppn);
}

START_TEST(test_map_shapes)
{
    static const int world[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    cs_nodes m;
    /* blocks of 4: ppn 4 */
    m = map_of_world(world, 12, 12, 4, 0, (const int[]){0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, 3, 4);
    cs_nodes_free(&m);
    /* blocks of 3 at p = 7 and 8: the last node part full, no ppn */
    m = map_of_world(world, 7, 7, 3, 0, (const int[]){0, 0, 0, 1, 1, 1, 2}, 3, 0);
    cs_nodes_free(&m);
    m = map_of_world(world, 8, 8, 3, 0, (const int[]){0, 0, 0, 1, 1, 1, 2, 2}, 3, 0);
    cs_nodes_free(&m);
    /* round robin: 8 ranks on ceil(8 / 3) = 3 nodes, rank i on node i mod 3 */
    m = map_of_world(world, 8, 8, 3, 1, (const int[]){0, 1, 2, 0, 1, 2, 0, 1}, 3, 0);
    cs_nodes_free(&m);
    /* round robin, nodes of 4 at p = 8: two nodes, even and odd ranks */
    m = map_of_world(world, 8, 8, 4, 1, (const int[]){0, 1, 0, 1, 0, 1, 0, 1}, 2, 0);
    cs_nodes_free(&m);
    /* a sub-communicator, the odd world ranks of 8 in blocks of 3: nodes of 1, 2, 1 */
    m = map_of_world((const int[]){1, 3, 5, 7}, 4, 8, 3, 0, (const int[]){0, 1, 1, 2}, 3, 0);
    cs_nodes_free(&m);
    /* ... the even ones dealt round robin to 3 nodes: world 0, 2, 4, 6 on nodes 0, 2, 1, 0 */
    m = map_of_world((const int[]){0, 2, 4, 6}, 4, 8, 3, 1, (const int[]){0, 1, 2, 0}, 3, 0);
    cs_nodes_free(&m);
    /* uneven nodes, keys of any value, a node's ranks not consecutive */
    m = map_of((const int[]){50, 50, 7, 50, 7, 99}, 6, (const int[]){0, 0, 1, 0, 1, 2}, 3, 0);
    cs_nodes_free(&m);
    /* one rank a node: blocks of 1 */
    m = map_of((const int[]){40, 30, 20, 10, 0}, 5, (const int[]){0, 1, 2, 3, 4}, 5, 1);
    cs_nodes_free(&m);
    /* one node: blocks of p; one rank: no ppn */
    m = map_of((const int[]){3, 3, 3}, 3, (const int[]){0, 0, 0}, 1, 3);
    cs_nodes_free(&m);
    m = map_of((const int[]){9}, 1, (const int[]){0}, 1, 0);
    cs_nodes_free(&m);
    /* nodes of one size whose ranks are not consecutive: no ppn */
    m = map_of((const int[]){0, 1, 1, 0}, 4, (const int[]){0, 1, 1, 0}, 2, 0);
    cs_nodes_free(&m);
}
END_TEST

/* A problem of coll at p, bytes, on map (NULL: none). */
static cs_problem problem_on(cs_coll coll, int p, size_t count, const cs_nodes *map)
{
    cs_problem prob = {.coll = coll,
                       .p = p,
                       .count = count,
                       .elem = coll == CS_COLL_ALLTOALL ? 1 : 4,
                       .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_EXACT};
    prob.bytes = prob.count * prob.elem;
    if (map) {
        prob.ppn = map->ppn;
        prob.node = map->node;
        prob.nodes = map->nodes;
    }
    return prob;
}

/* On blocks of one size, every row of every collective, tuned and priced as
 * the decision does (cs_select_price), costs the same to the bit with the
 * map as with its ppn alone (the closed forms of blocks), and the event
 * pricer on the map the same as on ppn; but a row whose closed form sees
 * one level (cs_alg.one_level, the pricer suite), and a k-nomial tree whose
 * rounds straddle the nodes, which the event pricer prices on the map: such
 * a price is the pricer's on the map for the parameters tuned there. */
START_TEST(test_blocks_bit_identical)
{
    static const int ppns[] = {2, 3, 4, 8};
    static const size_t counts[] = {1, 7, 256, 4096, 100000};
    int checked = 0, onmap = 0;
    for (int p = 2; p <= 48; p++)
        for (size_t j = 0; j < sizeof ppns / sizeof ppns[0]; j++) {
            const int ppn = ppns[j];
            if (p % ppn != 0 || ppn >= p)
                continue;
            int keys[48];
            for (int r = 0; r < p; r++)
                keys[r] = r / ppn;
            cs_nodes map = map_of(keys, p, NULL, p / ppn, ppn);
            for (int coll = 0; coll < CS_COLL_LAST; coll++) {
                int n;
                const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
                for (size_t z = 0; z < sizeof counts / sizeof counts[0]; z++) {
                    cs_problem with = problem_on((cs_coll)coll, p, counts[z], &map), without = with;
                    without.node = NULL;
                    without.nodes = 0;
                    for (int a = 0; a < n; a++) {
                        if (!table[a]->cost || table[a]->one_level || cs_alg_restriction(table[a], &with))
                            continue;
                        cs_params pw, po;
                        cs_params_init(&pw);
                        cs_params_init(&po);
                        const double tw = cs_select_price(&nodes_model, table[a], &with, &pw, INFINITY),
                                     to = cs_select_price(&nodes_model, table[a], &without, &po, INFINITY);
                        if (memcmp(&tw, &to, sizeof tw) != 0 && table[a]->build) { /* priced on the map */
                            cs_sched *s = sim_scheds_new(p);
                            for (int r = 0; r < p; r++)
                                ck_assert_int_eq(table[a]->build(&with, &pw, r, &s[r]), 0);
                            const double event =
                                cs_price_critical_path_map(&nodes_model, s, p, map.node, map.nodes, NULL);
                            sim_scheds_free(s, p);
                            ck_assert_msg(fabs(tw / event - 1) < 1e-9, "%s %s p=%d ppn=%d count %zu: %.17g, %.17g",
                                          cs_coll_name((cs_coll)coll), table[a]->name, p, ppn, counts[z], tw, event);
                            onmap++;
                        } else {
                            ck_assert_msg(memcmp(&tw, &to, sizeof tw) == 0, "%s %s p=%d ppn=%d count %zu: %.17g, %.17g",
                                          cs_coll_name((cs_coll)coll), table[a]->name, p, ppn, counts[z], tw, to);
                        }
                        checked++;
                    }
                }
            }
            cs_nodes_free(&map);
        }
    ck_assert_int_gt(checked, 1000);
    ck_assert_int_gt(onmap, 0);
}
END_TEST

START_TEST(test_pricer_blocks_bit_identical)
{
    for (int p = 4; p <= 40; p += 3)
        for (int ppn = 2; ppn <= 5 && ppn < p; ppn++) {
            int keys[40];
            for (int r = 0; r < p; r++)
                keys[r] = r / ppn;
            cs_nodes map = map_of(keys, p, NULL, (p + ppn - 1) / ppn, p % ppn ? 0 : ppn);
            const cs_problem prob = problem_on(CS_COLL_ALLTOALL, p, 1000, NULL);
            cs_params params;
            cs_params_init(&params);
            cs_sched *s = sim_scheds_new(p);
            for (int r = 0; r < p; r++)
                ck_assert_int_eq(cs_alltoall_direct.build(&prob, &params, r, &s[r]), 0);
            const double a = cs_price_critical_path(&nodes_model, s, p, ppn, NULL),
                         b = cs_price_critical_path_map(&nodes_model, s, p, map.node, map.nodes, NULL);
            ck_assert_msg(a == b && a > 0, "p=%d ppn=%d: %.17g, %.17g", p, ppn, a, b);
            sim_scheds_free(s, p);
            cs_nodes_free(&map);
        }
}
END_TEST

/* A ring: rank r sends m bytes to r + 1 and receives from r - 1. */
static cs_sched *ring(int p, size_t m)
{
    cs_sched *s = sim_scheds_new(p);
    for (int r = 0; r < p; r++) {
        cs_sched_round(&s[r]);
        cs_sched_recv(&s[r], (r + p - 1) % p, CS_BUF_RECV, 0, m);
        cs_sched_send(&s[r], (r + 1) % p, CS_BUF_SEND, 0, m);
    }
    return s;
}

/* Ranks dealt round robin to 2 nodes of 4: every neighbour of a ring is on
 * the other node, so every message crosses the nodes' links, 4 each way on
 * each: alpha + 4 m beta_link. On blocks of 4 two messages cross, one on each
 * node's link; priced flat, alpha + beta m. */
START_TEST(test_ring_cyclic_crosses_nodes)
{
    const cs_model *mo = &nodes_model;
    const size_t m = 1 << 20;
    cs_sched *s = ring(8, m);
    cs_nodes cyclic = map_of((const int[]){0, 1, 0, 1, 0, 1, 0, 1}, 8, NULL, 2, 0);
    const double on_map = cs_price_critical_path_map(mo, s, 8, cyclic.node, cyclic.nodes, NULL),
                 blocks = cs_price_critical_path(mo, s, 8, 4, NULL), flat = cs_price_critical_path(mo, s, 8, 0, NULL);
    const double expected = mo->overhead * 2 + mo->alpha + 4 * mo->beta_link * (double)m;
    ck_assert_msg(fabs(on_map - expected) <= 1e-12 * expected, "cyclic: %.17g, expected %.17g", on_map, expected);
    ck_assert_msg(on_map > 3 * blocks && on_map > 3 * flat, "cyclic %.3g, blocks %.3g, flat %.3g", on_map, blocks,
                  flat);
    /* with no link, within a node's level: a message between ranks 0 and 2 of a cyclic map is on the node */
    cs_model no_link = *mo;
    no_link.beta_link = 0.0;
    cs_sched *pair = sim_scheds_new(8);
    for (int r = 0; r < 8; r++)
        cs_sched_round(&pair[r]);
    cs_sched_send(&pair[0], 2, CS_BUF_SEND, 0, m);
    cs_sched_recv(&pair[2], 0, CS_BUF_RECV, 0, m);
    const double near_pair = cs_price_critical_path_map(&no_link, pair, 8, cyclic.node, cyclic.nodes, NULL);
    ck_assert_msg(fabs(near_pair - (mo->overhead + mo->alpha_node + mo->beta_node * (double)m)) <= 1e-15,
                  "0 -> 2 on one node: %.17g", near_pair);
    sim_scheds_free(pair, 8);
    sim_scheds_free(s, 8);
    cs_nodes_free(&cyclic);
}
END_TEST

/* On maps that are not blocks of one size, a row the pricer can price is
 * priced on the map (cs_alg_cost_within): the pricer's critical path of its
 * schedules there, above its flat closed form where the map's nodes make
 * messages dearer. */
START_TEST(test_rows_priced_on_map)
{
    static const int ps[] = {7, 8, 12, 24};
    int dearer = 0, checked = 0;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        for (int cyclic = 0; cyclic < 2; cyclic++) {
            const int p = ps[i];
            int keys[24];
            for (int r = 0; r < p; r++)
                keys[r] = cs_nodes_world_key(r, p, 5, cyclic); /* nodes of 5, the last part full */
            cs_nodes map;
            ck_assert_int_eq(cs_nodes_from_keys(&map, keys, p), 0);
            ck_assert_int_eq(map.ppn, 0);
            for (int coll = 0; coll < CS_COLL_LAST; coll++) {
                int n;
                const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
                cs_problem prob = problem_on((cs_coll)coll, p, 65536, &map), flat = prob;
                flat.node = NULL;
                ck_assert(cs_model_map_uneven(&nodes_model, &prob));
                for (int a = 0; a < n; a++) {
                    if (!table[a]->build || !table[a]->cost || cs_alg_restriction(table[a], &prob))
                        continue;
                    cs_params params;
                    cs_params_init(&params);
                    const double t = cs_select_price(&nodes_model, table[a], &prob, &params, INFINITY);
                    cs_sched *s = sim_scheds_new(p);
                    for (int r = 0; r < p; r++)
                        ck_assert_int_eq(table[a]->build(&prob, &params, r, &s[r]), 0);
                    const double event = cs_price_critical_path_map(&nodes_model, s, p, map.node, map.nodes, NULL);
                    sim_scheds_free(s, p);
                    ck_assert_msg(t == event, "%s %s p=%d: %.17g, pricer %.17g", cs_coll_name((cs_coll)coll),
                                  table[a]->name, p, t, event);
                    dearer += t > table[a]->cost(&nodes_model, &flat, &params);
                    checked++;
                }
            }
            cs_nodes_free(&map);
        }
    ck_assert_int_gt(checked, 50);
    ck_assert_int_ge(dearer, checked * 3 / 4);
}
END_TEST

/* Pricing mode (a rank's sum over its rounds, the reduction engine's) sees
 * the map too: a message to a rank of another node costs alpha, one to a
 * rank of its own node alpha_node, whatever their numbers. */
START_TEST(test_price_mode_on_map)
{
    cs_nodes map = map_of((const int[]){0, 1, 0, 1, 0, 1}, 6, NULL, 2, 0);
    const cs_problem prob = problem_on(CS_COLL_REDUCE, 6, 1, &map);
    cs_model mo = nodes_model;
    mo.overhead = 0.0;
    mo.beta_link = 0.0;
    const size_t m = 1000;
    for (int peer = 1; peer < 6; peer++) {
        cs_sched s;
        cs_sched_init(&s);
        cs_sched_price_start(&s, &mo);
        cs_sched_price_node(&s, 0, &prob, 1);
        cs_sched_send(&s, peer, CS_BUF_SEND, 0, m);
        const double t = cs_sched_price_total(&s),
                     expected = peer % 2 ? mo.alpha + mo.beta * (double)m : mo.alpha_node + mo.beta_node * (double)m;
        ck_assert_msg(fabs(t - expected) <= 1e-18, "0 -> %d: %.17g, expected %.17g", peer, t, expected);
        cs_sched_free(&s);
    }
    cs_nodes_free(&map);
}
END_TEST

/* Every world size to 128 and node size, both placements: the world ranks
 * cs_nodes_world_count says a node holds are the ranks cs_nodes_world_key
 * puts there, counted rank by rank. */
START_TEST(test_world_counts)
{
    int tally[130];
    for (int w = 1; w <= 128; w++)
        for (int block = 1; block <= w + 1; block++)
            for (int cyclic = 0; cyclic < 2; cyclic++) {
                memset(tally, 0, sizeof tally);
                for (int i = 0; i < w; i++)
                    tally[cs_nodes_world_key(i, w, block, cyclic)]++;
                for (int i = 0; i < w; i++) {
                    const int key = cs_nodes_world_key(i, w, block, cyclic);
                    ck_assert_msg(cs_nodes_world_count(key, w, block, cyclic) == tally[key],
                                  "w=%d block=%d cyclic=%d node %d: %d, counted %d", w, block, cyclic, key,
                                  cs_nodes_world_count(key, w, block, cyclic), tally[key]);
                }
            }
}
END_TEST

/* A communicator's share of its nodes' links (cs_nodes.share): a column of
 * a grid on nodes of 8, one rank a node: 8; half of each node of 4: 2; a
 * node holding 3 of its 8 and another all 8: 3 (the most); the world's
 * ranks not known: alone; the world itself: alone. */
START_TEST(test_share)
{
    static const struct {
        int p, keys[8], world[8], share;
    } cases[] = {
        {6, {0, 1, 2, 3, 4, 5}, {8, 8, 8, 8, 8, 8}, 8},
        {4, {0, 0, 1, 1}, {4, 4, 4, 4}, 2},
        {8, {0, 0, 0, 1, 1, 1, 1, 1}, {8, 8, 8, 5, 5, 5, 5, 5}, 3},
        {3, {0, 1, 2}, {0, 0, 0}, 1},
        {8, {0, 0, 0, 0, 1, 1, 1, 1}, {4, 4, 4, 4, 4, 4, 4, 4}, 1},
        {5, {0, 0, 0, 0, 1}, {4, 4, 4, 4, 1}, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cs_nodes map;
        ck_assert_int_eq(cs_nodes_from_keys(&map, cases[i].keys, cases[i].p), 0);
        ck_assert_int_eq(map.share, 1);
        cs_nodes_set_share(&map, cases[i].world, cases[i].p);
        ck_assert_msg(map.share == cases[i].share, "case %zu: share %d, expected %d", i, map.share, cases[i].share);
        cs_nodes_free(&map);
    }
}
END_TEST

/*
 * A column of a process grid, one rank a node, beside 7 other columns on
 * nodes of 8 (share 8): each byte off the node waits for the other columns'
 * on the node's link, share * beta_link. Every row of every collective is
 * priced as on one level whose beta is that (the link binds: 8e-9 s/B
 * against beta's 2e-10), but a row whose closed form is a rank's sum, which
 * the event pricer prices on the map (cs_alg_column_on_map); the event
 * pricer on the map agrees with the pricer on that level (within 2%: it
 * queues the rank's own beta too); alone (share 1) a column is priced as
 * before, to the bit.
 */
START_TEST(test_column_shares_link)
{
    static const int ps[] = {2, 5, 6, 8, 12};
    int checked = 0;
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        const int p = ps[i];
        int keys[12];
        for (int r = 0; r < p; r++)
            keys[r] = r;
        cs_nodes map;
        ck_assert_int_eq(cs_nodes_from_keys(&map, keys, p), 0);
        ck_assert_int_eq(map.ppn, 1);
        for (int coll = 0; coll < CS_COLL_LAST; coll++) {
            int n;
            const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
            cs_problem column = problem_on((cs_coll)coll, p, 1 << 18, &map), alone = column, flat = column;
            column.share = 8;
            alone.share = 1;
            flat.node = NULL;
            flat.ppn = flat.nodes = 0;
            const cs_model shared = cs_model_shared(&nodes_model, &column);
            cs_model level = nodes_model;
            level.beta = 8 * nodes_model.beta_link;
            level.beta_link = 0.0;
            level.node_levels = 0;
            for (int a = 0; a < n; a++) {
                if (!table[a]->build || !table[a]->cost || cs_alg_restriction(table[a], &column))
                    continue;
                cs_params params, flat_params, alone_params, base_params;
                cs_params_init(&params);
                cs_params_init(&flat_params);
                cs_params_init(&alone_params);
                cs_params_init(&base_params);
                const double t = cs_select_price(&shared, table[a], &column, &params, INFINITY);
                cs_sched *s = sim_scheds_new(p);
                for (int r = 0; r < p; r++)
                    ck_assert_int_eq(table[a]->build(&column, &params, r, &s[r]), 0);
                const double event = cs_price_critical_path_map(&shared, s, p, map.node, map.nodes, NULL),
                             event_level = cs_price_critical_path(&level, s, p, 0, NULL);
                sim_scheds_free(s, p);
                /* a row whose closed form is a rank's sum: the pricer's on the map (cs_alg_column_on_map) */
                const double expected = cs_alg_column_on_map(table[a], &shared, &column)
                                            ? event
                                            : cs_select_price(&level, table[a], &flat, &flat_params, INFINITY);
                ck_assert_msg(fabs(t - expected) <= 1e-9 * expected, "%s %s p=%d: %.17g, one level %.17g",
                              cs_coll_name((cs_coll)coll), table[a]->name, p, t, expected);
                ck_assert_msg(fabs(event - event_level) <= 0.02 * event_level,
                              "%s %s p=%d: pricer %.17g, one level %.17g", cs_coll_name((cs_coll)coll), table[a]->name,
                              p, event, event_level);
                const cs_model unshared = cs_model_shared(&nodes_model, &alone);
                cs_problem base = alone;
                base.share = 0;
                ck_assert(cs_select_price(&unshared, table[a], &alone, &alone_params, INFINITY) ==
                          cs_select_price(&nodes_model, table[a], &base, &base_params, INFINITY));
                checked++;
            }
        }
        cs_nodes_free(&map);
    }
    ck_assert_int_gt(checked, 50);
}
END_TEST

Suite *make_nodes_suite(void)
{
    Suite *s = suite_create("nodes");
    TCase *tc = tcase_create("nodes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_map_shapes);
    tcase_add_test(tc, test_blocks_bit_identical);
    tcase_add_test(tc, test_pricer_blocks_bit_identical);
    tcase_add_test(tc, test_ring_cyclic_crosses_nodes);
    tcase_add_test(tc, test_rows_priced_on_map);
    tcase_add_test(tc, test_price_mode_on_map);
    tcase_add_test(tc, test_world_counts);
    tcase_add_test(tc, test_share);
    tcase_add_test(tc, test_column_shares_link);
    suite_add_tcase(s, tc);
    return s;
}
