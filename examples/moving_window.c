/*
 * collshim's extension API (include/collshim.h): moving-window statistics of
 * a time series distributed across ranks.
 *
 * 1. One sample per rank (rank = time step): the moving maximum over the last
 *    4 steps (window n = 4, result at its right end, r = 3) and the centred
 *    moving sum over 5 steps (n = 5, r = 2), with collshim_window_reduce:
 *    ceil(log2 n) rounds of one message.
 * 2. A long series block-distributed, 1000 samples per rank: the same two
 *    windows for every sample with collshim_window_reduce_block, one boundary
 *    exchange with each neighbour.
 * Every result is checked against a direct computation. Exit status: 0 all
 * right; 1 a wrong result, or no collshim; 2 a collshim built for the other
 * MPI library (COLLSHIM_ERR_WRONG_BUILD: it computes nothing).
 *
 * Built against an installed collshim (make check-install does this), with
 * the pkg-config file of the program's MPI library:
 *   mpicc.mpich moving_window.c $(pkg-config --cflags --libs collshim-mpich)
 *   mpicc.openmpi moving_window.c $(pkg-config --cflags --libs collshim-openmpi)
 * or by `make demo` without linking the library, and run with it preloaded,
 * which provides the two functions:
 *   mpiexec.mpich -n 6 env LD_PRELOAD=build/mpich/libcollshim.so build/examples/moving_window
 * For the second way the functions are declared weak: the program checks
 * that they are there.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <collshim.h>

#pragma weak collshim_window_reduce
#pragma weak collshim_window_reduce_block

enum { SLICE = 1000 };

/* The series: a deterministic, bumpy signal of time t. */
static int sample(long t)
{
    return (int)((t * 7919 + (t * t) % 101) % 1000) - 500;
}

/* The reference: max or sum of samples lo..hi of the whole series (clipped). */
static int direct(long lo, long hi, long total, int want_max)
{
    lo = lo < 0 ? 0 : lo;
    hi = hi > total - 1 ? total - 1 : hi;
    int acc = sample(lo);
    for (long t = lo + 1; t <= hi; t++)
        acc = want_max ? (sample(t) > acc ? sample(t) : acc) : acc + sample(t);
    return acc;
}

int main(int argc, char **argv)
{
    int rank, p, bad = 0, total_bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (!collshim_window_reduce || !collshim_window_reduce_block) {
        if (rank == 0)
            fprintf(stderr, "moving_window: run with LD_PRELOAD=libcollshim.so\n");
        MPI_Finalize();
        return 1;
    }

    /* 1. One sample per rank. */
    const int x = sample(rank);
    int mmax = 0, msum = 0;
    const int n_max = 4 < p ? 4 : p, n_sum = 5 < p ? 5 : p;
    if (collshim_window_reduce(&x, &mmax, 1, MPI_INT, MPI_MAX, n_max, n_max - 1, MPI_COMM_WORLD) ==
        COLLSHIM_ERR_WRONG_BUILD) {
        if (rank == 0)
            fprintf(stderr, "moving_window: this libcollshim.so is built for another MPI library than the "
                            "program's: link or preload the one the collshim line above names\n");
        MPI_Finalize();
        return 2;
    }
    collshim_window_reduce(&x, &msum, 1, MPI_INT, MPI_SUM, n_sum, n_sum / 2, MPI_COMM_WORLD);
    bad += mmax != direct(rank - (n_max - 1), rank, p, 1);
    bad += msum != direct(rank - n_sum / 2, rank - n_sum / 2 + n_sum - 1, p, 0);
    printf("rank %d: sample %4d  max of last %d %4d  centred sum of %d %5d\n", rank, x, n_max, mmax, n_sum, msum);

    /* 2. SLICE samples per rank: t = rank * SLICE + i. */
    int *series = malloc(sizeof(int) * SLICE), *wmax = malloc(sizeof(int) * SLICE), *wsum = malloc(sizeof(int) * SLICE);
    for (int i = 0; i < SLICE; i++)
        series[i] = sample((long)rank * SLICE + i);
    collshim_window_reduce_block(series, wmax, SLICE, MPI_INT, MPI_MAX, 60, 59, MPI_COMM_WORLD);
    collshim_window_reduce_block(series, wsum, SLICE, MPI_INT, MPI_SUM, 25, 12, MPI_COMM_WORLD);
    for (int i = 0; i < SLICE; i++) {
        const long t = (long)rank * SLICE + i;
        bad += wmax[i] != direct(t - 59, t, (long)p * SLICE, 1);
        bad += wsum[i] != direct(t - 12, t + 12, (long)p * SLICE, 0);
    }
    free(series);
    free(wmax);
    free(wsum);

    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("moving_window: %s (%d wrong results)\n", total_bad ? "FAILED" : "all results right", total_bad);
    MPI_Finalize();
    return total_bad != 0;
}
