/*
 * collshim-calibrate: measure this machine and write collshim's configuration for it.
 *
 *   mpiexec -n P collshim-calibrate [--rules] [-o machine.yaml] [--quick | --budget 20m]
 *                                   [--sizes LIST] [--comm-sizes LIST] [--alltoall-max BYTES]
 *                                   [--reps N] [--noise F] [--target SECONDS] [--colls LIST]
 *                                   [--skip LIST]
 *   mpiexec -n P collshim-calibrate --fit [-o machine.yaml] [...]
 *   mpiexec -n P collshim-calibrate --verify machine.yaml [--quick] [...]
 *
 * Run it with the launcher, the nodes and the ranks per node of the real jobs. It
 *
 * 1. fits the model: alpha and beta by least squares over ping-pong times of 0 B to
 *    4 MiB (relative errors, model/fit.h; R^2 and residuals printed), between two
 *    ranks of one node and, when the run spans nodes (MPI_Comm_split_type shared),
 *    between two nodes: the model takes the inter-node fit then (a collective over
 *    nodes waits for its slowest links); rho from copies beyond the caches; gamma
 *    from PMPI_Reduce_local on the common type and operator classes (the model
 *    takes MPI_DOUBLE with MPI_SUM, the type collshim is calibrated with); o
 *    (overhead) from round trips of k tiny messages between two ranks,
 *    k = 1, 2, 4, ... (half of one: alpha + k o), which also show whether
 *    concurrent messages overlap their alpha; the ping-pong's alpha less o is the
 *    model's; a run over nodes gives alpha_node and beta_node from the
 *    intra-node fit (node_levels);
 * 2. times, per collective, communicator size (the world and sub-communicators of
 *    the first q ranks, powers of two and not) and message size, the library's
 *    collective and every algorithm of ours that can run it (each result checked
 *    against the library's), in paired repetitions, each timed two ways: calls
 *    back to back (total / calls, as applications and OSU or IMB loop) and one
 *    call from a common start (common_start.h: what the model prices); prints
 *    medians, each ratio to the library with its noise, the model's
 *    prediction, and the model's error per algorithm (median and worst);
 * 3. writes a complete configuration (src/config/config_write.c): the fitted model
 *    and <coll>.rules per communicator size x size range (calibrate/derive.h): the
 *    library where the best of ours measured no faster than it (beyond the noise
 *    or within it), auto where the model's choice measured as fast as the best of
 *    ours and faster than the library, else the measured best, each
 *    judged by the worse of its two ratios (back to back, common start). A p it
 *    did not measure gets no rule, so select keeps the library there, to be safe.
 *
 * --rules (the default) does all three. --fit does 1 only, times every
 * algorithm of ours as the fitted model tunes it at the world's p and a few
 * sizes for the model's error per algorithm, and writes the model with no
 * rules (select decides every call under it): seconds at p = 2.
 *
 * --verify FILE reads a configuration (either kind) and times, cell by cell,
 * what collshim would run under it (select's decision, as the shim makes it)
 * against the library, both ways, and reports every cell where that is slower
 * beyond the noise by either, and the model's error per algorithm.
 * Exit status (tools/cs_tool.h, as the other tools): 0; 1 when the work failed (a
 * wrong result, the model not fitted, the file not written); 2 on a usage error
 * (fewer than 2 ranks, an unknown option or bad value, a configuration that
 * cannot be used); 3 when --verify found a cell slower than the library.
 */
#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calibrate/common_start.h"
#include "calibrate/derive.h"
#include "calibrate/measure.h"
#include "sched/nodes.h"
#include "config/config.h"
#include "cs_tool.h"
#include "model/fit.h"
#include "select/select.h"

#define CAL_MAX_Q 8       /* communicator sizes measured */
#define CAL_GIVEN 48      /* a row's given parameters, "k=3,rmax=3" */
#define CAL_MAX_SIZES 12  /* message sizes per collective */
#define CAL_MAX_PATHS 24  /* the library and ours */
#define CAL_MAX_GIVENS 8  /* parameter sets a row is timed with */
#define CAL_MAX_CELLS (CAL_MAX_Q * CAL_MAX_SIZES)
#define CAL_A2A_MAX ((size_t)64 << 20) /* alltoall: bytes a rank sends in one call, by default */
#define CAL_BUSY_ALPHA 50e-6 /* an intra-node start-up above this: the ranks wait for cores */
#define CAL_COLLS_NONE (1u << 31) /* --colls none: no collective timed (a bit no collective has) */
#define CAL_OUTLIER 0.5 /* a ping-pong time this far off the fitted line is not fitted */

typedef struct cal_opts {
    const char *out, *verify;
    int quick;
    int fit;       /* --fit: the model only, no rules */
    double budget; /* seconds; 0: none */
    int reps;
    double target, noise;
    size_t sizes[CAL_MAX_SIZES]; /* --sizes: every collective's; 0 of them: the presets */
    int nsizes;
    int qs[CAL_MAX_Q]; /* --comm-sizes; 0 of them: the world and sub-communicators */
    int nqs;
    size_t a2a_max; /* --alltoall-max: an alltoall of more bytes per rank (block x p) is not timed */
    unsigned colls; /* --colls: bit c for each collective timed (default all) */
    const char *skip; /* --skip: algorithms of ours not timed, "linear,direct" */
} cal_opts;

static int rank, world;

static const size_t red_full[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152};
static const size_t red_quick[] = {8, 512, 32768, 1048576};
static const size_t a2a_full[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072};
static const size_t a2a_quick[] = {8, 512, 16384};
static const size_t pp_full[] = {0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};
static const size_t pp_quick[] = {0, 64, 4096, 262144, 1048576};
/* --fit times every algorithm of ours at these sizes only, for the model's error. */
static const size_t red_fit[] = {8, 1024, 65536};
static const size_t a2a_fit[] = {8, 1024};
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void usage(FILE *f)
{
    if (rank == 0)
        fprintf(f, "usage: collshim-calibrate [--rules] [-o FILE] [--quick | --budget DURATION] [options]\n"
                   "       collshim-calibrate --fit [-o FILE] [options]\n"
                   "       collshim-calibrate --verify FILE [--quick] [options]\n"
                   "Run under mpiexec with 2 or more ranks, placed as the real jobs are: measures the machine\n"
                   "and writes collshim's configuration for it: the fitted model, and (--rules) rules per\n"
                   "communicator size and message size.\n"
                   "\n"
                   "  --rules            fit the model, time the grid, write the model and rules (the default)\n"
                   "  --fit              fit the model only (ping-pong, k-way round trips for o, memcpy,\n"
                   "                     PMPI_Reduce_local) and write it with no rules: seconds at p = 2;\n"
                   "                     every algorithm is timed at the world's p at 8 B, 1 KiB (64 KiB for\n"
                   "                     the reductions) for the model's error, not for rules\n"
                   "  -o FILE            the configuration to write (default collshim-machine.yaml)\n"
                   "  --quick            4 message sizes, 5 repetitions: a minute, not a verdict\n"
                   "  --budget D         no new communicator size after D (90s, 20m, 1h); the cut is said\n"
                   "  --verify FILE      time what FILE makes collshim run against the library\n"
                   "  --sizes LIST       message sizes, increasing (bytes; K, M suffixes), e.g. 8,1K,64K (at most %d;\n"
                   "                     alltoall: per destination; reductions: from 8, doubles)\n"
                   "  --comm-sizes LIST  communicator sizes, increasing: the first q ranks of the world (at most %d)\n"
                   "  --alltoall-max B   time no alltoall that sends more than B bytes a rank (block x p; default 64M)\n"
                   "  --reps N           paired repetitions (default 11, --quick 5; at most %d)\n"
                   "  --noise F          the least relative difference that counts (default 0.03, --quick 0.05)\n"
                   "  --target S         seconds one timing should last, in calls (default 0.002, --quick 0.0003);\n"
                   "                     0: one call per timing (a deterministic simulator such as SMPI)\n"
                   "  --colls LIST       the collectives to time, e.g. allreduce,reduce (default all three); the\n"
                   "                     others get no rules: collshim's model decides them under the fitted costs;\n"
                   "                     none: the model alone (--fit: no error per algorithm)\n"
                   "  --skip LIST        algorithms of ours not to time, e.g. linear, or of one collective,\n"
                   "                     allreduce:linear (never a rule's choice)\n"
                   "  -h, --help         this text\n" CS_TOOL_EXIT_STATUS
                   "3 --verify found a cell slower than the library beyond the noise.\n",
                CAL_MAX_SIZES, CAL_MAX_Q, CS_CAL_MAX_REPS);
}

