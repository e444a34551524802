/*
 * The k-nomial reduce tree (reduce_knomial.c), shared with binomial, its
 * radix 2.
 */
#ifndef CS_KNOMIAL_H
#define CS_KNOMIAL_H

#include "coll/coll.h"

/* The closed form and the schedule of one rank, radix r >= 2. */
double cs_reduce_knomial_cost_r(const cs_model *model, const cs_problem *prob, int r);
int cs_reduce_knomial_build_r(const cs_problem *prob, int r, int rank, cs_sched *s);

#endif
