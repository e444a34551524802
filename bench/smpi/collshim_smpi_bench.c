/*
 * The scale lab's benchmark: MPI_Allreduce, MPI_Reduce and MPI_Alltoall on
 * MPI_COMM_WORLD (or, with -C column, on the columns of the job's nodes: see
 * below) over a list of sizes, timed through two paths in one run:
 *
 *   shim    MPI_<coll>: collshim's entry point, linked into this executable (mk/smpi.mk),
 *           deciding as configured (COLLSHIM_CONFIG, COLLSHIM_ALLREDUCE=ring, ...)
 *   native  PMPI_<coll>: the MPI library's own; under SimGrid SMPI the algorithm of
 *           --cfg=smpi/coll-selector:mpich|ompi|mvapich2 or --cfg=smpi/<coll>:<alg>
 *
 * Before timing a (coll, size), one call of each path on the same input, compared bit for bit
 * on every rank (reduce: at the root). The inputs are small integers (in doubles), so every
 * bracketing of the sum is exact and any difference is a bug: the program prints it and
 * aborts (MPI_Abort; smpirun still exits 0). Then, per path: warm-up calls, then REPS timings
 * of K calls each, each from a common start to the last rank's end (see time_calls); the
 * median.
 *
 * Output, world rank 0: first the node map that MPI_COMM_TYPE_SHARED gives (under SMPI, the
 * ranks of one host), which is what collshim sees where model.ranks_per_node is 0:
 *   # nodes: N, ranks per node MIN..MAX, placement block|cyclic|other
 * (and with -C column `# column communicators: K, of P ranks`), then one line per (coll, p,
 * bytes, path), p the size of the communicator timed:
 *   coll p bytes path alg median_s min_s
 * then `# done: N results checked ...` (smpirun's exit status does not show an abort).
 *
 * -C column: MPI_Comm_split by the rank within the node (MPI_COMM_TYPE_SHARED), so that each
 * communicator holds one rank of every node (of those that have that many ranks): the column
 * of a process grid whose rows are nodes, as ScaLAPACK and most solvers make it. Every column
 * calls each collective at once, as a grid's columns do, sharing the nodes' links; a timing is
 * from the common start of all the job's ranks to the last rank's end, and a reduce's root is
 * rank ROOT of each column. Results are checked on every column; the line's p is world rank
 * 0's column's size.
 * `alg` is a label (-a, -n), not what ran: which algorithm collshim chose is in its log.
 * bytes: count x 8 for the reductions (MPI_DOUBLE, or MPI_INT64_T with -T int64: an exact type,
 * which the windowed allreduce needs), the block for one destination for alltoall (MPI_BYTE).
 *
 * usage: collshim-smpi-bench [-c COLLS] [-s SIZES] [-w WARM] [-r REPS] [-k CALLS] [-P PATHS]
 *                            [-a LABEL] [-n LABEL] [-R ROOT] [-T double|int64] [-m BYTES]
 *                            [-A BYTES] [-t sync|barrier] [-C world|column] [-x]
 *   -c  allreduce,reduce,alltoall (default: all three)
 *   -s  bytes: a list 8,64,1K,1M or a range LO:HI[:FACTOR] (default 8:1M:8)
 *   -w  untimed calls per path before timing (default 2)
 *   -r  timings per path (default 5); -k calls per timing (default 1)
 *   -P  shim,native (default both); the check runs both paths once regardless
 *   -a  the shim path's label (default collshim:$COLLSHIM_<COLL>, or collshim:auto)
 *   -n  the native path's label (default native)
 *   -R  reduce's root (default 0)
 *   -T  the reductions' element type (default double)
 *   -m  skip a size whose buffers, summed over the ranks, would pass BYTES (default 4G):
 *       under SMPI every simulated rank lives in this one process
 *   -A  skip an alltoall size whose send buffers, summed over the ranks (p x p x block), would
 *       pass BYTES (default: no limit but -m): p^2 messages in flight, the simulator's cost
 *   -t  how a timing starts: sync, on every rank at one instant of the simulated clock (the
 *       default under SMPI: see time_calls), or barrier (the default elsewhere)
 *   -C  the communicator timed: world (the default) or column (above)
 *   -x  no correctness check
 *
 * Plain MPI works too (mpicc, with build/mpich/libcollshim.so preloaded); under smpirun, see
 * scripts/collshim-scale.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/calibrate/common_start.h"
#include "../bench_stats.h"

/* mk/smpi.mk defines it to 1: a timing starts on every rank at one simulated instant. */
#ifndef CS_BENCH_SYNC_CLOCKS
#define CS_BENCH_SYNC_CLOCKS 0
#endif

