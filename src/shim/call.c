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
#include "shim/shim.h"

/* The layout of a datatype as the schedules see it. */
typedef struct cs_layout {
    MPI_Count size, extent, true_lb, true_extent;
    int contig; /* elements abut: size == extent == true extent */
} cs_layout;

static int cs_layout_get(MPI_Datatype type, cs_layout *l)
{
    MPI_Count lb;
    int rc = PMPI_Type_size_x(type, &l->size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_extent_x(type, &lb, &l->extent);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_get_true_extent_x(type, &l->true_lb, &l->true_extent);
    l->contig = rc == MPI_SUCCESS && l->size > 0 && l->size == l->true_extent && l->extent == l->true_extent;
    return rc;
}

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
    memcpy(copy, (char *)c->recvbuf + true_lb, span);
    rc = PMPI_Reduce(copy - true_lb, c->recvbuf, c->scount, c->stype, c->op, c->root, c->comm);
    free(copy);
    return rc;
}

static int cs_call_native(const cs_call *c)
{
    switch (c->coll) {
    case CS_COLL_ALLTOALL:
        return PMPI_Alltoall(c->sendbuf, c->scount, c->stype, c->recvbuf, c->rcount, c->rtype, c->comm);
    case CS_COLL_ALLREDUCE:
        return PMPI_Allreduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->comm);
    default:
        if (c->sendbuf == MPI_IN_PLACE && c->root != 0 && cs_shim.reduce_inplace_bug)
            return cs_call_reduce_inplace_copy(c);
        return PMPI_Reduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->root, c->comm);
    }
}

/* Arguments the MPI library must judge itself (and report through the
 * communicator's error handler). */
static int cs_call_suspect(const cs_call *c)
{
    if (c->comm == MPI_COMM_NULL || c->scount < 0 || c->stype == MPI_DATATYPE_NULL)
        return 1;
    if (c->coll == CS_COLL_ALLTOALL)
        return c->rcount < 0 || c->rtype == MPI_DATATYPE_NULL;
    return c->op == MPI_OP_NULL;
}

/* Everything the schedule needs, beyond the problem. */
typedef struct cs_local {
    cs_problem prob; /* as this rank builds it: reduce in place at the root */
    cs_layout send, recv;
    int inplace;
} cs_local;

/* Integer (and logical, byte) types: sums and products wrap around exactly. */
static int cs_type_integer(MPI_Datatype t)
{
    static const MPI_Datatype ints[] = {
        MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_INT,
        MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_WCHAR,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T, MPI_C_BOOL, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_INTEGER, MPI_LOGICAL,
        MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (t == ints[i])
            return 1;
    return 0;
}

/* The basic type of a named type, or of a dup, contiguous or resized one;
 * MPI_DATATYPE_NULL for any other. Derived handles that MPI_Type_get_contents
 * returns are freed. */
static MPI_Datatype cs_type_basic(MPI_Datatype t)
{
    MPI_Datatype owned = MPI_DATATYPE_NULL, basic = MPI_DATATYPE_NULL;
    for (int depth = 0; depth < 8; depth++) {
        int ni, na, nd, combiner, ints[1];
        MPI_Aint addrs[2];
        MPI_Datatype inner = MPI_DATATYPE_NULL;
        if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
            break;
        if (combiner == MPI_COMBINER_NAMED) {
            basic = t;
            break;
        }
        const int one_type = (combiner == MPI_COMBINER_DUP || combiner == MPI_COMBINER_CONTIGUOUS ||
                              combiner == MPI_COMBINER_RESIZED) && ni <= 1 && na <= 2 && nd == 1;
        if (!one_type || PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, &inner) != MPI_SUCCESS)
            break;
        if (owned != MPI_DATATYPE_NULL)
            PMPI_Type_free(&owned);
        t = inner;
        PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
        owned = combiner == MPI_COMBINER_NAMED ? MPI_DATATYPE_NULL : inner;
    }
    if (owned != MPI_DATATYPE_NULL)
        PMPI_Type_free(&owned);
    return basic;
}

/*
 * Is the result of (type, op) the same for every order and bracketing of the
 * operands (CS_PROB_EXACT)? MIN, MAX, MINLOC and MAXLOC on any type; the
 * logical and bitwise operators; any predefined operator on integers. Not
 * user operators, nor sums and products of floating-point numbers. With
 * `reproducible: false` the configuration accepts rank-dependent rounding:
 * every call counts as exact (only algorithms that also require a
 * commutative operator look at it).
 */
