/*
 * The reduction phase over any p, level by level (plan.h, engine.h). Every
 * rank makes the same rounds, idle or not, so that rounds line up across
 * ranks (the simulator checks it; MPI only needs the order).
 *
 * Buffers: the input is copied into the accumulator first (TMP1, or RECV
 * for the butterfly rows); TMP0 receives; a combine whose own operand is on
 * the left (non-commutative) leaves its result in the receiving buffer, and
 * the two swap roles (no copy per round). Commutative operators always
 * combine into the accumulator (IEEE a+b == b+a: bitwise the same result).
 */
#include <string.h>

#include "coll/reduction/engine.h"

/* The block before a stage, for the routing phase. */
void cs_red_mark(cs_red *r, int stage)
{
    r->lo_at[stage] = r->lo;
    r->hi_at[stage] = r->hi;
}

/* Combine what arrived in other[lo, hi) with cur[lo, hi). */
void cs_red_combine(cs_red *r, size_t lo, size_t hi, int own_left)
{
    const size_t e = r->e;
    if (!own_left || (r->prob->flags & CS_PROB_COMMUTATIVE)) {
        cs_sched_reduce(r->s, r->other, lo * e, r->cur, lo * e, (hi - lo) * e);
        return;
    }
    cs_sched_reduce(r->s, r->cur, lo * e, r->other, lo * e, (hi - lo) * e);
    cs_buf t = r->cur;
    r->cur = r->other;
    r->other = t;
}

/* Exchange with peer and combine: keep one half (split) or the whole. The
 * lower half is the larger one, [lo, lo + ceil(n/2)). */
void cs_red_exchange(cs_red *r, int peer, int split, int keep_upper, int own_left)
{
    const size_t e = r->e, mid = r->lo + (r->hi - r->lo + 1) / 2;
    size_t keep_lo = r->lo, keep_hi = r->hi, send_lo = r->lo, send_hi = r->hi;
    if (split) {
        if (keep_upper) {
            keep_lo = mid;
            send_hi = mid;
        } else {
            keep_hi = mid;
            send_lo = mid;
        }
    }
    cs_sched_send(r->s, peer, r->cur, send_lo * e, (send_hi - send_lo) * e);
    cs_sched_recv(r->s, peer, r->other, keep_lo * e, (keep_hi - keep_lo) * e);
    cs_red_combine(r, keep_lo, keep_hi, own_left);
    r->lo = keep_lo;
    r->hi = keep_hi;
}

/*
 * Reduce, a whole level: the members of the rank's instance reduce their
 * blocks one way towards member `to` along cs_tree_step (ceil(log2 f)
 * rounds, adjacent runs only). A butterfly level is the tree of two: the
 * member whose digit differs from the root's sends, the other combines.
 */
void cs_red_tree(cs_red *r, const cs_level *l, int to)
{
    const size_t e = r->e;
    const int me = cs_level_digit(l, r->rank), rounds = cs_ceil_log2(l->f);
    for (int t = 0; t < rounds; t++) {
        int peer = 0;
        cs_sched_round(r->s);
        if (r->done)
            continue;
        const cs_tree_act act = cs_tree_step(l->f, to, me, t, &peer);
        if (act == CS_TREE_SEND) {
            cs_sched_send(r->s, cs_level_member(l, r->rank, peer), r->cur, r->lo * e, (r->hi - r->lo) * e);
            r->done = 1;
        } else if (act != CS_TREE_IDLE) {
            cs_sched_recv(r->s, cs_level_member(l, r->rank, peer), r->other, r->lo * e, (r->hi - r->lo) * e);
            cs_red_combine(r, r->lo, r->hi, act == CS_TREE_RECV_LEFT);
        }
    }
}

/* Butterfly level of stride 2^z: the partner is rank ^ 2^z (bit z flipped);
 * bit z of the rank (its digit) says which holds the right operand. */
static void cs_red_butterfly(cs_red *r, const cs_level *l)
{
    const int c = cs_level_digit(l, r->rank);
    cs_red_mark(r, l->first_stage);
    cs_sched_round(r->s);
    cs_red_exchange(r, r->rank ^ l->stride, cs_red_split(r, l->first_stage), c, !c);
}

/*
 * Ring (§3.4), split: part c of the block of every member comes to member
 * c in f - 1 rounds (round t from the member t behind), into slots of
 * `other`; then the f parts are combined left to right, members 0..f-1,
 * so every member has the same bracketing. Whole: Bruck's concatenation
 * (ceil(log2 f) rounds: round d = 2^j brings the slots d..2d-1 from the
 * member d ahead) gathers every member's block, then the same
 * left-to-right combination. The own operand is copied into its slot and
 * the result back, on every member alike.
 */
