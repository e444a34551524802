/*
 * Reduce's price over any p: the cost of the slowest rank, each candidate
 * priced by building its schedule in pricing mode (cs_sched_price_start).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coll/reduction/engine.h"

/*
 * Reduce's price: the slowest of the ranks that can be slowest, each priced
 * by building its schedule in pricing mode (no steps stored): the root; at
 * a whole level one member per shape of the tree; at a split level the
 * member after the root's (it leaves the root's path there), and in an
 * elimination one member per schedule shape. A member's schedule
 * there depends on its role (kind, side) and on how its unit differs from
 * the collector's: the highest differing bit among the split stages' bits
 * (the stage where it hands over in the gather) and the lowest among the
 * whole stages' (where it sends in the reduction phase; the whole stages
 * below it are its receives). One member per (kind, side, highest, lowest)
 * stands for all, so a level of q members costs O(log^2 q) builds, not q.
 * These are exact at nominal sizes (a count that the splits divide); with
 * uneven parts another rank may be slower: over every p from 17 to 128 not
 * a power of two, each rmax, k, root in {0, 1, p/2, p-2, p-1} and four
 * models, by at most 2.4% at count = p, 0.5% at 1000, 0.05% at 12289 (and
 * 0 at p * 32). With fewer elements than ranks the split leaves most
 * ranks nothing and the few that hold one are not a shape: off by 0.7% at
 * most where a latency costs more than the vector's bytes (any real
 * machine: 1 KiB against 1 us), by up to 94% where it does not (a latency
 * of 1 ns, 10 MB/s). Those, split, are priced on every rank up to
 * CS_RED_PRICE_ALL ranks. (Pricing every rank at every count made a
 * communicator's first reduce decision at p = 96 take 200 ms.)
 */
enum { CS_RED_PRICE_ALL = 128 };

/* The ranks that stand for all depend on the plan, the root and k, not on
 * the size or the model: the lists are kept (for the last few plans and
 * roots, per k; one lock, as only first decisions price) for the next
 * calls, which tuning and the breakpoints make at every size and k.
 * Finding them walks every member of each level, O(p) (at p = 32,767 most
 * of a 9 s first decision before they were kept), where pricing them is
 * O(log^3 p). */
enum { CS_RED_REPS_PLANS = 4, CS_RED_REPS_K = 64, CS_RED_REPS_MAX = 1 << 16 };
typedef struct cs_red_reps {
    int valid, root, p, nlevels;
    cs_level level[CS_MAX_LEVELS];
    int start[CS_RED_REPS_K + 1]; /* k's ranks: rank[start[k] .. end[k]); start[k] < 0: not found yet */
    int end[CS_RED_REPS_K + 1];
    int slowest[CS_RED_REPS_K + 1]; /* the index of k's slowest rank last time: priced first */
    int n, cap;
    int *rank;
} cs_red_reps;

static cs_red_reps cs_red_kept[CS_RED_REPS_PLANS];
static int cs_red_kept_next;
static pthread_mutex_t cs_red_kept_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct cs_red_pricer {
    const cs_model *model;
    const cs_problem *prob;
    const cs_plan *plan;
    int k;
    int oneway;        /* of a node's ranks, how many send off it at once in a one-way round */
    cs_red_reps *reps; /* collecting the ranks (after reps->n) instead of pricing them */
    cs_sched s;
    double worst, stop; /* worst reaching stop: the rest need not be priced */
} cs_red_pricer;

static void cs_red_price_rank(cs_red_pricer *pr, int rank)
{
    if (pr->reps) {
        cs_red_reps *r = pr->reps;
        if (r->n == r->cap && r->cap < CS_RED_REPS_MAX) {
            int *more = realloc(r->rank, (size_t)(r->cap ? 2 * r->cap : 64) * sizeof *more);
            if (more) {
                r->rank = more;
                r->cap = r->cap ? 2 * r->cap : 64;
            }
        }
        if (r->n < r->cap)
            r->rank[r->n] = rank;
        r->n++; /* past cap: the list is not kept */
        return;
    }
    if (pr->worst >= pr->stop)
        return;
    cs_red r;
    cs_sched_price_start(&pr->s, pr->model);
    cs_sched_price_node(&pr->s, rank, pr->prob, pr->oneway);
    cs_red_reduce_phase(&r, pr->prob, pr->plan, pr->k, rank, 0, &pr->s);
    cs_red_gather_phase(&r, pr->prob->root);
    const double t = cs_sched_price_total(&pr->s);
    pr->worst = t > pr->worst ? t : pr->worst;
}

