/*
 * test_nodes: collectives on communicators whose ranks lie on the model's nodes in any shape
 * (src/sched/nodes.h). Run under a model that sees nodes (a node level and a node's link) with
 * model.ranks_per_node 3, in blocks or dealt round robin (model.placement cyclic), at p = 7 and
 * 8: nodes of 3, 3 and 1 or 2 ranks, or ranks of a node not consecutive. On MPI_COMM_WORLD and
 * on its odd and even ranks (MPI_Comm_split: one or two ranks a node, nodes of different sizes),
 * under auto, each call's result is checked against the library's. The shim gathers the map
 * once per communicator and decides from it: a rank that saw another map would choose another
 * algorithm and the call would not match. tests/tools/check-node-map runs it and checks from the
 * call log that every rank of a communicator decided alike, at the same price.
 */
#include "cs_test.h"

static int int_and_double_sum(const cs_type *t, const cs_op *op)
{
    return (t->type == MPI_INT || t->type == MPI_DOUBLE) && op->op == MPI_SUM;
}

static void check_all(MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    cs_check_reductions(comm, -1, int_and_double_sum);
    cs_check_reductions(comm, 0, int_and_double_sum);
    cs_check_reductions(comm, p - 1, int_and_double_sum);
    static const int blocks[] = {1, 3, 100, 5000};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        char desc[64];
        snprintf(desc, sizeof desc, "INT block=%d", blocks[i]);
        cs_check_alltoall(comm, MPI_INT, blocks[i], MPI_INT, blocks[i], 0, desc);
    }
}

int main(int argc, char **argv)
{
    MPI_Comm parity;
    cs_test_init(&argc, &argv);
    check_all(MPI_COMM_WORLD);
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, cs_wrank, &parity);
    check_all(parity);
    MPI_Comm_free(&parity);
    return cs_test_finish("test_nodes");
}
