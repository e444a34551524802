/*
 * What the compositions share (compose.h): a node's members and the
 * leaders, a phase appended from a sub-problem's schedule, the tuning of
 * the node tree and of the leaders' row.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/compose/compose.h"
#include "coll/reduce/knomial.h"

double (*cs_compose_library_price)(const cs_model *model, const cs_problem *prob, const char **name);

int cs_compose_members(const cs_problem *prob, int j, int *out)
{
    int n = 0;
    for (int r = 0; r < prob->p; r++)
        if (cs_compose_node(prob, r) == j)
            out[n++] = r;
    return n;
}

void cs_compose_leaders(const cs_problem *prob, int *out)
{
    int seen = 0;
    for (int r = 0; r < prob->p && seen < cs_compose_nodes(prob); r++)
        if (cs_compose_node(prob, r) == seen) /* numbered in order of first appearance */
            out[seen++] = r;
}

/* The fewest and the most ranks any node holds (0 where none is known):
 * ppn on blocks of one size, else counted on the map. */
static void cs_compose_sizes(const cs_problem *prob, int *least, int *most)
{
    if (prob->ppn > 1) {
        *least = *most = prob->ppn;
        return;
    }
    const int nodes = cs_compose_nodes(prob);
    int *count = calloc((size_t)(nodes > 0 ? nodes : 1), sizeof *count);
    for (int r = 0; count && r < prob->p; r++)
        count[cs_compose_node(prob, r)]++;
    *least = *most = 0;
    for (int j = 0; j < nodes; j++) {
        int n = 0;
        if (count)
            n = count[j];
        else /* no memory: count each node's in turn */
            for (int r = 0; r < prob->p; r++)
                n += cs_compose_node(prob, r) == j;
        *most = n > *most ? n : *most;
        *least = j == 0 || n < *least ? n : *least;
    }
    free(count);
}

int cs_compose_largest(const cs_problem *prob)
{
    int least, most;
    cs_compose_sizes(prob, &least, &most);
    return most;
}

int cs_compose_smallest(const cs_problem *prob)
{
    int least, most;
    cs_compose_sizes(prob, &least, &most);
    return least;
}

static cs_compose_at cs_compose_map(const cs_compose_at *at, uint8_t buf, size_t off)
{
    return (cs_compose_at){at[buf].buf, at[buf].off + off};
}

/* One step of sub as ours (a forward phase). */
static void cs_compose_step(cs_sched *s, const cs_step *st, const int *peer, const cs_compose_at *at)
{
    const cs_compose_at from = cs_compose_map(at, st->buf, st->off), to = cs_compose_map(at, st->dst, st->dst_off);
    switch (st->kind) {
    case CS_STEP_SEND: cs_sched_send(s, peer[st->peer], from.buf, from.off, st->len); break;
    case CS_STEP_RECV: cs_sched_recv(s, peer[st->peer], from.buf, from.off, st->len); break;
    case CS_STEP_COPY: cs_sched_copy(s, from.buf, from.off, to.buf, to.off, st->len); break;
    default: cs_sched_combine(s, (cs_step_kind)st->kind, from.buf, from.off, to.buf, to.off, st->len); break;
    }
}

/* Rounds r0 .. r1 - 1 of sub as ours (forward), or all backwards as a broadcast. */
static void cs_compose_rounds(cs_sched *s, const cs_sched *sub, int r0, int r1, const int *peer,
                              const cs_compose_at *at, int bcast, size_t len)
{
    for (int k = r0; k < r1; k++) {
        const int r = bcast ? r1 - 1 - (k - r0) : k;
        cs_sched_round(s);
        for (size_t i = sub->round_start[r]; i < cs_sched_round_end(sub, r); i++) {
            const cs_step *st = &sub->steps[i];
            const cs_compose_at data = at[CS_BUF_RECV];
            if (!bcast)
                cs_compose_step(s, st, peer, at);
            else if (st->kind == CS_STEP_SEND) /* the reduce's send to the parent: its receive */
                cs_sched_recv(s, peer[st->peer], data.buf, data.off, len);
            else if (st->kind == CS_STEP_RECV) /* a child's block: the result to it */
                cs_sched_send(s, peer[st->peer], data.buf, data.off, len);
        }
    }
    for (int b = CS_BUF_TMP0; !bcast && b <= CS_BUF_TMP1; b++)
        if (sub->tmp_bytes[b - CS_BUF_TMP0])
            cs_sched_scratch(s, at[b].buf, at[b].off + sub->tmp_bytes[b - CS_BUF_TMP0]);
    if (sub->error && !s->error)
        s->error = sub->error;
}