/*
 * An elimination level's members by shape, for every k at once. A member's
 * shape at split bits sb (its unit bits below sb are split stages) is its
 * kind, its side, the highest set bit of diff = unit ^ collector's unit
 * below sb and the lowest at or above it: two set bits of diff with none
 * between them, a < sb <= b (a = -1: none below; b = 32: none above). So
 * one walk of the f members lists, per (kind, side, a, b) that some diff
 * has as neighbouring set bits, the first member that has it; the members
 * that stand for all at any k are those of the list with a < sb <= b, in
 * the order of the walk, the same members as a walk at that k finds. The
 * tuning asks for every k from 1 to log2 p: one walk in place of log2 p
 * (at p = 65,535 a third of a communicator's first reduce decision). The
 * last few (f, root digit) are kept (a lock of their own).
 */
/* at most 12 shapes (kind < 6, side) times 561 pairs (-1 <= a < b <= 32) */
enum { CS_RED_ELIM_KEPT = 4, CS_RED_ELIM_NONE = 32, CS_RED_ELIM_PAIRS = 12 * 561 };
typedef struct cs_red_elim_pair {
    unsigned char shape; /* 2 kind + side */
    signed char a, b;    /* the neighbouring set bits of diff, -1 and 32 at the ends */
    int v;               /* the first member that has them */
} cs_red_elim_pair;
typedef struct cs_red_elim_reps {
    int f, vr, n;
    cs_red_elim_pair pair[CS_RED_ELIM_PAIRS];
} cs_red_elim_reps;

static cs_red_elim_reps cs_red_elims[CS_RED_ELIM_KEPT];
static int cs_red_elims_next;
static pthread_mutex_t cs_red_elims_lock = PTHREAD_MUTEX_INITIALIZER;

static void cs_red_elim_walk(const cs_elim *el, int f, int vr, int collector, cs_red_elim_reps *out)
{
    enum { ENDS = CS_RED_ELIM_NONE + 2 };               /* a + 1 and b: 0 .. 33 */
    unsigned char seen[12 * ENDS * ENDS / 8 + 1] = {0}; /* a bit per (shape, a, b) */
    const int cunit = cs_elim_role_of(el, collector).unit;
    out->n = 0;
    for (int v = 0; v < f; v++) {
        if (v == vr || v == collector)
            continue;
        const cs_elim_role role = cs_elim_role_of(el, v);
        const int shape = (int)role.kind * 2 + role.upper;
        unsigned diff = (unsigned)(role.unit ^ cunit);
        int a = -1;
        for (;;) {
            const int b = diff ? cs_floor_log2((int)(diff & -diff)) : CS_RED_ELIM_NONE;
            const int key = (shape * ENDS + a + 1) * ENDS + b;
            if (!((seen[key / 8] >> (key % 8)) & 1)) {
                seen[key / 8] |= (unsigned char)(1u << (key % 8));
                out->pair[out->n++] = (cs_red_elim_pair){(unsigned char)shape, (signed char)a, (signed char)b, v};
            }
            if (!diff)
                break;
            diff &= diff - 1;
            a = b;
        }
    }
}

