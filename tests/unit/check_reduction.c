/*
 * The bounds of Rabenseifner and Träff 2004 on collshim's schedules, for
 * every p up to 128 that is not a power of two (p = 2^n q, q odd):
 * - latency mode (no stage splits): ceil(log2 p) + 1 rounds for
 *   elimination, ceil(log2 p) for rings when q = 3 or 9 (§3.4, §1);
 * - bandwidth mode (every stage splits): at most (1 + 1/2^(n+1)) 2m bytes
 *   sent and (1 + 1/2^(n+1)) m bytes combined by any process (§4);
 * for allreduce, and the reduction phase's share for reduce.
 * Also reduce's price beyond p = 128, where the simulator does not go: it
 * builds the schedules of only the ranks that can be slowest (one per
 * schedule shape of the elimination), and must equal the slowest of all p
 * ranks, each priced on its own schedule, for large odd factors too (a
 * level of 625 members once overflowed the list of those ranks).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/reduction/engine.h"
#include "coll/reduction/plan.h"
#include "sched/sched.h"
#include "sim.h"

static const cs_alg *row(cs_coll coll, const char *name)
{
    cs_params params;
    const char *why;
    return cs_alg_lookup(coll, name, &params, &why);
}

static int ceil_log2(int p)
{
    int n = 0;
    while ((1 << n) < p)
        n++;
    return n;
}

/* Does round r of a schedule carry a message? */
static int round_talks(const cs_sched *s, int r)
{
    for (size_t i = s->round_start[r]; i < cs_sched_round_end(s, r); i++)
        if (s->steps[i].kind == CS_STEP_SEND || s->steps[i].kind == CS_STEP_RECV)
            return 1;
    return 0;
}

/* The rounds in which some rank talks (the paper's rounds: rounds line up
 * across ranks), and the most bytes any rank sends and combines. */
static void worst(const cs_alg *alg, const cs_problem *prob, const cs_params *params, cs_sched_stats *out)
{
    static const cs_model unit = {.alpha = 1, .beta = 1, .rho = 1, .gamma = 1};
    char talks[256] = {0};
    cs_sched s;
    cs_sched_init(&s);
    memset(out, 0, sizeof(*out));
    for (int r = 0; r < prob->p; r++) {
        cs_sched_stats st;
        cs_sched_reset(&s);
        ck_assert_int_eq(alg->build(prob, params, r, &s), 0);
        cs_sched_stats_get(&s, &unit, &st);
        for (int k = 0; k < s.nrounds && k < 256; k++)
            talks[k] |= (char)round_talks(&s, k);
        out->sent_bytes = st.sent_bytes > out->sent_bytes ? st.sent_bytes : out->sent_bytes;
        out->reduced_bytes = st.reduced_bytes > out->reduced_bytes ? st.reduced_bytes : out->reduced_bytes;
    }
    for (int k = 0; k < 256; k++)
        out->rounds += talks[k];
    cs_sched_free(&s);
}

START_TEST(test_latency_rounds)
{
    const int p = _i;
    if (!(p & (p - 1)))
        return;
    const cs_problem prob = {
        .coll = CS_COLL_ALLREDUCE, .p = p, .count = 16, .elem = 4, .bytes = 64, .flags = CS_PROB_CONTIG};
    cs_params params;
    cs_sched_stats st;
    cs_params_init(&params);
    params.k = 0;
    worst(row(CS_COLL_ALLREDUCE, "elimination"), &prob, &params, &st);
    ck_assert_msg(st.rounds == ceil_log2(p) + 1, "p=%d elimination: %d rounds", p, st.rounds);
    int q = p;
    while (q % 2 == 0)
        q /= 2;
    if (q == 3 || q == 9) { /* the paper's claim: rings of 3 reach the optimum there */
        params.rmax = 3;
        worst(row(CS_COLL_ALLREDUCE, "ring"), &prob, &params, &st);
        ck_assert_msg(st.rounds == ceil_log2(p), "p=%d ring: %d rounds", p, st.rounds);
    }
}
END_TEST

START_TEST(test_bandwidth_volume)
{
    const int p = _i;
    if (!(p & (p - 1)))
        return;
    int n = 0;
    while (!((p >> n) & 1))
        n++;
    const size_t count = 64 * (size_t)p; /* every split even */
    const double m = (double)count * 4, bound = 1.0 + 1.0 / (double)(2u << n);
    const char *names[] = {"elimination", "ring"};
    for (cs_coll coll = CS_COLL_ALLREDUCE; coll <= CS_COLL_REDUCE; coll++)
        for (int i = 0; i < 2; i++) {
            const cs_alg *alg = row(coll, names[i]);
            const cs_problem prob = {
                .coll = coll, .p = p, .count = count, .elem = 4, .bytes = count * 4, .flags = CS_PROB_CONTIG};
            cs_params params;
            cs_sched_stats st;
            cs_plan plan;
            if (i == 1 && p % 3 && p % 5 && p % 7)
                continue;
            cs_params_init(&params);
            params.rmax = i ? 3 : 0;
            cs_plan_make(p, params.rmax, &plan);
            params.k = plan.nstages;
            worst(alg, &prob, &params, &st);
            if (i == 0) /* the paper's bound is for elimination; rings send (f - 1)/f per level */
                ck_assert_msg((double)st.sent_bytes <= bound * 2 * m + 1e-9, "p=%d %s %s: sent %zu > %.0f", p,
                              cs_coll_name(coll), names[i], st.sent_bytes, bound * 2 * m);
            ck_assert_msg((double)st.reduced_bytes <= bound * m + 1e-9, "p=%d %s %s: combined %zu > %.0f", p,
                          cs_coll_name(coll), names[i], st.reduced_bytes, bound * m);
        }
}
END_TEST

