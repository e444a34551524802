/*
 * The routing phases (Rabenseifner and Träff 2004, §2: "reversing the
 * communication pattern of the reduction phase"): allgather for
 * allreduce, gather towards the root for reduce. Only split stages are
 * undone; the elimination level's are in elim.c.
 */
#include "coll/reduction/engine.h"

/* Routing: swap blocks with a peer within [lo_at, hi_at) of a stage, in RECV. */
void cs_red_unsplit(cs_red *r, int peer, int stage)
{
    const size_t e = r->e, lo = r->lo_at[stage], hi = r->hi_at[stage];
    const size_t plo = r->lo == lo ? r->hi : lo, phi = r->lo == lo ? hi : r->lo;
    cs_sched_send(r->s, peer, CS_BUF_RECV, r->lo * e, (r->hi - r->lo) * e);
    cs_sched_recv(r->s, peer, CS_BUF_RECV, plo * e, (phi - plo) * e);
    r->lo = lo;
    r->hi = hi;
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

/*
 * Reduce's routing: the splits undone towards the root, last level first.
 * At each split stage the ranks still on the root's path whose digit
 * differs from the root's send all they hold to the one that matches and
 * are done; at a whole stage they were done in the reduction phase (one
 * way, cs_red_tree). `held` is where a rank keeps what it gathers: RECV at
 * the root, its current block elsewhere.
 *
 * One stage undone with peer: send all and leave, or receive the rest.
 */
void cs_gather_stage(cs_gather *g, int peer, int sender, int stage)
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
            /* stride 2^z: bit z of rank ^ root is set where rank and the
             * root differ at this level; that side hands over. */
            cs_sched_round(r->s);
            const int differs = ((r->rank ^ root) / l->stride) & 1;
            if (g.active)
                cs_gather_stage(&g, r->rank ^ l->stride, differs, l->first_stage);
        } else { /* whole: the side that differs sent in the reduction phase */
            g.active = g.active && !(((r->rank ^ root) / l->stride) & 1);
        }
    }
}
