/*
 * The reduction over any p, level by level (plan.h). Every rank makes the
 * same rounds, idle or not, so that rounds line up across ranks (the
 * simulator checks it; MPI only needs the order).
 *
 * Buffers: the input is copied into TMP1 first; TMP0 receives; a combine
 * whose own operand is on the left (non-commutative) leaves its result in
 * the receiving buffer, and the two swap roles. Every survivor copies its
 * final block to RECV, every rank copies its input: the costs are the same
 * for every rank of a role, so the closed forms can name the slowest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/reduction/engine.h"

static int cs_red_split(const cs_red *r, int stage)
{
    return stage < r->k;
}

/* The block before a stage, for the routing phase. */
static void cs_red_mark(cs_red *r, int stage)
{
    r->lo_at[stage] = r->lo;
    r->hi_at[stage] = r->hi;
}

/* Combine what arrived in other[lo, hi) with cur[lo, hi). */
static void cs_red_combine(cs_red *r, size_t lo, size_t hi, int own_left)
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

/* Exchange with peer and combine: keep one half (split) or the whole. */
static void cs_red_exchange(cs_red *r, int peer, int split, int keep_upper, int own_left)
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

static void cs_red_butterfly(cs_red *r, const cs_level *l)
{
    const int c = cs_level_digit(l, r->rank);
    cs_red_mark(r, l->first_stage);
    cs_sched_round(r->s);
    cs_red_exchange(r, r->rank ^ l->stride, cs_red_split(r, l->first_stage), c, !c);
}

/* Part x of f parts of [lo, hi). */
static size_t cs_part(size_t lo, size_t hi, int f, int x)
{
    return lo + (hi - lo) * (size_t)x / (size_t)f;
}

/*
 * Ring (§3.4), split: part c of the block of every member comes to member
 * c in f - 1 rounds (round t from the member t behind), into slots of
 * `other`; then the f parts are combined left to right, members 0..f-1,
 * so every member has the same bracketing. Whole: Bruck's concatenation
 * (ceil(log2 f) rounds) gathers every member's block, then the same
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
    slot = (hi - lo) * e;
    cs_sched_scratch(r->s, r->other, slot * (size_t)f);
    if (split) {
        for (int t = 1; t < f; t++) {
            const int to = (c + t) % f, from = (c - t + f) % f;
            cs_sched_round(r->s);
            cs_sched_send(r->s, cs_level_member(l, r->rank, to), r->cur, cs_part(r->lo, r->hi, f, to) * e,
                          (cs_part(r->lo, r->hi, f, to + 1) - cs_part(r->lo, r->hi, f, to)) * e);
            cs_sched_recv(r->s, cs_level_member(l, r->rank, from), r->other, (size_t)from * slot, slot);
            if (t == 1)
                cs_sched_copy(r->s, r->cur, lo * e, r->other, (size_t)c * slot, slot);
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
                cs_sched_send(r->s, cs_level_member(l, r->rank, (c - d + f) % f), r->other, 0, (size_t)cnt * slot);
            cs_sched_recv(r->s, cs_level_member(l, r->rank, (c + d) % f), r->other, (size_t)d * slot,
                          (size_t)cnt * slot);
            if (d == 1)
                cs_sched_copy(r->s, r->cur, lo * e, r->other, 0, slot);
        }
    }
    /* Member x sits in slot (first + x) % f: combine left to right. */
    for (int x = 1; x < f; x++)
        cs_sched_reduce(r->s, r->other, ((first + (size_t)x - 1) % (size_t)f) * slot, r->other,
                        ((first + (size_t)x) % (size_t)f) * slot, slot);
    cs_sched_copy(r->s, r->other, ((first + (size_t)f - 1) % (size_t)f) * slot, r->cur, lo * e, slot);
    r->lo = lo;
    r->hi = hi;
}

