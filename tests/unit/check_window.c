/*
 * Windowed reduction (src/coll/window/): recursive combination and
 * prefix-suffix in the simulator for every p <= 64, every window n and
 * offset r, with the bracketing-recording operator (not commutative): rank
 * i must get exactly the vectors of ranks max(0, i - r) .. min(i - r + n - 1,
 * p - 1), combined left to right (eq. (1) of Szymanski et al.). Also the
 * counts of §3.1: ceil(log2 n) rounds, at most floor(log2 n) + popcount(n) - 1
 * combining steps on every rank (log2 n + popcount(n) in the paper's words;
 * 6 for n = 15), and the size of the messages; of §3.2: ceil(log2 n) + 1
 * rounds of one vector a message. Prefix-suffix with the inverse runs on
 * integer sums in a small lock-step executor of its own, and the method
 * choice is checked against the built schedules' costs. §3.3: the
 * factorization algorithm's step counts against Table 1. */
#include <check.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/window/window.h"
#include "config/config.h"
#include "select/select.h"
#include "shard.h"
#include "sim.h"

enum { WIN_MAX_P = 64 };

static int win_n, win_r; /* the window of win_run_sums */

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

/* One p, all n and r, by `method`; count elements, in place or not. */
static void win_check_p(cs_window_method method, int p, size_t count, int inplace)
{
    cs_sched *sc = sim_scheds_new(p);
    int *lo = malloc(sizeof(int) * (size_t)p), *hi = malloc(sizeof(int) * (size_t)p);
    const cs_problem prob = {.coll = CS_COLL_ALLREDUCE,
                             .p = p,
                             .count = count,
                             .elem = 4,
                             .bytes = 4 * count,
                             .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u)};
    const int ps = method == CS_WIN_PREFIX_SUFFIX;
    ck_assert(sc && lo && hi);
    for (int n = 1; n <= p; n++)
        for (int r = 0; r < n; r++) {
            int most_rounds = 0;
            for (int i = 0; i < p; i++) {
                int rounds, reduces, vectors;
                cs_sched_reset(&sc[i]);
                ck_assert_int_eq(cs_window_method_build(method, p, n, r, i, count, 4, inplace, &sc[i]), MPI_SUCCESS);
                lo[i] = i - r < 0 ? 0 : i - r;
                hi[i] = i - r + n - 1 > p - 1 ? p - 1 : i - r + n - 1;
                win_counts(&sc[i], 4 * count, &rounds, &reduces, &vectors);
                if (ps) {
                    /* T and one of P, S per scan round, one step to join S and P; one vector a message */
                    ck_assert_msg(reduces <= 2 * win_ceil_log2(n) + 1, "p=%d n=%d r=%d rank %d: %d combining steps", p,
                                  n, r, i, reduces);
                    ck_assert_msg(vectors <= 1, "p=%d n=%d r=%d rank %d: a message of %d vectors", p, n, r, i, vectors);
                } else {
                    ck_assert_msg(reduces <= win_floor_log2(n) + __builtin_popcount((unsigned)n) - 1,
                                  "p=%d n=%d r=%d rank %d: %d combining steps", p, n, r, i, reduces);
                    /* two partial vectors (B and R of Fig. 2), and one of the
                     * padding position the rank stands for near an edge */
                    ck_assert_msg(vectors <= 3, "p=%d n=%d r=%d rank %d: a message of %d vectors", p, n, r, i, vectors);
                }
                ck_assert_msg(sc[i].nrounds <= (n > 1 ? win_ceil_log2(n) + ps : 1), "p=%d n=%d r=%d rank %d: %d rounds",
                              p, n, r, i, sc[i].nrounds);
                most_rounds = rounds > most_rounds ? rounds : most_rounds;
            }
            /* every shift round moves data somewhere; prefix-suffix: every
             * scan round and the last, unless no window needs a message there */
            ck_assert_msg(most_rounds >= win_ceil_log2(n) && most_rounds <= win_ceil_log2(n) + (ps && n > 1),
                          "p=%d n=%d r=%d: %d rounds with messages", p, n, r, most_rounds);
            sim_report rep;
            char buf[2048];
            ck_assert_msg(sim_run_spans(&prob, sc, 0, lo, hi, &rep) == 0, "%s p=%d n=%d r=%d count=%zu%s: %s",
                          cs_window_method_name(method), p, n, r, count, inplace ? " in place" : "",
                          sim_report_str(&rep, buf, sizeof buf));
        }
    free(lo);
    free(hi);
    sim_scheds_free(sc, p);
}

