/*
 * Shared by the paired benchmarks: the start and end of one timing, the
 * median, and REPS paired repetitions of a timer, alternating which of the
 * two paths goes first.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <mpi.h>
#include <stdlib.h>

/* A timing starts with the ranks in step. */
static inline double bench_start(void)
{
    PMPI_Barrier(MPI_COMM_WORLD);
    return PMPI_Wtime();
}

/* Seconds per call of `calls` calls since t0, the slowest rank's. */
static inline double bench_per_call(double t0, int calls)
{
    double t = (PMPI_Wtime() - t0) / calls, slowest;
    PMPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* timer(0, ctx): the intercepted path; timer(1, ctx): the library's. */
static inline void bench_pairs(double (*timer)(int use_pmpi, void *ctx), void *ctx, int reps, double *shim, double *lib,
                               double *ratio)
{
    for (int i = 0; i < reps; i++) {
        const int lib_first = i % 2 == 0;
        if (lib_first)
            lib[i] = timer(1, ctx);
        shim[i] = timer(0, ctx);
        if (!lib_first)
            lib[i] = timer(1, ctx);
        ratio[i] = shim[i] / lib[i];
    }
}

#endif
