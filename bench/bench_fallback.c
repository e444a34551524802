/*
 * A loop of 1-int MPI_Allreduce calls, for counting the instructions the
 * shim adds to a call it hands to the library:
 *     mpicc.mpich -O2 -o build/bench_fallback bench/bench_fallback.c
 *     COLLSHIM_ALLREDUCE=native LD_PRELOAD=build/mpich/libcollshim.so \
 *         mpiexec.mpich -n 2 valgrind --tool=callgrind build/bench_fallback
 * (README.md, Results: the instructions per call it measured).
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 1000;
    int x = 1, y;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < calls; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
