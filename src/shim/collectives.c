/*
 * What the shim knows of each collective, in one table (cs_shim_colls):
 * the MPI library's version, how a call is described with rank-invariant
 * values (cs_problem), and how our schedule meets the user's buffers. The
 * collective's algorithms, largest message and decision caching are its
 * cs_collective (src/coll/registry.c); its log fields are the log's
 * (src/log/log.c: root, or the window's n and r).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/compose/leader.h"
#include "shim/args.h"
#include "shim/collectives.h"

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

/* The MPI library's collectives, around its known bugs: MPICH 4.0 asserts
 * on a negative count instead of reporting it (cs_shim_native), and fails
 * MPI_Reduce in place at a root other than 0. */
static int cs_native_alltoall(const cs_call *c)
{
    return PMPI_Alltoall(c->sendbuf, c->scount, c->stype, c->recvbuf, c->rcount, c->rtype, c->comm);
}

static int cs_native_allreduce(const cs_call *c)
{
    return PMPI_Allreduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->comm);
}

static int cs_native_reduce(const cs_call *c)
{
    int rank = 0;
    if (cs_reduce_inplace_bug_applies(c) && PMPI_Comm_rank(c->comm, &rank) == MPI_SUCCESS && rank == c->root)
        return cs_call_reduce_inplace_copy(c);
    return PMPI_Reduce(c->sendbuf, c->recvbuf, c->scount, c->stype, c->op, c->root, c->comm);
}

/* Describe a reduction. The decision sees in-place only for allreduce: for
 * reduce, only the root knows (MPI_IN_PLACE is the root's alone). */
static int cs_describe_reduction(const cs_call *c, cs_problem *prob, cs_local *l)
{
    int commutative = 0;
    prob->root = c->coll == CS_COLL_REDUCE ? c->root : 0;
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
    if (l->library_wrong)
        prob->flags |= CS_PROB_LIBRARY_WRONG;
    if (cs_args_op_user(c->op))
        prob->flags |= CS_PROB_USER_OP;
    l->prob = *prob;
    if (l->inplace)
        l->prob.flags |= CS_PROB_INPLACE;
    return MPI_SUCCESS;
}

/* Describe an alltoall. Datatypes may differ from rank to rank (only their
 * signatures must match), so the decision never looks at them: a rank whose
 * type is not contiguous packs its side. In place, the receive arguments
 * describe both sides. */
static int cs_describe_alltoall(const cs_call *c, cs_problem *prob, cs_local *l)
{
    prob->bytes = (size_t)c->rcount * (size_t)l->recv.size;
    prob->count = prob->bytes;
    prob->elem = 1;
    prob->flags = CS_PROB_CONTIG | (l->inplace ? CS_PROB_INPLACE : 0);
    l->prob = *prob;
    return MPI_SUCCESS;
}

/* Pack a non-contiguous side of an alltoall into bytes, or unpack it. */
static int cs_alltoall_pack(const cs_call *c, const cs_context *ctx, const void *from, int count, MPI_Datatype type,
                            void *bytes, size_t size)
{
    int pos = 0;
    return PMPI_Pack(from, count * ctx->p, type, bytes, (int)size, &pos, ctx->comm);
}

static int cs_alltoall_unpack(const cs_call *c, const cs_context *ctx, const void *bytes, size_t size)
{
    int pos = 0;
    return PMPI_Unpack(bytes, (int)size, &pos, c->recvbuf, c->rcount * ctx->p, c->rtype, ctx->comm);
}

/* Our schedule on an alltoall's buffers: a non-contiguous side packed. */
static int cs_run_alltoall(const cs_call *c, cs_context *ctx, const cs_local *l, cs_exec *x)
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

/*
 * A leader row whose node level is the library's (src/coll/compose/leader.h):
 * the library's PMPI_Reduce on the node's communicator to its rank 0, the
 * node's leader, into its receive buffer (a reduce's leader that is not the
 * root: a buffer of its own, the schedule's RECV); the schedule, the
 * leaders' part; for allreduce the library's PMPI_Bcast on the node.
 */
