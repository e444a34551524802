/* Selection: restrictions, the order of the rules, breakpoints, tuning. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "select/library.h"
#include "select/library_rows.h"
#include "config/config_internal.h"
#include "select/select.h"

static cs_config cfg;
static cs_select_cache cache;

static void setup(void)
{
    cs_config_defaults(&cfg);
    memset(&cache, 0, sizeof(cache));
}

enum { C = CS_PROB_COMMUTATIVE, I = CS_PROB_INPLACE };

static cs_problem problem(cs_coll coll, int p, size_t count, size_t elem, unsigned flags)
{
    return (cs_problem){
        .coll = coll, .p = p, .count = count, .elem = elem, .bytes = count * elem, .flags = flags | CS_PROB_CONTIG};
}

static const cs_alg *alg_named(cs_coll coll, const char *name)
{
    cs_params params;
    const char *why;
    return cs_alg_lookup(coll, name, &params, &why);
}

START_TEST(test_restriction_words)
{
    cs_problem prob = problem(CS_COLL_ALLTOALL, 6, 8, 1, 0);
    const char *no = cs_alg_restriction(alg_named(CS_COLL_ALLTOALL, "standard"), &prob);
    ck_assert_ptr_nonnull(no);
    ck_assert_ptr_nonnull(strstr(no, "power of two"));
    ck_assert_ptr_null(cs_alg_restriction(alg_named(CS_COLL_ALLTOALL, "direct"), &prob)); /* any p */
    prob.p = 8;
    ck_assert_ptr_null(cs_alg_restriction(alg_named(CS_COLL_ALLTOALL, "direct"), &prob));
    prob.flags &= ~CS_PROB_CONTIG;
    ck_assert_ptr_nonnull(strstr(cs_alg_restriction(alg_named(CS_COLL_ALLTOALL, "direct"), &prob), "contiguous"));
}
END_TEST

/* Each rule of the order, one row: what the configuration says, the call,
 * and the algorithm and words the decision must carry. */
static const struct {
    cs_coll coll;
    const char *config; /* auto, native or a forced algorithm */
    int p;
    size_t count;
    const char *alg, *reason, *declined;
} rules[] = {
    {CS_COLL_ALLREDUCE, "auto", 1, 10, "native", "p = 1", NULL},
    {CS_COLL_ALLREDUCE, "auto", 8, 0, "native", "empty", NULL},
    {CS_COLL_ALLREDUCE, "native", 8, 10, "native", "native by the configuration", NULL},
    {CS_COLL_ALLREDUCE, "butterfly", 8, 10, "butterfly", "forced", NULL},
    {CS_COLL_ALLREDUCE, "butterfly", 6, 10, "ring", "breakpoint", "power of two"},
    /* the library's recursive doubling after a fold, priced within the margin of elimination */
    {CS_COLL_ALLREDUCE, "ring", 11, 2, "native", "library's own", "odd factor 3, 5 or 7"},
    {CS_COLL_ALLTOALL, "direct", 12, 10, "direct", "forced", NULL},
    /* 40 B blocks at p >= 8: MPICH's Bruck, which ours do not beat by the margin */
    {CS_COLL_ALLTOALL, "standard", 12, 10, "native", "library's own", "power of two"},
    {CS_COLL_ALLTOALL, "auto", 16, 10, "native", "library's own", NULL},
    {CS_COLL_ALLREDUCE, "auto", 96, 2, "ring", "breakpoint", NULL},
    {CS_COLL_REDUCE, "auto", 4, 1000, "butterfly", "breakpoint", NULL},
    /* 16 MiB blocks: a phase of a multiphase exchange at p = 1024 would exceed an int. */
    {CS_COLL_ALLTOALL, "auto", 1024, (size_t)4 << 20, "native", "INT_MAX", NULL},
    {CS_COLL_ALLTOALL, "direct", 1024, (size_t)4 << 20, "native", "INT_MAX", NULL},
};

START_TEST(test_rule_order)
{
    cs_decision d;
    cs_coll_config *cc = &cfg.coll[rules[_i].coll];
    const char *spec = rules[_i].config;
    if (!strcmp(spec, "native"))
        cc->choice = CS_CHOICE_NATIVE;
    else if (strcmp(spec, "auto")) {
        cc->choice = CS_CHOICE_FORCED;
        cc->alg = alg_named(rules[_i].coll, spec);
        cs_params_init(&cc->params);
    }
    cs_problem prob = problem(rules[_i].coll, rules[_i].p, rules[_i].count, 4, CS_PROB_COMMUTATIVE);
    cs_select(&cfg, &cache, &prob, &d);
    cs_select_predict(&cfg.model, &prob, &d);
    ck_assert_str_eq(d.alg->name, rules[_i].alg);
    ck_assert_msg(strstr(d.reason, rules[_i].reason), "reason '%s' lacks '%s'", d.reason, rules[_i].reason);
    if (rules[_i].declined)
        ck_assert_ptr_nonnull(d.declined && strstr(d.declined, rules[_i].declined) ? d.declined : NULL);
    else
        ck_assert_ptr_null(d.passed);
    ck_assert(d.alg->build ? d.predicted > 0 : d.predicted < 0);
}
END_TEST

/* With the log on, a decision carries both prices: ours and the library's
 * default, named; the library kept within the margin says so. */