void cs_compose_append(cs_sched *s, const cs_sched *sub, int rounds, const int *peer, const cs_compose_at *at,
                       int bcast, size_t len)
{
    const int pad = rounds - sub->nrounds;
    for (int i = 0; bcast && i < pad; i++)
        cs_sched_round(s);
    cs_compose_rounds(s, sub, 0, sub->nrounds, peer, at, bcast, len);
    for (int i = 0; !bcast && i < pad; i++)
        cs_sched_round(s);
}

void cs_compose_append_range(cs_sched *s, const cs_sched *sub, int r0, int r1, const int *peer, const cs_compose_at *at)
{
    cs_compose_rounds(s, sub, r0, r1 < sub->nrounds ? r1 : sub->nrounds, peer, at, 0, 0);
}

int cs_compose_tree_rounds(int n, int r)
{
    int rounds = 1;
    for (long long d = 1; d < n; d *= r)
        rounds++;
    return rounds;
}

cs_model cs_compose_model_off(const cs_model *model, long senders)
{
    cs_model at = cs_model_off_node(model, senders);
    at.node_levels = 0;
    at.beta_link = 0.0;
    return at;
}

cs_problem cs_compose_leaders_problem(const cs_problem *prob, cs_coll coll)
{
    cs_problem sub = *prob;
    sub.coll = coll;
    sub.p = cs_compose_nodes(prob);
    sub.root = coll == CS_COLL_REDUCE ? cs_compose_node(prob, prob->root) : 0;
    sub.flags |= CS_PROB_INPLACE;
    sub.ppn = 0;
    sub.node = NULL;
    sub.nodes = 0;
    return sub;
}

cs_problem cs_compose_node_problem(const cs_problem *prob, int n, unsigned inplace)
{
    cs_problem sub = *prob;
    sub.coll = CS_COLL_REDUCE;
    sub.p = n;
    sub.root = 0;
    sub.flags = (prob->flags & ~(unsigned)CS_PROB_INPLACE) | (inplace ? CS_PROB_INPLACE : 0u);
    sub.ppn = 0;
    sub.node = NULL;
    sub.nodes = 0;
    return sub;
}

double cs_compose_node_cost(const cs_model *model, const cs_problem *prob, int n, int r, int bcast)
{
    const cs_model on = cs_model_on_node(model);
    cs_problem node =
        cs_compose_node_problem(prob, n, prob->coll == CS_COLL_ALLREDUCE ? prob->flags & CS_PROB_INPLACE : 0);
    double t = cs_reduce_knomial_cost_r(&on, &node, r);
    if (bcast) { /* the same tree backwards: its messages without the combines */
        cs_model send = on;
        send.gamma = send.rho = 0.0;
        node.flags |= CS_PROB_INPLACE;
        t += cs_reduce_knomial_cost_r(&send, &node, r);
    }
    return t;
}

const cs_alg *cs_compose_sub(cs_coll coll, const cs_params *params)
{
    int n;
    const cs_alg *const *table = cs_alg_table(coll, &n);
    return params->sub > 0 && params->sub < n ? table[params->sub] : NULL;
}

double cs_compose_pick(const cs_model *off, const cs_problem *sub, cs_params *params)
{
    if (params->sub > 0) { /* given (a breakpoint's): its row's own tune, which keeps what is given */
        const cs_alg *alg = cs_compose_sub(sub->coll, params);
        if (alg && alg->tune)
            alg->tune(off, sub, params);
        return 0.0;
    }
    int n;
    const cs_alg *const *table = cs_alg_table(sub->coll, &n);
    double best = INFINITY;
    params->sub = 0;
    for (int i = 1; i < n; i++) {
        const cs_alg *alg = table[i];
        cs_params tuned;
        if (!alg->build || !alg->cost || alg->rules_only || (alg->requires & CS_REQ_NODES) ||
            cs_alg_restriction(alg, sub))
            continue;
        cs_params_init(&tuned);
        if (alg->tune)
            alg->tune(off, sub, &tuned);
        const double t = alg->cost(off, sub, &tuned);
        if (t < best) {
            best = t;
            tuned.node_radix = params->node_radix;
            *params = tuned;
            params->sub = i;
        }
    }
    return best;
}

