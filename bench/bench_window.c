/*
 * Paired benchmark of the windowed reduction across ranks:
 * collshim_window_reduce with the method forced by the environment
 * (COLLSHIM_WINDOW_METHOD=recursive, prefix-suffix or prefix-suffix-inverse,
 * set by bench/run-window; read by the shim at MPI_Init) against a yardstick
 * in the same run, alternating: the library's PMPI_Allreduce of the same
 * count. MPI_INT with MPI_SUM (an exact inverse, so prefix-suffix-inverse
 * runs as such), window n and offset r from the command line, 8 B to
 * 256 KiB in steps of 8, then 1 MiB. The yardstick only makes runs
 * comparable: every method runs in its own mpiexec, so compare methods by
 * their ratios to it (and the ratio of two methods' ratios), never by their
 * times across runs. Before timing each size, one call is checked against
 * the window sums it must give (the run aborts otherwise).
 *
 * The shim is a black box here: it is only preloaded, and the entry point
 * is found with dlsym(RTLD_DEFAULT, "collshim_window_reduce").
 *
 * Columns: method (COLLSHIM_WINDOW_METHOD as given, "auto" when unset), p,
 * n, r, bytes, median window s/call, median yardstick s/call, median of the
 * per-repetition window/yardstick ratios.
 *
 * usage: mpiexec.mpich -n P env COLLSHIM_WINDOW_METHOD=recursive LD_PRELOAD=build/mpich/libcollshim.so
 *        bench_window N R [REPS [CALLS]]
 * CALLS (default 200) is the number of calls per timing up to 4 KiB; above,
 * CALLS * 4 KiB / bytes, at least 2. With more ranks than cores, add
 * build/libcs_yield.so to LD_PRELOAD (after the shim): it slows both sides
 * alike, so read the ratios, never compare the times with runs without it.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"

typedef int (*window_fn)(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int n, int r,
                         MPI_Comm comm);

enum { BENCH_MAX_BYTES = 1 << 20 };

typedef struct bench_call {
    window_fn window;
    int *s, *r;
    int ints, calls, n, off;
} bench_call;

/* Seconds per call of `calls` calls, the slowest rank's: timer(0) the
 * window, timer(1) the yardstick. */
static double bench_time(int yardstick, void *ctx)
{
    bench_call *c = ctx;
    const double t0 = bench_start();
    for (int i = 0; i < c->calls; i++) {
        if (yardstick)
            PMPI_Allreduce(c->s, c->r, c->ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        else
            c->window(c->s, c->r, c->ints, MPI_INT, MPI_SUM, c->n, c->off, MPI_COMM_WORLD);
    }
    return bench_per_call(t0, c->calls);
}

/* Element j of rank q's vector. */
static int bench_value(int q, int j)
{
    return q * 1000 + j % 997;
}

/* One window call checked against the sums of ranks lo..hi; 0 if right on every rank. */
static int bench_check(bench_call *c, int rank, int p)
{
    const int lo = rank - c->off < 0 ? 0 : rank - c->off;
    const int hi = rank - c->off + c->n - 1 > p - 1 ? p - 1 : rank - c->off + c->n - 1;
    int bad = 0, anybad;
    if (c->window(c->s, c->r, c->ints, MPI_INT, MPI_SUM, c->n, c->off, MPI_COMM_WORLD) != MPI_SUCCESS)
        bad = 1;
    for (int j = 0; j < c->ints && !bad; j++) {
        int want = 0;
        for (int q = lo; q <= hi; q++)
            want += bench_value(q, j);
        bad = c->r[j] != want;
    }
    PMPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return anybad;
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 3) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_window N R [REPS [CALLS]]\n");
        MPI_Finalize();
        return 2;
    }
    const int n = atoi(argv[1]), off = atoi(argv[2]);
    const int reps = argc > 3 ? atoi(argv[3]) : 11, calls = argc > 4 ? atoi(argv[4]) : 200;
    const char *method = getenv("COLLSHIM_WINDOW_METHOD");
    window_fn window = (window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce");
    if (!window || n < 1 || n > p || off < 0 || off >= n || reps < 1 || calls < 1) {
        if (rank == 0)
            fprintf(stderr, "bench_window: %s\n",
                    !window ? "collshim_window_reduce not found (preload build/mpich/libcollshim.so)"
                            : "need 1 <= N <= p, 0 <= R < N, REPS >= 1, CALLS >= 1");
        MPI_Finalize();
        return 2;
    }
    double *win = malloc(sizeof(double) * (size_t)reps), *yard = malloc(sizeof(double) * (size_t)reps);
    double *ratio = malloc(sizeof(double) * (size_t)reps);
    bench_call c = {.window = window, .n = n, .off = off};
    c.s = malloc(BENCH_MAX_BYTES);
    c.r = malloc(BENCH_MAX_BYTES);
    for (int j = 0; j < BENCH_MAX_BYTES / (int)sizeof(int); j++)
        c.s[j] = bench_value(rank, j);

    if (rank == 0)
        printf("# %-21s %3s %3s %3s %8s %12s %12s %8s\n", "method", "p", "n", "r", "bytes", "window_s", "yardstick_s",
               "win/yard");
    for (int bytes = 8;; bytes = bytes * 8 < BENCH_MAX_BYTES ? bytes * 8 : BENCH_MAX_BYTES) {
        c.ints = bytes / (int)sizeof(int);
        c.calls = bytes <= 4096 ? calls : (int)((long long)calls * 4096 / bytes);
        if (c.calls < 2)
            c.calls = 2;
        if (bench_check(&c, rank, p)) {
            if (rank == 0)
                fprintf(stderr, "bench_window: wrong window sums at %d bytes\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        bench_time(0, &c); /* warm up both paths (context, schedule) */
        bench_time(1, &c);
        bench_pairs(bench_time, &c, reps, win, yard, ratio);
        if (rank == 0) {
            printf("%-23s %3d %3d %3d %8d %12.3e %12.3e %8.3f\n", method && *method ? method : "auto", p, n, off, bytes,
                   bench_median(win, reps), bench_median(yard, reps), bench_median(ratio, reps));
            fflush(stdout);
        }
        if (bytes == BENCH_MAX_BYTES)
            break;
    }
    free(c.s);
    free(c.r);
    free(win);
    free(yard);
    free(ratio);
    MPI_Finalize();
    return 0;
}