/*
 * Elimination (§3.1, §3.3, Fig. 5). Round E0: pairs exchange as a
 * butterfly; T1 and T2 start the 3-2 step (T1 keeps the upper half of
 * m1 + m2, T2 the lower). Round E1: T2 gives its half to T0, T0 gives its
 * upper half of m0 to T1: both hold m0 + (m1 + m2); the second pair of each
 * merged two gives its halves to the first. Then the units' butterflies.
 */
static void cs_red_elim(cs_red *r, const cs_level *l)
{
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int v = cs_level_digit(l, r->rank), split0 = cs_red_split(r, l->first_stage);
    const cs_elim_role role = cs_elim_role_of(&el, v);
    const size_t e = r->e;

    cs_red_mark(r, l->first_stage);
    cs_sched_round(r->s); /* E0 */
    if (role.kind == CS_ELIM_T1)
        cs_red_exchange(r, cs_level_member(l, r->rank, 2), split0, 1, 1);
    else if (role.kind == CS_ELIM_T2)
        cs_red_exchange(r, cs_level_member(l, r->rank, 1), split0, 0, 0);
    else if (role.kind != CS_ELIM_T0)
        cs_red_exchange(r, cs_level_member(l, r->rank, role.upper ? v - 1 : v + 1), split0, role.upper,
                        !role.upper);

    cs_sched_round(r->s); /* E1 */
    if (role.kind == CS_ELIM_T2 || role.kind == CS_ELIM_GONE) {
        cs_sched_send(r->s, cs_level_member(l, r->rank, role.kind == CS_ELIM_T2 ? 0 : v - 2), r->cur, r->lo * e,
                      (r->hi - r->lo) * e);
        r->gone = 1;
    } else if (role.kind == CS_ELIM_T0) {
        const size_t mid = split0 ? r->lo + (r->hi - r->lo + 1) / 2 : r->hi;
        cs_sched_send(r->s, cs_level_member(l, r->rank, 1), r->cur, (split0 ? mid : r->lo) * e,
                      (r->hi - (split0 ? mid : r->lo)) * e);
        cs_sched_recv(r->s, cs_level_member(l, r->rank, 2), r->other, r->lo * e, (mid - r->lo) * e);
        r->hi = mid;
        cs_red_combine(r, r->lo, r->hi, 1);
    } else if (role.kind == CS_ELIM_T1 || role.kind == CS_ELIM_KEEP) {
        const int from = role.kind == CS_ELIM_T1 ? 0 : v + 2;
        cs_sched_recv(r->s, cs_level_member(l, r->rank, from), r->other, r->lo * e, (r->hi - r->lo) * e);
        cs_red_combine(r, r->lo, r->hi, role.kind == CS_ELIM_KEEP);
    }

    for (int z = 1; z < el.h; z++) { /* the units' butterfly */
        const int stage = l->first_stage + z, right = (role.unit >> (z - 1)) & 1;
        cs_red_mark(r, stage);
        cs_sched_round(r->s);
        if (r->gone)
            continue;
        const int peer = cs_elim_member(&el, role.unit ^ (1 << (z - 1)), role.upper);
        cs_red_exchange(r, cs_level_member(l, r->rank, peer), cs_red_split(r, stage), right, !right);
    }
}

void cs_red_reduce_phase(cs_red *r, const cs_problem *prob, const cs_plan *plan, int k, int rank, cs_sched *s)
{
    memset(r, 0, sizeof(*r));
    r->prob = prob;
    r->plan = plan;
    r->k = k;
    r->rank = rank;
    r->s = s;
    r->e = prob->elem;
    r->cur = CS_BUF_TMP1;
    r->other = CS_BUF_TMP0;
    r->hi = prob->count;
    cs_sched_scratch(s, CS_BUF_TMP0, prob->bytes);
    cs_sched_scratch(s, CS_BUF_TMP1, prob->bytes);

    /* In place: every rank for allreduce, only the root for reduce. */
    const int inplace = (prob->flags & CS_PROB_INPLACE) && (prob->coll != CS_COLL_REDUCE || rank == prob->root);
    cs_sched_round(s);
    cs_sched_copy(s, inplace ? CS_BUF_RECV : CS_BUF_SEND, 0, CS_BUF_TMP1, 0, prob->bytes);
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        if (l->kind == CS_LEVEL_BUTTERFLY)
            cs_red_butterfly(r, l);
        else if (l->kind == CS_LEVEL_RING)
            cs_red_ring(r, l);
        else
            cs_red_elim(r, l);
    }
}

