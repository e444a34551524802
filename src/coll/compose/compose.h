/*
 * Node-aware compositions (leader_allreduce.c, leader_reduce.c): rows built
 * from the rows we have, run over the ranks of each node and over one rank
 * a node, as pure rank arithmetic on the node map (cs_problem.node). A
 * node's members are its ranks in rank order; its leader is the first, so
 * leaders ascend with node number (nodes are numbered in order of first
 * appearance). A phase is an existing row's schedule built for a
 * sub-problem of p' ranks and appended with its peers mapped to the
 * communicator's ranks and its buffers to ours.
 */
#ifndef CS_COMPOSE_H
#define CS_COMPOSE_H

#include <limits.h>

#include "coll/coll.h"

/* The node of rank r: the map's, or with blocks of prob->ppn alone (no map) r / ppn. */
static inline int cs_compose_node(const cs_problem *prob, int r)
{
    return prob->node ? prob->node[r] : r / prob->ppn;
}

/* How many nodes (0: none known). */
static inline int cs_compose_nodes(const cs_problem *prob)
{
    return prob->node ? prob->nodes : prob->ppn > 1 ? (prob->p + prob->ppn - 1) / prob->ppn : 0;
}

/* Can a composition run: 1 < nodes < p (CS_REQ_NODES), and for alltoall a
 * leader's blocks of its node, p times a node's ranks of them, within
 * INT_MAX bytes (the executor's count)? */
static inline int cs_compose_applies(const cs_problem *prob)
{
    const int nodes = cs_compose_nodes(prob);
    return nodes > 1 && nodes < prob->p &&
           (prob->coll != CS_COLL_ALLTOALL ||
            (double)prob->bytes * prob->p * ((prob->p + nodes - 1) / nodes) <= (double)INT_MAX);
}

/* The members of node j in rank order into out (room for p); their count. */
int cs_compose_members(const cs_problem *prob, int j, int *out);

/* The leaders, node 0 first, into out (room for prob->nodes). */
void cs_compose_leaders(const cs_problem *prob, int *out);

/* The most ranks any node holds; the fewest. */
int cs_compose_largest(const cs_problem *prob);
int cs_compose_smallest(const cs_problem *prob);

/* Where a sub-schedule's buffer lands in ours: a buffer and an offset. */
typedef struct cs_compose_at {
    cs_buf buf;
    size_t off;
} cs_compose_at;

/*
 * Append sub's rounds to s, padded with empty rounds to `rounds` (at least
 * sub's), peers through peer[] (sub-rank to rank), each buffer b of sub at
 * at[b]; scratch grown to hold it. With bcast set, sub is a reduce tree to
 * its rank 0 run backwards as a broadcast from it: rounds in reverse order
 * (the padding first), each send a receive and each receive a send of the
 * `len` bytes at at[CS_BUF_RECV], local steps dropped.
 */
void cs_compose_append(cs_sched *s, const cs_sched *sub, int rounds, const int *peer, const cs_compose_at *at,
                       int bcast, size_t len);

/* Rounds r0 .. r1 - 1 of sub appended forward as cs_compose_append does, no padding. */
void cs_compose_append_range(cs_sched *s, const cs_sched *sub, int r0, int r1, const int *peer,
                             const cs_compose_at *at);

/* The rounds of the row across nodes: the most of its sub-rank `rank`'s
 * schedule and `rounds` (sub is built into; a failure is s's error). */
int cs_compose_rounds_of(const cs_alg *across, const cs_problem *part, const cs_params *params, int rank, int rounds,
                         cs_sched *sub, cs_sched *s);

/* The row across nodes for sub-rank `me` (-1: this rank takes no part)
 * appended to s and padded to `rounds` (cs_compose_append). */
void cs_compose_across(cs_sched *s, cs_sched *sub, const cs_alg *across, const cs_problem *part,
                       const cs_params *params, int me, int rounds, const int *peer, const cs_compose_at *at);

