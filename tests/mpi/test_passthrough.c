/*
 * test_passthrough: a program that never calls MPI_Alltoall, MPI_Allreduce or MPI_Reduce behaves
 * as without the shim: MPI_Bcast, MPI_Allgather, MPI_Gather, MPI_Scan, MPI_Exscan,
 * MPI_Reduce_scatter_block, MPI_Iallreduce, MPI_Reduce_local, point-to-point and communicator
 * management, each checked against the known result. (scripts/collshim-test-mpi also checks that
 * the shim logged no call.)
 */
#include "cs_test.h"

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    int r = cs_wrank, p = cs_wsize;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    enum { N = 37 };
    int v[N], *all = malloc(sizeof(int) * N * (size_t)p);

    cs_set_case("MPI_Bcast");
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < N; i++)
            v[i] = r == root ? 100 * root + i : -1;
        MPI_Bcast(v, N, MPI_INT, root, comm);
        for (int i = 0; i < N; i++)
            CHECK(v[i] == 100 * root + i, "root %d element %d is %d", root, i, v[i]);
    }

    cs_set_case("MPI_Allgather");
    for (int i = 0; i < N; i++)
        v[i] = 1000 * r + i;
    MPI_Allgather(v, N, MPI_INT, all, N, MPI_INT, comm);
    for (int s = 0; s < p; s++)
        for (int i = 0; i < N; i++)
            CHECK(all[s * N + i] == 1000 * s + i, "block %d element %d", s, i);

    cs_set_case("MPI_Gather");
    memset(all, 0, sizeof(int) * N * (size_t)p);
    MPI_Gather(v, N, MPI_INT, all, N, MPI_INT, p - 1, comm);
    if (r == p - 1)
        for (int s = 0; s < p; s++)
            CHECK(all[s * N] == 1000 * s, "block %d", s);

    cs_set_case("MPI_Scan, MPI_Exscan");
    int x = r + 1, scan = 0, exscan = -7;
    MPI_Scan(&x, &scan, 1, MPI_INT, MPI_SUM, comm);
    CHECK(scan == (r + 1) * (r + 2) / 2, "scan %d", scan);
    MPI_Exscan(&x, &exscan, 1, MPI_INT, MPI_SUM, comm);
    CHECK(r == 0 || exscan == r * (r + 1) / 2, "exscan %d", exscan);

    cs_set_case("MPI_Reduce_scatter_block");
    for (int i = 0; i < N * p; i++)
        all[i] = i + r;
    MPI_Reduce_scatter_block(all, v, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++)
        CHECK(v[i] == p * (r * N + i) + p * (p - 1) / 2, "element %d is %d", i, v[i]);

    cs_set_case("MPI_Iallreduce");
    MPI_Request req;
    long lx = r, lsum = 0;
    MPI_Iallreduce(&lx, &lsum, 1, MPI_LONG, MPI_SUM, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(lsum == (long)p * (p - 1) / 2, "sum %ld", lsum);

    cs_set_case("MPI_Reduce_local");
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
    CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33, "%d %d %d", b[0], b[1], b[2]);

    cs_set_case("point-to-point ring");
    int right = (r + 1) % p, left = (r + p - 1) % p, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&r, 1, MPI_INT, right, 3, &got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
    CHECK(got == left && st.MPI_SOURCE == left && st.MPI_TAG == 3, "got %d from %d tag %d", got, st.MPI_SOURCE,
          st.MPI_TAG);

    cs_set_case("MPI_Comm_split, MPI_Barrier");
    MPI_Comm half;
    MPI_Comm_split(comm, r % 2, -r, &half);
    MPI_Barrier(half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    CHECK(hsize == (p + (r % 2 == 0)) / 2, "size %d", hsize);
    MPI_Comm_free(&half);

    free(all);
    MPI_Comm_free(&comm);
    return cs_test_finish("test_passthrough");
}
