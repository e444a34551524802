/*
 * Builders of the reduction over any p (src/coll/reduction/plan.h): the
 * reduction phase and the two routing phases (allgather for allreduce,
 * gather to the root for reduce), shared by the elimination and ring rows
 * of both collectives.
 */
#ifndef CS_ENGINE_H
#define CS_ENGINE_H

#include "coll/coll.h"
#include "coll/reduction/plan.h"

#define CS_MAX_STAGES 64

typedef struct cs_red {
    const cs_problem *prob;
    const cs_plan *plan;
    int k; /* the first k stages split the block */
    int rank;
    cs_sched *s;
    size_t e;
    cs_buf cur, other; /* the block is in cur; other receives */
    size_t lo, hi;     /* the block, in elements */
    size_t lo_at[CS_MAX_STAGES], hi_at[CS_MAX_STAGES]; /* the block before each stage */
    int gone;          /* eliminated: idle until the result comes back */
} cs_red;

/* Copy the input into scratch and run every level; the block ends in cur
 * (survivors) or stays with the eliminated. */
void cs_red_reduce_phase(cs_red *r, const cs_problem *prob, const cs_plan *plan, int k, int rank, cs_sched *s);

/* Allreduce: the result block into RECV, then undo the splits. */
void cs_red_allgather_phase(cs_red *r);

/* Reduce: the blocks gathered towards the root, into RECV at the root. */
void cs_red_gather_phase(cs_red *r, int root);

/* Reduce's cost: the slowest of the ranks that can be slowest (the root,
 * a rank that leaves the root's path at each level, one member of the
 * root's elimination per schedule shape), each priced by building its
 * schedule in pricing mode. */
double cs_red_reduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k);

/* The rows' cost and build: the plan of p with rings up to params->rmax
 * (none below 3), allgather for allreduce, gather to the root for reduce. */
double cs_red_cost(const cs_model *model, const cs_problem *prob, const cs_params *params);
int cs_red_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s);

/* The plan of a row in words, for the log (cs_alg.describe). */
int cs_red_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size);

/* Rows' shared parts. */
void cs_red_tune(double (*cost)(const cs_model *, const cs_problem *, const cs_params *), const cs_model *model,
                 const cs_problem *prob, cs_params *params);
/* The same, and the cheapest rmax of 3, 5, 7 unless given. */
void cs_red_tune_rings(double (*cost)(const cs_model *, const cs_problem *, const cs_params *),
                       const cs_model *model, const cs_problem *prob, cs_params *params);

/* The closed-form cost of the reduction phase and allgather for a plan:
 * see allreduce_elimination.c for the formula. */
double cs_red_allreduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k);

#endif
