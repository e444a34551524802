/*
 * test_window: collshim's extension API (include/collshim.h) against brute-force references
 * computed from PMPI_Allgather, at the p of the run (the driver runs p <= 16):
 * - collshim_window_reduce for every window n and offset r, with a non-commutative user
 *   operator (composition of affine maps x -> a x + b mod 2^32, left operand applied first) at
 *   counts 1 and 3, in place and not, with MPI_MAX, MPI_SUM and MPI_BXOR on ints and MPI_SUM
 *   on int64 (the last three have an inverse: prefix-suffix-inverse runs on them when
 *   COLLSHIM_WINDOW_METHOD asks for it, prefix-suffix on the others);
 * - collshim_window_reduce_block on slices of 1 to 8 elements, every n and r the slice
 *   allows, non-commutative, MPI_MAX, and the three with an inverse (prefix differences);
 * - bad arguments (n < 1, n > p, r outside 0..n-1, count < 0, a short slice) under
 *   MPI_ERRORS_RETURN and under a counting error handler: the MPI error class, the handler
 *   called, and the communicator still usable.
 * The shim must be preloaded (the functions are looked up with dlsym).
 */
#include "../../include/collshim.h"
#include "cs_test.h"

typedef int (*cs_window_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, int, MPI_Comm);

static cs_window_fn win_reduce, win_block;
static MPI_Datatype win_affine; /* two uint32: a, b */
static MPI_Op win_compose;

/* inout = in (+) inout: apply in first, then inout. */
static void win_compose_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const uint32_t *f = in;
    uint32_t *g = inout;
    (void)type;
    for (int i = 0; i < *len; i++, f += 2, g += 2) {
        const uint32_t a = g[0] * f[0], b = g[0] * f[1] + g[1];
        g[0] = a;
        g[1] = b;
    }
}

/* The datatype of an operator's test: the affine maps, int64 for "sum64", else int. */
static MPI_Op win_sum64 = MPI_OP_NULL; /* a tag for MPI_SUM on MPI_INT64_T (never created) */

static MPI_Datatype win_type(MPI_Op op)
{
    return op == win_compose ? win_affine : op == win_sum64 ? MPI_INT64_T : MPI_INT;
}

static MPI_Op win_mpi_op(MPI_Op op)
{
    return op == win_sum64 ? MPI_SUM : op;
}

static const char *win_op_name(MPI_Op op)
{
    return op == win_compose ? "compose"
           : op == win_sum64 ? "sum64"
           : op == MPI_MAX   ? "max"
           : op == MPI_BXOR  ? "bxor"
                             : "sum";
}

static void win_combine(MPI_Op op, const uint32_t *left, uint32_t *right, int count)
{
    if (op == win_compose) {
        win_compose_fn((void *)left, right, &count, NULL);
        return;
    }
    for (int i = 0; i < count && op == win_sum64; i++) {
        uint64_t l, r;
        memcpy(&l, left + 2 * i, 8);
        memcpy(&r, right + 2 * i, 8);
        r += l;
        memcpy(right + 2 * i, &r, 8);
    }
    for (int i = 0; i < count && op != win_sum64; i++) {
        const int32_t l = (int32_t)left[i], r = (int32_t)right[i];
        right[i] = op == MPI_MAX ? (uint32_t)(l > r ? l : r) : op == MPI_BXOR ? left[i] ^ right[i] : left[i] + right[i];
    }
}

/* Words per element: 2 for the affine maps and int64, 1 for ints. */
static int win_words(MPI_Op op)
{
    return op == win_compose || op == win_sum64 ? 2 : 1;
}

static void win_fill(uint32_t *v, int words, int count, int who, int salt)
{
    for (int i = 0; i < count * words; i++)
        v[i] = (uint32_t)cs_hash((uint64_t)who, (uint64_t)i, (uint64_t)salt) | (words == 2 && i % 2 == 0);
}