START_TEST(test_log_prices)
{
    cs_decision d;
    cfg.log_level = CS_LOG_CALLS;
    cs_problem ring = problem(CS_COLL_ALLREDUCE, 96, 2, 4, CS_PROB_COMMUTATIVE);
    cs_select(&cfg, &cache, &ring, &d);
    ck_assert_str_eq(d.alg->name, "ring");
    cs_params params = d.params; /* priced as the row chosen, not as native */
    ck_assert_double_eq_tol(d.predicted, d.alg->cost(&cfg.model, &ring, &params), 1e-15);
    ck_assert(d.predicted > 0 && d.ours_predicted == d.predicted);
    ck_assert_ptr_nonnull(d.library_alg);
    ck_assert_str_eq(d.library_alg, "recursive doubling");
    ck_assert(d.predicted < d.library_predicted * (1 - cfg.model.margin));
    cs_problem pair = problem(CS_COLL_ALLREDUCE, 4, 2, 4, CS_PROB_COMMUTATIVE);
    cs_select(&cfg, &cache, &pair, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert(strstr(d.reason, "library's own"));
    ck_assert(d.library_alg && d.predicted == d.library_predicted && d.ours_predicted > 0);
    ck_assert(!(d.ours_predicted < d.library_predicted * (1 - cfg.model.margin)));
}
END_TEST

START_TEST(test_native_ranges)
{
    cs_decision d;
    cs_coll_config *cc = &cfg.coll[CS_COLL_ALLREDUCE];
    cc->native[0] = (cs_range){64, 1023};
    cc->nnative = 1;
    const size_t counts[] = {15, 16, 255, 256};
    const int native[] = {0, 1, 1, 0};
    for (int i = 0; i < 4; i++) {
        cs_problem prob = problem(CS_COLL_ALLREDUCE, 6, counts[i], 4, 0); /* ring, where not native */
        cs_select(&cfg, &cache, &prob, &d);
        ck_assert_int_eq(d.alg->build == NULL, native[i]);
    }
}
END_TEST

START_TEST(test_noncontig_declined)
{
    cs_decision d;
    cs_problem prob = problem(CS_COLL_ALLREDUCE, 6, 100, 4, 0); /* ring's size, were it contiguous */
    prob.flags &= ~CS_PROB_CONTIG;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_ptr_nonnull(d.passed);
    ck_assert_str_eq(d.passed->name, "every algorithm"); /* not only ring, the breakpoint's choice */
    ck_assert_ptr_nonnull(strstr(d.declined, "contiguous"));
}
END_TEST

static void force(cs_coll coll, const char *spec, int from_env);

/* Where no row can run a call, the decision names the restriction that
 * every row shares (a datatype with gaps: "every algorithm needs a
 * contiguous datatype"), not the first row's (butterfly's "needs p a power
 * of two" at p = 6), from the breakpoints and from the model (the log on),
 * for each collective; a forced algorithm stays named (its warning). With
 * the log off, a size whose breakpoint keeps the library is a lookup. */
START_TEST(test_none_applies_shared)
{
    const int ps[] = {3, 4, 6, 12};
    const size_t counts[] = {1, 2, 100, 100000};
    for (int log = 0; log < 2; log++)
        for (cs_coll coll = 0; coll < CS_COLL_LAST; coll++)
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < 4; j++) {
                    cs_decision d;
                    cs_config_defaults(&cfg);
                    cfg.log_level = log ? CS_LOG_CALLS : cfg.log_level;
                    memset(&cache, 0, sizeof cache);
                    cs_problem prob = problem(coll, ps[i], counts[j], coll == CS_COLL_ALLTOALL ? 1 : 4, C);
                    prob.flags &= ~CS_PROB_CONTIG;
                    cs_select(&cfg, &cache, &prob, &d);
                    ck_assert_str_eq(d.alg->name, "native");
                    if (!log && strstr(d.reason, "breakpoint: the library's own"))
                        continue; /* kept by a lookup, no row of ours to pass over */
                    ck_assert_msg(strstr(d.reason, "no algorithm of ours applies"), "reason '%s'", d.reason);
                    ck_assert_ptr_nonnull(d.passed);
                    ck_assert_msg(!strcmp(d.passed->name, "every algorithm") &&
                                      !strcmp(d.declined, "needs a contiguous datatype"),
                                  "%s p = %d, %zu: '%s %s'", cs_coll_name(coll), ps[i], counts[j], d.passed->name,
                                  d.declined);
                }
    /* forced: the forced row and its restriction, as its warning says */
    cs_decision d;
    cs_config_defaults(&cfg);
    memset(&cache, 0, sizeof cache);
    force(CS_COLL_ALLREDUCE, "butterfly", 1);
    cs_problem prob = problem(CS_COLL_ALLREDUCE, 6, 100, 4, C);
    prob.flags &= ~CS_PROB_CONTIG;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_str_eq(d.passed->name, "butterfly");
    ck_assert_str_eq(d.declined, "needs p a power of two");
}
END_TEST

/* A price of one second, whatever the call: the rows below are priced alike. */
static double cs_alg_cost_unit(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return 1.0;
}

/* Rows to find a shared restriction in: both need a commutative operator,
 * one p a power of two too; the other a contiguous datatype. */
static const cs_alg shared_a = {.name = "a", .requires = CS_REQ_COMMUTATIVE | CS_REQ_POW2, .cost = cs_alg_cost_unit},
                    shared_b = {.name = "b", .requires = CS_REQ_COMMUTATIVE | CS_REQ_CONTIG, .cost = cs_alg_cost_unit};

/* The restriction all rows share and the call fails (a non-commutative
 * operator where every row needs a commutative one), in the restrictions'
 * order; none where they share none the call fails, or there is one row. */
START_TEST(test_shared_restriction)
{
    const cs_alg *const rows[] = {&shared_a, &shared_b}, *const one[] = {&shared_a};
    cs_problem prob = problem(CS_COLL_ALLREDUCE, 6, 10, 4, 0); /* not commutative, p not a power of two */
    ck_assert_str_eq(cs_select_shared_restriction(rows, 2, &prob), "needs a commutative operator");
    prob.flags &= ~CS_PROB_CONTIG; /* b's too, not a's: still the operator */
    ck_assert_str_eq(cs_select_shared_restriction(rows, 2, &prob), "needs a commutative operator");
    prob.flags |= CS_PROB_COMMUTATIVE; /* each refuses it, for a restriction of its own */
    ck_assert_ptr_null(cs_select_shared_restriction(rows, 2, &prob));
    prob.flags &= ~CS_PROB_COMMUTATIVE;
    ck_assert_ptr_null(cs_select_shared_restriction(one, 1, &prob)); /* one row: it is named */
    /* the real tables: every row needs a contiguous datatype, and nothing else in common */
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_ALLREDUCE, &n);
    ck_assert_str_eq(cs_select_shared_restriction(table, n, &prob), "needs a contiguous datatype");
    prob.flags |= CS_PROB_CONTIG;
    ck_assert_ptr_null(cs_select_shared_restriction(table, n, &prob));
}
END_TEST

/* The loop rule (cs_select_loop_keeps), written out: under a library that
 * sends eagerly, a reduce of ours that costs more than the library's with
 * alpha 0 (back to back, start-ups overlapped) leaves the call to it. */
static int loop_loses(const cs_model *mo, const cs_problem *prob, const cs_alg *alg, const cs_params *params)
{
    if (prob->coll != CS_COLL_REDUCE || mo->library == CS_LIBRARY_SMPI_MPICH || mo->library == CS_LIBRARY_SMPI_OMPI)
        return 0;
    cs_model ahead = *mo;
    ahead.alpha = ahead.alpha_node = 0.0;
    const char *name;
    return alg->cost(&ahead, prob, params) > cs_library_price(&ahead, prob, &name);
}

/* The model's choice at one size, by pricing every row: the cheapest of
 * ours, unless it is not cheaper than the library's default by the margin,
 * or costs more than it back to back. */
static int brute_force_choice(const cs_problem *variant, size_t bytes)
{
    cs_problem prob = *variant;
    int n, best = 0;
    double best_cost = INFINITY;
    cs_params best_params;
    const cs_alg *const *table = cs_alg_table(prob.coll, &n);
    prob.bytes = prob.count = bytes;
    prob.flags |= CS_PROB_CONTIG;
    for (int i = 0; i < n; i++) {
        cs_params params;
        if (!table[i]->cost || table[i]->rules_only || cs_alg_restriction(table[i], &prob))
            continue;
        cs_params_init(&params);
        if (table[i]->tune)
            table[i]->tune(&cfg.model, &prob, &params);
        double t = table[i]->cost(&cfg.model, &prob, &params);
        if (t < best_cost) {
            best_cost = t;
            best = i;
            best_params = params;
        }
    }
    const char *name;
    if (best > 0 && !(best_cost < cs_library_price(&cfg.model, &prob, &name) * (1.0 - cfg.model.margin)))
        return 0;
    if (best > 0 && loop_loses(&cfg.model, &prob, table[best], &best_params))
        return 0;
    return best;
}

/* The breakpoints say what the model says, at every size sampled: at p
 * not a power of two too, where the rows are tuned by branch and bound and
 * priced against the cheapest so far (cs_alg.tune_priced), here by every
 * row tuned and priced in full. */