/* Both methods without the inverse (the simulator's operator has none). */
START_TEST(test_methods_all)
{
    if (unit_shard_skip(_i))
        return;
    for (int m = CS_WIN_RECURSIVE; m <= CS_WIN_PREFIX_SUFFIX; m++)
        win_check_p((cs_window_method)m, _i, 1, 0);
}
END_TEST

START_TEST(test_methods_small)
{
    for (int m = CS_WIN_RECURSIVE; m <= CS_WIN_PREFIX_SUFFIX; m++) {
        win_check_p((cs_window_method)m, _i, 3, 0);
        win_check_p((cs_window_method)m, _i, 2, 1);
    }
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
    if (unit_shard_skip(_i))
        return;
    const int p = _i;
    cs_sched *sc = sim_scheds_new(p);
    int lo[WIN_MAX_P], hi[WIN_MAX_P];
    const cs_problem prob = {
        .coll = CS_COLL_ALLREDUCE, .p = p, .count = 2, .elem = 4, .bytes = 8, .flags = CS_PROB_CONTIG};
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

/*
 * Prefix-suffix with the inverse: its schedules hold CS_STEP_UNREDUCE,
 * which the expression-recording simulator cannot model, so they run here
 * on integer sums modulo 2^32 (the inverse of sched/inverse.h), all ranks
 * in lock step: the messages of a round matched in order per pair, then
 * the local steps. Rank i must get the sum of ranks lo..hi's vectors.
 */
typedef struct win_msg {
    int from, to, used;
    size_t len;
    const unsigned char *data;
} win_msg;

static uint32_t win_value(int rank, size_t e)
{
    return (uint32_t)(rank * 2654435761u) ^ (uint32_t)(e * 40503u + 17u);
}

static void win_run_sums(const cs_sched *sc, int p, size_t count, int inplace, const char *what)
{
    const size_t m = 4 * count;
    unsigned char *buf[WIN_MAX_P][CS_BUF_LAST];
    int rounds = 0;
    for (int i = 0; i < p; i++) {
        buf[i][CS_BUF_SEND] = malloc(m);
        buf[i][CS_BUF_RECV] = malloc(m);
        buf[i][CS_BUF_TMP0] = malloc(sc[i].tmp_bytes[0] + 1);
        buf[i][CS_BUF_TMP1] = malloc(sc[i].tmp_bytes[1] + 1);
        for (size_t e = 0; e < count; e++) {
            const uint32_t v = win_value(i, e);
            memcpy(buf[i][inplace ? CS_BUF_RECV : CS_BUF_SEND] + 4 * e, &v, 4);
        }
        rounds = sc[i].nrounds > rounds ? sc[i].nrounds : rounds;
    }
    for (int k = 0; k < rounds; k++) {
        win_msg msg[WIN_MAX_P * 8];
        int nmsg = 0;
        for (int i = 0; i < p; i++)
            for (size_t t = k < sc[i].nrounds ? sc[i].round_start[k] : sc[i].nsteps; t < cs_sched_round_end(&sc[i], k);
                 t++)
                if (sc[i].steps[t].kind == CS_STEP_SEND) {
                    const cs_step *st = &sc[i].steps[t];
                    ck_assert_int_lt(nmsg, WIN_MAX_P * 8);
                    msg[nmsg++] = (win_msg){i, st->peer, 0, st->len, buf[i][st->buf] + st->off};
                }
        for (int i = 0; i < p; i++) {
            for (size_t t = k < sc[i].nrounds ? sc[i].round_start[k] : sc[i].nsteps; t < cs_sched_round_end(&sc[i], k);
                 t++) {
                const cs_step *st = &sc[i].steps[t];
                if (st->kind != CS_STEP_RECV)
                    continue;
                int j = 0;
                while (j < nmsg && (msg[j].used || msg[j].from != st->peer || msg[j].to != i))
                    j++;
                ck_assert_msg(j < nmsg && msg[j].len == st->len, "%s: rank %d round %d: no message from %d", what, i, k,
                              st->peer);
                msg[j].used = 1;
                memcpy(buf[i][st->buf] + st->off, msg[j].data, st->len);
            }
        }
        for (int j = 0; j < nmsg; j++)
            ck_assert_msg(msg[j].used, "%s: round %d: message %d -> %d not received", what, k, msg[j].from, msg[j].to);
        for (int i = 0; i < p; i++)
            for (size_t t = k < sc[i].nrounds ? sc[i].round_start[k] : sc[i].nsteps; t < cs_sched_round_end(&sc[i], k);
                 t++) {
                const cs_step *st = &sc[i].steps[t];
                unsigned char *src = buf[i][st->buf] + st->off, *dst = buf[i][st->dst] + st->dst_off;
                if (st->kind == CS_STEP_COPY)
                    memmove(dst, src, st->len);
                for (size_t e = 0; st->kind >= CS_STEP_REDUCE && e < st->len / 4; e++) {
                    uint32_t a, b;
                    memcpy(&a, src + 4 * e, 4);
                    memcpy(&b, dst + 4 * e, 4);
                    b = st->kind == CS_STEP_REDUCE ? a + b : b - a;
                    memcpy(dst + 4 * e, &b, 4);
                }
            }
    }
    for (int i = 0; i < p; i++)
        for (size_t e = 0; e < count; e++) {
            uint32_t want = 0, got;
            const int lo = i - win_r < 0 ? 0 : i - win_r,
                      hi = i - win_r + win_n - 1 > p - 1 ? p - 1 : i - win_r + win_n - 1;
            for (int j = lo; j <= hi; j++)
                want += win_value(j, e);
            memcpy(&got, buf[i][CS_BUF_RECV] + 4 * e, 4);
            ck_assert_msg(got == want, "%s: rank %d element %zu: %u, want %u", what, i, e, got, want);
        }
    for (int i = 0; i < p; i++)
        for (int b = 0; b < CS_BUF_LAST; b++)
            free(buf[i][b]);
}

/* Every p <= 64, n and r: the sums are right, and the inverse never costs
 * a rank more combining steps than prefix-suffix without it. */
START_TEST(test_prefix_suffix_inverse)
{
    if (unit_shard_skip(_i))
        return;
    const int p = _i;
    cs_sched *sc = sim_scheds_new(p), one;
    char what[96];
    cs_sched_init(&one);
    for (int n = 1; n <= p; n++)
        for (int r = 0; r < n; r++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const size_t count = inplace ? 2 : 3;
                for (int i = 0; i < p; i++) {
                    int rounds, with, without, vectors;
                    cs_sched_reset(&sc[i]);
                    cs_sched_reset(&one);
                    ck_assert_int_eq(cs_window_ps_build(p, n, r, i, count, 4, inplace, 1, &sc[i]), MPI_SUCCESS);
                    ck_assert_int_eq(cs_window_ps_build(p, n, r, i, count, 4, inplace, 0, &one), MPI_SUCCESS);
                    win_counts(&sc[i], 4 * count, &rounds, &with, &vectors);
                    win_counts(&one, 4 * count, &rounds, &without, &vectors);
                    for (size_t t = 0; t < sc[i].nsteps; t++)
                        with += sc[i].steps[t].kind == CS_STEP_UNREDUCE;
                    ck_assert_msg(with <= without, "p=%d n=%d r=%d rank %d: %d steps with the inverse, %d without", p,
                                  n, r, i, with, without);
                }
                snprintf(what, sizeof what, "p=%d n=%d r=%d%s", p, n, r, inplace ? " in place" : "");
                win_n = n;
                win_r = r;
                win_run_sums(sc, p, count, inplace, what);
            }
    cs_sched_free(&one);
    sim_scheds_free(sc, p);
}
END_TEST

/* The price of each method is the slowest rank's cost of the schedules it
 * builds, and the choice is the cheaper one: recursive combination for short
 * vectors (fewer start-ups and combining steps), and for long ones unless
 * the network is slow next to the processor: prefix-suffix sends one vector
 * a message, recursive combination up to two (three near an edge). */
START_TEST(test_method_choice)
{
    const cs_model model = {.alpha = 1.0e-6, .beta = 2.0e-10, .rho = 1.0e-10, .gamma = 2.5e-10};
    /* and with an overhead per message posted, which a rank pays once for
     * each of its messages, not once per round */
    const cs_model posting = {.alpha = 1.0e-6, .beta = 2.0e-10, .rho = 1.0e-10, .gamma = 2.5e-10, .overhead = 3.0e-7};
    const cs_model *const models[] = {&model, &posting};
    static const int shapes[][3] = {{64, 15, 7}, {64, 7, 0}, {40, 31, 30}, {33, 16, 3}, {17, 9, 4}, {5, 3, 1}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        const int p = shapes[t][0], n = shapes[t][1], r = shapes[t][2];
        cs_sched *sc = sim_scheds_new(p);
        for (size_t bytes = 4; bytes <= (8u << 20); bytes *= 16)
            for (int mo = 0; mo < 2; mo++) {
                double cost[CS_WIN_METHODS];
                const cs_window_method best = cs_window_method_choose(models[mo], p, n, r, bytes, 0, 1, cost);
                for (int m = 0; m < CS_WIN_METHODS; m++) {
                    for (int i = 0; i < p; i++) {
                        cs_sched_reset(&sc[i]);
                        ck_assert_int_eq(
                            cs_window_method_build((cs_window_method)m, p, n, r, i, bytes / 4, 4, 0, &sc[i]),
                            MPI_SUCCESS);
                    }
                    const double built = sim_cost_max(sc, p, models[mo]);
                    ck_assert_msg(fabs(cost[m] - built) <= 1e-9 * built,
                                  "%s p=%d n=%d r=%d %zu B, model %d: priced %g, built %g",
                                  cs_window_method_name((cs_window_method)m), p, n, r, bytes, mo, cost[m], built);
                }
                ck_assert(cost[best] <= cost[1 - best]);
            }
        sim_scheds_free(sc, p);
    }
    const cs_model slow_net = {.alpha = 1.0e-6, .beta = 1.0e-9, .rho = 5.0e-11, .gamma = 1.0e-10};
    ck_assert_int_eq(cs_window_method_choose(&model, 64, 24, 12, 8, 0, 0, NULL), CS_WIN_RECURSIVE);
    ck_assert_int_eq(cs_window_method_choose(&model, 64, 24, 12, 8u << 20, 0, 0, NULL), CS_WIN_RECURSIVE);
    ck_assert_int_eq(cs_window_method_choose(&slow_net, 64, 24, 12, 8, 0, 0, NULL), CS_WIN_RECURSIVE);
    ck_assert_int_eq(cs_window_method_choose(&slow_net, 64, 24, 12, 8u << 20, 0, 0, NULL), CS_WIN_PREFIX_SUFFIX);
}
END_TEST

/* §3.3: the factorization algorithm's step counts reproduce Table 1 (the
 * rows up to 4096 here; the tool prints the 32768 row, checked by
 * tests/tools/check-collshim-model) and the paper's examples. */
START_TEST(test_factor_table)
{
    static const int rows[][3] = {{8, 4, 7}, {64, 8, 43}, {512, 13, 479}, {4096, 16, 2399}};
    cs_factor_table t;
    char plan[128];
    ck_assert_int_eq(cs_factor_table_make(4096, &t), MPI_SUCCESS);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int most = -1, at = 0;
        for (int k = 1; k <= rows[i][0]; k++)
            if (cs_factor_count(&t, k) > most) {
                most = cs_factor_count(&t, k);
                at = k;
            }
        ck_assert_msg(most == rows[i][1] && at == rows[i][2], "n <= %d: max c(k) = %d at k = %d, Table 1 says %d at %d",
                      rows[i][0], most, at, rows[i][1], rows[i][2]);
    }
    /* never more than recursive combination; powers of two are log2 n */
    for (int n = 1; n <= 4096; n++) {
        const int h = win_floor_log2(n);
        ck_assert_int_le(cs_factor_count(&t, n), h + __builtin_popcount((unsigned)n) - 1);
        if (!(n & (n - 1)))
            ck_assert_int_eq(cs_factor_count(&t, n), h);
    }
    ck_assert_int_eq(cs_factor_count(&t, 15), 5); /* 3 * 5, against 6 */
    ck_assert_int_eq(cs_factor_format(&t, 15, plan, sizeof plan), 0);
    ck_assert_str_eq(plan, "5*3");
    ck_assert_int_eq(cs_factor_count(&t, 47), 8); /* 2 + 5 * 9, against 9 */
    ck_assert_int_eq(cs_factor_format(&t, 47, plan, sizeof plan), 0);
    ck_assert_str_eq(plan, "2 + 9*5");
    ck_assert_int_eq(cs_factor_count(&t, 0), -1);
    ck_assert_int_eq(cs_factor_count(&t, 4097), -1);
    ck_assert_int_eq(cs_factor_format(&t, 47, plan, 4), -1);
    cs_factor_table_free(&t);
    ck_assert_int_eq(cs_factor_table_make(0, &t), MPI_ERR_ARG);
}
END_TEST

