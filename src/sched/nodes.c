/*
 * The node map (nodes.h): each rank's node key gathered from every rank,
 * renumbered in order of first appearance, and the shape of blocks.
 */
#include <stdlib.h>

#include "sched/nodes.h"

/* A key and the first rank that has it, sorted by key, then rank. */
typedef struct cs_node_key {
    int key, rank;
} cs_node_key;

static int cs_node_key_cmp(const void *a, const void *b)
{
    const cs_node_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* ppn where node[r] == r / ppn for every r and ppn divides p, else 0. */
static int cs_nodes_blocks(const int *node, int p)
{
    int size = 1;
    while (size < p && node[size] == 0)
        size++;
    if (p <= 1 || p % size != 0)
        return 0;
    for (int r = 0; r < p; r++)
        if (node[r] != r / size)
            return 0;
    return size;
}

int cs_nodes_from_keys(cs_nodes *map, const int *keys, int p)
{
    cs_node_key *sorted = malloc((size_t)(p > 0 ? p : 1) * sizeof *sorted);
    int *first = malloc((size_t)(p > 0 ? p : 1) * sizeof *first), *label = NULL;
    map->node = malloc((size_t)(p > 0 ? p : 1) * sizeof *map->node);
    map->nodes = map->ppn = 0;
    if (sorted && first && map->node)
        label = malloc((size_t)(p > 0 ? p : 1) * sizeof *label);
    if (!label) {
        free(sorted);
        free(first);
        cs_nodes_free(map);
        return -1;
    }
    for (int r = 0; r < p; r++)
        sorted[r] = (cs_node_key){keys[r], r};
    qsort(sorted, (size_t)p, sizeof *sorted, cs_node_key_cmp);
    /* first[r]: the lowest rank with r's key; its label, in order of first appearance */
    for (int i = 0; i < p; i++) {
        first[sorted[i].rank] =
            i > 0 && sorted[i].key == sorted[i - 1].key ? first[sorted[i - 1].rank] : sorted[i].rank;
        label[i] = -1;
    }
    for (int r = 0; r < p; r++) {
        if (label[first[r]] < 0)
            label[first[r]] = map->nodes++;
        map->node[r] = label[first[r]];
    }
    map->ppn = cs_nodes_blocks(map->node, p);
    map->share = 1;
    map->ranges = 1;
    for (int r = 1; r < p; r++)
        map->ranges = map->ranges && map->node[r] >= map->node[r - 1];
    free(sorted);
    free(first);
    free(label);
    return 0;
}

void cs_nodes_set_share(cs_nodes *map, const int *world, int p)
{
    int *here = calloc((size_t)(map->nodes > 0 ? map->nodes : 1), sizeof *here);
    map->share = 1;
    if (!here || !map->node) {
        free(here);
        return;
    }
    for (int r = 0; r < p; r++)
        here[map->node[r]]++;
    for (int r = 0; r < p; r++) {
        const int n = here[map->node[r]], share = (world[r] + n - 1) / n;
        if (share > map->share)
            map->share = share;
    }
    free(here);
}

/* This rank's node key (the lowest rank of comm that shares its memory, or
 * its world rank's node under model.ranks_per_node) and the world ranks on
 * that node (world_here where memory decides). */
static int cs_comm_node_key(MPI_Comm comm, int rank, int world_block, int cyclic, int world_here, int key[2])
{
    MPI_Comm node;
    int world, world_size, rc;
    if (world_block > 0) {
        rc = PMPI_Comm_rank(MPI_COMM_WORLD, &world);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
        if (rc == MPI_SUCCESS) {
            key[0] = cs_nodes_world_key(world, world_size, world_block, cyclic);
            key[1] = cs_nodes_world_count(key[0], world_size, world_block, cyclic);
        }
        return rc;
    }
    key[1] = world_here;
    rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Allreduce(&rank, &key[0], 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    return rc;
}

/* Does every rank of comm say ok? */
static int cs_all_ok(MPI_Comm comm, int ok)
{
    return PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && ok;
}

int cs_comm_nodes(MPI_Comm comm, int rank, int p, int world_block, int cyclic, int world_here, cs_nodes *map)
{
    int key[2] = {0, 0}, *keys = NULL;
    int rc = cs_comm_node_key(comm, rank, world_block, cyclic, world_here, key);
    map->node = NULL;
    map->nodes = map->ppn = 0;
    map->share = 1;
    if (rc != MPI_SUCCESS)
        return rc;
    /* every rank gathers, and keeps its map, or none does: (key, count)
     * pairs, then the keys and the counts in rows of their own */
    const size_t n = (size_t)(p > 0 ? p : 1);
    keys = malloc(4 * n * sizeof *keys);
    if (!cs_all_ok(comm, keys != NULL)) {
        free(keys);
        return MPI_ERR_NO_MEM;
    }
    int *pairs = keys + 2 * n;
    rc = PMPI_Allgather(key, 2, MPI_INT, pairs, 2, MPI_INT, comm);
    for (int r = 0; rc == MPI_SUCCESS && r < p; r++) {
        keys[r] = pairs[2 * r];
        keys[n + (size_t)r] = pairs[2 * r + 1];
    }
    if (rc == MPI_SUCCESS && cs_nodes_from_keys(map, keys, p) != 0)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        cs_nodes_set_share(map, keys + n, p);
    free(keys);
    if (!cs_all_ok(comm, rc == MPI_SUCCESS)) {
        cs_nodes_free(map);
        return rc == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc;
    }
    return MPI_SUCCESS;
}

void cs_nodes_free(cs_nodes *map)
{
    free(map->node);
    map->node = NULL;
    map->nodes = map->ppn = 0;
}