static void cs_red_price_elim(cs_red_pricer *pr, const cs_level *l)
{
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int root = pr->prob->root, vr = cs_level_digit(l, root), collector = cs_elim_collector(&el, vr);
    /* unit bit b is stage first_stage + b + 1: split below k */
    const int split_bits = pr->k - l->first_stage - 1;
    const int sb = split_bits <= 0 ? 0 : split_bits >= 30 ? CS_RED_ELIM_NONE : split_bits;
    if (collector != vr)
        cs_red_price_rank(pr, cs_level_member(l, root, collector));
    pthread_mutex_lock(&cs_red_elims_lock);
    int i = 0;
    while (i < CS_RED_ELIM_KEPT && !(cs_red_elims[i].f == l->f && cs_red_elims[i].vr == vr))
        i++;
    if (i == CS_RED_ELIM_KEPT) {
        i = cs_red_elims_next;
        cs_red_elims_next = (cs_red_elims_next + 1) % CS_RED_ELIM_KEPT;
        cs_red_elims[i].f = l->f;
        cs_red_elims[i].vr = vr;
        cs_red_elim_walk(&el, l->f, vr, collector, &cs_red_elims[i]);
    }
    const cs_red_elim_reps *r = &cs_red_elims[i];
    for (int j = 0; j < r->n; j++)
        if (r->pair[j].a < sb && sb <= r->pair[j].b)
            cs_red_price_rank(pr, cs_level_member(l, root, r->pair[j].v));
    pthread_mutex_unlock(&cs_red_elims_lock);
}

/* A whole level, one way (cs_tree_step): its members differ only in how
 * many times they receive and whether they send; one of each kind. Which
 * members those are depends on the level's size and the root's digit
 * alone, not on k or the plan around it: found by a walk of the f members
 * once and kept for the next calls (the last few (f, digit); a lock of its
 * own, as cs_red_collect also runs outside the kept ranks' lock). */
enum { CS_RED_TREES_KEPT = 8, CS_RED_TREE_KINDS = 64 }; /* kind: 2 receives + sends, receives < 31 */
typedef struct cs_red_tree_reps {
    int f, to, n;
    int v[CS_RED_TREE_KINDS];
} cs_red_tree_reps;

static cs_red_tree_reps cs_red_trees[CS_RED_TREES_KEPT];
static int cs_red_trees_next;
static pthread_mutex_t cs_red_trees_lock = PTHREAD_MUTEX_INITIALIZER;

static void cs_red_price_tree(cs_red_pricer *pr, const cs_level *l)
{
    const int root = pr->prob->root, to = cs_level_digit(l, root);
    cs_red_tree_reps found = {.f = l->f, .to = to, .n = 0};
    pthread_mutex_lock(&cs_red_trees_lock);
    int i = 0;
    while (i < CS_RED_TREES_KEPT && !(cs_red_trees[i].f == l->f && cs_red_trees[i].to == to && cs_red_trees[i].n))
        i++;
    if (i < CS_RED_TREES_KEPT) {
        found = cs_red_trees[i];
    } else {
        unsigned long long seen = 0; /* bit 2 * receives + sends */
        for (int v = 0; v < l->f; v++) {
            int sends;
            const int kind = 2 * cs_tree_receives(l->f, to, v, &sends) + sends;
            if (v != to && !((seen >> kind) & 1)) {
                seen |= 1ull << kind;
                found.v[found.n++] = v;
            }
        }
        cs_red_trees[cs_red_trees_next] = found;
        cs_red_trees_next = (cs_red_trees_next + 1) % CS_RED_TREES_KEPT;
    }
    pthread_mutex_unlock(&cs_red_trees_lock);
    for (int j = 0; j < found.n; j++)
        cs_red_price_rank(pr, cs_level_member(l, root, found.v[j]));
}

/* Every rank that can be slowest, priced (or collected). */
static void cs_red_collect(cs_red_pricer *pr)
{
    const cs_problem *prob = pr->prob;
    const cs_plan *plan = pr->plan;
    const int k = pr->k;
    cs_red_price_rank(pr, prob->root);
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        if (l->first_stage >= k)
            cs_red_price_tree(pr, l);
        else if (l->kind == CS_LEVEL_ELIM)
            cs_red_price_elim(pr, l);
        else
            cs_red_price_rank(pr, cs_level_member(l, prob->root, (cs_level_digit(l, prob->root) + 1) % l->f));
    }
}

