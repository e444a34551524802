/*
 * The path of an intercepted call: describe it with rank-invariant values,
 * select, run our schedule or the MPI library's collective, log.
 *
 * Stepping aside costs a branch when the configuration says native and
 * logging is off; otherwise a few datatype queries, an attribute lookup and
 * a binary search. Nothing is allocated or formatted unless our algorithm
 * runs or logging is on.
 */
#include <stdlib.h>
#include <string.h>

#include "log/log.h"
#include "sched/exec.h"
#include "shim/args.h"
#include "shim/shim.h"

/* MPI_Reduce in place at a root other than 0, on a library with
 * pmodels/mpich#6540: the root's input goes through a copy instead. */
static int cs_call_reduce_inplace_copy(const cs_call *c)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int rc = PMPI_Type_get_extent(c->stype, &lb, &extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent(c->stype, &true_lb, &true_extent);
    if (rc != MPI_SUCCESS)
        return rc;
    const size_t span = c->scount > 0 ? (size_t)true_extent + (size_t)(c->scount - 1) * (size_t)extent : 0;
    char *copy = malloc(span ? span : 1);
    if (!copy)
        return MPI_ERR_NO_MEM;
    memcpy(copy, cs_addr(c->recvbuf, true_lb), span);
    rc = PMPI_Reduce(cs_addr(copy, -true_lb), c->recvbuf, c->scount, c->stype, c->op, c->root, c->comm);
    free(copy);
    return rc;
}

/* The MPI library's collective, around its known bugs: MPICH 4.0 asserts on
 * a negative count instead of reporting it, and fails MPI_Reduce in place at
 * a root other than 0. */
static int cs_call_native(const cs_call *c)
{
    int rank = 0;
    if (c->comm != MPI_COMM_NULL && cs_args_count_negative(c)) {
        PMPI_Comm_call_errhandler(c->comm, MPI_ERR_COUNT);
        return MPI_ERR_COUNT;
    }
    switch (c->coll) {
    case CS_COLL_ALLTOALL:
        return PMPI_Alltoall(c->sendbuf, c->scount, c->stype, c->recvbuf, c->rcount, c->rtype, c->comm);
    case CS_COLL_ALLREDUCE:
        return PMPI_Allreduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->comm);
    default:
        if (c->sendbuf == MPI_IN_PLACE && c->root != 0 && cs_shim.reduce_inplace_bug &&
            PMPI_Comm_rank(c->comm, &rank) == MPI_SUCCESS && rank == c->root)
            return cs_call_reduce_inplace_copy(c);
        return PMPI_Reduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->root, c->comm);
    }
}

/* Describe a reduction. The decision sees in-place only for allreduce: for
 * reduce, only the root knows (MPI_IN_PLACE is the root's alone). */
static int cs_describe_reduction(const cs_call *c, cs_problem *prob, cs_local *l)
{
    int commutative = 0;
    int rc = PMPI_Op_commutative(c->op, &commutative);
    if (rc != MPI_SUCCESS)
        return rc;
    prob->count = (size_t)c->scount;
    prob->elem = (size_t)l->send.extent;
    prob->bytes = (size_t)c->scount * (size_t)l->send.size;
    prob->flags = (commutative ? CS_PROB_COMMUTATIVE : 0) | (l->send.contig ? CS_PROB_CONTIG : 0);
    /* `reproducible: false` accepts rank-dependent rounding: every call
     * counts as exact (only rows that also need a commutative op look). */
    if (l->exact || !cs_shim.cfg.reproducible)
        prob->flags |= CS_PROB_EXACT;
    if (l->inplace && c->coll == CS_COLL_ALLREDUCE)
        prob->flags |= CS_PROB_INPLACE;
    l->prob = *prob;
    if (l->inplace)
        l->prob.flags |= CS_PROB_INPLACE;
    return MPI_SUCCESS;
}

/* Describe an alltoall. Datatypes may differ from rank to rank (only their
 * signatures must match), so the decision never looks at them: a rank whose
 * type is not contiguous packs its side. In place, the receive arguments
 * describe both sides. */
static void cs_describe_alltoall(const cs_call *c, cs_problem *prob, cs_local *l)
{
    prob->bytes = (size_t)c->rcount * (size_t)l->recv.size;
    prob->count = prob->bytes;
    prob->elem = 1;
    prob->flags = CS_PROB_CONTIG | (l->inplace ? CS_PROB_INPLACE : 0);
    l->prob = *prob;
}

