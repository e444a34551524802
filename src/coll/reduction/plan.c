#include "coll/reduction/plan.h"
#include "common.h"

static void cs_plan_add(cs_plan *plan, cs_level_kind kind, int f, int *stride, int nstages)
{
    cs_level *l = &plan->level[plan->nlevels++];
    l->kind = kind;
    l->f = f;
    l->stride = *stride;
    l->first_stage = plan->nstages;
    l->nstages = nstages;
    plan->nstages += nstages;
    *stride *= f;
}

void cs_plan_make(int p, int rmax, cs_plan *plan)
{
    int stride = 1, rest = p;
    plan->p = p;
    plan->nlevels = plan->nstages = 0;
    while (rest % 2 == 0) {
        cs_plan_add(plan, CS_LEVEL_BUTTERFLY, 2, &stride, 1);
        rest /= 2;
    }
    for (int r = 3; r <= rmax && r <= 7; r += 2) { /* the primes 3, 5, 7 */
        while (rest % r == 0) {
            cs_plan_add(plan, CS_LEVEL_RING, r, &stride, 1);
            rest /= r;
        }
    }
    if (rest > 1)
        cs_plan_add(plan, CS_LEVEL_ELIM, rest, &stride, cs_floor_log2(rest));
}

void cs_elim_init(int q, cs_elim *el)
{
    el->q = q;
    el->h = cs_floor_log2(q);
    el->units = 1 << (el->h - 1);
    el->merged = (q - 1) / 2 - el->units;
}

cs_elim_role cs_elim_role_of(const cs_elim *el, int v)
{
    if (v < 3)
        return (cs_elim_role){.kind = (cs_elim_kind)(CS_ELIM_T0 + v), .unit = 0, .upper = v == 1};
    const int a = (v - 3) / 2, upper = (v - 3) & 1;
    if (a < 2 * el->merged)
        return (cs_elim_role){.kind = a % 2 ? CS_ELIM_GONE : CS_ELIM_KEEP, .unit = 1 + a / 2, .upper = upper};
    return (cs_elim_role){.kind = CS_ELIM_PAIR, .unit = 1 + el->merged + (a - 2 * el->merged), .upper = upper};
}

int cs_elim_collector(const cs_elim *el, int v)
{
    const cs_elim_kind kind = cs_elim_role_of(el, v).kind;
    return kind == CS_ELIM_T2 ? 0 : kind == CS_ELIM_GONE ? v - 2 : v;
}

int cs_elim_member(const cs_elim *el, int unit, int upper)
{
    if (unit == 0)
        return upper;
    const int a = unit <= el->merged ? 2 * (unit - 1) : 2 * el->merged + (unit - 1 - el->merged);
    return 3 + 2 * a + upper;
}

/*
 * The tree of the run [lo, hi) in L = ceil(log2 (hi - lo)) rounds: a half
 * holding `to` and the other half, each at most H = 2^(L-1) members, each a
 * tree of its own in rounds 0..L-2 (rooted at `to`, and at the other half's
 * member next to the cut); in round L-1 that member sends its run to `to`.
 * The half of `to` is the smaller of the prefix and the suffix that hold it
 * (at least hi - lo - H members), so that `to`, which also copies the
 * result out, receives in as few rounds as it can. cs_tree_cut: where the
 * run is cut, and `from`, the other half's member that sends.
 */
static void cs_tree_cut(int lo, int hi, int to, int *cut, int *from, int *low_half)
{
    const int L = cs_ceil_log2(hi - lo), H = 1 << (L - 1);
    const int pre = (to + 1 > hi - H ? to + 1 : hi - H) - lo; /* prefix [lo, lo + pre) */
    const int suf = hi - (to < lo + H ? to : lo + H);         /* suffix [hi - suf, hi) */
    *low_half = pre < hi - lo && (pre <= suf || suf >= hi - lo);
    *cut = *low_half ? lo + pre : hi - suf;
    *from = *low_half ? *cut : *cut - 1;
}

cs_tree_act cs_tree_step(int n, int to, int me, int t, int *peer)
{
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        const int L = cs_ceil_log2(hi - lo);
        if (t > L - 1)
            return CS_TREE_IDLE; /* this run was complete before round t */
        int cut, from, low_half;
        cs_tree_cut(lo, hi, to, &cut, &from, &low_half);
        if (t == L - 1) {
            *peer = me == to ? from : to;
            if (me == to)
                return low_half ? CS_TREE_RECV_LEFT : CS_TREE_RECV_RIGHT;
            return me == from ? CS_TREE_SEND : CS_TREE_IDLE;
        }
        if ((me < cut) != (to < cut)) /* me in the other half: its tree ends at `from` */
            to = from;
        lo = me < cut ? lo : cut;
        hi = me < cut ? cut : hi;
    }
    return CS_TREE_IDLE;
}

/* Each run holding me is one round (its last) of me's: a receive where me
 * is the run's `to`, its send where me is `from`. */
int cs_tree_receives(int n, int to, int me, int *sends)
{
    int lo = 0, hi = n, receives = 0;
    *sends = 0;
    while (hi - lo > 1) {
        int cut, from, low_half;
        cs_tree_cut(lo, hi, to, &cut, &from, &low_half);
        receives += me == to;
        *sends += me == from;
        if ((me < cut) != (to < cut))
            to = from;
        lo = me < cut ? lo : cut;
        hi = me < cut ? cut : hi;
    }
    return receives;
}
