/*
 * Calibration without MPI: the least-squares fit recovers known costs from
 * synthetic times (model/fit.h; o and alpha from k-way round trips that the
 * pricer prices), measured cells become choices and rules
 * (tools/calibrate/derive.h), and the configuration collshim-calibrate
 * writes loads back into the same values and the same decisions
 * (cs_config_write).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "calibrate/derive.h"
#include "calibrate/distance.h"
#include "calibrate/summary.h"
#include "config/config.h"
#include "config/library_rules.h"
#include "config/config_internal.h"
#include "config/config_yaml.h"
#include "model/fit.h"
#include "sched/pricer.h"
#include "select/select.h"
#include "sim.h"

Suite *make_calibrate_suite(void);

#define NELEMS(a) (int)(sizeof(a) / sizeof((a)[0]))

static const double sizes[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};

/* ---- the loaded ping-pong's pairs ---------------------------------------- */

/* Rank r's node in layout: block (4 a node), round robin over 3, uneven (5,
 * 1, the rest), one rank a node, one node. */
static int layout_node(int layout, int r)
{
    switch (layout) {
    case 0: return r / 4;
    case 1: return r % 3;
    case 2: return r < 5 ? 0 : r < 6 ? 1 : 2;
    case 3: return r;
    default: return 0;
    }
}

/* Every layout: within nodes (cs_cal_node_pairs), each pair is two ranks of
 * one node, peer is symmetric, a node's ranks pair up in rank order (its
 * 2i-th with its 2i+1-th) with an odd one out waiting, and rank 0's partner
 * is its node's second; across nodes (cs_cal_cross_node_pairs), the k-th
 * node's i-th rank with the (k ^ 1)-th node's i-th, a rank waiting only
 * where that node is missing or smaller, and rank 0's partner the first
 * rank off its node. */
START_TEST(test_node_pairs)
{
    enum { P = 37 };
    int node_of[P], pending[P], peer[P], index[P], count[P];
    for (int layout = 0; layout < 5; layout++)
        for (int p = 1; p <= P; p++) {
            for (int r = 0; r < p; r++) {
                node_of[r] = r; /* the node's first rank names it */
                for (int q = 0; q < r; q++)
                    if (layout_node(layout, q) == layout_node(layout, r)) {
                        node_of[r] = q;
                        break;
                    }
                count[r] = 0;
            }
            cs_cal_node_pairs(node_of, p, pending, peer);
            for (int r = 0; r < p; r++)
                index[r] = count[node_of[r]]++; /* r's place among its node's ranks */
            for (int r = 0; r < p; r++) {
                if (peer[r] < 0) {
                    ck_assert_msg(index[r] % 2 == 0 && index[r] == count[node_of[r]] - 1,
                                  "layout %d p %d: rank %d waits, the %d-th of %d", layout, p, r, index[r],
                                  count[node_of[r]]);
                    continue;
                }
                ck_assert_int_lt(peer[r], p);
                ck_assert_int_eq(peer[peer[r]], r);
                ck_assert_int_eq(node_of[peer[r]], node_of[r]);
                ck_assert_int_eq(index[peer[r]], index[r] ^ 1);
            }
            if (count[0] > 1)
                ck_assert_int_eq(index[peer[0]], 1);

            /* across nodes: the nodes in order of their first ranks pair up, i-th rank with i-th */
            int ord[P], scratch[4 * P + 1], nodes = 0, off = -1;
            for (int r = 0; r < p; r++) {
                ord[r] = node_of[r] == r ? nodes++ : ord[node_of[r]];
                if (off < 0 && node_of[r] != 0)
                    off = r;
            }
            cs_cal_cross_node_pairs(node_of, p, scratch, peer);
            for (int r = 0; r < p; r++) {
                const int mate = ord[r] ^ 1; /* the partner node's ordinal */
                int mate_size = 0;
                for (int q = 0; q < p; q++)
                    mate_size += ord[q] == mate;
                if (peer[r] < 0) {
                    ck_assert_msg(mate >= nodes || index[r] >= mate_size,
                                  "layout %d p %d: rank %d waits, its node's partner has %d ranks", layout, p, r,
                                  mate_size);
                    continue;
                }
                ck_assert_int_eq(peer[peer[r]], r);
                ck_assert_int_eq(ord[peer[r]], mate);
                ck_assert_int_eq(index[peer[r]], index[r]);
            }
            ck_assert_int_eq(peer[0], off);
        }
}
END_TEST

/* The network's blocks from rank 0's latencies: a fat tree's leaf (2 links,
 * then 4; with a third level 6), and none on a hypercube (a hop per address
 * bit), one switch, or blocks that do not divide p; under noise too. */
static double tree_latency(int r, int leaf, int pod, double noise)
{
    const double sign = r % 2 ? 1.0 : -1.0;
    const int links = r < leaf ? 2 : r < pod ? 4 : 6;
    return links * 1e-6 * (1.0 + sign * noise);
}

START_TEST(test_latency_block)
{
    enum { P = 256 };
    double lat[P];
    for (int n = 0; n < 3; n++) {
        const double noise = 0.05 * n; /* up to 10%: the step is 2x */
        for (int r = 1; r < P; r++)
            lat[r] = tree_latency(r, 8, P, noise);
        double near, far;
        ck_assert_int_eq(cs_cal_latency_block(lat, 64, &near, &far), 8);
        ck_assert(near == 2e-6 * (1 + noise) && far == 4e-6 * (1 - noise)); /* odd ranks above, even below */
        ck_assert_int_eq(cs_cal_latency_block(lat, 8, NULL, NULL), 0);      /* one leaf: no step */
        ck_assert_int_eq(cs_cal_latency_block(lat, 60, NULL, NULL), 0);     /* blocks of 8 do not divide 60 */
        for (int r = 1; r < P; r++)
            lat[r] = tree_latency(r, 16, 64, noise);
        ck_assert_int_eq(cs_cal_latency_block(lat, 128, NULL, NULL), 16); /* the first step: the leaf */
        for (int r = 1; r < P; r++)
            lat[r] = __builtin_popcount((unsigned)r) * 1e-6 * (1.0 + (r % 2 ? noise : -noise));
        ck_assert_int_eq(cs_cal_latency_block(lat, 64, NULL, NULL), 0);
        ck_assert_int_eq(cs_cal_latency_block(lat, 256, NULL, NULL), 0);
        for (int r = 1; r < P; r++)
            lat[r] = 1e-6 * (1.0 + (r % 2 ? noise : -noise));
        ck_assert_int_eq(cs_cal_latency_block(lat, 64, NULL, NULL), 0);
    }
    for (int r = 1; r < P; r++) /* a step of 1.2: below CS_CAL_BLOCK_STEP, no block */
        lat[r] = r < 8 ? 1e-6 : 1.2e-6;
    ck_assert_int_eq(cs_cal_latency_block(lat, 64, NULL, NULL), 0);
}
END_TEST

/* Distance (distance.h): rank 0's latency to every rank and the extra pairs
 * of a network whose latency follows the XOR of the ranks (a hypercube, 1 us
 * a link), their difference (a line), or neither (one switch with noise; a
 * fat tree's leaf switches at a p that is no multiple of them, two levels
 * the node map takes), up to 5% of noise: the fit finds the form and its
 * hop, and none where there is none. */
enum { DIST_FLAT = 10, DIST_TREE }; /* forms besides CS_DISTANCE_XOR and _DIFFERENCE */
static double dist_latency(int form, int a, int b, double noise)
{
    const double sign = (a * 7 + b * 3) % 2 ? 1.0 : -1.0;
    double t;
    if (form == CS_DISTANCE_XOR || form == CS_DISTANCE_DIFFERENCE)
        t = 1.2e-6 + 1e-6 * (double)(cs_hops(form, a, b) - 1);
    else if (form == DIST_TREE)
        t = a / 8 == b / 8 ? 2e-6 : 4e-6;
    else
        t = 2e-6;
    return t * (1.0 + sign * noise);
}

