/*
 * test_repeat: a call that repeats one the MPI library took by decision goes there again without
 * being described (src/shim/native_memo.c), and nothing else does. With logging off (this program
 * turns it off, and writes its own configuration: rules that send blocks and vectors of at most
 * 8 bytes to the library and larger ones to one algorithm of ours), for MPI_Allreduce, MPI_Reduce
 * and MPI_Alltoall, each call's result is checked, and whether collshim's algorithm ran is read
 * from the point-to-point calls libcs_fault.so (preloaded by the driver) passed on:
 *
 * - small calls repeated go to the library, larger ones between them to ours, in place or not;
 * - a derived datatype (alltoall) or a user operator (allreduce) that is freed, whose handle comes
 *   back as another's of another size or class, is decided anew (never remembered);
 * - a communicator freed, whose handle comes back as one of another size, is decided anew;
 * - a root that changes is decided anew.
 *
 * With CS_TEST_REPEAT_RANGE=1 the configuration is a native range instead ([[0, 8]] bytes for the
 * three collectives, the model deciding the rest): calls in it go to the library, remembered by
 * the process before any context (src/shim/call.c), and the calls between them are not taken for
 * them (their results checked; which of ours or the library's ran is the model's to say).
 */
#include <unistd.h>

#include "cs_test.h"

typedef long (*posted_fn)(void);
static posted_fn fault_posted;

enum { SMALL = 1, LARGE = 64 };
enum { LIBRARY = 0, OURS = 1, OURS_AT_2 = 2, EITHER = 3 }; /* OURS_AT_2: allreduce's small vectors, rules */
static int range_mode;                                     /* CS_TEST_REPEAT_RANGE: a native range, not rules */

/* Did collshim post point-to-point messages since *mark (and move the mark)? */
static int ours_ran(long *mark)
{
    const long now = fault_posted();
    const int ran = now != *mark;
    *mark = now;
    return ran;
}

static void add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

/* inout = in (the lower ranks' value wins): associative, not commutative. */
static void first_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

static void write_config(char *path, size_t size)
{
    snprintf(path, size, "%s/collshim-test-repeat.%d.yaml", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    if (range_mode) {
        fputs("allreduce:\n  native: [[0, 8]]\nreduce:\n  native: [[0, 8]]\nalltoall:\n  native: [[0, 8]]\n", f);
        fclose(f);
        return;
    }
    /* Allreduce: the library for small vectors at p > 2; ours at every p up to 32 otherwise
     * (butterfly on powers of two, elimination on the others). */
    fputs("allreduce:\n  rules: [{p: [3, inf], bytes: [0, 8], algorithm: native}", f);
    for (int p = 2; p <= 32; p++)
        fprintf(f, ",\n    {p: [%d, %d], algorithm: %s}", p, p, (p & (p - 1)) == 0 ? "butterfly" : "elimination");
    fputs("]\n"
          "reduce:\n  rules: [{p: [2, inf], bytes: [0, 8], algorithm: native},\n"
          "          {p: [2, inf], bytes: [9, inf], algorithm: binomial}]\n"
          "alltoall:\n  rules: [{p: [2, inf], bytes: [0, 8], algorithm: native},\n"
          "          {p: [2, inf], bytes: [9, inf], algorithm: linear}]\n",
          f);
    fclose(f);
}

/* MPI_Allreduce of count elements of type (count ints' worth: type is MPI_INT or a contiguous
 * run of ints) with op, in place or not; checks the result, and whether ours ran. */
static void allreduce_case(MPI_Comm comm, int count, MPI_Datatype type, int ints, MPI_Op op, int first, int inplace,
                           int expect_ours, long *mark)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    const int n = count * ints;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        in[i] = out[i] = (r + 1) * (i + 3);
    int rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, count, type, op, comm);
    CHECK(rc == MPI_SUCCESS, "returned %d", rc);
    for (int i = 0; i < n; i++) {
        const int want = first ? i + 3 : (i + 3) * p * (p + 1) / 2;
        CHECK(out[i] == want, "element %d is %d, not %d", i, out[i], want);
    }
    const int ran = ours_ran(mark);
    if (expect_ours == OURS_AT_2)
        expect_ours = p == 2;
    CHECK(p == 1 || expect_ours == EITHER || ran == expect_ours, "collshim's algorithm %s at p = %d",
          ran ? "ran" : "did not run", p);
    free(in);
    free(out);
}

