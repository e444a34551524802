/*
 * Windowed reduction across ranks by recursive combination: Szymanski,
 * Maniatty and Sinharoy, "Simultaneous Parallel Reduction on SIMD Machines"
 * (1995), §3.1, Fig. 2, both directions and any offset, the edges clipped
 * as in eq. (1). The rank arithmetic is in window_plan.c; this file turns
 * one rank's part of it into a schedule.
 *
 * Restrictions: contiguous datatype. Any associative operator: every
 * combining step joins two adjacent runs of ranks, the left one first.
 *
 * A rank keeps the needed values of its own position and of the padding
 * position it stands for (window.h), each distinct run of ranks once. In
 * round k it sends one message, to rank +/- 2^k, of the values its partner
 * needs, and receives one. A message holds at most two partial vectors away
 * from the edges (B and R of Fig. 2); near an edge the padding position's
 * value can add one. Messages of several vectors are packed in TMP1 (copies)
 * at the end of the round before.
 *
 * Cost, m bytes, ceil(log2 n) rounds, v_k the vectors of the fullest message
 * of round k, c the combining steps (at most floor(log2 n) + popcount(n) - 1
 * for a position), y the copies:
 *   sum_k (alpha + beta v_k m) + gamma c m + rho y m,
 * the largest over the ranks (window_cost below computes it exactly).
 */
#include <mpi.h>
#include <string.h>

#include "coll/window/window.h"

enum { CS_WIN_MAX_VALUES = 16 };

/* A value a rank holds: a run of ranks and where its vector lives. */
typedef struct cs_win_value {
    cs_span span;
    cs_buf buf;
    size_t off;
} cs_win_value;

typedef struct cs_win_rank {
    const cs_window_plan *plan;
    int rank;
    size_t m;
    cs_sched *s;
    cs_win_value held[CS_WIN_MAX_VALUES];
    int nheld;
    unsigned slots_used; /* TMP0 slots of m bytes in use (bit mask) */
    int slots_max;
} cs_win_rank;

/* The positions a rank stands for: its own and the padding at +/- p. */
static int cs_win_positions(const cs_window_plan *plan, int rank, int out[3])
{
    out[0] = rank - plan->p;
    out[1] = rank;
    out[2] = rank + plan->p;
    return 3;
}

static void cs_win_add_span(cs_span *list, int *n, cs_span sp)
{
    if (cs_span_empty(sp))
        return;
    int i = *n;
    for (int j = 0; j < *n; j++)
        if (cs_span_eq(list[j], sp))
            return;
    while (i > 0 && (list[i - 1].lo > sp.lo || (list[i - 1].lo == sp.lo && list[i - 1].hi > sp.hi))) {
        list[i] = list[i - 1];
        i--;
    }
    list[i] = sp;
    (*n)++;
}

/* What rank `to` receives in round k: the distinct runs of the values of its
 * partners that its needed values of level k use, in order. The sender
 * computes the same list for its receiver. */
static int cs_win_message(const cs_window_plan *plan, int k, int to, cs_span *list)
{
    int pos[3], n = 0;
    const int shift = cs_window_shift(plan, k);
    for (int i = 0, np = cs_win_positions(plan, to, pos); i < np; i++)
        for (unsigned kind = CS_WIN_B; kind <= CS_WIN_RES; kind <<= 1) {
            cs_window_ref v = {k, pos[i], kind}, op[2];
            if (!cs_window_needed(plan, v))
                continue;
            cs_window_operands(plan, v, op);
            for (int j = 0; j < 2; j++)
                if (op[j].kind && op[j].q == pos[i] + shift)
                    cs_win_add_span(list, &n, cs_window_span(plan, op[j]));
        }
    return n;
}

static int cs_win_mod(int x, int p)
{
    return ((x % p) + p) % p;
}

static cs_win_value *cs_win_find(cs_win_rank *w, cs_span sp)
{
    for (int i = 0; i < w->nheld; i++)
        if (cs_span_eq(w->held[i].span, sp))
            return &w->held[i];
    return NULL;
}