static int dist_fit(int form, int p, double noise, cs_cal_distance_fit *fit)
{
    cs_cal_pair_latency s[300];
    int pair[8][2], n = 0;
    const int extra = cs_cal_distance_pairs(p, pair, 8);
    ck_assert(extra >= 3 && p - 1 + extra <= 300);
    for (int r = 1; r < p; r++, n++)
        s[n] = (cs_cal_pair_latency){0, r, dist_latency(form, 0, r, noise)};
    for (int i = 0; i < extra; i++, n++) {
        ck_assert(pair[i][0] > 0 && pair[i][1] > 0 && pair[i][0] < p && pair[i][1] < p);
        s[n] = (cs_cal_pair_latency){pair[i][0], pair[i][1], dist_latency(form, pair[i][0], pair[i][1], noise)};
    }
    return cs_cal_distance_fit_of(s, n, fit);
}

START_TEST(test_distance_fit)
{
    static const int ps[] = {5, 12, 48, 64, 192, 256};
    cs_cal_distance_fit fit;
    for (int k = 0; k < NELEMS(ps); k++)
        for (int i = 0; i < 3; i++) {
            const double noise = 0.025 * i;
            ck_assert_int_eq(dist_fit(CS_DISTANCE_XOR, ps[k], noise, &fit), CS_DISTANCE_XOR);
            ck_assert_msg(fabs(fit.alpha_hop - 1e-6) < 0.15e-6 && fabs(fit.alpha - 1.2e-6) < 0.15e-6,
                          "p %d noise %g: hop %g alpha %g", ps[k], noise, fit.alpha_hop, fit.alpha);
            ck_assert_int_eq(dist_fit(CS_DISTANCE_DIFFERENCE, ps[k], noise, &fit), CS_DISTANCE_DIFFERENCE);
            ck_assert(fabs(fit.alpha_hop - 1e-6) < 0.15e-6);
            ck_assert_int_eq(dist_fit(DIST_FLAT, ps[k], noise, &fit), CS_DISTANCE_NONE);
            ck_assert(fit.alpha_hop == 0.0);
            if (ps[k] > 8)
                ck_assert_int_eq(dist_fit(DIST_TREE, ps[k] + 3, noise, &fit), CS_DISTANCE_NONE);
        }
    ck_assert_int_eq(dist_fit(CS_DISTANCE_XOR, 64, 0.3, &fit), CS_DISTANCE_NONE); /* noise past the fit's bound */
    int pair[8][2];
    ck_assert_int_eq(cs_cal_distance_pairs(2, pair, 8), 0); /* two ranks: rank 0's one pair is all */
    ck_assert_int_eq(cs_cal_distance_pairs(48, pair, 2), 2);
    ck_assert(pair[0][0] == 31 && pair[0][1] == 32); /* 6 bits, 1 apart */
}
END_TEST

/* A receive posted late: a block that waited for it (rendezvous) against one
 * that was in (eager), on a shared-memory node (a copy is a third of a
 * message's beta) and under SimGrid (no o, no copy: any time waited). */
START_TEST(test_late_waited)
{
    const double a = 3e-7, b = 1.5e-10, o = 1e-7, rho = 5e-11;
    for (size_t m = 1; m <= ((size_t)1 << 22); m *= 4) {
        const double eager = o + rho * (double)m, waits = a + b * (double)m;
        ck_assert_msg(!cs_cal_late_waited(eager * 1.2, a, b, o, rho, m), "eager %zu B", m);
        ck_assert_msg(cs_cal_late_waited(waits * 0.9, a, b, o, rho, m), "rendezvous %zu B", m);
        ck_assert(cs_cal_late_waited(2e-6 + 1e-10 * (double)m, 2e-6, 1e-10, 0.0, 0.0, m));
        ck_assert(!cs_cal_late_waited(0.0, 2e-6, 1e-10, 0.0, 0.0, m));
    }
}
END_TEST

/* ---- the fit -------------------------------------------------------------- */

static const struct fit_case {
    double alpha, beta, noise; /* noise: relative, alternating sign */
} fit_cases[] = {
    {1e-6, 2e-10, 0},    {2.5e-6, 1e-9, 0},    {1.5e-7, 8e-11, 0},  {5e-5, 1e-8, 0},
    {1e-6, 2e-10, 0.02}, {2.5e-6, 1e-9, 0.05}, {3e-7, 1e-10, 0.01},
};

START_TEST(test_fit_recovers)
{
    const struct fit_case *c = &fit_cases[_i];
    double t[NELEMS(sizes)];
    cs_fit f;
    for (int i = 0; i < NELEMS(sizes); i++)
        t[i] = (c->alpha + c->beta * sizes[i]) * (1.0 + (i % 2 ? c->noise : -c->noise));
    ck_assert_int_eq(cs_fit_line(sizes, t, NELEMS(sizes), &f), 0);
    const double tol = c->noise == 0 ? 1e-9 : 2 * c->noise;
    ck_assert_msg(fabs(f.a / c->alpha - 1) <= tol, "alpha %g, fitted %g", c->alpha, f.a);
    ck_assert_msg(fabs(f.b / c->beta - 1) <= tol, "beta %g, fitted %g", c->beta, f.b);
    ck_assert_int_eq(f.n, NELEMS(sizes));
    ck_assert_int_eq(f.clamped, 0);
    ck_assert(f.max_residual <= c->noise * 1.5 + 1e-9);
    if (c->noise == 0)
        ck_assert(f.r2 > 1 - 1e-12 && f.rms_residual < 1e-9);
    else
        ck_assert(f.r2 > 0.99 && f.r2 < 1.0);
}
END_TEST

/* Relative weights: a small-size alpha is found under a large-size beta
 * where plain least squares would lose it in the big times' noise. */
START_TEST(test_fit_weights_small_sizes)
{
    double t[NELEMS(sizes)];
    cs_fit f;
    for (int i = 0; i < NELEMS(sizes); i++)
        t[i] = 1e-6 + 1e-9 * sizes[i] * (sizes[i] >= 1048576 ? 1.01 : 1.0); /* 1% off at the top */
    ck_assert_int_eq(cs_fit_line(sizes, t, NELEMS(sizes), &f), 0);
    ck_assert_msg(fabs(f.a / 1e-6 - 1) < 0.05, "alpha fitted %g", f.a);
}
END_TEST

START_TEST(test_fit_clamps)
{
    /* Times that a free line would meet with a negative intercept. */
    const double x[] = {1000, 2000, 4000}, t[] = {0.5e-6, 1.6e-6, 3.9e-6};
    cs_fit f;
    ck_assert_int_eq(cs_fit_line(x, t, 3, &f), 0);
    ck_assert(f.a == 0.0 && f.b > 0.0 && f.clamped == 1);
    /* and a falling one: a constant */
    const double t2[] = {3e-6, 2.9e-6, 2.8e-6};
    ck_assert_int_eq(cs_fit_line(x, t2, 3, &f), 0);
    ck_assert(f.b == 0.0 && fabs(f.a - 2.9e-6) < 0.1e-6 && f.clamped == 1);
}
END_TEST

START_TEST(test_fit_refuses)
{
    const double x[] = {8, 8, 8}, t[] = {1e-6, 1.1e-6, 0.9e-6}, bad[] = {1e-6, 0, 2e-6};
    const double x2[] = {8, 64, 512};
    cs_fit f;
    ck_assert_int_eq(cs_fit_line(x, t, 3, &f), -1);    /* every x the same */
    ck_assert_int_eq(cs_fit_line(x2, t, 1, &f), -1);   /* one point */
    ck_assert_int_eq(cs_fit_line(x2, bad, 3, &f), -1); /* a time of 0 */
    ck_assert_int_eq(cs_fit_slope(x2, bad, 3, &f), -1);
}
END_TEST

START_TEST(test_fit_slope)
{
    const double x[] = {4 << 20, 16 << 20, 32 << 20};
    const double t[] = {4e-4 * 1.01, 16e-4 * 0.99, 32e-4};
    cs_fit f;
    ck_assert_int_eq(cs_fit_slope(x, t, 3, &f), 0);
    ck_assert(f.a == 0.0 && fabs(f.b * (1 << 20) / 1e-4 - 1) < 0.01);
}
END_TEST

/* ---- o from k-way round trips --------------------------------------------- */

static const struct overhead_case {
    double alpha, o, noise;
} overhead_cases[] = {
    {1e-6, 1e-7, 0}, {5e-7, 2e-7, 0},   {2e-6, 0, 0},       {3e-6, 5e-8, 0},
    {4e-5, 1e-6, 0}, {3e-7, 1.6e-7, 0}, {1e-6, 1e-7, 0.01}, {3e-7, 1.6e-7, 0.02},
};

