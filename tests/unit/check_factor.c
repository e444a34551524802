/*
 * The multiphase exchange on any p (src/model/factor.c and the multiphase
 * row over factorisations, src/coll/alltoall/alltoall_multiphase.c):
 * - for every p <= 4096 under several models, the recursion's cheapest
 *   factorisation at many block sizes costs what the cheapest of every
 *   factorisation of p costs (brute force over the unordered ones: the cost
 *   does not depend on the order), and the optimum is pairwise balanced
 *   (Theorem 1 for a mixed radix, factor.c); with rho > 0 no unbalanced
 *   factorisation reaches it;
 * - the hull computed by the recursion on envelopes is the lower envelope
 *   of the lines of every factorisation, every face pairwise balanced, and
 *   on p = 2^d the same lines as Bokhari's hull (model/hull.c);
 * - the schedules of every ordered factorisation of p <= 36, and of every
 *   unordered one in increasing and decreasing order for p <= 128, in the
 *   simulator, with the closed form equal to the schedule's cost;
 * - the lookup's words, describing, the per-call product check (parsing
 *   "4x4x6" is in check_hull.c, with the partitions).
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/alltoall/multiphase.h"
#include "model/factor.h"
#include "select/select.h"
#include "sim.h"

Suite *make_factor_suite(void);

extern const cs_alg cs_alltoall_multiphase;

enum { FACTOR_MAX_P = 4096, FACTOR_MAX_ALL = 20000 };

static const cs_model factor_models[] = {
    {.alpha = 110e-6, .beta = 2e-6, .rho = 1e-6}, /* Bokhari's Fig. 1 */
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10},  /* one shared-memory node */
    {.alpha = 1e-3, .beta = 1e-12, .rho = 1e-13}, /* latency-dominated */
    {.alpha = 1e-9, .beta = 1e-7, .rho = 3e-8},   /* bandwidth-dominated */
    {.alpha = 2e-6, .beta = 5e-10, .rho = 0},     /* no cost of a permutation */
};
enum { NFMODELS = sizeof(factor_models) / sizeof(factor_models[0]) };

typedef struct fact {
    int n;
    int k[CS_FACTOR_MAX];
} fact;

/* Every unordered factorisation of q into factors >= lo, non-decreasing. */
static void facts_all(int q, int lo, fact *prefix, fact *out, int *n)
{
    if (q == 1) {
        ck_assert_int_lt(*n, FACTOR_MAX_ALL);
        out[(*n)++] = *prefix;
        return;
    }
    for (int f = lo; f <= q; f++) {
        if ((long long)f * f > q)
            f = q; /* no factor between sqrt(q) and q: the last is q itself */
        if (q % f)
            continue;
        prefix->k[prefix->n++] = f;
        facts_all(q / f, f, prefix, out, n);
        prefix->n--;
    }
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b)) + 1e-300;
}

static fact all[FACTOR_MAX_ALL];
static cs_part_line lines[FACTOR_MAX_ALL];
static bool balanced[FACTOR_MAX_ALL];

/* Every unordered factorisation of p, its line and whether it is balanced. */
static int facts_of(int p)
{
    fact prefix = {0};
    int n = 0;
    facts_all(p, 2, &prefix, all, &n);
    for (int i = 0; i < n; i++) {
        lines[i] = cs_factor_line(p, all[i].k, all[i].n);
        balanced[i] = cs_factor_balanced(all[i].k, all[i].n);
    }
    return n;
}

/* ------------------------------------------------------- best vs brute force */

/* Check writes every assertion's location to its log pipe: in loops of
 * millions of checks, assert only on failure. */
#define FCHECK(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

/* The recursion's choice at m against the cheapest of all n factorisations. */
static void check_best(const cs_model *mo, int model, int p, int n, double m)
{
    double brute = INFINITY, best_balanced = INFINITY, dp;
    int got[CS_FACTOR_MAX];
    for (int i = 0; i < n; i++) {
        const double t = cs_part_line_cost(mo, &lines[i], m);
        brute = fmin(brute, t);
        if (balanced[i])
            best_balanced = fmin(best_balanced, t);
    }
    const int ng = cs_factor_best(mo, p, m, got, &dp);
    long long product = 1;
    for (int i = 0; i < ng; i++) {
        FCHECK(got[i] >= 2, "p=%d: factor %d", p, got[i]);
        FCHECK(i == 0 || got[i - 1] <= got[i], "p=%d: factors not increasing", p);
        product *= got[i];
    }
    const cs_part_line gl = cs_factor_line(p, got, ng);
    FCHECK(product == p, "p=%d m=%g: factors multiply to %lld", p, m, product);
    FCHECK(near(dp, brute) && near(cs_part_line_cost(mo, &gl, m), brute),
           "model %d p=%d m=%g: recursion %.17g, brute force %.17g", model, p, m, dp, brute);
    FCHECK(near(best_balanced, brute), "model %d p=%d m=%g: no balanced factorisation is optimal", model, p, m);
    FCHECK(cs_factor_balanced(got, ng), "model %d p=%d m=%g: the choice is not balanced", model, p, m);
    for (int i = 0; mo->rho > 0 && i < n; i++)
        FCHECK(balanced[i] || cs_part_line_cost(mo, &lines[i], m) > brute,
               "model %d p=%d m=%g: an unbalanced factorisation is optimal", model, p, m);
}

