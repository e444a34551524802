/*
 * What the shim adds to a call it hands to the MPI library, in instructions
 * (callgrind counts instructions, not seconds: the same on a loaded machine).
 * A loop of CALLS 1-int MPI_Allreduce and MPI_Reduce calls on MPI_COMM_WORLD,
 * collected alone (after a warm-up call that makes the communicator's context):
 *     valgrind --tool=callgrind --collect-atstart=no build/bench_native_path CALLS
 * The per-call figure is (the shim's MPI_Allreduce - PMPI_Allreduce) / CALLS,
 * read off callgrind's inclusive counts by scripts/collshim-bench-native-path,
 * which runs it under each way a call can end in the library (make
 * bench-native-path).
 */
#include <mpi.h>
#include <stdlib.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_TOGGLE_COLLECT
#endif

int main(int argc, char **argv)
{
    const int calls = argc > 1 ? atoi(argv[1]) : 1000;
    int x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* the context, the first decision */
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < calls; i++) {
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    CALLGRIND_TOGGLE_COLLECT;
    MPI_Finalize();
    return 0;
}