/* Rounds of the k-nomial reduce tree of radix r over n ranks (its last,
 * the forward to a root other than 0, included). */
int cs_compose_tree_rounds(int n, int r);

/* The model of a row run across nodes: one level, `senders` of a node's
 * ranks sending off it at once (cs_model_off_node); the node level's is
 * cs_model_on_node. */
cs_model cs_compose_model_off(const cs_model *model, long senders);

/* The sub-problem of the leaders (p' = nodes, in place, the root's node's
 * leader its root), and of a node of n members reducing to its leader. */
cs_problem cs_compose_leaders_problem(const cs_problem *prob, cs_coll coll);
cs_problem cs_compose_node_problem(const cs_problem *prob, int n, unsigned inplace);

/*
 * Tune a composition: the node tree's radix (params->node_radix) of least
 * price for the node reduce (and with bcast the broadcast) over the largest
 * node, and the leaders' row (params->sub, its index in the table of coll),
 * the cheapest of ours that can run the leaders' problem under the off-node
 * model, tuned by its own tune (its parameters in params' other fields).
 * Without a node map of 1 < nodes < p: params->sub stays 0.
 */
void cs_compose_tune(const cs_model *model, const cs_problem *prob, cs_coll coll, int bcast, cs_params *params);

/* The cheapest row of ours for sub (not a composition, not rules_only, its
 * restrictions met) under off, tuned by its tune: its parameters into
 * params (node_radix kept), its index in params->sub (0: none); its price.
 * Where params->sub is given (a decision's breakpoint holds it), that row's
 * tune alone, which keeps what is given: no search, no price (0). */
double cs_compose_pick(const cs_model *off, const cs_problem *sub, cs_params *params);

/* Do all nodes hold the same number of ranks (CS_REQ_NODE_EVEN)? */
int cs_compose_even(const cs_problem *prob);

/* A composition's row across nodes as its cost prices it: NULL where the
 * model sees no nodes or the composition cannot run (the price: infinity);
 * params tuned by tune where they were not. */
const cs_alg *cs_compose_priced(const cs_model *model, const cs_problem *prob, cs_params *params,
                                void (*tune)(const cs_model *, const cs_problem *, cs_params *));

/* For the log: "<before>, <row across nodes>:<its parameters> across N
 * nodes, <after>"; the length written. */
int cs_compose_describe(const cs_problem *prob, const cs_params *params, const char *before, const char *after,
                        char *buf, size_t size);

/* A composition's phases for one rank: `across` its row across nodes,
 * ranks room for p + nodes ints, sub a schedule to build phases into. */
typedef void (*cs_compose_phases)(const cs_problem *prob, const cs_params *params, int rank, const cs_alg *across,
                                  int *ranks, cs_sched *s, cs_sched *sub);

/* A composition's build: the row across nodes of params (prob->coll's
 * table), the memory, then the phases; an MPI error code. */
int cs_compose_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s, cs_compose_phases phases);

/* The leaders' row of tuned params (NULL where none). */
const cs_alg *cs_compose_sub(cs_coll coll, const cs_params *params);

/* The node reduce over n ranks (with bcast, and the broadcast), radix r, on the node. */
double cs_compose_node_cost(const cs_model *model, const cs_problem *prob, int n, int r, int bcast);

/* The MPI library's price of a problem and its algorithm's name (the
 * mirror, select/library.h: cs_library_price; -1 where it has none), for
 * a composition whose node phase the library may run. select sits above
 * coll, so it sets this when it is linked in (select/library.c); NULL:
 * not priced, and the library's phase is never chosen. */
extern double (*cs_compose_library_price)(const cs_model *model, const cs_problem *prob, const char **name);

/* Does the model see nodes at all (a node level or a node's link)? */
static inline int cs_compose_model_sees(const cs_model *model)
{
    return model->node_levels || model->beta_link > 0.0;
}

#endif
