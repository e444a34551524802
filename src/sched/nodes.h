/*
 * Where a communicator's ranks lie: which node each rank is on (the node
 * map), for the model's node level and a node's link (cs_problem.node,
 * cs_model_at_level), and the ranks per node where the map is blocks of
 * one size (cs_problem.ppn), the shape the closed forms price.
 */
#ifndef CS_NODES_H
#define CS_NODES_H

#include <mpi.h>

/* A communicator's node map. */
typedef struct cs_nodes {
    int *node; /* node[r] in 0 .. nodes - 1, numbered in order of first appearance */
    int nodes; /* how many nodes the ranks span */
    /* ranks per node where rank r is on node r / ppn for every r and every
     * node holds ppn ranks (mpiexec's placement by core, SimGrid's by host),
     * else 0 (uneven nodes, a last node part full, round robin). */
    int ppn;
    int ranges; /* each node's ranks one consecutive range (CS_PROB_NODE_RANGES) */
    /* How many communicators like this one share a node's link at once: the
     * most, over its nodes, of the node's world ranks over this
     * communicator's there, rounded up (a column of a process grid whose
     * rows are nodes: the node's ranks; cs_problem.share). 1: this one
     * alone (MPI_COMM_WORLD, a duplicate, whole nodes), or not known. */
    int share;
} cs_nodes;

/*
 * The map of p ranks from each rank's node key (keys[r]: any int, equal
 * where ranks share a node): nodes renumbered in order of first appearance,
 * counted, and ppn where they are blocks of one size. Allocates map->node
 * (cs_nodes_free). Returns 0, or -1 where memory runs out.
 */
int cs_nodes_from_keys(cs_nodes *map, const int *keys, int p);

/* The node of world rank `world` of `world_size` under model.ranks_per_node
 * `block` > 0: world ranks in blocks of `block` (the last may be part
 * full), or with cyclic set dealt round robin to ceil(world_size / block)
 * nodes (rank i on node i mod that: mpirun.openmpi --map-by node, Slurm's
 * cyclic distribution). */
static inline int cs_nodes_world_key(int world, int world_size, int block, int cyclic)
{
    const int n = (int)(((long long)world_size + block - 1) / block);
    return cyclic ? world % n : world / block;
}

/* How many world ranks share node `key` of cs_nodes_world_key. */
static inline int cs_nodes_world_count(int key, int world_size, int block, int cyclic)
{
    const int n = (int)(((long long)world_size + block - 1) / block);
    if (cyclic)
        return (world_size - key + n - 1) / n;
    return world_size - key * block < block ? world_size - key * block : block;
}

/* map->share from world[r], the world ranks on rank r's node (0: not
 * known, that rank counts as alone): the most of ceil(world[r] / the map's
 * ranks on that node). */
void cs_nodes_set_share(cs_nodes *map, const int *world, int p);

/*
 * Collective over comm (rank and p its own): the map, the same on every
 * rank (an allgather of each rank's node key and its node's world ranks).
 * A node is the ranks that share memory (MPI_COMM_TYPE_SHARED; its world
 * ranks world_here, 0: not known), or with world_block > 0 as
 * cs_nodes_world_key places MPI_COMM_WORLD's ranks (model.ranks_per_node,
 * model.placement). Once per communicator, never per call. Returns an MPI
 * error code; on error map->node is NULL.
 */
int cs_comm_nodes(MPI_Comm comm, int rank, int p, int world_block, int cyclic, int world_here, cs_nodes *map);

void cs_nodes_free(cs_nodes *map);

#endif