/* The first run of `count` free TMP0 slots; its byte offset. */
static size_t cs_win_alloc(cs_win_rank *w, int count)
{
    int at = 0;
    while (((w->slots_used >> at) & ((1u << count) - 1)) != 0)
        at++;
    w->slots_used |= ((1u << count) - 1) << at;
    if (at + count > w->slots_max)
        w->slots_max = at + count;
    return (size_t)at * w->m;
}

static void cs_win_hold(cs_win_rank *w, cs_span sp, cs_buf buf, size_t off)
{
    if (w->nheld == CS_WIN_MAX_VALUES) {
        w->s->error = MPI_ERR_INTERN;
        return;
    }
    w->held[w->nheld++] = (cs_win_value){sp, buf, off};
}

/* Rebuild the slot mask from the values still held. */
static void cs_win_retain(cs_win_rank *w)
{
    w->slots_used = 0;
    for (int i = 0; i < w->nheld; i++)
        if (w->held[i].buf == CS_BUF_TMP0)
            w->slots_used |= 1u << (w->held[i].off / w->m);
}

/* Round k's messages: the one it sends and the one it receives. */
static void cs_win_exchange(cs_win_rank *w, int k)
{
    const cs_window_plan *plan = w->plan;
    const int shift = cs_window_shift(plan, k);
    const int to = cs_win_mod(w->rank - shift, plan->p), from = cs_win_mod(w->rank + shift, plan->p);
    cs_span out[2 * CS_WIN_MAX_VALUES], in[2 * CS_WIN_MAX_VALUES];
    const int nout = cs_win_message(plan, k, to, out), nin = cs_win_message(plan, k, w->rank, in);

    if (nout == 1) {
        const cs_win_value *v = cs_win_find(w, out[0]);
        if (v)
            cs_sched_send(w->s, to, v->buf, v->off, w->m);
        else
            w->s->error = MPI_ERR_INTERN;
    } else if (nout > 1) {
        cs_sched_send(w->s, to, CS_BUF_TMP1, 0, (size_t)nout * w->m); /* packed in the round before */
    }
    if (nin > 0) {
        const size_t off = cs_win_alloc(w, nin);
        cs_sched_recv(w->s, from, CS_BUF_TMP0, off, (size_t)nin * w->m);
        for (int i = 0; i < nin; i++)
            cs_win_hold(w, in[i], CS_BUF_TMP0, off + (size_t)i * w->m);
    }
}

/* Pack the message of round k (several vectors) into TMP1. */
static void cs_win_pack(cs_win_rank *w, int k)
{
    const int to = cs_win_mod(w->rank - cs_window_shift(w->plan, k), w->plan->p);
    cs_span out[2 * CS_WIN_MAX_VALUES];
    const int nout = cs_win_message(w->plan, k, to, out);
    if (nout < 2)
        return;
    cs_sched_scratch(w->s, CS_BUF_TMP1, (size_t)nout * w->m);
    for (int i = 0; i < nout; i++) {
        const cs_win_value *v = cs_win_find(w, out[i]);
        if (!v) {
            w->s->error = MPI_ERR_INTERN;
            return;
        }
        cs_sched_copy(w->s, v->buf, v->off, CS_BUF_TMP1, (size_t)i * w->m, w->m);
    }
}

/* One new value: the run it reduces and its operands' runs. */
typedef struct cs_win_job {
    cs_span span, left, right;
} cs_win_job;

static int cs_win_uses(const cs_win_job *jobs, int n, cs_span sp)
{
    int uses = 0;
    for (int i = 0; i < n; i++)
        uses += cs_span_eq(jobs[i].left, sp) + cs_span_eq(jobs[i].right, sp);
    return uses;
}

/* The distinct new values of level k among the rank's positions. */
static int cs_win_jobs(cs_win_rank *w, int k, cs_win_job *jobs)
{
    int pos[3], n = 0;
    for (int i = 0, np = cs_win_positions(w->plan, w->rank, pos); i < np; i++)
        for (unsigned kind = CS_WIN_B; kind <= CS_WIN_RES; kind <<= 1) {
            cs_window_ref v = {k, pos[i], kind}, op[2];
            if (!cs_window_needed(w->plan, v))
                continue;
            cs_window_operands(w->plan, v, op);
            cs_win_job j = {cs_window_span(w->plan, v), {1, 0}, {1, 0}};
            if (op[0].kind)
                j.left = cs_window_span(w->plan, op[0]);
            if (op[1].kind)
                j.right = cs_window_span(w->plan, op[1]);
            if (cs_span_empty(j.left)) /* a clipped operand: the other passes on */
                j.left = j.right, j.right = (cs_span){1, 0};
            int seen = 0;
            for (int x = 0; x < n && !seen; x++)
                seen = cs_span_eq(jobs[x].span, j.span);
            if (!seen)
                jobs[n++] = j;
        }
    return n;
}

