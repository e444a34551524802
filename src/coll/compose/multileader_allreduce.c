/*
 * Allreduce by many leaders a node: the vector in k parts, k the fewest
 * ranks any node holds (every node's ranks where nodes are of one size). On
 * each node of n ranks the linear allreduce's reduce-scatter with k parts
 * (allreduce_linear.c, its first round: local rank i < k gets part i,
 * combined over the node's n ranks in rank order; the others own nothing),
 * then one allreduce across the nodes per part i, among the ranks of local
 * index i on every node (node order), by the row of ours that the model
 * prices cheapest for p' = nodes with k of a node's ranks sending off it at
 * once (its parameters tuned by its tune for the largest part), then the
 * linear allreduce's allgather on each node (its second round). k of a
 * node's ranks take part in the exchange between nodes, each with 1/k of
 * the vector: the form that wins for large vectors where a node's ranks
 * share its link. On nodes of different sizes (a last node part full) the
 * larger nodes' extra ranks give their data to the part owners and get the
 * result back. Rank arithmetic on the node map (compose.h).
 *
 * Canonical order: where each node's ranks are one consecutive range, part
 * i is combined over a node's ranks in rank order, then over the nodes in
 * node order: a0 (+) a1 (+) ... (+) a(p-1), every part and rank alike.
 *
 * Restrictions (data, src/select/): a node map with 1 < nodes < p
 * (CS_REQ_NODES); a commutative operator where a node's ranks are not
 * consecutive (CS_REQ_NODE_ORDER); contiguous datatype. A model that sees
 * no nodes prices it at infinity.
 *
 * Cost, m bytes, k parts, n the most ranks a node holds, L the row across
 * nodes at ceil(count / k) elements:
 *   linear(on; n, parts of m / k)   the node's reduce-scatter and allgather
 *                                   (allreduce_linear.c's closed form, on the
 *                                   node's model: 2 X + 2 rho L + (n - 1) gamma L)
 * + L's cost(off with k senders; p' = nodes, m / k)
 * CS_PATH_SUM (phases added); on a map that is not blocks of one size the
 * event pricer prices it (cs_alg_price_map).
 */
#include <math.h>
#include <mpi.h>

#include "coll/compose/compose.h"
#include "coll/reduction/engine.h" /* cs_part: the linear allreduce's parts */

extern const cs_alg cs_allreduce_linear;

/* The node's linear allreduce over n ranks with parts of ceil(count / k)
 * elements, on the node's model and problem (as its closed form sees them:
 * n parts of that size). */
static cs_problem cs_multileader_node(const cs_problem *prob, int n, int k)
{
    cs_problem node = cs_compose_node_problem(prob, n, prob->flags & CS_PROB_INPLACE);
    node.coll = CS_COLL_ALLREDUCE;
    node.count = (prob->count + (size_t)k - 1) / (size_t)k * (size_t)n;
    node.bytes = node.count * prob->elem;
    return node;
}

/* The problem across nodes of a part of count elements. */
static cs_problem cs_multileader_part(const cs_problem *prob, size_t count)
{
    cs_problem part = cs_compose_leaders_problem(prob, CS_COLL_ALLREDUCE);
    part.count = count;
    part.bytes = count * prob->elem;
    return part;
}

static void cs_multileader_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    if (!cs_compose_applies(prob)) {
        params->sub = 0;
        return;
    }
    const int k = cs_compose_smallest(prob);
    const cs_model off = cs_compose_model_off(model, k);
    const cs_problem part = cs_multileader_part(prob, (prob->count + (size_t)k - 1) / (size_t)k);
    cs_compose_pick(&off, &part, params);
}

