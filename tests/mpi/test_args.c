/*
 * test_args: the arguments the MPI standard ignores are ignored, and erroneous calls get the MPI
 * library's own answer (MPI 4.0 §6.8, §6.9.1, §6.9.6; the table in src/shim/args.c).
 *
 * - alltoall in place with sendcount -1 and MPI_DATATYPE_NULL, and with a sendcount and sendtype
 *   that would describe far more data than the buffer holds: both ignored;
 * - allreduce in place, reduce in place at the root and with the receive buffer NULL elsewhere; at
 *   a non-root, a receive buffer too small for the result must not be touched;
 * - MPI_BOTTOM (NULL in MPICH) as the buffer, with a datatype that addresses absolutely;
 * - erroneous calls made the same way on every rank (so that none waits for another): the same
 *   error class from MPI_* as from PMPI_*, through the communicator's error handler once each;
 *   a wrong buffer also right after a good call with the same handles and counts (the shim
 *   described that one, and keeps its description: the buffers are checked on every call).
 *
 * Everything on MPI_COMM_WORLD and on a sub-communicator (ranks reversed, odd and even apart).
 */
#include "cs_test.h"

/* An integer sum as a user operator (commutative), for the contiguous derived types of ints that
 * MPICH's own operators refuse. The data of each buffer starts at its true lower bound (for a type
 * that addresses absolutely, the buffer is MPI_BOTTOM or a copy placed as if it were). */
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Count size, lb, extent;
    PMPI_Type_size_x(*type, &size);
    PMPI_Type_get_true_extent_x(*type, &lb, &extent);
    /* In integers: in and inout need not point into an object (MPI_BOTTOM, or a copy less its
     * lower bound), so pointer arithmetic on them would be undefined. */
    const int *x = (const int *)((uintptr_t)in + (uintptr_t)lb);
    int *y = (int *)((uintptr_t)inout + (uintptr_t)lb);
    for (MPI_Count i = 0; i < *len * (size / (MPI_Count)sizeof(int)); i++)
        y[i] += x[i];
}

static void check_alltoall_ignored(MPI_Comm comm)
{
    static const int blocks[] = {0, 1, 3, 7, 1000};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        char desc[64];
        snprintf(desc, sizeof desc, "INT block=%d, sendcount -1", blocks[b]);
        cs_check_alltoall(comm, MPI_INT, blocks[b], MPI_INT, blocks[b], 1, desc);
        snprintf(desc, sizeof desc, "DOUBLE block=%d, sendcount -1", blocks[b]);
        cs_check_alltoall(comm, MPI_DOUBLE, blocks[b], MPI_DOUBLE, blocks[b], 1, desc);
    }

    /* sendcount and sendtype that would read past the buffer, were they looked at. */
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    for (int n = 1; n <= 5; n += 4) {
        cs_set_case("alltoall in place, sendcount 1000000 of MPI_LONG_DOUBLE, block=%d p=%d", n, p);
        int *out = malloc(sizeof(int) * (size_t)(n * p)), *ref = malloc(sizeof(int) * (size_t)(n * p));
        for (int i = 0; i < n * p; i++)
            out[i] = ref[i] = 1000 * rank + i;
        PMPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, n, MPI_INT, comm);
        int rc = MPI_Alltoall(MPI_IN_PLACE, 1000000, MPI_LONG_DOUBLE, out, n, MPI_INT, comm);
        CHECK(rc == MPI_SUCCESS, "returned %d", rc);
        for (int i = 0; i < n * p; i++)
            CHECK(out[i] == ref[i] && out[i] == 1000 * (i / n) + rank * n + i % n, "element %d: %d, PMPI %d", i, out[i],
                  ref[i]);
        free(out);
        free(ref);
    }
}