static const cs_model *sort_model;

static int by_slope_desc(const void *x, const void *y)
{
    const cs_part_line *a = x, *b = y;
    const double sa = sort_model->beta * (double)a->wire + sort_model->rho * (double)a->copied;
    const double sb = sort_model->beta * (double)b->wire + sort_model->rho * (double)b->copied;
    return (sa < sb) - (sa > sb);
}

static bool line_eq(const cs_part_line *a, const cs_part_line *b)
{
    return a->msgs == b->msgs && a->wire == b->wire && a->copied == b->copied;
}

/* The hull's faces are the brute-force envelope's lines, balanced, with
 * the vertices between them in order. Sorts lines[]. */
static void check_hull(const cs_model *mo, int model, int p, int n)
{
    static cs_factor_hull h;
    static int faces[FACTOR_MAX_ALL];
    sort_model = mo;
    qsort(lines, (size_t)n, sizeof *lines, by_slope_desc);
    const int nf = cs_envelope(mo, lines, n, faces);
    FCHECK(cs_factor_hull_compute(mo, p, &h) == 0, "p=%d: no hull", p);
    FCHECK(nf == h.nfaces, "model %d p=%d: brute-force envelope %d faces, hull %d", model, p, nf, h.nfaces);
    for (int f = 0; f < nf; f++) {
        const cs_factor_face *face = &h.face[f];
        const cs_part_line l = cs_factor_line(p, face->factors, face->n);
        FCHECK(line_eq(&l, &lines[faces[f]]) && line_eq(&l, &face->line), "model %d p=%d: face %d differs", model, p,
               f);
        FCHECK(cs_factor_balanced(face->factors, face->n), "model %d p=%d: face %d unbalanced", model, p, f);
        FCHECK(f == 0 ? face->first == 0 : face->from > h.face[f - 1].from, "p=%d: vertices out of order", p);
    }
}

enum { FACTOR_CHUNKS = 8 };

/* _i: one of FACTOR_CHUNKS runs of p <= 4096, every model, block sizes from
 * 0 to 16 MiB: the recursion's optimum and the hull against brute force. */
START_TEST(test_brute_force)
{
    static const double sizes[] = {0, 1, 3, 8, 31, 100, 250, 1000, 4096, 1e4, 65536, 3e5, 1e6, 16777216};
    for (int p = 1 + _i * FACTOR_MAX_P / FACTOR_CHUNKS; p <= (_i + 1) * FACTOR_MAX_P / FACTOR_CHUNKS; p++) {
        const int n = facts_of(p);
        for (int mi = 0; mi < NFMODELS; mi++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                check_best(&factor_models[mi], mi, p, n, sizes[s]);
        for (int mi = 0; mi < NFMODELS; mi++)
            check_hull(&factor_models[mi], mi, p, n);
    }
}
END_TEST

/* On p = 2^d the hull over factorisations is Bokhari's over partitions. */
START_TEST(test_hull_pow2)
{
    const cs_model *mo = &factor_models[_i];
    static cs_factor_hull h;
    for (int d = 0; d <= 20; d++) {
        cs_hull b;
        cs_hull_compute(mo, d, &b);
        ck_assert_int_eq(cs_factor_hull_compute(mo, 1 << d, &h), 0);
        ck_assert_msg(h.nfaces == b.nfaces, "d=%d: %d faces, Bokhari's hull %d", d, h.nfaces, b.nfaces);
        for (int f = 0; f < h.nfaces; f++) {
            const cs_part_line l = cs_part_line_of(d, b.face[f].parts, b.face[f].nparts);
            ck_assert_msg(line_eq(&l, &h.face[f].line), "d=%d: face %d differs", d, f);
            ck_assert(h.face[f].first == b.face[f].first);
        }
    }
}
END_TEST

/* The theorem's condition, by hand: 96 = 4x4x6 is balanced, 2x6x8 is not
 * (2 x 6 = 3 x 4), nor 3x32 (= 8 x 12), nor 2x8 (= 4 x 4). */
START_TEST(test_balanced)
{
    ck_assert(cs_factor_balanced((int[]){4, 4, 6}, 3));
    ck_assert(cs_factor_balanced((int[]){8, 12}, 2));
    ck_assert(cs_factor_balanced((int[]){2, 3, 5, 7}, 4));
    ck_assert(cs_factor_balanced((int[]){2, 2, 4}, 3));
    ck_assert(!cs_factor_balanced((int[]){2, 6, 8}, 3));
    ck_assert(!cs_factor_balanced((int[]){3, 32}, 2));
    ck_assert(!cs_factor_balanced((int[]){2, 8}, 2));
    ck_assert(cs_factor_balanced((int[]){97}, 1));
}
END_TEST

/* ------------------------------------------------------------ the schedules */

static const cs_model sched_models[] = {
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10},
    {.alpha = 1e-9, .beta = 1e-7, .rho = 3e-8},
};