/* Routing: swap blocks with a peer within [lo_at, hi_at) of a stage, in RECV. */
static void cs_red_unsplit(cs_red *r, int peer, int stage)
{
    const size_t e = r->e, lo = r->lo_at[stage], hi = r->hi_at[stage];
    const size_t plo = r->lo == lo ? r->hi : lo, phi = r->lo == lo ? hi : r->lo;
    cs_sched_send(r->s, peer, CS_BUF_RECV, r->lo * e, (r->hi - r->lo) * e);
    cs_sched_recv(r->s, peer, CS_BUF_RECV, plo * e, (phi - plo) * e);
    r->lo = lo;
    r->hi = hi;
}

static void cs_red_allgather_elim(cs_red *r, const cs_level *l)
{
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int v = cs_level_digit(l, r->rank), first = l->first_stage;
    const cs_elim_role role = cs_elim_role_of(&el, v);
    const size_t e = r->e, lo = r->lo_at[first], hi = r->hi_at[first];

    for (int z = el.h - 1; z >= 1; z--) {
        if (!cs_red_split(r, first + z))
            continue;
        cs_sched_round(r->s);
        if (!r->gone)
            cs_red_unsplit(r, cs_level_member(l, r->rank, cs_elim_member(&el, role.unit ^ (1 << (z - 1)), role.upper)),
                           first + z);
    }
    if (cs_red_split(r, first)) {
        cs_sched_round(r->s);
        if (!r->gone)
            cs_red_unsplit(r, cs_level_member(l, r->rank, cs_elim_member(&el, role.unit, !role.upper)), first);
    }
    cs_sched_round(r->s); /* the eliminated get the whole block */
    if (role.kind == CS_ELIM_T0 || role.kind == CS_ELIM_KEEP)
        cs_sched_send(r->s, cs_level_member(l, r->rank, role.kind == CS_ELIM_T0 ? 2 : v + 2), CS_BUF_RECV, lo * e,
                      (hi - lo) * e);
    else if (r->gone)
        cs_sched_recv(r->s, cs_level_member(l, r->rank, role.kind == CS_ELIM_T2 ? 0 : v - 2), CS_BUF_RECV, lo * e,
                      (hi - lo) * e);
    r->lo = lo;
    r->hi = hi;
    r->gone = 0;
}

static void cs_red_allgather_ring(cs_red *r, const cs_level *l)
{
    const int f = l->f, c = cs_level_digit(l, r->rank), stage = l->first_stage;
    const size_t e = r->e, lo = r->lo_at[stage], hi = r->hi_at[stage];
    if (!cs_red_split(r, stage))
        return;
    for (int t = 1; t < f; t++) {
        const int to = (c + t) % f, from = (c - t + f) % f;
        cs_sched_round(r->s);
        cs_sched_send(r->s, cs_level_member(l, r->rank, to), CS_BUF_RECV, r->lo * e, (r->hi - r->lo) * e);
        cs_sched_recv(r->s, cs_level_member(l, r->rank, from), CS_BUF_RECV, cs_part(lo, hi, f, from) * e,
                      (cs_part(lo, hi, f, from + 1) - cs_part(lo, hi, f, from)) * e);
    }
    r->lo = lo;
    r->hi = hi;
}

