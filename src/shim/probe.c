/*
 * The start-up probe of the MPI library's arithmetic (shim/probe.h). The
 * operands are pseudo-random bytes, the same on every rank and in every
 * run: every lane of every width meets carries, overflows and signs.
 * Errors must return to the caller (cs_args_probe_ops sets the handlers).
 */
#include <stdint.h>
#include <string.h>

#include "sched/combine.h"
#include "shim/probe.h"

enum { CS_PROBE_BYTES = CS_PROBE_COUNT * 8 };

/* Two operand vectors of CS_PROBE_BYTES bytes (a linear congruential
 * sequence, its high bytes), made once: the probe runs at start-up only. */
static const unsigned char *cs_probe_operands(int which)
{
    static unsigned char v[2][CS_PROBE_BYTES];
    static int made;
    if (!made) {
        uint32_t x = 12345u;
        for (size_t i = 0; i < CS_PROBE_BYTES; i++)
            for (int k = 0; k < 2; k++) {
                x = x * 1103515245u + 12345u;
                v[k][i] = (unsigned char)(x >> 24);
            }
        made = 1;
    }
    return v[which];
}

/* out = a (op) b by the library, on CS_PROBE_COUNT elements of type. */
static int cs_probe_library(MPI_Op op, MPI_Datatype type, const unsigned char *a, const unsigned char *b,
                            unsigned char *out)
{
    memcpy(out, b, CS_PROBE_BYTES);
    return PMPI_Reduce_local(a, out, CS_PROBE_COUNT, type, op) == MPI_SUCCESS ? 0 : -1;
}

int cs_probe_wraps(MPI_Op op, MPI_Datatype type, size_t width)
{
    const unsigned char *a = cs_probe_operands(0), *b = cs_probe_operands(1);
    unsigned char lib[CS_PROBE_BYTES], ours[CS_PROBE_BYTES];
    if (!cs_combine_wrapping_fits(op, width) || cs_probe_library(op, type, a, b, lib) != 0)
        return -1;
    memcpy(ours, b, CS_PROBE_COUNT * width);
    cs_combine_wrapping(op, width, a, ours, CS_PROBE_COUNT); /* ours = a (op) b */
    return memcmp(lib, ours, CS_PROBE_COUNT * width) == 0;
}

int cs_probe_same(MPI_Op op, MPI_Datatype t1, MPI_Datatype t2, size_t width)
{
    const unsigned char *a = cs_probe_operands(0), *b = cs_probe_operands(1);
    unsigned char r1[CS_PROBE_BYTES], r2[CS_PROBE_BYTES];
    if (cs_probe_library(op, t1, a, b, r1) != 0 || cs_probe_library(op, t2, a, b, r2) != 0)
        return -1;
    return memcmp(r1, r2, CS_PROBE_COUNT * width) == 0;
}
