/*
 * What the shim does not intercept, and what it does not know, said once.
 *
 * The program sets its own collshim environment before MPI_Init: a log of
 * calls in DIR (argv[1], else $TMPDIR/cs_test_uncaught.<parent's pid>, the
 * same for every rank a launcher started on this node), a misspelt
 * COLLSHIM_ALLREDUC, a COLLSHIM_* name like no other, and a test-only
 * COLLSHIM_TEST_* variable. Each rank catches what MPI_Init writes on its
 * stderr: rank 0 must say each unknown name once, with the nearest known
 * name where one is near, and nothing of the test-only one; the other ranks
 * nothing. Then it calls the collectives collshim passes by (nonblocking,
 * persistent, MPI_Bcast, MPI_Allgather, MPI_Barrier and their nonblocking
 * forms; some from two threads at once under MPI_THREAD_MULTIPLE), checks
 * their results, and after MPI_Finalize reads what the shim wrote: rank 0's
 * summary has the section "@--- not intercepted ---" with each function's
 * exact count, and each rank's log one record of them. Without the shim
 * preloaded only the results are checked. Exit status 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cs_test.h"
#if defined(OPEN_MPI)
#include <mpi-ext.h>
#define PERSISTENT(name) MPIX_##name##_init
#define PERSISTENT_NAME(name) "MPIX_" name "_init"
#else
#define PERSISTENT(name) MPI_##name##_init
#define PERSISTENT_NAME(name) "MPI_" name "_init"
#endif

enum {
    N_IALLREDUCE = 7,
    N_IALLTOALL = 5,
    N_IREDUCE = 3,
    N_ALLREDUCE_INIT = 2,
    N_STARTS = 3,
    N_BCAST = 4,
    N_IBCAST = 2,
    N_ALLGATHER = 3,
    N_BARRIER = 2,
    N_THREAD = 20,
    N_THREADS = 2
};

static char dir[512];

/* Each of the values every rank contributes: rank + 1 + k. */
static void check_sum(const char *what, int got, int p, int k)
{
    const int want = p * (p + 1) / 2 + p * k;
    CHECK(got == want, "%s: %d, not %d", what, got, want);
}

static void nonblocking(MPI_Comm comm, int p, int rank)
{
    MPI_Request req;
    for (int k = 0; k < N_IALLREDUCE; k++) {
        int in = rank + 1 + k, out = -1;
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_sum("MPI_Iallreduce", out, p, k);
    }
    int *sb = malloc(sizeof(int) * (size_t)p), *rb = malloc(sizeof(int) * (size_t)p);
    for (int k = 0; k < N_IALLTOALL; k++) {
        for (int i = 0; i < p; i++)
            sb[i] = rank * 1000 + i + k;
        MPI_Ialltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < p; i++)
            CHECK(rb[i] == i * 1000 + rank + k, "MPI_Ialltoall: from %d: %d", i, rb[i]);
    }
    for (int k = 0; k < N_IREDUCE; k++) {
        int in = rank + 1 + k, out = -1;
        MPI_Ireduce(&in, &out, 1, MPI_INT, MPI_SUM, p - 1, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (rank == p - 1)
            check_sum("MPI_Ireduce", out, p, k);
    }
    free(sb);
    free(rb);
}

static void persistent(MPI_Comm comm, int p, int rank)
{
    MPI_Request req;
    int in, out;
    for (int k = 0; k < N_ALLREDUCE_INIT; k++) {
        PERSISTENT(Allreduce)(&in, &out, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req);
        for (int s = 0; s < N_STARTS; s++) {
            in = rank + 1 + s;
            out = -1;
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            check_sum(PERSISTENT_NAME("Allreduce"), out, p, s);
        }
        MPI_Request_free(&req);
    }
    int *sb = malloc(sizeof(int) * (size_t)p), *rb = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++)
        sb[i] = rank * 1000 + i;
    PERSISTENT(Alltoall)(sb, 1, MPI_INT, rb, 1, MPI_INT, comm, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < p; i++)
        CHECK(rb[i] == i * 1000 + rank, "%s: from %d: %d", PERSISTENT_NAME("Alltoall"), i, rb[i]);
    MPI_Request_free(&req);
    in = rank + 1;
    out = -1;
    PERSISTENT(Reduce)(&in, &out, 1, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0)
        check_sum(PERSISTENT_NAME("Reduce"), out, p, 0);
    MPI_Request_free(&req);
    free(sb);
    free(rb);
}

