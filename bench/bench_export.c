/*
 * bench_export: the time of MPI_<coll> per size, as the process runs it
 * (the library's default, the library under a tuning file, or collshim
 * preloaded: bench/run-export launches each). Per size: a warm-up, then
 * REPS timings of CALLS calls each, each timing the slowest rank's; prints
 * "COLL BYTES SECONDS" with the median seconds per call.
 *
 * usage: bench_export COLL [REPS [MAXBYTES]]   (allreduce and reduce: doubles,
 *        MPI_SUM, reduce to rank 0; alltoall: bytes per destination; sizes 8 B
 *        to MAXBYTES, default 1 MiB, every factor 4)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"

static void bench_call(const char *coll, void *s, void *r, size_t bytes)
{
    if (!strcmp(coll, "alltoall"))
        MPI_Alltoall(s, (int)bytes, MPI_BYTE, r, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce"))
        MPI_Reduce(s, r, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    else
        MPI_Allreduce(s, r, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *coll = argc > 1 ? argv[1] : "allreduce";
    const int reps = argc > 2 ? atoi(argv[2]) : 11;
    const size_t maxbytes = argc > 3 ? strtoul(argv[3], NULL, 10) : 1 << 20;
    const size_t scale = strcmp(coll, "alltoall") ? 1 : (size_t)p;
    char *s = calloc(maxbytes * scale, 1), *r = calloc(maxbytes * scale, 1);
    double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
    for (size_t bytes = 8; bytes <= maxbytes; bytes *= 4) {
        const int calls = bytes <= 4096 ? 200 : bytes <= 65536 ? 50 : 10;
        bench_call(coll, s, r, bytes);
        for (int k = 0; k < reps; k++) {
            const double t0 = bench_start();
            for (int c = 0; c < calls; c++)
                bench_call(coll, s, r, bytes);
            t[k] = bench_per_call(t0, calls);
        }
        if (!rank)
            printf("%s %zu %.4e\n", coll, bytes, bench_median(t, reps));
    }
    free(s);
    free(r);
    free(t);
    MPI_Finalize();
    return 0;
}
