/*
 * The inverse operator of sched/inverse.h: subtraction modulo 2^w on the
 * integer types (by width, on unsigned words: the same bits as the signed
 * wrap), exclusive or on bytes.
 */
#include <stdint.h>
#include <string.h>

#include "sched/inverse.h"

static int cs_inverse_integer(MPI_Datatype type)
{
    const MPI_Datatype ints[] = {
        MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,         MPI_UNSIGNED_SHORT, MPI_INT,
        MPI_UNSIGNED,    MPI_LONG,          MPI_UNSIGNED_LONG, MPI_LONG_LONG,      MPI_UNSIGNED_LONG_LONG,
        MPI_INT8_T,      MPI_INT16_T,       MPI_INT32_T,       MPI_INT64_T,        MPI_UINT8_T,
        MPI_UINT16_T,    MPI_UINT32_T,      MPI_UINT64_T,      MPI_AINT,           MPI_OFFSET,
        MPI_COUNT,       MPI_INTEGER};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (type == ints[i])
            return 1;
    return 0;
}

int cs_inverse_exists(MPI_Op op, MPI_Datatype type)
{
    if (op == MPI_SUM)
        return cs_inverse_integer(type);
    if (op == MPI_BXOR)
        return type == MPI_BYTE || cs_inverse_integer(type);
    return 0;
}

#define CS_INVERSE_SUB(bits)                                                                                           \
    for (size_t i = 0; i < count; i++) {                                                                               \
        uint##bits##_t a, b;                                                                                           \
        memcpy(&a, d + i * sizeof a, sizeof a);                                                                        \
        memcpy(&b, s + i * sizeof b, sizeof b);                                                                        \
        a = (uint##bits##_t)(a - b);                                                                                   \
        memcpy(d + i * sizeof a, &a, sizeof a);                                                                        \
    }

int cs_inverse_apply(MPI_Op op, MPI_Datatype type, const void *src, void *dst, size_t count)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    int size = 0;
    if (!cs_inverse_exists(op, type) || PMPI_Type_size(type, &size) != MPI_SUCCESS)
        return MPI_ERR_OP;
    if (op == MPI_BXOR) {
        for (size_t i = 0; i < count * (size_t)size; i++)
            d[i] ^= s[i];
        return MPI_SUCCESS;
    }
    switch (size) {
    case 1: CS_INVERSE_SUB(8) break;
    case 2: CS_INVERSE_SUB(16) break;
    case 4: CS_INVERSE_SUB(32) break;
    case 8: CS_INVERSE_SUB(64) break;
    default: return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}
