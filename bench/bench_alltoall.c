/*
 * Paired alltoall benchmark: the intercepted MPI_Alltoall (the algorithm
 * COLLSHIM_ALLTOALL forces, or whatever collshim decides) against the
 * library's PMPI_Alltoall, in one run, on MPI_COMM_WORLD, blocks of 8 B to
 * 1 MiB of MPI_BYTE. Each repetition times K calls of each in alternating
 * order; the report gives the medians per call, the median of the
 * per-repetition ratios, and the model's prediction for the algorithm (the
 * closed form under the configuration's model, as the shim would price it;
 * the shim itself is a black box here: it is only preloaded).
 *
 * usage: mpiexec.mpich -n P env LD_PRELOAD=build/mpich/libcollshim.so COLLSHIM_ALLTOALL=<alg> bench_alltoall [REPS]
 * Built and run by bench/run-alltoall. Never with the test suite's yield wrapper.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "select/select.h"

typedef struct bench_call {
    void *s, *r;
    int n, k;
} bench_call;

/* Seconds per call of k calls, the slowest rank's. */
static double time_calls(int use_pmpi, void *ctx)
{
    const bench_call *c = ctx;
    const double t0 = bench_start();
    for (int i = 0; i < c->k; i++)
        (use_pmpi ? PMPI_Alltoall : MPI_Alltoall)(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, MPI_COMM_WORLD);
    return bench_per_call(t0, c->k);
}

/* What the shim would run and its predicted seconds (< 0: the library's, unknown to the model). */
static double predict(const cs_config *cfg, int p, size_t bytes, char *alg, size_t size)
{
    cs_select_cache cache;
    cs_decision d;
    const cs_problem prob = {
        .coll = CS_COLL_ALLTOALL, .p = p, .count = bytes, .elem = 1, .bytes = bytes, .flags = CS_PROB_CONTIG};
    memset(&cache, 0, sizeof cache);
    cs_select(cfg, &cache, &prob, &d);
    cs_select_predict(&cfg->model, &prob, &d);
    snprintf(alg, size, "%s", d.alg->name);
    if (d.alg->format && (d.params.nparts || d.params.radix >= 2)) {
        const size_t n = strlen(alg);
        alg[n] = ':';
        d.alg->format(&d.params, alg + n + 1, size - n - 1);
    }
    return d.predicted;
}

int main(int argc, char **argv)
{
    int rank, p;
    cs_config cfg;
    cs_config_error err;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    const int reps = argc > 1 ? atoi(argv[1]) : 11;
    if (cs_config_init(&cfg, &err) != 0 && rank == 0)
        fprintf(stderr, "bench_alltoall: the configuration has an error; predictions use the defaults\n");
    const size_t max_bytes = (size_t)1 << 20;
    char *s = malloc(max_bytes * (size_t)p), *r = malloc(max_bytes * (size_t)p);
    memset(s, 1, max_bytes * (size_t)p);
    double *shim = malloc(sizeof(double) * reps), *lib = malloc(sizeof(double) * reps);
    double *ratio = malloc(sizeof(double) * reps);

    if (rank == 0)
        printf("%3s %8s %-22s %11s %11s %9s %11s\n", "p", "bytes", "alg", "shim_s", "native_s", "shim/nat", "model_s");
    for (size_t bytes = 8; bytes <= max_bytes; bytes = bytes < max_bytes / 8 ? bytes * 8 : bytes * 2) {
        bench_call c = {s, r, (int)bytes, 1};
        /* About 20 ms of calls per timing, 1 to 50 calls (oversubscribed runs are slow). */
        const double once = time_calls(1, &c);
        c.k = once > 0.02 ? 1 : once < 0.0004 ? 50 : (int)(0.02 / once);
        char alg[64];
        const double model = predict(&cfg, p, bytes, alg, sizeof alg);
        time_calls(0, &c); /* warm up both paths (contexts, caches) */
        time_calls(1, &c);
        bench_pairs(time_calls, &c, reps, shim, lib, ratio);
        if (rank == 0) {
            char pred[16] = "-";
            if (model >= 0)
                snprintf(pred, sizeof pred, "%.3e", model);
            printf("%3d %8zu %-22s %11.3e %11.3e %9.3f %11s\n", p, bytes, alg, bench_median(shim, reps),
                   bench_median(lib, reps), bench_median(ratio, reps), pred);
        }
    }
    free(s);
    free(r);
    free(shim);
    free(lib);
    free(ratio);
    MPI_Finalize();
    return 0;
}
