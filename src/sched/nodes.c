/*
 * Ranks per node (nodes.h): the node's communicator (MPI_COMM_TYPE_SHARED,
 * or the world ranks' blocks), whether its ranks follow each other from a
 * multiple of its size, and one size everywhere.
 */
#include "sched/nodes.h"

int cs_comm_ppn(MPI_Comm comm, int rank, int p, int world_block, int *ppn)
{
    MPI_Comm node;
    int local, size, last, world_rank, mine[3], all[3], rc;
    *ppn = 0;
    if (p <= 1)
        return MPI_SUCCESS;
    if (world_block > 0) {
        rc = PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_split(comm, world_rank / world_block, rank, &node);
    } else {
        rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Comm_rank(node, &local);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_size(node, &size);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&rank, &last, 1, MPI_INT, MPI_MAX, node);
    PMPI_Comm_free(&node);
    if (rc != MPI_SUCCESS)
        return rc;
    /* in a block: the node's ranks follow each other from a multiple of its size */
    mine[0] = size;
    mine[1] = -size;
    mine[2] = last == rank - local + size - 1 && (rank - local) % size == 0;
    rc = PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && all[0] == -all[1] && all[2])
        *ppn = size;
    return rc;
}
