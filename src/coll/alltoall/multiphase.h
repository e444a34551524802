/*
 * Bokhari's multiphase complete exchange over a partition of d = log2 p, or
 * over a factorisation of any p (a mixed radix), shared by the rows
 * `standard` (every part 1) and `multiphase` (any partition or
 * factorisation, or the model's). See alltoall_multiphase.c.
 */
#ifndef CS_MULTIPHASE_H
#define CS_MULTIPHASE_H

#include "coll/coll.h"

/* The schedule of one rank for parts[0..nparts), phase i on the next parts[i]
 * bits of the rank from the lowest up. MPI_ERR_ARG unless the parts sum to
 * log2 p. One part (or none, p = 1) is Direct's schedule. */
int cs_multiphase_build(const cs_problem *prob, const int *parts, int nparts, int rank, cs_sched *s);

/* Its closed-form cost (INFINITY if the parts do not fit p): each round's
 * alpha with its two posts (cs_model_pairwise, here), on nodes each phase
 * at its level. */
double cs_multiphase_cost(const cs_model *model, const cs_problem *prob, const int *parts, int nparts);

/* The same over a mixed radix: phase i exchanges among the radix[i] ranks
 * that differ only in digit i of the rank (digit 0 the lowest), for any p.
 * MPI_ERR_ARG (INFINITY) unless every radix is >= 2 and their product is p;
 * for p = 2^d and radices 2^{d_i} the schedule of the partition {d_i}. */
int cs_multiphase_build_radix(const cs_problem *prob, const int *radix, int n, int rank, cs_sched *s);
double cs_multiphase_cost_radix(const cs_model *model, const cs_problem *prob, const int *radix, int n);

#endif
