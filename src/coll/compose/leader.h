/*
 * The leader composition (leader.c), shared by its allreduce and reduce rows.
 */
#ifndef CS_LEADER_H
#define CS_LEADER_H

#include "coll/coll.h"

/* The schedule of one rank (params tuned: cs_compose_tune). */
int cs_compose_leader_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s);

/* The node tree's radix and the leaders' row (cs_compose_tune; the allreduce's with its broadcast). */
void cs_compose_leader_tune(const cs_model *model, const cs_problem *prob, cs_params *params);

/* The closed form: node reduce + the leaders' row + node broadcast (allreduce)
 * or the forward to a root that is not its node's leader (reduce). */
double cs_compose_leader_cost(const cs_model *model, const cs_problem *prob, const cs_params *params);

/* For the log: the node tree, the leaders' row and its parameters. */
int cs_compose_leader_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size);

#endif