void cs_compose_tune(const cs_model *model, const cs_problem *prob, cs_coll coll, int bcast, cs_params *params)
{
    static const int radices[] = {2, 3, 4, 8};
    if (!cs_compose_applies(prob)) {
        params->sub = 0;
        return;
    }
    if (params->sub > 0 && params->node_radix >= 2) { /* given (a breakpoint's): the row across alone */
        const cs_model off = cs_compose_model_off(model, 1);
        const cs_problem sub = cs_compose_leaders_problem(prob, coll);
        cs_compose_pick(&off, &sub, params);
        return;
    }
    params->sub = 0;
    const int most = cs_compose_largest(prob);
    double best = INFINITY;
    int radix = 2;
    for (size_t i = 0; i < sizeof radices / sizeof radices[0] && (i == 0 || radices[i] <= most); i++) {
        const double t = cs_compose_node_cost(model, prob, most, radices[i], bcast);
        if (t < best * (1.0 - 1e-12)) {
            best = t;
            radix = radices[i];
        }
    }
    const cs_model off = cs_compose_model_off(model, 1);
    const cs_problem sub = cs_compose_leaders_problem(prob, coll);
    params->node_radix = radix;
    cs_compose_pick(&off, &sub, params);
}

int cs_compose_even(const cs_problem *prob)
{
    const int nodes = cs_compose_nodes(prob);
    return prob->ppn > 1 || (nodes > 0 && prob->p % nodes == 0 && cs_compose_largest(prob) == prob->p / nodes);
}

int cs_compose_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s, cs_compose_phases phases)
{
    const cs_alg *across = cs_compose_sub(prob->coll, params);
    if (!across || !cs_compose_applies(prob))
        return s->error = MPI_ERR_INTERN;
    int *ranks = malloc((size_t)(prob->p + cs_compose_nodes(prob)) * sizeof *ranks);
    if (!ranks)
        return s->error = MPI_ERR_NO_MEM;
    cs_sched sub;
    cs_sched_init(&sub);
    phases(prob, params, rank, across, ranks, s, &sub);
    cs_sched_free(&sub);
    free(ranks);
    return s->error;
}

const cs_alg *cs_compose_priced(const cs_model *model, const cs_problem *prob, cs_params *params,
                                void (*tune)(const cs_model *, const cs_problem *, cs_params *))
{
    if (!cs_compose_model_sees(model) || !cs_compose_applies(prob))
        return NULL;
    if (params->sub <= 0)
        tune(model, prob, params);
    return cs_compose_sub(prob->coll, params);
}

int cs_compose_rounds_of(const cs_alg *across, const cs_problem *part, const cs_params *params, int rank, int rounds,
                         cs_sched *sub, cs_sched *s)
{
    cs_sched_reset(sub);
    if (across->build(part, params, rank, sub) != 0 && !s->error)
        s->error = sub->error ? sub->error : MPI_ERR_INTERN;
    return sub->nrounds > rounds ? sub->nrounds : rounds;
}

void cs_compose_across(cs_sched *s, cs_sched *sub, const cs_alg *across, const cs_problem *part,
                       const cs_params *params, int me, int rounds, const int *peer, const cs_compose_at *at)
{
    if (me < 0) {
        for (int i = 0; i < rounds; i++)
            cs_sched_round(s);
        return;
    }
    cs_sched_reset(sub);
    across->build(part, params, me, sub);
    cs_compose_append(s, sub, rounds, peer, at, 0, 0);
}

int cs_compose_describe(const cs_problem *prob, const cs_params *params, const char *before, const char *after,
                        char *buf, size_t size)
{
    const cs_alg *across = cs_compose_sub(prob->coll, params);
    char spec[96];
    if (!across)
        return 0;
    cs_alg_spec(across, params, spec, sizeof spec);
    return snprintf(buf, size, "%s, %s across %d nodes%s%s", before, spec, cs_compose_nodes(prob), after[0] ? ", " : "",
                    after);
}
