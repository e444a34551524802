/*
 * Where a communicator's ranks lie: how many share each node, when they lie
 * on the nodes in blocks of one size (cs_problem.ppn), for the model's node
 * level and a node's link (cs_model_at_level).
 */
#ifndef CS_NODES_H
#define CS_NODES_H

#include <mpi.h>

/*
 * Collective over comm (rank and p its own): *ppn gets the ranks per node
 * where ranks ppn*j .. ppn*j + ppn - 1 share node j for every j (mpiexec's
 * placement by core, SimGrid's by host), else 0 (round robin, uneven
 * nodes: not what the closed forms price, and the model keeps one level).
 * A node is the ranks that share memory (MPI_COMM_TYPE_SHARED), or with
 * world_block > 0 the world ranks world_block*j .. world_block*j +
 * world_block - 1 (model.ranks_per_node). Every rank gets the same.
 * Returns an MPI error code.
 */
int cs_comm_ppn(MPI_Comm comm, int rank, int p, int world_block, int *ppn);

#endif
