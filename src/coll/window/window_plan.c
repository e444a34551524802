/*
 * Recursive combination (Szymanski, Maniatty and Sinharoy 1995, §3.1, Fig. 2)
 * as rank arithmetic: which partial value of which position is combined with
 * which, and which of them some result needs.
 *
 * After round k, position q holds the block B = [q - r_k, q - r_k + 2^(k+1) - 1]
 * (leftsubsec) and the partial result R = [q - r_k, q - r_k + n_k - 1] (res),
 * r_k and n_k the low k + 1 bits of r and n. In round k the partner
 * q -/+ 2^k holds the left or the right half, as bit k of r says (the data
 * move right where r has a one). The h = floor(log2 n) rounds build blocks
 * of 2^h; unless n is a power of two, one more round combines a block of 2^h
 * with a partial result of n - 2^h from 2^h away: ceil(log2 n) rounds, and
 * at most h + popcount(n) - 1 combining steps for a position.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

#include "coll/window/window.h"

static int cs_window_low(int x, int k)
{
    return k < 0 ? 0 : x & (int)((2u << k) - 1);
}

static cs_span cs_window_clip(const cs_window_plan *plan, int lo, int hi)
{
    return (cs_span){lo < 0 ? 0 : lo, hi > plan->p - 1 ? plan->p - 1 : hi};
}

cs_span cs_window_span(const cs_window_plan *plan, cs_window_ref v)
{
    const int start = v.q - cs_window_low(plan->r, v.k);
    switch (v.kind) {
    case CS_WIN_B: return cs_window_clip(plan, start, start + (v.k < 0 ? 0 : (2 << v.k) - 1));
    case CS_WIN_R: return cs_window_clip(plan, start, start + cs_window_low(plan->n, v.k) - 1);
    case CS_WIN_RES: return cs_window_clip(plan, v.q - plan->r, v.q - plan->r + plan->n - 1);
    default: return (cs_span){1, 0};
    }
}

int cs_window_shift(const cs_window_plan *plan, int k)
{
    return (plan->r >> k) & 1 ? -(1 << k) : 1 << k;
}

void cs_window_operands(const cs_window_plan *plan, cs_window_ref v, cs_window_ref op[2])
{
    const int k = v.k, o = v.q + cs_window_shift(plan, k);
    const int lq = (plan->r >> k) & 1 ? o : v.q, rq = lq == o ? v.q : o;
    const int pow2 = !(plan->n & (plan->n - 1));
    const unsigned bit = (plan->n >> k) & 1;

    op[0] = op[1] = (cs_window_ref){k - 1, 0, 0};
    if (v.kind == CS_WIN_RES && pow2) {
        op[0].q = v.q; /* the block of n is the result */
        op[0].kind = CS_WIN_B;
    } else if (v.kind == CS_WIN_RES || v.kind == CS_WIN_B || bit) {
        op[0] = (cs_window_ref){k - 1, lq, CS_WIN_B};
        op[1] = (cs_window_ref){k - 1, rq, v.kind == CS_WIN_B ? CS_WIN_B : CS_WIN_R};
    } else {
        op[0] = (cs_window_ref){k - 1, lq, CS_WIN_R}; /* res passes on from the left half */
    }
}

static uint8_t *cs_window_cell(const cs_window_plan *plan, int k, int q)
{
    if (q < -plan->p || q >= 2 * plan->p || k < -1 || k > plan->h)
        return NULL;
    return &plan->need[(size_t)(k + 1) * 3 * (size_t)plan->p + (size_t)(q + plan->p)];
}

int cs_window_needed(const cs_window_plan *plan, cs_window_ref v)
{
    const uint8_t *c = cs_window_cell(plan, v.k, v.q);
    return c && (*c & v.kind);
}

static void cs_window_mark(cs_window_plan *plan, cs_window_ref v)
{
    uint8_t *c = cs_window_cell(plan, v.k, v.q);
    if (c && v.kind && !cs_span_empty(cs_window_span(plan, v)))
        *c |= (uint8_t)v.kind;
}

int cs_window_plan_make(int p, int n, int r, int wrap, cs_window_plan *plan)
{
    if (p < 1 || n < 1 || n > p || r < 0 || r >= n)
        return MPI_ERR_ARG;
    *plan = (cs_window_plan){.p = p, .n = n, .r = r, .wrap = wrap, .h = cs_floor_log2(n), .rounds = cs_ceil_log2(n)};
    plan->need = calloc((size_t)(plan->h + 2) * 3 * (size_t)p, 1);
    if (!plan->need)
        return MPI_ERR_NO_MEM;
    /* The results: of the ranks, and of the padding when the ring wraps. */
    for (int q = wrap ? -p : 0; q < (wrap ? 2 * p : p); q++)
        cs_window_mark(plan, (cs_window_ref){plan->h, q, CS_WIN_RES});
    for (int k = plan->h; k >= 0; k--)
        for (int q = -p; q < 2 * p; q++)
            for (unsigned kind = CS_WIN_B; kind <= CS_WIN_RES; kind <<= 1) {
                cs_window_ref v = {k, q, kind}, op[2];
                if (!cs_window_needed(plan, v))
                    continue;
                cs_window_operands(plan, v, op);
                cs_window_mark(plan, op[0]);
                cs_window_mark(plan, op[1]);
            }
    return MPI_SUCCESS;
}

void cs_window_plan_free(cs_window_plan *plan)
{
    free(plan->need);
    plan->need = NULL;
}

/* One plan per thread, kept for the next call with the same (p, n, r, wrap):
 * the builders of the p ranks of one problem (the simulator, the cost
 * function) then share it. Thread-local, so no lock; a key's destructor
 * frees it when its thread ends (threads that come and go leak nothing). */
static _Thread_local cs_window_plan cs_window_last;
static pthread_once_t cs_window_last_once = PTHREAD_ONCE_INIT;
static pthread_key_t cs_window_last_key;
static int cs_window_last_keyed;

static void cs_window_last_release(void *plan)
{
    cs_window_plan_free(plan);
}

static void cs_window_last_key_make(void)
{
    cs_window_last_keyed = pthread_key_create(&cs_window_last_key, cs_window_last_release) == 0;
}

const cs_window_plan *cs_window_plan_cached(int p, int n, int r, int wrap)
{
    cs_window_plan *c = &cs_window_last;
    if (c->need && c->p == p && c->n == n && c->r == r && c->wrap == wrap)
        return c;
    cs_window_plan_free(c);
    if (cs_window_plan_make(p, n, r, wrap, c) != MPI_SUCCESS)
        return NULL;
    pthread_once(&cs_window_last_once, cs_window_last_key_make);
    if (cs_window_last_keyed)
        pthread_setspecific(cs_window_last_key, c);
    return c;
}