static void cs_red_ring(cs_red *r, const cs_level *l)
{
    const int f = l->f, c = cs_level_digit(l, r->rank), split = cs_red_split(r, l->first_stage);
    const size_t e = r->e;
    size_t lo = r->lo, hi = r->hi, slot, first = 0;

    cs_red_mark(r, l->first_stage);
    if (split) {
        lo = cs_part(r->lo, r->hi, f, c);
        hi = cs_part(r->lo, r->hi, f, c + 1);
    }
    /* The slots need f parts, up to f - 1 elements more than the block:
     * never RECV (the root's other buffer after a swap), TMP1 then. */
    const cs_buf slots = r->other == CS_BUF_RECV ? CS_BUF_TMP1 : r->other;
    slot = (hi - lo) * e;
    cs_sched_scratch(r->s, slots, slot * (size_t)f);
    if (split) {
        for (int t = 1; t < f; t++) {
            const int to = (c + t) % f, from = (c - t + f) % f;
            cs_sched_round(r->s);
            cs_sched_send(r->s, cs_level_member(l, r->rank, to), r->cur, cs_part(r->lo, r->hi, f, to) * e,
                          (cs_part(r->lo, r->hi, f, to + 1) - cs_part(r->lo, r->hi, f, to)) * e);
            cs_sched_recv(r->s, cs_level_member(l, r->rank, from), slots, (size_t)from * slot, slot);
            if (t == 1)
                cs_sched_copy(r->s, r->cur, lo * e, slots, (size_t)c * slot, slot);
        }
    } else {
        /* slot j holds member (c + j) % f */
        first = (size_t)(f - c) % (size_t)f;
        for (int d = 1; d < f; d *= 2) {
            const int cnt = d < f - d ? d : f - d;
            cs_sched_round(r->s);
            if (d == 1)
                cs_sched_send(r->s, cs_level_member(l, r->rank, (c - 1 + f) % f), r->cur, lo * e, slot);
            else
                cs_sched_send(r->s, cs_level_member(l, r->rank, (c - d + f) % f), slots, 0, (size_t)cnt * slot);
            cs_sched_recv(r->s, cs_level_member(l, r->rank, (c + d) % f), slots, (size_t)d * slot, (size_t)cnt * slot);
            if (d == 1)
                cs_sched_copy(r->s, r->cur, lo * e, slots, 0, slot);
        }
    }
    /* Member x sits in slot (first + x) % f: combine left to right. */
    for (int x = 1; x < f; x++)
        cs_sched_reduce(r->s, slots, ((first + (size_t)x - 1) % (size_t)f) * slot, slots,
                        ((first + (size_t)x) % (size_t)f) * slot, slot);
    cs_sched_copy(r->s, slots, ((first + (size_t)f - 1) % (size_t)f) * slot, r->cur, lo * e, slot);
    r->lo = lo;
    r->hi = hi;
}

/* The phase with the block starting in `start`, the other buffer TMP0, or
 * RECV when the block starts in TMP0. */
static void cs_red_levels(cs_red *r, const cs_problem *prob, const cs_plan *plan, int k, int rank, cs_buf start,
                          cs_sched *s)
{
    const int reduce = prob->coll == CS_COLL_REDUCE;
    memset(r, 0, sizeof(*r));
    r->prob = prob;
    r->plan = plan;
    r->k = k;
    r->rank = rank;
    r->root = reduce ? prob->root : -1;
    r->s = s;
    r->e = prob->elem;
    r->cur = start;
    r->other = start == CS_BUF_TMP0 ? CS_BUF_RECV : CS_BUF_TMP0;
    r->hi = prob->count;
    cs_sched_scratch(s, CS_BUF_TMP0, prob->bytes);
    if (r->cur == CS_BUF_TMP1 || (reduce && rank == prob->root && cs_plan_splits_ring(plan, k)))
        cs_sched_scratch(s, CS_BUF_TMP1, prob->bytes); /* the block, or a ring's slots (cs_red_ring) */

    /* In place: every rank for allreduce, only the root for reduce. The
     * round is skipped only where no rank copies (allreduce in RECV, in
     * place); reduce keeps it so that rounds line up with the root's. */
    const int inplace = (prob->flags & CS_PROB_INPLACE) && (!reduce || rank == prob->root);
    const cs_buf in = inplace ? CS_BUF_RECV : CS_BUF_SEND;
    if (in != r->cur || reduce)
        cs_sched_round(s);
    cs_sched_copy(s, in, 0, r->cur, 0, prob->bytes); /* nothing if in == cur */
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        if (reduce && l->first_stage >= k) {
            cs_red_mark(r, l->first_stage);
            cs_red_tree(r, l, cs_level_digit(l, r->root));
        } else if (l->kind == CS_LEVEL_BUTTERFLY) {
            cs_red_butterfly(r, l);
        } else if (l->kind == CS_LEVEL_RING) {
            cs_red_ring(r, l);
        } else {
            cs_red_elim(r, l);
        }
    }
}

/*
 * Where the block starts. Allreduce: RECV (in_recv) or TMP1. Reduce's
 * root accumulates where its result is wanted, RECV. Over any p (not
 * in_recv), a non-commutative combine swaps the block and the receiving
 * buffer (cs_red_combine), so a root that copies its input anyway starts in
 * TMP0 when it swaps an odd number of times (a dry run in pricing mode
 * counts them) and ends in RECV with no copy; in place it starts in RECV
 * and copies only its last block back. (The butterfly rows keep RECV:
 * their closed forms price that.) The other ranks of reduce accumulate in
 * TMP1.
 */
void cs_red_reduce_phase(cs_red *r, const cs_problem *prob, const cs_plan *plan, int k, int rank, int in_recv,
                         cs_sched *s)
{
    if (prob->coll != CS_COLL_REDUCE || rank != prob->root) {
        cs_red_levels(r, prob, plan, k, rank, in_recv && prob->coll != CS_COLL_REDUCE ? CS_BUF_RECV : CS_BUF_TMP1, s);
        return;
    }
    if (!in_recv && !(prob->flags & CS_PROB_INPLACE) && !(prob->flags & CS_PROB_COMMUTATIVE)) {
        static const cs_model free_model = {0};
        cs_sched dry;
        cs_sched_init(&dry);
        cs_sched_price_start(&dry, &free_model);
        cs_red_levels(r, prob, plan, k, rank, CS_BUF_RECV, &dry);
        cs_sched_free(&dry);
        if (r->cur != CS_BUF_RECV) {
            cs_red_levels(r, prob, plan, k, rank, CS_BUF_TMP0, s);
            return;
        }
    }
    cs_red_levels(r, prob, plan, k, rank, CS_BUF_RECV, s);
}