/* The argument a usage error is about, for its message. */
static const char *bad_option, *bad_value, *bad_combination;

/* 90, 90s, 20m, 1h; -1 if malformed. */
static double parse_duration(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    if (*end == 'm')
        v *= 60, end++;
    else if (*end == 'h')
        v *= 3600, end++;
    else if (*end == 's')
        end++;
    return *end ? -1 : v;
}

/* The next name of a comma-separated list ("linear,direct"): its length; *s moves past it
 * and its comma, *name points at it. */
static size_t list_next(const char **s, const char **name)
{
    const size_t n = strcspn(*s, ",");
    *name = *s;
    *s += n + ((*s)[n] == ',');
    return n;
}

/* "allreduce,reduce": a bit per collective named; 0 if a name is not one. */
static unsigned parse_colls(const char *s)
{
    unsigned bits = 0;
    const char *t;
    if (!strcmp(s, "none"))
        return CAL_COLLS_NONE;
    while (*s) {
        const size_t n = list_next(&s, &t);
        int c = 0;
        while (c < CS_COLL_LAST && (strlen(cs_coll_name((cs_coll)c)) != n || strncmp(t, cs_coll_name((cs_coll)c), n)))
            c++;
        if (c == CS_COLL_LAST)
            return 0;
        bits |= 1u << c;
    }
    return bits;
}

/* Does the list item t (n characters) name alg: "linear", or with its
 * collective, "allreduce:linear"? */
static int names_alg(const char *t, size_t n, const cs_alg *alg)
{
    const char *coll = cs_coll_name(alg->coll), *colon = memchr(t, ':', n);
    if (colon && ((size_t)(colon - t) != strlen(coll) || strncmp(t, coll, strlen(coll))))
        return 0;
    if (colon) {
        n -= (size_t)(colon + 1 - t);
        t = colon + 1;
    }
    return n == strlen(alg->name) && !strncmp(t, alg->name, n);
}

/* Is alg one of --skip's? */
static int skipped(const cal_opts *o, const cs_alg *alg)
{
    const char *s = o->skip ? o->skip : "", *t;
    while (*s) {
        const size_t n = list_next(&s, &t);
        if (names_alg(t, n, alg))
            return 1;
    }
    return 0;
}

/* Does every name of the list name one of our algorithms? */
static int known_algs(const char *s)
{
    const char *t;
    if (!*s)
        return 0;
    while (*s) {
        const size_t n = list_next(&s, &t);
        int found = 0, nalgs;
        for (int c = 0; c < CS_COLL_LAST && !found; c++) {
            const cs_alg *const *table = cs_alg_table((cs_coll)c, &nalgs);
            for (int i = 0; i < nalgs && !found; i++)
                found = table[i]->build && names_alg(t, n, table[i]);
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* A number in [0, below) that is all of s: 1, or 0. */
static int parse_fraction(const char *s, double *v, double below)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && !*end && *v >= 0 && *v < below;
}

/* An increasing list "8,1K,64K" (K, M: powers of 1024) in [lo, hi]; its length, or -1. */
static int parse_list(const char *s, size_t *out, int max, size_t lo, size_t hi)
{
    int n = 0;
    while (*s) {
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (end == s)
            return -1;
        if (*end == 'K' || *end == 'k')
            v <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
            v <<= 20, end++;
        if (n == max || v < lo || v > hi || (n && v <= out[n - 1]) || (*end && *end != ','))
            return -1;
        out[n++] = (size_t)v;
        s = *end ? end + 1 : end;
    }
    return n ? n : -1;
}

static int parse_opts(int argc, char **argv, cal_opts *o)
{
    int reps = 0;
    double noise = -1, target = -1;
    *o = (cal_opts){.out = "collshim-machine.yaml", .reps = 11, .target = 2e-3, .noise = 0.03, .a2a_max = CAL_A2A_MAX,
                    .colls = (1u << CS_COLL_LAST) - 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick") || !strcmp(a, "--fit") || !strcmp(a, "--rules")) {
            o->quick |= a[2] == 'q';
            o->fit = a[2] == 'f' ? 1 : a[2] == 'r' ? -1 : o->fit; /* -1: --rules, said */
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        bad_option = a;
        bad_value = v;
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "-o"))
            o->out = v;
        else if (!strcmp(a, "--verify"))
            o->verify = v;
        else if (!strcmp(a, "--budget") && (o->budget = parse_duration(v)) >= 0)
            continue;
        else if (!strcmp(a, "--sizes") && (o->nsizes = parse_list(v, o->sizes, CAL_MAX_SIZES, 1, (size_t)1 << 30)) > 0)
            continue;
        else if (!strcmp(a, "--comm-sizes")) {
            size_t q[CAL_MAX_Q];
            if ((o->nqs = parse_list(v, q, CAL_MAX_Q, 2, (size_t)world)) < 0)
                return -1;
            for (int j = 0; j < o->nqs; j++)
                o->qs[j] = (int)q[j];
        } else if (!strcmp(a, "--alltoall-max") && parse_list(v, &o->a2a_max, 1, 0, (size_t)1 << 40) == 1)
            continue;
        else if (!strcmp(a, "--reps") && (reps = atoi(v)) >= 1 && reps <= CS_CAL_MAX_REPS)
            continue;
        else if (!strcmp(a, "--noise") && parse_fraction(v, &noise, 1.0))
            continue;
        else if (!strcmp(a, "--target") && parse_fraction(v, &target, 10.0))
            continue;
        else if (!strcmp(a, "--colls") && (o->colls = parse_colls(v)) != 0)
            continue;
        else if (!strcmp(a, "--skip") && known_algs(v))
            o->skip = v;
        else
            return -1;
    }
    if (o->fit && o->verify) { /* --fit and --rules write, --verify reads */
        bad_combination = o->fit > 0 ? "--fit" : "--rules";
        return -1;
    }
    o->fit = o->fit > 0;
    if (o->quick || o->fit)
        o->reps = 5, o->target = 3e-4, o->noise = 0.05;
    if (reps)
        o->reps = reps;
    if (noise >= 0)
        o->noise = noise;
    if (target >= 0)
        o->target = target;
    return 0;
}

