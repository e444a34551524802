/*
 * The leader composition (leader.c), shared by its allreduce and reduce rows.
 */
#ifndef CS_LEADER_H
#define CS_LEADER_H

#include "coll/coll.h"

/* The leader rows' node level (cs_params.node_level; 0: the model decides):
 * our k-nomial tree in the schedule, or the library's own PMPI_Reduce (and
 * for allreduce PMPI_Bcast) on the node's communicator, which the shim runs
 * around the schedule, which then holds the leaders' part alone. */
enum { CS_NODE_OURS = 1, CS_NODE_LIBRARY = 2 };

/* Is a leader row's node level the library's for prob? Not where the
 * library computes (type, op) wrongly (CS_PROB_LIBRARY_WRONG): ours then. */
static inline int cs_compose_leader_level_library(const cs_problem *prob, const cs_params *params)
{
    return params->node_level == CS_NODE_LIBRARY && !(prob->flags & CS_PROB_LIBRARY_WRONG);
}

/* Is alg a leader row that runs its node level by the library for prob? */
int cs_compose_leader_library(const cs_alg *alg, const cs_problem *prob, const cs_params *params);

/* "node=library" or "node=ours" (cs_alg.parse, .format, .syntax). */
int cs_compose_leader_parse(const char *args, cs_params *params);
int cs_compose_leader_format(const cs_params *params, char *buf, size_t size);
#define CS_LEADER_SYNTAX                                                                                               \
    "expected node=library, the library's MPI_Reduce (and MPI_Bcast) on each node, or node=ours, our k-nomial tree"

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