enum { B_ALLREDUCE, B_REDUCE, B_ALLTOALL, B_NCOLL };
static const char *const coll_name[B_NCOLL] = {"allreduce", "reduce", "alltoall"};
static const char *const coll_env[B_NCOLL] = {"COLLSHIM_ALLREDUCE", "COLLSHIM_REDUCE", "COLLSHIM_ALLTOALL"};

#define MAX_SIZES 64

typedef struct opts {
    int coll[B_NCOLL];
    size_t sizes[MAX_SIZES];
    int nsizes;
    int warm, reps, calls;
    int paths; /* bit 0 shim, bit 1 native */
    const char *shim_label, *native_label;
    int root;
    double budget, a2a_budget;
    int check;
} opts;

/* One collective on the communicator timed (comm) through either path. */
typedef struct bench_call {
    int coll, use_pmpi, root;
    void *s, *r;
    int n; /* doubles (reductions) or bytes per block (alltoall) */
} bench_call;

static int rank, p; /* in the communicator timed */
static int world_rank, world_p;
static MPI_Comm comm;                          /* MPI_COMM_WORLD, or this rank's column (-C column) */
static int column;                             /* -C column */
static MPI_Datatype elem_type = MPI_DOUBLE;    /* -T: the reductions' elements, 8 bytes */
static int sync_clocks = CS_BENCH_SYNC_CLOCKS; /* -t: see time_calls */

static void die(const char *msg)
{
    if (world_rank == 0)
        fprintf(stderr, "collshim-smpi-bench: %s\n", msg);
    PMPI_Abort(MPI_COMM_WORLD, 2);
}

static int run(const bench_call *c)
{
    switch (c->coll) {
    case B_ALLREDUCE: return (c->use_pmpi ? PMPI_Allreduce : MPI_Allreduce)(c->s, c->r, c->n, elem_type, MPI_SUM, comm);
    case B_REDUCE: return (c->use_pmpi ? PMPI_Reduce : MPI_Reduce)(c->s, c->r, c->n, elem_type, MPI_SUM, c->root, comm);
    default: return (c->use_pmpi ? PMPI_Alltoall : MPI_Alltoall)(c->s, c->n, MPI_BYTE, c->r, c->n, MPI_BYTE, comm);
    }
}

/* 1K, 4M, 1G suffixes; 0 on a malformed number. */
static size_t parse_bytes(const char *s, char **end)
{
    unsigned long long v = strtoull(s, end, 10);
    switch (**end) {
    case 'K':
    case 'k':
        v <<= 10;
        (*end)++;
        break;
    case 'M':
    case 'm':
        v <<= 20;
        (*end)++;
        break;
    case 'G':
    case 'g':
        v <<= 30;
        (*end)++;
        break;
    }
    return (size_t)v;
}

static void parse_sizes(const char *arg, opts *o)
{
    char *end;
    o->nsizes = 0;
    if (strchr(arg, ':')) {
        size_t lo = parse_bytes(arg, &end), hi = 0, factor = 8;
        if (*end == ':')
            hi = parse_bytes(end + 1, &end);
        if (*end == ':')
            factor = (size_t)strtoull(end + 1, &end, 10);
        if (*end || lo == 0 || hi < lo || factor < 2)
            die("-s: expected LO:HI[:FACTOR], e.g. 8:1M:8");
        for (size_t b = lo; b <= hi && o->nsizes < MAX_SIZES; b *= factor)
            o->sizes[o->nsizes++] = b;
        return;
    }
    for (const char *c = arg; *c && o->nsizes < MAX_SIZES; c = *end ? end + 1 : end) {
        size_t b = parse_bytes(c, &end);
        if (b == 0 || (*end && *end != ','))
            die("-s: expected a list of byte counts, e.g. 8,64,1K");
        o->sizes[o->nsizes++] = b;
    }
}