/* ---- the model ------------------------------------------------------------ */

/* "\n#   measured:   t0 t1 ..." under a row of what was varied. */
static void print_measured(const double *t, int n)
{
    printf("\n#   measured:  ");
    for (int i = 0; i < n; i++)
        printf(" %9.3e", t[i]);
}

static void print_fit(const char *what, const cs_fit *f, const size_t *x, const double *t, const int *dropped, int n)
{
    printf("# %s: alpha %.3e s, beta %.3e s/B (%.2f GB/s); R^2 %.5f, residuals rms %.1f%% max %.1f%%%s\n", what,
           f->a, f->b, f->b > 0 ? 1e-9 / f->b : INFINITY, f->r2, 100 * f->rms_residual, 100 * f->max_residual,
           f->clamped ? " (a negative term set to 0)" : "");
    printf("#   bytes:     ");
    for (int i = 0; i < n; i++)
        printf(" %9zu", x[i]);
    print_measured(t, n);
    printf("\n#   residual:  ");
    for (int i = 0; i < n; i++)
        printf(" %8.1f%%%s", 100 * (t[i] - f->a - f->b * (double)x[i]) / t[i], dropped[i] ? "*" : "");
    printf("\n");
    for (int i = 0; i < n; i++)
        if (dropped[i]) {
            printf("#   * not fitted: more than %.0f%% off the line (a protocol switch of the library, or noise)\n",
                   100 * CAL_OUTLIER);
            break;
        }
}

/* Fit a line to the points not dropped; drop the worst while it is more
 * than CAL_OUTLIER off and more than 3 points remain. */
static int fit_robust(const size_t *x, const double *t, int n, int *dropped, cs_fit *f)
{
    for (;;) {
        double xs[16], ts[16];
        int m = 0, worst = -1;
        for (int i = 0; i < n; i++)
            if (!dropped[i]) {
                xs[m] = (double)x[i];
                ts[m++] = t[i];
            }
        if (cs_fit_line(xs, ts, m, f) != 0)
            return -1;
        for (int i = 0; i < n; i++) {
            const double e = fabs(t[i] - f->a - f->b * (double)x[i]) / t[i];
            if (!dropped[i] && e > CAL_OUTLIER && (worst < 0 || e > fabs(t[worst] - f->a - f->b * (double)x[worst]) / t[worst]))
                worst = i;
        }
        if (worst < 0 || m <= 3)
            return 0;
        dropped[worst] = 1;
    }
}

/* alpha and beta of world rank 0's ping-pong with peer[0], every rank r in
 * one with peer[r] at once (-1: none): 0 on success. */
static int fit_pairs(const int *peer, const cal_opts *o, const char *what, cs_fit *f)
{
    const size_t *x = o->quick ? pp_quick : pp_full;
    const int n = o->quick ? NELEMS(pp_quick) : NELEMS(pp_full);
    double t[16];
    int dropped[16] = {0};
    for (int i = 0; i < n; i++)
        t[i] = cs_cal_pingpong_pairs(MPI_COMM_WORLD, peer, 0, x[i], o->reps, o->target / 4);
    int rc = fit_robust(x, t, n, dropped, f);
    if (rank == 0 && rc == 0)
        print_fit(what, f, x, t, dropped, n);
    return rc;
}

/* Per-byte cost of f over sizes beyond the caches, with what it is. */
static double fit_per_byte(double (*time_of)(size_t bytes, const void *arg), const void *arg, const cal_opts *o)
{
    const size_t sizes[] = {(size_t)4 << 20, (size_t)16 << 20, (size_t)32 << 20};
    double x[3], t[3];
    const int n = o->quick ? 2 : 3;
    cs_fit f;
    int timed = 0;
    for (int i = 0; i < n; i++) {
        x[i] = (double)sizes[i];
        t[i] = time_of(sizes[i], arg);
        timed |= t[i] != 0.0;
        if (!timed) /* a simulator that charges no local computation (SMPI's simulate-computation:no) */
            return 0.0;
    }
    return cs_fit_slope(x, t, n, &f) == 0 ? f.b : -1.0;
}

#define CAL_LOCAL_REPS 5

static double time_copy(size_t bytes, const void *arg)
{
    return cs_cal_copy(MPI_COMM_WORLD, bytes, CAL_LOCAL_REPS);
}

typedef struct reduce_class {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
} reduce_class;

static double time_reduce(size_t bytes, const void *arg)
{
    const reduce_class *c = arg;
    return cs_cal_reduce_local(MPI_COMM_WORLD, c->type, c->op, bytes, CAL_LOCAL_REPS);
}

/*
 * o from round trips of k 8-byte messages between ranks 0 and 1 (cs_cal_fan),
 * k = 1, 2, 4, ... up to the larger of 8 and p - 1: half of one is
 * alpha + k o under the pricer (rank 0 posts k sends, rank 1 k receives, then
 * k sends back), a line in k (cs_fit_line). Its intercept is the alpha that
 * concurrent messages see, against the ping-pong's, pp_alpha: whether they
 * overlap their alpha, as the pricer assumes. (Messages to k different peers
 * measured the network's distances too: on a hypercube the k-th peer is
 * log2 k hops away, which read as an o of 0.19 us where there was none.)
 * 0 on success.
 */
static int fit_overhead(const cal_opts *o, double pp_alpha, double *overhead)
{
    double k[16], t[16];
    int n = 0;
    cs_fit f;
    for (int x = 1; n < 16 && x <= 256 && (x <= 8 || x <= world - 1); x *= 2) {
        k[n] = x;
        t[n++] = cs_cal_fan(MPI_COMM_WORLD, x, 8, o->reps, o->target / 4);
    }
    if (cs_fit_line(k, t, n, &f) != 0)
        return -1;
    *overhead = f.b;
    if (rank != 0)
        return 0;
    printf("# round trips of k 8-byte messages: o %.3e s per message posted; concurrent messages see alpha %.3e s "
           "(ping-pong's %.3e); residuals rms %.1f%% max %.1f%%\n#   k:         ",
           f.b, f.a, pp_alpha, 100 * f.rms_residual, 100 * f.max_residual);
    for (int i = 0; i < n; i++)
        printf(" %9.0f", k[i]);
    print_measured(t, n);
    printf("\n");
    if (f.a < 0.25 * pp_alpha && f.b > 0.5 * pp_alpha)
        printf("# warning: concurrent messages do not overlap their alpha as the model assumes (each adds %.0f%% of a\n"
               "#          ping-pong's): more ranks than free cores, or a library that serialises messages\n",
               100 * f.b / pp_alpha);
    return 0;
}

/* alpha and beta between world ranks 0 and b alone (peer: scratch, p entries). */
static int fit_pair(int b, int *peer, const cal_opts *o, const char *what, cs_fit *f)
{
    for (int r = 0; r < world; r++)
        peer[r] = r == 0 ? b : r == b ? 0 : -1;
    return fit_pairs(peer, o, what, f);
}

#define CAL_LINK_SHARED 1.1

