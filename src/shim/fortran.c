/*
 * Fortran entry points, for the Open MPI build only. Open MPI's Fortran
 * bindings (mpif.h and `use mpi`: libmpi_mpifh; `use mpi_f08`:
 * libmpi_usempif08, which calls libmpi_mpifh's ompi_*_f) call PMPI_*
 * directly, so a Fortran program never reaches the C MPI_* symbols. Here
 * every name those libraries export for the three collectives (each Fortran
 * name mangling, Open MPI's MPI_*_f and MPI_*_f08 aliases, and mpi_f08's
 * mpi_*_f08_) becomes a function that converts the Fortran handles with the
 * f2c functions, resolves Fortran's MPI_IN_PLACE and MPI_BOTTOM, and enters
 * the shim where the C entry points do (src/shim/calls.c): the shim's logic
 * runs once. The profiling names (pmpi_*) stay the library's. The same
 * names of the collectives the shim does not intercept are counted and go to
 * their pmpi_* (src/shim/uncaught.c), and those of MPI_Init and
 * MPI_Init_thread start the shim after the library's.
 *
 * All these names take the same arguments: buffers by address (mpi_f08
 * passes its "ignore TKR" buffers so too), every other argument by
 * reference, mpi_f08's handles as their one integer, and an ierror that
 * mpi_f08 may leave out (NULL). MPICH's Fortran bindings call the C MPI_*
 * functions, so the MPICH build has none of this (an empty file there).
 */
#include <mpi.h>

#if defined(OPEN_MPI)

#include <mpi-ext.h> /* OMPI_HAVE_MPI_EXT_PCOLLREQ: Open MPI's MPIX_*_init */

#include "common.h"
#include "shim/args.h"
#include "shim/calls.h"
#include "shim/shim.h"
#include "shim/uncaught.h"

/* Fortran's MPI_IN_PLACE and MPI_BOTTOM: the address of a common block,
 * named as the Fortran compiler mangles it (Open MPI's constants.h tests
 * the same four names). Weak: only the mangling in use is defined. */