static void reduce_case(MPI_Comm comm, int count, int root, int expect_ours, long *mark)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    int in[LARGE], out[LARGE];
    for (int i = 0; i < count; i++)
        in[i] = out[i] = (r + 1) * (i + 5);
    const int inplace = r == root && count == SMALL; /* in place at the root, some of the time */
    int rc = MPI_Reduce(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, root, comm);
    CHECK(rc == MPI_SUCCESS, "returned %d", rc);
    for (int i = 0; r == root && i < count; i++)
        CHECK(out[i] == (i + 5) * p * (p + 1) / 2, "element %d is %d", i, out[i]);
    const int ran = ours_ran(mark);
    /* Ours may leave out a rank with nothing to send or receive; some rank posts. */
    int any = ran;
    PMPI_Allreduce(&ran, &any, 1, MPI_INT, MPI_LOR, comm);
    CHECK(p == 1 || expect_ours == EITHER || any == expect_ours, "collshim's algorithm %s",
          any ? "ran" : "did not run");
}

/* MPI_Alltoall of count blocks of type per rank (type: MPI_INT, or a contiguous run of ints, the
 * count then in runs and ints ints a run). */
static void alltoall_case(MPI_Comm comm, int count, MPI_Datatype type, int ints, int inplace, int expect_ours,
                          long *mark)
{
    int r, p;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    const int block = count * ints;
    const size_t n = (size_t)block * (size_t)p;
    int *in = malloc(sizeof(int) * n), *out = malloc(sizeof(int) * n);
    for (size_t i = 0; i < n; i++)
        in[i] = out[i] = r * 100000 + (int)i;
    int rc = MPI_Alltoall(inplace ? MPI_IN_PLACE : in, count, type, out, count, type, comm);
    CHECK(rc == MPI_SUCCESS, "returned %d", rc);
    for (int s = 0; s < p; s++)
        for (int i = 0; i < block; i++)
            CHECK(out[s * block + i] == s * 100000 + r * block + i, "block %d element %d", s, i);
    const int ran = ours_ran(mark);
    CHECK(p == 1 || expect_ours == EITHER || ran == expect_ours, "collshim's algorithm %s",
          ran ? "ran" : "did not run");
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    char config[512];
    range_mode = getenv("CS_TEST_REPEAT_RANGE") != NULL;
    write_config(config, sizeof config);
    setenv("COLLSHIM_CONFIG", config, 1);
    setenv("COLLSHIM_LOG_LEVEL", "off", 1); /* the memo is for calls that are not logged */
    cs_test_init(&argc, &argv);
    fault_posted = (posted_fn)dlsym(RTLD_DEFAULT, "cs_fault_posted");
    if (!fault_posted || !cs_shim_loaded()) {
        if (cs_wrank == 0)
            fprintf(stderr, "test_repeat: needs collshim and tests/mpi/fault/libcs_fault.so preloaded\n");
        MPI_Finalize();
        return 2;
    }
    long mark = fault_posted();
    MPI_Comm comm = MPI_COMM_WORLD;
    /* What small vectors and larger calls get: by rules, or by a native range and the model. */
    const int small_vec = range_mode ? LIBRARY : OURS_AT_2, larger = range_mode ? EITHER : OURS;

    cs_set_case("MPI_Allreduce: small repeated, large between");
    for (int round = 0; round < 3; round++) {
        allreduce_case(comm, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        allreduce_case(comm, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        allreduce_case(comm, SMALL, MPI_INT, 1, MPI_SUM, 0, 1, small_vec, &mark);
        allreduce_case(comm, LARGE, MPI_INT, 1, MPI_SUM, 0, round & 1, larger, &mark);
        allreduce_case(comm, 2, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark); /* 8 bytes */
        allreduce_case(comm, 3, MPI_INT, 1, MPI_SUM, 0, 0, larger, &mark);    /* 12 bytes */
    }

    cs_set_case("MPI_Allreduce: a user operator freed, its handle reused by a non-commutative one");
    for (int round = 0; round < 3; round++) {
        MPI_Op add, first;
        MPI_Op_create(add_fn, 1, &add);
        allreduce_case(comm, SMALL, MPI_INT, 1, add, 0, 0, small_vec, &mark);
        allreduce_case(comm, SMALL, MPI_INT, 1, add, 0, 0, small_vec, &mark);
        MPI_Op_free(&add);
        MPI_Op_create(first_fn, 0, &first);
        allreduce_case(comm, SMALL, MPI_INT, 1, first, 1, 0, small_vec, &mark);
        allreduce_case(comm, LARGE, MPI_INT, 1, first, 1, 0, larger, &mark);
        MPI_Op_free(&first);
    }

    cs_set_case("a communicator freed, its handle reused by one of another size");
    for (int round = 0; round < 3; round++) {
        MPI_Comm dup, half;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        allreduce_case(dup, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        allreduce_case(dup, LARGE, MPI_INT, 1, MPI_SUM, 0, 0, larger, &mark);
        allreduce_case(dup, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        allreduce_case(dup, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        MPI_Comm_free(&dup);
        /* Often the handle dup had: at p = 3 and 4, halves of 2 ranks, where small vectors are ours. */
        MPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, cs_wrank, &half);
        allreduce_case(half, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        allreduce_case(half, LARGE, MPI_INT, 1, MPI_SUM, 0, 0, larger, &mark);
        allreduce_case(half, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
        MPI_Comm_free(&half);
        allreduce_case(comm, SMALL, MPI_INT, 1, MPI_SUM, 0, 0, small_vec, &mark);
    }

    cs_set_case("MPI_Reduce: small repeated, the root moving, large between");
    for (int round = 0; round < 3; round++) {
        for (int root = 0; root < cs_wsize; root++) {
            reduce_case(comm, SMALL, root, 0, &mark);
            reduce_case(comm, SMALL, root, 0, &mark);
            reduce_case(comm, LARGE, root, larger, &mark);
        }
    }

    cs_set_case("MPI_Alltoall: small blocks repeated, in place or not, large between");
    for (int round = 0; round < 3; round++) {
        alltoall_case(comm, SMALL, MPI_INT, 1, 0, 0, &mark);
        alltoall_case(comm, SMALL, MPI_INT, 1, 0, 0, &mark);
        alltoall_case(comm, SMALL, MPI_INT, 1, 1, 0, &mark);
        alltoall_case(comm, SMALL, MPI_INT, 1, 1, 0, &mark);
        alltoall_case(comm, LARGE, MPI_INT, 1, round & 1, larger, &mark);
    }

    cs_set_case("MPI_Alltoall: a derived datatype freed, its handle reused by a larger one");
    for (int round = 0; round < 3; round++) {
        MPI_Datatype one, many;
        MPI_Type_contiguous(1, MPI_INT, &one);
        MPI_Type_commit(&one);
        alltoall_case(comm, SMALL, one, 1, 0, 0, &mark);
        alltoall_case(comm, SMALL, one, 1, 0, 0, &mark);
        MPI_Type_free(&one);
        MPI_Type_contiguous(LARGE, MPI_INT, &many); /* often the handle one had */
        MPI_Type_commit(&many);
        alltoall_case(comm, SMALL, many, LARGE, round & 1, larger, &mark);
        MPI_Type_free(&many);
    }

    unlink(config);
    return cs_test_finish("test_repeat");
}
