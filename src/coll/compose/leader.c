/*
 * The leader composition's schedule and price, shared by the allreduce and
 * the reduce rows (leader_allreduce.c, leader_reduce.c; compose.h).
 *
 * Rounds, the same on every rank (schedules run round by round): R1, the
 * k-nomial reduce tree of radix node_radix over the largest node, each
 * node's tree padded to it; R2, the leaders' row over the nodes (its
 * schedules' rounds, the same on every one of its ranks, as for every row
 * of ours); then the allreduce's broadcast, the node tree backwards (R1), or
 * the reduce's forward of the result from the root's node's leader to a root
 * that is not it (one round).
 *
 * Buffers: a rank's input is in RECV where the call is in place (every rank
 * of an allreduce, the root of a reduce), else in SEND. A leader keeps its
 * node's result X in RECV, but a reduce's leader that is not the root, whose
 * RECV need not exist: it keeps X in the first m bytes of TMP0, and each
 * phase's TMP0 lies after it. The leaders' row runs in place on X.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "coll/compose/compose.h"
#include "coll/compose/leader.h"
#include "coll/reduce/knomial.h"

/* The phases of one rank into s; ranks: room for p + nodes. */
static void cs_leader_phases(const cs_problem *prob, const cs_params *params, int rank, const cs_alg *lead, int *ranks,
                             cs_sched *s, cs_sched *sub)
{
    const int allreduce = prob->coll == CS_COLL_ALLREDUCE, root = prob->root, j = cs_compose_node(prob, rank);
    const int inplace = (prob->flags & CS_PROB_INPLACE) != 0, r = params->node_radix >= 2 ? params->node_radix : 2;
    const size_t m = prob->bytes;
    int *members = ranks, *leaders = ranks + prob->p, local = 0;
    const int n = cs_compose_members(prob, j, members), leader = members[0];
    while (members[local] != rank)
        local++;
    cs_compose_leaders(prob, leaders);
    const int r1 = cs_compose_tree_rounds(cs_compose_largest(prob), r);
    const int leader_in_recv = inplace && (allreduce || leader == root);
    const int x_scratch = !allreduce && rank == leader && rank != root;
    const size_t shift = x_scratch ? m : 0;
    const cs_compose_at x = {x_scratch ? CS_BUF_TMP0 : CS_BUF_RECV, 0};
    if (x_scratch)
        cs_sched_scratch(s, CS_BUF_TMP0, m);

    /* 1: the node's ranks reduce to its leader, into X */
    const cs_problem node = cs_compose_node_problem(prob, n, leader_in_recv);
    const cs_compose_at at1[CS_BUF_LAST] = {{inplace && (allreduce || rank == root) ? CS_BUF_RECV : CS_BUF_SEND, 0},
                                            x,
                                            {CS_BUF_TMP0, shift},
                                            {CS_BUF_TMP1, 0}};
    cs_sched_reset(sub);
    cs_reduce_knomial_build_r(&node, r, local, sub);
    cs_compose_append(s, sub, r1, members, at1, 0, 0);

    /* 2: the leaders' row, in place on X, padded to its rounds */
    const cs_problem lp = cs_compose_leaders_problem(prob, prob->coll);
    /* its sub-rank 0 and root: every rank finds the same */
    const int r2 =
        cs_compose_rounds_of(lead, &lp, params, lp.root, cs_compose_rounds_of(lead, &lp, params, 0, 0, sub, s), sub, s);
    const cs_compose_at at2[CS_BUF_LAST] = {x, x, {CS_BUF_TMP0, shift}, {CS_BUF_TMP1, 0}};
    cs_compose_across(s, sub, lead, &lp, params, rank == leader ? j : -1, r2, leaders, at2);

    /* 3: the broadcast on the node, or the result to the root */
    if (allreduce) {
        const cs_compose_at at3[CS_BUF_LAST] = {{CS_BUF_SEND, 0}, {CS_BUF_RECV, 0}, {CS_BUF_TMP0, 0}, {CS_BUF_TMP1, 0}};
        cs_sched_reset(sub);
        cs_reduce_knomial_build_r(&node, r, local, sub);
        cs_compose_append(s, sub, r1, members, at3, 1, m);
    } else if (leaders[cs_compose_node(prob, root)] != root) {
        cs_sched_round(s);
        if (rank == root)
            cs_sched_recv(s, leaders[cs_compose_node(prob, root)], CS_BUF_RECV, 0, m);
        else if (rank == leaders[cs_compose_node(prob, root)])
            cs_sched_send(s, root, CS_BUF_TMP0, 0, m);
    }
}

int cs_compose_leader_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_compose_build(prob, params, rank, s, cs_leader_phases);
}

void cs_compose_leader_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_compose_tune(model, prob, prob->coll, prob->coll == CS_COLL_ALLREDUCE, params);
}

double cs_compose_leader_cost(const cs_model *model, const cs_problem *prob, const cs_params *given)
{
    cs_params params = *given;
    const cs_alg *lead = cs_compose_priced(model, prob, &params, cs_compose_leader_tune);
    if (!lead)
        return INFINITY;
    const int allreduce = prob->coll == CS_COLL_ALLREDUCE, r = params.node_radix >= 2 ? params.node_radix : 2;
    const cs_model off = cs_compose_model_off(model, 1), on = cs_model_on_node(model);
    const cs_problem lp = cs_compose_leaders_problem(prob, prob->coll);
    double t = cs_compose_node_cost(model, prob, prob->ppn > 1 ? prob->ppn : cs_compose_largest(prob), r, allreduce) +
               lead->cost(&off, &lp, &params);
    if (!allreduce) {
        int first = 0; /* the root's node's leader */
        while (cs_compose_node(prob, first) != cs_compose_node(prob, prob->root))
            first++;
        if (first != prob->root)
            t += model->overhead + on.alpha + on.beta * (double)prob->bytes;
    }
    return t;
}

int cs_compose_leader_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    char before[64];
    snprintf(before, sizeof before, "knomial r=%d to each node's lowest rank",
             params->node_radix >= 2 ? params->node_radix : 2);
    return cs_compose_describe(prob, params, before,
                               prob->coll == CS_COLL_ALLREDUCE ? "knomial broadcast on each node" : "", buf, size);
}
