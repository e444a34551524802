/*
 * Paired benchmark: the intercepted MPI_<coll> (whatever collshim decides)
 * against the library's PMPI_<coll>, side by side in one run. Each repetition
 * times K calls of each, in alternating order; the report gives the median
 * time per call of each and the median of the per-repetition ratios.
 *
 * usage: mpiexec.mpich -n P env LD_PRELOAD=build/mpich/libcollshim.so bench_pair COLL [REPS [CALLS [MAXBYTES [STEP]]]]
 *   COLL: allreduce | allreduce-long | reduce | alltoall (allreduce-long: MPI_LONG, an exact
 *   operator's sum, where allreduce sums MPI_DOUBLE); CALLS: calls per timing (default by size);
 *   sizes from 8 bytes to MAXBYTES (default 4 MiB), each STEP times the last (default 8)
 * Never run with the test suite's yield wrapper: it changes timing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

typedef int (*coll_fn)(int use_pmpi, void *s, void *r, int count);

static int run_allreduce(int use_pmpi, void *s, void *r, int n)
{
    return (use_pmpi ? PMPI_Allreduce : MPI_Allreduce)(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

static int run_allreduce_long(int use_pmpi, void *s, void *r, int n)
{
    return (use_pmpi ? PMPI_Allreduce : MPI_Allreduce)(s, r, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static int run_reduce(int use_pmpi, void *s, void *r, int n)
{
    return (use_pmpi ? PMPI_Reduce : MPI_Reduce)(s, r, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}

static int run_alltoall(int use_pmpi, void *s, void *r, int n)
{
    return (use_pmpi ? PMPI_Alltoall : MPI_Alltoall)(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD);
}

/* One timing: k calls of f with n elements. */
typedef struct bench_call {
    coll_fn f;
    void *s, *r;
    int n, k;
} bench_call;

/* Seconds per call of k calls, the slowest rank's. */
static double time_calls(int use_pmpi, void *ctx)
{
    const bench_call *c = ctx;
    const double t0 = bench_start();
    for (int i = 0; i < c->k; i++)
        c->f(use_pmpi, c->s, c->r, c->n);
    return bench_per_call(t0, c->k);
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *coll = argc > 1 ? argv[1] : "allreduce";
    const int reps = argc > 2 ? atoi(argv[2]) : 21, calls = argc > 3 ? atoi(argv[3]) : 0;
    coll_fn f = !strcmp(coll, "reduce")           ? run_reduce
                : !strcmp(coll, "alltoall")       ? run_alltoall
                : !strcmp(coll, "allreduce-long") ? run_allreduce_long
                                                  : run_allreduce;
    const int blocks = f == run_alltoall ? p : 1;
    const int elem = f == run_alltoall ? 1 : f == run_allreduce_long ? (int)sizeof(long) : (int)sizeof(double);
    const size_t max_bytes = argc > 4 ? (size_t)atoll(argv[4]) : (size_t)1 << 22;
    const size_t step = argc > 5 && atoi(argv[5]) > 1 ? (size_t)atoi(argv[5]) : 8;
    char *s = malloc(max_bytes * (size_t)blocks), *r = malloc(max_bytes * (size_t)blocks);
    memset(s, 1, max_bytes * (size_t)blocks);
    double *shim = malloc(sizeof(double) * reps), *lib = malloc(sizeof(double) * reps);
    double *ratio = malloc(sizeof(double) * reps);

    if (rank == 0)
        printf("%-9s %3s %10s %12s %12s %12s\n", "coll", "p", "bytes", "shim_s", "native_s", "shim/native");
    for (size_t bytes = 8; bytes <= max_bytes; bytes *= step) {
        const int n = (int)(bytes / elem);
        const int k = calls > 0 ? calls : bytes <= 4096 ? 200 : bytes <= 262144 ? 20 : 4;
        bench_call call = {.f = f, .s = s, .r = r, .n = n, .k = k};
        time_calls(0, &call); /* warm up both paths (contexts, caches) */
        time_calls(1, &call);
        bench_pairs(time_calls, &call, reps, shim, lib, ratio);
        if (rank == 0)
            printf("%-9s %3d %10zu %12.3e %12.3e %12.3f\n", coll, p, bytes, bench_median(shim, reps),
                   bench_median(lib, reps), bench_median(ratio, reps));
    }
    free(s);
    free(r);
    free(shim);
    free(lib);
    free(ratio);
    MPI_Finalize();
    return 0;
}
