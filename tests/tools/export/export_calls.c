/*
 * export_calls: MPI_Allreduce, MPI_Reduce (to the last rank) and MPI_Alltoall
 * of the sizes named, each checked, and what the library did to run each:
 * the point-to-point messages it sent, summed over the ranks (MPICH: the
 * ucp_tag_send calls export_count.so counts) and the coll/base algorithm
 * it ran (Open MPI: the function export_count.so saw called), where that
 * library is preloaded. Used by tests/tools/check-export and bench/run-export.
 *
 * usage: export_calls COLL:BYTES...   (COLL allreduce, reduce or alltoall;
 *        BYTES the vector's, or alltoall's block; doubles, or ints for alltoall)
 * prints per item "COLL BYTES sends=N alg=NAME right|WRONG"; exits 1 on a wrong result.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long cs_sends(void)
{
    const long *n = dlsym(RTLD_DEFAULT, "cs_export_sends");
    return n ? *n : -1;
}

/* The algorithm export_count.so saw first since the last call (clear 1: forget it). */
static const char *cs_alg(int clear)
{
    const char **name = dlsym(RTLD_DEFAULT, "cs_export_alg");
    const char *seen = name && *name ? *name : "-";
    if (name && clear)
        *name = NULL;
    return seen;
}

/* One call of coll on bytes; 1 if its result is right on this rank. */
static int cs_call(const char *coll, size_t bytes, int rank, int p)
{
    int ok = 1;
    if (!strcmp(coll, "alltoall")) {
        const size_t n = bytes / sizeof(int) ? bytes / sizeof(int) : 1;
        int *a = malloc(n * p * sizeof(int)), *b = malloc(n * p * sizeof(int));
        for (size_t i = 0; i < n * p; i++)
            a[i] = rank * 1000003 + (int)i;
        MPI_Alltoall(a, (int)n, MPI_INT, b, (int)n, MPI_INT, MPI_COMM_WORLD);
        for (int s = 0; s < p; s++)
            for (size_t i = 0; i < n; i++)
                ok &= b[s * n + i] == s * 1000003 + (int)(rank * n + i);
        free(a);
        free(b);
        return ok;
    }
    const size_t n = bytes / sizeof(double) ? bytes / sizeof(double) : 1;
    double *x = malloc(n * sizeof(double)), *y = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++)
        x[i] = rank + (double)(i % 1000);
    const int reduce = !strcmp(coll, "reduce");
    if (reduce)
        MPI_Reduce(x, y, (int)n, MPI_DOUBLE, MPI_SUM, p - 1, MPI_COMM_WORLD);
    else
        MPI_Allreduce(x, y, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (!reduce || rank == p - 1)
        for (size_t i = 0; i < n; i++)
            ok &= y[i] == p * (p - 1) / 2.0 + (double)(i % 1000) * p;
    free(x);
    free(y);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, p, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int a = 1; a < argc; a++) {
        char coll[32];
        unsigned long bytes;
        if (sscanf(argv[a], "%31[a-z]:%lu", coll, &bytes) != 2) {
            if (!rank)
                fprintf(stderr, "export_calls: '%s' is not COLL:BYTES\n", argv[a]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        cs_alg(1);
        const long before = cs_sends();
        const int ok = cs_call(coll, bytes, rank, p);
        long sent = cs_sends() - before, all;
        int right;
        const char *alg = cs_alg(0);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Reduce(&sent, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Allreduce(&ok, &right, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        wrong |= !right;
        if (!rank)
            printf("%s %lu sends=%ld alg=%s %s\n", coll, bytes, before < 0 ? -1 : all, alg, right ? "right" : "WRONG");
    }
    MPI_Finalize();
    return wrong;
}