/* Half of what the pricer charges for collshim-calibrate's round trip of k
 * 8-byte messages (measure.h: cs_cal_fan), as rounds: rank 0 sends k to
 * rank 1, then receives k; rank 1 receives k, then sends them back. */
static double priced_round_trip(const cs_model *mo, int k)
{
    cs_sched *s = sim_scheds_new(2);
    for (int r = 0; r < 2; r++)
        cs_sched_round(&s[r]);
    for (int j = 0; j < k; j++) {
        cs_sched_send(&s[0], 1, CS_BUF_SEND, 0, 8);
        cs_sched_recv(&s[1], 0, CS_BUF_RECV, (size_t)j * 8, 8);
    }
    for (int r = 0; r < 2; r++)
        cs_sched_round(&s[r]);
    for (int j = 0; j < k; j++) {
        cs_sched_recv(&s[0], 1, CS_BUF_RECV, (size_t)j * 8, 8);
        cs_sched_send(&s[1], 0, CS_BUF_RECV, (size_t)j * 8, 8);
    }
    const double t = cs_price_critical_path(mo, s, 2, 0, NULL);
    sim_scheds_free(s, 2);
    return t / 2;
}

/* The pricer's round trips are alpha + k o (beta aside), for k = 1..16:
 * the line collshim-calibrate fits gives alpha and o back; with noise,
 * within twice it. */
START_TEST(test_fit_overhead)
{
    const struct overhead_case *c = &overhead_cases[_i];
    const cs_model mo = {.alpha = c->alpha, .overhead = c->o};
    double k[5], t[5];
    cs_fit f;
    for (int i = 0; i < 5; i++) {
        k[i] = 1 << i;
        t[i] = priced_round_trip(&mo, 1 << i) * (1.0 + (i % 2 ? c->noise : -c->noise));
        if (c->noise == 0)
            ck_assert_msg(fabs(t[i] / (c->alpha + k[i] * c->o) - 1) < 1e-9, "k = %g: priced %g", k[i], t[i]);
    }
    ck_assert_int_eq(cs_fit_line(k, t, 5, &f), 0);
    const double tol = c->noise == 0 ? 1e-9 : 2 * c->noise;
    ck_assert_msg(fabs(f.a - c->alpha) <= tol * c->alpha, "alpha %g, fitted %g", c->alpha, f.a);
    ck_assert_msg(fabs(f.b - c->o) <= tol * (c->alpha + c->o) + 1e-18, "o %g, fitted %g", c->o, f.b);
}
END_TEST

/* Messages that do not overlap (each pays alpha: t = k*alpha) show as a
 * slope as large as alpha; a network whose distance grows with k (the k-th
 * of k peers on a hypercube is log2 k hops away) would have shown as an o
 * where there is none, which is why the k messages go to one peer. */
START_TEST(test_fit_overhead_no_overlap)
{
    const double k[] = {1, 2, 4, 8}, t[] = {1e-6, 2e-6, 4e-6, 8e-6};
    cs_fit f;
    ck_assert_int_eq(cs_fit_line(k, t, 4, &f), 0);
    ck_assert_msg(fabs(f.b - 1e-6) < 1e-15 && fabs(f.a) < 1e-15, "alpha %g, o %g", f.a, f.b);
    ck_assert_int_eq(cs_fit_line(k, t, 1, &f), -1);
}
END_TEST

/* ---- cells, choices, rules ------------------------------------------------ */

START_TEST(test_ratio_noise)
{
    double tight[] = {0.80, 0.81, 0.79, 0.80, 0.82}, wide[] = {0.5, 0.9, 1.3, 0.7, 1.1};
    cs_cal_ratio r = cs_cal_ratio_of(tight, NELEMS(tight), 0.03);
    ck_assert(fabs(r.median - 0.80) < 1e-12 && r.noise == 0.03);
    ck_assert(cs_cal_faster(r) && !cs_cal_slower(r));
    r = cs_cal_ratio_of(wide, NELEMS(wide), 0.03);
    /* quartiles 0.7 and 1.1: half the IQR over the median 0.9 */
    ck_assert(fabs(r.median - 0.9) < 1e-12 && fabs(r.noise - 0.2 / 0.9) < 1e-12);
    ck_assert(!cs_cal_faster(r) && !cs_cal_slower(r));
    double even[] = {4, 1, 3, 2};
    ck_assert(cs_cal_quantile(even, 4, 0.5) == 2.5 && even[0] == 1); /* sorted in place */
}
END_TEST

extern const cs_alg cs_allreduce_butterfly, cs_allreduce_elimination, cs_allreduce_ring;
#define R(m) ((cs_cal_ratio){(m), 0.05})

/* A cell: its best and the model's choice, best/native, model/best, model/native. */
static cs_cal_cell cell(int p, size_t bytes, const cs_alg *best, const cs_alg *model, double bn, double mb)
{
    return (cs_cal_cell){.p = p,
                         .bytes = bytes,
                         .best = best,
                         .model = model,
                         .best_native = R(bn),
                         .model_best = R(mb),
                         .model_native = R(bn * mb)};
}

/* Paired ratios of two ways of timing: the worse for a decides. A tree whose
 * leaves run ahead: back to back 0.75 of the library, from a common start
 * 1.10 (slower beyond 3%); and the reverse. */
START_TEST(test_ratio_worse)
{
    const double lib_loop[] = {1.0, 2.0, 1.0, 1.0, 1.0}, ours_loop[] = {0.75, 1.5, 0.75, 0.76, 0.74};
    const double lib_start[] = {2.0, 2.0, 4.0, 2.0, 2.0}, ours_start[] = {2.2, 2.2, 4.4, 2.2, 2.18};
    cs_cal_ratio r = cs_cal_ratio_paired(ours_loop, lib_loop, 5, 0.03);
    ck_assert(fabs(r.median - 0.75) < 1e-12 && cs_cal_faster(r));
    r = cs_cal_ratio_worse(ours_loop, lib_loop, ours_start, lib_start, 5, 0.03);
    ck_assert_msg(fabs(r.median - 1.1) < 1e-12 && cs_cal_slower(r), "median %g", r.median);
    r = cs_cal_ratio_worse(ours_start, lib_start, ours_loop, lib_loop, 5, 0.03);
    ck_assert(fabs(r.median - 1.1) < 1e-12);
    r = cs_cal_ratio_worse(ours_loop, lib_loop, ours_loop, lib_loop, 5, 0.03); /* one timing (SMPI, --target 0) */
    ck_assert(fabs(r.median - 0.75) < 1e-12 && r.noise == 0.03);
    /* the library against ours: the worse for the library is back to back, 1/0.75 */
    r = cs_cal_ratio_worse(lib_loop, ours_loop, lib_start, ours_start, 5, 0.03);
    ck_assert_msg(fabs(r.median - 1 / 0.75) < 1e-12, "median %g", r.median);
}
END_TEST