/* ---------------------------------------- the window collectives' rows */

static const cs_alg *win_row(cs_coll coll, const char *name)
{
    int n;
    const cs_alg *const *table = cs_alg_table(coll, &n);
    for (int i = 0; i < n; i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    ck_abort_msg("no row %s", name);
    return NULL;
}

static int win_sched_same(const cs_sched *a, const cs_sched *b)
{
    if (a->nsteps != b->nsteps || a->nrounds != b->nrounds || a->tmp_bytes[0] != b->tmp_bytes[0] ||
        a->tmp_bytes[1] != b->tmp_bytes[1])
        return 0;
    for (int r = 0; r < a->nrounds; r++)
        if (a->round_start[r] != b->round_start[r])
            return 0;
    for (size_t i = 0; i < a->nsteps; i++) {
        const cs_step *x = &a->steps[i], *y = &b->steps[i];
        if (x->kind != y->kind || x->buf != y->buf || x->dst != y->dst || x->peer != y->peer || x->off != y->off ||
            x->dst_off != y->dst_off || x->len != y->len)
            return 0;
    }
    return 1;
}

/* The rows of the window collective build the methods' schedules and price
 * them as the methods do, and select's choice under auto is the methods'
 * cheapest (cs_window_method_choose), for every n and r of p. */
START_TEST(test_window_rows)
{
    if (unit_shard_skip(_i))
        return;
    const int p = _i;
    const cs_model model = {.alpha = 1.0e-6, .beta = 1.0e-9, .rho = 5.0e-11, .gamma = 1.0e-10};
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.model = model;
    cs_sched a, b;
    cs_sched_init(&a);
    cs_sched_init(&b);
    for (int n = 1; n <= p; n++)
        for (int r = 0; r < n; r++)
            for (int inverse = 0; inverse < 2; inverse++)
                for (size_t bytes = 4; bytes <= ((size_t)4 << 20); bytes *= 64) {
                    const cs_problem prob = {.coll = CS_COLL_WINDOW,
                                             .p = p,
                                             .count = bytes / 4,
                                             .elem = 4,
                                             .bytes = bytes,
                                             .n = n,
                                             .r = r,
                                             .flags = CS_PROB_CONTIG | (inverse ? CS_PROB_INVERSE : 0u)};
                    double cost[CS_WIN_METHODS];
                    const cs_window_method best = cs_window_method_choose(&model, p, n, r, bytes, 0, inverse, cost);
                    for (int m = 0; m < CS_WIN_METHODS; m++) {
                        const cs_alg *row = win_row(CS_COLL_WINDOW, cs_window_method_name((cs_window_method)m));
                        if (m == CS_WIN_PREFIX_SUFFIX_INVERSE && !inverse)
                            continue;
                        ck_assert(row->cost(&model, &prob, NULL) == cost[m]);
                        for (int rank = 0; rank<p; rank += p> 8 ? p / 5 : 1) {
                            cs_sched_reset(&a);
                            cs_sched_reset(&b);
                            a.tmp_bytes[0] = a.tmp_bytes[1] = b.tmp_bytes[0] = b.tmp_bytes[1] = 0;
                            ck_assert_int_eq(row->build(&prob, NULL, rank, &a), MPI_SUCCESS);
                            ck_assert_int_eq(
                                cs_window_method_build((cs_window_method)m, p, n, r, rank, bytes / 4, 4, 0, &b),
                                MPI_SUCCESS);
                            ck_assert_msg(win_sched_same(&a, &b), "%s p=%d n=%d r=%d rank %d", row->name, p, n, r,
                                          rank);
                        }
                    }
                    cs_select_cache cache = {0};
                    cs_decision d;
                    cs_select(&cfg, &cache, &prob, &d);
                    ck_assert_msg(d.alg == win_row(CS_COLL_WINDOW, cs_window_method_name(best)),
                                  "p=%d n=%d r=%d %zu B: select %s, the methods' cheapest %s", p, n, r, bytes,
                                  d.alg->name, cs_window_method_name(best));
                }
    cs_sched_free(&a);
    cs_sched_free(&b);
}
END_TEST

/* A forced prefix-suffix-inverse runs prefix-suffix where the operator has no inverse. */
START_TEST(test_window_forced_instead)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.coll[CS_COLL_WINDOW].choice = CS_CHOICE_FORCED;
    cfg.coll[CS_COLL_WINDOW].alg = win_row(CS_COLL_WINDOW, "prefix-suffix-inverse");
    cs_select_cache cache = {0};
    cs_decision d;
    cs_problem prob = {
        .coll = CS_COLL_WINDOW, .p = 6, .count = 3, .elem = 4, .bytes = 12, .n = 3, .r = 1, .flags = CS_PROB_CONTIG};
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "prefix-suffix");
    ck_assert_str_eq(d.declined, "needs an operator with an exact inverse");
    prob.flags |= CS_PROB_INVERSE;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "prefix-suffix-inverse");
    prob.p = 1; /* no library version: even p = 1 runs the forced row */
    prob.n = 1;
    prob.r = 0;
    cs_select(&cfg, &cache, &prob, &d);
    ck_assert_str_eq(d.alg->name, "prefix-suffix-inverse");
}
END_TEST