static int cs_run_leader_library(const cs_call *c, cs_context *ctx, const cs_local *l, cs_exec *x)
{
    int node_rank = 0, rc = cs_context_node_comm(ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Comm_rank(ctx->node_comm, &node_rank);
    const int leader = node_rank == 0, allreduce = c->coll == CS_COLL_ALLREDUCE;
    void *own = NULL, *result = c->recvbuf;
    if (rc == MPI_SUCCESS && leader && !allreduce && ctx->rank != c->root) {
        if (!(own = malloc(l->prob.bytes ? l->prob.bytes : 1)))
            return MPI_ERR_NO_MEM;
        x->buf[CS_BUF_RECV] = own;
        result = cs_addr(own, -(ptrdiff_t)l->send.true_lb);
    }
    /* in place: the input is in the receive buffer (MPI_IN_PLACE at the node's leader) */
    const void *in = l->inplace ? (leader ? MPI_IN_PLACE : c->recvbuf) : c->sendbuf;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(in, leader ? result : NULL, c->scount, c->stype, c->op, 0, ctx->node_comm);
    if (rc == MPI_SUCCESS)
        rc = cs_exec_run(&ctx->sched, x);
    if (rc == MPI_SUCCESS && allreduce)
        rc = PMPI_Bcast(c->recvbuf, c->scount, c->stype, 0, ctx->node_comm);
    free(own);
    return rc;
}

/* Our schedule on a vector's buffers: reductions and the window API. */
static int cs_run_vector(const cs_call *c, cs_context *ctx, const cs_local *l, cs_exec *x)
{
    x->type_lb = (MPI_Aint)l->send.true_lb;
    x->type_extent = (size_t)l->send.extent;
    x->buf[CS_BUF_SEND] = l->inplace ? NULL : cs_addr(c->sendbuf, (ptrdiff_t)l->send.true_lb);
    /* The receive buffer is significant at the root of reduce only: NULL
     * elsewhere, so that no schedule can touch it. At the root it may be
     * MPI_BOTTOM (NULL) with a type that addresses absolutely. */
    const int has_result = c->coll != CS_COLL_REDUCE || ctx->rank == c->root;
    x->buf[CS_BUF_RECV] = has_result ? cs_addr(c->recvbuf, (ptrdiff_t)l->send.true_lb) : NULL;
    if (cs_compose_leader_library(ctx->sched_alg, &l->prob, &ctx->sched_params))
        return cs_run_leader_library(c, ctx, l, x);
    return cs_exec_run(&ctx->sched, x);
}

static int cs_native_none(const cs_call *c)
{
    return MPI_ERR_INTERN; /* the extension API has no library version: select never says native */
}

static const cs_shim_coll cs_shim_colls[CS_COLL_COUNT] = {
    [CS_COLL_ALLTOALL] = {cs_native_alltoall, cs_describe_alltoall, cs_run_alltoall},
    [CS_COLL_ALLREDUCE] = {cs_native_allreduce, cs_describe_reduction, cs_run_vector},
    [CS_COLL_REDUCE] = {cs_native_reduce, cs_describe_reduction, cs_run_vector},
    [CS_COLL_WINDOW] = {cs_native_none, NULL, cs_run_vector}, /* described by src/shim/window.c */
    [CS_COLL_WINDOW_BLOCK] = {cs_native_none, NULL, cs_run_vector},
};

const cs_shim_coll *cs_shim_coll_of(cs_coll coll)
{
    return &cs_shim_colls[coll];
}

int cs_shim_native(const cs_call *c)
{
    if (c->comm != MPI_COMM_NULL && cs_args_count_negative(c)) {
        PMPI_Comm_call_errhandler(c->comm, MPI_ERR_COUNT);
        return MPI_ERR_COUNT;
    }
    return cs_shim_colls[c->coll].native(c);
}

/* Is the message (count times type size; alltoall: one block, in place on
 * the receive side) in a configured native range? One datatype query. */
int cs_shim_coll_in_native_range(const cs_call *c, const cs_coll_config *cc)
{
    const int recv_side = c->coll == CS_COLL_ALLTOALL && c->sendbuf == MPI_IN_PLACE;
    const MPI_Datatype type = recv_side ? c->rtype : c->stype;
    MPI_Count size;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size_x(type, &size) != MPI_SUCCESS)
        return 0;
    return cs_config_native_range(cc, (size_t)(recv_side ? c->rcount : c->scount) * (size_t)size);
}
