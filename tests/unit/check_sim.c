/*
 * Tests of the simulator itself, on hand-built schedules: correct schedules
 * pass, and each violation it promises to find is found. The collective
 * suites trust it only as far as these tests go.
 */
#include <check.h>
#include <stdbool.h>
#include <string.h>

#include "sim.h"

/* ------------------------------------------------ hand-built schedules */

typedef void sim_build_fn(const cs_problem *prob, int rank, cs_sched *s);

/* Where a rank's operand is: RECV when it is in place (reduce: at the root only). */
static cs_buf data_buf(const cs_problem *prob, int rank)
{
    const bool inplace = prob->flags & CS_PROB_INPLACE;
    return inplace && (prob->coll != CS_COLL_REDUCE || rank == prob->root) ? CS_BUF_RECV : CS_BUF_SEND;
}

/* Alltoall, pairwise: in round k, send to rank+k and receive from rank-k. In
 * place, the blocks are saved to TMP0 first, as RECV is overwritten. The last
 * step (not in place) is the copy of the rank's own block. */
static void a2a_pairwise(const cs_problem *prob, int rank, cs_sched *s)
{
    const int p = prob->p;
    const size_t m = prob->bytes;
    cs_buf src = CS_BUF_SEND;
    if (prob->flags & CS_PROB_INPLACE) {
        cs_sched_scratch(s, CS_BUF_TMP0, (size_t)p * m);
        cs_sched_round(s);
        cs_sched_copy(s, CS_BUF_RECV, 0, CS_BUF_TMP0, 0, (size_t)p * m);
        src = CS_BUF_TMP0;
    }
    for (int k = 1; k < p; k++) {
        const int to = (rank + k) % p, from = (rank - k + p) % p;
        cs_sched_round(s);
        cs_sched_send(s, to, src, (size_t)to * m, m);
        cs_sched_recv(s, from, CS_BUF_RECV, (size_t)from * m, m);
    }
    if (!(prob->flags & CS_PROB_INPLACE))
        cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * m, CS_BUF_RECV, (size_t)rank * m, m);
}

/* Alltoall p = 2 with each block sent in two messages (1 byte, then the rest);
 * the receiver posts them in the given order. */
static void a2a_split_with(const cs_problem *prob, int rank, cs_sched *s, bool swapped)
{
    const size_t m = prob->bytes, peer = (size_t)(1 - rank);
    cs_sched_round(s);
    cs_sched_send(s, 1 - rank, CS_BUF_SEND, peer * m, 1);
    cs_sched_send(s, 1 - rank, CS_BUF_SEND, peer * m + 1, m - 1);
    if (swapped) {
        cs_sched_recv(s, 1 - rank, CS_BUF_RECV, peer * m + 1, m - 1);
        cs_sched_recv(s, 1 - rank, CS_BUF_RECV, peer * m, 1);
    } else {
        cs_sched_recv(s, 1 - rank, CS_BUF_RECV, peer * m, 1);
        cs_sched_recv(s, 1 - rank, CS_BUF_RECV, peer * m + 1, m - 1);
    }
    cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * m, CS_BUF_RECV, (size_t)rank * m, m);
}

static void a2a_split(const cs_problem *prob, int rank, cs_sched *s)
{
    a2a_split_with(prob, rank, s, false);
}

static void a2a_split_swapped(const cs_problem *prob, int rank, cs_sched *s)
{
    a2a_split_with(prob, rank, s, true);
}

typedef enum red_order {
    RED_LEFT_TO_RIGHT, /* ((0+1)+2)+... for every element */
    RED_ALT_ELEM1,     /* element 1 bracketed right to left: 0+(1+(2+...)) */
    RED_SWAPPED        /* operands reversed: p-1+(...+(1+0)) */
} red_order;

/*
 * Linear reduction: every rank sends its operand to the center (the root, or
 * rank 0 for allreduce), which receives them in TMP0 slots by rank, combines
 * them there and, for allreduce, sends the result back in a second round.
 */