void cs_red_allgather_phase(cs_red *r)
{
    const size_t e = r->e;
    if (!r->gone)
        cs_sched_copy(r->s, r->cur, r->lo * e, CS_BUF_RECV, r->lo * e, (r->hi - r->lo) * e);
    for (int i = r->plan->nlevels - 1; i >= 0; i--) {
        const cs_level *l = &r->plan->level[i];
        if (l->kind == CS_LEVEL_ELIM) {
            cs_red_allgather_elim(r, l);
        } else if (l->kind == CS_LEVEL_RING) {
            cs_red_allgather_ring(r, l);
        } else if (cs_red_split(r, l->first_stage)) {
            cs_sched_round(r->s);
            cs_red_unsplit(r, r->rank ^ l->stride, l->first_stage);
        }
    }
}

/* The cost of an elimination level on its slowest role, m bytes entering,
 * stages split from `first` on as the plan says; *out gets the size left. */
static double cs_red_elim_cost(const cs_model *mo, const cs_level *l, int k, double m, double *out)
{
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int split0 = l->first_stage < k;
    const double a = split0 ? m / 2 : m; /* each survivor's block after E0 */
    const double x = mo->alpha + (mo->beta + mo->gamma) * a, back = split0 ? mo->alpha + mo->beta * a : 0.0;
    const double give = mo->alpha + mo->beta * a, whole = mo->alpha + mo->beta * m;
    double u = 0.0, size = a;
    for (int z = 1; z < el.h; z++) { /* the units' butterfly and its allgather */
        if (l->first_stage + z < k) {
            u += 2 * mo->alpha + (2 * mo->beta + mo->gamma) * size / 2;
            size /= 2;
        } else {
            u += mo->alpha + (mo->beta + mo->gamma) * size;
        }
    }
    u += mo->rho * size; /* the survivor's result into RECV */
    *out = size;
    /* T0: E1, units, E0 back, gives T2 the block; T1: E0, E1, units, E0
     * back; T2 (and an eliminated pair member): E0, gives, gets the block;
     * a member that absorbs a pair: as T1, then gives. */
    const double t0 = x + u + back + whole, t1 = 2 * x + u + back, t2 = x + give + whole;
    double worst = t0 > t1 ? t0 : t1;
    worst = worst > t2 ? worst : t2;
    if (el.merged > 0 && t1 + whole > worst)
        worst = t1 + whole;
    return worst;
}

/*
 * Per rank: rho m (input copy) + each level. Butterfly stage, split:
 * alpha + (beta + gamma) m/2 and alpha + beta m/2 back; whole: alpha +
 * (beta + gamma) m. Ring of f, split: (f - 1)(alpha + beta m/f) + (f - 1)
 * gamma m/f + 2 rho m/f and (f - 1)(alpha + beta m/f) back; whole:
 * ceil(log2 f) alpha + (f - 1)(beta + gamma) m + 2 rho m. Elimination: its
 * slowest role (cs_red_elim_cost). Without elimination every rank copies
 * its final block to RECV: rho m_final.
 */
double cs_red_allreduce_cost(const cs_model *mo, const cs_problem *prob, const cs_plan *plan, int k)
{
    double m = (double)prob->bytes, t = mo->rho * m;
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        const int split = l->first_stage < k, f = l->f;
        if (l->kind == CS_LEVEL_ELIM)
            return t + cs_red_elim_cost(mo, l, k, m, &m);
        if (l->kind == CS_LEVEL_BUTTERFLY) {
            t += split ? 2 * mo->alpha + (2 * mo->beta + mo->gamma) * m / 2 : mo->alpha + (mo->beta + mo->gamma) * m;
            m = split ? m / 2 : m;
        } else if (split) {
            t += (f - 1) * (2 * mo->alpha + (2 * mo->beta + mo->gamma) * m / f) + 2 * mo->rho * m / f;
            m /= f;
        } else {
            t += cs_ceil_log2(f) * mo->alpha + (f - 1) * (mo->beta + mo->gamma) * m + 2 * mo->rho * m;
        }
    }
    return t + mo->rho * m;
}

/* A forced k stays; a threshold b splits the stages whose block is larger
 * than b; else the k of least cost. */
