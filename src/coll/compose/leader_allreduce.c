/*
 * Allreduce by node leaders: the ranks of each node reduce to its leader
 * (its lowest rank) by our k-nomial tree over the node's members in rank
 * order (reduce_knomial.c, radix node_radix), the leaders allreduce across
 * the nodes by the row of ours that the model prices cheapest for p' =
 * nodes (the reduction engine's elimination where that is not a power of
 * two; its parameters tuned by its own tune), and each leader broadcasts the
 * result over its node by the same tree run backwards. Built from the node
 * map (cs_problem.node) alone: nodes of any size, a last node part full,
 * ranks of a node not consecutive (leader.c, compose.h). Parameter
 * node=library|ours (leader.h; tuned by price): the node's reduce and
 * broadcast by the library's PMPI_Reduce and PMPI_Bcast on the node's
 * communicator, which the shim runs around the schedule, or by our tree.
 *
 * Canonical order: where each node's ranks are one consecutive range, the
 * node's tree combines its ranks' vectors in rank order and the leaders'
 * row, which keeps order, combines the nodes' in node order, which is rank
 * order: a0 (+) a1 (+) ... (+) a(p-1), every rank alike.
 *
 * Restrictions (data, src/select/): a node map with 1 < nodes < p
 * (CS_REQ_NODES; one rank a node, or one node, is a flat row's problem);
 * where a node's ranks are not consecutive, a commutative operator
 * (CS_REQ_NODE_ORDER); contiguous datatype. A model that sees no nodes
 * prices it at infinity (never chosen; a forced choice runs).
 *
 * Cost, m bytes, n the largest node, r the node radix, L the leaders' row:
 *   K(on, n, r, m)                   the node reduce, on the node's model
 *                                    (cs_model_on_node; reduce_knomial.c)
 * + L's cost(off, p' = nodes, m)     one sender a node (cs_model_off_node)
 * + K(on without gamma, rho; n, r)   the broadcast, the tree backwards
 * With node=library the node's phases are the library mirror's reduce (and
 * for allreduce its reduce without combines, for the broadcast) over n
 * ranks on the node's model (the mirror, cs_compose_library_price); the tune takes it where
 * that is cheaper, not on a map the event pricer prices (the schedule
 * holds no node phase there to price) nor where the library computes
 * (type, op) wrongly.
 * CS_PATH_SUM: the sum of the phases' prices (a leader that finishes its
 * node early starts the leaders' row early: the closed form is above the
 * event pricer, within the bound the pricer suite checks on block maps); on
 * a map that is not blocks of one size the event pricer prices it
 * (cs_alg_price_map, every rank's schedule).
 */
#include "coll/compose/compose.h"
#include "coll/compose/leader.h"

const cs_alg cs_allreduce_leader = {
    .name = "leader",
    .description = "node leaders: a reduce on each node to its lowest rank (our k-nomial tree, or node=library the "
                   "library's MPI_Reduce on the node's communicator), the leaders' allreduce by our cheapest row for "
                   "the nodes, a broadcast on each node (ours, or the library's MPI_Bcast) (needs a node map)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_NODES | CS_REQ_NODE_ORDER | CS_REQ_CONTIG,
    .parse = cs_compose_leader_parse,
    .syntax = CS_LEADER_SYNTAX,
    .format = cs_compose_leader_format,
    .tune = cs_compose_leader_tune,
    .cost = cs_compose_leader_cost,
    .build = cs_compose_leader_build,
    .describe = cs_compose_leader_describe,
    .critical_path = CS_PATH_SUM,
};
