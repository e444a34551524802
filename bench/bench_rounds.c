/*
 * What one round of point-to-point messages costs on this machine, in the
 * patterns the model prices (no collshim, no collective): seconds per round,
 * the slowest rank's, median of REPS timings of CALLS rounds each.
 *
 *   pp1    a ping-pong of ranks 0 and 1, the rest idle: half a round trip
 *          (what collshim-calibrate --fit fits alpha and beta to)
 *   ppall  every rank r with r ^ 1 in a ping-pong at once: half a round trip
 *   xall   every rank r with r ^ 1 in one MPI_Sendrecv at once
 *   bfly   log2 p rounds, rank r with r ^ 1, r ^ 2, ..., r ^ p/2: per round,
 *          each an MPI_Irecv, an MPI_Isend and an MPI_Waitall, as the
 *          executor runs a butterfly (src/sched/exec.c)
 *
 * Under the model a ping-pong's half round trip is alpha + o, an exchange
 * round alpha + 2o (plus beta per byte): the difference between these
 * columns and a collective's own time is what a call costs beyond its
 * messages.
 *
 * usage: mpiexec.mpich -n P bench_rounds [REPS [CALLS [MAXBYTES]]]   (P a power of two;
 *        sizes 0, 8, then each 4 times the last; defaults 15, 2000, 8192)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"

enum { PP1, PPALL, XALL, BFLY, KINDS };
static const char *const kind_name[KINDS] = {"pp1", "ppall", "xall", "bfly"};

typedef struct rounds {
    int rank, p, kind, bytes, calls;
    char *s, *r;
} rounds;

/* One ping-pong with peer: this rank's half round trip is the round. */
static void ping_pong(const rounds *x, int peer)
{
    if (x->rank < peer) {
        PMPI_Send(x->s, x->bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
        PMPI_Recv(x->r, x->bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(x->r, x->bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        PMPI_Send(x->s, x->bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
    }
}

/* Rounds of the kind in one call: seconds per round (a ping-pong is two:
 * its half round trip; a butterfly log2 p). */
static double time_rounds(const rounds *x)
{
    const int peer = x->rank ^ 1;
    int per_call = x->kind == PP1 || x->kind == PPALL ? 2 : 1;
    if (x->kind == BFLY)
        for (int mask = 2; mask < x->p; mask <<= 1)
            per_call++;
    const double t0 = bench_start();
    for (int c = 0; c < x->calls; c++) {
        switch (x->kind) {
        case PP1:
        case PPALL:
            if (peer < x->p && (x->kind == PPALL || x->rank < 2))
                ping_pong(x, peer);
            break;
        case XALL:
            PMPI_Sendrecv(x->s, x->bytes, MPI_BYTE, peer, 0, x->r, x->bytes, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
            break;
        default:
            for (int mask = 1; mask < x->p; mask <<= 1) {
                MPI_Request req[2];
                MPI_Status st[2];
                PMPI_Irecv(x->r, x->bytes, MPI_BYTE, x->rank ^ mask, 0, MPI_COMM_WORLD, &req[0]);
                PMPI_Isend(x->s, x->bytes, MPI_BYTE, x->rank ^ mask, 0, MPI_COMM_WORLD, &req[1]);
                PMPI_Waitall(2, req, st);
            }
        }
    }
    return bench_per_call(t0, x->calls) / per_call;
}

int main(int argc, char **argv)
{
    rounds x = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.p);
    const int reps = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 15;
    x.calls = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 2000;
    const int max = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 8192;
    if (x.p < 2 || (x.p & (x.p - 1))) {
        if (x.rank == 0)
            fprintf(stderr, "bench_rounds: p = %d: a power of two from 2\n", x.p);
        MPI_Finalize();
        return 2;
    }
    x.s = calloc(1, (size_t)max + 1);
    x.r = calloc(1, (size_t)max + 1);
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (x.rank == 0)
        printf("%-6s %3s %8s %11s %11s %11s %11s\n", "rounds", "p", "bytes", kind_name[PP1], kind_name[PPALL],
               kind_name[XALL], kind_name[BFLY]);
    for (x.bytes = 0; x.bytes <= max; x.bytes = x.bytes ? x.bytes * 4 : 8) {
        double med[KINDS];
        for (x.kind = 0; x.kind < KINDS; x.kind++) {
            time_rounds(&x); /* warm up */
            for (int i = 0; i < reps; i++)
                t[i] = time_rounds(&x);
            med[x.kind] = bench_median(t, reps);
        }
        if (x.rank == 0)
            printf("%-6s %3d %8d %11.3e %11.3e %11.3e %11.3e\n", "rounds", x.p, x.bytes, med[PP1], med[PPALL],
                   med[XALL], med[BFLY]);
    }
    free(x.s);
    free(x.r);
    free(t);
    MPI_Finalize();
    return 0;
}