START_TEST(test_breakpoints_agree_with_model)
{
    const int ps[] = {2, 4, 8, 64, 1024, 96, 105, 1000};
    for (int i = 0; i < 8; i++) {
        for (cs_coll coll = 0; coll < CS_COLL_LAST; coll++) {
            cs_problem variant = problem(coll, ps[i], 1, 1, CS_PROB_COMMUTATIVE);
            cs_breakpoints bp = {0};
            cs_breakpoints_compute(&cfg.model, &variant, &bp);
            ck_assert_int_ge(bp.n, 1);
            ck_assert(bp.computed);
            for (int j = 1; j < bp.n; j++)
                ck_assert_uint_gt(bp.lo[j], bp.lo[j - 1]);
            for (size_t bytes = 1; bytes < ((size_t)1 << 32); bytes = bytes * 3 + 1)
                ck_assert_int_eq(cs_breakpoints_lookup(&bp, bytes), brute_force_choice(&variant, bytes));
        }
    }
}
END_TEST

/* Where the row changes, the entry starts within 1% of where the model's
 * choice changes (the bisection stops at 1/128 of the size, or between two
 * of ours prices those two alone): 1% above an entry's first size the
 * model chooses its row, 1% below it the row before. And no entry starts
 * where a call's largest message passes INT_MAX (the library runs those
 * before the breakpoints are looked up; sampling them was a fifth of a
 * first decision). */