/* Is word one of the comma-separated items of list? */
static int has_word(const char *list, const char *word)
{
    const size_t n = strlen(word);
    for (const char *c = list; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (!strncmp(c, word, n) && (c[n] == ',' || c[n] == '\0'))
            return 1;
    return 0;
}

static void parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){.coll = {1, 1, 1},
                .warm = 2,
                .reps = 5,
                .calls = 1,
                .paths = 3,
                .native_label = "native",
                .budget = 4.0 * (1 << 30),
                .a2a_budget = 0,
                .check = 1};
    parse_sizes("8:1M:8", o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-x")) {
            o->check = 0;
            continue;
        }
        if (a[0] != '-' || !a[1] || a[2] || !v)
            die("usage: collshim-smpi-bench [-c COLLS] [-s SIZES] [-w N] [-r N] [-k N] [-P PATHS] [-a LABEL] "
                "[-n LABEL] [-R ROOT] [-T double|int64] [-m BYTES] [-A BYTES] [-t sync|barrier] [-C world|column] "
                "[-x]");
        i++;
        switch (a[1]) {
        case 'c':
            for (int c = 0; c < B_NCOLL; c++)
                o->coll[c] = has_word(v, coll_name[c]);
            break;
        case 's': parse_sizes(v, o); break;
        case 'w': o->warm = atoi(v); break;
        case 'r': o->reps = atoi(v); break;
        case 'k': o->calls = atoi(v); break;
        case 'P': o->paths = (has_word(v, "shim") ? 1 : 0) | (has_word(v, "native") ? 2 : 0); break;
        case 'a': o->shim_label = v; break;
        case 'n': o->native_label = v; break;
        case 'R': o->root = atoi(v); break;
        case 't': sync_clocks = !strcmp(v, "sync"); break;
        case 'C':
            if (strcmp(v, "world") && strcmp(v, "column"))
                die("-C: world or column");
            column = !strcmp(v, "column");
            break;
        case 'T': elem_type = !strcmp(v, "int64") ? MPI_INT64_T : MPI_DOUBLE; break;
        case 'm': {
            char *end;
            o->budget = (double)parse_bytes(v, &end);
            break;
        }
        case 'A': {
            char *end;
            o->a2a_budget = (double)parse_bytes(v, &end);
            break;
        }
        default: die("unknown option");
        }
    }
    if (o->reps < 1 || o->calls < 1 || o->warm < 0 || o->root < 0)
        die("-r and -k must be >= 1, -w >= 0, -R a rank");
}

/* Inputs whose sums are exact in any order: small integers. */
static void fill(const bench_call *c)
{
    if (c->coll == B_ALLTOALL) {
        unsigned char *s = c->s;
        for (size_t j = 0; j < (size_t)p; j++)
            for (size_t i = 0; i < (size_t)c->n; i++)
                s[j * (size_t)c->n + i] = (unsigned char)(rank * 13 + j * 7 + i);
    } else {
        for (int i = 0; i < c->n; i++) {
            const int v = (rank * 31 + i * 7) % 17 - 8;
            if (elem_type == MPI_DOUBLE)
                ((double *)c->s)[i] = v;
            else
                ((int64_t *)c->s)[i] = v;
        }
    }
}

/* The shim's result against the library's, bit for bit, on every rank that has one. */
static void check(bench_call *c, void *want, const char *label, size_t bytes)
{
    const size_t len = c->coll == B_ALLTOALL ? (size_t)c->n * (size_t)p : (size_t)c->n * sizeof(double);
    const int has_result = c->coll != B_REDUCE || rank == c->root;
    long bad = -1, first_bad;
    int rc_shim, rc_lib;

    fill(c);
    memset(c->r, 0xA5, len);
    memset(want, 0x5A, len);
    c->use_pmpi = 0;
    rc_shim = run(c);
    void *r = c->r;
    c->r = want;
    c->use_pmpi = 1;
    rc_lib = run(c);
    c->r = r;
    if (rc_shim != MPI_SUCCESS || rc_lib != MPI_SUCCESS)
        bad = (long)len; /* a failed call: reported at index len */
    else if (has_result && memcmp(c->r, want, len) != 0)
        for (size_t i = 0; i < len && bad < 0; i++)
            if (((unsigned char *)c->r)[i] != ((unsigned char *)want)[i])
                bad = (long)i;
    PMPI_Allreduce(&bad, &first_bad, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD); /* every column's */
    if (first_bad < 0)
        return;
    if (bad >= 0) /* every rank with a difference says so; stdout may be lost on abort */
        fprintf(stderr,
                "collshim-smpi-bench: MISMATCH %s p=%d bytes=%zu %s rank %d (world rank %d): %s (shim rc %d, "
                "library rc %d, first differing byte %ld of %zu)\n",
                coll_name[c->coll], p, bytes, label, rank, world_rank,
                bad == (long)len ? "a call failed" : "results differ", rc_shim, rc_lib, bad, len);
    fflush(stderr);
    PMPI_Barrier(MPI_COMM_WORLD);
    die("results differ from the MPI library's; aborting");
}

