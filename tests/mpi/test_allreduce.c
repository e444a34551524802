/*
 * test_allreduce: MPI_Allreduce against PMPI_Allreduce on MPI_COMM_WORLD, for every (type,
 * operator) pair cs_test.h knows (integers of every width, floats, MPI_DOUBLE_INT and MPI_2INT
 * with MINLOC/MAXLOC, a non-commutative and a commutative user operator on a 4-int type and on
 * derived types of it: contiguous with a nonzero lower bound, and non-contiguous vectors), at
 * counts 0 1 2 3 7 p-1 1000 (and 4099, 65539 for a few pairs), in place and not. Exact results
 * bitwise; float sums within a bound and bitwise the same on every rank.
 */
#include "cs_test.h"

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    cs_check_reductions(MPI_COMM_WORLD, -1, NULL);
    return cs_test_finish("test_allreduce");
}
