/*
 * The intercepted C collectives: thin. Handles arrive as words (cs_hword,
 * no mpi.h here) so that a build loaded into a program of another MPI
 * library can hand them, bit for bit, to the program's own collective
 * (src/shim/abi.c); otherwise they become this build's handles in
 * src/shim/calls.c.
 */
#include "common.h"
#include "shim/calls.h"

typedef int cs_alltoall_fn(const void *, int, cs_hword, void *, int, cs_hword, cs_hword);
typedef int cs_allreduce_fn(const void *, void *, int, cs_hword, cs_hword, cs_hword);
typedef int cs_reduce_fn(const void *, void *, int, cs_hword, cs_hword, int, cs_hword);

static CS_COLD int cs_aside_alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf,
                                     int recvcount, cs_hword recvtype, cs_hword comm)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_alltoall_fn *next = (cs_alltoall_fn *)cs_abi_next("MPI_Alltoall", &slot);
        return next ? next(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm) : CS_ABI_NO_NEXT;
    }
    return cs_calls_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

CS_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf, int recvcount,
                           cs_hword recvtype, cs_hword comm)
{
    if (!cs_abi_fits())
        return cs_aside_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return cs_calls_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

static CS_COLD int cs_aside_allreduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op,
                                      cs_hword comm)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_allreduce_fn *next = (cs_allreduce_fn *)cs_abi_next("MPI_Allreduce", &slot);
        return next ? next(sendbuf, recvbuf, count, datatype, op, comm) : CS_ABI_NO_NEXT;
    }
    return cs_calls_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

CS_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op,
                            cs_hword comm)
{
    if (!cs_abi_fits())
        return cs_aside_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return cs_calls_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

static CS_COLD int cs_aside_reduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op,
                                   int root, cs_hword comm)
{
    if (cs_abi_aside()) {
        static void *slot;
        cs_reduce_fn *next = (cs_reduce_fn *)cs_abi_next("MPI_Reduce", &slot);
        return next ? next(sendbuf, recvbuf, count, datatype, op, root, comm) : CS_ABI_NO_NEXT;
    }
    return cs_calls_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

CS_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, int root,
                         cs_hword comm)
{
    if (!cs_abi_fits())
        return cs_aside_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    return cs_calls_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}
