/*
 * What the shim adds to a call it hands to the MPI library, in instructions
 * (callgrind counts instructions, not seconds: the same on a loaded machine).
 * A loop of CALLS 1-int calls of one collective (allreduce or reduce, MPI_SUM)
 * on MPI_COMM_WORLD, collected alone (after a warm-up call of each that makes
 * the communicator's context and its first decisions):
 *     valgrind --tool=callgrind --collect-atstart=no build/bench_native_path CALLS allreduce
 * The per-call figure is (all instructions collected - the library's
 * PMPI_Allreduce, inclusive - this loop's own) / CALLS, read off callgrind's
 * counts by bench/run-native-path, which runs it under each way a call can
 * end in the library (make bench-native-path). Counting the whole, not the
 * shim's MPI_Allreduce inclusive, holds where the shim's path ends in a jump
 * to the library (a tail call), which callgrind does not count as its own.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

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
    const int reduce = argc > 2 && strcmp(argv[2], "reduce") == 0;
    int x = 1, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* the context, the first decision */
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < calls; i++) {
        if (reduce)
            MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        else
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    CALLGRIND_TOGGLE_COLLECT;
    MPI_Finalize();
    return 0;
}
