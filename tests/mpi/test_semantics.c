/*
 * test_semantics: the MPI semantics collshim must keep.
 *
 * - sub-communicators from MPI_Comm_split: odd/even ranks, and groups of sizes 1, 2, 3, ... with
 *   ranks in reverse order; several communicators used interleaved; MPI_COMM_SELF;
 * - communicators duplicated, used and freed in a loop (the shim caches a context and a private
 *   duplicate on each): enough iterations to run out of MPICH's context ids if one leaked; a
 *   duplicate of a communicator the shim already knows, used after the original is freed;
 * - the user's point-to-point traffic (an MPI_ANY_SOURCE/MPI_ANY_TAG receive posted before the
 *   collectives, messages in flight across them) never meets the shim's;
 * - an intercommunicator: allreduce, reduce and alltoall (the shim hands them to MPI);
 * - errors: with an error handler that returns, invalid calls return an error code, through the
 *   communicator's handler exactly once, and the program goes on.
 */
#include "cs_test.h"

/* The reductions run on every sub-communicator: a few pairs, all counts. */
static int few_pairs(const cs_type *t, const cs_op *op)
{
    return (t->type == MPI_INT && op->op == MPI_SUM) || (t->type == MPI_DOUBLE && op->op == MPI_SUM) ||
           (t->kind == CS_MAT && op->cls == CS_USER && op->big);
}

enum { ALL_PAIRS = 1, NO_ALLTOALL = 2 };

/* Allreduce, reduce at the last rank, alltoall of INT blocks: each checked against PMPI. */
static void check_all_collectives(MPI_Comm comm, int flags)
{
    int p;
    PMPI_Comm_size(comm, &p);
    if (flags & ALL_PAIRS) {
        cs_check_reductions(comm, -1, few_pairs);
        cs_check_reductions(comm, p - 1, few_pairs);
    } else {
        const cs_type *t = cs_type_of(MPI_INT);
        const cs_op *sum = &cs_ops[0];
        cs_check_reduction(&(cs_red){comm, t, sum, 3, -1, 0});
        cs_check_reduction(&(cs_red){comm, t, sum, 5, p - 1, 0});
    }
    if (!(flags & NO_ALLTOALL))
        cs_check_alltoall(comm, MPI_INT, 3, MPI_INT, 3, 0, "INT block=3");
}

static void test_splits(void)
{
    MPI_Comm parity, tri;
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, cs_wrank, &parity);
    /* Groups of sizes 1, 2, 3, ... (the last one maybe smaller), ranks reversed. */
    int color = 0;
    while ((color + 1) * (color + 2) / 2 <= cs_wrank)
        color++;
    PMPI_Comm_split(MPI_COMM_WORLD, color, -cs_wrank, &tri);
    check_all_collectives(parity, ALL_PAIRS);
    check_all_collectives(tri, ALL_PAIRS);
    check_all_collectives(MPI_COMM_SELF, ALL_PAIRS);

    /* Interleaved: world, parity, tri, self, world, ... */
    MPI_Comm comms[] = {MPI_COMM_WORLD, parity, tri, MPI_COMM_SELF};
    for (int round = 0; round < 5; round++)
        for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
            check_all_collectives(comms[i], 0);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&tri);
}

static void test_dup_free(void)
{
    MPI_Comm parent, c, d;
    PMPI_Comm_dup(MPI_COMM_WORLD, &parent);
    PMPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    cs_set_case("dup/use/free loop");
    for (int i = 0; i < 100; i++) {
        CHECK(MPI_Comm_dup(parent, &c) == MPI_SUCCESS, "MPI_Comm_dup failed at iteration %d", i);
        check_all_collectives(c, 0);
        MPI_Comm_free(&c);
    }
    /*
     * MPICH has about 2046 context ids: a loop this long runs out of them if the shim's private
     * duplicate (or the communicator itself) leaks. One small allreduce per communicator; at
     * p <= 8 only, for time.
     */
    int many = cs_wsize <= 8 ? 2100 : 100; /* the context ids do not depend on p */
    for (int i = 0; i < many; i++) {
        cs_set_case("dup/allreduce/free loop, iteration %d", i);
        int rc = MPI_Comm_dup(parent, &c);
        CHECK(rc == MPI_SUCCESS, "MPI_Comm_dup failed: a communicator leaked?");
        if (rc != MPI_SUCCESS)
            break;
        int one = 1, sum = 0;
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        CHECK(rc == MPI_SUCCESS && sum == cs_wsize, "rc %d sum %d", rc, sum);
        MPI_Comm_free(&c);
    }
    /* A duplicate of a communicator the shim knows outlives it. */
    cs_set_case("dup of a used communicator");
    MPI_Comm_dup(parent, &c);
    check_all_collectives(c, 0);
    MPI_Comm_dup(c, &d);
    MPI_Comm_free(&c);
    check_all_collectives(d, 0);
    MPI_Comm_free(&d);
    MPI_Comm_free(&parent);
}