/*
 * A node's link (model.beta_link): every rank in a ping-pong with the
 * same-numbered rank of a partner node at once, so that each node's ranks
 * all send off it together; per byte each pair then sees its share of the
 * link. The link's own time per byte is that share over the ranks of world
 * rank 0's node in a pair (not less than the model's beta over them: a
 * link that one rank alone fills). node_of: world entries; scratch: 5 world + 1.
 */
static int fit_node_link(const int *node_of, int *scratch, const cal_opts *o, cs_model *m)
{
    int *peer = scratch + 4 * world + 1, senders = 0;
    cs_fit loaded;
    cs_cal_cross_node_pairs(node_of, world, scratch, peer);
    for (int r = 0; r < world; r++)
        senders += node_of[r] == node_of[0] && peer[r] >= 0;
    if (fit_pairs(peer, o, "ping-pong between nodes, every rank in a pair at once", &loaded) != 0)
        return -1;
    /* shared where the pairs are slower than one alone beyond the noise (a fat tree's uplinks are not) */
    m->beta_link = senders > 1 && loaded.b > CAL_LINK_SHARED * m->beta ? loaded.b / senders : 0.0;
    if (rank == 0)
        printf("# beta_link %.3e s/B: a node's link, %d of its ranks sending off it at once (%s)\n", m->beta_link,
               senders, m->beta_link > 0.0 ? "shared" : "each as fast as one alone: not shared");
    return 0;
}

/*
 * Where every rank has a node of its own, the network may still group them
 * (the hosts of a fat tree's leaf switch): the latency from rank 0 to every
 * rank, and the least block of ranks nearer than all the others
 * (cs_cal_latency_block) becomes the model's node (model.ranks_per_node,
 * node_of: world entries, each block's first rank). 0 on success.
 */
static int network_blocks(int *node_of, const cal_opts *o, cs_model *m)
{
    for (int r = 0; r < world; r++)
        if (node_of[r] != r)
            return 0; /* ranks share nodes: those are the model's */
    double *lat = malloc(sizeof(double) * (size_t)world);
    if (!lat)
        return -1;
    cs_cal_latency_row(MPI_COMM_WORLD, 8, o->reps, lat);
    double near = 0.0, far = 0.0;
    const int g = cs_cal_latency_block(lat, world, &near, &far);
    if (rank == 0 && g > 0)
        printf("# one rank a node, and the network groups them: ranks 1..%d are %.3e s from rank 0 at most, "
               "the others %.3e at least: ranks_per_node %d\n",
               g - 1, near, far, g);
    else if (rank == 0)
        printf("# one rank a node, and no block of ranks nearer to rank 0 than the others\n");
    free(lat);
    m->ranks_per_node = g;
    for (int r = 0; g > 0 && r < world; r++)
        node_of[r] = r / g * g;
    return 0;
}

/*
 * The protocol (model.rendezvous_from): for sizes 1 B to 1 MiB, whether a
 * receive posted late (cs_cal_late_receive) found its block waiting for it
 * (cs_cal_late_waited, under the pair's fit f and the model's o and rho).
 * The least size from which every larger one waits, bisected against the
 * eager size below it to within a quarter, is rendezvous_from; 0 where none
 * waits.
 */
static int waited(double late, const cs_fit *f, const cs_model *m, size_t bytes)
{
    return cs_cal_late_waited(late, f->a, f->b, m->overhead, m->rho, bytes);
}

static size_t fit_rendezvous(const cal_opts *o, const cs_fit *f, const cs_model *m)
{
    static const size_t sizes[] = {1, 8, 64, 512, 4096, 32768, 262144, 1048576};
    int waits[NELEMS(sizes)], from = NELEMS(sizes);
    double late[NELEMS(sizes)];
    for (int i = 0; i < NELEMS(sizes); i++) {
        late[i] = cs_cal_late_receive(MPI_COMM_WORLD, sizes[i], o->reps, o->target > 0);
        waits[i] = waited(late[i], f, m, sizes[i]);
    }
    while (from > 0 && waits[from - 1])
        from--;
    size_t lo = from > 0 ? sizes[from - 1] : 0, hi = from < NELEMS(sizes) ? sizes[from] : 0;
    while (from > 0 && hi && hi - lo > lo / 4 + 1) { /* lo eager, hi waits */
        const size_t mid = lo + (hi - lo) / 2;
        if (waited(cs_cal_late_receive(MPI_COMM_WORLD, mid, o->reps, o->target > 0), f, m, mid))
            hi = mid;
        else
            lo = mid;
    }
    if (rank == 0) {
        printf("# a receive posted late, seconds to its end (a block that waited for it takes about alpha + beta m):\n"
               "#   bytes:    ");
        for (int i = 0; i < NELEMS(sizes); i++)
            printf(" %9zu", sizes[i]);
        print_measured(late, NELEMS(sizes));
        printf("\n# rendezvous_from %zu: %s\n", hi,
               hi == 0 ? "every message is sent eagerly" : "messages this large wait for their receive");
    }
    return hi;
}

/* Fit the model; 0 on success (every rank gets it). */
static int fit_model(const cal_opts *o, cs_model *m)
{
    MPI_Comm node;
    int same_node = -1, other_node = -1, nrank, nodes_key, leader;
    cs_fit intra, inter;

    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_rank(node, &nrank);
    leader = rank; /* the world rank of my node's first rank names the node */
    PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    int *node_of = malloc(sizeof(int) * ((size_t)world * 6 + 1)), *scratch = node_of + world;
    if (!node_of)
        return -1;
    PMPI_Allgather(&leader, 1, MPI_INT, node_of, 1, MPI_INT, MPI_COMM_WORLD);
    if (world >= 4 && network_blocks(node_of, o, m) != 0) {
        free(node_of);
        return -1;
    }
    nodes_key = 0;
    for (int r = 1; r < world; r++) {
        if (node_of[r] == node_of[0] && same_node < 0)
            same_node = r;
        if (node_of[r] != node_of[0] && other_node < 0)
            other_node = r;
        if (node_of[r] == r)
            nodes_key++;
    }
    if (rank == 0)
        printf("# %d ranks on %d node(s)\n", world, nodes_key + 1);
    if ((same_node >= 0 && fit_pair(same_node, scratch, o, "ping-pong within a node", &intra) != 0) ||
        (other_node >= 0 && fit_pair(other_node, scratch, o, "ping-pong between nodes", &inter) != 0)) {
        free(node_of);
        return -1;
    }
    const cs_fit *take = other_node >= 0 ? &inter : &intra;
    if (rank == 0)
        printf("# the model takes the %s fit\n", other_node >= 0 ? "inter-node (the slower links)" : "intra-node");
    if (rank == 0 && same_node >= 0 && intra.a > CAL_BUSY_ALPHA)
        printf("# warning: a message within a node starts in %.0f us: more ranks than free cores (time slices)?\n"
               "#          calibrate on an otherwise idle node, one rank per core\n",
               intra.a * 1e6);
    if (fit_overhead(o, take->a, &m->overhead) != 0) {
        free(node_of);
        return -1;
    }
    /* A blocking ping-pong's half round trip is alpha + o to the pricer (the sender posts, the
     * receiver's receive waits posted): the model's alpha is the rest. */
    m->alpha = fmax(0.0, take->a - m->overhead);
    m->beta = take->b;
    if (other_node >= 0 && same_node >= 0) { /* two levels: node pairs apart from the others */
        m->node_levels = 1;
        m->alpha_node = fmax(0.0, intra.a - m->overhead);
        m->beta_node = intra.b;
    }
    if (rank == 0)
        printf("# model: alpha %.3e s, beta %.3e s/B, overhead %.3e s%s\n", m->alpha, m->beta, m->overhead,
               m->node_levels ? " (alpha_node, beta_node: the intra-node fit's)" : "");
    const int link = other_node >= 0 && same_node >= 0 ? fit_node_link(node_of, scratch, o, m) : 0;
    const cs_fit pair01 = same_node == 1 ? intra : *take; /* ranks 0 and 1's, for the protocol */
    free(node_of);
    if (link != 0)
        return -1;

    m->rho = fit_per_byte(time_copy, NULL, o);
    if (m->rho >= 0)
        m->rendezvous_from = fit_rendezvous(o, &pair01, m);
    static const reduce_class classes[] = {
        {"MPI_DOUBLE MPI_SUM", MPI_DOUBLE, MPI_SUM}, {"MPI_FLOAT MPI_SUM", MPI_FLOAT, MPI_SUM},
        {"MPI_INT MPI_SUM", MPI_INT, MPI_SUM},       {"MPI_INT64_T MPI_SUM", MPI_INT64_T, MPI_SUM},
        {"MPI_INT MPI_MAX", MPI_INT, MPI_MAX},       {"MPI_DOUBLE MPI_MAX", MPI_DOUBLE, MPI_MAX},
    };
    if (rank == 0)
        printf("# rho %.3e s/B (memcpy beyond the caches, every rank at once)\n", m->rho);
    for (int i = 0; i < (o->fit ? 1 : NELEMS(classes)); i++) { /* --fit: the model's class only */
        const double g = fit_per_byte(time_reduce, &classes[i], o);
        if (i == 0)
            m->gamma = g;
        if (rank == 0)
            printf("# gamma %.3e s/B  %s%s\n", g, classes[i].name, i == 0 ? " (the model's)" : "");
    }
    return m->rho >= 0 && m->gamma >= 0 ? 0 : -1;
}

