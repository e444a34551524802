/*
 * test_multiphase: MPI_Alltoall against PMPI_Alltoall on MPI_COMM_WORLD, for the
 * multiphase exchange the environment forces (COLLSHIM_ALLTOALL=multiphase:<parts>,
 * multiphase:<factors> such as 2x3x4, standard, multiphase; scripts/collshim-test-mpi
 * checks from the log that it ran, or that the log says why it did not). Blocks of 0 1 3 8 1000 65536 bytes of
 * MPI_BYTE, MPI_INT, MPI_DOUBLE, a contiguous pair (sent as INT x2), a vector with gaps (packed by the shim), in place
 * and not; and a duplicate of MPI_COMM_WORLD split in halves, so that a communicator of p/2 ranks runs the same
 * partition or factors or declines them.
 */
#include "cs_test.h"

static MPI_Datatype committed(MPI_Datatype t)
{
    PMPI_Type_commit(&t);
    return t;
}

/* Every block size tested, in units of a type of `unit` bytes where it divides. */
static void check_sizes(MPI_Comm comm, MPI_Datatype st, int sunit, MPI_Datatype rt, int runit, int unit,
                        const char *name)
{
    static const int bytes[] = {0, 1, 3, 8, 1000, 65536};
    for (size_t b = 0; b < sizeof bytes / sizeof bytes[0]; b++) {
        char desc[160];
        if (bytes[b] % unit)
            continue;
        const int n = bytes[b] / unit;
        snprintf(desc, sizeof desc, "%s block=%d B", name, bytes[b]);
        for (int inplace = 0; inplace < 2; inplace++)
            cs_check_alltoall(comm, st, n * sunit, rt, n * runit, inplace, desc);
    }
}

static void check_comm(MPI_Comm comm, MPI_Datatype int2, MPI_Datatype vec2)
{
    check_sizes(comm, MPI_BYTE, 1, MPI_BYTE, 1, 1, "BYTE");
    check_sizes(comm, MPI_INT, 1, MPI_INT, 1, 4, "INT");
    check_sizes(comm, MPI_DOUBLE, 1, MPI_DOUBLE, 1, 8, "DOUBLE");
    check_sizes(comm, MPI_INT, 2, int2, 1, 8, "INT x2 -> contig(2 INT)");
    check_sizes(comm, vec2, 1, MPI_INT, 2, 8, "vector(2 INT, stride 2) -> INT x2");
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    MPI_Datatype int2, vec2;
    PMPI_Type_contiguous(2, MPI_INT, &int2);
    int2 = committed(int2);
    PMPI_Type_vector(2, 1, 2, MPI_INT, &vec2);
    vec2 = committed(vec2);

    check_comm(MPI_COMM_WORLD, int2, vec2);
    MPI_Comm half;
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank < cs_wsize / 2, cs_wrank, &half);
    check_comm(half, int2, vec2);
    PMPI_Comm_free(&half);

    PMPI_Type_free(&int2);
    PMPI_Type_free(&vec2);
    return cs_test_finish("test_multiphase");
}
