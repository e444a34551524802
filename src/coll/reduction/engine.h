/*
 * The one reduction engine (Rabenseifner and Träff 2004) for every p: the
 * plan of p (plan.h) run level by level. The butterfly rows run the plan of
 * 2^n (n butterfly levels), the elimination and ring rows the plan of any p.
 *
 *   engine.c    the reduction phase: input, butterfly and ring levels,
 *               reduce's one-way whole levels (cs_tree_step)
 *   elim.c      the elimination level, both phases
 *   routing.c   allgather (allreduce) and gather to the root (reduce)
 *   price.c     closed forms, tuning, the plan in words, the rows' entry points
 *   price_reduce.c  reduce priced on the ranks that can be slowest
 *
 * Split stages (the first k) halve or part the block both ways; whole stages
 * exchange the whole block both ways for allreduce, and go one way, towards
 * the root, for reduce: the member off the root's path sends and is done.
 */
#ifndef CS_ENGINE_H
#define CS_ENGINE_H

#include <math.h>

#include "coll/coll.h"
#include "coll/reduction/plan.h"

#define CS_MAX_STAGES 64

typedef struct cs_red {
    const cs_problem *prob;
    const cs_plan *plan;
    int k; /* the first k stages split the block */
    int rank;
    int root; /* reduce: the root; allreduce: -1 */
    cs_sched *s;
    size_t e;
    cs_buf cur, other;                                 /* the block is in cur; other receives */
    size_t lo, hi;                                     /* the block, in elements */
    size_t lo_at[CS_MAX_STAGES], hi_at[CS_MAX_STAGES]; /* the block before each stage */
    int gone;                                          /* eliminated: idle until the result comes back */
    int done;                                          /* reduce: sent its block towards the root, idle from then on */
} cs_red;

/*
 * The reduction phase. in_recv: the butterfly rows' buffers, the rank
 * accumulates in RECV (every rank of allreduce, the root of reduce; TMP1
 * elsewhere) and skips the copy in place; otherwise every rank copies its
 * input into TMP1 (the rows over any p). The block ends in cur (survivors)
 * or stays with the eliminated.
 */
void cs_red_reduce_phase(cs_red *r, const cs_problem *prob, const cs_plan *plan, int k, int rank, int in_recv,
                         cs_sched *s);

/* Allreduce: the result block into RECV, then undo the splits. */
void cs_red_allgather_phase(cs_red *r);

/* Reduce: the blocks gathered towards the root, into RECV at the root. */
void cs_red_gather_phase(cs_red *r, int root);

/* Reduce's cost: the slowest of the ranks that can be slowest (the root,
 * a rank that leaves the root's path at each level, one member of the
 * root's elimination per schedule shape), each priced by building its
 * schedule in pricing mode. Once one of them reaches stop the rest are not
 * priced: the price returned is then at least stop, not exact (tuning's
 * pruning; INFINITY for the exact price). */
double cs_red_reduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k, double stop);
/* The root's alone: one of those ranks, so a floor of the price. */
double cs_red_reduce_root_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k);

/* The closed-form cost of the reduction phase and allgather for a plan of
 * the rows over any p (see price.c for the formula). */
double cs_red_allreduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k);

/* The rows' cost and build: the plan of p with rings up to params->rmax
 * (none below 3), allgather for allreduce, gather to the root for reduce;
 * the _pow2 pair for the butterfly rows (in_recv buffers, their closed
 * forms at nominal sizes). */
double cs_red_cost(const cs_model *model, const cs_problem *prob, const cs_params *params);
int cs_red_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s);
double cs_red_cost_pow2(const cs_model *model, const cs_problem *prob, const cs_params *params);

/* The same prices for tuning: a price at or above stop where the exact one
 * is sure to reach it (cs_red_reduce_cost). */
typedef double cs_red_pricing(const cs_model *model, const cs_problem *prob, const cs_params *params, double stop);
cs_red_pricing cs_red_cost_within, cs_red_cost_pow2_within;
/* A floor of cs_red_cost_within's price, much cheaper where that one is
 * dear: reduce's root alone (one build); 0 for allreduce (a closed form). */
typedef double cs_red_floor(const cs_model *model, const cs_problem *prob, const cs_params *params);
cs_red_floor cs_red_cost_floor;
int cs_red_build_pow2(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s);

/* The plan of a row in words, for the log (cs_alg.describe). */
int cs_red_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size);

/* Tuning: a forced k stays (capped), a threshold b splits the stages whose
 * block is larger than b, else the k of least cost (the first of equals).
 * keep_one (the butterfly rows): no more splits than leave every rank an
 * element. Returns the price of the k it searched for, -1 where k was
 * given or set by b (not priced); stop: a price to beat (k's that reach it
 * are not priced in full; where none beats it the price returned is at
 * least stop and k any). lower (or NULL): a cheap floor of cost, so that
 * the k's are priced from the lowest floor up and the search ends at the
 * first floor above the best price (branch and bound: the same k). */
double cs_red_tune(cs_red_pricing *cost, cs_red_floor *lower, const cs_model *model, const cs_problem *prob,
                   cs_params *params, int keep_one, double stop);
/* The same, and the cheapest rmax of 3, 5, 7 unless given: the price (or
 * at least stop), -1 where k and rmax were given. */
double cs_red_tune_rings(cs_red_pricing *cost, const cs_model *model, const cs_problem *prob, cs_params *params,
                         double stop);

/* ---- shared by the engine's files ---- */

static inline int cs_red_split(const cs_red *r, int stage)
{
    return stage < r->k;
}

/* Part x of f parts of [lo, hi). */
static inline size_t cs_part(size_t lo, size_t hi, int f, int x)
{
    return lo + (hi - lo) * (size_t)x / (size_t)f;
}

void cs_red_mark(cs_red *r, int stage);
void cs_red_combine(cs_red *r, size_t lo, size_t hi, int own_left);
void cs_red_exchange(cs_red *r, int peer, int split, int keep_upper, int own_left);
/* Reduce, a whole level: the one-way tree towards the root's member `to`. */
void cs_red_tree(cs_red *r, const cs_level *l, int to);
void cs_red_elim(cs_red *r, const cs_level *l);

/* Routing. */
void cs_red_unsplit(cs_red *r, int peer, int stage);
void cs_red_allgather_elim(cs_red *r, const cs_level *l);

typedef struct cs_gather {
    cs_red *r;
    int root;
    int active; /* still on the root's path */
    cs_buf held;
} cs_gather;

void cs_gather_stage(cs_gather *g, int peer, int sender, int stage);
void cs_gather_elim(cs_gather *g, const cs_level *l);

#endif
