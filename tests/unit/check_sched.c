/*
 * Tests of the schedule builders and of cs_sched_stats_get: what is recorded
 * is what was given, and a schedule is counted and priced as the
 * cost model says: per round, one alpha per message of the busier direction
 * (a 1-ported rank starts its messages one after another), beta per byte of
 * the larger direction, gamma per byte reduced, rho per byte copied.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sched/combine.h"
#include "sched/sched.h"

/* A step as a builder call: the rounds open where `round` is set. */
typedef struct sched_call {
    bool round;
    cs_step step;
} sched_call;

static void sched_apply(cs_sched *s, const sched_call *calls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const cs_step *st = &calls[i].step;
        if (calls[i].round)
            cs_sched_round(s);
        switch (st->kind) {
        case CS_STEP_SEND: cs_sched_send(s, st->peer, st->buf, st->off, st->len); break;
        case CS_STEP_RECV: cs_sched_recv(s, st->peer, st->buf, st->off, st->len); break;
        case CS_STEP_COPY: cs_sched_copy(s, st->buf, st->off, st->dst, st->dst_off, st->len); break;
        case CS_STEP_REDUCE: cs_sched_reduce(s, st->buf, st->off, st->dst, st->dst_off, st->len); break;
        }
    }
}

#define SEND(to, bf, o, n)                                                                                             \
    {                                                                                                                  \
        .kind = CS_STEP_SEND, .peer = (to), .buf = (bf), .off = (o), .len = (n)                                        \
    }
#define RECV(from, bf, o, n)                                                                                           \
    {                                                                                                                  \
        .kind = CS_STEP_RECV, .peer = (from), .buf = (bf), .off = (o), .len = (n)                                      \
    }
#define COPY(bf, o, d, dof, n)                                                                                         \
    {                                                                                                                  \
        .kind = CS_STEP_COPY, .buf = (bf), .off = (o), .dst = (d), .dst_off = (dof), .len = (n)                        \
    }
#define REDUCE(bf, o, d, dof, n)                                                                                       \
    {                                                                                                                  \
        .kind = CS_STEP_REDUCE, .buf = (bf), .off = (o), .dst = (d), .dst_off = (dof), .len = (n)                      \
    }

/* Three rounds: an exchange, local steps only, and a round of two sends and
 * one receive. */
static const sched_call sched_example[] = {
    {true, SEND(3, CS_BUF_RECV, 8, 16)},
    {false, RECV(2, CS_BUF_TMP0, 0, 16)},
    {false, REDUCE(CS_BUF_TMP0, 0, CS_BUF_RECV, 8, 16)},
    {true, COPY(CS_BUF_SEND, 4, CS_BUF_TMP1, 12, 100)},
    {false, REDUCE(CS_BUF_TMP1, 0, CS_BUF_RECV, 0, 40)},
    {true, SEND(1, CS_BUF_RECV, 0, 1000)},
    {false, SEND(2, CS_BUF_RECV, 0, 24)},
    {false, RECV(1, CS_BUF_TMP0, 0, 2000)},
};
enum { NEXAMPLE = sizeof(sched_example) / sizeof(sched_example[0]) };

static void sched_assert_step(const cs_step *got, const cs_step *want, size_t i)
{
    ck_assert_msg(got->kind == want->kind && got->buf == want->buf && got->off == want->off && got->len == want->len,
                  "step %zu: kind %d buf %d off %zu len %zu", i, got->kind, got->buf, got->off, got->len);
    if (want->kind == CS_STEP_SEND || want->kind == CS_STEP_RECV)
        ck_assert_msg(got->peer == want->peer, "step %zu: peer %d", i, got->peer);
    else
        ck_assert_msg(got->dst == want->dst && got->dst_off == want->dst_off, "step %zu: dst %d dst_off %zu", i,
                      got->dst, got->dst_off);
}

/* The schedule holds the calls, in order, with rounds where they were opened. */
static void sched_assert_holds(const cs_sched *s, const sched_call *calls, size_t n)
{
    ck_assert_int_eq(s->error, 0);
    ck_assert_uint_eq(s->nsteps, n);
    int round = -1;
    for (size_t i = 0; i < n; i++) {
        if (calls[i].round) {
            round++;
            ck_assert_uint_eq(s->round_start[round], i);
        }
        sched_assert_step(&s->steps[i], &calls[i].step, i);
    }
    ck_assert_int_eq(s->nrounds, round + 1);
}