START_TEST(test_breakpoints_placed)
{
    const int ps[] = {5, 12, 96, 105, 1000};
    for (int i = 0; i < 5; i++)
        for (cs_coll coll = 0; coll < CS_COLL_LAST; coll++)
            for (unsigned flags = 0; flags < 4; flags++) {
                cs_problem variant = problem(coll, ps[i], 1, 1, flags);
                cs_breakpoints bp = {0};
                cs_breakpoints_compute(&cfg.model, &variant, &bp);
                for (int j = 1; j < bp.n; j++) {
                    if (bp.alg[j] == bp.alg[j - 1])
                        continue;
                    const size_t above = bp.lo[j] + bp.lo[j] / 100, below = bp.lo[j] - bp.lo[j] / 100 - 1;
                    if (j + 1 == bp.n || above < bp.lo[j + 1])
                        ck_assert_msg(brute_force_choice(&variant, above) == bp.alg[j], "%s p = %d: row %d from %zu",
                                      cs_coll_name(coll), ps[i], bp.alg[j], bp.lo[j]);
                    if (below >= bp.lo[j - 1])
                        ck_assert_msg(brute_force_choice(&variant, below) == bp.alg[j - 1],
                                      "%s p = %d: row %d up to %zu", cs_coll_name(coll), ps[i], bp.alg[j - 1],
                                      bp.lo[j]);
                }
                cs_problem last = problem(coll, ps[i], bp.lo[bp.n - 1], 1, flags);
                ck_assert_double_le(cs_collective_largest_message(&last), (double)INT_MAX);
            }
    cs_decision d;
    const cs_problem beyond = problem(CS_COLL_ALLTOALL, 1000, (size_t)INT_MAX / 1000 + 1, 1, 0);
    memset(&cache, 0, sizeof cache);
    cs_select(&cfg, &cache, &beyond, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_msg(strstr(d.reason, "INT_MAX"), "reason '%s'", d.reason);
}
END_TEST

/* The model's price of row i on the call itself (its count and element size);
 * row 0 (native): the library's default. */
static double price_on_call(const cs_problem *prob, int i, cs_params *params)
{
    int n;
    const char *name;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    if (i == 0)
        return cs_library_price(&cfg.model, prob, &name);
    if (!table[i]->cost || cs_alg_restriction(table[i], prob))
        return INFINITY;
    cs_params_init(params);
    if (table[i]->tune)
        table[i]->tune(&cfg.model, prob, params);
    return table[i]->cost(&cfg.model, prob, params);
}

/* Back to back (cs_select_loop_keeps). Under the model collshim-calibrate
 * --fit measured on a 16-core node (o = 0.19 us), a reduce of 8 B at p = 16:
 * the k-nomial tree is cheaper than the library's binomial tree from a
 * common start by more than the margin, but its root takes 6 messages a
 * call where the binomial one takes 4, and back to back it measured 1.9
 * times slower. The library keeps it, from the breakpoints and from the
 * model alike; from 2 KiB, where the butterfly costs less in
 * a loop too, ours runs. Under SMPI's selectors (every send synchronous: no
 * rank runs ahead) the k-nomial tree runs; allreduce is not concerned. */
START_TEST(test_reduce_loop_keeps_library)
{
    const cs_model node = {.alpha = 3.4e-7,
                           .beta = 1.46e-10,
                           .rho = 1.16e-10,
                           .gamma = 2.66e-10,
                           .overhead = 1.86e-7,
                           .margin = 0.1,
                           .library = CS_LIBRARY_MPICH};
    cs_decision d;
    cs_params params;
    double ours, library;
    const char *name;
    int n;
    const cs_alg *const *table = cs_alg_table(CS_COLL_REDUCE, &n);
    cfg.model = node;
    cs_problem small = problem(CS_COLL_REDUCE, 16, 1, 8, CS_PROB_COMMUTATIVE);
    int i = 0;
    ours = INFINITY;
    for (int a = 1; a < n; a++) { /* the cheapest of ours from a common start */
        cs_params pa;
        const double t = price_on_call(&small, a, &pa);
        if (t < ours) {
            ours = t;
            i = a;
            params = pa;
        }
    }
    ck_assert_str_eq(table[i]->name, "knomial");
    ck_assert(ours < cs_library_price(&cfg.model, &small, &name) * (1.0 - node.margin));
    ck_assert_int_eq(cs_select_library_keeps(&cfg.model, &small, table[i], &params, ours, &library, &name),
                     CS_KEEP_LOOP);
    cs_select(&cfg, &cache, &small, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_msg(strstr(d.reason, "library's own"), "reason '%s'", d.reason);

    cs_problem mid = problem(CS_COLL_REDUCE, 16, 256, 8, CS_PROB_COMMUTATIVE);
    memset(&cache, 0, sizeof cache);
    cs_select(&cfg, &cache, &mid, &d);
    ck_assert_str_eq(d.alg->name, "butterfly");
    ck_assert(!cs_select_loop_keeps(&cfg.model, &mid, d.alg, &d.params));

    cfg.model.library = CS_LIBRARY_SMPI_MPICH;
    memset(&cache, 0, sizeof cache);
    cs_select(&cfg, &cache, &small, &d);
    ck_assert_str_eq(d.alg->name, "knomial");
    cfg.model.library = CS_LIBRARY_MPICH;
    cs_problem all = problem(CS_COLL_ALLREDUCE, 16, 1, 8, CS_PROB_COMMUTATIVE);
    ck_assert(!cs_select_loop_keeps(&cfg.model, &all, table[i], &params));
}
END_TEST

/* Calls of 4- and 8-byte elements: what the breakpoints choose is, priced on the call, within
 * 1% of the cheapest row (the breakpoints are made in bytes; when they priced a reduce of
 * doubles at 8 times its size, binomial won where elimination costs a third of it). */
START_TEST(test_breakpoints_any_element_size)
{
    const int ps[] = {3, 5, 6, 7, 12, 96};
    const size_t elems[] = {4, 8};
    for (int i = 0; i < 6; i++)
        for (int e = 0; e < 2; e++)
            for (cs_coll coll = CS_COLL_ALLREDUCE; coll < CS_COLL_LAST; coll++) {
                const cs_problem variant = problem(coll, ps[i], 1, elems[e], CS_PROB_COMMUTATIVE);
                cs_breakpoints bp = {0};
                int n;
                cs_breakpoints_compute(&cfg.model, &variant, &bp);
                const cs_alg *const *table = cs_alg_table(coll, &n);
                for (size_t count = 1; count < ((size_t)1 << 22); count = count * 3 + 1) {
                    const cs_problem call = problem(coll, ps[i], count, elems[e], CS_PROB_COMMUTATIVE);
                    const int chosen = cs_breakpoints_lookup(&bp, call.bytes);
                    cs_params params, best_params;
                    double best = INFINITY; /* of ours that the model chooses among */
                    int best_row = 0;
                    for (int a = 1; a < n; a++) {
                        const double t = table[a]->rules_only ? INFINITY : price_on_call(&call, a, &params);
                        if (t < best) {
                            best = t;
                            best_row = a;
                            best_params = params;
                        }
                    }
                    const double got = price_on_call(&call, chosen, &params),
                                 library = price_on_call(&call, 0, &params);
                    /* the library kept where ours gains less than the margin or loses back to back;
                     * else ours, near the cheapest */
                    const int loses = best_row && loop_loses(&cfg.model, &call, table[best_row], &best_params);
                    const double bound = chosen  ? best
                                         : loses ? library
                                                 : fmin(library, best / (1.0 - cfg.model.margin));
                    ck_assert_msg(got <= bound * 1.01,
                                  "%s p = %d, %zu x %zu B: breakpoint's choice %g s, cheapest %g s", cs_coll_name(coll),
                                  ps[i], count, elems[e], got, bound);
                }
            }
}
END_TEST

/* The row of coll's table that alg is. */
static int row_of(cs_coll coll, const cs_alg *alg)
{
    int n;
    const cs_alg *const *table = cs_alg_table(coll, &n);
    for (int i = 0; i < n; i++)
        if (table[i] == alg)
            return i;
    return -1;
}

/* Where the libraries' own choices change, in bytes: Open MPI's tables
 * (bands of size, exclusive) and MPICH's thresholds (inclusive: the next
 * size switches), for p up to 16; each is tested with its neighbours. */
static const size_t library_switches[] = {2,    4,    8,     16,    32,    64,    128,    256,    512,    1024,   2048,
                                          4096, 8192, 12288, 16384, 32768, 65536, 131072, 262144, 524288, 1048576};

/* The sizes of the test below at p for elements of elem bytes: each switch
 * size and its neighbours, the counts the libraries test (p, p', MPICH's
 * 8 p' bytes of 1-byte elements) and theirs, a sweep of powers of two and
 * odd sizes; in whole elements. */
static int switch_test_sizes(int p, size_t elem, size_t *sizes, int max)
{
    int n = 0;
    const size_t pof2 = (size_t)1 << (31 - __builtin_clz((unsigned)p));
    const size_t counts[] = {(size_t)p, pof2, 8 * pof2};
    for (size_t i = 0; i < sizeof library_switches / sizeof *library_switches; i++)
        for (int d = -1; d <= 1; d++)
            sizes[n++] = library_switches[i] + (size_t)d;
    for (size_t i = 0; i < 3; i++)
        for (int d = -1; d <= 1; d++)
            sizes[n++] = (counts[i] + (size_t)d) * elem;
    for (size_t b = 1; b <= ((size_t)1 << 22); b *= 2)
        sizes[n++] = b * elem;
    for (size_t b = 3; b < ((size_t)1 << 22); b = b * 3 + 2)
        sizes[n++] = b;
    int kept = 0;
    for (int i = 0; i < n && kept < max; i++)
        if (sizes[i] >= elem && sizes[i] % elem == 0)
            sizes[kept++] = sizes[i];
    return kept;
}

/*
 * Whatever the breakpoints hold, a call that runs ours has ours predicted
 * cheaper than the library's price for that call by model.margin (and, for
 * reduce, no dearer back to back), under MPICH's and Open MPI's mirrors, at
 * and around the sizes where the library's own choice changes: in 1-byte
 * elements, where the decision is also what the model decides afresh at
 * that size, and in 4- and 8-byte ones, whose counts the libraries test
 * (at p = 4, one double: Open MPI's ring falls back to recursive doubling,
 * 2.81 us, the price of our butterfly, where 8 bytes of 1-byte elements
 * run its ring, 8.40 us).
 */
START_TEST(test_margin_at_library_switches)
{
    const int libraries[] = {CS_LIBRARY_MPICH, CS_LIBRARY_OPENMPI};
    const int ps[] = {2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16};
    const unsigned variants[] = {C, 0, C | I, C | CS_PROB_EXACT};
    const size_t elems[] = {1, 4, 8};
    size_t sizes[256];
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < (int)(sizeof ps / sizeof *ps); i++)
            for (cs_coll coll = 0; coll < CS_COLL_LAST; coll++)
                for (int v = 0; v < 4; v++)
                    for (int e = 0; e < 3; e++) {
                        if (coll == CS_COLL_ALLTOALL && (elems[e] != 1 || (variants[v] & ~I)))
                            continue; /* alltoall: bytes, no operator */
                        cs_config_defaults(&cfg);
                        cfg.model.library = libraries[l];
                        memset(&cache, 0, sizeof cache);
                        const int n = switch_test_sizes(ps[i], elems[e], sizes, 256);
                        for (int j = 0; j < n; j++) {
                            cs_problem call = problem(coll, ps[i], sizes[j] / elems[e], elems[e], variants[v]);
                            cs_decision d;
                            cs_select(&cfg, &cache, &call, &d);
                            const char *name;
                            const double library = cs_library_price(&cfg.model, &call, &name);
                            if (d.alg->build) {
                                cs_params params = d.params;
                                const double ours = d.alg->cost(&cfg.model, &call, &params);
                                ck_assert_msg(ours < library * (1 - cfg.model.margin) &&
                                                  !loop_loses(&cfg.model, &call, d.alg, &params),
                                              "%s, %s p = %d, flags %u, %zu x %zu B: %s %.4g us, library's %s %.4g us",
                                              cs_library_name(libraries[l]), cs_coll_name(coll), ps[i], variants[v],
                                              call.count, call.elem, d.alg->name, ours * 1e6, name, library * 1e6);
                            }
                            if (elems[e] == 1) { /* what the model decides afresh; of two of ours, a tie */
                                const int fresh = brute_force_choice(&call, call.bytes), row = row_of(coll, d.alg);
                                cs_params params = d.params, fresh_params;
                                const int tie = row > 0 && fresh > 0 &&
                                                d.alg->cost(&cfg.model, &call, &params) <=
                                                    price_on_call(&call, fresh, &fresh_params) * (1 + 1e-12);
                                ck_assert_msg(row == fresh || tie, "%s, %s p = %d, flags %u, %zu B: %s, afresh %s",
                                              cs_library_name(libraries[l]), cs_coll_name(coll), ps[i], variants[v],
                                              call.bytes, d.alg->name, cs_alg_table(coll, &(int){0})[fresh]->name);
                            }
                        }
                    }
}
END_TEST

/* Tuning: a threshold b gives the k halving rounds whose blocks exceed b; no
 * b gives the k of least cost (checked against every k). */
/* A rule of <coll>.rules for the tests: p range, bytes range, choice. */
static void add_rule(cs_coll coll, int plo, int phi, size_t blo, size_t bhi, const char *spec)
{
    cs_coll_config *cc = &cfg.coll[coll];
    cs_rule *r = &cc->rules[cc->nrules++];
    char why[256];
    *r = (cs_rule){.p_lo = plo, .p_hi = phi, .bytes = {blo, bhi}, .line = 10 + cc->nrules};
    cs_params_init(&r->params);
    ck_assert_int_eq(cs_cfg_parse_pick(coll, spec, &r->choice, &r->alg, &r->params, why, sizeof why), 0);
}

/*
 * Rules: after forced, before native ranges and the model; the
 * first that holds decides and the decision names it; where rules exist
 * but none covers the call, or the rule's algorithm cannot run it, native,
 * to be safe; a rule of auto hands the call on to the model.
 */
START_TEST(test_rules)
{
    cs_decision d;
    add_rule(CS_COLL_ALLREDUCE, 2, 4, 0, 1023, "native");
    add_rule(CS_COLL_ALLREDUCE, 2, 6, 0, SIZE_MAX, "butterfly:k=1");
    add_rule(CS_COLL_ALLREDUCE, 5, 7, 0, SIZE_MAX, "ring:rmax=5");
    add_rule(CS_COLL_ALLREDUCE, 9, 16, 1024, SIZE_MAX, "auto");

    cs_problem prob = problem(CS_COLL_ALLREDUCE, 4, 16, 4, CS_PROB_COMMUTATIVE); /* 64 B: rule 1 */
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_str_eq(d.reason, "rule");
    ck_assert(d.rule == 1 && d.rule_line == 11);

    prob.count = 1024; /* 4 KiB at p = 4: rule 1 does not hold, rule 2 does */
    prob.bytes = 4096;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "butterfly");
    ck_assert(d.rule == 2 && d.params.k == 1 && d.predicted > 0);

    prob.p = 6; /* rule 2 holds first, but butterfly cannot run p = 6: native, and why */
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_str_eq(d.passed->name, "butterfly");
    ck_assert_ptr_nonnull(strstr(d.reason, "to be safe"));
    ck_assert_int_eq(d.rule, 2);

    prob.p = 7; /* rule 3; ring at p = 7 */
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "ring");
    ck_assert(d.rule == 3 && d.params.rmax == 5);

    prob.p = 12; /* rule 4: auto, the model decides (butterfly cannot: elimination or ring) */
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_int_eq(d.rule, 4);
    ck_assert_str_ne(d.alg->name, "native");
    ck_assert_str_ne(d.reason, "rule");

    prob.count = 16; /* p = 12 at 64 B: no rule covers it */
    prob.bytes = 64;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");
    ck_assert_str_eq(d.reason, "no rule covers this p and size: native, to be safe");
    ck_assert_int_eq(d.rule, 0);
    prob.p = 64;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "native");

    /* forced beats the rules; a native range does not */
    cfg.coll[CS_COLL_ALLREDUCE].nnative = 1;
    cfg.coll[CS_COLL_ALLREDUCE].native[0] = (cs_range){0, SIZE_MAX};
    prob.p = 7;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "ring");
    cfg.coll[CS_COLL_ALLREDUCE].choice = CS_CHOICE_FORCED;
    cfg.coll[CS_COLL_ALLREDUCE].alg = alg_named(CS_COLL_ALLREDUCE, "elimination");
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "elimination");
    ck_assert_int_eq(d.rule, 0);

    /* the other collectives have no rules: unchanged */
    prob = problem(CS_COLL_REDUCE, 64, 16, 4, CS_PROB_COMMUTATIVE);
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_int_eq(d.rule, 0);
    ck_assert_str_ne(d.reason, "no rule covers this p and size: native, to be safe");
}
END_TEST