/*
 * Each rank posts MPI_Irecv(ANY_SOURCE, ANY_TAG), then sends its right neighbour messages with tags
 * 0..NEARLY-1, then runs collectives on the same communicator. The left neighbour is the only
 * user sender to a rank and messages do not overtake, so the wildcard receive must get tag 0 from
 * the left neighbour, whatever the collectives sent meanwhile; the others arrive intact.
 */
static void test_user_traffic(MPI_Comm comm)
{
    enum { NEARLY = 4, LEN = 8 };
    int rank, p, n;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int right = (rank + 1) % p, left = (rank + p - 1) % p;
    int any[4 * LEN], early[NEARLY][LEN], got[LEN];
    MPI_Request wild, sends[NEARLY];
    MPI_Status st;

    MPI_Irecv(any, 4 * LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &wild);
    for (int t = 0; t < NEARLY; t++) {
        for (int k = 0; k < LEN; k++)
            early[t][k] = 1000 * rank + 10 * t + k;
        MPI_Isend(early[t], LEN, MPI_INT, right, t, comm, &sends[t]);
    }
    check_all_collectives(comm, 0);
    cs_set_case("user point-to-point traffic around collectives");
    MPI_Wait(&wild, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 0 && n == LEN, "wildcard receive got source %d tag %d count %d",
          st.MPI_SOURCE, st.MPI_TAG, n);
    for (int k = 0; k < LEN; k++)
        CHECK(any[k] == 1000 * left + k, "wildcard message word %d is %d", k, any[k]);
    for (int t = 1; t < NEARLY; t++) {
        MPI_Recv(got, LEN, MPI_INT, left, t, comm, &st);
        for (int k = 0; k < LEN; k++)
            CHECK(got[k] == 1000 * left + 10 * t + k, "message tag %d word %d is %d", t, k, got[k]);
    }
    for (int t = 0; t < NEARLY; t++)
        MPI_Wait(&sends[t], MPI_STATUS_IGNORE);
}

/* The user's wildcard receive posted before collectives, with nothing of the user's in flight:
 * it must still be pending after them. */
