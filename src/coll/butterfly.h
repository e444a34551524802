/*
 * The reduction phase of the butterfly (Rabenseifner and Träff 2004, §2),
 * shared by the allreduce and reduce that differ only in their routing phase.
 */
#ifndef CS_BUTTERFLY_H
#define CS_BUTTERFLY_H

#include "coll/coll.h"

/* Where one rank stands after the reduction phase. */
typedef struct cs_butterfly_state {
    int n;            /* log2 p */
    size_t lo, hi;    /* the rank's block of the result, elements [lo, hi) */
    cs_buf cur;       /* the buffer that holds it */
    int done;         /* reduce: sent its block towards the root */
    size_t lo_at[64]; /* the block before halving round z: [lo_at[z], hi_at[z]) */
    size_t hi_at[64];
} cs_butterfly_state;

/* Rounds z = 0..n-1 over partners rank ^ 2^z: halving for z < k, whole
 * blocks after. The vector starts in `acc` (a full-size buffer); TMP0 is the
 * other half of the double buffer. With root >= 0 (reduce) a whole-block
 * round goes one way, towards the root, and the sender is done: st->done. */
void cs_butterfly_reduce_phase(const cs_problem *prob, const cs_params *params, int rank, int root, cs_buf acc,
                               cs_sched *s, cs_butterfly_state *st);

/* Cost of the reduction phase (nominal sizes m/2^z) */
double cs_butterfly_reduce_cost(const cs_model *model, const cs_problem *prob, int k);

/* The per-round size of the routing phase's k rounds: sum of alpha + beta m/2^(z+1). */
double cs_butterfly_routing_cost(const cs_model *model, const cs_problem *prob, int k);


/* Shared row functions of both butterflies. */
void cs_butterfly_tune_with(double (*cost)(const cs_model *, const cs_problem *, const cs_params *),
                            const cs_model *model, const cs_problem *prob, cs_params *params);

#endif