START_TEST(test_init)
{
    cs_sched s;
    memset(&s, 0x5a, sizeof s);
    cs_sched_init(&s);
    ck_assert_uint_eq(s.nsteps, 0);
    ck_assert_int_eq(s.nrounds, 0);
    ck_assert_uint_eq(s.tmp_bytes[0] + s.tmp_bytes[1], 0);
    ck_assert_int_eq(s.error, 0);
    cs_sched_free(&s);
}
END_TEST

START_TEST(test_recorded)
{
    cs_sched s;
    cs_sched_init(&s);
    sched_apply(&s, sched_example, NEXAMPLE);
    sched_assert_holds(&s, sched_example, NEXAMPLE);
    ck_assert_uint_eq(cs_sched_round_end(&s, 0), 3);
    ck_assert_uint_eq(cs_sched_round_end(&s, 1), 5);
    ck_assert_uint_eq(cs_sched_round_end(&s, 2), NEXAMPLE);
    cs_sched_free(&s);
    ck_assert_ptr_null(s.steps);
    ck_assert_uint_eq(s.nsteps, 0);
}
END_TEST

/* Empty rounds are rounds: an algorithm may wait a round out. */
START_TEST(test_empty_rounds)
{
    cs_sched s;
    cs_sched_init(&s);
    cs_sched_round(&s);
    cs_sched_round(&s);
    cs_sched_send(&s, 1, CS_BUF_SEND, 0, 8);
    cs_sched_round(&s);
    ck_assert_int_eq(s.nrounds, 3);
    ck_assert_uint_eq(cs_sched_round_end(&s, 0), 0);
    ck_assert_uint_eq(cs_sched_round_end(&s, 1), 1);
    ck_assert_uint_eq(cs_sched_round_end(&s, 2), 1);
    cs_sched_free(&s);
}
END_TEST

/* Many rounds and steps: the arrays grow and keep what they hold. */
START_TEST(test_grow)
{
    enum { ROUNDS = 3000 };
    cs_sched s;
    cs_sched_init(&s);
    for (int r = 0; r < ROUNDS; r++) {
        cs_sched_round(&s);
        cs_sched_send(&s, r, CS_BUF_SEND, (size_t)r, 1);
        cs_sched_recv(&s, r + 1, CS_BUF_RECV, (size_t)r, 2);
    }
    ck_assert_int_eq(s.error, 0);
    ck_assert_int_eq(s.nrounds, ROUNDS);
    for (int r = 0; r < ROUNDS; r++) {
        const size_t i = s.round_start[r];
        ck_assert_uint_eq(i, 2 * (size_t)r);
        ck_assert_int_eq(s.steps[i].peer, r);
        ck_assert_int_eq(s.steps[i + 1].peer, r + 1);
        ck_assert_uint_eq(s.steps[i + 1].len, 2);
    }
    cs_sched_free(&s);
}
END_TEST

/* Reset forgets the steps, rounds and scratch and keeps the memory: the same
 * schedule built again lands in the same arrays. */
START_TEST(test_reset)
{
    cs_sched s;
    cs_sched_init(&s);
    sched_apply(&s, sched_example, NEXAMPLE);
    cs_sched_scratch(&s, CS_BUF_TMP0, 64);
    const cs_step *steps = s.steps;
    const size_t *starts = s.round_start;
    const size_t cap = s.cap;
    const int round_cap = s.round_cap;

    cs_sched_reset(&s);
    ck_assert_uint_eq(s.nsteps, 0);
    ck_assert_int_eq(s.nrounds, 0);
    ck_assert_uint_eq(s.tmp_bytes[0] + s.tmp_bytes[1], 0);
    ck_assert_int_eq(s.error, 0);
    ck_assert_ptr_eq(s.steps, steps);
    ck_assert_ptr_eq(s.round_start, starts);
    ck_assert_uint_eq(s.cap, cap);
    ck_assert_int_eq(s.round_cap, round_cap);

    sched_apply(&s, sched_example, NEXAMPLE);
    sched_assert_holds(&s, sched_example, NEXAMPLE);
    ck_assert_ptr_eq(s.steps, steps);
    ck_assert_ptr_eq(s.round_start, starts);
    cs_sched_free(&s);
}
END_TEST

/* Each scratch buffer is as large as the largest declaration (phases of an
 * algorithm declare what each needs). */
START_TEST(test_scratch)
{
    cs_sched s;
    cs_sched_init(&s);
    cs_sched_scratch(&s, CS_BUF_TMP0, 100);
    ck_assert_uint_eq(s.tmp_bytes[0], 100);
    ck_assert_uint_eq(s.tmp_bytes[1], 0);
    cs_sched_scratch(&s, CS_BUF_TMP1, 7);
    cs_sched_scratch(&s, CS_BUF_TMP0, 50);
    ck_assert_uint_eq(s.tmp_bytes[0], 100);
    ck_assert_uint_eq(s.tmp_bytes[1], 7);
    cs_sched_scratch(&s, CS_BUF_TMP1, 4096);
    ck_assert_uint_eq(s.tmp_bytes[1], 4096);
    ck_assert_int_eq(s.nsteps, 0);
    cs_sched_free(&s);
}
END_TEST