static void red_linear_with(const cs_problem *prob, int rank, cs_sched *s, red_order order)
{
    const int p = prob->p;
    const size_t v = prob->bytes;
    const int center = prob->coll == CS_COLL_REDUCE ? prob->root : 0;
    cs_sched_round(s);
    if (rank != center) {
        cs_sched_send(s, center, data_buf(prob, rank), 0, v);
    } else {
        cs_sched_scratch(s, CS_BUF_TMP0, (size_t)p * v);
        for (int r = 0; r < p; r++)
            if (r != center)
                cs_sched_recv(s, r, CS_BUF_TMP0, (size_t)r * v, v);
        cs_sched_copy(s, data_buf(prob, rank), 0, CS_BUF_TMP0, (size_t)center * v, v);
        for (size_t e = 0; e < prob->count; e++) {
            const size_t at = 4 * e;
            for (int r = 1; r < p; r++) {
                if (order == RED_SWAPPED) /* slot 0 = slot r (+) slot 0 */
                    cs_sched_reduce(s, CS_BUF_TMP0, (size_t)r * v + at, CS_BUF_TMP0, at, 4);
                else if (order == RED_ALT_ELEM1 && e == 1) /* slot p-1 = slot p-1-r (+) slot p-1 */
                    cs_sched_reduce(s, CS_BUF_TMP0, (size_t)(p - 1 - r) * v + at, CS_BUF_TMP0, (size_t)(p - 1) * v + at,
                                    4);
                else /* slot r = slot r-1 (+) slot r */
                    cs_sched_reduce(s, CS_BUF_TMP0, (size_t)(r - 1) * v + at, CS_BUF_TMP0, (size_t)r * v + at, 4);
            }
        }
        const int result = order == RED_SWAPPED ? 0 : p - 1;
        cs_sched_copy(s, CS_BUF_TMP0, (size_t)result * v, CS_BUF_RECV, 0, v);
    }
    if (prob->coll != CS_COLL_ALLREDUCE)
        return;
    cs_sched_round(s);
    for (int r = 0; r < p; r++)
        if (rank == center && r != center)
            cs_sched_send(s, r, CS_BUF_RECV, 0, v);
    if (rank != center)
        cs_sched_recv(s, center, CS_BUF_RECV, 0, v);
}

static void red_linear(const cs_problem *prob, int rank, cs_sched *s)
{
    red_linear_with(prob, rank, s, RED_LEFT_TO_RIGHT);
}

static void red_alt(const cs_problem *prob, int rank, cs_sched *s)
{
    red_linear_with(prob, rank, s, RED_ALT_ELEM1);
}

static void red_swapped(const cs_problem *prob, int rank, cs_sched *s)
{
    red_linear_with(prob, rank, s, RED_SWAPPED);
}

/* Allreduce p = 1 that forgets to copy its operand to RECV. */
static void red_nothing(const cs_problem *prob, int rank, cs_sched *s)
{
    cs_sched_round(s);
}

/* ----------------------------------------------------------- mutations */

/* Mutations applied after a correct schedule. Those that add messages open a
 * round on every rank, so the rounds stay aligned. */

static void mut_drop_last(const cs_problem *prob, int rank, cs_sched *s)
{
    s->nsteps--;
}

static void mut_extra_round(const cs_problem *prob, int rank, cs_sched *s)
{
    cs_sched_round(s);
    cs_sched_scratch(s, CS_BUF_TMP1, 64);
}

/* Rank 1 alone runs one more round, of local steps only: allowed. */
static void mut_uneven(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 1) {
        mut_extra_round(prob, rank, s);
        cs_sched_copy(s, CS_BUF_TMP1, 0, CS_BUF_TMP1, 8, 8);
    }
}

static void mut_extra_send(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_send(s, 1, CS_BUF_TMP1, 0, 4);
}

static void mut_extra_recv(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_recv(s, 1, CS_BUF_TMP1, 0, 4);
}

/* Rank 0 sends in one round, rank 1 receives in the next. */
static void mut_cross_round(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_send(s, 1, CS_BUF_TMP1, 0, 4);
    mut_extra_round(prob, rank, s);
    if (rank == 1)
        cs_sched_recv(s, 0, CS_BUF_TMP1, 0, 4);
}

static void mut_length(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_send(s, 1, CS_BUF_TMP1, 0, 4);
    if (rank == 1)
        cs_sched_recv(s, 0, CS_BUF_TMP1, 0, 3);
}

