/*
 * Reduce by node leaders: the ranks of each node reduce to its leader (its
 * lowest rank) by our k-nomial tree over the node's members in rank order
 * (reduce_knomial.c, radix node_radix), the leaders reduce across the nodes
 * to the leader of the root's node by the row of ours that the model prices
 * cheapest for p' = nodes (the reduction engine's elimination where that is
 * not a power of two; its parameters tuned by its own tune), which sends
 * the result to the root where the root is not that leader. Built from the
 * node map alone (leader.c, compose.h). A leader that is not the root keeps
 * its node's result in scratch (a non-root's receive buffer need not
 * exist). Parameter node=library|ours (leader.h; tuned by price): the
 * node's reduce by the library's PMPI_Reduce on the node's communicator,
 * which the shim runs before the schedule, or by our tree.
 *
 * Canonical order: where each node's ranks are one consecutive range, the
 * node's tree combines in rank order and the leaders' row, which keeps
 * order, in node order: a0 (+) a1 (+) ... (+) a(p-1).
 *
 * Restrictions (data, src/select/): a node map with 1 < nodes < p
 * (CS_REQ_NODES); where a node's ranks are not consecutive, a commutative
 * operator (CS_REQ_NODE_ORDER); contiguous datatype. Any root, MPI_IN_PLACE
 * at the root. A model that sees no nodes prices it at infinity.
 *
 * Cost, m bytes, n the largest node, r the node radix, L the leaders' row:
 *   K(on, n, r, m)                   the node reduce (cs_model_on_node)
 * + L's cost(off, p' = nodes, m)     one sender a node (cs_model_off_node)
 * + o + alpha_node + beta_node m     where the root is not its node's leader
 * With node=library the node's phases are the library mirror's reduce (and
 * for allreduce its reduce without combines, for the broadcast) over n
 * ranks on the node's model (the mirror, cs_compose_library_price); the tune takes it where
 * that is cheaper, not on a map the event pricer prices (the schedule
 * holds no node phase there to price) nor where the library computes
 * (type, op) wrongly.
 * CS_PATH_SUM (the phases' prices added; the pricer suite bounds it on block
 * maps); on other maps the event pricer prices it (cs_alg_price_map).
 */
#include "coll/compose/compose.h"
#include "coll/compose/leader.h"

const cs_alg cs_reduce_leader = {
    .name = "leader",
    .description = "node leaders: a reduce on each node to its lowest rank (our k-nomial tree, or node=library the "
                   "library's MPI_Reduce on the node's communicator), the leaders' reduce by our cheapest row for the "
                   "nodes, then to the root (needs a node map)",
    .coll = CS_COLL_REDUCE,
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
