/*
 * The three collectives as cs_calls: a handle word becomes this build's
 * handle type (an int for MPICH, a pointer for Open MPI; the cast drops
 * what an int argument leaves undefined in the upper half of its word).
 */
#include "common.h"
#include "shim/calls.h"
#include "shim/shim.h"

int cs_calls_alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf, int recvcount,
                      cs_hword recvtype, cs_hword comm)
{
    const cs_call c = {.coll = CS_COLL_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = sendcount,
                       .rcount = recvcount, .stype = (MPI_Datatype)sendtype, .rtype = (MPI_Datatype)recvtype,
                       .op = MPI_OP_NULL, .comm = (MPI_Comm)comm};
    return cs_call_run(&c);
}

int cs_calls_allreduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, cs_hword comm)
{
    const cs_call c = {.coll = CS_COLL_ALLREDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = count,
                       .rcount = count, .stype = (MPI_Datatype)datatype, .rtype = (MPI_Datatype)datatype,
                       .op = (MPI_Op)op, .comm = (MPI_Comm)comm};
    return cs_call_run(&c);
}

int cs_calls_reduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, int root,
                    cs_hword comm)
{
    const cs_call c = {.coll = CS_COLL_REDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = count,
                       .rcount = count, .stype = (MPI_Datatype)datatype, .rtype = (MPI_Datatype)datatype,
                       .op = (MPI_Op)op, .root = root, .comm = (MPI_Comm)comm};
    return cs_call_run(&c);
}
