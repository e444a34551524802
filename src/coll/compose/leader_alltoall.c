/*
 * Alltoall by node leaders, for small blocks on nodes of many ranks: each
 * node's ranks send all their blocks to its leader (its lowest rank) in one
 * round, the leaders exchange, for each pair of nodes, one message of the
 * n x n blocks between their ranks, by the alltoall row of ours that the
 * model prices cheapest for p' = nodes (blocks of n^2 m; its parameters
 * tuned by its own tune), and each leader sends each of its ranks the p
 * blocks addressed to it in one message. A leader packs what it sends to
 * another leader and to its ranks in the local steps before (a round of
 * copies of its own). Rank arithmetic on the node map (compose.h): where a
 * node's ranks are not consecutive the blocks are placed by rank all the
 * same.
 *
 * Buffers at a leader, P = n p m bytes: TMP0 [0, P) the node's blocks as
 * gathered (its local rank i's at i p m), [P, 2P) the blocks received from
 * the other leaders, then the exchange row's TMP0; TMP1 [0, P) the blocks
 * packed for the exchange (node K's n^2 at K n^2 m), then for the ranks
 * (local rank k's p at k p m), then the exchange row's TMP1.
 *
 * Restrictions (data, src/select/): a node map with 1 < nodes < p and a
 * node's n p m bytes within INT_MAX (CS_REQ_NODES); nodes that all hold the
 * same number of ranks (CS_REQ_NODE_EVEN: the exchange's blocks are of one
 * size); contiguous datatype. A model that sees no nodes prices it at
 * infinity.
 *
 * Cost, m bytes a block, n ranks a node, X the exchange row:
 *   2 [(n - 1) o + alpha_node + (n - 1) beta_node p m]   gather and scatter,
 *                                     the leader's link taking the n - 1
 * + X's cost(off, one sender a node; p' = nodes, n^2 m)
 * + 3 rho n p m                       the leader's copies: its own blocks,
 *                                     the packing for the exchange and for
 *                                     the ranks
 * CS_PATH_SUM (phases added); on a map that is not blocks of one size the
 * event pricer prices it (cs_alg_price_map, up to 32 ranks).
 */
#include <math.h>
#include <mpi.h>

#include "coll/compose/compose.h"

/* The leaders' problem: p' = nodes, blocks of n^2 m, not in place. */
static cs_problem cs_leader_a2a_problem(const cs_problem *prob, int n)
{
    cs_problem sub = cs_compose_leaders_problem(prob, CS_COLL_ALLTOALL);
    sub.count = sub.bytes = prob->bytes * (size_t)n * (size_t)n;
    sub.flags &= ~(unsigned)CS_PROB_INPLACE;
    return sub;
}

static void cs_leader_a2a_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    if (!cs_compose_applies(prob)) {
        params->sub = 0;
        return;
    }
    const cs_model off = cs_compose_model_off(model, 1);
    const cs_problem sub = cs_leader_a2a_problem(prob, prob->p / cs_compose_nodes(prob));
    cs_compose_pick(&off, &sub, params);
}

static double cs_leader_a2a_cost(const cs_model *model, const cs_problem *prob, const cs_params *given)
{
    cs_params params = *given;
    const cs_alg *across = cs_compose_priced(model, prob, &params, cs_leader_a2a_tune);
    if (!across)
        return INFINITY;
    const int n = prob->p / cs_compose_nodes(prob);
    const double pm = (double)prob->p * (double)prob->bytes;
    const cs_model sized = cs_model_sized(model, pm), on = cs_model_on_node(&sized); /* a rank's p blocks at once */
    const cs_model off = cs_compose_model_off(model, 1);
    const cs_problem sub = cs_leader_a2a_problem(prob, n);
    return 2 * ((n - 1) * model->overhead + on.alpha + (n - 1) * on.beta * pm) + across->cost(&off, &sub, &params) +
           3 * model->rho * n * pm;
}

/* The phases of one rank; ranks: room for p + nodes (members, then the
 * leaders), local: room for p (each rank's index on its node). */