/* Pack a non-contiguous side of an alltoall into bytes, or unpack it. */
static int cs_alltoall_pack(const cs_call *c, const cs_context *ctx, const void *from, int count,
                            MPI_Datatype type, void *bytes, size_t size)
{
    int pos = 0;
    return PMPI_Pack(from, count * ctx->p, type, bytes, (int)size, &pos, ctx->comm);
}

static int cs_alltoall_unpack(const cs_call *c, const cs_context *ctx, const void *bytes, size_t size)
{
    int pos = 0;
    return PMPI_Unpack(bytes, (int)size, &pos, c->recvbuf, c->rcount * ctx->p, c->rtype, ctx->comm);
}

static int cs_call_ours_alltoall(const cs_call *c, cs_context *ctx, cs_local *l, cs_exec *x)
{
    const size_t total = l->prob.bytes * (size_t)ctx->p;
    char *packed_send = NULL, *packed_recv = NULL;
    int rc = MPI_SUCCESS;

    x->buf[CS_BUF_SEND] = l->inplace ? NULL : cs_addr(c->sendbuf, (ptrdiff_t)l->send.true_lb);
    x->buf[CS_BUF_RECV] = cs_addr(c->recvbuf, (ptrdiff_t)l->recv.true_lb);
    if (!l->inplace && !l->send.contig) {
        if (!(packed_send = malloc(total ? total : 1)))
            return MPI_ERR_NO_MEM;
        rc = cs_alltoall_pack(c, ctx, c->sendbuf, c->scount, c->stype, packed_send, total);
        x->buf[CS_BUF_SEND] = packed_send;
    }
    if (rc == MPI_SUCCESS && !l->recv.contig) {
        if (!(packed_recv = malloc(total ? total : 1)))
            rc = MPI_ERR_NO_MEM;
        else if (l->inplace)
            rc = cs_alltoall_pack(c, ctx, c->recvbuf, c->rcount, c->rtype, packed_recv, total);
        x->buf[CS_BUF_RECV] = packed_recv;
    }
    if (rc == MPI_SUCCESS)
        rc = cs_exec_run(&ctx->sched, x);
    if (rc == MPI_SUCCESS && packed_recv)
        rc = cs_alltoall_unpack(c, ctx, packed_recv, total);
    free(packed_send);
    free(packed_recv);
    return rc;
}

static int cs_problem_same(const cs_problem *a, const cs_problem *b)
{
    return a->coll == b->coll && a->p == b->p && a->root == b->root && a->count == b->count &&
           a->elem == b->elem && a->flags == b->flags && a->n == b->n && a->r == b->r;
}

/* Every parameter a builder reads (the face_* fields are derived from parts). */
static int cs_params_same(const cs_params *a, const cs_params *b)
{
    if (a->b != b->b || a->k != b->k || a->rmax != b->rmax || a->nparts != b->nparts)
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

static int cs_call_ours(const cs_call *c, cs_context *ctx, cs_local *l, const cs_decision *d)
{
    cs_exec x = {.type = c->stype, .op = c->op, .comm = ctx->comm, .scratch = &ctx->scratch};
    int rc = cs_call_schedule(ctx, l, d);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->coll == CS_COLL_ALLTOALL)
        return cs_call_ours_alltoall(c, ctx, l, &x);

    x.type_lb = (MPI_Aint)l->send.true_lb;
    x.type_extent = (size_t)l->send.extent;
    x.buf[CS_BUF_SEND] = l->inplace ? NULL : cs_addr(c->sendbuf, (ptrdiff_t)l->send.true_lb);
    /* The receive buffer is significant at the root of reduce only: NULL
     * elsewhere, so that no schedule can touch it. At the root it may be
     * MPI_BOTTOM (NULL) with a type that addresses absolutely. */
    const int has_result = c->coll != CS_COLL_REDUCE || ctx->rank == c->root;
    x.buf[CS_BUF_RECV] = has_result ? cs_addr(c->recvbuf, (ptrdiff_t)l->send.true_lb) : NULL;
    rc = cs_exec_run(&ctx->sched, &x);
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
    cs_record r = {.prob = &l->prob, .d = d, .rank = ctx->rank, .op = c->op, .inplace = l->inplace,
                   .elapsed = elapsed, .stats = d->alg->build ? &stats : NULL};
    cs_log_call(&r);
}

