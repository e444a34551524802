/*
 * What the MPI library computes, asked once at start-up with a few
 * PMPI_Reduce_local calls on vectors long enough to reach its vector paths
 * (Open MPI's AVX operators take 32 or 64 bytes at a time).
 */
#ifndef CS_PROBE_H
#define CS_PROBE_H

#include <mpi.h>
#include <stddef.h>

/* Elements per probe: 2 KiB of 64-bit integers, 4 AVX-512 blocks of bytes. */
enum { CS_PROBE_COUNT = 256 };

/* Does the library's (op, type), op MPI_SUM or MPI_PROD on an integer type
 * of `width` bytes, wrap as C's integers do? 1 yes, 0 no (it computes the
 * pair wrongly), -1 the library refused it. */
int cs_probe_wraps(MPI_Op op, MPI_Datatype type, size_t width);

/* Does the library compute (op, a) as it computes (op, b), bit for bit, on
 * the same operands of `width` bytes? 1 yes, 0 no, -1 it refused either. */
int cs_probe_same(MPI_Op op, MPI_Datatype a, MPI_Datatype b, size_t width);

#endif