static void check_radix(int p, const int *k, int n, size_t m, bool inplace, cs_sched *scheds)
{
    char what[200], fmt[64], rep_str[2048];
    sim_report rep;
    cs_params params;
    cs_params_init(&params);
    params.factors = 1;
    params.nparts = n;
    memcpy(params.parts, k, (size_t)n * sizeof *k);
    const cs_problem prob = {.coll = CS_COLL_ALLTOALL,
                             .p = p,
                             .count = m,
                             .elem = 1,
                             .bytes = m,
                             .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u)};
    cs_alltoall_multiphase.format(&params, fmt, sizeof fmt);
    snprintf(what, sizeof what, "multiphase:%s p=%d m=%zu%s", fmt, p, m, inplace ? " in place" : "");
    ck_assert_msg(!cs_alg_restriction_given(&cs_alltoall_multiphase, &prob, &params), "%s: declined", what);
    sim_run_alg(&cs_alltoall_multiphase, &prob, &params, scheds, &rep);
    ck_assert_msg(rep.total == 0, "%s: %s", what, sim_report_str(&rep, rep_str, sizeof rep_str));
    for (size_t i = 0; i < sizeof sched_models / sizeof sched_models[0]; i++) {
        const double closed = cs_alltoall_multiphase.cost(&sched_models[i], &prob, &params);
        const double sim = sim_cost_max(scheds, p, &sched_models[i]);
        ck_assert_msg(near(closed, sim), "%s: closed form %.17g, schedule %.17g", what, closed, sim);
    }
    int rounds = 0;
    for (int i = 0; i < n; i++)
        rounds += k[i] - 1;
    for (int r = 0; r < p; r++) {
        cs_sched_stats st;
        cs_sched_stats_get(&scheds[r], &sched_models[0], &st);
        ck_assert_msg(st.rounds == rounds, "%s: rank %d: %d rounds, not %d", what, r, st.rounds, rounds);
    }
}

/* Every ordered factorisation of q, appended to prefix, checked. */
static void check_ordered(int p, int q, int *k, int n, cs_sched *scheds)
{
    if (q == 1) {
        for (int inplace = 0; inplace < 2; inplace++)
            for (size_t m = 1; m <= 3; m += 2)
                check_radix(p, k, n, m, inplace, scheds);
        return;
    }
    for (int f = 2; f <= q; f++)
        if (q % f == 0) {
            k[n] = f;
            check_ordered(p, q / f, k, n + 1, scheds);
        }
}

/* _i = p - 1: every ordered factorisation for p <= 36; above, every
 * unordered one in increasing and in decreasing order. */
START_TEST(test_schedules)
{
    const int p = _i + 1;
    int k[CS_FACTOR_MAX];
    cs_sched *scheds = sim_scheds_new(p);
    if (p <= 36)
        check_ordered(p, p, k, 0, scheds);
    else {
        const int n = facts_of(p);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < all[i].n; j++)
                k[j] = all[i].k[all[i].n - 1 - j];
            check_radix(p, all[i].k, all[i].n, 2, i % 2, scheds);
            check_radix(p, k, all[i].n, 2, !(i % 2), scheds);
        }
    }
    sim_scheds_free(scheds, p);
}
END_TEST

/* ---------------------------------------------------------- parse and select */

/* The lookup names what the arguments may be when it rejects them. */
START_TEST(test_lookup_why)
{
    cs_params params;
    const char *why = NULL;
    ck_assert_ptr_null(cs_alg_lookup(CS_COLL_ALLTOALL, "multiphase:4x", &params, &why));
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "4x4x6"));
    ck_assert_ptr_nonnull(strstr(why, "2,2,1"));
}
END_TEST

static cs_problem a2a(int p, size_t m)
{
    return (cs_problem){.coll = CS_COLL_ALLTOALL, .p = p, .count = m, .elem = 1, .bytes = m, .flags = CS_PROB_CONTIG};
}

/* Factors run where their product is p and say why elsewhere; a partition
 * runs only on its 2^d; the model's choice on p = 96 is balanced, described
 * as its phases. */
