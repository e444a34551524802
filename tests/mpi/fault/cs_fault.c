/*
 * libcs_fault.so: fault injection for the MPI tests. Preloaded after collshim and before the MPI
 * library (LD_PRELOAD="libcollshim.so libcs_fault.so ..."), it takes the place of the PMPI
 * point-to-point calls collshim makes, passes them on to the library, and fails the k-th one when a
 * test asks. MPICH's own collectives do not call these symbols, and the test programs call MPI_*
 * (or PMPI_ collectives) themselves, so only collshim's calls are counted.
 *
 * A test arms it through dlsym(RTLD_DEFAULT, "cs_fault_arm"):
 *
 *   cs_fault_arm("isend", k, code)    the k-th PMPI_Isend from now returns code, posting nothing
 *   cs_fault_arm("irecv", k, code)    the same for PMPI_Irecv
 *   cs_fault_arm("waitall", k, code)  the k-th PMPI_Waitall completes its requests, returns code
 *   cs_fault_arm("pending", k, code)  the k-th PMPI_Waitall completes only its first request,
 *                                     returns MPI_ERR_IN_STATUS: code in the first status,
 *                                     MPI_ERR_PENDING in the others (still active)
 *   cs_fault_arm("reduce", k, code)   the k-th PMPI_Reduce_local returns code, reducing nothing
 *   cs_fault_arm(NULL, 0, 0)          disarms
 *
 * cs_fault_fired() says whether the armed fault has fired. One fault at a time, one thread.
 * cs_fault_posted() counts the PMPI_Isend and PMPI_Irecv calls passed on so far: whether
 * collshim's own algorithm ran a collective (tests/mpi/test_repeat.c).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define CS_FAULT_EXPORT __attribute__((visibility("default")))

typedef enum { FAULT_NONE, FAULT_ISEND, FAULT_IRECV, FAULT_WAITALL, FAULT_PENDING, FAULT_REDUCE } fault_kind;

static fault_kind armed;
static long countdown; /* calls of the armed kind left before the one that fails */
static int fault_code, fired;
static long posted; /* PMPI_Isend and PMPI_Irecv calls passed on */

CS_FAULT_EXPORT void cs_fault_arm(const char *what, long k, int code)
{
    static const struct {
        const char *name;
        fault_kind kind;
    } kinds[] = {{"isend", FAULT_ISEND},
                 {"irecv", FAULT_IRECV},
                 {"waitall", FAULT_WAITALL},
                 {"pending", FAULT_PENDING},
                 {"reduce", FAULT_REDUCE}};
    armed = FAULT_NONE;
    fired = 0;
    for (size_t i = 0; what && k > 0 && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(what, kinds[i].name) == 0)
            armed = kinds[i].kind;
    countdown = k;
    fault_code = code;
}

CS_FAULT_EXPORT int cs_fault_fired(void)
{
    return fired;
}

CS_FAULT_EXPORT long cs_fault_posted(void)
{
    return posted;
}

/* Does this call of kind fail? */
static int fault_now(fault_kind kind)
{
    if (armed != kind || --countdown > 0)
        return 0;
    armed = FAULT_NONE;
    fired = 1;
    return 1;
}

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

CS_FAULT_EXPORT int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                               MPI_Request *req)
{
    static int (*real)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real)
        real = next("PMPI_Isend");
    if (fault_now(FAULT_ISEND)) {
        *req = MPI_REQUEST_NULL;
        return fault_code;
    }
    posted++;
    return real(buf, count, type, dest, tag, comm, req);
}

CS_FAULT_EXPORT int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                               MPI_Request *req)
{
    static int (*real)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    if (!real)
        real = next("PMPI_Irecv");
    if (fault_now(FAULT_IRECV)) {
        *req = MPI_REQUEST_NULL;
        return fault_code;
    }
    posted++;
    return real(buf, count, type, source, tag, comm, req);
}

CS_FAULT_EXPORT int PMPI_Waitall(int n, MPI_Request reqs[], MPI_Status st[])
{
    static int (*real)(int, MPI_Request[], MPI_Status[]);
    static int (*wait)(MPI_Request *, MPI_Status *);
    if (!real) {
        real = next("PMPI_Waitall");
        wait = next("PMPI_Wait");
    }
    if (fault_now(FAULT_WAITALL)) {
        real(n, reqs, st);
        return fault_code;
    }
    if (n > 0 && st != MPI_STATUSES_IGNORE && fault_now(FAULT_PENDING)) {
        wait(&reqs[0], &st[0]);
        st[0].MPI_ERROR = fault_code;
        for (int i = 1; i < n; i++)
            st[i].MPI_ERROR = MPI_ERR_PENDING;
        return MPI_ERR_IN_STATUS;
    }
    return real(n, reqs, st);
}

CS_FAULT_EXPORT int PMPI_Reduce_local(const void *in, void *inout, int count, MPI_Datatype type, MPI_Op op)
{
    static int (*real)(const void *, void *, int, MPI_Datatype, MPI_Op);
    if (!real)
        real = next("PMPI_Reduce_local");
    if (fault_now(FAULT_REDUCE))
        return fault_code;
    return real(in, inout, count, type, op);
}