/* ---- the collectives ------------------------------------------------------ */

/* The communicator sizes: the world first, then up to CAL_MAX_Q - 1 smaller
 * ones: every q below 8, else powers of two and three times powers of two. */
static int comm_sizes(int p, int *q)
{
    int cand[64], nc = 0, n = 0;
    q[n++] = p;
    for (int x = 2; x < p && nc < 64; x = x < 8 ? x + 1 : (x & (x - 1)) ? x / 3 * 4 : x / 2 * 3)
        cand[nc++] = x;
    while (nc > CAL_MAX_Q - 1) { /* thin out evenly, keeping the smallest and largest */
        int m = 0;
        for (int i = 0; i < nc; i++)
            if (i % 2 == 0 || i == nc - 1)
                cand[m++] = cand[i];
        nc = m;
    }
    for (int i = 0; i < nc; i++)
        q[n++] = cand[i];
    return n;
}

typedef struct cal_row {
    cs_cal_path path;
    char given[CAL_GIVEN];               /* parameters given (cs_alg.measured, or the built-in model's), or "" */
    double predicted, predicted_default; /* under the fitted model and the built-in one */
    cs_decision d;                       /* --verify: select's decision under the file */
} cal_row;

#define CAL_ERR_MAX 512 /* timings per algorithm in the model's error */

/* The model's error for one algorithm: |predicted/measured - 1| per timing. */
typedef struct cal_err {
    cs_coll coll;
    const cs_alg *alg;
    int n;
    double once[CAL_ERR_MAX], loop[CAL_ERR_MAX]; /* from a common start; back to back */
} cal_err;

typedef struct cal_state {
    const cal_opts *o;
    cs_config cfg;     /* the fitted model (calibration) or the file (--verify) */
    cs_model defaults; /* the built-in model, for the error before calibration */
    cs_cal_cell cells[CS_COLL_LAST][CAL_MAX_CELLS];
    char given[CS_COLL_LAST][CAL_MAX_CELLS][CAL_GIVEN]; /* each cell's best_given */
    int ncells[CS_COLL_LAST];
    double err_fit[4096], err_default[4096];
    int nerr;
    int verify_cells, verify_slower;
    cal_err errs[48];
    int nerrs;
} cal_state;

/* Does a row before rows[n] run what rows[n] would (the same algorithm and parameters in effect)? */
static int timed_before(const cal_row *rows, int n, const cal_row *r)
{
    char spec[128], other[128];
    cs_alg_spec(r->path.alg, &r->path.params, spec, sizeof spec);
    for (int k = 1; k < n; k++) {
        if (rows[k].path.alg != r->path.alg)
            continue;
        cs_alg_spec(rows[k].path.alg, &rows[k].path.params, other, sizeof other);
        if (!strcmp(spec, other))
            return 1;
    }
    return 0;
}

/*
 * The parameter sets a row is timed with, as its parse reads them: "" (as the
 * fitted model tunes it); as the built-in model does (where the fit misjudges
 * a parameter, the other may measure faster: a rule then gives it); the fitted
 * model's split stages k one fewer and one more (the halving threshold trades
 * start-ups for bytes, and a network whose links are shared, or serve several
 * messages at once, moves it where neither model sees: ring at p = 96 on
 * 8-rank nodes, 512 B: k = 0 as both models tune it, 1.03 of Open MPI's;
 * k = 1, 0.98); then each of its measured parameters. Returns how many.
 */
static int row_givens(const cal_state *st, const cs_alg *alg, const cs_problem *prob,
                      char given[CAL_MAX_GIVENS][CAL_GIVEN])
{
    int n = 0;
    cs_params params;
    given[n++][0] = '\0';
    if (st->o->fit) /* the model's error: each row as the fitted model tunes it */
        return n;
    if (alg->tune && alg->format) {
        cs_params_init(&params);
        alg->tune(&st->defaults, prob, &params);
        n += alg->format(&params, given[n], CAL_GIVEN) > 0;
        cs_params_init(&params);
        alg->tune(&st->cfg.model, prob, &params);
        for (int dk = -1; dk <= 1 && params.k >= 0; dk += 2) {
            cs_params near = params;
            near.k += dk;
            n += near.k >= 0 && alg->format(&near, given[n], CAL_GIVEN) > 0;
        }
    }
    for (int v = 0; alg->measured && alg->measured[v] && n < CAL_MAX_GIVENS; v++)
        snprintf(given[n++], CAL_GIVEN, "%s", alg->measured[v]);
    return n;
}

/* The paths of a cell: the library, then ours that can run it (calibration)
 * or what select decides under the file (--verify). Returns how many. */