START_TEST(test_restrictions)
{
    cs_params f, d;
    cs_params_init(&f);
    cs_params_init(&d);
    ck_assert_int_eq(cs_alltoall_multiphase.parse("4x4x6", &f), 0);
    ck_assert_int_eq(cs_alltoall_multiphase.parse("2,2,1", &d), 0);
    cs_problem prob = a2a(96, 100);
    ck_assert_ptr_null(cs_alg_restriction_given(&cs_alltoall_multiphase, &prob, &f));
    ck_assert_str_eq(cs_alg_restriction_given(&cs_alltoall_multiphase, &prob, &d), "needs parts that sum to log2 p");
    prob.p = 32;
    ck_assert_ptr_null(cs_alg_restriction_given(&cs_alltoall_multiphase, &prob, &d));
    ck_assert_str_eq(cs_alg_restriction_given(&cs_alltoall_multiphase, &prob, &f), "needs factors whose product is p");
    prob.p = 97; /* any p: the tuned row runs (one phase, Direct) */
    ck_assert_ptr_null(cs_alg_restriction(&cs_alltoall_multiphase, &prob));

    cs_params t;
    cs_params_init(&t);
    prob = a2a(96, 64);
    cs_alltoall_multiphase.tune(&factor_models[1], &prob, &t);
    ck_assert(t.factors && t.nparts >= 2 && cs_factor_balanced(t.parts, t.nparts));
    char plan[128], why[128];
    cs_alltoall_multiphase.describe(&prob, &t, plan, sizeof plan);
    ck_assert_msg(strstr(plan, "phases: "), "%s", plan);
    cs_alltoall_multiphase.explain(&t, why, sizeof why);
    ck_assert_ptr_nonnull(strstr(why, "factorisation"));

    cs_params_init(&t);
    ck_assert_int_eq(cs_alltoall_multiphase.parse("4x4x6", &t), 0);
    cs_alltoall_multiphase.describe(&prob, &t, plan, sizeof plan);
    ck_assert_str_eq(plan, "3 phases: 4x4x6");
    cs_params_init(&t);
    ck_assert_int_eq(cs_alltoall_multiphase.parse("2,2,1", &t), 0);
    cs_alltoall_multiphase.describe(&prob, &t, plan, sizeof plan);
    ck_assert_str_eq(plan, "3 phases: 4x4x2");
}
END_TEST

/* multiphase's tune remembers its last factorisations (a later call is a
 * lookup): over interleaved p, sizes and models, more than it keeps, what
 * it answers is what the search answers. */
START_TEST(test_tune_remembers)
{
    static const int ps[] = {6, 12, 96, 360, 65535};
    static const size_t sizes[] = {1, 8, 100, 4096, 1 << 20};
    for (int pass = 0; pass < 3; pass++)
        for (int mi = 0; mi < NFMODELS; mi++)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
                    const cs_model *mo = &factor_models[(mi + pass) % NFMODELS];
                    const cs_problem prob = {.coll = CS_COLL_ALLTOALL,
                                             .p = ps[pi],
                                             .count = sizes[si],
                                             .elem = 1,
                                             .bytes = sizes[si],
                                             .flags = CS_PROB_CONTIG};
                    const cs_model pairwise = cs_model_pairwise(mo);
                    int factors[CS_FACTOR_MAX];
                    const int n = cs_factor_best(&pairwise, prob.p, (double)prob.bytes, factors, NULL);
                    for (int again = 0; again < 2; again++) {
                        cs_params params;
                        cs_params_init(&params);
                        cs_alltoall_multiphase.tune(mo, &prob, &params);
                        ck_assert(params.factors);
                        ck_assert_int_eq(params.nparts, n);
                        for (int i = 0; i < n; i++)
                            ck_assert_int_eq(params.parts[i], factors[i]);
                    }
                }
}
END_TEST

Suite *make_factor_suite(void)
{
    Suite *s = suite_create("factor");
    TCase *best = tcase_create("best");
    TCase *sched = tcase_create("schedules");
    TCase *use = tcase_create("use");

    tcase_set_timeout(best, 60);
    tcase_add_loop_test(best, test_brute_force, 0, FACTOR_CHUNKS);
    tcase_add_loop_test(best, test_hull_pow2, 0, NFMODELS);
    tcase_add_test(best, test_balanced);

    tcase_set_timeout(sched, 120);
    tcase_add_loop_test(sched, test_schedules, 0, 128);

    tcase_add_test(use, test_lookup_why);
    tcase_add_test(use, test_restrictions);
    tcase_add_test(use, test_tune_remembers);

    suite_add_tcase(s, best);
    suite_add_tcase(s, sched);
    suite_add_tcase(s, use);
    return s;
}
