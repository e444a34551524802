/*
 * Linked into the SMPI build only (mk/smpi.mk), never into libcollshim.so: two answers of
 * SimGrid SMPI 3.32 that no MPI library gives, corrected where collshim's objects call them, so
 * that src/ compiles unchanged. -Wl,-Bsymbolic binds collshim's (and the benchmark's) calls of
 * these PMPI_* to the definitions here; they reach SMPI's through its MPI_* names, which
 * libsimgrid defines as its own entry points (the program is loaded RTLD_LOCAL, so libsimgrid
 * never sees these).
 */
#include <mpi.h>
#include <stdio.h>

/*
 * SMPI keeps MPI_COMM_WORLD's handler per rank once any rank sets one, and answers
 * MPI_ERRHANDLER_NULL on the ranks that have not: collshim's start-up (src/shim/args.c) saves and
 * restores the handler around its probe, and would restore NULL (refused), leaving
 * MPI_ERRORS_RETURN on every rank but the first. The unset handler is the default,
 * MPI_ERRORS_ARE_FATAL: set it, so that the answer holds a reference like any other.
 */
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    int rc = MPI_Comm_get_errhandler(comm, errhandler);
    if (rc == MPI_SUCCESS && *errhandler == MPI_ERRHANDLER_NULL) {
        rc = MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_get_errhandler(comm, errhandler);
    }
    return rc;
}

/*
 * SMPI calls a null function for the predefined handlers (MPI_ERRORS_RETURN and
 * MPI_ERRORS_ARE_FATAL: a segmentation fault); user handlers work. collshim reports its errors
 * through this call (src/shim/call.c, src/shim/window.c).
 */
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPI_Errhandler eh;
    int rc = PMPI_Comm_get_errhandler(comm, &eh);
    if (rc != MPI_SUCCESS)
        return rc;
    if (eh == MPI_ERRORS_RETURN) {
        MPI_Errhandler_free(&eh);
        return MPI_SUCCESS;
    }
    if (eh == MPI_ERRORS_ARE_FATAL) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Errhandler_free(&eh);
        if (MPI_Error_string(errorcode, text, &len) != MPI_SUCCESS)
            len = snprintf(text, sizeof text, "error %d", errorcode);
        fprintf(stderr, "MPI_ERRORS_ARE_FATAL: %.*s\n", len, text);
        fflush(stderr);
        return MPI_Abort(comm, errorcode);
    }
    MPI_Errhandler_free(&eh);
    return MPI_Comm_call_errhandler(comm, errorcode);
}