#define CS_F_CONST(lower, upper)                                                                                       \
    extern int upper __attribute__((weak)), lower __attribute__((weak)), lower##_ __attribute__((weak)),               \
        lower##__ __attribute__((weak));                                                                               \
    static int cs_f_is_##lower(const void *addr)                                                                       \
    {                                                                                                                  \
        return addr && (addr == &upper || addr == &lower || addr == &lower##_ || addr == &lower##__);                  \
    }
CS_F_CONST(mpi_fortran_in_place, MPI_FORTRAN_IN_PLACE)
CS_F_CONST(mpi_fortran_bottom, MPI_FORTRAN_BOTTOM)

static const void *cs_f_send(const void *buf)
{
    return cs_f_is_mpi_fortran_in_place(buf) ? MPI_IN_PLACE : cs_f_is_mpi_fortran_bottom(buf) ? MPI_BOTTOM : buf;
}

static void *cs_f_recv(void *buf)
{
    return cs_f_is_mpi_fortran_bottom(buf) ? MPI_BOTTOM : buf;
}

static void cs_f_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

#define CS_F_TYPE(f) ((cs_hword)PMPI_Type_f2c(*(f)))
#define CS_F_OP(f) ((cs_hword)PMPI_Op_f2c(*(f)))
#define CS_F_COMM(f) ((cs_hword)PMPI_Comm_f2c(*(f)))

typedef void cs_f_alltoall_fn(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void cs_f_allreduce_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void cs_f_reduce_fn(void *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* In a program of another library (src/shim/abi.c): its function of the
 * same name, or an error if it has none. */
#define CS_F_ASIDE(fn_type, name, slot, ierr, ...)                                                                     \
    if (cs_abi_aside()) {                                                                                              \
        fn_type *next = (fn_type *)cs_abi_next(name, slot);                                                            \
        if (next)                                                                                                      \
            next(__VA_ARGS__);                                                                                         \
        else                                                                                                           \
            cs_f_ierr(ierr, CS_ABI_NO_NEXT);                                                                           \
        return;                                                                                                        \
    }

static void cs_f_alltoall(const char *name, void **slot, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
                          MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    CS_F_ASIDE(cs_f_alltoall_fn, name, slot, ierr, sb, sc, st, rb, rc, rt, comm, ierr)
    cs_f_ierr(ierr,
              cs_calls_alltoall(cs_f_send(sb), *sc, CS_F_TYPE(st), cs_f_recv(rb), *rc, CS_F_TYPE(rt), CS_F_COMM(comm)));
}

static void cs_f_allreduce(const char *name, void **slot, void *sb, void *rb, MPI_Fint *count, MPI_Fint *type,
                           MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    CS_F_ASIDE(cs_f_allreduce_fn, name, slot, ierr, sb, rb, count, type, op, comm, ierr)
    cs_f_ierr(ierr,
              cs_calls_allreduce(cs_f_send(sb), cs_f_recv(rb), *count, CS_F_TYPE(type), CS_F_OP(op), CS_F_COMM(comm)));
}

static void cs_f_reduce(const char *name, void **slot, void *sb, void *rb, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    CS_F_ASIDE(cs_f_reduce_fn, name, slot, ierr, sb, rb, count, type, op, root, comm, ierr)
    cs_f_ierr(ierr, cs_calls_reduce(cs_f_send(sb), cs_f_recv(rb), *count, CS_F_TYPE(type), CS_F_OP(op), *root,
                                    CS_F_COMM(comm)));
}

/* The one list of names: X(name) for each name Open MPI 4.1's Fortran
 * libraries export for a collective (`nm -D libmpi_mpifh.so.40
 * libmpi_usempif08.so.40`), pmpi_* left out. */
#define CS_F_NAMES(X, lower, upper, mixed)                                                                             \
    X(lower) X(lower##_) X(lower##__) X(upper) X(mixed##_f) X(mixed##_f08) X(lower##_f08_)

#define CS_F_ALLTOALL(name)                                                                                            \
    CS_EXPORT void name(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm,    \
                        MPI_Fint *ierr)                                                                                \
    {                                                                                                                  \
        static void *slot;                                                                                             \
        cs_f_alltoall(#name, &slot, sb, sc, st, rb, rc, rt, comm, ierr);                                               \
    }
#define CS_F_ALLREDUCE(name)                                                                                           \
    CS_EXPORT void name(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,             \
                        MPI_Fint *ierr)                                                                                \
    {                                                                                                                  \
        static void *slot;                                                                                             \
        cs_f_allreduce(#name, &slot, sb, rb, count, type, op, comm, ierr);                                             \
    }
#define CS_F_REDUCE(name)                                                                                              \
    CS_EXPORT void name(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *root,             \
                        MPI_Fint *comm, MPI_Fint *ierr)                                                                \
    {                                                                                                                  \
        static void *slot;                                                                                             \
        cs_f_reduce(#name, &slot, sb, rb, count, type, op, root, comm, ierr);                                          \
    }

CS_F_NAMES(CS_F_ALLTOALL, mpi_alltoall, MPI_ALLTOALL, MPI_Alltoall)
CS_F_NAMES(CS_F_ALLREDUCE, mpi_allreduce, MPI_ALLREDUCE, MPI_Allreduce)
CS_F_NAMES(CS_F_REDUCE, mpi_reduce, MPI_REDUCE, MPI_Reduce)

/*
 * The collectives not intercepted (src/shim/uncaught.c), counted in Fortran
 * too: each name of each one (the same manglings as above) adds to the C
 * function's count and calls the library's profiling name of its own
 * (pmpi_iallreduce_ for mpi_iallreduce_, PMPI_Iallreduce_f08 for
 * MPI_Iallreduce_f08, ...) with the arguments unchanged: every argument is
 * an address, the handles are not converted. In a program of another
 * library, its function of the same name, as above.
 */
static void *cs_f_ni_next(const char *name, const char *pname, void **slot, void **pslot)
{
    return cs_abi_aside() ? cs_abi_next(name, slot) : cs_abi_next(pname, pslot);
}

/* Up to 10 arguments, the last an ierror (NULL where mpi_f08 leaves it out). */
#define CS_F_A2 void *a, void *ierr
#define CS_F_A3 void *a, void *b, void *ierr
#define CS_F_A6 void *a, void *b, void *c, void *d, void *e, void *ierr
#define CS_F_A7 void *a, void *b, void *c, void *d, void *e, void *f, void *ierr
#define CS_F_A8 void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *ierr
#define CS_F_A9 void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *ierr
#define CS_F_A10 void *a, void *b, void *c, void *d, void *e, void *f, void *g, void *h, void *i, void *ierr
#define CS_F_V2 a, ierr
#define CS_F_V3 a, b, ierr
#define CS_F_V6 a, b, c, d, e, ierr
#define CS_F_V7 a, b, c, d, e, f, ierr
#define CS_F_V8 a, b, c, d, e, f, g, ierr
#define CS_F_V9 a, b, c, d, e, f, g, h, ierr
#define CS_F_V10 a, b, c, d, e, f, g, h, i, ierr

/* name with n arguments: counted, then the library's profiling name. */
#define CS_F_NI(name, which, n)                                                                                        \
    CS_EXPORT void name(CS_F_A##n)                                                                                     \
    {                                                                                                                  \
        static void *slot, *pslot;                                                                                     \
        typedef void fn_t(CS_F_A##n);                                                                                  \
        cs_uncaught_add(which);                                                                                        \
        fn_t *next = (fn_t *)cs_f_ni_next(#name, (#name)[0] == 'M' ? "P" #name : "p" #name, &slot, &pslot);            \
        if (next)                                                                                                      \
            next(CS_F_V##n);                                                                                           \
        else                                                                                                           \
            cs_f_ierr(ierr, CS_ABI_NO_NEXT);                                                                           \
    }
#define CS_F_NI_NAMES(lower, upper, mixed, which, n)                                                                   \
    CS_F_NI(lower, which, n)                                                                                           \
    CS_F_NI(lower##_, which, n)                                                                                        \
    CS_F_NI(lower##__, which, n)                                                                                       \
    CS_F_NI(upper, which, n)                                                                                           \
    CS_F_NI(mixed##_f, which, n)                                                                                       \
    CS_F_NI(mixed##_f08, which, n)                                                                                     \
    CS_F_NI(lower##_f08_, which, n)

/* MPI_Init and MPI_Init_thread from Fortran (Open MPI's bindings call
 * PMPI_Init): the library's, then the shim starts as from C, every rank
 * there, so that a program whose collectives all pass by it still has its
 * summary and log. */
typedef void cs_f_init_fn(MPI_Fint *);
typedef void cs_f_init_thread_fn(MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void cs_f_started(void)
{
    int up = 0;
    if (cs_abi_aside() || PMPI_Initialized(&up) != MPI_SUCCESS || !up)
        return;
    cs_shim_ensure();
    cs_args_probe_agree(MPI_COMM_WORLD);
}

#define CS_F_INIT(name)                                                                                                \
    CS_EXPORT void name(MPI_Fint *ierr)                                                                                \
    {                                                                                                                  \
        static void *slot, *pslot;                                                                                     \
        cs_f_init_fn *next =                                                                                           \
            (cs_f_init_fn *)cs_f_ni_next(#name, (#name)[0] == 'M' ? "P" #name : "p" #name, &slot, &pslot);             \
        if (next)                                                                                                      \
            next(ierr);                                                                                                \
        else                                                                                                           \
            cs_f_ierr(ierr, CS_ABI_NO_NEXT);                                                                           \
        cs_f_started();                                                                                                \
    }
#define CS_F_INIT_THREAD(name)                                                                                         \
    CS_EXPORT void name(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)                                        \
    {                                                                                                                  \
        static void *slot, *pslot;                                                                                     \
        cs_f_init_thread_fn *next =                                                                                    \
            (cs_f_init_thread_fn *)cs_f_ni_next(#name, (#name)[0] == 'M' ? "P" #name : "p" #name, &slot, &pslot);      \
        if (next)                                                                                                      \
            next(required, provided, ierr);                                                                            \
        else                                                                                                           \
            cs_f_ierr(ierr, CS_ABI_NO_NEXT);                                                                           \
        cs_f_started();                                                                                                \
    }
CS_F_NAMES(CS_F_INIT, mpi_init, MPI_INIT, MPI_Init)
CS_F_NAMES(CS_F_INIT_THREAD, mpi_init_thread, MPI_INIT_THREAD, MPI_Init_thread)

CS_F_NI_NAMES(mpi_iallreduce, MPI_IALLREDUCE, MPI_Iallreduce, CS_NI_IALLREDUCE, 8)
CS_F_NI_NAMES(mpi_ialltoall, MPI_IALLTOALL, MPI_Ialltoall, CS_NI_IALLTOALL, 9)
CS_F_NI_NAMES(mpi_ireduce, MPI_IREDUCE, MPI_Ireduce, CS_NI_IREDUCE, 9)
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
CS_F_NI_NAMES(mpix_allreduce_init, MPIX_ALLREDUCE_INIT, MPIX_Allreduce_init, CS_NI_ALLREDUCE_INIT, 9)
CS_F_NI_NAMES(mpix_alltoall_init, MPIX_ALLTOALL_INIT, MPIX_Alltoall_init, CS_NI_ALLTOALL_INIT, 10)
CS_F_NI_NAMES(mpix_reduce_init, MPIX_REDUCE_INIT, MPIX_Reduce_init, CS_NI_REDUCE_INIT, 10)
#endif
CS_F_NI_NAMES(mpi_bcast, MPI_BCAST, MPI_Bcast, CS_NI_BCAST, 6)
CS_F_NI_NAMES(mpi_ibcast, MPI_IBCAST, MPI_Ibcast, CS_NI_IBCAST, 7)
CS_F_NI_NAMES(mpi_allgather, MPI_ALLGATHER, MPI_Allgather, CS_NI_ALLGATHER, 8)
CS_F_NI_NAMES(mpi_iallgather, MPI_IALLGATHER, MPI_Iallgather, CS_NI_IALLGATHER, 9)
CS_F_NI_NAMES(mpi_barrier, MPI_BARRIER, MPI_Barrier, CS_NI_BARRIER, 2)
CS_F_NI_NAMES(mpi_ibarrier, MPI_IBARRIER, MPI_Ibarrier, CS_NI_IBARRIER, 3)

#endif /* OPEN_MPI */