START_TEST(test_cell_choice)
{
    const cs_alg *E = &cs_allreduce_elimination, *G = &cs_allreduce_ring, *alg;
    const char *why;
    const struct {
        cs_cal_cell c;
        cs_choice want;
        const cs_alg *alg;
    } cases[] = {
        {cell(3, 8, E, E, 0.7, 1.0), CS_CHOICE_AUTO, NULL},   /* the model's choice is the best */
        {cell(3, 8, E, G, 0.7, 1.03), CS_CHOICE_AUTO, NULL},  /* another, within the noise */
        {cell(3, 8, E, G, 0.7, 1.2), CS_CHOICE_FORCED, E},    /* the model's lost */
        {cell(3, 8, E, E, 1.2, 1.0), CS_CHOICE_NATIVE, NULL}, /* the library is faster */
        /* slower within the noise only: unsure, the library (a node's binomial reduce of 8 B
         * measured 1.04 and 1.01 in calibration, 1.14 back to back beside the library) */
        {cell(3, 8, E, E, 1.04, 1.0), CS_CHOICE_NATIVE, NULL},
        {cell(3, 8, E, G, 1.03, 1.04), CS_CHOICE_NATIVE, NULL},
        {cell(3, 8, E, G, 0.93, 1.04), CS_CHOICE_FORCED, E},    /* the model's, near the best, not below native */
        {cell(3, 8, NULL, NULL, 1, 1), CS_CHOICE_NATIVE, NULL}, /* none of ours ran */
        {cell(3, 8, E, NULL, 0.7, 1.0), CS_CHOICE_FORCED, E},   /* the model's pick, but select keeps the library */
        /* faster within the noise only: unsure too, the library (such rules verified slower) */
        {cell(3, 8, E, G, 0.97, 1.0), CS_CHOICE_NATIVE, NULL},
        {cell(3, 8, E, E, 0.96, 1.0), CS_CHOICE_NATIVE, NULL},
    };
    for (int i = 0; i < NELEMS(cases); i++) {
        ck_assert_int_eq(cs_cal_cell_choice(&cases[i].c, &alg, &why), cases[i].want);
        ck_assert_ptr_eq(alg, cases[i].alg);
        ck_assert(why && *why);
    }
    /* The words follow the numbers: a model's choice that measured as fast as the best of ours did
     * not lose (it lost to the library, or the margin kept the library). */
    cs_cal_cell_choice(&cases[6].c, &alg, &why);
    ck_assert_msg(!strstr(why, "lost") && strstr(why, "no faster than the library"), "%s", why);
    cs_cal_cell_choice(&cases[8].c, &alg, &why);
    ck_assert_msg(!strstr(why, "lost") && strstr(why, "model.margin"), "%s", why);
    cs_cal_cell_choice(&cases[2].c, &alg, &why);
    ck_assert_msg(strstr(why, "the model's choice measured slower than the best of ours"), "%s", why);
    ck_assert(fabs(cs_cal_cell_gain(&cases[0].c) - 0.7) < 1e-12); /* auto: the model's measured ratio */
    ck_assert(fabs(cs_cal_cell_gain(&cases[2].c) - 0.7) < 1e-12); /* forced: the best's */
    ck_assert(cs_cal_cell_gain(&cases[3].c) == 1.0);              /* the library */
}
END_TEST

/* A verdict follows its numbers: 1.62 +- 18.7 is inconclusive, not ok; 1.62 +- 0.05 slower. */
START_TEST(test_verdict)
{
    const struct {
        double median, noise;
        cs_cal_verdict want;
    } cases[] = {
        {1.62, 18.7, CS_CAL_NOISY}, {1.62, 0.05, CS_CAL_SLOWER}, {1.01, 0.03, CS_CAL_AS_FAST},
        {0.8, 0.05, CS_CAL_FASTER}, {0.9, 0.2, CS_CAL_NOISY},    {1.04, 0.05, CS_CAL_AS_FAST},
    };
    for (int i = 0; i < NELEMS(cases); i++) {
        const cs_cal_ratio r = {.median = cases[i].median, .noise = cases[i].noise};
        ck_assert_int_eq(cs_cal_verdict_of(r, 0.05), cases[i].want);
    }
    ck_assert_str_eq(cs_cal_verdict_name(CS_CAL_NOISY), "inconclusive (noisy)");
    ck_assert_str_eq(cs_cal_verdict_name(CS_CAL_SLOWER), "slower");
}
END_TEST

START_TEST(test_rules_bands_and_p)
{
    const cs_alg *E = &cs_allreduce_elimination, *G = &cs_allreduce_ring, *B = &cs_allreduce_butterfly;
    /* p = 3 and 4 measure alike (one rule set for [3, 4]); p = 6 differs; p = 7
     * is like 6, but 5 was not measured between 4 and 6: no rule covers 5. */
    const cs_cal_cell cells[] = {
        cell(3, 8, E, E, 0.7, 1),   cell(3, 512, E, E, 0.7, 1), cell(3, 32768, E, E, 1.3, 1),
        cell(4, 8, B, E, 0.7, 1),   cell(4, 512, E, E, 0.7, 1), cell(4, 32768, E, E, 1.3, 1),
        cell(6, 8, E, G, 0.7, 1.5), cell(6, 512, E, E, 0.7, 1), cell(6, 32768, E, E, 0.9, 1),
        cell(7, 8, E, G, 0.7, 1.5), cell(7, 512, E, E, 0.7, 1), cell(7, 32768, E, E, 0.9, 1),
    };
    cs_rule rules[CS_MAX_RULES];
    int cut;
    const int n = cs_cal_rules(cells, NELEMS(cells), rules, CS_MAX_RULES, &cut);
    ck_assert_int_eq(cut, 0);
    ck_assert_int_eq(n, 4);
    /* p 3..4: auto up to sqrt(512 * 32768) = 4096, native above */
    ck_assert(rules[0].p_lo == 3 && rules[0].p_hi == 4 && rules[0].choice == CS_CHOICE_AUTO);
    ck_assert(rules[0].bytes.lo == 0 && rules[0].bytes.hi == 4096);
    ck_assert(rules[1].p_lo == 3 && rules[1].p_hi == 4 && rules[1].choice == CS_CHOICE_NATIVE);
    ck_assert(rules[1].bytes.lo == 4097 && rules[1].bytes.hi == 32768); /* the largest measured */
    /* p 6..7: elimination forced up to sqrt(8 * 512) = 64, auto above */
    ck_assert(rules[2].p_lo == 6 && rules[2].p_hi == 7 && rules[2].choice == CS_CHOICE_FORCED && rules[2].alg == E);
    ck_assert(rules[2].bytes.lo == 0 && rules[2].bytes.hi == 64);
    ck_assert(rules[3].choice == CS_CHOICE_AUTO && rules[3].bytes.lo == 65 && rules[3].bytes.hi == 32768);

    /* What select makes of them: p = 5 and sizes above 32 KiB are covered by no rule. */
    cs_config cfg;
    cs_config_defaults(&cfg);
    memcpy(cfg.coll[CS_COLL_ALLREDUCE].rules, rules, sizeof(cs_rule) * (size_t)n);
    cfg.coll[CS_COLL_ALLREDUCE].nrules = n;
    for (int i = 0; i < n; i++)
        cs_params_init(&cfg.coll[CS_COLL_ALLREDUCE].rules[i].params);
    static cs_select_cache cache;
    const struct {
        int p;
        size_t bytes;
        const char *alg;
        const char *reason;
    } calls[] = {
        {4, 30000, "native", "rule"},
        {4, 32769, "native", "no rule covers this p and size: native, to be safe"},
        {5, 8, "native", "no rule covers this p and size: native, to be safe"},
        {7, 64, "elimination", "rule"},
        {7, 65, NULL, "breakpoint: the model's choice for this size"},
    };
    for (int i = 0; i < NELEMS(calls); i++) {
        cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                           .p = calls[i].p,
                           .count = calls[i].bytes,
                           .elem = 1,
                           .bytes = calls[i].bytes,
                           .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
        cs_decision d;
        memset(&cache, 0, sizeof cache);
        cs_select(&cfg, &cache, &prob, &d);
        ck_assert_str_eq(d.reason, calls[i].reason);
        if (calls[i].alg)
            ck_assert_str_eq(d.alg->name, calls[i].alg);
    }
}
END_TEST

extern const cs_alg cs_reduce_knomial, cs_reduce_binomial;

/* Parameters a row has measured (cs_alg.measured) go into its rules; the same row with other
 * parameters is a band of its own, and so is a p whose bands differ only in them. */
