/*
 * test_reduce: MPI_Reduce against PMPI_Reduce on MPI_COMM_WORLD at roots 0, p-1 and p/2, for
 * every (type, operator) pair and count of test_allreduce, with MPI_IN_PLACE at the root and
 * recvbuf NULL on every other rank.
 */
#include "cs_test.h"

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    int p = cs_wsize, roots[3] = {0, p - 1, p / 2};
    for (int i = 0; i < 3; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= roots[j] == roots[i];
        if (!seen)
            cs_check_reductions(MPI_COMM_WORLD, roots[i], NULL);
    }
    return cs_test_finish("test_reduce");
}
