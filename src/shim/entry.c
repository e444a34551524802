/*
 * The intercepted collectives: thin, one cs_call each.
 */
#include "common.h"
#include "shim/shim.h"

CS_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    const cs_call c = {.coll = CS_COLL_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = sendcount,
                       .rcount = recvcount, .stype = sendtype, .rtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return cs_call_run(&c);
}

CS_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm)
{
    const cs_call c = {.coll = CS_COLL_ALLREDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = count,
                       .rcount = count, .stype = datatype, .rtype = datatype, .op = op, .comm = comm};
    return cs_call_run(&c);
}

CS_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                         MPI_Comm comm)
{
    const cs_call c = {.coll = CS_COLL_REDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf, .scount = count,
                       .rcount = count, .stype = datatype, .rtype = datatype, .op = op, .root = root, .comm = comm};
    return cs_call_run(&c);
}
