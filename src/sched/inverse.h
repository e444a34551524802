/*
 * The inverse operator (-) where the MPI operator (+) has one on the
 * datatype, exactly: MPI_SUM on the integer types (two's complement wraps,
 * so (a + b) - b == a for every bit pattern) and MPI_BXOR on the integer
 * types and MPI_BYTE (a ^ b ^ b == a). Both are commutative groups. No
 * inverse for MPI_PROD on integers (even numbers and zero have none modulo
 * 2^w), for floating point (rounding) or for MIN, MAX and user operators.
 */
#ifndef CS_INVERSE_H
#define CS_INVERSE_H

#include <mpi.h>
#include <stddef.h>

/* 1 if op has an exact inverse on the predefined type. */
int cs_inverse_exists(MPI_Op op, MPI_Datatype type);

/* dst[i] = dst[i] (-) src[i] for count elements; MPI_ERR_OP without an inverse. */
int cs_inverse_apply(MPI_Op op, MPI_Datatype type, const void *src, void *dst, size_t count);

#endif