/* Is the message (count times type size; alltoall: one block) in a
 * configured native range? One datatype query. */
static int cs_call_in_native_range(const cs_call *c, const cs_coll_config *cc)
{
    const int recv_side = c->coll == CS_COLL_ALLTOALL && c->sendbuf == MPI_IN_PLACE;
    const MPI_Datatype type = recv_side ? c->rtype : c->stype;
    MPI_Count size;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(recv_side ? c->rtype : c->stype, &size) != MPI_SUCCESS)
        return 0;
    return cs_config_native_range(cc, (size_t)(recv_side ? c->rcount : c->scount) * (size_t)size);
}

/* Intercommunicators and calls we could not describe go to the library;
 * with logging on, they are logged too. */
static int cs_call_aside(const cs_call *c, const cs_context *ctx, const char *reason)
{
    const int logging = ctx && cs_log_active();
    const double t0 = logging ? PMPI_Wtime() : 0.0;
    int rc = cs_call_native(c);
    if (logging) {
        cs_decision d = {.alg = cs_alg_native(c->coll), .reason = reason, .predicted = -1.0};
        cs_local l = {.prob = {.coll = c->coll, .p = ctx->p, .root = c->root}};
        cs_call_log(c, ctx, &l, &d, PMPI_Wtime() - t0);
    }
    return rc;
}

int cs_call_run(const cs_call *c)
{
    const cs_coll_config *cc = &cs_shim.cfg.coll[c->coll];
    cs_context *ctx = NULL;
    cs_problem prob = {.coll = c->coll};
    cs_local l;
    const char *refused;

    if (!cs_shim.on)
        cs_shim_ensure();
    if (c->comm == MPI_COMM_NULL || !cs_shim.on || (cc->choice == CS_CHOICE_NATIVE && !cs_log_active()))
        return cs_call_native(c);
    if (cc->choice == CS_CHOICE_AUTO && cc->nnative && !cs_log_active() && cs_call_in_native_range(c, cc))
        return cs_call_native(c); /* what select would say, known from the size alone */
    if (cs_args_count_negative(c) || cs_context_get(c->comm, &ctx) != MPI_SUCCESS)
        return cs_call_native(c);
    if (ctx->inter)
        return cs_call_aside(c, ctx, "intercommunicator");
    if (ctx->p == 1 && !cs_log_active()) /* selection would say so, after describing the call */
        return cs_call_native(c);
    if ((refused = cs_args_check(c, ctx, &l)) != NULL)
        return cs_call_aside(c, ctx, refused);

    prob.p = ctx->p;
    prob.root = c->coll == CS_COLL_REDUCE ? c->root : 0;
    if (c->coll == CS_COLL_ALLTOALL)
        cs_describe_alltoall(c, &prob, &l);
    else if (cs_describe_reduction(c, &prob, &l) != MPI_SUCCESS)
        return cs_call_aside(c, ctx, "operator query failed");
    return cs_call_go(c, ctx, &prob, &l);
}

int cs_call_go(const cs_call *c, cs_context *ctx, const cs_problem *prob, cs_local *l)
{
    cs_decision d;
    int rc;

    if (ctx->last_valid[c->coll] && cs_problem_same(&ctx->last_prob[c->coll], prob)) {
        d = ctx->last_decision[c->coll];
    } else {
        cs_select(&cs_shim.cfg, &ctx->cache, prob, &d);
        ctx->last_prob[c->coll] = *prob;
        ctx->last_decision[c->coll] = d;
        ctx->last_valid[c->coll] = 1;
    }
    const int logging = cs_log_active();
    const double t0 = logging ? PMPI_Wtime() : 0.0;
    if (!d.alg->build) {
        rc = cs_call_native(c);
    } else {
        rc = cs_call_ours(c, ctx, l, &d);
        if (rc != MPI_SUCCESS)
            PMPI_Comm_call_errhandler(c->comm, rc);
    }
    if (logging)
        cs_call_log(c, ctx, l, &d, PMPI_Wtime() - t0);
    return rc;
}