/* Under SMPI every rank reads the same simulated clock, so a timing starts on every rank at one
 * instant (common_start.h); a barrier start lets a rank that leaves it late start its clock
 * late, and an algorithm could look faster than its critical path (-t barrier, the only choice
 * on a real machine, whose clocks differ). */
static double sync_slack = 1e-6;

static void run_or_die(void *c)
{
    if (run(c) != MPI_SUCCESS)
        die("a collective failed");
}

/* Seconds per call of `calls` calls: from the common start (or, with -t barrier, this rank's
 * exit from a barrier) to the last rank's end (common_start.h), over all the job's ranks: with
 * -C column, every column's calls at once, until the slowest column's end. */
static double time_calls(const bench_call *c, int calls)
{
    return cs_timed_calls(MPI_COMM_WORLD, sync_clocks, &sync_slack, calls, run_or_die, (void *)c);
}

static void measure(bench_call *c, const opts *o, size_t bytes, const char *label, double *t)
{
    for (int i = 0; i < o->warm; i++)
        if (run(c) != MPI_SUCCESS)
            die("a collective failed");
    for (int i = 0; i < o->reps; i++)
        t[i] = time_calls(c, o->calls);
    const double median = bench_median(t, o->reps), min = t[0]; /* bench_median sorts */
    if (world_rank == 0)
        printf("%-9s %5d %9zu %-6s %-28s %.6e %.6e\n", coll_name[c->coll], p, bytes, c->use_pmpi ? "native" : "shim",
               label, median, min);
}

/* The node map as MPI_COMM_TYPE_SHARED gives it (SMPI: a host's ranks, which is what
 * MPI_Get_processor_name names), printed by world rank 0: how many nodes, their sizes, and
 * whether world ranks lie on them in blocks (node r / ppn, the last part full) or round robin
 * (node r mod N). Returns this rank's rank in its node. Built from point-to-point messages alone:
 * no collective of the selector being measured runs before the timed ones (SMPI 3.32's mvapich2
 * gather segfaults after an allreduce where the last node is part full: docs/scale-lab.md). */
