/*
 * The path of an intercepted call: describe it with rank-invariant values,
 * select, run our schedule or the MPI library's collective, log.
 *
 * Stepping aside costs a few compares when the configuration says native
 * and logging is off, or when a call repeats the last one the library took
 * by decision (src/shim/calls.c, src/shim/native_memo.c): the call does not
 * come here. A call that repeats the handles and counts of the last one
 * described on its communicator has its buffers checked and takes the last
 * decision (cs_described); a new one costs a few datatype queries, an
 * attribute lookup and a binary search.
 * Nothing is allocated or formatted unless our algorithm runs or logging is on.
 */
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "sched/exec.h"
#include "shim/args.h"
#include "shim/collectives.h"
#include "shim/shim.h"

static int cs_problem_same(const cs_problem *a, const cs_problem *b)
{
    return a->coll == b->coll && a->p == b->p && a->root == b->root && a->count == b->count && a->elem == b->elem &&
           a->flags == b->flags && a->n == b->n && a->r == b->r;
}

/* Every parameter a builder reads (the face_* fields are derived from parts). */
static int cs_params_same(const cs_params *a, const cs_params *b)
{
    if (a->b != b->b || a->k != b->k || a->rmax != b->rmax || a->radix != b->radix || a->levels != b->levels ||
        a->window != b->window || a->factors != b->factors || a->nparts != b->nparts || a->sub != b->sub ||
        a->node_radix != b->node_radix || a->node_level != b->node_level)
        return 0;
    for (int i = 0; i < a->nparts; i++)
        if (a->parts[i] != b->parts[i])
            return 0;
    return 1;
}

/* The schedule of this call: the last one, if the call repeats it. */
static int cs_call_schedule(cs_context *ctx, const cs_local *l, const cs_decision *d)
{
    if (ctx->sched_alg == d->alg && cs_problem_same(&ctx->sched_prob, &l->prob) &&
        cs_params_same(&ctx->sched_params, &d->params))
        return MPI_SUCCESS;
    ctx->sched_alg = NULL;
    cs_sched_reset(&ctx->sched);
    int rc = d->alg->build(&l->prob, &d->params, ctx->rank, &ctx->sched);
    if (rc == MPI_SUCCESS) {
        ctx->sched_alg = d->alg;
        ctx->sched_prob = l->prob;
        ctx->sched_params = d->params;
    }
    return rc;
}

static int cs_call_ours(const cs_call *c, cs_context *ctx, const cs_local *l, const cs_decision *d)
{
    cs_exec x = {.type = c->stype, .op = c->op, .comm = ctx->comm, .scratch = &ctx->scratch};
    if (l->library_wrong) /* our own loop combines it (sched/combine.h) */
        x.own_width = (size_t)l->send.size;
    int rc = cs_call_schedule(ctx, l, d);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = cs_shim_coll_of(c->coll)->run(c, ctx, l, &x);
    if (rc == MPI_SUCCESS && c->finish)
        rc = c->finish(c, d->alg);
    return rc;
}

static void cs_call_log(const cs_call *c, const cs_context *ctx, const cs_local *l, const cs_decision *d,
                        double elapsed)
{
    cs_sched_stats stats;
    if (d->alg->build)
        cs_sched_stats_get(&ctx->sched, &cs_shim.cfg.model, &stats);
    cs_record r = {.prob = &l->prob,
                   .d = d,
                   .rank = ctx->rank,
                   .op = c->op,
                   .inplace = l->inplace,
                   .elapsed = elapsed,
                   .stats = d->alg->build ? &stats : NULL};
    cs_log_call(&r);
}

/* Intercommunicators and calls we could not describe go to the library;
 * with logging on, they are logged too. */
static int cs_call_aside(const cs_call *c, const cs_context *ctx, const char *reason)
{
    const int logging = ctx && cs_log_active();
    const double t0 = logging ? PMPI_Wtime() : 0.0;
    int rc = cs_shim_native(c);
    if (logging) {
        cs_decision d = {.alg = cs_alg_native(c->coll), .reason = reason, .predicted = -1.0};
        cs_local l = {.prob = {.coll = c->coll, .p = ctx->p, .root = c->root, .nodes = ctx->map.nodes}};
        cs_call_log(c, ctx, &l, &d, PMPI_Wtime() - t0);
    }
    return rc;
}

