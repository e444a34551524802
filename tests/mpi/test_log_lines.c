/*
 * test_log_lines: a known number of intercepted calls on every rank (allreduce, reduce and
 * alltoall, each checked against its known result), for the log's own checks (scripts/collshim-test-mpi): every line of
 * every log file is a JSON object, and the records number ranks x calls. Rank 0 prints "calls per rank: N".
 */
#include "cs_test.h"

enum { ROUNDS = 40 };

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    const int r = cs_wrank, p = cs_wsize;
    int calls = 0;
    double v[64], sum[64];
    int *send = malloc(sizeof(int) * 4 * (size_t)p), *recv = malloc(sizeof(int) * 4 * (size_t)p);

    cs_set_case("MPI_Allreduce");
    for (int i = 0; i < ROUNDS; i++, calls++) {
        const int n = 1 + i % 64;
        for (int j = 0; j < n; j++)
            v[j] = r + j;
        MPI_Allreduce(v, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int j = 0; j < n; j++)
            CHECK(sum[j] == (double)p * (p - 1) / 2 + (double)p * j, "element %d of %d", j, n);
    }
    cs_set_case("MPI_Reduce");
    for (int i = 0; i < ROUNDS; i++, calls++) {
        const int n = 1 + i % 16, root = i % p;
        for (int j = 0; j < n; j++)
            v[j] = r * j;
        MPI_Reduce(v, sum, n, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        for (int j = 0; r == root && j < n; j++)
            CHECK(sum[j] == (double)p * (p - 1) / 2 * j, "element %d of %d at root %d", j, n, root);
    }
    cs_set_case("MPI_Alltoall");
    for (int i = 0; i < ROUNDS; i++, calls++) {
        const int n = 1 + i % 4;
        for (int d = 0; d < p; d++)
            for (int j = 0; j < n; j++)
                send[d * n + j] = 1000 * r + 10 * d + j;
        MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD);
        for (int s = 0; s < p; s++)
            for (int j = 0; j < n; j++)
                CHECK(recv[s * n + j] == 1000 * s + 10 * r + j, "block %d element %d", s, j);
    }
    if (r == 0)
        printf("calls per rank: %d\n", calls);
    free(send);
    free(recv);
    return cs_test_finish("test_log_lines");
}
