/*
 * test_wrapping: integer sums and products wrap, as C's do, under collshim, whatever the MPI
 * library's own operators do (Open MPI 4.1.4's AVX operators saturate 8- and 16-bit sums:
 * 100 + 100 as int8_t gives 127; collshim's start-up probe finds it and combines those pairs
 * with its own loop). MPI_CHAR with MPI_SUM, which MPI does not define but both libraries
 * compute as C's char, is computed so too: its results are the wrapped sums of signed chars.
 *
 * Every call's result is compared with the sum or product modulo 2^w, computed here (each rank
 * knows every rank's data); where the library's own PMPI_* result differs, rank 0 says so once.
 * Operands overflow: the top byte of each is about 100.
 *
 * With logging off (no COLLSHIM_LOG), calls that repeat one the library took go straight to it
 * (src/shim/calls.c): no datatype query (PMPI_Type_size_x) and no context lookup
 * (PMPI_Comm_get_attr), counted by defining those symbols here, ahead of the library: repeats
 * of MPI_CHAR sums the library took by decision, and calls on MPI_COMM_SELF (p = 1) interleaved
 * with an erroneous call (a root outside the communicator, under MPI_ERRORS_RETURN). With
 * CS_TEST_WRAP_LIBRARY=1 the MPI_CHAR sums must have gone to the library (the model's choice for
 * 8 bytes at p = 2), unless the library computes them wrongly and ours ran.
 */
#include "cs_test.h"

typedef int (*cs_attr_fn)(MPI_Comm, int, void *, int *);
typedef int (*cs_size_fn)(MPI_Datatype, MPI_Count *);
typedef int (*cs_isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static long queries, lookups, sends; /* the shim's calls of these, counted here */

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    static cs_attr_fn next;
    if (!next)
        next = (cs_attr_fn)dlsym(RTLD_NEXT, "PMPI_Comm_get_attr");
    lookups++;
    return next(comm, keyval, value, flag);
}

int PMPI_Type_size_x(MPI_Datatype type, MPI_Count *size)
{
    static cs_size_fn next;
    if (!next)
        next = (cs_size_fn)dlsym(RTLD_NEXT, "PMPI_Type_size_x");
    queries++;
    return next(type, size);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    static cs_isend_fn next;
    if (!next)
        next = (cs_isend_fn)dlsym(RTLD_NEXT, "PMPI_Isend");
    sends++;
    return next(buf, count, type, dest, tag, comm, req);
}

static const struct {
    MPI_Datatype type;
    const char *name;
    size_t width;
} types[] = {
    {MPI_INT8_T, "MPI_INT8_T", 1}, {MPI_UINT8_T, "MPI_UINT8_T", 1}, {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1},
    {MPI_CHAR, "MPI_CHAR", 1},     {MPI_SHORT, "MPI_SHORT", 2},     {MPI_UINT16_T, "MPI_UINT16_T", 2},
    {MPI_INT, "MPI_INT", 4},       {MPI_INT64_T, "MPI_INT64_T", 8},
};
enum { NTYPES = sizeof types / sizeof types[0], MAXCOUNT = 1000 };

/* Element i of rank r: top byte about 100, the rest varied. */
static uint64_t operand(size_t width, int r, size_t i)
{
    const uint64_t low = cs_hash((uint64_t)r, i, width);
    const uint64_t top = 100u + (uint64_t)((r * 7 + (int)i * 3) % 28);
    return width == 8 ? (top << 56) | (low >> 8)
                      : (top << (8 * (width - 1))) | (low & ((1ull << (8 * (width - 1))) - 1));
}

static void fill(unsigned char *buf, size_t width, int r, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const uint64_t v = operand(width, r, i);
        memcpy(buf + i * width, &v, width); /* little-endian: the low bytes */
    }
}

/* The sum or product of every rank's operands, modulo 2^(8 width). */
static void expected(unsigned char *buf, size_t width, MPI_Op op, int p, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t acc = op == MPI_SUM ? 0 : 1;
        for (int r = 0; r < p; r++)
            acc = op == MPI_SUM ? acc + operand(width, r, i) : acc * operand(width, r, i);
        memcpy(buf + i * width, &acc, width);
    }
}

static int library_wrong_said;

static void check_one(int ti, MPI_Op op, size_t count, int coll, int root)
{
    static unsigned char send[MAXCOUNT * 8], got[MAXCOUNT * 8], want[MAXCOUNT * 8], lib[MAXCOUNT * 8];
    const size_t width = types[ti].width, bytes = count * width;
    const MPI_Datatype t = types[ti].type;
    const char *opname = op == MPI_SUM ? "MPI_SUM" : "MPI_PROD";
    const char *names[] = {"allreduce", "allreduce in place", "reduce"};
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    cs_set_case("%s %s %s count %zu root %d", names[coll], types[ti].name, opname, count, root);
    fill(send, width, rank, count);
    expected(want, width, op, p, count);
    memset(got, 0, bytes);
    memset(lib, 0, bytes);
    if (coll == 0) {
        MPI_Allreduce(send, got, (int)count, t, op, MPI_COMM_WORLD);
        PMPI_Allreduce(send, lib, (int)count, t, op, MPI_COMM_WORLD);
    } else if (coll == 1) {
        memcpy(got, send, bytes);
        MPI_Allreduce(MPI_IN_PLACE, got, (int)count, t, op, MPI_COMM_WORLD);
        PMPI_Allreduce(send, lib, (int)count, t, op, MPI_COMM_WORLD);
    } else {
        MPI_Reduce(send, got, (int)count, t, op, root, MPI_COMM_WORLD);
        PMPI_Reduce(send, lib, (int)count, t, op, root, MPI_COMM_WORLD);
    }
    if (coll == 2 && rank != root)
        return;
    for (size_t i = 0; i < count; i++) {
        if (memcmp(got + i * width, want + i * width, width) != 0) {
            int64_t g = 0, w = 0;
            memcpy(&g, got + i * width, width);
            memcpy(&w, want + i * width, width);
            CHECK(0, "element %zu: got 0x%llx, the wrapped result is 0x%llx", i, (unsigned long long)g,
                  (unsigned long long)w);
            break;
        }
    }
    if (memcmp(lib, want, bytes) != 0 && rank == root && !library_wrong_said++)
        printf("test_wrapping: the library's own %s of %s %s does not wrap (collshim's does)\n", names[coll],
               types[ti].name, opname);
}

