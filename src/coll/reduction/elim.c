/*
 * The elimination level (Rabenseifner and Träff 2004, §3.1, §3.3, Fig. 5),
 * its reduction phase and both routing phases. Members are digits v of the
 * level (plan.h: cs_elim_role_of); survivors form units of a lower and an
 * upper process, which go on as a butterfly over the unit numbers.
 */
#include "coll/reduction/engine.h"

/*
 * Elimination (§3.1, §3.3, Fig. 5). Round E0: pairs exchange as a
 * butterfly; T1 and T2 start the 3-2 step (T1 keeps the upper half of
 * m1 + m2, T2 the lower). Round E1: T2 gives its half to T0, T0 gives its
 * upper half of m0 to T1: both hold m0 + (m1 + m2); the second pair of each
 * merged two gives its halves to the first. Then the units' butterflies.
 */
void cs_red_elim(cs_red *r, const cs_level *l)
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
        cs_red_exchange(r, cs_level_member(l, r->rank, role.upper ? v - 1 : v + 1), split0, role.upper, !role.upper);

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

    /* The units' butterfly: unit u and u ^ 2^(z-1) (bit z-1 flipped) pair
     * up at stage z, side by side. Reduce, whole stages: one way, towards the
     * unit of the root's collector: the unit whose bit z-1 differs from it
     * sends. */
    const int cunit = r->root >= 0 ? cs_elim_role_of(&el, cs_elim_collector(&el, cs_level_digit(l, r->root))).unit : 0;
    for (int z = 1; z < el.h; z++) {
        const int stage = l->first_stage + z, right = (role.unit >> (z - 1)) & 1;
        cs_red_mark(r, stage);
        cs_sched_round(r->s);
        if (r->gone || r->done)
            continue;
        const int peer = cs_level_member(l, r->rank, cs_elim_member(&el, role.unit ^ (1 << (z - 1)), role.upper));
        if (r->root < 0 || cs_red_split(r, stage)) {
            cs_red_exchange(r, peer, cs_red_split(r, stage), right, !right);
        } else if (((role.unit ^ cunit) >> (z - 1)) & 1) {
            cs_sched_send(r->s, peer, r->cur, r->lo * e, (r->hi - r->lo) * e);
            r->done = 1;
        } else {
            cs_sched_recv(r->s, peer, r->other, r->lo * e, (r->hi - r->lo) * e);
            cs_red_combine(r, r->lo, r->hi, !right);
        }
    }
}

void cs_red_allgather_elim(cs_red *r, const cs_level *l)
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

/* Reduce: undo the splits towards the root's collector; the collector
 * hands the result to an eliminated root in one more round. */
void cs_gather_elim(cs_gather *g, const cs_level *l)
{
    cs_red *r = g->r;
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int v = cs_level_digit(l, r->rank), vr = cs_level_digit(l, g->root), first = l->first_stage;
    const cs_elim_role role = cs_elim_role_of(&el, v);
    const int collector = cs_elim_collector(&el, vr), root_gone = collector != vr;
    const cs_elim_role crole = cs_elim_role_of(&el, collector);
    const size_t e = r->e, lo = r->lo_at[first], hi = r->hi_at[first];

    if (!cs_red_split(r, first)) { /* a whole level: the tree left it at the root's member */
        g->active = g->active && v == vr;
        return;
    }
    /* Undo the units' split stages, last first: a unit whose highest bit of
     * difference from the collector's unit is z-1 hands over at stage z. */
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