/* A message of 0 bytes, from a buffer of 0 bytes (SEND, in place). */
static void mut_empty_send_inplace(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_send(s, 1, CS_BUF_SEND, 0, 0);
    if (rank == 1)
        cs_sched_recv(s, 0, CS_BUF_TMP1, 0, 0);
}

static void mut_past_end(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 1)
        cs_sched_copy(s, CS_BUF_RECV, prob->bytes - 2, CS_BUF_TMP0, 0, 4);
}

static void mut_undeclared_tmp(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 1)
        cs_sched_copy(s, CS_BUF_RECV, 0, CS_BUF_TMP1, 0, 4);
}

/* A non-root of reduce touches RECV. */
static void mut_nonroot_recv(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == (prob->root + 1) % prob->p)
        cs_sched_copy(s, CS_BUF_SEND, 0, CS_BUF_RECV, 0, 4);
}

static void mut_read_send_inplace(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_copy(s, CS_BUF_SEND, 0, CS_BUF_TMP1, 0, 4);
}

static void mut_copy_to_send(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 1)
        cs_sched_copy(s, CS_BUF_RECV, 0, CS_BUF_SEND, 0, 4);
}

static void mut_recv_to_send(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_send(s, 1, CS_BUF_TMP1, 0, 4);
    if (rank == 1)
        cs_sched_recv(s, 0, CS_BUF_SEND, 0, 4);
}

/* Two messages each way in one round; rank 0's buffer ranges are given. */
static void mut_two_each_way(int rank, cs_sched *s, cs_step_kind k0, size_t off0, cs_step_kind k1, size_t off1)
{
    const cs_step_kind kinds[2] = {k0, k1};
    const size_t offs[2] = {off0, off1};
    for (int i = 0; i < 2; i++) {
        const bool send = (kinds[i] == CS_STEP_SEND) == (rank == 0);
        if (send)
            cs_sched_send(s, 1 - rank, CS_BUF_TMP1, rank == 0 ? offs[i] : 8 * (size_t)i, 4);
        else
            cs_sched_recv(s, 1 - rank, CS_BUF_TMP1, rank == 0 ? offs[i] : 8 * (size_t)i, 4);
    }
}

static void mut_recv_recv_overlap(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    mut_two_each_way(rank, s, CS_STEP_RECV, 0, CS_STEP_RECV, 2);
}

static void mut_recv_send_overlap(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    mut_two_each_way(rank, s, CS_STEP_SEND, 0, CS_STEP_RECV, 2);
}

/* Two sends of the same bytes: allowed (both only read). */
static void mut_send_send_overlap(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    mut_two_each_way(rank, s, CS_STEP_SEND, 0, CS_STEP_SEND, 2);
}

static void mut_reduce_len(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        cs_sched_reduce(s, CS_BUF_RECV, 0, CS_BUF_TMP0, 0, 3);
}

static void mut_self(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0) {
        cs_sched_send(s, 0, CS_BUF_TMP1, 0, 4);
        cs_sched_recv(s, 0, CS_BUF_TMP1, 8, 4);
    }
}

static void mut_peer_range(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0) {
        cs_sched_send(s, prob->p, CS_BUF_TMP1, 0, 4);
        cs_sched_recv(s, -1, CS_BUF_TMP1, 8, 4);
    }
}

static void mut_reduce_alltoall(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        cs_sched_reduce(s, CS_BUF_SEND, 0, CS_BUF_RECV, 4, 4);
}

static void mut_alias(const cs_problem *prob, int rank, cs_sched *s)
{
    mut_extra_round(prob, rank, s);
    if (rank == 0)
        cs_sched_copy(s, CS_BUF_TMP1, 0, CS_BUF_TMP1, 2, 4);
}

static void mut_bad_kind(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        s->steps[s->nsteps - 1].kind = 7;
}

/* Rank 0's first step belongs to no round. */
static void mut_before_first_round(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        s->round_start[0] = 1;
}

static void mut_bad_buf(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        cs_sched_copy(s, (cs_buf)7, 0, CS_BUF_RECV, 0, 4);
}