START_TEST(test_rules_measured_params)
{
    const cs_alg *K = &cs_reduce_knomial, *B = &cs_reduce_binomial;
    cs_cal_cell cells[] = {
        cell(96, 8, K, B, 0.5, 2),      cell(96, 512, K, B, 0.6, 2),   cell(96, 4096, K, B, 0.9, 1.2),
        cell(96, 32768, B, B, 0.9, 1),  cell(97, 8, K, B, 0.5, 2),     cell(97, 512, K, B, 0.6, 2),
        cell(97, 4096, K, B, 0.9, 1.2), cell(97, 32768, B, B, 0.9, 1),
    };
    const char *given[] = {"r=16", "r=16", "r=8", NULL, "r=16", "r=8", "r=8", NULL};
    for (int i = 0; i < NELEMS(cells); i++)
        cells[i].best_given = given[i];
    cs_rule rules[CS_MAX_RULES];
    int cut;
    const int n = cs_cal_rules(cells, NELEMS(cells), rules, CS_MAX_RULES, &cut);
    ck_assert_int_eq(cut, 0);
    ck_assert_int_eq(n, 6); /* p = 97 differs from 96 in the radix at 512 B only */
    ck_assert(rules[0].alg == K && rules[0].params.radix == 16 && rules[0].bytes.hi == 1448);
    ck_assert(rules[1].alg == K && rules[1].params.radix == 8 && rules[1].bytes.lo == 1449 &&
              rules[1].bytes.hi == 11585);
    ck_assert(rules[2].choice == CS_CHOICE_AUTO && rules[2].p_hi == 96 && rules[2].bytes.lo == 11586);
    ck_assert(rules[3].p_lo == 97 && rules[3].params.radix == 16 && rules[3].bytes.hi == 64);
    ck_assert(rules[4].alg == K && rules[4].params.radix == 8 && rules[4].bytes.lo == 65);
    /* written and read back: "knomial:r=16" */
    char spec[64];
    cs_alg_spec(rules[0].alg, &rules[0].params, spec, sizeof spec);
    ck_assert_str_eq(spec, "knomial:r=16");
    ck_assert_int_eq(rules[0].params.k, -1); /* the rest as the model tunes it */
}
END_TEST

/* Parameters the built-in model tuned, which measured faster than the fitted model's (a ring's
 * halving rounds), go into the rule whole, and read back as given: the fitted model then keeps
 * them (select tunes a rule's algorithm under the file's model). */
START_TEST(test_rules_tuned_params)
{
    const cs_alg *G = &cs_allreduce_ring;
    cs_cal_cell cells[] = {cell(96, 512, G, G, 0.9, 1), cell(96, 4096, G, G, 0.83, 1.5),
                           cell(96, 32768, G, G, 0.74, 1.45)};
    cells[1].best_given = "k=3,rmax=3";
    cells[2].best_given = "k=5,rmax=3";
    cs_rule rules[CS_MAX_RULES];
    int cut;
    ck_assert_int_eq(cs_cal_rules(cells, NELEMS(cells), rules, CS_MAX_RULES, &cut), 3);
    ck_assert(rules[0].choice == CS_CHOICE_AUTO);
    ck_assert(rules[1].choice == CS_CHOICE_FORCED && rules[1].alg == G);
    ck_assert_int_eq(rules[1].params.k, 3);
    ck_assert_int_eq(rules[2].params.k, 5);
    ck_assert_int_eq(rules[2].params.rmax, 3);
    cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                       .p = 96,
                       .count = 4096,
                       .elem = 8,
                       .bytes = 32768,
                       .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
    cs_config cfg;
    cs_config_defaults(&cfg);
    cs_params params = rules[2].params;
    G->tune(&cfg.model, &prob, &params);
    ck_assert_int_eq(params.k, 5);
    char spec[64];
    cs_alg_spec(G, &rules[1].params, spec, sizeof spec);
    ck_assert_str_eq(spec, "ring:k=3,rmax=3");
}
END_TEST

START_TEST(test_rules_limit)
{
    const cs_alg *E = &cs_allreduce_elimination;
    /* Each p two bands; room for two p's of three. */
    const cs_cal_cell cells[] = {
        cell(3, 8, E, E, 0.7, 1),   cell(3, 512, E, E, 1.3, 1), cell(5, 8, E, E, 0.7, 1),
        cell(5, 512, E, E, 1.3, 1), cell(7, 8, E, E, 1.3, 1),   cell(7, 512, E, E, 0.7, 1),
    };
    cs_rule rules[5];
    int cut;
    ck_assert_int_eq(cs_cal_rules(cells, NELEMS(cells), rules, 5, &cut), 4);
    ck_assert_int_eq(cut, 1);
    ck_assert(rules[3].p_lo == 5 && rules[3].p_hi == 5);
}
END_TEST

/* The closing summary: rules per collective with the forced algorithms named, the expected gain
 * (1 where the library is kept), the model's error against the built-in one, and a plain warning
 * naming the file where the fit errs more; --verify names every slower and inconclusive cell. */
static char *print_to_text(void (*print)(FILE *, const void *), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    print(f, arg);
    fclose(f);
    return text;
}

static void print_summary(FILE *f, const void *s)
{
    cs_cal_summary_print(f, s);
}

static void print_verify(FILE *f, const void *cells)
{
    cs_cal_verify_print(f, cells, 3, "m.yaml", NULL, NULL);
}

static const int verify_set[3] = {0, 1, 0};
static void print_verify_fixed(FILE *f, const void *cells)
{
    cs_cal_verify_print(f, cells, 3, "m.yaml", "fixed.yaml", verify_set);
}

/* The network's core from synthetic ping-pongs: 48 pairs of hosts at once
 * behind one 1.25 GB/s backbone, each 125 MB/s alone (the lab's Ethernet
 * cluster): each pair then gets 1.25 GB/s / 48, 3.84e-8 s/B, so 8e-10 per
 * byte of the aggregate; within 10% of one pair's (a fat tree's full
 * bisection, noise), none; fewer than two pairs, nothing to tell. The pairs:
 * the nodes' first ranks, node i with node i + n/2. */
START_TEST(test_core_beta)
{
    ck_assert(fabs(cs_cal_core_beta(8e-9, 48 * 8e-10, 48) - 8e-10) < 1e-22);
    ck_assert(cs_cal_core_beta(8e-9, 8.5e-9, 48) == 0.0);
    ck_assert(cs_cal_core_beta(8e-9, 3e-8, 1) == 0.0);
    ck_assert(cs_cal_core_beta(8e-9, 8e-9 * 1.11, 2) > 0.0);
    /* 10 ranks, nodes of 2 (first ranks 0, 2, 4, 6, 8): 0-4, 2-6; 8 waits with the others */
    int node_of[10], scratch[10], peer[10];
    for (int r = 0; r < 10; r++)
        node_of[r] = r / 2 * 2;
    ck_assert_int_eq(cs_cal_core_pairs(node_of, 10, scratch, peer), 2);
    const int want[10] = {4, -1, 6, -1, 0, -1, 2, -1, -1, -1};
    for (int r = 0; r < 10; r++)
        ck_assert_int_eq(peer[r], want[r]);
    for (int r = 0; r < 10; r++) /* a rank a node: rank i with i + 5 */
        node_of[r] = r;
    ck_assert_int_eq(cs_cal_core_pairs(node_of, 10, scratch, peer), 5);
    for (int r = 0; r < 10; r++)
        ck_assert_int_eq(peer[r], (r + 5) % 10);
}
END_TEST