static void others(MPI_Comm comm, int p, int rank)
{
    MPI_Request req;
    int v, *all = malloc(sizeof(int) * (size_t)p);
    for (int k = 0; k < N_BCAST; k++) {
        v = rank == k % p ? 42 + k : -1;
        MPI_Bcast(&v, 1, MPI_INT, k % p, comm);
        CHECK(v == 42 + k, "MPI_Bcast: %d", v);
    }
    for (int k = 0; k < N_IBCAST; k++) {
        v = rank == 0 ? 7 + k : -1;
        MPI_Ibcast(&v, 1, MPI_INT, 0, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(v == 7 + k, "MPI_Ibcast: %d", v);
    }
    for (int k = 0; k < N_ALLGATHER; k++) {
        v = rank * 3 + k;
        MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, comm);
        for (int i = 0; i < p; i++)
            CHECK(all[i] == i * 3 + k, "MPI_Allgather: from %d: %d", i, all[i]);
    }
    v = rank;
    MPI_Iallgather(&v, 1, MPI_INT, all, 1, MPI_INT, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < p; i++)
        CHECK(all[i] == i, "MPI_Iallgather: from %d: %d", i, all[i]);
    for (int k = 0; k < N_BARRIER; k++)
        MPI_Barrier(comm);
    MPI_Ibarrier(comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(all);
}

typedef struct {
    MPI_Comm comm;
    int p, rank;
} thread_arg;

/* MPI_Iallreduce from several threads at once, each on its communicator. */
static void *in_thread(void *a)
{
    thread_arg *t = a;
    for (int k = 0; k < N_THREAD; k++) {
        int in = t->rank + 1 + k, out = -1;
        MPI_Request req;
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, t->comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_sum("MPI_Iallreduce in a thread", out, t->p, k);
    }
    return NULL;
}

static char *slurp(const char *path)
{
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *s = text; s && (s = strstr(s, what)) != NULL; s += strlen(what))
        n++;
    return n;
}

/* What MPI_Init wrote on this rank's stderr: the unknown names said by rank 0 alone. */
static void check_init_stderr(const char *text, int rank)
{
    const int zero = rank == 0;
    const char *near = "collshim: unknown variable COLLSHIM_ALLREDUC (did you mean COLLSHIM_ALLREDUCE?); ignored\n";
    const char *far = "collshim: unknown variable COLLSHIM_QQQQQQQQ; ignored\n";
    CHECK(count_of(text, near) == zero, "said %d times: %s", count_of(text, near), near);
    CHECK(count_of(text, far) == zero, "said %d times: %s", count_of(text, far), far);
    CHECK(!strstr(text, "COLLSHIM_TEST_"), "a test-only variable was said: %s", text);
    CHECK(count_of(text, "collshim:") == 2 * zero, "%d collshim lines: %s", count_of(text, "collshim:"), text);
}

/* The counts as the summary and the log must say them. */
typedef struct {
    const char *name;
    int calls;
} expected;