/*
 * A rules_only row (the linear allreduce): under the model collshim-calibrate
 * --fit measured on the lab's fat tree (alpha 2 us, o 2.4 ns) it is the
 * cheapest at p = 64 and 4 KiB by a factor of 2, yet neither the model nor
 * the breakpoints choose it, at any size; a rule or a forced choice runs it,
 * priced.
 */
START_TEST(test_rules_only_row)
{
    const cs_model fattree = {
        .alpha = 2.0e-6, .beta = 1.0e-10, .overhead = 2.4e-9, .margin = 0.1, .library = CS_LIBRARY_SMPI_MPICH};
    int n, linear = -1;
    const cs_alg *const *table = cs_alg_table(CS_COLL_ALLREDUCE, &n);
    cfg.model = fattree;
    for (int a = 1; a < n; a++)
        linear = !strcmp(table[a]->name, "linear") ? a : linear;
    ck_assert_int_ge(linear, 1);
    ck_assert(table[linear]->rules_only);
    cs_problem prob = problem(CS_COLL_ALLREDUCE, 64, 512, 8, CS_PROB_COMMUTATIVE);
    cs_params params;
    const double ours = price_on_call(&prob, linear, &params);
    for (int a = 1; a < n; a++)
        ck_assert(a == linear || 2 * ours < price_on_call(&prob, a, &params));
    ck_assert(2 * ours < price_on_call(&prob, 0, &params));

    cs_decision d;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_ptr_ne(d.alg, table[linear]); /* the library's (or the butterfly) */
    cs_breakpoints bp = {0};
    cs_breakpoints_compute(&cfg.model, &prob, &bp);
    for (int i = 0; i < bp.n; i++)
        ck_assert_int_ne(bp.alg[i], linear);

    add_rule(CS_COLL_ALLREDUCE, 64, 64, 1024, 8192, "linear");
    memset(&cache, 0, sizeof cache);
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_ptr_eq(d.alg, table[linear]);
    ck_assert(d.rule == 1 && fabs(d.predicted - ours) <= 1e-12 * ours);
    cfg.coll[CS_COLL_ALLREDUCE].nrules = 0;
    cfg.coll[CS_COLL_ALLREDUCE].choice = CS_CHOICE_FORCED;
    cfg.coll[CS_COLL_ALLREDUCE].alg = table[linear];
    prob = problem(CS_COLL_ALLREDUCE, 7, 3, 4, 0); /* any p, count < p, non-commutative */
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_ptr_eq(d.alg, table[linear]);
}
END_TEST

/*
 * MPICH's scattered alltoall (medium blocks) posts 32 blocks at a time, the
 * own block in the first batch: priced as linear:w=32, the same as linear up
 * to p = 32, one alpha more a batch beyond (p = 33: two batches).
 */