static int pairs_for_inplace(const cs_type *t, const cs_op *op)
{
    return (t->type == MPI_INT && op->op == MPI_SUM) || (t->type == MPI_DOUBLE && op->op == MPI_MAX) ||
           (t->kind == CS_MAT && op->cls == CS_USER && !op->big) || (t->type == MPI_2INT && op->op == MPI_MINLOC);
}

/* Allreduce in place, reduce in place at the root (cs_check_reduction passes NULL as the receive
 * buffer at non-roots), at every root. */
static void check_reductions_ignored(MPI_Comm comm)
{
    int p;
    PMPI_Comm_size(comm, &p);
    cs_check_reductions(comm, -1, pairs_for_inplace);
    for (int root = 0; root < p; root += (p > 4 ? p / 3 : 1))
        cs_check_reductions(comm, root, pairs_for_inplace);
}

/* At a non-root, MPI_Reduce's receive buffer is not significant: one of 1 byte, guarded by
 * sentinels, must come back as it was, whatever the count. */
static void check_reduce_recvbuf_untouched(MPI_Comm comm)
{
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    static const int counts[] = {1, 7, 1000, 65539};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        const int n = counts[k];
        for (int root = 0; root < p; root += (p > 3 ? p - 1 : 1)) {
            cs_set_case("reduce count=%d root=%d p=%d: the non-roots' receive buffer", n, root, p);
            int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
            unsigned char tiny[1 + 2 * CS_SLACK];
            memset(tiny, CS_SENTINEL, sizeof tiny);
            for (int i = 0; i < n; i++)
                in[i] = rank * 3 + i;
            int rc =
                MPI_Reduce(in, rank == root ? (void *)out : (void *)(tiny + CS_SLACK), n, MPI_INT, MPI_SUM, root, comm);
            CHECK(rc == MPI_SUCCESS, "returned %d", rc);
            if (rank == root)
                for (int i = 0; i < n; i++)
                    CHECK(out[i] == 3 * p * (p - 1) / 2 + p * i, "element %d: %d", i, out[i]);
            else
                for (size_t i = 0; i < sizeof tiny; i++)
                    CHECK(tiny[i] == CS_SENTINEL, "byte %ld of the receive buffer was written", (long)i - CS_SLACK);
            free(in);
            free(out);
        }
    }
}

/* MPI_BOTTOM with a datatype whose one block sits at an absolute address. Reductions: a user
 * operator (MPICH's own are defined on predefined types only), in place. */
static void check_bottom(MPI_Comm comm)
{
    int rank, p;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    enum { N = 5 };
    MPI_Op sum;
    MPI_Op_create(int_sum, 1, &sum);

    /* allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, {N ints at &v}) */
    int v[N], ref[N];
    MPI_Aint addr;
    int len = N;
    MPI_Datatype at_v, at_ref;
    PMPI_Get_address(v, &addr);
    PMPI_Type_create_hindexed(1, &len, &addr, MPI_INT, &at_v);
    PMPI_Type_commit(&at_v);
    PMPI_Get_address(ref, &addr);
    PMPI_Type_create_hindexed(1, &len, &addr, MPI_INT, &at_ref);
    PMPI_Type_commit(&at_ref);
    for (int i = 0; i < N; i++)
        v[i] = ref[i] = rank + 10 * i;
    cs_set_case("allreduce in place at MPI_BOTTOM, absolute type, p=%d", p);
    PMPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, at_ref, sum, comm);
    int rc = MPI_Allreduce(MPI_IN_PLACE, MPI_BOTTOM, 1, at_v, sum, comm);
    CHECK(rc == MPI_SUCCESS, "returned %d", rc);
    for (int i = 0; i < N; i++)
        CHECK(v[i] == ref[i] && v[i] == p * (p - 1) / 2 + 10 * i * p, "element %d: %d, PMPI %d", i, v[i], ref[i]);

    /* alltoall into MPI_BOTTOM: block j of the receive buffer at &got[j * N]. */
    int *send = malloc(sizeof(int) * (size_t)(N * p)), *got = malloc(sizeof(int) * (size_t)(N * p));
    MPI_Datatype at_got;
    PMPI_Get_address(got, &addr);
    PMPI_Type_create_hindexed(1, &len, &addr, MPI_INT, &at_got);
    PMPI_Type_commit(&at_got);
    for (int i = 0; i < N * p; i++)
        send[i] = 1000 * rank + i;
    cs_set_case("alltoall into MPI_BOTTOM, absolute type, p=%d", p);
    rc = MPI_Alltoall(send, N, MPI_INT, MPI_BOTTOM, 1, at_got, comm);
    CHECK(rc == MPI_SUCCESS, "returned %d", rc);
    for (int i = 0; i < N * p; i++)
        CHECK(got[i] == 1000 * (i / N) + rank * N + i % N, "element %d: %d", i, got[i]);
    free(send);
    free(got);
    PMPI_Type_free(&at_v);
    PMPI_Type_free(&at_ref);
    PMPI_Type_free(&at_got);
    MPI_Op_free(&sum);
}

