/*
 * test_compose: the node-aware compositions (src/coll/compose/), forced by the test driver
 * (COLLSHIM_ALLREDUCE=leader or multileader, COLLSHIM_REDUCE=leader, COLLSHIM_ALLTOALL=leader) under a model with nodes
 * set by model.ranks_per_node (blocks of 2 or 3 world ranks, or dealt round robin): every result is checked against the
 * library's (PMPI_*), in place and not, with the non-commutative user operator (a matrix product: canonical order,
 * where a node's ranks are consecutive) and a commutative one, at roots 0, 1 (not a leader in blocks), p / 2 and p - 1.
 * On MPI_COMM_WORLD, on its odd and even ranks (one or two ranks a node: where each node holds one rank the forced row
 * cannot run and the call is decided as if nothing were forced) and on its first and second halves (nodes cut at the
 * edge); alltoall of 1 to 5000 ints a block. The driver checks from the call log that the compositions ran. With
 * COMPOSE_CYCLE set, only 2500 duplicates of MPI_COMM_WORLD, each with an allreduce and freed: a context's private
 * communicators (its duplicate and its node's) are freed with it, or MPICH's 2048 context ids run out.
 */
#include "cs_test.h"

static int compose_pairs(const cs_type *t, const cs_op *op)
{
    return (op->cls & CS_USER) || ((t->type == MPI_INT || t->type == MPI_DOUBLE) && op->op == MPI_SUM);
}

static void check_all(MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    const int roots[] = {-1, 0, 1, p / 2, p - 1};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        int seen = roots[i] >= p;
        for (size_t j = 0; j < i; j++)
            seen |= roots[j] == roots[i];
        if (!seen)
            cs_check_reductions(comm, roots[i], compose_pairs);
    }
    static const int blocks[] = {1, 3, 100, 5000};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        char desc[64];
        snprintf(desc, sizeof desc, "INT block=%d", blocks[i]);
        cs_check_alltoall(comm, MPI_INT, blocks[i], MPI_INT, blocks[i], 0, desc);
        cs_check_alltoall(comm, MPI_INT, blocks[i], MPI_INT, blocks[i], 1, desc);
    }
}

/* Duplicates of MPI_COMM_WORLD, each with an allreduce and freed. */
static int cycle(void)
{
    for (int i = 0; i < 2500; i++) {
        MPI_Comm dup;
        int in = cs_wrank + i, out = -1, want = 0;
        if (MPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS) {
            CHECK(0, "MPI_Comm_dup failed at %d", i);
            break;
        }
        const int rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, dup);
        PMPI_Allreduce(&in, &want, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS && out == want, "allreduce on duplicate %d: %d, expected %d", i, out, want);
        MPI_Comm_free(&dup);
        if (rc != MPI_SUCCESS)
            break;
    }
    return cs_test_finish("test_compose");
}

int main(int argc, char **argv)
{
    MPI_Comm parity, half;
    cs_test_init(&argc, &argv);
    if (getenv("COMPOSE_CYCLE"))
        return cycle();
    check_all(MPI_COMM_WORLD);
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, cs_wrank, &parity);
    check_all(parity);
    MPI_Comm_free(&parity);
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank < cs_wsize / 2, cs_wrank, &half);
    check_all(half);
    MPI_Comm_free(&half);
    return cs_test_finish("test_compose");
}