/*
 * The block window's boundary exchange, for every p up to 128: every
 * message is matched by its peer's with the same length, and every element
 * of every rank's extended slice (r from the left, its own, n - 1 - r from
 * the right) is the element of the whole array it stands for. Slices of
 * unequal counts, each at least the halo.
 */
START_TEST(test_window_block_exchange)
{
    if (unit_shard_skip(_i))
        return;
    const int p = _i;
    const cs_alg *rows[2] = {win_row(CS_COLL_WINDOW_BLOCK, "prefix-suffix"),
                             win_row(CS_COLL_WINDOW_BLOCK, "prefix-differences")};
    cs_sched *sc = sim_scheds_new(p);
    size_t *start = malloc(sizeof(size_t) * (size_t)(p + 1)), *count = malloc(sizeof(size_t) * (size_t)p);
    ck_assert(sc && start && count);
    for (int n = 1; n <= 9; n++)
        for (int r = 0; r < n; r++) {
            const size_t halo = (size_t)(r > n - 1 - r ? r : n - 1 - r);
            start[0] = 0;
            for (int i = 0; i < p; i++) {
                count[i] = halo + (size_t)((i * 7 + n) % 4);
                start[i + 1] = start[i] + count[i];
            }
            for (int i = 0; i < p; i++) {
                const cs_problem prob = {.coll = CS_COLL_WINDOW_BLOCK,
                                         .p = p,
                                         .count = count[i],
                                         .elem = 8,
                                         .bytes = 8 * count[i],
                                         .n = n,
                                         .r = r,
                                         .flags = CS_PROB_CONTIG};
                cs_sched_reset(&sc[i]);
                ck_assert_int_eq(rows[(i + n) % 2]->build(&prob, NULL, i, &sc[i]), MPI_SUCCESS);
                ck_assert_int_le(sc[i].nrounds, 1);
            }
            for (int i = 0; i < p; i++) {
                const size_t left = i > 0 ? (size_t)r : 0;
                size_t filled = 0;
                for (size_t k = 0; k < sc[i].nsteps; k++) {
                    const cs_step *x = &sc[i].steps[k];
                    if (x->kind != CS_STEP_RECV)
                        continue;
                    ck_assert(x->buf == CS_BUF_RECV && x->len > 0 && (x->peer == i - 1 || x->peer == i + 1));
                    const cs_step *y = NULL;
                    for (size_t j = 0; j < sc[x->peer].nsteps && !y; j++)
                        if (sc[x->peer].steps[j].kind == CS_STEP_SEND && sc[x->peer].steps[j].peer == i)
                            y = &sc[x->peer].steps[j];
                    ck_assert_msg(y && y->len == x->len && y->buf == CS_BUF_SEND, "p=%d n=%d r=%d rank %d", p, n, r, i);
                    /* the first element received is the global element it stands for */
                    ck_assert_uint_eq(start[x->peer] + y->off / 8, start[i] - left + x->off / 8);
                    ck_assert(y->off + y->len <= 8 * count[x->peer]);
                    filled += x->len / 8;
                }
                const size_t want = left + (i < p - 1 ? (size_t)(n - 1 - r) : 0);
                ck_assert_msg(filled == want, "p=%d n=%d r=%d rank %d: %zu halo elements, want %zu", p, n, r, i, filled,
                              want);
                for (size_t k = 0; k < sc[i].nsteps; k++) /* every send has its receive */
                    if (sc[i].steps[k].kind == CS_STEP_SEND) {
                        int matched = 0;
                        const int q = sc[i].steps[k].peer;
                        for (size_t j = 0; j < sc[q].nsteps; j++)
                            matched |= sc[q].steps[j].kind == CS_STEP_RECV && sc[q].steps[j].peer == i;
                        ck_assert(matched);
                    }
            }
        }
    free(start);
    free(count);
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
    tcase_add_loop_test(tc, test_methods_all, 1, WIN_MAX_P + 1);
    tcase_add_loop_test(tc, test_methods_small, 1, 17);
    tcase_add_loop_test(tc, test_wrapped, 1, WIN_MAX_P + 1);
    tcase_add_test(tc, test_method_choice);
    tcase_add_test(tc, test_factor_table);
    tcase_add_loop_test(tc, test_prefix_suffix_inverse, 1, WIN_MAX_P + 1);
    tcase_add_loop_test(tc, test_window_rows, 1, 25);
    tcase_add_test(tc, test_window_forced_instead);
    tcase_add_loop_test(tc, test_window_block_exchange, 1, 129);
    suite_add_tcase(suite, tc);
    return suite;
}