void cs_red_tune(double (*cost)(const cs_model *, const cs_problem *, const cs_params *), const cs_model *model,
                 const cs_problem *prob, cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    if (params->k >= 0) {
        if (params->k > plan.nstages)
            params->k = plan.nstages;
        return;
    }
    if (params->b >= 0) {
        double m = (double)prob->bytes;
        int k = 0;
        for (int i = 0; i < plan.nlevels && m > (double)params->b; i++) {
            const cs_level *l = &plan.level[i];
            for (int st = 0; st < l->nstages && m > (double)params->b; st++, k++)
                m /= l->kind == CS_LEVEL_RING ? l->f : 2;
        }
        params->k = k;
        return;
    }
    double best = -1.0;
    int best_k = 0;
    for (int k = 0; k <= plan.nstages; k++) {
        params->k = k;
        double t = cost(model, prob, params);
        if (best < 0 || t < best) {
            best = t;
            best_k = k;
        }
    }
    params->k = best_k;
}

/*
 * Reduce's routing: the splits undone towards the root, innermost level
 * first. At each split stage the ranks still on the root's path whose digit
 * differs from the root's send all they hold to the one that matches and
 * are done; at a whole stage they are simply done. `held` is where a rank
 * keeps what it gathers: RECV at the root, its current block elsewhere.
 */
typedef struct cs_gather {
    cs_red *r;
    int root;
    int active; /* still on the root's path */
    cs_buf held;
} cs_gather;

/* One stage undone with peer: send all and leave, or receive the rest. */
static void cs_gather_stage(cs_gather *g, int peer, int sender, int stage)
{
    cs_red *r = g->r;
    const size_t e = r->e, lo = r->lo_at[stage], hi = r->hi_at[stage];
    if (sender) {
        cs_sched_send(r->s, peer, g->held, r->lo * e, (r->hi - r->lo) * e);
        g->active = 0;
        return;
    }
    const size_t plo = r->lo == lo ? r->hi : lo, phi = r->lo == lo ? hi : r->lo;
    cs_sched_recv(r->s, peer, g->held, plo * e, (phi - plo) * e);
    r->lo = lo;
    r->hi = hi;
}

static void cs_gather_elim(cs_gather *g, const cs_level *l)
{
    cs_red *r = g->r;
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int v = cs_level_digit(l, r->rank), vr = cs_level_digit(l, g->root), first = l->first_stage;
    const cs_elim_role role = cs_elim_role_of(&el, v);
    const int collector = cs_elim_collector(&el, vr), root_gone = collector != vr;
    const cs_elim_role crole = cs_elim_role_of(&el, collector);
    const size_t e = r->e, lo = r->lo_at[first], hi = r->hi_at[first];

    for (int z = el.h - 1; z >= 1; z--) {
        const int stage = first + z, diff = role.unit ^ crole.unit;
        if (!cs_red_split(r, stage)) {
            g->active = g->active && !((diff >> (z - 1)) & 1);
            continue;
        }
        cs_sched_round(r->s);
        if (g->active && !r->gone && !(diff >> z))
            cs_gather_stage(g, cs_level_member(l, r->rank, cs_elim_member(&el, role.unit ^ (1 << (z - 1)), role.upper)),
                            (diff >> (z - 1)) & 1, stage);
        else if (!(diff >> (z - 1) == 0))
            g->active = 0;
    }
    const int in_unit = !r->gone && role.unit == crole.unit;
    if (cs_red_split(r, first)) {
        cs_sched_round(r->s);
        if (g->active && in_unit)
            cs_gather_stage(g, cs_level_member(l, r->rank, cs_elim_member(&el, role.unit, !role.upper)),
                            role.upper != crole.upper, first);
    } else if (in_unit && role.upper != crole.upper) {
        g->active = 0;
    }
    if (v != collector && v != vr)
        g->active = 0;
    if (r->gone && v != vr)
        g->active = 0;
    if (root_gone) {
        cs_sched_round(r->s);
        if (v == collector && g->active)
            cs_sched_send(r->s, cs_level_member(l, r->rank, vr), g->held, lo * e, (hi - lo) * e);
        else if (v == vr)
            cs_sched_recv(r->s, cs_level_member(l, r->rank, collector), g->held, lo * e, (hi - lo) * e);
        g->active = v == vr;
    }
    r->lo = lo;
    r->hi = hi;
    r->gone = 0;
}