START_TEST(test_library_scattered_throttled)
{
    const cs_alg *linear = alg_named(CS_COLL_ALLTOALL, "linear");
    cs_params all, w32;
    cs_params_init(&all);
    cs_params_init(&w32);
    ck_assert_int_eq(linear->parse("w=32", &w32), 0);
    const int ps[] = {8, 32, 33, 64, 96};
    for (int i = 0; i < 5; i++) {
        const char *name;
        cs_problem prob = problem(CS_COLL_ALLTOALL, ps[i], 1024, 1, 0);
        const double lib = cs_library_price(&cfg.model, &prob, &name);
        ck_assert_str_eq(name, "scattered");
        ck_assert_double_eq_tol(lib, linear->cost(&cfg.model, &prob, &w32), 1e-15);
        const double batches = (ps[i] + 31) / 32, extra = lib - linear->cost(&cfg.model, &prob, &all);
        if (batches == 1)
            ck_assert_double_eq_tol(extra, 0.0, 1e-15);
        else /* at least an alpha a batch more: the batches do not overlap */
            ck_assert_double_ge(extra, (batches - 1) * cfg.model.alpha * (1 - 1e-9));
    }
}
END_TEST

/* The mirrors' prices are the rows they name, or their closed forms. */
START_TEST(test_library_mirror_prices)
{
    const char *name;
    const cs_model *mo = &cfg.model;
    cs_params params;

    /* SMPI's mpich selector: mvapich2_scatter_dest, batches of 4 */
    cfg.model.library = CS_LIBRARY_SMPI_MPICH;
    cs_problem prob = problem(CS_COLL_ALLTOALL, 64, 512, 1, 0);
    const cs_alg *linear = alg_named(CS_COLL_ALLTOALL, "linear");
    cs_params_init(&params);
    ck_assert_int_eq(linear->parse("w=4", &params), 0);
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name), linear->cost(mo, &prob, &params), 1e-15);
    /* MPICH's scattered posts 32 at a time: dearer at p = 64 than every block at once, cheaper than 4 */
    cfg.model.library = CS_LIBRARY_MPICH;
    ck_assert_double_lt(cs_library_price(mo, &prob, &name), linear->cost(mo, &prob, &params));

    /* Open MPI: a binary tree of 5 ranks, 2 levels of two children */
    cfg.model.library = CS_LIBRARY_OPENMPI;
    prob = problem(CS_COLL_REDUCE, 5, 250, 4, C);
    const double m = 1000.0;
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name),
                            2 * (mo->alpha + 3 * mo->overhead + 2 * m * (mo->beta + mo->gamma)), 1e-15);
    /* Open MPI at p = 200, 1000 B: its reduce (binomial, into the root's buffer: no copy of the
     * result) and its broadcast (a binary tree) */
    prob = problem(CS_COLL_ALLREDUCE, 200, 250, 4, C);
    cs_problem reduce = prob;
    reduce.coll = CS_COLL_REDUCE;
    const cs_alg *binomial = alg_named(CS_COLL_REDUCE, "binomial");
    ck_assert_double_eq_tol(
        cs_library_price(mo, &prob, &name),
        binomial->cost(mo, &reduce, NULL) - mo->rho * m + 7 * (mo->alpha + 3 * mo->overhead + 2 * m * mo->beta), 1e-15);
    /* Open MPI's ring: its copy of the send buffer, then 2 (p - 1) steps of m / p; in place,
     * no copy */
    prob = problem(CS_COLL_ALLREDUCE, 3, 1250, 4, C);
    const double ring = 4 * (mo->alpha + 2 * mo->overhead) + 2.0 / 3 * 5000 * (2 * mo->beta + mo->gamma);
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name), ring + 5000 * mo->rho, 1e-15);
    prob.flags |= CS_PROB_INPLACE;
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name), ring, 1e-15);
}
END_TEST

/* On nodes (8 ranks a node, a node level and a node's link) the library's
 * own trees are priced as ours are: Open MPI's binary tree at p = 16 (its
 * reduce of 1 KiB), ranks numbered level by level, has its top 3 levels on
 * the first node and its last off it, every rank of a node sending at once;
 * MPICH's ch4 reduces on the other nodes, across them, then on the root's
 * (binomial trees of 8: ch4_coll_impl.h, composition_beta); SMPI's two-level allreduce
 * is a node's binomial reduce, the first ranks' recursive doubling off the
 * nodes and a node's broadcast. */
START_TEST(test_library_on_nodes)
{
    const char *name;
    cfg.model = (cs_model){.alpha = 2e-6,
                           .beta = 8e-11,
                           .gamma = 2.5e-10,
                           .rho = 1e-10,
                           .overhead = 1e-7,
                           .alpha_node = 2e-7,
                           .beta_node = 2.5e-11,
                           .node_levels = 1,
                           .beta_link = 7e-11,
                           .margin = 0.1,
                           .library = CS_LIBRARY_OPENMPI};
    const cs_model *mo = &cfg.model;
    cs_problem prob = problem(CS_COLL_REDUCE, 16, 256, 4, C);
    prob.ppn = 8;
    const double m = 1024.0, off_beta = 8 * 7e-11;
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name),
                            3 * (mo->alpha_node + 3 * mo->overhead + 2 * m * (mo->beta_node + mo->gamma)) +
                                (mo->alpha + 3 * mo->overhead + 2 * m * (off_beta + mo->gamma)),
                            1e-15);
    ck_assert_str_eq(name, "binary tree");
    prob.ppn = 0; /* the placement unknown: one level */
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name),
                            4 * (mo->alpha + 3 * mo->overhead + 2 * m * (mo->beta + mo->gamma)), 1e-15);

    cfg.model.library = CS_LIBRARY_MPICH;
    prob = problem(CS_COLL_REDUCE, 64, 64, 4, C);
    prob.ppn = 8;
    const cs_problem node8 = problem(CS_COLL_REDUCE, 8, 64, 4, C);
    const cs_model on8 = cs_model_on_node(mo), off1 = cs_model_off_node(mo, 1);
    ck_assert_double_eq_tol(
        cs_library_price(mo, &prob, &name),
        2 * cs_reduce_binomial.cost(&on8, &node8, NULL) + cs_reduce_binomial.cost(&off1, &node8, NULL), 1e-15);
    cs_problem flat = prob;
    flat.ppn = 0;
    ck_assert_double_lt(cs_library_price(mo, &prob, &name), cs_library_price(mo, &flat, &name));

    cfg.model.library = CS_LIBRARY_SMPI_MPICH;
    prob = problem(CS_COLL_ALLREDUCE, 64, 64, 4, C);
    prob.ppn = 8;
    cs_problem node = problem(CS_COLL_REDUCE, 8, 64, 4, C), leaders = problem(CS_COLL_ALLREDUCE, 8, 64, 4, C);
    const cs_model on = cs_model_on_node(mo), off = cs_model_off_node(mo, 1);
    cs_params k0;
    cs_params_init(&k0);
    ck_assert_int_eq(cs_allreduce_butterfly.parse("k=0", &k0), 0);
    ck_assert_double_eq_tol(cs_library_price(mo, &prob, &name),
                            cs_reduce_binomial.cost(&on, &node, NULL) +
                                cs_allreduce_butterfly.cost(&off, &leaders, &k0) +
                                3 * (on.alpha + 2 * mo->overhead + on.beta * 256.0),
                            1e-15);
    ck_assert_str_eq(name, "two-level recursive doubling");
}
END_TEST

/* What Open MPI runs where the user forced coll/tuned's algorithm
 * (model.library_forced, from its MCA parameters): that algorithm, with
 * coll/base's own fallbacks, whatever its tables say; not under SMPI's ompi
 * selector, which does not read them, nor for a number Open MPI 4.1 lacks. */