static double cs_multileader_cost(const cs_model *model, const cs_problem *prob, const cs_params *given)
{
    cs_params params = *given;
    const cs_alg *across = cs_compose_priced(model, prob, &params, cs_multileader_tune);
    if (!across)
        return INFINITY;
    const int k = cs_compose_smallest(prob), n = cs_compose_largest(prob);
    const cs_model on = cs_model_on_node(model), off = cs_compose_model_off(model, k);
    const cs_problem node = cs_multileader_node(prob, n, k);
    const cs_problem part = cs_multileader_part(prob, (prob->count + (size_t)k - 1) / (size_t)k);
    return cs_allreduce_linear.cost(&on, &node, NULL) + across->cost(&off, &part, &params);
}

/* The phases of one rank; ranks: room for p + nodes. */
static void cs_multileader_phases(const cs_problem *prob, const cs_params *params, int rank, const cs_alg *across,
                                  int *ranks, cs_sched *s, cs_sched *sub)
{
    const int nodes = cs_compose_nodes(prob), j = cs_compose_node(prob, rank), k = cs_compose_smallest(prob);
    int *members = ranks, *group = ranks + prob->p, local = 0;
    const int n = cs_compose_members(prob, j, members);
    while (members[local] != rank)
        local++;
    for (int x = 0; local < k && x < nodes; x++) { /* local rank `local` of every node, in node order */
        int seen = 0;
        for (int r = 0; r < prob->p; r++)
            if (cs_compose_node(prob, r) == x && seen++ == local)
                group[x] = r;
    }
    const cs_compose_at plain[CS_BUF_LAST] = {{CS_BUF_SEND, 0}, {CS_BUF_RECV, 0}, {CS_BUF_TMP0, 0}, {CS_BUF_TMP1, 0}};
    cs_problem node = cs_compose_node_problem(prob, n, prob->flags & CS_PROB_INPLACE);
    node.coll = CS_COLL_ALLREDUCE;

    /* 1: the reduce-scatter on the node; part `local` (if local < k) into RECV */
    cs_sched_reset(sub);
    cs_allreduce_linear_build_parts(&node, k, local, sub);
    const int linear = sub->nrounds; /* 2, or 1 where the vector is empty */
    cs_compose_append_range(s, sub, 0, 1, members, plain);

    /* 2: part `local` across the nodes, in place, padded to the most rounds of any part */
    const size_t lo = local < k ? cs_part(0, prob->count, k, local) : 0,
                 hi = local < k ? cs_part(0, prob->count, k, local + 1) : 0;
    int rounds = 0;
    for (int big = 0; big < 2; big++) {
        const cs_problem part = cs_multileader_part(prob, prob->count / (size_t)k + (size_t)big);
        if (part.count)
            rounds = cs_compose_rounds_of(across, &part, params, 0, rounds, sub, s);
    }
    const cs_problem part = cs_multileader_part(prob, hi - lo);
    const cs_compose_at at[CS_BUF_LAST] = {
        {CS_BUF_RECV, lo * prob->elem}, {CS_BUF_RECV, lo * prob->elem}, {CS_BUF_TMP0, 0}, {CS_BUF_TMP1, 0}};
    cs_compose_across(s, sub, across, &part, params, hi > lo ? j : -1, rounds, group, at);

    /* 3: the allgather on the node */
    cs_sched_reset(sub);
    cs_allreduce_linear_build_parts(&node, k, local, sub);
    cs_compose_append_range(s, sub, 1, linear, members, plain);
}

static int cs_multileader_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_compose_build(prob, params, rank, s, cs_multileader_phases);
}

static int cs_multileader_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    return cs_compose_describe(prob, params, "linear reduce-scatter on each node", "linear allgather on each node", buf,
                               size);
}

const cs_alg cs_allreduce_multileader = {
    .name = "multileader",
    .description = "a leader per part, as many parts as the smallest node has ranks: the linear reduce-scatter on "
                   "each node, an allreduce across the nodes per part by our cheapest row, the linear allgather on "
                   "each node",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_NODES | CS_REQ_NODE_ORDER | CS_REQ_CONTIG,
    .tune = cs_multileader_tune,
    .cost = cs_multileader_cost,
    .build = cs_multileader_build,
    .describe = cs_multileader_describe,
    .critical_path = CS_PATH_SUM,
};