/* ---------------------------------------------------------------- stats */

static const cs_model sched_model = {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 3e-9};

typedef struct stats_case {
    const char *name;
    const sched_call *calls;
    size_t n;
    cs_sched_stats want; /* cost under sched_model */
} stats_case;

static const sched_call stats_exchange[] = {
    {true, SEND(1, CS_BUF_SEND, 0, 100)},
    {false, RECV(1, CS_BUF_TMP0, 0, 40)},
};
static const sched_call stats_recv_only[] = {
    {true, RECV(1, CS_BUF_TMP0, 0, 40)},
    {false, REDUCE(CS_BUF_TMP0, 0, CS_BUF_RECV, 0, 40)},
};
static const sched_call stats_local_only[] = {
    {true, COPY(CS_BUF_SEND, 0, CS_BUF_RECV, 0, 64)},
    {false, REDUCE(CS_BUF_TMP0, 0, CS_BUF_RECV, 0, 32)},
    {false, COPY(CS_BUF_RECV, 0, CS_BUF_TMP1, 0, 16)},
};
/* Several messages of one round: an alpha per message of the busier
 * direction, the larger direction's bytes. */
static const sched_call stats_many_in_round[] = {
    {true, SEND(1, CS_BUF_SEND, 0, 10)},
    {false, SEND(2, CS_BUF_SEND, 0, 20)},
    {false, RECV(1, CS_BUF_TMP0, 0, 25)},
    {false, RECV(2, CS_BUF_TMP0, 100, 25)},
};
static const sched_call stats_empty_round[] = {
    {true, SEND(1, CS_BUF_SEND, 0, 8)},
    {true, COPY(CS_BUF_SEND, 0, CS_BUF_RECV, 0, 8)},
    {true, RECV(1, CS_BUF_RECV, 0, 8)},
};

#define CALLS(a) (a), sizeof(a) / sizeof((a)[0])
#define A sched_model.alpha
#define B sched_model.beta
#define G sched_model.gamma
#define R sched_model.rho

static const stats_case stats_cases[] = {
    {"empty", NULL, 0, {0, 0, 0, 0, 0.0}},
    {"exchange", CALLS(stats_exchange), {1, 100, 0, 0, A + B * 100}},
    {"receive only", CALLS(stats_recv_only), {1, 0, 40, 0, A + (B + G) * 40}},
    {"local only", CALLS(stats_local_only), {0, 0, 32, 80, G * 32 + R * 80}},
    {"many in a round", CALLS(stats_many_in_round), {1, 30, 0, 0, 2 * A + B * 50}},
    {"rounds without messages", CALLS(stats_empty_round), {2, 8, 0, 8, 2 * A + B * 16 + R * 8}},
    {"example",
     CALLS(sched_example),
     {2, 1040, 56, 100, (A + B * 16 + G * 16) + (R * 100 + G * 40) + (2 * A + B * 2000)}},
};
#undef A
#undef B
#undef G
#undef R

enum { NSTATS = sizeof(stats_cases) / sizeof(stats_cases[0]) };

START_TEST(test_stats)
{
    const stats_case *c = &stats_cases[_i];
    cs_sched s;
    cs_sched_init(&s);
    sched_apply(&s, c->calls, c->n);
    cs_sched_stats st;
    cs_sched_stats_get(&s, &sched_model, &st);
    ck_assert_msg(st.rounds == c->want.rounds, "%s: rounds %d, want %d", c->name, st.rounds, c->want.rounds);
    ck_assert_msg(st.sent_bytes == c->want.sent_bytes, "%s: sent %zu", c->name, st.sent_bytes);
    ck_assert_msg(st.reduced_bytes == c->want.reduced_bytes, "%s: reduced %zu", c->name, st.reduced_bytes);
    ck_assert_msg(st.copied_bytes == c->want.copied_bytes, "%s: copied %zu", c->name, st.copied_bytes);
    ck_assert_msg(fabs(st.cost - c->want.cost) <= 1e-12 * c->want.cost, "%s: cost %.17g, want %.17g", c->name, st.cost,
                  c->want.cost);
    cs_sched_free(&s);
}
END_TEST