START_TEST(test_summary)
{
    const cs_alg *E = &cs_allreduce_elimination, *G = &cs_allreduce_ring;
    const cs_cal_cell cells[] = {cell(2, 8, E, E, 0.5, 1.0), cell(2, 1024, G, E, 0.8, 1.2),
                                 cell(2, 65536, E, E, 1.2, 1.0)};
    cs_rule rules[3];
    int cut;
    const int nrules = cs_cal_rules(cells, 3, rules, 3, &cut);
    cs_cal_summary s = {.ncoll = 1, .nerr = 40, .err_fitted = 2.45, .err_builtin = 0.98, .file = "m.yaml"};
    s.coll[0] = (cs_cal_coll_summary){"allreduce", rules, nrules, cells, 3};
    char *text = print_to_text(print_summary, &s);
    ck_assert_msg(strstr(text, "#   allreduce 3 rules: 1 native, 1 auto, 1 forced (ring)\n"), "%s", text);
    /* (0.5 * 0.8 * 1)^(1/3) over the three; ours in two, (0.5 * 0.8)^(1/2) there */
    ck_assert_msg(strstr(text, "expected gain: 0.74 of the library's time over its 3 cells (geometric mean); "
                               "ours runs in 2, at 0.63 there; best 0.50 at p = 2, 8 B"),
                  "%s", text);
    ck_assert_msg(strstr(text, "model error: fitted 245%, built-in 98%"), "%s", text);
    ck_assert_msg(strstr(text, "# warning: the fitted model errs more than the built-in one (245% against 98%)"), "%s",
                  text);
    ck_assert_msg(strstr(text, "m.yaml holds the fitted model and the measured rules"), "%s", text);
    free(text);
    s.err_fitted = 0.38; /* nearer than the built-in model: no warning */
    text = print_to_text(print_summary, &s);
    ck_assert_msg(strstr(text, "model error: fitted 38%, built-in 98%") && !strstr(text, "warning"), "%s", text);
    ck_assert_msg(strstr(text, "#   network core: none (full bisection"), "%s", text);
    free(text);
    s.beta_core = 8e-10; /* the lab's Ethernet backbone, 1.25 GB/s */
    text = print_to_text(print_summary, &s);
    ck_assert_msg(strstr(text, "#   network core: beta_core 8.000e-10 s/B (1.25 GB/s)"), "%s", text);
    free(text);

    cs_cal_verify_cell v[3] = {
        {.coll = "allreduce", .p = 2, .bytes = 8, .ratio = {1.62, 18.7}},
        {.coll = "reduce", .p = 4, .bytes = 16384, .ratio = {1.3, 0.05}, .t = 2.6e-5, .t_native = 2e-5, .start = 1},
        {.coll = "alltoall", .p = 2, .bytes = 8, .ratio = {0.9, 0.05}}};
    for (int i = 0; i < 3; i++) {
        v[i].verdict = cs_cal_verdict_of(v[i].ratio, 0.05);
        snprintf(v[i].what, sizeof v[i].what, "alg%d (rules[%d])", i, i);
    }
    text = print_to_text(print_verify, v);
    ck_assert_msg(strstr(text, "# verify: 3 cells, 1 slower than native beyond the noise; 1 faster, 0 as fast, "
                               "1 inconclusive (noisy)\n"),
                  "%s", text);
    /* each slower cell: what ran, the rule, the ratio and both times; then what to do */
    ck_assert_msg(strstr(text, "#   slower: reduce at p = 4, 16 KiB: alg1 (rules[1]): 26 µs against the library's "
                               "20 µs, 1.30 ± 0.05 (from a common start)\n"),
                  "%s", text);
    ck_assert_msg(strstr(text, "#   inconclusive: allreduce at p = 2, 8 B: alg0 (rules[0]): 1.62 ± 18.70"), "%s", text);
    ck_assert_msg(strstr(text, "#   what to do: rerun with -o FIXED (collshim-calibrate --verify m.yaml -o FIXED) to "
                               "write a copy of m.yaml with the slower cell native (the library there)"),
                  "%s", text);
    ck_assert_msg(strstr(text, "or calibrate again with more repetitions"), "%s", text);
    ck_assert(!strstr(text, "alg2"));
    free(text);
    text = print_to_text(print_verify_fixed, v); /* -o: what was written instead of what to do */
    ck_assert_msg(strstr(text, "from a common start): set native\n"), "%s", text);
    ck_assert_msg(strstr(text, "# wrote fixed.yaml: m.yaml with its 1 slower cell native, every other rule as it was"),
                  "%s", text);
    ck_assert(!strstr(text, "what to do"));
    free(text);
    v[1].forced = 1; /* <coll>.algorithm decided it: no rule to set */
    text = print_to_text(print_verify, v);
    ck_assert_msg(strstr(text, "(from a common start): forced by reduce.algorithm, before every rule: not set\n") &&
                      !strstr(text, "what to do") &&
                      strstr(text, "#   1 slower cell forced by an algorithm key of m.yaml, which comes before"),
                  "%s", text);
    free(text);
}
END_TEST

/* ---- the written configuration -------------------------------------------- */