START_TEST(test_reduce_price_large)
{
    static const int ps[] = {131, 257, 385, 1000, 5000};
    static const int roots[] = {0, 1, 2, 7};
    const cs_model model = {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9};
    const int p = ps[_i];
    cs_plan plan;
    cs_sched s;
    cs_plan_make(p, 0, &plan);
    cs_sched_init(&s);
    for (size_t t = 0; t < sizeof roots / sizeof roots[0]; t++)
        for (int k = 0; k <= 2; k += 2) {
            const int root = roots[t] == 7 ? p - 1 : roots[t] == 2 ? p / 2 : roots[t];
            const cs_problem prob = {.coll = CS_COLL_REDUCE,
                                     .p = p,
                                     .count = 1 << 12,
                                     .elem = 4,
                                     .bytes = 4 << 12,
                                     .root = root,
                                     .flags = CS_PROB_CONTIG};
            double slowest = 0.0;
            for (int rank = 0; rank < p && p <= 1000; rank++) {
                cs_red r;
                cs_sched_price_start(&s, &model);
                cs_red_reduce_phase(&r, &prob, &plan, k, rank, 0, &s);
                cs_red_gather_phase(&r, root);
                const double c = cs_sched_price_total(&s);
                slowest = c > slowest ? c : slowest;
            }
            const double priced = cs_red_reduce_cost(&model, &prob, &plan, k, INFINITY);
            ck_assert_msg(priced > 0 && priced < 1.0, "p=%d root=%d k=%d: %g", p, root, k, priced);
            if (p <= 1000)
                ck_assert_msg(priced == slowest, "p=%d root=%d k=%d: priced %.17g, slowest rank %.17g", p, root, k,
                              priced, slowest);
        }
    cs_sched_free(&s);
}
END_TEST

/* cs_tree_receives in one descent says what cs_tree_step says over every
 * round, for every tree size up to 200, root and member. */
START_TEST(test_tree_receives)
{
    for (int n = 1; n <= 200; n++)
        for (int to = 0; to < n; to++)
            for (int me = 0; me < n; me++) {
                int receives = 0, sends = 0, peer, got_sends;
                for (int t = 0; t < ceil_log2(n); t++) {
                    const cs_tree_act act = cs_tree_step(n, to, me, t, &peer);
                    sends += act == CS_TREE_SEND;
                    receives += act == CS_TREE_RECV_LEFT || act == CS_TREE_RECV_RIGHT;
                }
                const int got = cs_tree_receives(n, to, me, &got_sends);
                if (got != receives || got_sends != sends) /* (an assertion per member: a write each) */
                    ck_abort_msg("n=%d to=%d me=%d: %d, %d receives; %d, %d sends", n, to, me, got, receives, got_sends,
                                 sends);
            }
}
END_TEST

/* The k of least price and the first of equals, by every k priced in full
 * (and every rmax for the rings), for the rows over p not a power of two. */
static void exhaustive(const cs_model *model, const cs_problem *prob, int rmax, cs_params *out, double *price)
{
    *price = INFINITY;
    for (int r = rmax < 0 ? -1 : 3; r <= (rmax < 0 ? -1 : 7); r += rmax < 0 ? 1 : 2) {
        cs_plan plan;
        cs_plan_make(prob->p, r, &plan);
        for (int k = 0; k <= plan.nstages; k++) {
            cs_params params;
            cs_params_init(&params);
            params.rmax = r;
            params.k = k;
            const double t = cs_red_cost(model, prob, &params);
            if (t < *price) {
                *price = t;
                *out = params;
            }
        }
    }
}

/* Tuning prices the k's from the lowest floor (the root's price) up,
 * prunes a k once one rank reaches the best price, and stops at the first
 * floor above it: the same parameters and price as pricing every k. Given a
 * price to beat it is exact below it and says "not below" otherwise. */
