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