static int handler_calls;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

/* The reference first: PMPI_* (the library alone), then MPI_* (through the shim). */
typedef struct bad_call {
    const char *what;
    int coll; /* 0 alltoall, 1 allreduce */
    const void *sendbuf;
    void *recvbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
} bad_call;

static int bad_run(const bad_call *b, MPI_Comm comm, int pmpi)
{
    if (b->coll == 0)
        return pmpi ? PMPI_Alltoall(b->sendbuf, b->scount, b->stype, b->recvbuf, b->rcount, b->rtype, comm)
                    : MPI_Alltoall(b->sendbuf, b->scount, b->stype, b->recvbuf, b->rcount, b->rtype, comm);
    return pmpi ? PMPI_Allreduce(b->sendbuf, b->recvbuf, b->scount, b->stype, b->op, comm)
                : MPI_Allreduce(b->sendbuf, b->recvbuf, b->scount, b->stype, b->op, comm);
}

static void check_erroneous(MPI_Comm parent)
{
    MPI_Comm comm;
    MPI_Errhandler eh;
    int p;
    PMPI_Comm_dup(parent, &comm);
    PMPI_Comm_size(comm, &p);
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    int *a = calloc((size_t)(8 * p), sizeof(int)), *b = calloc((size_t)(8 * p), sizeof(int));
    MPI_Datatype int2;
    PMPI_Type_contiguous(2, MPI_INT, &int2);
    PMPI_Type_commit(&int2);
    const bad_call calls[] = {
        {"alltoall, send buffer = receive buffer", 0, a, a, 2, 2, MPI_INT, MPI_INT, MPI_OP_NULL},
        {"alltoall, receive buffer NULL", 0, a, NULL, 2, 2, MPI_INT, MPI_INT, MPI_OP_NULL},
        {"alltoall, send buffer NULL", 0, NULL, b, 2, 2, MPI_INT, MPI_INT, MPI_OP_NULL},
        {"alltoall, receive type MPI_DATATYPE_NULL", 0, a, b, 2, 2, MPI_INT, MPI_DATATYPE_NULL, MPI_OP_NULL},
        {"alltoall in place, receive type MPI_DATATYPE_NULL", 0, MPI_IN_PLACE, b, 2, 2, MPI_INT, MPI_DATATYPE_NULL,
         MPI_OP_NULL},
        {"allreduce, send buffer = receive buffer", 1, a, a, 3, 3, MPI_INT, MPI_INT, MPI_SUM},
        {"allreduce, receive buffer NULL", 1, a, NULL, 3, 3, MPI_INT, MPI_INT, MPI_SUM},
        {"allreduce in place, receive buffer NULL", 1, MPI_IN_PLACE, NULL, 3, 3, MPI_INT, MPI_INT, MPI_SUM},
        {"allreduce MPI_SUM on MPI_BYTE", 1, a, b, 3, 3, MPI_BYTE, MPI_BYTE, MPI_SUM},
        {"allreduce MPI_BAND on MPI_FLOAT", 1, a, b, 3, 3, MPI_FLOAT, MPI_FLOAT, MPI_BAND},
        {"allreduce MPI_MAXLOC on MPI_INT", 1, a, b, 3, 3, MPI_INT, MPI_INT, MPI_MAXLOC},
        {"allreduce MPI_SUM on contiguous(2 INT)", 1, a, b, 3, 3, int2, int2, MPI_SUM},
        {"allreduce MPI_REPLACE", 1, a, b, 3, 3, MPI_INT, MPI_INT, MPI_REPLACE},
        {"allreduce MPI_NO_OP", 1, a, b, 3, 3, MPI_INT, MPI_INT, MPI_NO_OP},
        {"allreduce MPI_OP_NULL", 1, a, b, 3, 3, MPI_INT, MPI_INT, MPI_OP_NULL},
        {"allreduce in place, MPI_DATATYPE_NULL", 1, MPI_IN_PLACE, b, 3, 3, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL,
         MPI_SUM},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
#if defined(OPEN_MPI)
        /* Open MPI 4.1 checks no buffers (it takes the same buffer twice and crashes on a NULL
         * one) and sums MPI_BYTE: what it does not reject is no case for it. */
        if (strstr(calls[i].what, "buffer") || strstr(calls[i].what, "MPI_BYTE"))
            continue;
#endif
        cs_set_case("erroneous: %s, p=%d", calls[i].what, p);
        if (strstr(calls[i].what, "buffer")) {
            /* First the same handles and counts with good buffers: the shim has then described
             * the call, and must check the buffers of the one that repeats it all the same. */
            bad_call good = calls[i];
            good.sendbuf = good.sendbuf == MPI_IN_PLACE ? MPI_IN_PLACE : (const void *)a;
            good.recvbuf = b;
            handler_calls = 0;
            CHECK(bad_run(&good, comm, 0) == MPI_SUCCESS && handler_calls == 0, "the good call before it failed");
        }
        handler_calls = 0;
        int want = bad_run(&calls[i], comm, 1);
        int want_calls = handler_calls, want_class = MPI_SUCCESS, got_class = MPI_SUCCESS;
        handler_calls = 0;
        int got = bad_run(&calls[i], comm, 0);
        if (want != MPI_SUCCESS)
            MPI_Error_class(want, &want_class);
        if (got != MPI_SUCCESS)
            MPI_Error_class(got, &got_class);
        CHECK(want != MPI_SUCCESS, "the library accepts it: no longer a case of this test");
        CHECK(got_class == want_class, "error class %d, the library's %d", got_class, want_class);
        CHECK(handler_calls == want_calls, "error handler called %d times, by the library %d", handler_calls,
              want_calls);
    }
    /* The communicator still works, through the shim. */
    cs_set_case("after the erroneous calls, p=%d", p);
    handler_calls = 0;
    cs_check_alltoall(comm, MPI_INT, 3, MPI_INT, 3, 1, "INT block=3 after errors");
    cs_check_reduction(&(cs_red){comm, cs_type_of(MPI_INT), &cs_ops[0], 7, -1, 0});
    CHECK(handler_calls == 0, "error handler called by valid calls");
    PMPI_Type_free(&int2);
    free(a);
    free(b);
    MPI_Errhandler_free(&eh);
    PMPI_Comm_free(&comm);
}

static void check_all(MPI_Comm comm)
{
    check_alltoall_ignored(comm);
    check_reductions_ignored(comm);
    check_reduce_recvbuf_untouched(comm);
    check_bottom(comm);
    check_erroneous(comm);
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    check_all(MPI_COMM_WORLD);
    MPI_Comm sub;
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, -cs_wrank, &sub);
    check_all(sub);
    PMPI_Comm_free(&sub);
    return cs_test_finish("test_args");
}
