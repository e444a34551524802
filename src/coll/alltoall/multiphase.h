/*
 * Bokhari's multiphase complete exchange over a partition of d = log2 p,
 * shared by the rows `standard` (every part 1) and `multiphase` (any
 * partition, or the hull's). See alltoall_multiphase.c.
 */
#ifndef CS_MULTIPHASE_H
#define CS_MULTIPHASE_H

#include "coll/coll.h"


/* The schedule of one rank for parts[0..nparts), phase i on the next parts[i]
 * bits of the rank from the lowest up. MPI_ERR_ARG unless the parts sum to
 * log2 p. One part (or none, p = 1) is Direct's schedule. */
int cs_multiphase_build(const cs_problem *prob, const int *parts, int nparts, int rank, cs_sched *s);

/* Its closed-form cost (INFINITY if the parts do not fit p). */
double cs_multiphase_cost(const cs_model *model, const cs_problem *prob, const int *parts, int nparts);

#endif