static void test_wildcard_pending(MPI_Comm comm)
{
    int rank, p, buf[16], flag = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    MPI_Request wild;
    MPI_Status st;
    MPI_Irecv(buf, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &wild);
    /* MPICH 4.0.2's own MPI_Alltoall on one process hangs with an MPI_ANY_TAG receive pending:
     * the receive takes its message to self. No reference there, so no alltoall at p = 1. */
    check_all_collectives(comm, ALL_PAIRS | (p == 1 ? NO_ALLTOALL : 0));
    cs_set_case("wildcard receive pending across collectives");
    MPI_Test(&wild, &flag, &st);
    CHECK(!flag, "the wildcard receive completed during collectives: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    PMPI_Barrier(comm); /* every rank tested before anyone sends */
    int v = 4242 + rank;
    MPI_Request send;
    MPI_Isend(&v, 1, MPI_INT, (rank + 1) % p, 5, comm, &send);
    if (!flag)
        MPI_Wait(&wild, &st);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    CHECK(st.MPI_SOURCE == (rank + p - 1) % p && st.MPI_TAG == 5 && buf[0] == 4242 + (rank + p - 1) % p,
          "got source %d tag %d value %d", st.MPI_SOURCE, st.MPI_TAG, buf[0]);
}

/* An intercommunicator between the lower and the upper half of the ranks. */
static void test_intercomm(void)
{
    if (cs_wsize < 2)
        return;
    int half = cs_wsize / 2, low = cs_wrank < half;
    MPI_Comm local, inter;
    PMPI_Comm_split(MPI_COMM_WORLD, low, cs_wrank, &local);
    PMPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 99, &inter);
    int lrank, remote;
    PMPI_Comm_rank(inter, &lrank);
    PMPI_Comm_remote_size(inter, &remote);
    int remote_base = low ? half : 0;
    enum { N = 5 };

    int in[N], out[N], ref[N];
    for (int i = 0; i < N; i++)
        in[i] = 10 * cs_wrank + i;

    cs_set_case("intercommunicator allreduce");
    PMPI_Allreduce(in, ref, N, MPI_INT, MPI_SUM, inter);
    CHECK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, inter) == MPI_SUCCESS, "rc");
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int r = 0; r < remote; r++)
            want += 10 * (remote_base + r) + i;
        CHECK(out[i] == want && ref[i] == want, "element %d: %d (PMPI %d), want %d", i, out[i], ref[i], want);
    }

    /* Reduce: the lower group's rank 0 is the root; the upper group sends. */
    cs_set_case("intercommunicator reduce");
    int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    memset(out, 0, sizeof out);
    CHECK(MPI_Reduce(in, out, N, MPI_INT, MPI_SUM, root, inter) == MPI_SUCCESS, "rc");
    if (root == MPI_ROOT)
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int r = 0; r < remote; r++)
                want += 10 * (remote_base + r) + i;
            CHECK(out[i] == want, "element %d: %d, want %d", i, out[i], want);
        }

    cs_set_case("intercommunicator alltoall");
    int *a2a_in = malloc(sizeof(int) * (size_t)remote), *a2a_out = malloc(sizeof(int) * (size_t)remote);
    for (int r = 0; r < remote; r++)
        a2a_in[r] = 1000 * cs_wrank + remote_base + r; /* to world rank remote_base + r */
    CHECK(MPI_Alltoall(a2a_in, 1, MPI_INT, a2a_out, 1, MPI_INT, inter) == MPI_SUCCESS, "rc");
    for (int r = 0; r < remote; r++)
        CHECK(a2a_out[r] == 1000 * (remote_base + r) + cs_wrank, "block %d: %d", r, a2a_out[r]);
    free(a2a_in);
    free(a2a_out);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static int handler_calls;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

/* One invalid call: an error code of the expected class (0: any), the handler called once. */
static void expect_error(int rc, int want_class, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what);
    CHECK(want_class == 0 || cls == want_class, "%s: error class %d, want %d", what, cls, want_class);
    CHECK(handler_calls == 1, "%s: error handler called %d times", what, handler_calls);
    handler_calls = 0;
}

static void test_errors(void)
{
    MPI_Comm comm;
    MPI_Errhandler eh;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    int a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8 * 16 + 8];
    int *big = malloc(sizeof(int) * 8 * (size_t)cs_wsize), *bigr = malloc(sizeof(int) * 8 * (size_t)cs_wsize);

    cs_set_case("errors");
    check_all_collectives(comm, 0); /* the shim knows this communicator */
    cs_set_case("errors");
    expect_error(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm), 0, "MPI_Allreduce with MPI_DATATYPE_NULL");
    expect_error(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP, "MPI_Allreduce with MPI_OP_NULL");
    expect_error(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, cs_wsize, comm), MPI_ERR_ROOT, "MPI_Reduce with root p");
    expect_error(MPI_Alltoall(big, -1, MPI_INT, bigr, -1, MPI_INT, comm), MPI_ERR_COUNT, "MPI_Alltoall with count -1");
    expect_error(MPI_Alltoall(big, 1, MPI_DATATYPE_NULL, bigr, 1, MPI_INT, comm), MPI_ERR_TYPE,
                 "MPI_Alltoall with MPI_DATATYPE_NULL");
    /* MPICH 4.0.2 itself crashes on these (an assertion in its pack code): with the shim only. */
    if (cs_shim_loaded()) {
        expect_error(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT, "MPI_Allreduce with count -1");
        expect_error(MPI_Reduce(a, b, -1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_COUNT, "MPI_Reduce with count -1");
    }
    /* The program goes on, on the same communicator. */
    check_all_collectives(comm, 0);
    cs_set_case("errors");
    CHECK(handler_calls == 0, "error handler called by valid calls");
    free(big);
    free(bigr);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    test_splits();
    test_dup_free();
    MPI_Comm dup;
    PMPI_Comm_dup(MPI_COMM_WORLD, &dup);
    test_user_traffic(MPI_COMM_WORLD);
    test_user_traffic(dup);
    test_wildcard_pending(MPI_COMM_WORLD);
    test_wildcard_pending(dup);
    MPI_Comm_free(&dup);
    test_intercomm();
    test_errors();
    return cs_test_finish("test_semantics");
}
