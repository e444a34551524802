/*
 * collshim: a PMPI shim for MPI_Alltoall, MPI_Allreduce and MPI_Reduce.
 *
 * Programs need nothing from this header to be accelerated: preload
 * libcollshim.so. The header carries the version and, as they land, the
 * extension API (windowed reduction across ranks).
 */
#ifndef COLLSHIM_H
#define COLLSHIM_H

#define COLLSHIM_VERSION_MAJOR 0
#define COLLSHIM_VERSION_MINOR 1

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What both functions return, doing nothing else, when the libcollshim.so
 * the program runs with is built for another MPI library than the
 * program's (the MPICH build in an Open MPI program, or the reverse): that
 * build cannot read the program's handles. Its one line on stderr names the
 * build to link or preload instead (pkg-config collshim-mpich or
 * collshim-openmpi). Not an MPI error code: comm's error handler is not
 * called.
 */
#define COLLSHIM_ERR_WRONG_BUILD (-1)

/*
 * Windowed reduction across ranks (simultaneous parallel reduction,
 * Szymanski, Maniatty and Sinharoy 1995). Collective over comm, an
 * intracommunicator of p processes; every rank passes the same count,
 * datatype, op, n and r. Rank i gets in recvbuf the reduction, in rank
 * order, of the sendbufs of ranks max(0, i - r) .. min(i - r + n - 1, p - 1):
 * a window of n ranks, rank i at offset r in it, clipped at both ends.
 * op may be any associative operator, commutative or not; the datatype must
 * be contiguous (MPI_ERR_TYPE otherwise). sendbuf may be MPI_IN_PLACE.
 * Recursive combination (ceil(log2 n) rounds of one message per rank) or
 * prefix-suffix (ceil(log2 n) + 1 rounds of one vector per message), the
 * cheaper under the machine model; the configuration's window.method
 * (COLLSHIM_WINDOW_METHOD) can fix the method.
 * Errors (1 <= n <= p, 0 <= r < n, count >= 0) go to comm's error handler
 * and are returned.
 */
int collshim_window_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int n,
                           int r, MPI_Comm comm);

/*
 * The same over a 1-D array block-distributed in rank order: every rank
 * holds count consecutive elements (the same count on every rank), and
 * element x of the global array gets the reduction of elements
 * max(0, x - r) .. min(x - r + n - 1, N - 1), N = p * count. One boundary
 * exchange with each neighbour (r and n - 1 - r elements), then prefix and
 * suffix reductions over sections of n elements (§3.2, scalable case):
 * about 3 combining steps per element; 2 for operators with an exact
 * inverse (MPI_SUM on integer types, MPI_BXOR), by prefix differences. Needs r <= count and
 * n - 1 - r <= count when p > 1 (MPI_ERR_COUNT otherwise); no MPI_IN_PLACE.
 */
int collshim_window_reduce_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int n,
                                 int r, MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif
