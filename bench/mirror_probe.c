/*
 * One call of each collective collshim prices the library for, for
 * bench/run-openmpi-mirror: MPI_Allreduce and MPI_Reduce (root 0) of
 * BYTES / 8 doubles with MPI_SUM (as collshim-model --library prices them),
 * and MPI_Alltoall of BYTES bytes a block, on MPI_COMM_WORLD, in that order. A debugger's breakpoints on the
 * library's algorithms say which it ran.
 *     usage: mirror_probe BYTES
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int p;
    MPI_Init(&argc, &argv);
    const int n = argc > 1 ? atoi(argv[1]) : 8;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char *a = calloc((size_t)n * (size_t)p + 8, 1), *b = calloc((size_t)n * (size_t)p + 8, 1);
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Allreduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(a, b, n / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Alltoall(a, n, MPI_BYTE, b, n, MPI_BYTE, MPI_COMM_WORLD);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