static void cs_leader_a2a_phases(const cs_problem *prob, const cs_params *params, int rank, const cs_alg *across,
                                 int *ranks, cs_sched *s, cs_sched *sub)
{
    const int p = prob->p, nodes = cs_compose_nodes(prob), n = p / nodes, j = cs_compose_node(prob, rank);
    const size_t m = prob->bytes, pm = (size_t)p * m, P = (size_t)n * pm;
    const cs_buf in = (prob->flags & CS_PROB_INPLACE) ? CS_BUF_RECV : CS_BUF_SEND;
    int *members = ranks, *leaders = ranks + p;
    cs_compose_members(prob, j, members);
    cs_compose_leaders(prob, leaders);
    const int leader = members[0] == rank;
    const cs_problem lp = cs_leader_a2a_problem(prob, n);

    /* 1: every block to the leader, which packs them for the exchange */
    cs_sched_round(s);
    if (!leader)
        cs_sched_send(s, members[0], in, 0, pm);
    else {
        cs_sched_scratch(s, CS_BUF_TMP0, 2 * P);
        cs_sched_scratch(s, CS_BUF_TMP1, P);
        for (int i = 1; i < n; i++)
            cs_sched_recv(s, members[i], CS_BUF_TMP0, (size_t)i * pm, pm);
        cs_sched_copy(s, in, 0, CS_BUF_TMP0, 0, pm);
        for (int k = 0; k < nodes; k++) { /* node k's blocks: from each of ours i, to each of its */
            int kk = 0;
            for (int d = 0; d < p; d++)
                if (cs_compose_node(prob, d) == k) {
                    for (int i = 0; i < n; i++)
                        cs_sched_copy_merge(s, CS_BUF_TMP0, ((size_t)i * p + (size_t)d) * m, CS_BUF_TMP1,
                                            (((size_t)k * n + (size_t)i) * n + (size_t)kk) * m, m);
                    kk++;
                }
        }
    }

    /* 2: the leaders' exchange, padded to its rounds */
    const int rounds = cs_compose_rounds_of(across, &lp, params, 0, 0, sub, s);
    const cs_compose_at at[CS_BUF_LAST] = {{CS_BUF_TMP1, 0}, {CS_BUF_TMP0, P}, {CS_BUF_TMP0, 2 * P}, {CS_BUF_TMP1, P}};
    cs_compose_across(s, sub, across, &lp, params, leader ? j : -1, rounds, leaders, at);

    /* 3: the leader packs each rank's blocks in source order (its own into
     * RECV), then sends them */
    cs_sched_round(s);
    if (leader) {
        for (int k = 0; k < nodes; k++) {
            int i = 0;
            for (int src = 0; src < p; src++)
                if (cs_compose_node(prob, src) == k) { /* src is rank i of node k */
                    for (int kk = 0; kk < n; kk++) {
                        const size_t from = (size_t)P + (((size_t)k * n + (size_t)i) * n + (size_t)kk) * m;
                        if (kk == 0)
                            cs_sched_copy_merge(s, CS_BUF_TMP0, from, CS_BUF_RECV, (size_t)src * m, m);
                        else
                            cs_sched_copy_merge(s, CS_BUF_TMP0, from, CS_BUF_TMP1, (size_t)kk * pm + (size_t)src * m,
                                                m);
                    }
                    i++;
                }
        }
    }
    cs_sched_round(s);
    for (int kk = 1; leader && kk < n; kk++)
        cs_sched_send(s, members[kk], CS_BUF_TMP1, (size_t)kk * pm, pm);
    if (!leader)
        cs_sched_recv(s, members[0], CS_BUF_RECV, 0, pm);
}

static int cs_leader_a2a_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_compose_build(prob, params, rank, s, cs_leader_a2a_phases);
}

static int cs_leader_a2a_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    return cs_compose_describe(prob, params, "each node's blocks to its lowest rank", "each rank's back", buf, size);
}

const cs_alg cs_alltoall_leader = {
    .name = "leader",
    .description = "node leaders: each node's blocks gathered to its lowest rank, one message between each pair of "
                   "leaders by our cheapest alltoall for the nodes, each rank's blocks sent back (needs nodes of one "
                   "size)",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_NODES | CS_REQ_NODE_EVEN | CS_REQ_CONTIG,
    .tune = cs_leader_a2a_tune,
    .cost = cs_leader_a2a_cost,
    .build = cs_leader_a2a_build,
    .describe = cs_leader_a2a_describe,
    .critical_path = CS_PATH_SUM,
};
