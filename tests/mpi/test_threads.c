/*
 * test_threads: MPI_THREAD_MULTIPLE. Two threads per process, each with its
 * own duplicate of MPI_COMM_WORLD, run MPI_Allreduce, MPI_Reduce and
 * MPI_Alltoall concurrently through the shim (contexts are created
 * concurrently too) and compare every result with PMPI_* on the same
 * communicator. Exits 0 with a note if the library does not provide
 * MPI_THREAD_MULTIPLE. First, the level MPI_Query_thread reports must be the
 * one MPI_Init_thread provided: the shim's start-up must not change it (it
 * did, under Open MPI, and the library then ran without its locks).
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 2
#define ROUNDS 60

typedef struct job {
    MPI_Comm comm;
    int id, failures;
} job;

static void *worker(void *arg)
{
    job *j = arg;
    int rank, p;
    MPI_Comm_rank(j->comm, &rank);
    MPI_Comm_size(j->comm, &p);
    const int max = 3000;
    long *in = malloc(sizeof(long) * (size_t)max * p), *out = malloc(sizeof(long) * (size_t)max * p);
    long *ref = malloc(sizeof(long) * (size_t)max * p);
    for (int round = 0; round < ROUNDS; round++) {
        const int n = 1 + (round * 97 + j->id * 13) % max, root = round % p;
        for (int i = 0; i < n * p; i++)
            in[i] = (long)rank * 1000003 + i * 7 + round + j->id;
        MPI_Allreduce(in, out, n, MPI_LONG, MPI_SUM, j->comm);
        PMPI_Allreduce(in, ref, n, MPI_LONG, MPI_SUM, j->comm);
        j->failures += memcmp(out, ref, sizeof(long) * (size_t)n) != 0;
        MPI_Reduce(in, out, n, MPI_LONG, MPI_MAX, root, j->comm);
        PMPI_Reduce(in, ref, n, MPI_LONG, MPI_MAX, root, j->comm);
        j->failures += rank == root && memcmp(out, ref, sizeof(long) * (size_t)n) != 0;
        const int block = n / p + 1;
        MPI_Alltoall(in, block, MPI_LONG, out, block, MPI_LONG, j->comm);
        PMPI_Alltoall(in, block, MPI_LONG, ref, block, MPI_LONG, j->comm);
        j->failures += memcmp(out, ref, sizeof(long) * (size_t)block * p) != 0;
    }
    free(in);
    free(out);
    free(ref);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, level, rank, failures = 0, total;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Query_thread(&level);
    if (level != provided) {
        fprintf(stderr, "test_threads: rank %d: MPI_Init_thread provided %d, MPI_Query_thread says %d\n", rank,
                provided, level);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("test_threads: MPI_THREAD_MULTIPLE not provided; nothing to test\n");
        MPI_Finalize();
        return 0;
    }
    job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (job){.id = t};
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, &jobs[t]);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        failures += jobs[t].failures;
        MPI_Comm_free(&jobs[t].comm);
    }
    /* The world communicator's own calls, so that the log has all three. */
    long x = rank, y;
    MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    total = failures;
    if (rank == 0 && total)
        fprintf(stderr, "test_threads: %d wrong results\n", total);
    MPI_Finalize();
    return total != 0;
}
