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
 * runs once. The profiling names (pmpi_*) stay the library's.
 *
 * All these names take the same arguments: buffers by address (mpi_f08
 * passes its "ignore TKR" buffers so too), every other argument by
 * reference, mpi_f08's handles as their one integer, and an ierror that
 * mpi_f08 may leave out (NULL). MPICH's Fortran bindings call the C MPI_*
 * functions, so the MPICH build has none of this (an empty file there).
 */
#include <mpi.h>

#if defined(OPEN_MPI)

#include "common.h"
#include "shim/calls.h"

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

typedef void cs_f_alltoall_fn(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                              MPI_Fint *);
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
    cs_f_ierr(ierr, cs_calls_alltoall(cs_f_send(sb), *sc, CS_F_TYPE(st), cs_f_recv(rb), *rc, CS_F_TYPE(rt),
                                      CS_F_COMM(comm)));
}

static void cs_f_allreduce(const char *name, void **slot, void *sb, void *rb, MPI_Fint *count, MPI_Fint *type,
                           MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    CS_F_ASIDE(cs_f_allreduce_fn, name, slot, ierr, sb, rb, count, type, op, comm, ierr)
    cs_f_ierr(ierr, cs_calls_allreduce(cs_f_send(sb), cs_f_recv(rb), *count, CS_F_TYPE(type), CS_F_OP(op),
                                       CS_F_COMM(comm)));
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
    CS_EXPORT void name(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm,   \
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

#endif /* OPEN_MPI */