static int cell_paths(cal_state *st, const cs_problem *prob, cs_select_cache *cache, cal_row *rows)
{
    int n = 0, nalgs;
    memset(rows, 0, sizeof(cal_row) * CAL_MAX_PATHS);
    rows[n++].path.alg = NULL;
    if (st->o->verify) {
        cs_decision *d = &rows[n].d;
        cs_select(&st->cfg, cache, prob, d);
        cs_select_predict(&st->cfg.model, prob, d);
        rows[n].path.alg = d->alg;
        rows[n].path.params = d->params;
        rows[n++].predicted = d->predicted;
        return n;
    }
    const cs_alg *const *table = cs_alg_table(prob->coll, &nalgs);
    for (int i = 0; i < nalgs; i++) {
        const cs_alg *alg = table[i];
        char given[CAL_MAX_GIVENS][CAL_GIVEN];
        if (!alg->cost || cs_select_restriction(alg, prob) || skipped(st->o, alg))
            continue;
        /* Parameters in effect that a path before it has too (r = 8 and 16 at p = 4) are timed once. */
        const int ng = row_givens(st, alg, prob, given);
        for (int v = 0; v < ng; v++) {
            if (n == CAL_MAX_PATHS)
                return n;
            cal_row *r = &rows[n];
            r->path.alg = alg;
            memcpy(r->given, given[v], sizeof r->given);
            cs_params_init(&r->path.params);
            if (r->given[0] && alg->parse(r->given, &r->path.params) != 0)
                continue;
            if (alg->tune)
                alg->tune(&st->cfg.model, prob, &r->path.params);
            if (timed_before(rows, n, r))
                continue;
            r->predicted = alg->cost(&st->cfg.model, prob, &r->path.params);
            r->predicted_default = alg->cost(&st->defaults, prob, &r->path.params);
            n++;
        }
    }
    return n;
}

/* The ratios t_a / t_b of two paths' paired repetitions, back to back or from a common start. */
static cs_cal_ratio ratio_of(const cs_cal_path *a, const cs_cal_path *b, int start, int reps, double floor)
{
    return start ? cs_cal_ratio_paired(a->t_start, b->t_start, reps, floor)
                 : cs_cal_ratio_paired(a->t, b->t, reps, floor);
}

/* What the decisions use (derive.h): on a real node at p = 16, small reduce was ruled faster
 * from timings like the common start's and measured 1.28-1.73x slower in a back-to-back loop. */
static cs_cal_ratio worse_ratio(const cs_cal_path *a, const cs_cal_path *b, int reps, double floor)
{
    return cs_cal_ratio_worse(a->t, b->t, a->t_start, b->t_start, reps, floor);
}

static double median_time(const double *t, int reps)
{
    double v[CS_CAL_MAX_REPS];
    memcpy(v, t, sizeof(double) * (size_t)reps);
    return cs_cal_quantile(v, reps, 0.5);
}

static void print_row(const cs_problem *prob, const cal_row *r, const cal_row *native, int reps, const char *mark)
{
    char spec[128];
    if (r->path.alg)
        cs_alg_spec(r->path.alg, &r->path.params, spec, sizeof spec);
    else
        strcpy(spec, "native");
    const double med = median_time(r->path.t, reps), start = median_time(r->path.t_start, reps);
    const cs_cal_ratio loop = ratio_of(&r->path, &native->path, 0, reps, 0.0);
    const cs_cal_ratio once = ratio_of(&r->path, &native->path, 1, reps, 0.0);
    printf("%-9s %5d %8zu  %-22s %10.3e  %6.3f ±%5.3f  %10.3e  %6.3f ±%5.3f", cs_coll_name(prob->coll), prob->p,
           prob->bytes, spec, med, loop.median, loop.noise, start, once.median, once.noise);
    if (r->path.alg && r->path.alg->cost && r->predicted >= 0)
        printf("  %10.3e %7.3f", r->predicted, r->predicted / start);
    else
        printf("  %10s %7s", "-", "-");
    printf("  %s\n", mark);
}

/* |predicted/measured - 1| of one timing of ours, per collective and algorithm. */
static void record_error(cal_state *st, cs_coll coll, const cal_row *r)
{
    const int reps = st->o->reps;
    if (!r->path.alg || !r->path.alg->cost || !(r->predicted >= 0))
        return;
    int i = 0;
    while (i < st->nerrs && (st->errs[i].coll != coll || st->errs[i].alg != r->path.alg))
        i++;
    if (i == NELEMS(st->errs))
        return;
    cal_err *e = &st->errs[i];
    if (i == st->nerrs) {
        st->nerrs++;
        *e = (cal_err){.coll = coll, .alg = r->path.alg};
    }
    if (e->n == CAL_ERR_MAX)
        return;
    e->once[e->n] = fabs(r->predicted / median_time(r->path.t_start, reps) - 1.0);
    e->loop[e->n++] = fabs(r->predicted / median_time(r->path.t, reps) - 1.0);
}

/* The model's error per algorithm: median and worst over its timings, both ways. */
static void print_errors(cal_state *st)
{
    printf("# model error per algorithm, |predicted/measured - 1|: median, worst over its cells; from a common start "
           "(what the model prices) | back to back\n");
    for (int i = 0; i < st->nerrs; i++) {
        cal_err *e = &st->errs[i];
        const double once = cs_cal_quantile(e->once, e->n, 0.5), once_max = cs_cal_quantile(e->once, e->n, 1.0);
        const double loop = cs_cal_quantile(e->loop, e->n, 0.5), loop_max = cs_cal_quantile(e->loop, e->n, 1.0);
        printf("# model error %-9s %-12s %3d cells: median %6.1f%% worst %7.1f%% | median %6.1f%% worst %7.1f%%\n",
               cs_coll_name(e->coll), e->alg->name, e->n, 100 * once, 100 * once_max, 100 * loop, 100 * loop_max);
    }
}