/* Rank 0 combines element 1 of its result into element 0. */
static void mut_cross_elem(const cs_problem *prob, int rank, cs_sched *s)
{
    if (rank == 0)
        cs_sched_reduce(s, CS_BUF_TMP0, 4, CS_BUF_RECV, 0, 4);
}

/* ---------------------------------------------------------------- cases */

typedef struct sim_case {
    const char *name;
    cs_coll coll;
    int p;
    size_t count;
    unsigned flags;
    int root;
    sim_build_fn *base, *mutate;
    unsigned opts;
    sim_kind expect; /* SIM_V_LAST: no violation at all */
} sim_case;

#define A2A CS_COLL_ALLTOALL
#define ARED CS_COLL_ALLREDUCE
#define RED CS_COLL_REDUCE
#define INPL CS_PROB_INPLACE
#define COMM CS_PROB_COMMUTATIVE
#define CLEAN SIM_V_LAST

static const sim_case sim_cases[] = {
    /* correct schedules */
    {"alltoall p=1", A2A, 1, 3, 0, 0, a2a_pairwise, NULL, 0, CLEAN},
    {"alltoall p=1 in place", A2A, 1, 3, INPL, 0, a2a_pairwise, NULL, 0, CLEAN},
    {"alltoall p=3", A2A, 3, 5, 0, 0, a2a_pairwise, NULL, 0, CLEAN},
    {"alltoall p=5 in place", A2A, 5, 1, INPL, 0, a2a_pairwise, NULL, 0, CLEAN},
    {"two messages per pair, in order", A2A, 2, 5, 0, 0, a2a_split, NULL, 0, CLEAN},
    {"ranks with more rounds than others", A2A, 3, 4, 0, 0, a2a_pairwise, mut_uneven, 0, CLEAN},
    {"sends may share bytes", A2A, 2, 4, 0, 0, a2a_pairwise, mut_send_send_overlap, 0, CLEAN},
    {"allreduce p=1", ARED, 1, 3, 0, 0, red_linear, NULL, 0, CLEAN},
    {"allreduce p=1 in place", ARED, 1, 3, INPL, 0, red_linear, NULL, 0, CLEAN},
    {"allreduce p=2", ARED, 2, 3, 0, 0, red_linear, NULL, 0, CLEAN},
    {"allreduce p=5 in place", ARED, 5, 4, INPL, 0, red_linear, NULL, 0, CLEAN},
    {"reduce p=4 root 2", RED, 4, 3, 0, 2, red_linear, NULL, 0, CLEAN},
    {"reduce p=4 root 3 in place", RED, 4, 3, INPL, 3, red_linear, NULL, 0, CLEAN},
    {"reduce p=1 in place", RED, 1, 2, INPL, 0, red_linear, NULL, 0, CLEAN},
    {"commutative operands in any order", ARED, 3, 2, COMM, 0, red_swapped, NULL, 0, CLEAN},
    {"relaxed bracketing", ARED, 3, 2, 0, 0, red_alt, NULL, SIM_RELAX_SHAPE, CLEAN},
    /* violations */
    {"unmatched send", A2A, 2, 4, 0, 0, a2a_pairwise, mut_extra_send, 0, SIM_V_UNMATCHED_SEND},
    {"unmatched receive", A2A, 2, 4, 0, 0, a2a_pairwise, mut_extra_recv, 0, SIM_V_UNMATCHED_RECV},
    {"send and receive in different rounds", A2A, 2, 4, 0, 0, a2a_pairwise, mut_cross_round, 0, SIM_V_UNMATCHED_RECV},
    {"length mismatch", A2A, 2, 4, 0, 0, a2a_pairwise, mut_length, 0, SIM_V_LENGTH},
    {"messages of a pair match in order", A2A, 2, 5, 0, 0, a2a_split_swapped, NULL, 0, SIM_V_LENGTH},
    {"past the end of RECV", ARED, 2, 2, 0, 0, red_linear, mut_past_end, 0, SIM_V_BOUNDS},
    {"scratch never declared", ARED, 2, 2, 0, 0, red_linear, mut_undeclared_tmp, 0, SIM_V_BOUNDS},
    {"RECV of a non-root", RED, 3, 2, 0, 1, red_linear, mut_nonroot_recv, 0, SIM_V_BOUNDS},
    {"SEND when in place", ARED, 2, 2, INPL, 0, red_linear, mut_read_send_inplace, 0, SIM_V_BOUNDS},
    {"0 bytes of SEND when in place", A2A, 2, 4, INPL, 0, a2a_pairwise, mut_empty_send_inplace, 0, SIM_V_BOUNDS},
    {"copy into SEND", ARED, 2, 2, 0, 0, red_linear, mut_copy_to_send, 0, SIM_V_WRITE_SEND},
    {"receive into SEND", A2A, 2, 4, 0, 0, a2a_pairwise, mut_recv_to_send, 0, SIM_V_WRITE_SEND},
    {"receive overlaps receive", A2A, 2, 4, 0, 0, a2a_pairwise, mut_recv_recv_overlap, 0, SIM_V_OVERLAP},
    {"receive overlaps send", A2A, 2, 4, 0, 0, a2a_pairwise, mut_recv_send_overlap, 0, SIM_V_OVERLAP},
    {"reduce length", ARED, 2, 2, 0, 0, red_linear, mut_reduce_len, 0, SIM_V_REDUCE_LEN},
    {"send to self", A2A, 2, 4, 0, 0, a2a_pairwise, mut_self, 0, SIM_V_PEER},
    {"peer out of range", A2A, 2, 4, 0, 0, a2a_pairwise, mut_peer_range, 0, SIM_V_PEER},
    {"reduce in alltoall", A2A, 2, 4, 0, 0, a2a_pairwise, mut_reduce_alltoall, 0, SIM_V_NO_OP},
    {"copy onto itself", A2A, 2, 4, 0, 0, a2a_pairwise, mut_alias, 0, SIM_V_ALIAS},
    {"unknown step kind", A2A, 2, 4, 0, 0, a2a_pairwise, mut_bad_kind, 0, SIM_V_STEP},
    {"a step before the first round", A2A, 2, 4, 0, 0, a2a_pairwise, mut_before_first_round, 0, SIM_V_STEP},
    {"unknown buffer", A2A, 2, 4, 0, 0, a2a_pairwise, mut_bad_buf, 0, SIM_V_STEP},
    {"own block lost", A2A, 3, 2, 0, 0, a2a_pairwise, mut_drop_last, 0, SIM_V_DATA},
    {"own block lost, 1 byte", A2A, 2, 1, 0, 0, a2a_pairwise, mut_drop_last, 0, SIM_V_DATA},
    {"in place, a block never received", A2A, 2, 1, INPL, 0, a2a_pairwise, mut_drop_last, 0, SIM_V_DATA},
    {"result never written", ARED, 1, 2, 0, 0, red_nothing, NULL, 0, SIM_V_ORDER},
    {"non-commutative operands swapped", ARED, 2, 2, 0, 0, red_swapped, NULL, 0, SIM_V_ORDER},
    {"non-commutative operands swapped, reduce", RED, 3, 1, 0, 2, red_swapped, NULL, 0, SIM_V_ORDER},
    {"elements mixed", ARED, 2, 2, 0, 0, red_linear, mut_cross_elem, 0, SIM_V_ORDER},
    {"bracketing differs", ARED, 3, 2, 0, 0, red_alt, NULL, 0, SIM_V_SHAPE},
    {"bracketing differs, commutative", ARED, 3, 2, COMM, 0, red_alt, NULL, 0, SIM_V_SHAPE},
};

