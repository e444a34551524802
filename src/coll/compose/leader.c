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
 *
 * Node level by the library (CS_NODE_LIBRARY): the shim reduces each node to
 * its leader by the library's PMPI_Reduce on the node's communicator before
 * the schedule and broadcasts by PMPI_Bcast after it (src/shim/collectives.c);
 * the schedule is R2 and the reduce's forward alone, X always in RECV (the
 * shim gives a reduce's leader that is not the root a buffer for it). The
 * library's reduce on a communicator of the node's ranks in rank order
 * combines in rank order for a non-commutative operator, as MPI guarantees:
 * canonical order where each node's ranks are one range, as ours.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "coll/compose/compose.h"
#include "coll/compose/leader.h"
#include "coll/reduce/knomial.h"

int cs_compose_leader_library(const cs_alg *alg, const cs_problem *prob, const cs_params *params)
{
    return alg && alg->build == cs_compose_leader_build && cs_compose_leader_level_library(prob, params);
}

int cs_compose_leader_parse(const char *args, cs_params *params)
{
    if (!strcmp(args, "node=library"))
        params->node_level = CS_NODE_LIBRARY;
    else if (!strcmp(args, "node=ours"))
        params->node_level = CS_NODE_OURS;
    else
        return -1;
    return 0;
}

int cs_compose_leader_format(const cs_params *params, char *buf, size_t size)
{
    const char *level = params->node_level == CS_NODE_LIBRARY ? "node=library"
                        : params->node_level == CS_NODE_OURS  ? "node=ours"
                                                              : "";
    return snprintf(buf, size, "%s", level);
}

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
    const int library = cs_compose_leader_level_library(prob, params);
    const int x_scratch = !library && !allreduce && rank == leader && rank != root;
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
    if (!library) {
        cs_sched_reset(sub);
        cs_reduce_knomial_build_r(&node, r, local, sub);
        cs_compose_append(s, sub, r1, members, at1, 0, 0);
    }

    /* 2: the leaders' row, in place on X, padded to its rounds */
    const cs_problem lp = cs_compose_leaders_problem(prob, prob->coll);
    /* its sub-rank 0 and root: every rank finds the same */
    const int r2 =
        cs_compose_rounds_of(lead, &lp, params, lp.root, cs_compose_rounds_of(lead, &lp, params, 0, 0, sub, s), sub, s);
    const cs_compose_at at2[CS_BUF_LAST] = {x, x, {CS_BUF_TMP0, shift}, {CS_BUF_TMP1, 0}};
    cs_compose_across(s, sub, lead, &lp, params, rank == leader ? j : -1, r2, leaders, at2);

    /* 3: the broadcast on the node, or the result to the root */
    if (allreduce && !library) {
        const cs_compose_at at3[CS_BUF_LAST] = {{CS_BUF_SEND, 0}, {CS_BUF_RECV, 0}, {CS_BUF_TMP0, 0}, {CS_BUF_TMP1, 0}};
        cs_sched_reset(sub);
        cs_reduce_knomial_build_r(&node, r, local, sub);
        cs_compose_append(s, sub, r1, members, at3, 1, m);
    } else if (!allreduce && leaders[cs_compose_node(prob, root)] != root) {
        cs_sched_round(s);
        if (rank == root)
            cs_sched_recv(s, leaders[cs_compose_node(prob, root)], CS_BUF_RECV, 0, m);
        else if (rank == leaders[cs_compose_node(prob, root)])
            cs_sched_send(s, root, x.buf, x.off, m);
    }
}

int cs_compose_leader_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_compose_build(prob, params, rank, s, cs_leader_phases);
}

/* The library's reduce (with bcast, and its broadcast, priced as its reduce
 * without the combines) over a node of n ranks, on the node's model. */
static double cs_leader_library_cost(const cs_model *model, const cs_problem *prob, int n, int bcast)
{
    if ((prob->flags & CS_PROB_LIBRARY_WRONG) || !cs_compose_library_price)
        return INFINITY;
    const char *name;
    cs_model on = cs_model_on_node(model);
    cs_problem node = cs_compose_node_problem(prob, n, 0);
    double t = cs_compose_library_price(&on, &node, &name);
    if (bcast && t >= 0.0) {
        on.gamma = on.rho = 0.0;
        const double b = cs_compose_library_price(&on, &node, &name);
        t = b >= 0.0 ? t + b : -1.0;
    }
    return t >= 0.0 ? t : INFINITY;
}

/* The node level's price: n the largest node, r the tree's radix. */
static double cs_leader_node_cost(const cs_model *model, const cs_problem *prob, const cs_params *params, int n,
                                  int bcast)
{
    if (cs_compose_leader_level_library(prob, params))
        return cs_leader_library_cost(model, prob, n, bcast);
    return cs_compose_node_cost(model, prob, n, params->node_radix >= 2 ? params->node_radix : 2, bcast);
}

void cs_compose_leader_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    const int given = params->node_level, bcast = prob->coll == CS_COLL_ALLREDUCE;
    cs_compose_tune(model, prob, prob->coll, bcast, params);
    params->node_level = given;
    if (given || params->sub <= 0) /* the node level given (by the user, or a breakpoint's) */
        return;
    /* On a map the event pricer prices (cs_alg_price_map), the schedule
     * holds no node level to price: ours, which it sees. */
    params->node_level = CS_NODE_OURS;
    if (cs_alg_map_priced(model, prob))
        return;
    const int n = prob->ppn > 1 ? prob->ppn : cs_compose_largest(prob);
    if (cs_leader_library_cost(model, prob, n, bcast) < cs_compose_node_cost(model, prob, n, params->node_radix, bcast))
        params->node_level = CS_NODE_LIBRARY;
}

double cs_compose_leader_cost(const cs_model *model, const cs_problem *prob, const cs_params *given)
{
    cs_params params = *given;
    const cs_alg *lead = cs_compose_priced(model, prob, &params, cs_compose_leader_tune);
    if (!lead)
        return INFINITY;
    const int allreduce = prob->coll == CS_COLL_ALLREDUCE;
    const cs_model off = cs_compose_model_off(model, 1), on = cs_model_on_node(model);
    const cs_problem lp = cs_compose_leaders_problem(prob, prob->coll);
    double t =
        cs_leader_node_cost(model, prob, &params, prob->ppn > 1 ? prob->ppn : cs_compose_largest(prob), allreduce) +
        lead->cost(&off, &lp, &params);
    if (!allreduce) {
        int first = 0; /* the root's node's leader */
        while (cs_compose_node(prob, first) != cs_compose_node(prob, prob->root))
            first++;
        const cs_model hop = cs_model_sized(&on, (double)prob->bytes); /* the result on to the root, at its band */
        if (first != prob->root)
            t += model->overhead + hop.alpha + hop.beta * (double)prob->bytes;
    }
    return t;
}

int cs_compose_leader_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    char before[64];
    const int library = cs_compose_leader_level_library(prob, params), allreduce = prob->coll == CS_COLL_ALLREDUCE;
    if (library)
        snprintf(before, sizeof before, "the library's MPI_Reduce on each node");
    else
        snprintf(before, sizeof before, "knomial r=%d to each node's lowest rank",
                 params->node_radix >= 2 ? params->node_radix : 2);
    const char *after = !allreduce ? ""
                        : library  ? "the library's MPI_Bcast on each node"
                                   : "knomial broadcast on each node";
    return cs_compose_describe(prob, params, before, after, buf, size);
}
