/*
 * The collectives collshim does not intercept, counted: the nonblocking and
 * persistent forms of the three (MPI_Iallreduce, MPI_Allreduce_init, ...)
 * and the library's other common collectives (MPI_Bcast, MPI_Allgather,
 * MPI_Barrier and their nonblocking forms). Each entry point adds one to its
 * counter (atomic: MPI_THREAD_MULTIPLE is safe; nothing allocated, nothing
 * formatted) and calls the library's PMPI_ function with the arguments
 * unchanged. At MPI_Finalize the counts go to the log and the summary
 * (cs_uncaught_report): a program whose collectives pass by the shim hears
 * so once.
 *
 * Persistent collectives are counted where they are made (MPI_*_init), not
 * per MPI_Start. Open MPI 4.1 has them as MPIX_*_init only (mpi-ext.h):
 * those are the names its build wraps; MPICH 4 has MPI_*_init. MPICH's
 * Fortran bindings call the C MPI_* functions, which count their calls;
 * Open MPI's call PMPI_* directly, so its build counts them in Fortran
 * entry points of their own (src/shim/fortran.c).
 *
 * The entry points take handles as words (cs_hword), as src/shim/entry.c
 * does, so that a build loaded into a program of the other MPI library
 * hands them, bit for bit, to that library's PMPI_ function
 * (src/shim/abi.c); this file includes mpi.h for the fitting build's calls,
 * so each entry point is a function of another C name given the MPI
 * symbol's name (an asm label). A build for neither MPICH nor Open MPI
 * (SimGrid's SMPI) defines none of them.
 */
#include <mpi.h>
#include <stddef.h>
#if defined(OPEN_MPI)
#include <mpi-ext.h> /* MPIX_*_init, where Open MPI has them (OMPI_HAVE_MPI_EXT_PCOLLREQ) */
#endif

#include "common.h"
#include "log/log.h"
#include "shim/abi.h"
#include "shim/uncaught.h"

#if defined(OPEN_MPI)
#define CS_NI_PERSISTENT(name) "MPIX_" name "_init"
#else
#define CS_NI_PERSISTENT(name) "MPI_" name "_init"
#endif

/* The names, in the order of the summary's section. */
static const char *const cs_uncaught_names[CS_UNCAUGHT_COUNT] = {
    [CS_NI_IALLREDUCE] = "MPI_Iallreduce",
    [CS_NI_IALLTOALL] = "MPI_Ialltoall",
    [CS_NI_IREDUCE] = "MPI_Ireduce",
    [CS_NI_ALLREDUCE_INIT] = CS_NI_PERSISTENT("Allreduce"),
    [CS_NI_ALLTOALL_INIT] = CS_NI_PERSISTENT("Alltoall"),
    [CS_NI_REDUCE_INIT] = CS_NI_PERSISTENT("Reduce"),
    [CS_NI_BCAST] = "MPI_Bcast",
    [CS_NI_IBCAST] = "MPI_Ibcast",
    [CS_NI_ALLGATHER] = "MPI_Allgather",
    [CS_NI_IALLGATHER] = "MPI_Iallgather",
    [CS_NI_BARRIER] = "MPI_Barrier",
    [CS_NI_IBARRIER] = "MPI_Ibarrier",
};

unsigned long long cs_uncaught_calls[CS_UNCAUGHT_COUNT];

const char *cs_uncaught_name(cs_uncaught which)
{
    return (unsigned)which < CS_UNCAUGHT_COUNT ? cs_uncaught_names[which] : NULL;
}

unsigned long long cs_uncaught_calls_of(cs_uncaught which)
{
    return (unsigned)which < CS_UNCAUGHT_COUNT ? __atomic_load_n(&cs_uncaught_calls[which], __ATOMIC_RELAXED) : 0;
}

void cs_uncaught_report(void)
{
    for (int i = 0; i < CS_UNCAUGHT_COUNT; i++) {
        const unsigned long long n = cs_uncaught_calls_of((cs_uncaught)i);
        if (n)
            cs_log_uncaught(cs_uncaught_names[i], n);
    }
}

#if defined(MPICH_VERSION) || defined(OPEN_MPI)

/*
 * CS_NI(which, symbol, pmpi, params, words, typed): the entry point of the
 * MPI function `symbol`, whose parameters are `params` (handles as words),
 * passed on as `words` to the program's own `pmpi` where this build does
 * not fit, else as `typed` to this build's `pmpi`.
 */
#define CS_NI(which, symbol, pmpi, params, words, typed)                                                               \
    typedef int cs_ni_fn_##which params;                                                                               \
    static CS_COLD int cs_ni_aside_##which params                                                                      \
    {                                                                                                                  \
        static void *slot;                                                                                             \
        cs_ni_fn_##which *next = (cs_ni_fn_##which *)cs_abi_next(#pmpi, &slot);                                        \
        return next ? next words : CS_ABI_NO_NEXT;                                                                     \
    }                                                                                                                  \
    CS_EXPORT int cs_ni_##which params __asm__(#symbol);                                                               \
    CS_EXPORT int cs_ni_##which params                                                                                 \
    {                                                                                                                  \
        cs_uncaught_add(which);                                                                                        \
        if (!cs_abi_fits() && cs_abi_aside())                                                                          \
            return cs_ni_aside_##which words;                                                                          \
        return pmpi typed;                                                                                             \
    }