enum { NCASES = sizeof(sim_cases) / sizeof(sim_cases[0]) };

static cs_problem case_problem(const sim_case *c)
{
    const size_t elem = c->coll == CS_COLL_ALLTOALL ? 1 : 4;
    return (cs_problem){.coll = c->coll,
                        .p = c->p,
                        .root = c->root,
                        .count = c->count,
                        .elem = elem,
                        .bytes = c->count * elem,
                        .flags = c->flags | CS_PROB_CONTIG};
}

START_TEST(test_case)
{
    const sim_case *c = &sim_cases[_i];
    const cs_problem prob = case_problem(c);
    cs_sched *s = sim_scheds_new(c->p);
    for (int r = 0; r < c->p; r++) {
        c->base(&prob, r, &s[r]);
        if (c->mutate)
            c->mutate(&prob, r, &s[r]);
    }
    sim_report rep;
    char buf[2048];
    sim_run(&prob, s, c->opts, &rep);
    sim_report_str(&rep, buf, sizeof buf);
    if (c->expect == CLEAN)
        ck_assert_msg(rep.total == 0, "%s: %s", c->name, buf);
    else
        ck_assert_msg(rep.count[c->expect] > 0, "%s: no %s violation: %s", c->name, sim_kind_name(c->expect), buf);
    sim_scheds_free(s, c->p);
}
END_TEST

