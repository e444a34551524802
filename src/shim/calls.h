/*
 * The intercepted collectives as cs_calls (src/shim/calls.c), from the
 * arguments of the C entry points (src/shim/entry.c) and the Fortran ones
 * (src/shim/fortran.c): the one way into the shim's logic. Handles come as
 * words (cs_hword), so that this header needs no mpi.h.
 */
#ifndef CS_SHIM_CALLS_H
#define CS_SHIM_CALLS_H

#include "shim/abi.h"

int cs_calls_alltoall(const void *sendbuf, int sendcount, cs_hword sendtype, void *recvbuf, int recvcount,
                      cs_hword recvtype, cs_hword comm);
int cs_calls_allreduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, cs_hword comm);
int cs_calls_reduce(const void *sendbuf, void *recvbuf, int count, cs_hword datatype, cs_hword op, int root,
                    cs_hword comm);

#endif