#define T(h) ((MPI_Datatype)(h))
#define O(h) ((MPI_Op)(h))
#define C(h) ((MPI_Comm)(h))
#define I(h) ((MPI_Info)(h))
#define R(r) ((MPI_Request *)(r))

/* The nonblocking forms of the three. */
CS_NI(CS_NI_IALLREDUCE, MPI_Iallreduce, PMPI_Iallreduce,
      (const void *sb, void *rb, int n, cs_hword t, cs_hword o, cs_hword c, void *r), (sb, rb, n, t, o, c, r),
      (sb, rb, n, T(t), O(o), C(c), R(r)))
CS_NI(CS_NI_IALLTOALL, MPI_Ialltoall, PMPI_Ialltoall,
      (const void *sb, int sn, cs_hword st, void *rb, int rn, cs_hword rt, cs_hword c, void *r),
      (sb, sn, st, rb, rn, rt, c, r), (sb, sn, T(st), rb, rn, T(rt), C(c), R(r)))
CS_NI(CS_NI_IREDUCE, MPI_Ireduce, PMPI_Ireduce,
      (const void *sb, void *rb, int n, cs_hword t, cs_hword o, int root, cs_hword c, void *r),
      (sb, rb, n, t, o, root, c, r), (sb, rb, n, T(t), O(o), root, C(c), R(r)))

/* Their persistent forms: MPI 4.0's names, Open MPI 4.1's MPIX_ ones. */
#if defined(OPEN_MPI)
#define CS_NI_INIT(which, name, params, words, typed)                                                                  \
    CS_NI(which, MPIX_##name##_init, PMPIX_##name##_init, params, words, typed)
#else
#define CS_NI_INIT(which, name, params, words, typed)                                                                  \
    CS_NI(which, MPI_##name##_init, PMPI_##name##_init, params, words, typed)
#endif

#if defined(OPEN_MPI) ? defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) : MPI_VERSION >= 4
CS_NI_INIT(CS_NI_ALLREDUCE_INIT, Allreduce,
           (const void *sb, void *rb, int n, cs_hword t, cs_hword o, cs_hword c, cs_hword i, void *r),
           (sb, rb, n, t, o, c, i, r), (sb, rb, n, T(t), O(o), C(c), I(i), R(r)))
CS_NI_INIT(CS_NI_ALLTOALL_INIT, Alltoall,
           (const void *sb, int sn, cs_hword st, void *rb, int rn, cs_hword rt, cs_hword c, cs_hword i, void *r),
           (sb, sn, st, rb, rn, rt, c, i, r), (sb, sn, T(st), rb, rn, T(rt), C(c), I(i), R(r)))
CS_NI_INIT(CS_NI_REDUCE_INIT, Reduce,
           (const void *sb, void *rb, int n, cs_hword t, cs_hword o, int root, cs_hword c, cs_hword i, void *r),
           (sb, rb, n, t, o, root, c, i, r), (sb, rb, n, T(t), O(o), root, C(c), I(i), R(r)))
#endif

/* The library's other common collectives. */
CS_NI(CS_NI_BCAST, MPI_Bcast, PMPI_Bcast, (void *b, int n, cs_hword t, int root, cs_hword c), (b, n, t, root, c),
      (b, n, T(t), root, C(c)))
CS_NI(CS_NI_IBCAST, MPI_Ibcast, PMPI_Ibcast, (void *b, int n, cs_hword t, int root, cs_hword c, void *r),
      (b, n, t, root, c, r), (b, n, T(t), root, C(c), R(r)))
CS_NI(CS_NI_ALLGATHER, MPI_Allgather, PMPI_Allgather,
      (const void *sb, int sn, cs_hword st, void *rb, int rn, cs_hword rt, cs_hword c), (sb, sn, st, rb, rn, rt, c),
      (sb, sn, T(st), rb, rn, T(rt), C(c)))
CS_NI(CS_NI_IALLGATHER, MPI_Iallgather, PMPI_Iallgather,
      (const void *sb, int sn, cs_hword st, void *rb, int rn, cs_hword rt, cs_hword c, void *r),
      (sb, sn, st, rb, rn, rt, c, r), (sb, sn, T(st), rb, rn, T(rt), C(c), R(r)))
CS_NI(CS_NI_BARRIER, MPI_Barrier, PMPI_Barrier, (cs_hword c), (c), (C(c)))
CS_NI(CS_NI_IBARRIER, MPI_Ibarrier, PMPI_Ibarrier, (cs_hword c, void *r), (c, r), (C(c), R(r)))

#endif /* MPICH_VERSION || OPEN_MPI */
