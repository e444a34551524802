/*
 * test_alltoall: MPI_Alltoall against PMPI_Alltoall and against the known data, on
 * MPI_COMM_WORLD: blocks of 0 1 3 8 1000 16384 elements of MPI_CHAR, MPI_INT, MPI_DOUBLE, in
 * place and not; send and receive types that differ but have the same signature; non-contiguous
 * types (vectors, with gaps that must keep their bytes) on either side or both; a contiguous type
 * with a nonzero lower bound.
 */
#include "cs_test.h"

static MPI_Datatype committed(MPI_Datatype t)
{
    PMPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    static const int blocks[] = {0, 1, 3, 8, 1000, 16384};
    MPI_Datatype int2, vec2, vec2r, shifted;
    PMPI_Type_contiguous(2, MPI_INT, &int2);
    int2 = committed(int2);
    PMPI_Type_vector(2, 1, 2, MPI_INT, &vec2); /* ints 0 _ 2 */
    vec2 = committed(vec2);
    PMPI_Type_create_resized(vec2, 0, 16, &vec2r); /* ints 0 _ 2 _ */
    vec2r = committed(vec2r);
    int blen = 2;
    MPI_Aint disp = 12;
    PMPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &shifted); /* lb 12: contiguous */
    shifted = committed(shifted);

    /* (send type, elements per block unit, receive type, units): same signatures. */
    const struct {
        MPI_Datatype st;
        int sunits;
        MPI_Datatype rt;
        int runits;
        const char *name;
    } pairs[] = {
        {MPI_CHAR, 1, MPI_CHAR, 1, "CHAR"},
        {MPI_INT, 1, MPI_INT, 1, "INT"},
        {MPI_DOUBLE, 1, MPI_DOUBLE, 1, "DOUBLE"},
        {MPI_INT, 2, int2, 1, "INT x2 -> contig(2 INT)"},
        {vec2, 1, MPI_INT, 2, "vector(2 INT, stride 2) -> INT x2"},
        {int2, 1, vec2r, 1, "contig(2 INT) -> vector resized to 16"},
        {vec2r, 1, vec2, 1, "vector resized to 16 -> vector"},
        {shifted, 1, MPI_INT, 2, "hindexed(2 INT at +12) -> INT x2"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            char desc[160];
            int n = blocks[b];
            if (i >= 3 && n > 1000) /* derived types: blocks up to 1000 */
                continue;
            snprintf(desc, sizeof desc, "%s block=%d", pairs[i].name, n);
            for (int inplace = 0; inplace < 2; inplace++)
                cs_check_alltoall(MPI_COMM_WORLD, pairs[i].st, n * pairs[i].sunits, pairs[i].rt, n * pairs[i].runits,
                                  inplace, desc);
        }
    }
    MPI_Datatype mine[] = {int2, vec2, vec2r, shifted};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        PMPI_Type_free(&mine[i]);
    return cs_test_finish("test_alltoall");
}
