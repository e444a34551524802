/*
 * Windowed reduction (src/coll/window/): recursive combination in the
 * simulator for every p <= 64, every window n and offset r, with the
 * bracketing-recording operator (not commutative): rank i must get exactly
 * the vectors of ranks max(0, i - r) .. min(i - r + n - 1, p - 1), combined
 * left to right (eq. (1) of Szymanski et al.). Also the counts of §3.1:
 * ceil(log2 n) rounds, at most floor(log2 n) + popcount(n) - 1 combining
 * steps on every rank (log2 n + popcount(n) in the paper's words; 6 for
 * n = 15), and the size of the messages.
 */
#include <check.h>
#include <mpi.h>
#include <stdlib.h>

#include "coll/window/window.h"
#include "sim.h"

enum { WIN_MAX_P = 64 };

static int win_ceil_log2(int n)
{
    int c = 0;
    while ((1 << c) < n)
        c++;
    return c;
}

static int win_floor_log2(int n)
{
    int h = 0;
    while ((2 << h) <= n)
        h++;
    return h;
}

/* Counts of one rank's schedule: rounds with messages, combining steps, the
 * largest message in vectors. */
static void win_counts(const cs_sched *s, size_t m, int *rounds, int *reduces, int *vectors)
{
    cs_sched_stats st;
    const cs_model unit = {0};
    cs_sched_stats_get(s, &unit, &st);
    *rounds = st.rounds;
    *reduces = *vectors = 0;
    for (size_t i = 0; i < s->nsteps; i++) {
        *reduces += s->steps[i].kind == CS_STEP_REDUCE;
        if (s->steps[i].kind == CS_STEP_SEND && (int)(s->steps[i].len / m) > *vectors)
            *vectors = (int)(s->steps[i].len / m);
    }
}

/* One p, all n and r; count elements, in place or not. */
static void win_check_p(int p, size_t count, int inplace)
{
    cs_sched *sc = sim_scheds_new(p);
    int *lo = malloc(sizeof(int) * (size_t)p), *hi = malloc(sizeof(int) * (size_t)p);
    const cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = p, .count = count, .elem = 4, .bytes = 4 * count,
                             .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u)};
    ck_assert(sc && lo && hi);
    for (int n = 1; n <= p; n++)
        for (int r = 0; r < n; r++) {
            cs_window_plan plan;
            int most_rounds = 0;
            ck_assert_int_eq(cs_window_plan_make(p, n, r, 0, &plan), MPI_SUCCESS);
            ck_assert_int_eq(plan.rounds, win_ceil_log2(n));
            for (int i = 0; i < p; i++) {
                int rounds, reduces, vectors;
                cs_sched_reset(&sc[i]);
                ck_assert_int_eq(cs_window_build(&plan, i, count, 4, inplace, &sc[i]), MPI_SUCCESS);
                lo[i] = i - r < 0 ? 0 : i - r;
                hi[i] = i - r + n - 1 > p - 1 ? p - 1 : i - r + n - 1;
                win_counts(&sc[i], 4 * count, &rounds, &reduces, &vectors);
                ck_assert_msg(reduces <= win_floor_log2(n) + __builtin_popcount((unsigned)n) - 1,
                              "p=%d n=%d r=%d rank %d: %d combining steps", p, n, r, i, reduces);
                /* two partial vectors (B and R of Fig. 2), and one of the
                 * padding position the rank stands for near an edge */
                ck_assert_msg(vectors <= 3, "p=%d n=%d r=%d rank %d: a message of %d vectors", p, n, r, i, vectors);
                ck_assert_msg(sc[i].nrounds <= (n > 1 ? win_ceil_log2(n) : 1), "p=%d n=%d r=%d rank %d: %d rounds", p,
                              n, r, i, sc[i].nrounds);
                most_rounds = rounds > most_rounds ? rounds : most_rounds;
            }
            /* every shift round moves data somewhere */
            ck_assert_msg(most_rounds == win_ceil_log2(n), "p=%d n=%d r=%d: %d rounds with messages", p, n, r,
                          most_rounds);
            sim_report rep;
            char buf[2048];
            ck_assert_msg(sim_run_spans(&prob, sc, 0, lo, hi, &rep) == 0, "p=%d n=%d r=%d count=%zu%s: %s", p, n, r,
                          count, inplace ? " in place" : "", sim_report_str(&rep, buf, sizeof buf));
            cs_window_plan_free(&plan);
        }
    free(lo);
    free(hi);
    sim_scheds_free(sc, p);
}