/* One cell: time it, record it, print it (rank 0). 0, or -1 on a wrong result. */
static int measure_cell(cal_state *st, cs_cal_comm *c, cs_select_cache *cache, cs_coll coll, size_t bytes)
{
    const cal_opts *o = st->o;
    cs_problem prob;
    cal_row rows[CAL_MAX_PATHS];
    cs_cal_path paths[CAL_MAX_PATHS];
    cs_cal_timing tm = {.reps = o->reps, .target = o->target};

    cs_cal_problem(coll, c->p, bytes, &prob);
    prob.ppn = c->ppn;
    const int n = cell_paths(st, &prob, cache, rows);
    for (int k = 0; k < n; k++)
        paths[k] = rows[k].path;
    int rc = cs_cal_time(c, &prob, paths, n, &tm);
    for (int k = 0; k < n; k++) {
        memcpy(rows[k].path.t, paths[k].t, sizeof paths[k].t);
        memcpy(rows[k].path.t_start, paths[k].t_start, sizeof paths[k].t_start);
    }
    cs_cal_paths_free(paths, n);
    if (rc != MPI_SUCCESS)
        return -1;
    for (int k = 1; k < n; k++)
        record_error(st, coll, &rows[k]);

    if (o->verify) {
        const cs_cal_ratio r = worse_ratio(&rows[1].path, &rows[0].path, o->reps, o->noise);
        const int slower = rows[1].path.alg->build && cs_cal_slower(r);
        st->verify_cells++;
        st->verify_slower += slower;
        if (rank == 0) {
            char why[160];
            if (rows[1].d.rule)
                snprintf(why, sizeof why, "%s: rule %d (line %d)", slower ? "SLOWER than native beyond the noise" : "ok",
                         rows[1].d.rule, rows[1].d.rule_line);
            else
                snprintf(why, sizeof why, "%s: %s", slower ? "SLOWER than native beyond the noise" : "ok",
                         rows[1].d.reason);
            print_row(&prob, &rows[0], &rows[0], o->reps, "");
            print_row(&prob, &rows[1], &rows[0], o->reps, why);
        }
        return 0;
    }

    /* The best of ours: the least of its worse ratio to the library (the two timings' units differ). */
    int best = -1, model = -1;
    double best_ratio = INFINITY;
    for (int k = 1; k < n; k++) {
        const double ratio = worse_ratio(&rows[k].path, &rows[0].path, o->reps, o->noise).median;
        if (best < 0 || ratio < best_ratio)
            best = k, best_ratio = ratio;
        if (!rows[k].path.alg->rules_only && (model < 0 || rows[k].predicted < rows[model].predicted))
            model = k; /* as select chooses: never a rules_only row */
        if (st->nerr < NELEMS(st->err_fit)) {
            const double meas = median_time(rows[k].path.t_start, o->reps);
            st->err_fit[st->nerr] = fabs(rows[k].predicted / meas - 1.0);
            st->err_default[st->nerr++] = fabs(rows[k].predicted_default / meas - 1.0);
        }
    }
    cs_cal_cell cell = {.p = c->p, .bytes = prob.bytes};
    if (best > 0 && model > 0) {
        cell.best = rows[best].path.alg;
        if (rows[best].given[0] && st->ncells[coll] < CAL_MAX_CELLS)
            cell.best_given = strcpy(st->given[coll][st->ncells[coll]], rows[best].given);
        /* auto is the model's choice only where select would not keep the library (model.margin):
         * where it would, a rule `auto` runs the library, not the row timed as the model's. */
        const char *library_name;
        double library_price;
        if (!cs_select_library_keeps(&st->cfg.model, &prob, rows[model].path.alg, &rows[model].path.params,
                                     rows[model].predicted, &library_price, &library_name))
            cell.model = rows[model].path.alg;
        cell.best_native = worse_ratio(&rows[best].path, &rows[0].path, o->reps, o->noise);
        cell.model_best = worse_ratio(&rows[model].path, &rows[best].path, o->reps, o->noise);
        cell.model_native = worse_ratio(&rows[model].path, &rows[0].path, o->reps, o->noise);
    }
    if (st->ncells[coll] < CAL_MAX_CELLS && !o->fit)
        st->cells[coll][st->ncells[coll]++] = cell;
    if (rank == 0) {
        const char *why;
        const cs_alg *alg;
        const cs_choice choice = cs_cal_cell_choice(&cell, &alg, &why);
        for (int k = 0; k < n; k++)
            print_row(&prob, &rows[k], &rows[0], o->reps,
                      k == 0 ? "" : k == best && k == model ? "best, model" : k == best ? "best" : k == model ? "model" : "");
        if (!o->fit) /* --fit writes no rules: no choice to say */
            printf("%-9s %5d %8zu  -> %s%s%s%s%s (%s)\n", cs_coll_name(coll), c->p, prob.bytes,
                   choice == CS_CHOICE_NATIVE ? "native"
                   : choice == CS_CHOICE_AUTO ? "auto"
                                              : alg->name,
                   choice == CS_CHOICE_FORCED && cell.best_given ? ":" : "",
                   choice == CS_CHOICE_FORCED && cell.best_given ? cell.best_given : "",
                   choice == CS_CHOICE_AUTO ? ": " : "", choice == CS_CHOICE_AUTO ? cell.model->name : "", why);
    }
    return 0;
}

static int cmp_cell(const void *a, const void *b)
{
    const cs_cal_cell *x = a, *y = b;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Every collective on the first q ranks of the world. */
static int measure_comm(cal_state *st, int q)
{
    cs_cal_comm c = {.comm = MPI_COMM_NULL, .priv = MPI_COMM_NULL, .global_clock = cs_clock_is_global(), .slack = 1e-6};
    static cs_select_cache cache;
    int rc = 0;

    /* the world itself where q is all of it: SMPI builds a communicator of 1024 ranks in a minute */
    if (q == world)
        c.comm = MPI_COMM_WORLD;
    else
        PMPI_Comm_split(MPI_COMM_WORLD, rank < q ? 0 : MPI_UNDEFINED, rank, &c.comm);
    if (c.comm == MPI_COMM_NULL)
        return 0;
    PMPI_Comm_dup(c.comm, &c.priv);
    PMPI_Comm_size(c.comm, &c.p);
    PMPI_Comm_rank(c.comm, &c.rank);
    /* the shim's too: its decisions and prices on nodes */
    cs_comm_ppn(c.priv, c.rank, c.p, st->cfg.model.ranks_per_node, &c.ppn);
    memset(&cache, 0, sizeof cache);
    for (int coll = 0; coll < CS_COLL_LAST && rc == 0; coll++) {
        if (!(st->o->colls & (1u << coll)))
            continue;
        const int a2a = coll == CS_COLL_ALLTOALL;
        const size_t *sizes = st->o->nsizes ? st->o->sizes
                              : st->o->fit  ? (a2a ? a2a_fit : red_fit)
                              : a2a         ? (st->o->quick ? a2a_quick : a2a_full)
                                            : (st->o->quick ? red_quick : red_full);
        const int nsizes = st->o->nsizes ? st->o->nsizes
                           : st->o->fit  ? (a2a ? NELEMS(a2a_fit) : NELEMS(red_fit))
                           : a2a         ? (st->o->quick ? NELEMS(a2a_quick) : NELEMS(a2a_full))
                                         : (st->o->quick ? NELEMS(red_quick) : NELEMS(red_full));
        if (rank == 0) {
            fprintf(stderr, "collshim-calibrate: %s at p = %d, %d sizes ...\n", cs_coll_name((cs_coll)coll), q,
                    nsizes);
            fflush(stdout);
        }
        for (int i = 0; i < nsizes && rc == 0; i++)
            if (a2a ? sizes[i] * (size_t)q <= st->o->a2a_max : sizes[i] >= sizeof(double))
                rc = measure_cell(st, &c, &cache, (cs_coll)coll, sizes[i]);
    }
    cs_scratch_free(&c.scratch);
    PMPI_Comm_free(&c.priv);
    if (c.comm != MPI_COMM_WORLD)
        PMPI_Comm_free(&c.comm);
    return rc;
}

static double median_of(double *v, int n)
{
    return n ? cs_cal_quantile(v, n, 0.5) : NAN;
}

/* The configuration: the fitted model and the rules. 0, or -1. */
static int write_config(cal_state *st, const int *qs, int nq, int ncut_q)
{
    FILE *f = fopen(st->o->out, "w");
    if (!f) {
        fprintf(stderr, "collshim-calibrate: %s: %s\n", st->o->out, strerror(errno));
        return -1;
    }
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&now));
    if (st->o->fit) { /* the model alone: select decides every call under it */
        fprintf(f, "# Written by collshim-calibrate --fit on %s: %d ranks; the fitted model, no rules.\n", when, world);
        int rc = cs_config_write(f, &st->cfg);
        return fclose(f) != 0 || rc != 0 ? -1 : 0;
    }
    fprintf(f, "# Written by collshim-calibrate%s on %s: %d ranks; communicator sizes measured:", st->o->quick ? " --quick" : "",
            when, world);
    for (int i = 0; i < nq; i++)
        fprintf(f, " %d", qs[i]);
    fprintf(f, "%s.\n# Rules cover those sizes; at any other p the MPI library is kept, to be safe.\n",
            ncut_q ? " (the budget cut the rest)" : "");
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        cs_coll_config *cc = &st->cfg.coll[coll];
        int cut;
        qsort(st->cells[coll], (size_t)st->ncells[coll], sizeof(cs_cal_cell), cmp_cell);
        cc->nrules = cs_cal_rules(st->cells[coll], st->ncells[coll], cc->rules, CS_MAX_RULES, &cut);
        if (cut)
            fprintf(f, "# %s: rules for %d communicator size(s) did not fit in %d rules: not written\n",
                    cs_coll_name((cs_coll)coll), cut, CS_MAX_RULES);
    }
    int rc = cs_config_write(f, &st->cfg);
    return fclose(f) != 0 || rc != 0 ? -1 : 0;
}