static int load_written(const cs_config *cfg, cs_config *back, char *text, size_t size)
{
    char path[64];
    cs_config_error err;
    const int fd = memfd_create("cs_check_calibrate", 0);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(dup(fd), "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(cs_config_write(f, cfg), 0);
    fclose(f);
    const ssize_t len = pread(fd, text, size - 1, 0);
    ck_assert_int_gt(len, 0);
    text[len] = '\0';
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cs_config_defaults(back);
    const int rc = cs_config_load(path, back, &err);
    close(fd);
    ck_assert_msg(rc == 0, "%s:%d:%d: %s\n%s", err.file, err.line, err.column, err.message, text);
    return rc;
}

static void set_rule(cs_rule *r, int lo, int hi, size_t blo, size_t bhi, cs_coll coll, const char *spec)
{
    char why[256];
    *r = (cs_rule){.p_lo = lo, .p_hi = hi, .bytes = {blo, bhi}};
    cs_params_init(&r->params);
    ck_assert_int_eq(cs_cfg_parse_pick(coll, spec, &r->choice, &r->alg, &r->params, why, sizeof why), 0);
}

/* The rule that decides a call of p ranks and `bytes`, as select reads them: the first that holds. */
static const cs_rule *first_rule(const cs_coll_config *cc, int p, size_t bytes)
{
    for (int i = 0; i < cc->nrules; i++)
        if (p >= cc->rules[i].p_lo && p <= cc->rules[i].p_hi && bytes >= cc->rules[i].bytes.lo &&
            bytes <= cc->rules[i].bytes.hi)
            return &cc->rules[i];
    return NULL;
}

/* --verify -o: the slower cells native, each over the sizes it stands for within its rule, at its p
 * alone, before that rule; a rule wholly slower says native itself; a collective without rules gets
 * native rules and auto for the rest; a forced cell is left; every other size and p as before. */
START_TEST(test_verify_fix)
{
    static cs_config cfg, orig, back;
    static char text[16384];
    cs_config_defaults(&cfg);
    cs_coll_config *ar = &cfg.coll[CS_COLL_ALLREDUCE], *rd = &cfg.coll[CS_COLL_REDUCE];
    cs_coll_config *a2a = &cfg.coll[CS_COLL_ALLTOALL];
    set_rule(&ar->rules[0], 2, 4, 0, 1000, CS_COLL_ALLREDUCE, "auto");
    set_rule(&ar->rules[1], 2, 4, 1001, 100000, CS_COLL_ALLREDUCE, "ring:k=2,rmax=5");
    ar->nrules = 2;
    set_rule(&rd->rules[0], 2, 2, 0, 16384, CS_COLL_REDUCE, "binomial");
    set_rule(&rd->rules[1], 3, 3, 0, 16384, CS_COLL_REDUCE, "binomial");
    rd->nrules = 2;
    orig = cfg;
    /* measured at 8, 512, 32768 (allreduce, p = 4), 8 and 16384 (reduce), 8 and 512 (alltoall, no rules) */
    cs_cal_verify_cell v[] = {
        {.coll_id = CS_COLL_ALLREDUCE, .p = 4, .bytes = 8, .verdict = CS_CAL_FASTER, .rule = 1},
        {.coll_id = CS_COLL_ALLREDUCE, .p = 4, .bytes = 512, .verdict = CS_CAL_SLOWER, .rule = 1},
        {.coll_id = CS_COLL_ALLREDUCE, .p = 4, .bytes = 32768, .verdict = CS_CAL_SLOWER, .rule = 2},
        {.coll_id = CS_COLL_ALLREDUCE, .p = 3, .bytes = 32768, .verdict = CS_CAL_AS_FAST, .rule = 2},
        {.coll_id = CS_COLL_REDUCE, .p = 2, .bytes = 8, .verdict = CS_CAL_SLOWER, .rule = 1},
        {.coll_id = CS_COLL_REDUCE, .p = 2, .bytes = 16384, .verdict = CS_CAL_SLOWER, .rule = 1},
        {.coll_id = CS_COLL_REDUCE, .p = 3, .bytes = 8, .verdict = CS_CAL_SLOWER, .rule = 2, .forced = 1},
        {.coll_id = CS_COLL_ALLTOALL, .p = 2, .bytes = 8, .verdict = CS_CAL_SLOWER},
        {.coll_id = CS_COLL_ALLTOALL, .p = 2, .bytes = 512, .verdict = CS_CAL_NOISY},
    };
    enum { N = sizeof v / sizeof v[0] };
    int set[N];
    ck_assert_int_eq(cs_cal_verify_fix(&cfg, v, N, set), 5);
    const int want_set[N] = {0, 1, 1, 0, 1, 1, 0, 1, 0};
    for (int i = 0; i < N; i++)
        ck_assert_msg(set[i] == want_set[i], "cell %d: set %d", i, set[i]);
    /* allreduce: 512 stands for 65..4096, within rule 0's 0..1000; 32768 for 4097.. within rule 1's */
    ck_assert_int_eq(ar->nrules, 4);
    ck_assert(ar->rules[0].choice == CS_CHOICE_NATIVE && ar->rules[0].p_lo == 4 && ar->rules[0].p_hi == 4 &&
              ar->rules[0].bytes.lo == 65 && ar->rules[0].bytes.hi == 1000);
    ck_assert(!memcmp(&ar->rules[1], &orig.coll[CS_COLL_ALLREDUCE].rules[0], sizeof(cs_rule)));
    ck_assert(ar->rules[2].choice == CS_CHOICE_NATIVE && ar->rules[2].p_lo == 4 && ar->rules[2].bytes.lo == 4097 &&
              ar->rules[2].bytes.hi == 100000);
    ck_assert(!memcmp(&ar->rules[3], &orig.coll[CS_COLL_ALLREDUCE].rules[1], sizeof(cs_rule)));
    /* reduce at p = 2: both its cells slower, the whole rule: native itself; p = 3's (forced) as it was */
    ck_assert_int_eq(rd->nrules, 2);
    ck_assert(rd->rules[0].choice == CS_CHOICE_NATIVE && rd->rules[0].p_lo == 2 && rd->rules[0].p_hi == 2 &&
              rd->rules[0].bytes.lo == 0 && rd->rules[0].bytes.hi == 16384);
    ck_assert(!memcmp(&rd->rules[1], &orig.coll[CS_COLL_REDUCE].rules[1], sizeof(cs_rule)));
    /* alltoall had none: 8 B native up to halfway to 512 (64), then auto everywhere, as the model without rules */
    ck_assert_int_eq(a2a->nrules, 2);
    ck_assert(a2a->rules[0].choice == CS_CHOICE_NATIVE && a2a->rules[0].p_lo == 2 && a2a->rules[0].p_hi == 2 &&
              a2a->rules[0].bytes.lo == 0 && a2a->rules[0].bytes.hi == 64);
    ck_assert(a2a->rules[1].choice == CS_CHOICE_AUTO && a2a->rules[1].p_lo == 1 && a2a->rules[1].p_hi == INT_MAX &&
              a2a->rules[1].bytes.lo == 0 && a2a->rules[1].bytes.hi == SIZE_MAX);
    /* every size and p: native where a cell was set, else the rule that held before */
    for (int c = 0; c < CS_COLL_LAST; c++)
        for (int p = 1; p <= 6; p++)
            for (size_t b = 0; b < 200000; b = b * 2 + 1) {
                const cs_rule *now = first_rule(&cfg.coll[c], p, b), *was = first_rule(&orig.coll[c], p, b);
                if (c == CS_COLL_ALLTOALL && p == 2 && b <= 64) {
                    ck_assert(now && now->choice == CS_CHOICE_NATIVE);
                    continue;
                }
                if (c == CS_COLL_ALLTOALL) {
                    ck_assert(now && now->choice == CS_CHOICE_AUTO); /* the model decides, as with no rules */
                    continue;
                }
                if (!was) {
                    ck_assert(!now);
                    continue;
                }
                if (now->choice == CS_CHOICE_NATIVE && was->choice != CS_CHOICE_NATIVE)
                    ck_assert_msg((c == CS_COLL_REDUCE && p == 2) || (c == CS_COLL_ALLREDUCE && p == 4 && b >= 65),
                                  "coll %d p %d bytes %zu set native", c, p, b);
                else
                    ck_assert_msg(!memcmp(now, was, sizeof *now), "coll %d p %d bytes %zu changed", c, p, b);
            }
    load_written(&cfg, &back, text, sizeof text); /* and it loads */
    ck_assert_int_eq(back.coll[CS_COLL_ALLREDUCE].nrules, 4);
    ck_assert_int_eq(back.coll[CS_COLL_ALLTOALL].nrules, 2);
    ck_assert_msg(strstr(text, "    - {p: [4, 4], bytes: [65, 1000], algorithm: native}\n"), "%s", text);
    ck_assert_msg(strstr(text, "    - {p: [1, inf], bytes: [0, inf], algorithm: auto}\n"), "%s", text);
}
END_TEST

START_TEST(test_write_round_trip)
{
    static cs_config cfg, back;
    static char text[16384];
    const char *why;

    cs_config_defaults(&cfg);
    cfg.model = (cs_model){.alpha = 1.737036359573847e-07, .beta = 1.0 / 3e9, .rho = 8.6e-11, .gamma = 0.1 / 7e8};
    cs_coll_config *ar = &cfg.coll[CS_COLL_ALLREDUCE], *rd = &cfg.coll[CS_COLL_REDUCE];
    cs_coll_config *a2a = &cfg.coll[CS_COLL_ALLTOALL];
    set_rule(&ar->rules[0], 2, 2, 0, 4096, CS_COLL_ALLREDUCE, "auto");
    set_rule(&ar->rules[1], 2, 2, 4097, SIZE_MAX, CS_COLL_ALLREDUCE, "native");
    set_rule(&ar->rules[2], 3, 7, 0, SIZE_MAX, CS_COLL_ALLREDUCE, "ring:k=2,rmax=5");
    set_rule(&ar->rules[3], 8, INT_MAX, 0, 1000, CS_COLL_ALLREDUCE, "butterfly:b=4096");
    ar->nrules = 4;
    set_rule(&rd->rules[0], 1, 16, 0, SIZE_MAX, CS_COLL_REDUCE, "binomial");
    rd->nrules = 1;
    rd->choice = CS_CHOICE_FORCED;
    rd->alg = cs_alg_lookup(CS_COLL_REDUCE, "elimination:k=1", &rd->params, &why);
    a2a->native[0] = (cs_range){0, 64};
    a2a->native[1] = (cs_range){1 << 20, SIZE_MAX};
    a2a->nnative = 2;
    set_rule(&a2a->rules[0], 4, 4, 0, SIZE_MAX, CS_COLL_ALLTOALL, "multiphase:1,1");
    a2a->nrules = 1;
    a2a->choice = CS_CHOICE_NATIVE;
    cfg.log_level = CS_LOG_CALLS;
    strcpy(cfg.log_file, "/tmp/cs.%r.jsonl");
    cfg.log_all_ranks = 0;
    cfg.log_ranks[0] = 0;
    cfg.log_ranks[1] = 3;
    cfg.nlog_ranks = 2;
    cfg.strict = 1;
    cfg.reproducible = 0;

    load_written(&cfg, &back, text, sizeof text);
    ck_assert(memcmp(&cfg.model, &back.model, offsetof(cs_model, hulls)) == 0); /* bit for bit */
    for (int c = 0; c < CS_COLL_LAST; c++) {
        const cs_coll_config *x = &cfg.coll[c], *y = &back.coll[c];
        ck_assert_int_eq(x->choice, y->choice);
        ck_assert_ptr_eq(x->alg, y->alg);
        ck_assert_int_eq(x->nnative, y->nnative);
        for (int i = 0; i < x->nnative; i++)
            ck_assert(x->native[i].lo == y->native[i].lo && x->native[i].hi == y->native[i].hi);
        ck_assert_int_eq(x->nrules, y->nrules);
        for (int i = 0; i < x->nrules; i++) {
            const cs_rule *r = &x->rules[i], *s = &y->rules[i];
            ck_assert(r->p_lo == s->p_lo && r->p_hi == s->p_hi && r->choice == s->choice && r->alg == s->alg);
            ck_assert(r->bytes.lo == s->bytes.lo && r->bytes.hi == s->bytes.hi);
            ck_assert(r->params.b == s->params.b && r->params.k == s->params.k && r->params.rmax == s->params.rmax);
            ck_assert(r->params.nparts == s->params.nparts);
        }
    }
    ck_assert(back.coll[CS_COLL_REDUCE].params.k == 1);
    ck_assert_int_eq(back.log_level, CS_LOG_CALLS);
    ck_assert_str_eq(back.log_file, cfg.log_file);
    ck_assert(back.log_all_ranks == 0 && back.nlog_ranks == 2 && back.log_ranks[1] == 3);
    ck_assert(back.strict == 1 && back.reproducible == 0);

    /* Written again, the same text: a fixed point. */
    static char again[16384];
    static cs_config third;
    load_written(&back, &third, again, sizeof again);
    ck_assert_str_eq(text, again);
}
END_TEST

START_TEST(test_write_defaults)
{
    static cs_config cfg, back;
    static char text[16384];
    cs_config_defaults(&cfg);
    load_written(&cfg, &back, text, sizeof text);
    ck_assert(memcmp(&cfg.model, &back.model, offsetof(cs_model, hulls)) == 0);
    ck_assert(strstr(text, "rules: []") && strstr(text, "method: auto") && strstr(text, "level: off"));
}
END_TEST

/* Costs are written in the shortest decimal that reads back to the same double: 0.1, not
 * 0.10000000000000001 (%.17g), and 17 digits only where fewer would not read back. */
START_TEST(test_write_shortest)
{
    static cs_config cfg, back;
    static char text[16384];
    cs_config_defaults(&cfg);
    cfg.model.margin = 0.1;
    cfg.model.alpha = 1e-6;
    cfg.model.gamma = 1.737036359573847e-07;
    cfg.model.beta = 1.0 / 3e9;     /* 16 digits */
    cfg.model.overhead = 0.1 + 0.2; /* 17 digits */
    load_written(&cfg, &back, text, sizeof text);
    ck_assert(memcmp(&cfg.model, &back.model, offsetof(cs_model, hulls)) == 0);
    ck_assert_msg(strstr(text, "  margin: 0.1\n"), "%s", text);
    ck_assert_msg(strstr(text, "  alpha: 1e-06\n"), "%s", text);
    ck_assert_msg(strstr(text, "  gamma: 1.737036359573847e-07\n"), "%s", text);
    ck_assert_msg(strstr(text, "  beta: 3.333333333333333e-10\n"), "%s", text);
    ck_assert_msg(strstr(text, "  overhead: 0.30000000000000004\n"), "%s", text);
}
END_TEST

/* Every key of the schema is in the written file (a rule-less section included): a key the
 * writer forgets would fall back to its default when a calibrated file is read back. */
static void check_section_written(yaml_document_t *doc, yaml_node_t *map, const cs_section *sec, const char *where)
{
    ck_assert_msg(map && map->type == YAML_MAPPING_NODE, "%s: not a mapping in the written file", where);
    for (size_t k = 0; k < sec->nkeys; k++) {
        const cs_key *key = &sec->keys[k];
        yaml_node_t *value = NULL;
        for (yaml_node_pair_t *pr = map->data.mapping.pairs.start; pr < map->data.mapping.pairs.top; pr++) {
            yaml_node_t *name = yaml_document_get_node(doc, pr->key);
            if (name->type == YAML_SCALAR_NODE && !strcmp((const char *)name->data.scalar.value, key->name))
                value = yaml_document_get_node(doc, pr->value);
        }
        ck_assert_msg(value, "cs_config_write leaves out %s (in %s)", key->name, where);
        if (key->sub)
            check_section_written(doc, value, key->sub, key->name);
    }
}

START_TEST(test_write_every_key)
{
    static cs_config cfg, back;
    static char text[16384];
    yaml_parser_t parser;
    yaml_document_t doc;

    cs_config_defaults(&cfg);
    /* Two levels, as --fit writes for a run over nodes: alpha_node and beta_node are written only then. */
    cfg.model.node_levels = 1;
    cfg.model.alpha_node = 2e-7;
    cfg.model.beta_node = 5e-11;
    cfg.model.node_pairs = 1;             /* model.node_paths pair: written only then */
    cfg.model.ranks_per_node = 8;         /* a fat tree's leaf */
    cfg.model.beta_core = 8e-10;          /* a backbone: written only where there is one */
    cfg.model.rendezvous_from = 1;        /* SimGrid's: every message */
    cfg.model.distance = CS_DISTANCE_XOR; /* a hypercube's: written only where the network has it */
    cfg.model.alpha_hop = 1e-6;
    cfg.model.link_own = 1; /* model.link_share communicator: written only where it is not world's */
    static const cs_bands bands = {2, {{65472, 11.6436, 0.8633}, {1 << 20, 1.0 / 3, 1.0}}}; /* where there are some */
    cfg.model.bands = &bands;
    cs_library_rules *rules = NULL; /* the library's tuning file: its path written */
    char why[256];
    ck_assert_msg(cs_library_rules_load("tests/fixtures/library/openmpi-rules.conf", &rules, why, sizeof why) == 0,
                  "%s", why);
    cfg.model.library_rules = rules;
    load_written(&cfg, &back, text, sizeof text);
    ck_assert(back.model.library_rules &&
              !strcmp(back.model.library_rules->path, "tests/fixtures/library/openmpi-rules.conf"));
    ck_assert(back.model.distance == CS_DISTANCE_XOR && back.model.alpha_hop == 1e-6);
    ck_assert(back.model.node_levels == 1 && back.model.alpha_node == 2e-7 && back.model.beta_node == 5e-11);
    ck_assert_int_eq(back.model.ranks_per_node, 8);
    ck_assert(back.model.rendezvous_from == 1);
    ck_assert_int_eq(back.model.link_own, 1);
    ck_assert_int_eq(back.model.node_pairs, 1);
    ck_assert(back.model.bands && back.model.bands->n == 2);
    for (int i = 0; i < 2; i++) /* every digit written */
        ck_assert(!memcmp(&back.model.bands->band[i], &bands.band[i], sizeof bands.band[i]));
    ck_assert(yaml_parser_initialize(&parser));
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, strlen(text));
    ck_assert(yaml_parser_load(&parser, &doc));
    check_section_written(&doc, yaml_document_get_root_node(&doc), &cs_config_schema, "the top level");
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    cs_library_rules_free((cs_library_rules *)back.model.library_rules);
    cs_library_rules_free(rules);
}
END_TEST