static void cs_gather_ring(cs_gather *g, const cs_level *l)
{
    cs_red *r = g->r;
    const int f = l->f, c = cs_level_digit(l, r->rank), cr = cs_level_digit(l, g->root), stage = l->first_stage;
    const size_t e = r->e, lo = r->lo_at[stage], hi = r->hi_at[stage];
    if (!cs_red_split(r, stage)) {
        g->active = g->active && c == cr;
        return;
    }
    for (int t = 1; t < f; t++) { /* round t: member cr + t hands its part to cr */
        const int from = (cr + t) % f;
        cs_sched_round(r->s);
        if (!g->active)
            continue;
        if (c == from)
            cs_sched_send(r->s, cs_level_member(l, r->rank, cr), g->held, r->lo * e, (r->hi - r->lo) * e);
        else if (c == cr)
            cs_sched_recv(r->s, cs_level_member(l, r->rank, from), g->held, cs_part(lo, hi, f, from) * e,
                          (cs_part(lo, hi, f, from + 1) - cs_part(lo, hi, f, from)) * e);
    }
    g->active = g->active && c == cr;
    r->lo = lo;
    r->hi = hi;
}

void cs_red_gather_phase(cs_red *r, int root)
{
    const size_t e = r->e;
    cs_gather g = {.r = r, .root = root, .active = 1, .held = r->rank == root ? CS_BUF_RECV : r->cur};
    if (r->rank == root && !r->gone)
        cs_sched_copy(r->s, r->cur, r->lo * e, CS_BUF_RECV, r->lo * e, (r->hi - r->lo) * e);
    for (int i = r->plan->nlevels - 1; i >= 0; i--) {
        const cs_level *l = &r->plan->level[i];
        if (l->kind == CS_LEVEL_ELIM) {
            cs_gather_elim(&g, l);
        } else if (l->kind == CS_LEVEL_RING) {
            cs_gather_ring(&g, l);
        } else if (cs_red_split(r, l->first_stage)) {
            cs_sched_round(r->s);
            const int differs = ((r->rank ^ root) / l->stride) & 1;
            if (g.active)
                cs_gather_stage(&g, r->rank ^ l->stride, differs, l->first_stage);
        } else {
            g.active = g.active && !(((r->rank ^ root) / l->stride) & 1);
        }
    }
}

/*
 * The members of an elimination level that can be slowest in a reduce to
 * `root`: the root's collector, and one member per schedule shape. A
 * member's schedule depends on its role (kind, side) and, in the gather to
 * the collector's unit, only on the highest bit in which its unit differs
 * from the collector's (the stage where it hands over): one member per
 * (kind, side, that bit) stands for all, so a level of q members costs
 * O(log q) builds, not q. Appends to out; returns the new count.
 */
enum { CS_RED_SHAPES = 6 * 2 * 34 }; /* kinds x sides x (no bit, bits 0..32) */

static int cs_red_elim_suspects(const cs_level *l, int root, int *out, int n)
{
    cs_elim el;
    unsigned char seen[CS_RED_SHAPES] = {0};
    cs_elim_init(l->f, &el);
    const int vr = cs_level_digit(l, root), collector = cs_elim_collector(&el, vr);
    const int cunit = cs_elim_role_of(&el, collector).unit;
    if (collector != vr)
        out[n++] = cs_level_member(l, root, collector);
    for (int v = 0; v < l->f; v++) {
        const cs_elim_role role = cs_elim_role_of(&el, v);
        const int diff = role.unit ^ cunit, bit = diff ? cs_floor_log2(diff) + 1 : 0;
        const int shape = ((int)role.kind * 2 + role.upper) * 34 + bit;
        if (v == vr || v == collector || seen[shape])
            continue;
        seen[shape] = 1;
        out[n++] = cs_level_member(l, root, v);
    }
    return n;
}