/* Step violations say where they are. */
START_TEST(test_where)
{
    const sim_case *c = &sim_cases[0];
    cs_problem prob = case_problem(c);
    prob.p = 2;
    cs_sched *s = sim_scheds_new(2);
    for (int r = 0; r < 2; r++) {
        a2a_pairwise(&prob, r, &s[r]);
        mut_extra_send(&prob, r, &s[r]);
    }
    sim_report rep;
    sim_run(&prob, s, 0, &rep);
    ck_assert_int_eq(rep.total, 1);
    ck_assert_msg(strstr(rep.msg[0], "rank 0 round 1 step 3 (send to 1 TMP1"), "%s", rep.msg[0]);
    sim_scheds_free(s, 2);
}
END_TEST

/* --------------------------------------------- sim_run_alg on fake rows */

static int fake_build_fail(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return rank == 1 ? 15 : 0;
}

static int fake_build_alt(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    red_alt(prob, rank, s);
    return 0;
}

START_TEST(test_alg_build_error)
{
    const cs_alg alg = {.name = "fail", .coll = CS_COLL_ALLTOALL, .build = fake_build_fail};
    const cs_problem prob = {.coll = CS_COLL_ALLTOALL, .p = 3, .count = 1, .elem = 1, .bytes = 1};
    cs_params params;
    cs_params_init(&params);
    cs_sched *s = sim_scheds_new(3);
    sim_report rep;
    sim_run_alg(&alg, &prob, &params, s, &rep);
    ck_assert_int_eq(rep.count[SIM_V_BUILD], 1);
    sim_scheds_free(s, 3);
}
END_TEST

/* A row that requires a commutative operator promises no bracketing; one that
 * does not is held to it; a second run on the same schedules reuses them. */
START_TEST(test_alg_relax)
{
    const unsigned req[2] = {CS_REQ_COMMUTATIVE, 0};
    const cs_problem prob = {
        .coll = CS_COLL_ALLREDUCE, .p = 4, .count = 3, .elem = 4, .bytes = 12, .flags = CS_PROB_COMMUTATIVE};
    cs_params params;
    cs_params_init(&params);
    cs_sched *s = sim_scheds_new(4);
    for (int i = 0; i < 2; i++) {
        const cs_alg alg = {.name = "alt", .coll = CS_COLL_ALLREDUCE, .requires = req[i], .build = fake_build_alt};
        sim_report rep;
        sim_run_alg(&alg, &prob, &params, s, &rep);
        ck_assert_int_eq(rep.total, rep.count[SIM_V_SHAPE]);
        ck_assert_int_eq(rep.count[SIM_V_SHAPE] > 0, req[i] == 0);
    }
    sim_scheds_free(s, 4);
}
END_TEST

START_TEST(test_setup)
{
    /* reductions run on uint32 node ids */
    const cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 2, .count = 2, .elem = 8, .bytes = 16};
    cs_sched *s = sim_scheds_new(2);
    sim_report rep;
    sim_run(&prob, s, 0, &rep);
    ck_assert_int_eq(rep.count[SIM_V_SETUP], 1);
    sim_scheds_free(s, 2);
}
END_TEST

Suite *make_sim_suite(void)
{
    Suite *suite = suite_create("sim");
    TCase *tc = tcase_create("cases");
    tcase_add_loop_test(tc, test_case, 0, NCASES);
    tcase_add_test(tc, test_where);
    tcase_add_test(tc, test_alg_build_error);
    tcase_add_test(tc, test_alg_relax);
    tcase_add_test(tc, test_setup);
    suite_add_tcase(suite, tc);
    return suite;
}
