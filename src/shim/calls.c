/*
 * The three collectives as cs_calls: a handle word becomes this build's
 * handle type (an int for MPICH, a pointer for Open MPI; the cast drops
 * what an int argument leaves undefined in the upper half of its word).
 */
#include "common.h"
#include "shim/args.h"
#include "shim/calls.h"
#include "shim/shim.h"

/* Straight to the MPI library, before the path (src/shim/call.c) starts: the
 * collective forced native, or a call that repeats the last one the library
 * took by decision on the same communicator (src/shim/native_memo.c). Only
 * with logging configured nowhere, as every rank decides alike before its
 * context exists (cs_state.log_configured), and only where the library needs
 * nothing from us: counts not negative (MPICH asserts), not MPI_Reduce in
 * place at a root other than 0 on a library with that bug (cs_shim_native).
 * A few loads and compares: what stepping aside costs. */
static inline int cs_calls_straight(const cs_call *c)
{
    if (!cs_shim.on || cs_shim.log_configured || c->comm == MPI_COMM_NULL || cs_reduce_inplace_bug_applies(c))
        return 0;
    if (cs_shim.cfg.coll[c->coll].choice == CS_CHOICE_NATIVE)
        return !cs_args_count_negative(c);
    return cs_native_memo_quick(c);
}

/* The calls as cs_calls; the rest of the path takes them by address, out of
 * line (cs_calls_*_path), so that a call that goes straight to the library
 * never stores one. */
static inline cs_call cs_call_alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf,
                                       int recvcount, cs_hword recvtype, cs_hword comm)
{
    return (cs_call){.coll = CS_COLL_ALLTOALL,
                     .sendbuf = sendbuf,
                     .recvbuf = recvbuf,
                     .scount = sendcount,
                     .rcount = recvcount,
                     .stype = (MPI_Datatype)sendtype,
                     .rtype = (MPI_Datatype)recvtype,
                     .op = MPI_OP_NULL,
                     .comm = (MPI_Comm)comm};
}

static inline cs_call cs_call_reduction(cs_coll coll, const void *sendbuf, void *recvbuf, int count, cs_hword datatype,
                                        cs_hword op, int root, cs_hword comm)
{
    return (cs_call){.coll = coll,
                     .sendbuf = sendbuf,
                     .recvbuf = recvbuf,
                     .scount = count,
                     .rcount = count,
                     .stype = (MPI_Datatype)datatype,
                     .rtype = (MPI_Datatype)datatype,
                     .op = (MPI_Op)op,
                     .root = root,
                     .comm = (MPI_Comm)comm};
}

static __attribute__((noinline)) int cs_calls_alltoall_path(const void *sendbuf, int sendcount, cs_hword sendtype,
                                                            void *recvbuf, int recvcount, cs_hword recvtype,
                                                            cs_hword comm)
{
    const cs_call c = cs_call_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return cs_call_run(&c);
}

static __attribute__((noinline)) int cs_calls_reduction_path(cs_coll coll, const void *sendbuf, void *recvbuf,
                                                             int count, cs_hword datatype, cs_hword op, int root,
                                                             cs_hword comm)
{
    const cs_call c = cs_call_reduction(coll, sendbuf, recvbuf, count, datatype, op, root, comm);
    return cs_call_run(&c);
}

int cs_calls_alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf, int recvcount,
                      cs_hword recvtype, cs_hword comm)
{
    const cs_call c = cs_call_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    if (cs_calls_straight(&c))
        return PMPI_Alltoall(sendbuf, sendcount, c.stype, recvbuf, recvcount, c.rtype, c.comm);
    return cs_calls_alltoall_path(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int cs_calls_allreduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, cs_hword comm)
{
    const cs_call c = cs_call_reduction(CS_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm);
    if (cs_calls_straight(&c))
        return PMPI_Allreduce(sendbuf, recvbuf, count, c.stype, c.op, c.comm);
    return cs_calls_reduction_path(CS_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

int cs_calls_reduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, int root,
                    cs_hword comm)
{
    const cs_call c = cs_call_reduction(CS_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm);
    if (cs_calls_straight(&c))
        return PMPI_Reduce(sendbuf, recvbuf, count, c.stype, c.op, root, c.comm);
    return cs_calls_reduction_path(CS_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm);
}