/* The ranks that can be slowest in a reduce to `root` (see engine.h). */
static int cs_red_reduce_suspects(const cs_plan *plan, int root, int *out)
{
    int n = 0;
    out[n++] = root;
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        if (l->kind == CS_LEVEL_ELIM)
            n = cs_red_elim_suspects(l, root, out, n);
        else
            out[n++] = cs_level_member(l, root, (cs_level_digit(l, root) + 1) % l->f);
    }
    return n;
}

double cs_red_reduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k)
{
    int suspects[1 + CS_MAX_LEVELS + CS_RED_SHAPES];
    const int n = cs_red_reduce_suspects(plan, prob->root, suspects);
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        cs_sched s;
        cs_red r;
        cs_sched_init(&s);
        cs_sched_price_start(&s, model);
        cs_red_reduce_phase(&r, prob, plan, k, suspects[i], &s);
        cs_red_gather_phase(&r, prob->root);
        const double t = cs_sched_price_total(&s);
        worst = t > worst ? t : worst;
    }
    return worst;
}

void cs_red_tune_rings(double (*cost)(const cs_model *, const cs_problem *, const cs_params *),
                       const cs_model *model, const cs_problem *prob, cs_params *params)
{
    if (params->rmax >= 3) {
        cs_red_tune(cost, model, prob, params);
        return;
    }
    cs_params best = *params;
    double best_cost = -1.0;
    for (int rmax = 3; rmax <= 7; rmax += 2) {
        cs_params trial = *params;
        trial.rmax = rmax;
        cs_red_tune(cost, model, prob, &trial);
        const double t = cost(model, prob, &trial);
        if (best_cost < 0 || t < best_cost) {
            best_cost = t;
            best = trial;
        }
    }
    *params = best;
}

/* "butterfly x2 split, ring 3 whole, elimination 5 whole": each level in
 * order; split: its first stage halves (or parts) the block. */
int cs_red_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    cs_plan plan;
    int n = 0, i = 0;
    cs_plan_make(prob->p, params->rmax, &plan);
    if (size)
        buf[0] = '\0';
    while (i < plan.nlevels) {
        const cs_level *l = &plan.level[i];
        const char *mode = l->first_stage < params->k ? "split" : "whole";
        int j = i + 1;
        if (l->kind == CS_LEVEL_BUTTERFLY) /* consecutive butterflies of one mode as one item */
            while (j < plan.nlevels && plan.level[j].kind == CS_LEVEL_BUTTERFLY &&
                   (plan.level[j].first_stage < params->k) == (l->first_stage < params->k))
                j++;
        const char *what = l->kind == CS_LEVEL_BUTTERFLY ? "butterfly" : l->kind == CS_LEVEL_RING ? "ring" : "elimination";
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s%s %s%d %s", n ? ", " : "", what,
                      l->kind == CS_LEVEL_BUTTERFLY ? "x" : "", l->kind == CS_LEVEL_BUTTERFLY ? j - i : l->f, mode);
        i = j;
    }
    return n;
}

double cs_red_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return prob->coll == CS_COLL_REDUCE ? cs_red_reduce_cost(model, prob, &plan, params->k)
                                        : cs_red_allreduce_cost(model, prob, &plan, params->k);
}

int cs_red_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_red r;
    cs_plan_make(prob->p, params->rmax, &plan);
    cs_red_reduce_phase(&r, prob, &plan, params->k, rank, s);
    if (prob->coll == CS_COLL_REDUCE)
        cs_red_gather_phase(&r, prob->root);
    else
        cs_red_allgather_phase(&r);
    return s->error;
}