static void check_after(int rank, const expected *e, int n)
{
    char path[600], line[256], want[4096];
    if (rank == 0) {
        snprintf(path, sizeof path, "%s/u.0.jsonl.summary", dir);
        const char *text = slurp(path);
        CHECK(text != NULL, "no summary %s", path);
        const char *section = text ? strstr(text, "@--- not intercepted ---\n") : NULL;
        CHECK(section != NULL, "no section of the collectives not intercepted in %s:\n%s", path, text);
        for (int i = 0; section && i < n; i++) {
            snprintf(line, sizeof line, "\n     %s %d call%s: ran by the MPI library, not priced or logged\n",
                     e[i].name, e[i].calls, e[i].calls == 1 ? "" : "s");
            CHECK(strstr(section, line) != NULL, "the summary lacks%s%s", line, section);
        }
        CHECK(!text || count_of(text, "@--- not intercepted") == 1, "the section more than once");
    }
    snprintf(path, sizeof path, "%s/u.%d.jsonl", dir, rank);
    const char *log = slurp(path);
    CHECK(log != NULL, "no log %s", path);
    size_t k = (size_t)snprintf(want, sizeof want, "{\"record\":\"not_intercepted\",\"rank\":%d,\"calls\":{", rank);
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(want + k, sizeof want - k, "%s\"%s\":%d", i ? "," : "", e[i].name, e[i].calls);
    snprintf(want + k, sizeof want - k, "},\"note\":\"ran by the MPI library, not priced or logged\"}\n");
    CHECK(log && count_of(log, "\"record\":\"not_intercepted\"") == 1, "not one record in %s", path);
    CHECK(log && strstr(log, want), "%s lacks %s", path, want);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE, p, rank;
    char log[600], caught[600];
    if (argc > 1)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else
        snprintf(dir, sizeof dir, "%s/cs_test_uncaught.%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                 (long)getppid());
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "test_uncaught: cannot make %s: %s\n", dir, strerror(errno));
        return 1;
    }
    snprintf(log, sizeof log, "%s/u.%%r.jsonl", dir);
    setenv("COLLSHIM_LOG", log, 1);
    setenv("COLLSHIM_LOG_LEVEL", "calls", 1);
    setenv("COLLSHIM_ALLREDUC", "ring", 1);
    setenv("COLLSHIM_QQQQQQQQ", "1", 1);
    setenv("COLLSHIM_TEST_UNCAUGHT", "1", 1);

    /* MPI_Init's stderr, caught (the launcher's rank, or the pid: a file of its own). */
    const char *r = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
    snprintf(caught, sizeof caught, "%s/stderr.%s.%ld", dir, r ? r : "x", (long)getpid());
    fflush(stderr);
    const int saved = dup(STDERR_FILENO), fd = open(caught, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (saved >= 0 && fd >= 0)
        dup2(fd, STDERR_FILENO);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    fflush(stderr);
    if (saved >= 0 && fd >= 0) {
        dup2(saved, STDERR_FILENO);
        close(fd);
        close(saved);
    }
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    cs_wrank = rank;
    cs_wsize = p;
    const int shim = cs_shim_loaded();
    const char *said = slurp(caught);
    if (said && *said)
        fputs(said, stderr); /* what MPI_Init said, where it belongs */
    cs_set_case("MPI_Init's stderr");
    if (shim)
        check_init_stderr(said ? said : "", rank);
    unlink(caught);

    cs_set_case("collectives not intercepted, p=%d", p);
    nonblocking(MPI_COMM_WORLD, p, rank);
    persistent(MPI_COMM_WORLD, p, rank);
    others(MPI_COMM_WORLD, p, rank);
    int threads = 0;
    if (provided == MPI_THREAD_MULTIPLE) {
        pthread_t tid[N_THREADS];
        thread_arg ta[N_THREADS];
        for (int i = 0; i < N_THREADS; i++) {
            ta[i].p = p;
            ta[i].rank = rank;
            PMPI_Comm_dup(MPI_COMM_WORLD, &ta[i].comm);
        }
        for (int i = 0; i < N_THREADS; i++)
            threads += pthread_create(&tid[i], NULL, in_thread, &ta[i]) == 0;
        for (int i = 0; i < threads; i++)
            pthread_join(tid[i], NULL);
        for (int i = 0; i < N_THREADS; i++)
            PMPI_Comm_free(&ta[i].comm);
    }
    /* One that is intercepted, so that the log has a call line too. */
    int in = rank, out = -1;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(out == p * (p - 1) / 2, "MPI_Allreduce: %d", out);

    const expected e[] = {
        {"MPI_Iallreduce", N_IALLREDUCE + threads * N_THREAD},
        {"MPI_Ialltoall", N_IALLTOALL},
        {"MPI_Ireduce", N_IREDUCE},
        {PERSISTENT_NAME("Allreduce"), N_ALLREDUCE_INIT},
        {PERSISTENT_NAME("Alltoall"), 1},
        {PERSISTENT_NAME("Reduce"), 1},
        {"MPI_Bcast", N_BCAST},
        {"MPI_Ibcast", N_IBCAST},
        {"MPI_Allgather", N_ALLGATHER},
        {"MPI_Iallgather", 1},
        {"MPI_Barrier", N_BARRIER},
        {"MPI_Ibarrier", 1},
    };
    int failures = cs_failures, total = 0;
    PMPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    cs_set_case("after MPI_Finalize, p=%d", p);
    if (shim)
        check_after(rank, e, (int)(sizeof e / sizeof e[0]));
    if (cs_failures || (rank == 0 && total))
        fprintf(stderr, "test_uncaught: FAILED on rank %d: %d failed check(s) at p=%d\n", rank,
                cs_failures > total ? cs_failures : total, p);
    return cs_failures || total ? 1 : 0;
}