/* The library priced (model.library): the file's (--verify), else COLLSHIM_LIBRARY's, else the
 * one running (the scale lab names SMPI's selector, which no version says). 0, or -1 with *err. */
static int library_priced(cs_config *cfg, cs_config_error *err)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    if (cfg->model.library == CS_LIBRARY_AUTO && cs_config_env_apply_one(cfg, "COLLSHIM_LIBRARY", err) != 0)
        return -1;
    if (cfg->model.library == CS_LIBRARY_AUTO)
        cfg->model.library = PMPI_Get_library_version(version, &len) == MPI_SUCCESS ? (int)cs_library_detect(version)
                                                                                      : CS_LIBRARY_MPICH;
    return 0;
}

/* A configuration that cannot be used (--verify's file, COLLSHIM_LIBRARY): said once, and the exit status. */
static int config_failed(const cs_config_error *err)
{
    char text[512];
    cs_config_error_format(err, text, sizeof text);
    if (rank == 0)
        fprintf(stderr, "collshim-calibrate: %s\n", text);
    MPI_Finalize();
    return CS_TOOL_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    static cal_state st;
    cal_opts o;
    int qs[CAL_MAX_Q], nq, done = 0, rc = 0;

    MPI_Init(&argc, &argv);
    cs_tool_check_launcher("collshim-calibrate");
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line at a time: progress shows in a log, also where a run is cut */
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    const int asked = parse_opts(argc, argv, &o);
    if (asked == 1) {
        usage(stdout);
        MPI_Finalize();
        return 0;
    }
    if (asked != 0 || world < 2) {
        static const char *const takes_value[] = {"-o",     "--verify", "--budget", "--sizes", "--comm-sizes",
                                                  "--alltoall-max", "--reps", "--noise", "--target", "--colls",
                                                  "--skip"};
        int known = 0;
        for (int i = 0; asked != 0 && bad_option && i < NELEMS(takes_value); i++)
            known |= !strcmp(bad_option, takes_value[i]);
        if (rank == 0 && bad_combination)
            cs_tool_usage_error("collshim-calibrate", "%s and --verify: one writes a file, the other reads one",
                                bad_combination);
        else if (rank == 0 && asked != 0 && !known)
            cs_tool_usage_error("collshim-calibrate", "unknown option '%s'", bad_option);
        else if (rank == 0 && asked != 0 && !bad_value)
            cs_tool_usage_error("collshim-calibrate", "%s needs a value", bad_option);
        else if (rank == 0 && asked != 0)
            cs_tool_usage_error("collshim-calibrate", "%s: bad value '%s'", bad_option, bad_value);
        else if (rank == 0)
            cs_tool_usage_error("collshim-calibrate", "needs at least 2 ranks (mpiexec -n 2 or more)");
        MPI_Finalize();
        return CS_TOOL_EXIT_USAGE;
    }
    st.o = &o;
    cs_config_defaults(&st.cfg);
    st.defaults = st.cfg.model;
    const double t0 = PMPI_Wtime();
    cs_config_error err;
    if ((o.verify && cs_config_load(o.verify, &st.cfg, &err) != 0) || library_priced(&st.cfg, &err) != 0)
        return config_failed(&err);
    st.defaults.library = st.cfg.model.library;
    if (o.verify) {
        if (rank == 0)
            printf("# verify %s: what collshim runs under it against the library, per cell\n", o.verify);
    } else if (fit_model(&o, &st.cfg.model) != 0) {
        if (rank == 0)
            fprintf(stderr, "collshim-calibrate: the model could not be fitted\n");
        MPI_Finalize();
        return 1;
    }
    if (o.fit) { /* the file as soon as the model is fitted: the timings below only report its error */
        int bad = rank == 0 && write_config(&st, NULL, 0, 0) != 0;
        PMPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad) {
            MPI_Finalize();
            return 1;
        }
        if (rank == 0)
            printf("# wrote %s: the model, fitted in %.3g s\n", o.out, PMPI_Wtime() - t0);
    }
    static cs_hull_table hulls; /* as the shim: Bokhari's hulls on the model and the file */
    cs_hull_table_init(&hulls, &st.cfg.model, st.cfg.coll[CS_COLL_ALLTOALL].hull, st.cfg.coll[CS_COLL_ALLTOALL].nhulls);
    st.cfg.model.hulls = &hulls;

    nq = o.nqs ? o.nqs : o.fit ? (qs[0] = world, 1) : comm_sizes(world, qs);
    if (o.nqs)
        memcpy(qs, o.qs, sizeof(int) * (size_t)nq);
    if (o.colls == CAL_COLLS_NONE) /* the model alone */
        nq = 0;
    if (rank == 0 && nq > 0)
        printf("# per path: back to back (%s calls, seconds per call, median; its ratio to the library's, +-noise),\n"
               "# then one call from a common start (the same), then the model's prediction and its ratio to that\n"
               "%-9s %5s %8s  %-22s %10s  %6s %6s  %10s  %6s %6s  %10s %7s\n",
               o.target > 0 ? "N" : "1", "coll", "p", "bytes", "alg", "loop_s", "/nativ", "noise", "start_s", "/nativ",
               "noise", "predicted", "pred/st");
    for (int i = 0; i < nq && rc == 0; i++) {
        int go = o.budget <= 0 || i == 0 || PMPI_Wtime() - t0 < o.budget;
        PMPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (!go)
            break;
        int bad = measure_comm(&st, qs[i]) != 0, any;
        PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        rc = any;
        done++;
    }
    if (rank == 0 && rc == 0) {
        if (done > 0)
            print_errors(&st);
        if (done < nq) {
            printf("# the budget cut communicator sizes");
            for (int i = done; i < nq; i++)
                printf(" %d", qs[i]);
            printf("\n");
        }
        if (o.verify) {
            printf("# verify: %d cells, %d slower than native beyond the noise\n", st.verify_cells,
                   st.verify_slower);
        } else {
            if (st.nerr > 0)
                printf("# model error, median |predicted/measured - 1| over %d timings of ours: built-in model "
                       "%.1f%%, fitted %.1f%% (from a common start)\n",
                       st.nerr, 100 * median_of(st.err_default, st.nerr), 100 * median_of(st.err_fit, st.nerr));
            if (o.fit) /* written once fitted */
                printf("# done (%.0f s)\n", PMPI_Wtime() - t0);
            else if (write_config(&st, qs, done, nq - done) != 0)
                rc = 1;
            else
                printf("# wrote %s (%.0f s)\n", o.out, PMPI_Wtime() - t0);
        }
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int slower = st.verify_slower;
    PMPI_Bcast(&slower, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return rc ? 1 : slower ? 3 : 0;
}
