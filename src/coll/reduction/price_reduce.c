/*
 * Reduce's price over any p: the cost of the slowest rank, each candidate
 * priced by building its schedule in pricing mode (cs_sched_price_start).
 */
#include "coll/reduction/engine.h"

/*
 * Reduce's price: the slowest of the ranks that can be slowest, each priced
 * by building its schedule in pricing mode (no steps stored): the root; at
 * a whole level one member per shape of the tree; at a split level the
 * member after the root's (it leaves the root's path there), and in an
 * elimination one member per schedule shape. A member's schedule
 * there depends on its role (kind, side) and on how its unit differs from
 * the collector's: the highest differing bit (the split stage where it hands
 * over in the gather) and the lowest (the whole stage where it sends in the
 * reduction phase). One member per (kind, side, highest, lowest) stands for
 * all, so a level of q members costs O(log^2 q) builds, not q. These are
 * exact at nominal sizes; with uneven parts (a count that the splits do not
 * divide) another rank may be slower, so up to CS_RED_PRICE_ALL ranks every
 * rank is priced.
 */
enum { CS_RED_PRICE_ALL = 128, CS_RED_BITS = 34, CS_RED_SHAPES = 6 * 2 * CS_RED_BITS * CS_RED_BITS };

typedef struct cs_red_pricer {
    const cs_model *model;
    const cs_problem *prob;
    const cs_plan *plan;
    int k;
    cs_sched s;
    double worst;
} cs_red_pricer;

static void cs_red_price_rank(cs_red_pricer *pr, int rank)
{
    cs_red r;
    cs_sched_price_start(&pr->s, pr->model);
    cs_red_reduce_phase(&r, pr->prob, pr->plan, pr->k, rank, 0, &pr->s);
    cs_red_gather_phase(&r, pr->prob->root);
    const double t = cs_sched_price_total(&pr->s);
    pr->worst = t > pr->worst ? t : pr->worst;
}

/* bit: 1 + the index of the highest (lowest) set bit of diff, 0 if none. */
static int cs_red_high_bit(int diff)
{
    return diff ? cs_floor_log2(diff) + 1 : 0;
}

static int cs_red_low_bit(int diff)
{
    return diff ? cs_floor_log2(diff & -diff) + 1 : 0; /* diff & -diff: the lowest set bit alone */
}

static void cs_red_price_elim(cs_red_pricer *pr, const cs_level *l)
{
    cs_elim el;
    unsigned char seen[CS_RED_SHAPES / 8 + 1] = {0}; /* a bit per shape */
    cs_elim_init(l->f, &el);
    const int root = pr->prob->root, vr = cs_level_digit(l, root), collector = cs_elim_collector(&el, vr);
    const int cunit = cs_elim_role_of(&el, collector).unit;
    if (collector != vr)
        cs_red_price_rank(pr, cs_level_member(l, root, collector));
    for (int v = 0; v < l->f; v++) {
        const cs_elim_role role = cs_elim_role_of(&el, v);
        const int diff = role.unit ^ cunit;
        const int shape = (((int)role.kind * 2 + role.upper) * CS_RED_BITS + cs_red_high_bit(diff)) * CS_RED_BITS +
                          cs_red_low_bit(diff);
        if (v == vr || v == collector || (seen[shape / 8] >> (shape % 8)) & 1)
            continue;
        seen[shape / 8] |= (unsigned char)(1u << (shape % 8));
        cs_red_price_rank(pr, cs_level_member(l, root, v));
    }
}

/* A whole level, one way (cs_tree_step): its members differ only in how
 * many times they receive and whether they send; one of each kind. */
static void cs_red_price_tree(cs_red_pricer *pr, const cs_level *l)
{
    const int root = pr->prob->root, to = cs_level_digit(l, root), rounds = cs_ceil_log2(l->f);
    unsigned long long seen = 0; /* bit 2 * receives + sends */
    for (int v = 0; v < l->f; v++) {
        int kind = 0, peer;
        for (int t = 0; t < rounds; t++) {
            const cs_tree_act act = cs_tree_step(l->f, to, v, t, &peer);
            kind += act == CS_TREE_SEND ? 1 : act != CS_TREE_IDLE ? 2 : 0;
        }
        if (v != to && !((seen >> kind) & 1)) {
            seen |= 1ull << kind;
            cs_red_price_rank(pr, cs_level_member(l, root, v));
        }
    }
}

double cs_red_reduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k)
{
    cs_red_pricer pr = {.model = model, .prob = prob, .plan = plan, .k = k};
    cs_sched_init(&pr.s);
    if (prob->p <= CS_RED_PRICE_ALL) { /* uneven parts: any rank may be the slowest */
        for (int rank = 0; rank < prob->p; rank++)
            cs_red_price_rank(&pr, rank);
        return pr.worst;
    }
    cs_red_price_rank(&pr, prob->root);
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        if (l->first_stage >= k)
            cs_red_price_tree(&pr, l);
        else if (l->kind == CS_LEVEL_ELIM)
            cs_red_price_elim(&pr, l);
        else
            cs_red_price_rank(&pr, cs_level_member(l, prob->root, (cs_level_digit(l, prob->root) + 1) % l->f));
    }
    return pr.worst;
}