/*
 * Level k's values from level k - 1's and the round's message. A combine
 * reduces into its right operand when nothing else reads it and it lives in
 * TMP0; else into a fresh slot holding a copy of it.
 */
static void cs_win_combine(cs_win_rank *w, int k)
{
    cs_win_job jobs[3 * 3];
    cs_win_value next[CS_WIN_MAX_VALUES];
    const int njobs = cs_win_jobs(w, k, jobs);
    int nnext = 0;

    for (int i = 0; i < njobs && !w->s->error; i++) {
        const cs_win_value *l = cs_win_find(w, jobs[i].left);
        const cs_win_value *r = cs_span_empty(jobs[i].right) ? NULL : cs_win_find(w, jobs[i].right);
        if (!l || (!r && !cs_span_empty(jobs[i].right))) {
            w->s->error = MPI_ERR_INTERN;
            return;
        }
        cs_win_value out = *l;
        if (r) {
            out = *r;
            if (r->buf != CS_BUF_TMP0 || cs_win_uses(jobs, njobs, r->span) > 1) {
                out.buf = CS_BUF_TMP0;
                out.off = cs_win_alloc(w, 1);
                cs_sched_copy(w->s, r->buf, r->off, CS_BUF_TMP0, out.off, w->m);
            }
            cs_sched_reduce(w->s, l->buf, l->off, out.buf, out.off, w->m);
        }
        out.span = jobs[i].span;
        next[nnext++] = out;
    }
    memcpy(w->held, next, sizeof(next[0]) * (size_t)nnext);
    w->nheld = nnext;
    cs_win_retain(w);
}

/* The rank's result into RECV: its position's, joined in rank order with
 * the padding position's when the ring wraps. */
static void cs_win_finish(cs_win_rank *w)
{
    int pos[3], n = 0;
    const cs_win_value *piece[3];
    for (int i = 0, np = cs_win_positions(w->plan, w->rank, pos); i < np; i++) {
        cs_window_ref v = {w->plan->h, pos[i], CS_WIN_RES};
        if (!cs_window_needed(w->plan, v))
            continue;
        if (!(piece[n++] = cs_win_find(w, cs_window_span(w->plan, v)))) {
            w->s->error = MPI_ERR_INTERN;
            return;
        }
    }
    if (n == 0 || n > 2) {
        w->s->error = MPI_ERR_INTERN;
        return;
    }
    const cs_win_value *last = piece[n - 1];
    cs_sched_copy(w->s, last->buf, last->off, CS_BUF_RECV, 0, w->m); /* no step when it is there */
    if (n == 2)
        cs_sched_reduce(w->s, piece[0]->buf, piece[0]->off, CS_BUF_RECV, 0, w->m);
}

int cs_window_build(const cs_window_plan *plan, int rank, size_t count, size_t elem, int inplace, cs_sched *s)
{
    cs_win_rank w = {.plan = plan, .rank = rank, .m = count * elem, .s = s};
    if (w.m == 0)
        return MPI_SUCCESS;
    cs_win_hold(&w, (cs_span){rank, rank}, inplace ? CS_BUF_RECV : CS_BUF_SEND, 0);
    for (int k = 0; k < plan->rounds && !s->error; k++) {
        cs_sched_round(s);
        cs_win_exchange(&w, k);
        cs_win_combine(&w, k);
        if (k + 1 < plan->rounds)
            cs_win_pack(&w, k + 1);
    }
    if (plan->rounds == 0)
        cs_sched_round(s);
    cs_win_finish(&w);
    cs_sched_scratch(s, CS_BUF_TMP0, (size_t)w.slots_max * w.m);
    return s->error;
}