static int cs_reduction_exact(MPI_Datatype type, MPI_Op op)
{
    if (!cs_shim.cfg.reproducible)
        return 1;
    if (op == MPI_MIN || op == MPI_MAX || op == MPI_MINLOC || op == MPI_MAXLOC || op == MPI_LAND ||
        op == MPI_LOR || op == MPI_LXOR || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return 1;
    if (op != MPI_SUM && op != MPI_PROD)
        return 0;
    return cs_type_integer(cs_type_basic(type));
}

/* Describe a reduction. The decision sees in-place only for allreduce: for
 * reduce, only the root knows (MPI_IN_PLACE is the root's alone). */
static int cs_describe_reduction(const cs_call *c, const cs_context *ctx, cs_problem *prob, cs_local *l)
{
    int commutative = 0;
    int rc = cs_layout_get(c->stype, &l->send);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Op_commutative(c->op, &commutative);
    if (rc != MPI_SUCCESS)
        return rc;
    l->recv = l->send;
    l->inplace = c->sendbuf == MPI_IN_PLACE && (c->coll == CS_COLL_ALLREDUCE || ctx->rank == c->root);
    prob->count = (size_t)c->scount;
    prob->elem = (size_t)l->send.extent;
    prob->bytes = (size_t)c->scount * (size_t)l->send.size;
    prob->flags = (commutative ? CS_PROB_COMMUTATIVE : 0) | (l->send.contig ? CS_PROB_CONTIG : 0);
    if (cs_reduction_exact(c->stype, c->op))
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
 * type is not contiguous packs its side. */
static int cs_describe_alltoall(const cs_call *c, cs_problem *prob, cs_local *l)
{
    int rc = cs_layout_get(c->rtype, &l->recv);
    l->inplace = c->sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS)
        rc = l->inplace ? cs_layout_get(c->rtype, &l->send) : cs_layout_get(c->stype, &l->send);
    if (rc != MPI_SUCCESS)
        return rc;
    prob->bytes = l->inplace ? (size_t)c->rcount * (size_t)l->recv.size : (size_t)c->scount * (size_t)l->send.size;
    prob->count = prob->bytes;
    prob->elem = 1;
    prob->flags = CS_PROB_CONTIG | (l->inplace ? CS_PROB_INPLACE : 0);
    l->prob = *prob;
    return MPI_SUCCESS;
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

    x->buf[CS_BUF_SEND] = l->inplace ? NULL : (char *)c->sendbuf + l->send.true_lb;
    x->buf[CS_BUF_RECV] = (char *)c->recvbuf + l->recv.true_lb;
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
           a->elem == b->elem && a->flags == b->flags;
}

static int cs_params_same(const cs_params *a, const cs_params *b)
{
    if (a->b != b->b || a->k != b->k || a->nparts != b->nparts)
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
    x.buf[CS_BUF_SEND] = l->inplace ? NULL : (char *)c->sendbuf + l->send.true_lb;
    x.buf[CS_BUF_RECV] = c->recvbuf ? (char *)c->recvbuf + l->send.true_lb : NULL;
    return cs_exec_run(&ctx->sched, &x);
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
    MPI_Count size;
    if (PMPI_Type_size_x(recv_side ? c->rtype : c->stype, &size) != MPI_SUCCESS)
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
    cs_decision d;
    int rc;

    if (!cs_shim.on)
        cs_shim_ensure();
    if (c->comm != MPI_COMM_NULL && (c->scount < 0 || (c->coll == CS_COLL_ALLTOALL && c->rcount < 0))) {
        /* MPICH 4.0 asserts on a negative count instead of reporting it. */
        PMPI_Comm_call_errhandler(c->comm, MPI_ERR_COUNT);
        return MPI_ERR_COUNT;
    }
    if (!cs_shim.on || (cc->choice == CS_CHOICE_NATIVE && !cs_log_active()) || cs_call_suspect(c))
        return cs_call_native(c);
    if (cc->choice == CS_CHOICE_AUTO && cc->nnative && !cs_log_active() && cs_call_in_native_range(c, cc))
        return cs_call_native(c); /* what select would say, known from the size alone */
    if (cs_context_get(c->comm, &ctx) != MPI_SUCCESS)
        return cs_call_native(c);
    if (ctx->inter)
        return cs_call_aside(c, ctx, "intercommunicator");
    if (ctx->p == 1 && !cs_log_active()) /* selection would say so, after describing the call */
        return cs_call_native(c);
    if (c->coll == CS_COLL_REDUCE && (c->root < 0 || c->root >= ctx->p))
        return cs_call_native(c);

    prob.p = ctx->p;
    prob.root = c->coll == CS_COLL_REDUCE ? c->root : 0;
    rc = c->coll == CS_COLL_ALLTOALL ? cs_describe_alltoall(c, &prob, &l) : cs_describe_reduction(c, ctx, &prob, &l);
    if (rc != MPI_SUCCESS)
        return cs_call_aside(c, ctx, "datatype or operator query failed");

    if (ctx->last_valid[c->coll] && cs_problem_same(&ctx->last_prob[c->coll], &prob)) {
        d = ctx->last_decision[c->coll];
    } else {
        cs_select(&cs_shim.cfg, &ctx->cache, &prob, &d);
        ctx->last_prob[c->coll] = prob;
        ctx->last_decision[c->coll] = d;
        ctx->last_valid[c->coll] = 1;
    }
    const int logging = cs_log_active();
    const double t0 = logging ? PMPI_Wtime() : 0.0;
    if (!d.alg->build) {
        rc = cs_call_native(c);
    } else {
        rc = cs_call_ours(c, ctx, &l, &d);
        if (rc != MPI_SUCCESS)
            PMPI_Comm_call_errhandler(c->comm, rc);
    }
    if (logging)
        cs_call_log(c, ctx, &l, &d, PMPI_Wtime() - t0);
    return rc;
}
