/*
 * Wrapping integer sums and products (sched/combine.h), on unsigned words
 * of the element's width: unsigned arithmetic in C wraps, and its bits are
 * those of the signed result in two's complement. Elements are read and
 * written with memcpy: a user's buffer need not be aligned to its type.
 */
#include <stdint.h>
#include <string.h>

#include "sched/combine.h"

/* One width: x = the operation of a and b in uintW_t. The products go
 * through unsigned int, so that uint8_t and uint16_t operands (promoted to
 * int) cannot overflow a signed int. */
#define CS_COMBINE_LOOP(type, expr)                                                                                    \
    do {                                                                                                               \
        for (size_t i = 0; i < count; i++) {                                                                           \
            type a, b;                                                                                                 \
            memcpy(&a, s + i * sizeof(type), sizeof(type));                                                            \
            memcpy(&b, d + i * sizeof(type), sizeof(type));                                                            \
            const type x = (type)(expr);                                                                               \
            memcpy(d + i * sizeof(type), &x, sizeof(type));                                                            \
        }                                                                                                              \
    } while (0)

#define CS_COMBINE_WIDTH(type)                                                                                         \
    do {                                                                                                               \
        if (sum)                                                                                                       \
            CS_COMBINE_LOOP(type, a + b);                                                                              \
        else if (sizeof(type) < sizeof(unsigned))                                                                      \
            CS_COMBINE_LOOP(type, (unsigned)a *(unsigned)b);                                                           \
        else                                                                                                           \
            CS_COMBINE_LOOP(type, a *b);                                                                               \
    } while (0)

int cs_combine_wrapping_fits(MPI_Op op, size_t width)
{
    return (op == MPI_SUM || op == MPI_PROD) && (width == 1 || width == 2 || width == 4 || width == 8);
}

int cs_combine_wrapping(MPI_Op op, size_t width, const void *src, void *dst, size_t count)
{
    const unsigned char *s = src;
    unsigned char *d = dst;
    const int sum = op == MPI_SUM;
    if (!cs_combine_wrapping_fits(op, width))
        return MPI_ERR_OP;
    switch (width) {
    case 1: CS_COMBINE_WIDTH(uint8_t); break;
    case 2: CS_COMBINE_WIDTH(uint16_t); break;
    case 4: CS_COMBINE_WIDTH(uint32_t); break;
    default: CS_COMBINE_WIDTH(uint64_t); break;
    }
    return MPI_SUCCESS;
}