/* The extension API's window reduction (n = p, r = 0: rank i gets ranks i .. p - 1) wraps too. */
static void check_window(int ti, size_t count)
{
    typedef int (*cs_window_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, int, MPI_Comm);
    static unsigned char send[MAXCOUNT * 8], got[MAXCOUNT * 8], want[MAXCOUNT * 8];
    const cs_window_fn win = (cs_window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce");
    const size_t width = types[ti].width;
    int rank, p;
    if (!win)
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    cs_set_case("window n=%d r=0 %s MPI_SUM count %zu", p, types[ti].name, count);
    fill(send, width, rank, count);
    for (size_t i = 0; i < count; i++) {
        uint64_t acc = 0;
        for (int r = rank; r < p; r++)
            acc += operand(width, r, i);
        memcpy(want + i * width, &acc, width);
    }
    CHECK(win(send, got, (int)count, types[ti].type, MPI_SUM, p, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
          "collshim_window_reduce failed");
    CHECK(memcmp(got, want, count * width) == 0, "the window's sums do not wrap");
}

/* The shim's datatype queries and context lookups while `calls` repeat the call. */
#define REPEATED(what, calls, stmt)                                                                                    \
    do {                                                                                                               \
        const long q0 = queries, l0 = lookups, s0 = sends;                                                             \
        for (int k = 0; k < (calls); k++) {                                                                            \
            stmt;                                                                                                      \
        }                                                                                                              \
        what##_queries = queries - q0;                                                                                 \
        what##_lookups = lookups - l0;                                                                                 \
        what##_sends = sends - s0;                                                                                     \
    } while (0)

static void check_repeats(int must_be_library)
{
    char send[8], got[8], want[8];
    long char_queries, char_lookups, char_sends, other_queries, other_lookups, other_sends;
    int rank, p, rc = MPI_SUCCESS;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    fill((unsigned char *)send, 1, rank, 8);
    expected((unsigned char *)want, 1, MPI_SUM, p, 8);

    cs_set_case("MPI_CHAR sums repeated");
    const long q0 = queries;
    MPI_Allreduce(send, got, 8, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD); /* described, decided */
    CHECK(p == 1 || queries > q0, "the shim made no datatype query on a new call: are the counters in the way?");
    /* Does the library's own sum of chars wrap? On long vectors: its vector paths are the wrong ones. */
    static unsigned char lsend[MAXCOUNT], lgot[MAXCOUNT], lwant[MAXCOUNT];
    fill(lsend, 1, rank, MAXCOUNT);
    expected(lwant, 1, MPI_SUM, p, MAXCOUNT);
    PMPI_Allreduce(lsend, lgot, MAXCOUNT, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
    const int library_wrong = memcmp(lgot, lwant, MAXCOUNT) != 0;
    REPEATED(char, 10, MPI_Allreduce(send, got, 8, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    CHECK(memcmp(got, want, 8) == 0, "the repeated MPI_CHAR sum is not the wrapped sum");
    if (char_sends == 0) /* the library took them: straight there */
        CHECK(char_queries == 0 && char_lookups == 0,
              "10 repeats the library took made %ld datatype queries and %ld context lookups", char_queries,
              char_lookups);
    else
        CHECK(!must_be_library || library_wrong,
              "ours ran the 8-byte MPI_CHAR sums at p = %d (%ld messages), where the library computes them right", p,
              char_sends);

    /* Interleaved, so that each call's communicator differs from the last one's: the shim's
     * context lookup (one communicator remembered) would have to ask for the attribute. */
    cs_set_case("p = 1 and erroneous calls repeated");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Allreduce(send, got, 8, MPI_CHAR, MPI_SUM, MPI_COMM_SELF);
    MPI_Reduce(send, got, 8, MPI_INT8_T, MPI_SUM, p, MPI_COMM_WORLD); /* root outside: the library's error */
    REPEATED(other, 10, {
        MPI_Allreduce(send, got, 8, MPI_CHAR, MPI_SUM, MPI_COMM_SELF);
        rc |= MPI_Reduce(send, got, 8, MPI_INT8_T, MPI_SUM, p, MPI_COMM_WORLD);
    });
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(rc != MPI_SUCCESS, "a root outside the communicator was not reported");
    CHECK(other_queries == 0 && other_lookups == 0 && other_sends == 0,
          "10 repeats on MPI_COMM_SELF and of an erroneous call made %ld datatype queries, %ld context lookups, "
          "%ld messages",
          other_queries, other_lookups, other_sends);
}

int main(int argc, char **argv)
{
    static const size_t counts[] = {1, 7, 100, MAXCOUNT};
    cs_test_init(&argc, &argv);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int ti = 0; ti < NTYPES; ti++)
        for (int o = 0; o < 2; o++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                for (int coll = 0; coll < 3; coll++) {
                    check_one(ti, o ? MPI_PROD : MPI_SUM, counts[c], coll, 0);
                    if (coll == 2 && p > 1)
                        check_one(ti, o ? MPI_PROD : MPI_SUM, counts[c], coll, p - 1);
                }
    for (int ti = 0; ti < NTYPES; ti++)
        check_window(ti, MAXCOUNT);
    const char *log = getenv("COLLSHIM_LOG"), *library = getenv("CS_TEST_WRAP_LIBRARY");
    if (cs_shim_loaded() && !(log && *log))
        check_repeats(library && !strcmp(library, "1"));
    return cs_test_finish("test_wrapping");
}