int cs_call_run(const cs_call *c)
{
    const cs_coll_config *cc = &cs_shim.cfg.coll[c->coll];
    cs_context *ctx = NULL;
    cs_local l;
    const char *refused;

    if (!cs_shim.on)
        cs_shim_ensure();
    /* Up to the context, what every rank does alike (cs_state.log_configured). */
    const int quiet = !cs_shim.log_configured;
    if (c->comm == MPI_COMM_NULL || !cs_shim.on || (cc->choice == CS_CHOICE_NATIVE && quiet))
        return cs_shim_native(c);
    if (cc->choice == CS_CHOICE_AUTO && cc->nnative && !cc->nrules && quiet && !cs_args_count_negative(c) &&
        cs_shim_coll_in_native_range(c, cc)) {
        cs_native_memo_set_quick(c); /* the next such call goes straight there (src/shim/calls.c) */
        return cs_shim_native(c);    /* what select would say, known from the size alone */
    }
    if (cs_args_count_negative(c) || cs_context_get(c->comm, &ctx) != MPI_SUCCESS)
        return cs_shim_native(c);
    if (ctx->inter || ctx->p == 1) { /* the library's, whatever the call: a repeat goes straight */
        if (quiet)
            cs_native_memo_set_quick(c);
        if (ctx->inter)
            return cs_call_aside(c, ctx, "intercommunicator");
    }
    if (ctx->p == 1 && !cs_log_active()) /* selection would say so, after describing the call */
        return cs_shim_native(c);
    if (cs_described_hit(ctx, c)) { /* the same problem and layouts: only the buffers may differ */
        const cs_described *known = &ctx->described[c->coll];
        if ((refused = cs_args_check_buffers(c, ctx, &known->l)) != NULL)
            return cs_call_aside(c, ctx, refused);
        return cs_call_go(c, ctx, &known->prob, &known->l);
    }
    if ((refused = cs_args_check(c, ctx, &l)) != NULL) {
        if (quiet) /* its handles and counts alone sent it there: a repeat goes straight */
            cs_native_memo_set_quick(c);
        return cs_call_aside(c, ctx, refused);
    }
    if ((refused = cs_args_check_buffers(c, ctx, &l)) != NULL)
        return cs_call_aside(c, ctx, refused);

    cs_problem prob = {.coll = c->coll,
                       .p = ctx->p,
                       .ppn = ctx->map.ppn,
                       .node = ctx->map.node,
                       .nodes = ctx->map.nodes,
                       .share = ctx->map.node ? ctx->map.share : 0};
    if (cs_shim_coll_of(c->coll)->describe(c, &prob, &l) != MPI_SUCCESS)
        return cs_call_aside(c, ctx, "operator query failed");
    if (ctx->map.node && ctx->map.ranges)
        prob.flags |= CS_PROB_NODE_RANGES;
    cs_described_set(ctx, c, &prob, &l);
    return cs_call_go(c, ctx, &prob, &l);
}

int cs_call_go(const cs_call *c, cs_context *ctx, const cs_problem *prob, const cs_local *l)
{
    int rc;

    if (!ctx->last_valid[c->coll] || !cs_problem_same(&ctx->last_prob[c->coll], prob)) {
        cs_select(&cs_shim.cfg, &ctx->cache, prob, &ctx->last_decision[c->coll]);
        ctx->last_prob[c->coll] = *prob;
        ctx->last_valid[c->coll] = 1;
    }
    /* Nothing below decides again on ctx: the decision stays where it is. */
    const cs_decision *d = &ctx->last_decision[c->coll];
    cs_decision named;
    if (l->library_wrong && d->reason == cs_select_library_wrong) { /* which pair, in words, for the log */
        named = *d;
        named.reason = l->library_wrong;
        d = &named;
    }
    const int logging = cs_log_active();
    const double t0 = logging ? PMPI_Wtime() : 0.0;
    if (!d->alg->build) {
        if (!logging)
            cs_native_memo_set(ctx, c);
        rc = cs_shim_native(c);
    } else {
        rc = cs_call_ours(c, ctx, l, d);
        if (rc != MPI_SUCCESS)
            PMPI_Comm_call_errhandler(c->comm, rc);
    }
    if (logging)
        cs_call_log(c, ctx, l, d, PMPI_Wtime() - t0);
    return rc;
}
