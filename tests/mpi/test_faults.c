/*
 * test_faults: a PMPI call of collshim's that fails mid-collective (tests/mpi/fault/cs_fault.c,
 * preloaded between collshim and MPICH) is returned to the caller through the communicator's error
 * handler, nobody hangs, and the communicator goes on working, for the native collectives and for
 * collshim's.
 *
 * For every collective of the shim (allreduce, reduce at the first and the last rank, alltoall,
 * the two windowed reductions), every fault (a send or a receive not posted, a wait that fails
 * after completing or with requests still pending, a local reduction that fails), every k until
 * the collective makes fewer than k such calls, and two ways to fail (one rank, each rank in turn;
 * every rank at once):
 *
 * - a rank whose call failed returns that error (one rank failing) or some error (all failing);
 *   any other rank returns success or MPI_ERR_OTHER (a partner failed); the handler runs once per
 *   error returned, never for success;
 * - then a native barrier and a collshim allreduce on the same communicator give right results.
 *
 * Which algorithm runs is the driver's setting (auto, forced, elimination, ring, ...). The run
 * ends in the time the driver allows or it has hung.
 */
#include "../../include/collshim.h"
#include "cs_test.h"

typedef void (*arm_fn)(const char *, long, int);
typedef int (*fired_fn)(void);
typedef int (*window_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, int, int, MPI_Comm);

static arm_fn fault_arm;
static fired_fn fault_fired;
static window_fn win_reduce, win_block;
static int handler_calls, injected_class, injected_code;
static long trials, faults; /* calls made, faults that fired (this rank) */

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

enum { N_MAX = 4099 };

typedef struct coll_case {
    const char *name;
    int coll; /* 0 allreduce, 1 reduce, 2 alltoall, 3 window, 4 window block */
    int count, root;
} coll_case;

static int run_case(const coll_case *c, MPI_Comm comm, int *in, int *out)
{
    int p;
    PMPI_Comm_size(comm, &p);
    switch (c->coll) {
    case 0: return MPI_Allreduce(in, out, c->count, MPI_INT, MPI_SUM, comm);
    case 1: return MPI_Reduce(in, out, c->count, MPI_INT, MPI_SUM, c->root < 0 ? p - 1 : c->root, comm);
    case 2: return MPI_Alltoall(in, c->count, MPI_INT, out, c->count, MPI_INT, comm);
    case 3: return win_reduce(in, out, c->count, MPI_INT, MPI_SUM, p < 3 ? p : 3, p < 3 ? 0 : 1, comm);
    default: return win_block(in, out, c->count, MPI_INT, MPI_SUM, 3, 1, comm);
    }
}

/* After a faulted call: the library's own barrier, then a collshim allreduce checked. */
static void check_usable(MPI_Comm comm, const char *what)
{
    int p, rank, v, sum = -1;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    CHECK(PMPI_Barrier(comm) == MPI_SUCCESS, "%s: native barrier failed afterwards", what);
    v = rank + 1;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(rc == MPI_SUCCESS && sum == p * (p + 1) / 2, "%s: allreduce afterwards: rc %d, sum %d", what, rc, sum);
}

/* One faulted call; returns whether the fault fired on any rank. */
static int trial(const coll_case *c, const char *kind, long k, int who, MPI_Comm comm, int *in, int *out)
{
    int rank, p, rc, cls = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    const int armed = who < 0 || who == rank;
    char what[160];
    snprintf(what, sizeof what, "%s, %s fault at call %ld on %s, p=%d", c->name, kind, k,
             who < 0 ? "every rank" : "one rank", p);
    cs_set_case("%s (rank %d armed: %d)", what, who, armed);

    handler_calls = 0;
    fault_arm(armed ? kind : NULL, k, injected_code);
    rc = run_case(c, comm, in, out);
    const int fired = fault_fired();
    fault_arm(NULL, 0, 0);
    trials++;
    faults += fired;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);

    CHECK(handler_calls == (rc != MPI_SUCCESS), "the error handler ran %d times for rc %d", handler_calls, rc);
    if (fired && who >= 0)
        CHECK(cls == injected_class, "the failing rank returned class %d, not the injected %d", cls, injected_class);
    else if (fired)
        CHECK(rc != MPI_SUCCESS, "a fault fired and the call returned success");
    else
        CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_OTHER, "a rank without a fault returned class %d", cls);
    int any = 0;
    PMPI_Allreduce(&fired, &any, 1, MPI_INT, MPI_MAX, comm);
    check_usable(comm, what);
    return any;
}

static void run_faults(MPI_Comm comm)
{
    int p, rank;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    static const coll_case cases[] = {
        {"allreduce count=1", 0, 1, 0},
        {"allreduce count=1000", 0, 1000, 0},
        {"allreduce count=4099", 0, 4099, 0},
        {"reduce count=7 root=0", 1, 7, 0},
        {"reduce count=1000 root=p-1", 1, 1000, -1},
        {"alltoall block=1", 2, 1, 0},
        {"alltoall block=100", 2, 100, 0},
        {"window_reduce count=5", 3, 5, 0},
        {"window_reduce_block count=6", 4, 6, 0},
    };
    static const char *const kinds[] = {"isend", "irecv", "waitall", "pending", "reduce"};
    int *in = malloc(sizeof(int) * (size_t)N_MAX * (size_t)p), *out = malloc(sizeof(int) * (size_t)N_MAX * (size_t)p);
    for (int i = 0; i < N_MAX * p; i++)
        in[i] = rank * 7 + i;

    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
            /* Every k while some rank makes k such calls; the failing rank in turn. */
            for (long k = 1; k <= 64; k++)
                if (!trial(&cases[ci], kinds[ki], k, (int)((k - 1) % p), comm, in, out))
                    break;
            for (long k = 1; k <= 64; k++)
                if (!trial(&cases[ci], kinds[ki], k, -1, comm, in, out))
                    break;
        }
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    cs_test_init(&argc, &argv);
    fault_arm = (arm_fn)dlsym(RTLD_DEFAULT, "cs_fault_arm");
    fault_fired = (fired_fn)dlsym(RTLD_DEFAULT, "cs_fault_fired");
    win_reduce = (window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce");
    win_block = (window_fn)dlsym(RTLD_DEFAULT, "collshim_window_reduce_block");
    CHECK(fault_arm && fault_fired && win_reduce && win_block, "libcs_fault.so and libcollshim.so must be preloaded");
    if (!(fault_arm && fault_fired && win_reduce && win_block))
        return cs_test_finish("test_faults");
    MPI_Add_error_class(&injected_class);
    MPI_Add_error_code(injected_class, &injected_code);
    MPI_Add_error_string(injected_code, "collshim test: injected fault");

    MPI_Errhandler eh;
    MPI_Comm comm, sub;
    MPI_Comm_create_errhandler(count_errors, &eh);
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, eh);
    run_faults(comm);
    /* A sub-communicator, ranks reversed. */
    PMPI_Comm_split(MPI_COMM_WORLD, cs_wrank % 2, -cs_wrank, &sub);
    MPI_Comm_set_errhandler(sub, eh);
    run_faults(sub);
    PMPI_Comm_free(&sub);
    PMPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);
    long all = 0;
    PMPI_Reduce(&faults, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (cs_wrank == 0)
        printf("test_faults: p=%d, %ld faulted calls, %ld faults injected over all ranks\n", cs_wsize, trials, all);
    return cs_test_finish("test_faults");
}