START_TEST(test_recursive_all)
{
    win_check_p(_i, 1, 0);
}
END_TEST

START_TEST(test_recursive_small)
{
    win_check_p(_i, 3, 0);
    win_check_p(_i, 2, 1);
}
END_TEST

/* Away from the edges the counts are exactly the paper's: a rank whose
 * window is whole does floor(log2 n) + popcount(n) - 1 combining steps, and
 * a message between such ranks holds at most two vectors. */
START_TEST(test_counts_interior)
{
    static const int ns[] = {2, 3, 5, 7, 8, 11, 15, 16, 21};
    const int p = 64;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
        for (int r = 0; r < ns[t]; r++) {
            const int n = ns[t];
            cs_window_plan plan;
            cs_sched s;
            ck_assert_int_eq(cs_window_plan_make(p, n, r, 0, &plan), MPI_SUCCESS);
            cs_sched_init(&s);
            for (int i = 2 * n; i < p - 2 * n; i++) {
                int rounds, reduces, vectors;
                cs_sched_reset(&s);
                ck_assert_int_eq(cs_window_build(&plan, i, 1, 4, 0, &s), MPI_SUCCESS);
                win_counts(&s, 4, &rounds, &reduces, &vectors);
                ck_assert_int_eq(rounds, win_ceil_log2(n));
                ck_assert_int_eq(reduces, win_floor_log2(n) + __builtin_popcount((unsigned)n) - 1);
                ck_assert_int_le(vectors, 2);
            }
            cs_sched_free(&s);
            cs_window_plan_free(&plan);
        }
}
END_TEST

START_TEST(test_plan_args)
{
    cs_window_plan plan;
    ck_assert_int_eq(cs_window_plan_make(4, 0, 0, 0, &plan), MPI_ERR_ARG);
    ck_assert_int_eq(cs_window_plan_make(4, 5, 0, 0, &plan), MPI_ERR_ARG);
    ck_assert_int_eq(cs_window_plan_make(4, 3, 3, 0, &plan), MPI_ERR_ARG);
    ck_assert_int_eq(cs_window_plan_make(4, 3, -1, 0, &plan), MPI_ERR_ARG);
    ck_assert_int_eq(cs_window_plan_make(4, 3, 2, 0, &plan), MPI_SUCCESS);
    ck_assert_int_eq(plan.rounds, 2);
    cs_window_plan_free(&plan);
}
END_TEST

/* The wrapped ring with n = p (the allreduce row "windowed") for other
 * windows too: rank i gets its cyclic window, in rank order. */
START_TEST(test_wrapped)
{
    const int p = _i;
    cs_sched *sc = sim_scheds_new(p);
    int lo[WIN_MAX_P], hi[WIN_MAX_P];
    const cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = p, .count = 2, .elem = 4, .bytes = 8,
                             .flags = CS_PROB_CONTIG};
    cs_window_plan plan;
    ck_assert_int_eq(cs_window_plan_make(p, p, 0, 1, &plan), MPI_SUCCESS);
    for (int i = 0; i < p; i++) {
        cs_sched_reset(&sc[i]);
        ck_assert_int_eq(cs_window_build(&plan, i, 2, 4, 0, &sc[i]), MPI_SUCCESS);
        lo[i] = 0;
        hi[i] = p - 1;
    }
    sim_report rep;
    char buf[2048];
    ck_assert_msg(sim_run_spans(&prob, sc, SIM_RELAX_SHAPE, lo, hi, &rep) == 0, "p=%d: %s", p,
                  sim_report_str(&rep, buf, sizeof buf));
    ck_assert_int_eq(plan.rounds, win_ceil_log2(p));
    cs_window_plan_free(&plan);
    sim_scheds_free(sc, p);
}
END_TEST

Suite *make_window_suite(void)
{
    Suite *suite = suite_create("window");
    TCase *tc = tcase_create("recursive");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_plan_args);
    tcase_add_test(tc, test_counts_interior);
    tcase_add_loop_test(tc, test_recursive_all, 1, WIN_MAX_P + 1);
    tcase_add_loop_test(tc, test_recursive_small, 1, 17);
    tcase_add_loop_test(tc, test_wrapped, 1, WIN_MAX_P + 1);
    suite_add_tcase(suite, tc);
    return suite;
}
