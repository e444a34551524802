/*
 * Our own loop for the predefined operators that MPI defines as wrapping
 * integer arithmetic: MPI_SUM and MPI_PROD on the integer types, modulo
 * 2^w for a w-bit type. The bits of a two's-complement result are the same
 * for signed and unsigned operands, so the element's width is all the loop
 * needs. The executor takes it instead of PMPI_Reduce_local for a pair the
 * MPI library computes wrongly (Open MPI 4.1's AVX operators saturate
 * 8- and 16-bit sums: 100 + 100 as int8_t gives 127, not -56).
 */
#ifndef CS_COMBINE_H
#define CS_COMBINE_H

#include <mpi.h>
#include <stddef.h>

/* Can cs_combine_wrapping combine op on elements of `width` bytes? */
int cs_combine_wrapping_fits(MPI_Op op, size_t width);

/* dst[i] = src[i] (op) dst[i] for count elements of `width` bytes (1, 2, 4
 * or 8), op MPI_SUM or MPI_PROD, wrapping; MPI_ERR_OP otherwise. */
int cs_combine_wrapping(MPI_Op op, size_t width, const void *src, void *dst, size_t count);

#endif