/* The kept lists of this plan and root, or a slot emptied for them. */
static cs_red_reps *cs_red_reps_of(int root, const cs_plan *plan)
{
    for (int i = 0; i < CS_RED_REPS_PLANS; i++) {
        cs_red_reps *r = &cs_red_kept[i];
        if (r->valid && r->root == root && r->p == plan->p && r->nlevels == plan->nlevels &&
            !memcmp(r->level, plan->level, (size_t)plan->nlevels * sizeof plan->level[0]))
            return r;
    }
    cs_red_reps *r = &cs_red_kept[cs_red_kept_next]; /* its rank array is reused */
    cs_red_kept_next = (cs_red_kept_next + 1) % CS_RED_REPS_PLANS;
    r->valid = 1;
    r->root = root;
    r->p = plan->p;
    r->nlevels = plan->nlevels;
    memcpy(r->level, plan->level, (size_t)plan->nlevels * sizeof plan->level[0]);
    r->n = 0;
    for (int k = 0; k <= CS_RED_REPS_K; k++)
        r->start[k] = -1;
    return r;
}

/* On nodes of ppn ranks, placed in blocks: how many of a node's ranks send
 * off it at once in a one-way round (a whole level's tree, the gather). A
 * split level keeps every rank; a whole level within a node keeps one
 * member of each instance: what is left of the node's ranks after those. */
static int cs_red_oneway_senders(const cs_problem *prob, const cs_plan *plan, int k)
{
    const long ppn = prob->ppn;
    long kept = ppn;
    for (int i = 0; i < plan->nlevels && ppn > 1; i++) {
        const cs_level *l = &plan->level[i];
        const long span = (long)l->stride * l->f;
        if (l->first_stage >= k && span <= ppn && ppn % span == 0)
            kept /= l->f;
    }
    return kept < 1 ? 1 : (int)kept;
}

double cs_red_reduce_root_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k)
{
    cs_red_pricer pr = {.model = model,
                        .prob = prob,
                        .plan = plan,
                        .k = k,
                        .stop = INFINITY,
                        .oneway = cs_red_oneway_senders(prob, plan, k)};
    cs_sched_init(&pr.s);
    cs_red_price_rank(&pr, prob->root);
    return pr.worst;
}

double cs_red_reduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k, double stop)
{
    cs_red_pricer pr = {.model = model,
                        .prob = prob,
                        .plan = plan,
                        .k = k,
                        .stop = stop,
                        .oneway = cs_red_oneway_senders(prob, plan, k)};
    cs_sched_init(&pr.s);
    const double per_byte = model->beta + model->gamma + model->rho;
    if (prob->p <= CS_RED_PRICE_ALL && k > 0 && prob->count < (size_t)prob->p &&
        per_byte * (double)prob->bytes > model->alpha) {
        /* fewer elements than ranks, split, and bytes that cost more than a
         * latency: which ranks hold any is not a shape */
        for (int rank = 0; rank < prob->p; rank++)
            cs_red_price_rank(&pr, rank);
        return pr.worst;
    }
    if (k > CS_RED_REPS_K) {
        cs_red_collect(&pr);
        return pr.worst;
    }
    pthread_mutex_lock(&cs_red_kept_lock);
    cs_red_reps *reps = cs_red_reps_of(prob->root, plan);
    if (reps->start[k] < 0) {
        const int first = reps->n;
        pr.reps = reps;
        cs_red_collect(&pr);
        pr.reps = NULL;
        if (reps->n > reps->cap) { /* no room: this k is priced as found, every time */
            reps->n = first;
            pthread_mutex_unlock(&cs_red_kept_lock);
            cs_red_collect(&pr);
            return pr.worst;
        }
        reps->start[k] = first;
        reps->end[k] = reps->n;
        reps->slowest[k] = first;
    }
    /* the rank that was slowest at the last size first: at the next size it
     * is likely to be again, and to reach stop alone */
    const int lead = reps->slowest[k];
    cs_red_price_rank(&pr, reps->rank[lead]);
    for (int i = reps->start[k]; i < reps->end[k]; i++) {
        const double before = pr.worst;
        if (i != lead)
            cs_red_price_rank(&pr, reps->rank[i]);
        if (pr.worst > before)
            reps->slowest[k] = i;
    }
    pthread_mutex_unlock(&cs_red_kept_lock);
    return pr.worst;
}