/* The reduction of elements lo..hi of all (each `count` wide, `words` per element) into out. */
static void win_reference(MPI_Op op, const uint32_t *all, int words, int count, int lo, int hi, uint32_t *out)
{
    const size_t w = (size_t)words * (size_t)count;
    memcpy(out, all + (size_t)hi * w, w * sizeof(uint32_t));
    for (int j = hi - 1; j >= lo; j--)
        win_combine(op, all + (size_t)j * w, out, count);
}

static void win_check_ranks(MPI_Op op, int count, int inplace)
{
    const int p = cs_wsize, words = win_words(op);
    const MPI_Datatype type = win_type(op);
    const size_t w = (size_t)words * (size_t)count;
    uint32_t *all = malloc(w * (size_t)p * 4), *mine = malloc(w * 4), *got = malloc(w * 4), *want = malloc(w * 4);
    for (int n = 1; n <= p; n++)
        for (int r = 0; r < n; r++) {
            const int salt = n * 131 + r;
            win_fill(mine, words, count, cs_wrank, salt);
            PMPI_Allgather(mine, (int)w, MPI_UINT32_T, all, (int)w, MPI_UINT32_T, MPI_COMM_WORLD);
            cs_set_case("window_reduce p=%d n=%d r=%d count=%d op=%s%s", p, n, r, count, win_op_name(op),
                        inplace ? " in place" : "");
            if (inplace)
                memcpy(got, mine, w * 4);
            else
                memset(got, 0xa5, w * 4);
            int rc = win_reduce(inplace ? MPI_IN_PLACE : mine, got, count, type, win_mpi_op(op), n, r, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "returned %d", rc);
            const int lo = cs_wrank - r < 0 ? 0 : cs_wrank - r;
            const int hi = cs_wrank - r + n - 1 > p - 1 ? p - 1 : cs_wrank - r + n - 1;
            win_reference(op, all, words, count, lo, hi, want);
            CHECK(memcmp(got, want, w * 4) == 0, "ranks %d..%d: first word %u, want %u", lo, hi, got[0], want[0]);
        }
    free(all);
    free(mine);
    free(got);
    free(want);
}

static void win_check_block(MPI_Op op, int count)
{
    const int p = cs_wsize, words = win_words(op), total = p * count;
    const MPI_Datatype type = win_type(op);
    const size_t w = (size_t)words * (size_t)count;
    uint32_t *all = malloc(w * (size_t)p * 4), *mine = malloc(w * 4), *got = malloc(w * 4), *want = malloc(4 * 2);
    for (int n = 1; n <= 2 * count + 1; n++)
        for (int r = 0; r < n; r++) {
            if (p > 1 && (r > count || n - 1 - r > count))
                continue;
            const int salt = 7 + n * 131 + r;
            win_fill(mine, words, count, cs_wrank, salt);
            PMPI_Allgather(mine, (int)w, MPI_UINT32_T, all, (int)w, MPI_UINT32_T, MPI_COMM_WORLD);
            cs_set_case("window_reduce_block p=%d count=%d n=%d r=%d op=%s", p, count, n, r, win_op_name(op));
            int rc = win_block(mine, got, count, type, win_mpi_op(op), n, r, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "returned %d", rc);
            for (int i = 0; i < count; i++) {
                const int x = cs_wrank * count + i;
                const int lo = x - r < 0 ? 0 : x - r, hi = x - r + n - 1 > total - 1 ? total - 1 : x - r + n - 1;
                win_reference(op, all, words, 1, lo, hi, want);
                CHECK(memcmp(got + (size_t)i * (size_t)words, want, (size_t)words * 4) == 0,
                      "element %d (elements %d..%d): %u, want %u", x, lo, hi, got[(size_t)i * (size_t)words], want[0]);
            }
        }
    free(all);
    free(mine);
    free(got);
    free(want);
}

static int win_handler_calls;

static void win_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    win_handler_calls++;
}