/* The fitted configuration says distance only where the network has it. */
START_TEST(test_distance_written)
{
    static cs_config cfg, back;
    static char text[16384];
    cs_config_defaults(&cfg);
    load_written(&cfg, &back, text, sizeof text);
    ck_assert_ptr_null(strstr(text, "distance"));
    ck_assert(back.model.distance == CS_DISTANCE_NONE && back.model.alpha_hop == 0.0);
    cfg.model.distance = CS_DISTANCE_DIFFERENCE;
    cfg.model.alpha_hop = 3e-7;
    load_written(&cfg, &back, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "  distance: difference\n"));
    ck_assert(back.model.distance == CS_DISTANCE_DIFFERENCE && back.model.alpha_hop == 3e-7);
}
END_TEST

Suite *make_calibrate_suite(void)
{
    Suite *s = suite_create("calibrate");
    TCase *tc = tcase_create("fit");
    tcase_add_loop_test(tc, test_fit_recovers, 0, NELEMS(fit_cases));
    tcase_add_test(tc, test_fit_weights_small_sizes);
    tcase_add_test(tc, test_fit_clamps);
    tcase_add_test(tc, test_fit_refuses);
    tcase_add_test(tc, test_fit_slope);
    tcase_add_loop_test(tc, test_fit_overhead, 0, NELEMS(overhead_cases));
    tcase_add_test(tc, test_fit_overhead_no_overlap);
    tcase_add_test(tc, test_node_pairs);
    tcase_add_test(tc, test_latency_block);
    tcase_add_test(tc, test_distance_fit);
    tcase_add_test(tc, test_late_waited);
    suite_add_tcase(s, tc);
    tc = tcase_create("rules");
    tcase_add_test(tc, test_ratio_noise);
    tcase_add_test(tc, test_ratio_worse);
    tcase_add_test(tc, test_cell_choice);
    tcase_add_test(tc, test_verdict);
    tcase_add_test(tc, test_summary);
    tcase_add_test(tc, test_verify_fix);
    tcase_add_test(tc, test_core_beta);
    tcase_add_test(tc, test_rules_bands_and_p);
    tcase_add_test(tc, test_rules_limit);
    tcase_add_test(tc, test_rules_measured_params);
    tcase_add_test(tc, test_rules_tuned_params);
    suite_add_tcase(s, tc);
    tc = tcase_create("write");
    tcase_add_test(tc, test_write_round_trip);
    tcase_add_test(tc, test_write_defaults);
    tcase_add_test(tc, test_write_shortest);
    tcase_add_test(tc, test_write_every_key);
    tcase_add_test(tc, test_distance_written);
    suite_add_tcase(s, tc);
    return s;
}