static const struct {
    int library;
    cs_coll coll;
    int forced, p;
    size_t count, elem;
    unsigned flags;
    const char *name;
} forced[] = {
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 2, 64, 512, 1, 0, "pairwise"},       /* the table: modified Bruck */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 3, 40, 512, 1, 0, "modified Bruck"}, /* the table: linear */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 4, 64, 512, 1, 0, "linear"},         /* linear_sync */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 2, 64, 512, 1, I, "in-place sendrecv-replace"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 6, 64, 512, 1, 0, "modified Bruck"}, /* no algorithm 6 in 4.1 */
    {CS_LIBRARY_SMPI_OMPI, CS_COLL_ALLTOALL, 2, 64, 512, 1, 0, "modified Bruck"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 40, 1000, 4, C, "ring"},             /* the table: Rabenseifner */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 40, 1000, 4, 0, "ring"},             /* the ring does not ask */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 40, 39, 4, C, "recursive doubling"}, /* count < p */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 5, 40, 1000, 4, C, "segmented ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 6, 40, 1000, 4, 0, "linear reduce and broadcast"}, /* it asks */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 6, 40, 31, 4, C, "linear reduce and broadcast"},   /* count < p' */
    {CS_LIBRARY_SMPI_OMPI, CS_COLL_ALLREDUCE, 6, 40, 31, 4, C, "recursive doubling"},          /* its table, not read */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 1, 64, 2, 4, C, "linear reduce and broadcast"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 64, 1024, 4, C, "chain"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 3, 64, 1024, 4, C, "pipeline"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 7, 64, 1024, 4, C, "reduce-scatter and gather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 7, 64, 1024, 4, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 8, 64, 1024, 4, C, "binomial"}, /* no algorithm 8 in 4.1 */
};

START_TEST(test_library_forced)
{
    const char *name;
    cfg.model.library = forced[_i].library;
    cfg.model.library_forced[forced[_i].coll] = (unsigned char)forced[_i].forced;
    cs_problem prob = problem(forced[_i].coll, forced[_i].p, forced[_i].count, forced[_i].elem, forced[_i].flags);
    const double price = cs_library_price(&cfg.model, &prob, &name);
    memset(cfg.model.library_forced, 0, sizeof cfg.model.library_forced);
    ck_assert_msg(!strcmp(name, forced[_i].name), "%s, %s %d forced at p = %d, %zu B: '%s', not '%s'",
                  cs_library_name(forced[_i].library), cs_coll_name(prob.coll), forced[_i].forced, prob.p, prob.bytes,
                  name, forced[_i].name);
    ck_assert_double_gt(price, 0.0);
}
END_TEST

/* Forced chain: coll_tuned_reduce_algorithm_chain_fanout's 4 chains of the
 * 63 others (16 hops at most), the root's receive of the 4 ends; the tables'
 * chain is one (p - 1 hops). */
START_TEST(test_library_forced_chain)
{
    const char *name;
    const cs_model *mo = &cfg.model;
    cfg.model.library = CS_LIBRARY_OPENMPI;
    const cs_problem prob = problem(CS_COLL_REDUCE, 64, 1024, 4, C);
    const double m = 4096.0, hop = mo->alpha + 2 * mo->overhead + m * (mo->beta + mo->gamma);
    cfg.model.library_forced[CS_COLL_REDUCE] = 2;
    const double chain4 = cs_library_price(mo, &prob, &name);
    cfg.model.library_forced[CS_COLL_REDUCE] = 3;
    const double pipeline = cs_library_price(mo, &prob, &name);
    memset(cfg.model.library_forced, 0, sizeof cfg.model.library_forced);
    ck_assert_double_eq_tol(chain4, 15 * hop + mo->alpha + 5 * mo->overhead + 4 * m * (mo->beta + mo->gamma), 1e-15);
    ck_assert_double_eq_tol(pipeline, 63 * hop, 1e-15);
}
END_TEST

/* Which library a version string names, and the names' round trip. */
START_TEST(test_library_detect)
{
    ck_assert_int_eq(cs_library_detect("MPICH Version:      4.0.2\nMPICH Release date: Thu Apr  7 2022"),
                     CS_LIBRARY_MPICH);
    ck_assert_int_eq(cs_library_detect("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"), CS_LIBRARY_OPENMPI);
    ck_assert_int_eq(cs_library_detect("SMPI Version 4.1. Copyright The SimGrid Team 2007-2022"),
                     CS_LIBRARY_SMPI_MPICH);
    ck_assert_int_eq(cs_library_detect(""), CS_LIBRARY_MPICH);
    for (int i = 0; i < CS_LIBRARY_COUNT; i++)
        ck_assert_int_eq(cs_library_parse(cs_library_name(i)), i);
    ck_assert_int_eq(cs_library_parse("mvapich2"), -1);
    ck_assert_str_eq(cs_library_name(CS_LIBRARY_COUNT), "?");
}
END_TEST

/*
 * linear alltoall (every block in flight) pays one alpha where direct pays
 * p - 1 (the critical-path model overlaps a rank's concurrent messages), and
 * the same bytes on each link: without overhead never more than direct, not
 * in place. On a latency-bound machine the model takes it for small blocks
 * (where MPICH runs Bruck, log2 p alphas); a rule runs it too.
 */
START_TEST(test_linear_overlaps)
{
    cs_decision d;
    const int ps[] = {2, 3, 6, 8, 12, 64, 96};
    const cs_alg *linear = alg_named(CS_COLL_ALLTOALL, "linear"), *direct = alg_named(CS_COLL_ALLTOALL, "direct");
    cs_model no_overhead = cfg.model;
    no_overhead.overhead = 0.0;
    for (int i = 0; i < 7; i++)
        for (size_t bytes = 1; bytes < ((size_t)1 << 24); bytes = bytes * 5 + 3) {
            cs_problem prob = problem(CS_COLL_ALLTOALL, ps[i], bytes, 1, 0);
            ck_assert_double_le(linear->cost(&no_overhead, &prob, NULL),
                                direct->cost(&no_overhead, &prob, NULL) * (1 + 1e-12)); /* rounding */
        }
    cfg.model.alpha = 1e-3;
    cs_problem small = problem(CS_COLL_ALLTOALL, 96, 8, 1, 0);
    cs_select(&cfg, &cache, &small, &d);
    ck_assert_str_eq(d.alg->name, "linear");
    ck_assert(strstr(d.reason, "breakpoint"));
    cs_config_defaults(&cfg);
    memset(&cache, 0, sizeof cache);
    add_rule(CS_COLL_ALLTOALL, 2, 8, 0, 4096, "linear");
    cs_problem prob = problem(CS_COLL_ALLTOALL, 6, 1024, 1, 0);
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "linear");
    ck_assert_str_eq(d.reason, "rule");
}
END_TEST

START_TEST(test_butterfly_tune)
{
    const cs_alg *bf = alg_named(CS_COLL_ALLREDUCE, "butterfly");
    for (int n = 0; n <= 7; n++) {
        for (size_t count = 1; count <= (1u << 20); count *= 7) {
            cs_problem prob = problem(CS_COLL_ALLREDUCE, 1 << n, count, 8, 0);
            cs_params params;
            cs_params_init(&params);
            params.b = 4096;
            bf->tune(&cfg.model, &prob, &params);
            for (int z = 0; z < params.k; z++)
                ck_assert_double_gt((double)prob.bytes / ldexp(1.0, z), 4096.0);
            ck_assert_int_le(params.k, n);

            cs_params_init(&params);
            bf->tune(&cfg.model, &prob, &params);
            double best = bf->cost(&cfg.model, &prob, &params);
            for (int k = 0; k <= n && (count >> k) > 0; k++) {
                cs_params other = params;
                other.k = k;
                ck_assert_double_le(best, bf->cost(&cfg.model, &prob, &other) * (1 + 1e-12));
            }
        }
    }
}
END_TEST