/* One bad call: the error class, and the handler called once. */
static void win_check_bad(MPI_Comm comm, int block, int count, int n, int r, int want_class)
{
    int v[64] = {0}, out[64], cls = MPI_SUCCESS;
    const int before = win_handler_calls;
    cs_set_case("bad arguments: %s count=%d n=%d r=%d", block ? "block" : "ranks", count, n, r);
    int rc = (block ? win_block : win_reduce)(v, out, count, MPI_INT, MPI_SUM, n, r, comm);
    MPI_Error_class(rc, &cls);
    CHECK(cls == want_class, "error class %d, want %d (code %d)", cls, want_class, rc);
    CHECK(win_handler_calls == before + 1, "the error handler was called %d times", win_handler_calls - before);
}

static void win_check_errors(void)
{
    const int p = cs_wsize;
    MPI_Comm comm;
    MPI_Errhandler eh;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_create_errhandler(win_handler, &eh);
    PMPI_Comm_set_errhandler(comm, eh);
    win_check_bad(comm, 0, 1, 0, 0, MPI_ERR_ARG);
    win_check_bad(comm, 0, 1, p + 1, 0, MPI_ERR_ARG);
    win_check_bad(comm, 0, 1, p, p, MPI_ERR_ARG);
    win_check_bad(comm, 0, 1, 1, -1, MPI_ERR_ARG);
    win_check_bad(comm, 0, -1, 1, 0, MPI_ERR_COUNT);
    win_check_bad(comm, 1, 1, 0, 0, MPI_ERR_ARG);
    win_check_bad(comm, 1, -1, 1, 0, MPI_ERR_COUNT);
    if (p > 1)
        win_check_bad(comm, 1, 2, 7, 3, MPI_ERR_COUNT);
    /* MPI_ERRORS_RETURN: the code comes back, nothing aborts. */
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int v = 1, out = 0, cls = MPI_SUCCESS;
    MPI_Error_class(win_reduce(&v, &out, 1, MPI_INT, MPI_SUM, p + 1, 0, comm), &cls);
    cs_set_case("bad arguments under MPI_ERRORS_RETURN");
    CHECK(cls == MPI_ERR_ARG, "error class %d", cls);
    /* and the communicator still works */
    CHECK(win_reduce(&v, &out, 1, MPI_INT, MPI_SUM, p, p - 1, comm) == MPI_SUCCESS &&
              out == (cs_wrank == p - 1 ? p : cs_wrank + 1),
          "n = p, r = p - 1 after the errors: %d", out);
    PMPI_Errhandler_free(&eh);
    PMPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    win_reduce = (cs_window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce");
    win_block = (cs_window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce_block");
    cs_set_case("symbols");
    CHECK(win_reduce && win_block, "collshim_window_reduce%s not found: is libcollshim.so preloaded?",
          win_reduce ? "_block" : "");
    if (win_reduce && win_block) {
        PMPI_Type_contiguous(2, MPI_UINT32_T, &win_affine);
        PMPI_Type_commit(&win_affine);
        PMPI_Op_create(win_compose_fn, 0, &win_compose);
        win_check_ranks(win_compose, 1, 0);
        win_check_ranks(win_compose, 3, 0);
        win_check_ranks(win_compose, 3, 1);
        win_check_ranks(MPI_MAX, 2, 0);
        win_check_ranks(MPI_SUM, 5, 1);
        win_check_ranks(MPI_SUM, 4, 0);
        win_check_ranks(MPI_BXOR, 3, 0);
        PMPI_Op_create(win_compose_fn, 1, &win_sum64); /* only a distinct handle for the tag */
        win_check_ranks(win_sum64, 2, 1);
        win_check_block(win_compose, 1);
        win_check_block(win_compose, 5);
        win_check_block(MPI_MAX, 8);
        win_check_block(MPI_SUM, 6);
        win_check_block(win_sum64, 3);
        win_check_block(MPI_BXOR, 4);
        PMPI_Op_free(&win_sum64);
        win_check_errors();
        PMPI_Op_free(&win_compose);
        PMPI_Type_free(&win_affine);
    }
    return cs_test_finish("test_window");
}
