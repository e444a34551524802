/*
 * The collectives collshim does not intercept, counted (src/shim/uncaught.c).
 */
#ifndef CS_SHIM_UNCAUGHT_H
#define CS_SHIM_UNCAUGHT_H

typedef enum cs_uncaught {
    CS_NI_IALLREDUCE,
    CS_NI_IALLTOALL,
    CS_NI_IREDUCE,
    CS_NI_ALLREDUCE_INIT,
    CS_NI_ALLTOALL_INIT,
    CS_NI_REDUCE_INIT,
    CS_NI_BCAST,
    CS_NI_IBCAST,
    CS_NI_ALLGATHER,
    CS_NI_IALLGATHER,
    CS_NI_BARRIER,
    CS_NI_IBARRIER,
    CS_UNCAUGHT_COUNT
} cs_uncaught;

/* The calls so far, per function (C and, in the Open MPI build, Fortran). */
extern unsigned long long cs_uncaught_calls[CS_UNCAUGHT_COUNT];

/* One more call: atomic, so that MPI_THREAD_MULTIPLE is safe. */
static inline void cs_uncaught_add(cs_uncaught which)
{
    __atomic_fetch_add(&cs_uncaught_calls[which], 1, __ATOMIC_RELAXED);
}

/* "MPI_Iallreduce", "MPIX_Allreduce_init" (the Open MPI build): the name the
 * program called. */
const char *cs_uncaught_name(cs_uncaught which);

/* This process's calls so far. */
unsigned long long cs_uncaught_calls_of(cs_uncaught which);

/* Hand every count that is not zero to the log (cs_log_uncaught), before
 * cs_log_finalize. */
void cs_uncaught_report(void);

#endif