/* Force spec on coll for the file or the environment. */
static void force(cs_coll coll, const char *spec, int from_env)
{
    const char *why;
    cs_coll_config *cc = &cfg.coll[coll];
    cc->choice = CS_CHOICE_FORCED;
    cc->alg = cs_alg_lookup(coll, spec, &cc->params, &why);
    cc->from_env = from_env;
    ck_assert_ptr_nonnull(cc->alg);
}

/* An allreduce of 2 floats at p under the environment's forced spec, decided. */
static cs_problem decide_forced(const char *spec, int p, cs_decision *d)
{
    force(CS_COLL_ALLREDUCE, spec, 1);
    cs_problem prob = problem(CS_COLL_ALLREDUCE, p, 2, 4, CS_PROB_COMMUTATIVE);
    cs_select(&cfg, &cache, &prob, d);
    return prob;
}

/* The line cs_select would say for d: want, then the spec of what runs. */
static void warning_is(const cs_problem *prob, const cs_decision *d, const char *want)
{
    char text[1024], full[1024], ran[128];
    cs_alg_spec(d->alg, &d->params, ran, sizeof ran);
    snprintf(full, sizeof full, "%s%s\n", want, ran);
    ck_assert_int_gt(cs_select_warning(&cfg, prob, d, text, sizeof text), 0);
    ck_assert_str_eq(text, full);
}

/* The words for a forced algorithm that cannot run: what was forced and
 * where, why not here, what runs instead. */
START_TEST(test_warning_cannot_run)
{
    char text[1024];
    cs_decision d;
    cs_problem prob = decide_forced("butterfly", 3, &d);
    ck_assert_str_ne(d.alg->name, "butterfly");
    warning_is(&prob, &d,
               "collshim: COLLSHIM_ALLREDUCE=butterfly cannot run here: butterfly needs p a power of two (p = 3, 8 "
               "bytes); such calls are decided, as if nothing were forced: this call runs ");

    /* from a file: the key and the file */
    force(CS_COLL_ALLREDUCE, "butterfly", 0);
    strcpy(cfg.source, "machine.yaml");
    cs_select(&cfg, &cache, &prob, &d);
    cs_select_warning(&cfg, &prob, &d, text, sizeof text);
    ck_assert_msg(strstr(text, "collshim: allreduce.algorithm: butterfly (machine.yaml) cannot run here"), "%s", text);

    /* where it runs, or nothing is forced: nothing to say */
    prob.p = 4;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "butterfly");
    ck_assert_int_eq(cs_select_warning(&cfg, &prob, &d, text, sizeof text), 0);
    cfg.coll[CS_COLL_ALLREDUCE].choice = CS_CHOICE_AUTO;
    prob.p = 3;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_int_eq(cs_select_warning(&cfg, &prob, &d, text, sizeof text), 0);
}
END_TEST

/* A parameter clamped to what the call can take: the words name both. */
START_TEST(test_warning_clamped)
{
    char text[1024];
    cs_decision d;
    cs_problem prob = decide_forced("ring:k=9", 6, &d);
    ck_assert_str_eq(d.alg->name, "ring");
    ck_assert_int_lt(d.params.k, 9);
    char want[256];
    snprintf(want, sizeof want,
             "collshim: COLLSHIM_ALLREDUCE=ring:k=9: out of range for this call (p = 6, 8 bytes): k=9 clamped to "
             "k=%d; it runs ",
             d.params.k);
    warning_is(&prob, &d, want);
    /* a k the call can take: nothing to say */
    force(CS_COLL_ALLREDUCE, "ring:k=1", 1);
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_int_eq(d.params.k, 1);
    ck_assert_int_eq(cs_select_warning(&cfg, &prob, &d, text, sizeof text), 0);
}
END_TEST

/* Said once per process for each (collective, reason), and only by the
 * process that speaks for the job. */
START_TEST(test_warning_once)
{
    char path[64], text[4096] = "";
    snprintf(path, sizeof path, "%s/cs_check_warn.%ld", P_tmpdir, (long)getpid());
    ck_assert_ptr_nonnull(freopen(path, "w", stderr));
    cs_decision d;
    cs_problem prob = decide_forced("butterfly", 3, &d); /* silent: cfg.says is 0 */
    cfg.says = 1;
    for (int i = 0; i < 3; i++) {
        cs_select(&cfg, &cache, &prob, &d);
        prob.count = 2 + (size_t)i; /* other sizes: the same reason */
        prob.bytes = prob.count * 4;
    }
    prob.p = 5; /* another p, the same restriction: said already */
    cs_select(&cfg, &cache, &prob, &d);
    prob.flags &= ~CS_PROB_CONTIG; /* another restriction: said too */
    prob.p = 4;
    cs_select(&cfg, &cache, &prob, &d);
    fflush(stderr);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    const size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    remove(path);
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    ck_assert_msg(lines == 2, "expected 2 lines, got:\n%s", text);
    ck_assert_ptr_nonnull(strstr(text, "needs p a power of two (p = 3, 8 bytes)"));
    ck_assert_ptr_nonnull(strstr(text, "needs a contiguous datatype (p = 4"));
}
END_TEST

Suite *make_select_suite(void)
{
    Suite *s = suite_create("select");
    TCase *tc = tcase_create("select");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_restriction_words);
    tcase_add_loop_test(tc, test_rule_order, 0, sizeof(rules) / sizeof(rules[0]));
    tcase_add_test(tc, test_log_prices);
    tcase_add_test(tc, test_native_ranges);
    tcase_add_test(tc, test_reduce_loop_keeps_library);
    tcase_add_test(tc, test_noncontig_declined);
    tcase_add_test(tc, test_none_applies_shared);
    tcase_add_test(tc, test_shared_restriction);
    tcase_add_test(tc, test_breakpoints_agree_with_model);
    tcase_add_test(tc, test_breakpoints_placed);
    tcase_add_test(tc, test_breakpoints_any_element_size);
    tcase_add_test(tc, test_margin_at_library_switches);
    tcase_add_test(tc, test_butterfly_tune);
    tcase_add_test(tc, test_rules);
    tcase_add_test(tc, test_rules_only_row);
    tcase_add_test(tc, test_linear_overlaps);
    tcase_add_test(tc, test_library_scattered_throttled);
    tcase_add_loop_test(tc, test_library_forced, 0, sizeof forced / sizeof forced[0]);
    tcase_add_test(tc, test_library_forced_chain);
    tcase_add_test(tc, test_library_mirror_prices);
    tcase_add_test(tc, test_library_on_nodes);
    tcase_add_test(tc, test_library_detect);
    tcase_add_test(tc, test_warning_cannot_run);
    tcase_add_test(tc, test_warning_clamped);
    tcase_add_test(tc, test_warning_once);
    suite_add_tcase(s, tc);
    return s;
}