START_TEST(test_tune_as_exhaustive)
{
    static const int ps[] = {6, 12, 15, 21, 35, 96, 105, 131, 385, 1000};
    static const cs_model models[] = {
        {.alpha = 1e-6, .beta = 1e-9, .gamma = 1e-9, .rho = 1e-10},
        {.alpha = 2e-6, .beta = 1e-10, .gamma = 5e-10, .rho = 2e-10, .overhead = 2e-7},
        {.alpha = 1e-9, .beta = 1e-8, .gamma = 1e-9, .rho = 1e-9},
    };
    static const size_t counts[] = {1, 5, 96, 1001, 65536, 3000017};
    const int p = ps[_i];
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int root = 0; root < p; root += p / 3 + 1)
                for (cs_coll coll = CS_COLL_ALLREDUCE; coll <= CS_COLL_REDUCE; coll++) {
                    const cs_problem prob = {.coll = coll,
                                             .p = p,
                                             .count = counts[c],
                                             .elem = 4,
                                             .bytes = 4 * counts[c],
                                             .root = coll == CS_COLL_REDUCE ? root : 0,
                                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE};
                    static const char *const names[] = {"elimination", "ring"};
                    for (int i = 0; i < 2; i++) {
                        const cs_alg *alg = row(coll, names[i]);
                        if (i == 1 && p % 3 && p % 5 && p % 7)
                            continue;
                        cs_params tuned, best;
                        double want;
                        cs_params_init(&tuned);
                        alg->tune(&models[m], &prob, &tuned);
                        const double got = alg->cost(&models[m], &prob, &tuned);
                        exhaustive(&models[m], &prob, i == 0 ? -1 : 0, &best, &want);
                        ck_assert_msg(got == want && tuned.k == best.k && (i == 0 || tuned.rmax == best.rmax),
                                      "p=%d %s %s count=%zu root=%d model %zu: tuned k=%d rmax=%d %.17g, "
                                      "every k: k=%d rmax=%d %.17g",
                                      p, cs_coll_name(coll), names[i], counts[c], root, m, tuned.k, tuned.rmax, got,
                                      best.k, best.rmax, want);
                        /* with a price to beat (select's cheapest so far): exact below it, else at least it */
                        static const double beats[] = {0.9, 1.0, 1.1};
                        for (int b = 0; b < 3; b++) {
                            cs_params pruned;
                            cs_params_init(&pruned);
                            const double stop = want * beats[b], t = alg->tune_priced(&models[m], &prob, &pruned, stop);
                            if (want < stop)
                                ck_assert_msg(t == want && pruned.k == best.k && pruned.rmax == tuned.rmax,
                                              "p=%d %s %s count=%zu: below %g, %.17g k=%d; every k %.17g k=%d", p,
                                              cs_coll_name(coll), names[i], counts[c], stop, t, pruned.k, want, best.k);
                            else
                                ck_assert_msg(t >= stop, "p=%d %s %s count=%zu: %.17g under stop %.17g (price %.17g)",
                                              p, cs_coll_name(coll), names[i], counts[c], t, stop, want);
                        }
                    }
                }
}
END_TEST

/* Reduce's butterfly on p = 2^n (a closed form, not priced on schedules)
 * with o > 0: the slowest rank's sum over its rounds, o per message posted
 * (it charged none: under a node's o of 0.19 us it looked 0.75 us cheaper
 * than the binomial tree at p = 16 and 8 B; chosen for 512 B to 2 KiB, it
 * measured 1.4 to 2.0 times slower back to back). Every k, root and nominal
 * count. */
START_TEST(test_reduce_butterfly_overhead)
{
    extern const cs_alg cs_reduce_butterfly;
    const cs_model mo = {.alpha = 3.4e-7, .beta = 1.5e-10, .rho = 1.2e-10, .gamma = 2.7e-10, .overhead = 1.9e-7};
    for (int p = 2; p <= 64; p *= 2) {
        cs_sched *s = sim_scheds_new(p);
        for (int k = 0; (1 << k) <= p; k++)
            for (int root = 0; root<p; root += p / 2> 1 ? p / 2 - 1 : 1)
                for (int inplace = 0; inplace < 2; inplace++) {
                    const size_t count = (size_t)p * 3;
                    const cs_problem prob = {.coll = CS_COLL_REDUCE,
                                             .p = p,
                                             .root = root,
                                             .count = count,
                                             .elem = 8,
                                             .bytes = count * 8,
                                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE |
                                                      (inplace ? CS_PROB_INPLACE : 0u)};
                    cs_params params;
                    cs_params_init(&params);
                    params.k = k;
                    for (int r = 0; r < p; r++) {
                        cs_sched_reset(&s[r]);
                        ck_assert_int_eq(cs_reduce_butterfly.build(&prob, &params, r, &s[r]), 0);
                    }
                    const double closed = cs_reduce_butterfly.cost(&mo, &prob, &params), sum = sim_cost_max(s, p, &mo);
                    ck_assert_msg(fabs(closed - sum) <= 1e-12 * sum, "p=%d k=%d root=%d in place %d: %.17g, %.17g", p,
                                  k, root, inplace, closed, sum);
                }
        sim_scheds_free(s, p);
    }
}
END_TEST

Suite *make_reduction_suite(void)
{
    Suite *s = suite_create("reduction");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_latency_rounds, 3, 129);
    tcase_add_loop_test(tc, test_bandwidth_volume, 3, 129);
    tcase_add_loop_test(tc, test_reduce_price_large, 0, 5);
    tcase_add_test(tc, test_tree_receives);
    tcase_add_loop_test(tc, test_tune_as_exhaustive, 0, 10);
    tcase_add_test(tc, test_reduce_butterfly_overhead);
    suite_add_tcase(s, tc);
    return s;
}