/* The cost is linear in the model: each coefficient alone prices one term. */
START_TEST(test_stats_terms)
{
    static const cs_model unit[4] = {{.alpha = 1}, {.beta = 1}, {.rho = 1}, {.gamma = 1}};
    const double want[4] = {3, 16 + 2000, 100, 56}; /* starts, max-direction bytes, copied, reduced */
    cs_sched s;
    cs_sched_init(&s);
    sched_apply(&s, sched_example, NEXAMPLE);
    for (int i = 0; i < 4; i++) {
        cs_sched_stats st;
        cs_sched_stats_get(&s, &unit[i], &st);
        ck_assert_msg(st.cost == want[i], "model %d: cost %g, want %g", i, st.cost, want[i]);
    }
    cs_sched_free(&s);
}
END_TEST

/* Our own loop (sched/combine.h): sums and products modulo 2^w, for signed and unsigned
 * operands alike, where Open MPI 4.1's AVX operators saturate (100 + 100 as int8_t: 127). */
static const struct {
    MPI_Op op;
    size_t width;
    int64_t a, b, want; /* the low `width` bytes are the operands and the result */
} combine_cases[] = {
    {MPI_SUM, 1, 100, 100, -56},
    {MPI_SUM, 1, -100, -100, 56},
    {MPI_SUM, 1, 200, 100, 44}, /* as uint8_t */
    {MPI_PROD, 1, 16, 16, 0},
    {MPI_PROD, 1, -3, 100, -44},
    {MPI_SUM, 2, 30000, 30000, -5536},
    {MPI_SUM, 2, 65535, 1, 0}, /* as uint16_t */
    {MPI_PROD, 2, 300, 300, 24464},
    {MPI_PROD, 2, 65535, 65535, 1}, /* as uint16_t: no signed int overflow on the way */
    {MPI_SUM, 4, INT32_MAX, 1, INT32_MIN},
    {MPI_PROD, 4, 65536, 65536, 0},
    {MPI_SUM, 8, INT64_MAX, 1, INT64_MIN},
    {MPI_PROD, 8, INT64_MIN, -1, INT64_MIN},
};
enum { NCOMBINE = sizeof combine_cases / sizeof combine_cases[0] };

START_TEST(test_combine_wrapping)
{
    const size_t w = combine_cases[_i].width, count = 67; /* odd offsets: unaligned elements */
    unsigned char src[1 + 67 * 8], dst[1 + 67 * 8];
    for (size_t i = 0; i < count; i++) {
        memcpy(src + 1 + i * w, &combine_cases[_i].a, w); /* little-endian: the low bytes */
        memcpy(dst + 1 + i * w, &combine_cases[_i].b, w);
    }
    ck_assert_int_eq(cs_combine_wrapping(combine_cases[_i].op, w, src + 1, dst + 1, count), MPI_SUCCESS);
    for (size_t i = 0; i < count; i++) {
        int64_t got = 0, want = 0;
        memcpy(&got, dst + 1 + i * w, w);
        memcpy(&want, &combine_cases[_i].want, w);
        ck_assert_msg(got == want, "case %d element %zu: got 0x%llx, want 0x%llx", _i, i, (unsigned long long)got,
                      (unsigned long long)want);
    }
}
END_TEST

START_TEST(test_combine_refuses)
{
    char a[8] = {1}, b[8] = {2};
    ck_assert(!cs_combine_wrapping_fits(MPI_MAX, 4));
    ck_assert(!cs_combine_wrapping_fits(MPI_SUM, 3));
    ck_assert_int_eq(cs_combine_wrapping(MPI_BAND, 1, a, b, 1), MPI_ERR_OP);
    ck_assert_int_eq(cs_combine_wrapping(MPI_SUM, 16, a, b, 1), MPI_ERR_OP);
    ck_assert_int_eq(b[0], 2); /* untouched */
}
END_TEST

Suite *make_sched_suite(void)
{
    Suite *suite = suite_create("sched");
    TCase *tc = tcase_create("builders");
    tcase_add_test(tc, test_init);
    tcase_add_test(tc, test_recorded);
    tcase_add_test(tc, test_empty_rounds);
    tcase_add_test(tc, test_grow);
    tcase_add_test(tc, test_reset);
    tcase_add_test(tc, test_scratch);
    suite_add_tcase(suite, tc);
    tc = tcase_create("stats");
    tcase_add_loop_test(tc, test_stats, 0, NSTATS);
    tcase_add_test(tc, test_stats_terms);
    suite_add_tcase(suite, tc);
    tc = tcase_create("combine");
    tcase_add_loop_test(tc, test_combine_wrapping, 0, NCOMBINE);
    tcase_add_test(tc, test_combine_refuses);
    suite_add_tcase(suite, tc);
    return suite;
}
