/*
 * Paired benchmark of allreduce rows on small vectors:
 * MPI_Allreduce through the shim, with the algorithm forced by the
 * environment (COLLSHIM_ALLREDUCE=windowed, elimination or butterfly, set by
 * bench/run-windowed), against the library's PMPI_Allreduce in the same run,
 * alternating; MPI_INT with MPI_SUM (exact, so "windowed" may run). The
 * report: median seconds per call of each and the median of the
 * per-repetition ratios, for 4 to 64 bytes. The first column is
 * COLLSHIM_ALLREDUCE as given: a forced row whose restrictions fail (e.g.
 * elimination at p a power of two) falls back to the shim's own choice.
 *
 * usage: mpiexec.mpich -n P env COLLSHIM_ALLREDUCE=windowed LD_PRELOAD=build/mpich/libcollshim.so
 *        bench_windowed [REPS [CALLS]]
 * With more ranks than cores, add build/libcs_yield.so to LD_PRELOAD (after
 * the shim): it slows both sides alike, so read the ratios, never compare the
 * times with runs without it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"

typedef struct bench_call {
    int ints, calls;
    int s[16], r[16];
} bench_call;

/* Seconds per call of `calls` calls, the slowest rank's. */
static double bench_time(int use_pmpi, void *ctx)
{
    bench_call *c = ctx;
    const double t0 = bench_start();
    for (int i = 0; i < c->calls; i++)
        (use_pmpi ? PMPI_Allreduce : MPI_Allreduce)(c->s, c->r, c->ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return bench_per_call(t0, c->calls);
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    const int reps = argc > 1 ? atoi(argv[1]) : 21;
    const char *alg = getenv("COLLSHIM_ALLREDUCE");
    double *shim = malloc(sizeof(double) * (size_t)reps), *lib = malloc(sizeof(double) * (size_t)reps);
    double *ratio = malloc(sizeof(double) * (size_t)reps);
    bench_call c = {.calls = argc > 2 ? atoi(argv[2]) : 200};
    for (int i = 0; i < 16; i++)
        c.s[i] = rank * 16 + i;

    for (int bytes = 4; bytes <= 64; bytes *= 2) {
        c.ints = bytes / 4;
        bench_time(0, &c); /* warm up both paths (contexts, schedules) */
        bench_time(1, &c);
        bench_pairs(bench_time, &c, reps, shim, lib, ratio);
        if (rank == 0)
            printf("%-11s %3d %6d %12.3e %12.3e %8.3f\n", alg ? alg : "auto", p, bytes, bench_median(shim, reps),
                   bench_median(lib, reps), bench_median(ratio, reps));
    }
    free(shim);
    free(lib);
    free(ratio);
    MPI_Finalize();
    return 0;
}