static int node_map(void)
{
    enum { NAME = MPI_MAX_PROCESSOR_NAME };
    char name[NAME] = {0};
    int len, local = 0;
    PMPI_Get_processor_name(name, &len);
    if (world_rank != 0) {
        PMPI_Send(name, NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        PMPI_Recv(&local, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return local;
    }
    char *names = malloc((size_t)NAME * (size_t)world_p);
    int *index = malloc(sizeof(int) * 3 * (size_t)world_p), *first = index + world_p, *count = first + world_p;
    if (!names || !index)
        die("out of memory");
    memcpy(names, name, NAME);
    for (int r = 1; r < world_p; r++)
        PMPI_Recv(names + (size_t)r * NAME, NAME, MPI_CHAR, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int nodes = 0, block = 1, cyclic = 1, lo = world_p, hi = 0;
    for (int r = 0; r < world_p; r++) { /* nodes numbered in order of first appearance */
        int n = 0;
        while (n < nodes && strncmp(names + (size_t)first[n] * NAME, names + (size_t)r * NAME, NAME))
            n++;
        if (n == nodes) {
            first[nodes] = r;
            count[nodes++] = 0;
        }
        index[r] = n;
        const int in_node = count[n]++;
        if (r == 0)
            local = in_node;
        else
            PMPI_Send(&in_node, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    }
    for (int n = 0; n < nodes; n++) {
        lo = count[n] < lo ? count[n] : lo;
        hi = count[n] > hi ? count[n] : hi;
    }
    for (int r = 0; r < world_p; r++) {
        block &= index[r] == r / hi;
        cyclic &= index[r] == r % nodes;
    }
    printf("# nodes: %d, ranks per node %d..%d, placement %s\n", nodes, lo, hi,
           block    ? "block"
           : cyclic ? "cyclic"
                    : "other");
    free(names);
    free(index);
    return local;
}

int main(int argc, char **argv)
{
    opts o;
    char shim_label[B_NCOLL][128];
    int nchecked = 0;

    MPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_p);
    parse_args(argc, argv, &o);
    const int local = node_map();
    comm = MPI_COMM_WORLD;
    if (column) { /* one communicator per rank within the node, ordered by world rank */
        int columns;
        PMPI_Comm_split(MPI_COMM_WORLD, local, world_rank, &comm);
        PMPI_Allreduce(&local, &columns, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        PMPI_Comm_size(comm, &p);
        if (world_rank == 0)
            printf("# column communicators: %d, of %d ranks\n", columns + 1, p);
    }
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    int least_p = p;
    PMPI_Allreduce(&p, &least_p, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (o.root >= least_p)
        die("-R: not a rank of every communicator timed");
    for (int c = 0; c < B_NCOLL; c++) {
        const char *forced = getenv(coll_env[c]);
        if (o.shim_label)
            snprintf(shim_label[c], sizeof shim_label[c], "%s", o.shim_label);
        else
            snprintf(shim_label[c], sizeof shim_label[c], "collshim:%s", forced && *forced ? forced : "auto");
    }

    size_t max_len = 0; /* the largest buffer any kept size needs */
    for (int c = 0; c < B_NCOLL; c++)
        for (int i = 0; o.coll[c] && i < o.nsizes; i++) {
            const size_t len = c == B_ALLTOALL ? o.sizes[i] * (size_t)p : o.sizes[i];
            if (len > max_len && 4.0 * (double)len * world_p <= o.budget)
                max_len = len;
        }
    char *s = malloc(max_len + 8), *r = malloc(max_len + 8), *want = malloc(max_len + 8);
    double *t = malloc(sizeof(double) * (size_t)o.reps);
    if (!s || !r || !want || !t)
        die("out of memory");

    if (world_rank == 0)
        printf("# %-7s %5s %9s %-6s %-28s %-12s %-12s\n", "coll", "p", "bytes", "path", "alg", "median_s", "min_s");
    for (int c = 0; c < B_NCOLL; c++) {
        for (int i = 0; o.coll[c] && i < o.nsizes; i++) {
            const size_t bytes = o.sizes[i];
            const size_t len = c == B_ALLTOALL ? bytes * (size_t)p : bytes;
            if (c == B_ALLTOALL && o.a2a_budget > 0 && (double)bytes * p * p > o.a2a_budget) {
                if (world_rank == 0)
                    printf("# alltoall %zu: %.3g bytes sent over all ranks, above -A; skipped\n", bytes,
                           (double)bytes * p * p);
                continue;
            }
            if (c != B_ALLTOALL && bytes % sizeof(double)) {
                if (world_rank == 0)
                    printf("# %s %zu: not a multiple of 8 bytes; skipped\n", coll_name[c], bytes);
                continue;
            }
            if (len > max_len || bytes / (c == B_ALLTOALL ? 1 : sizeof(double)) > INT32_MAX) {
                if (world_rank == 0)
                    printf("# %s %zu: %.3g bytes over all ranks, above -m; skipped\n", coll_name[c], bytes,
                           4.0 * (double)len * world_p);
                continue;
            }
            bench_call call = {.coll = c,
                               .root = o.root,
                               .s = s,
                               .r = r,
                               .n = (int)(c == B_ALLTOALL ? bytes : bytes / sizeof(double))};
            if (o.check) {
                check(&call, want, shim_label[c], bytes);
                nchecked++;
            } else
                fill(&call);
            if (o.paths & 1) {
                call.use_pmpi = 0;
                measure(&call, &o, bytes, shim_label[c], t);
            }
            if (o.paths & 2) {
                call.use_pmpi = 1;
                measure(&call, &o, bytes, o.native_label, t);
            }
            fflush(stdout);
        }
    }
    /* SMPI 3.32's smpirun exits 0 after MPI_Abort: scripts look for this line. */
    if (world_rank == 0)
        printf("# done: %d results checked against the library's\n", nchecked);
    free(s);
    free(r);
    free(want);
    free(t);
    if (column)
        PMPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
