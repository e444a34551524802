/*
 * collshim-calibrate's command line: its usage, its options parsed and checked (tool.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/sizes.h"
#include "calibrate/tool.h"
#include "cs_tool.h"

/* The launcher of the library this build runs on. */
#ifdef OPEN_MPI
#define CAL_LAUNCHER "mpirun.openmpi"
#else
#define CAL_LAUNCHER "mpiexec.mpich"
#endif

const char *cal_bad_option, *cal_bad_value, *cal_bad_combination;

void cal_usage(FILE *f)
{
    if (cal_rank == 0)
        fprintf(f,
                "usage: collshim-calibrate [--rules] [-o FILE] [--quick | --budget DURATION] [options]\n"
                "       collshim-calibrate --fit [-o FILE] [options]\n"
                "       collshim-calibrate --verify FILE [-o FIXED] [--quick] [options]\n"
                "Run under " CAL_LAUNCHER " with 2 or more ranks, placed as the real jobs are: measures the machine\n"
                "and writes collshim's configuration for it: the fitted model, and (--rules) rules per\n"
                "communicator size and message size.\n"
                "\n"
                "  --rules            fit the model, time the grid, write the model and rules (the default)\n"
                "  --fit              fit the model only (ping-pong, k-way round trips for o, memcpy,\n"
                "                     PMPI_Reduce_local) and write it with no rules: seconds at p = 2;\n"
                "                     every algorithm is timed at the world's p at 8 B, 1 KiB (64 KiB for\n"
                "                     the reductions) for the model's error, not for rules\n"
                "  -o FILE            the configuration to write (default collshim-machine.yaml); with --verify,\n"
                "                     the verified file with its cells slower than the library set native\n"
                "  --quick            4 message sizes, 5 repetitions: a smoke test, not a verdict. Measured on 2\n"
                "                     cores under MPICH, oversubscribed: about 8 s at p = 4 and 20-35 s at p = 8\n"
                "                     with the test suite's yield wrapper preloaded (build/libcs_yield.so), about\n"
                "                     35-55 s and 300-400 s without it (docs/calibration.md)\n"
                "  --budget D         no new communicator size after D (90s, 20m, 1h); the cut is said\n"
                "  --verify FILE      time what FILE makes collshim run against the library, naming each cell\n"
                "                     slower; with -o FIXED, write FILE to FIXED with those cells native\n"
                "  --sizes LIST       message sizes, increasing (bytes; K, M, G: KiB, MiB, GiB), e.g. 8,1K,64K (at "
                "most %d;\n"
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
int cal_skipped(const cal_opts *o, const cs_alg *alg)
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

/* An increasing list "8,1K,64K" (sizes.h) in [lo, hi]; its length, or -1. */
static int parse_list(const char *s, size_t *out, int max, size_t lo, size_t hi)
{
    unsigned long long v[CAL_MAX_SIZES];
    const char *bad;
    const int n = cs_size_list(s, v, max < CAL_MAX_SIZES ? max : CAL_MAX_SIZES, &bad);
    for (int i = 0; i < n; i++) {
        if (v[i] < lo || v[i] > hi || (i && v[i] <= v[i - 1]))
            return -1;
        out[i] = (size_t)v[i];
    }
    return n;
}

int cal_parse_opts(int argc, char **argv, cal_opts *o)
{
    int reps = 0;
    double noise = -1, target = -1;
    *o = (cal_opts){.out = "collshim-machine.yaml",
                    .reps = 11,
                    .target = 2e-3,
                    .noise = 0.03,
                    .a2a_max = CAL_A2A_MAX,
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
        cal_bad_option = a;
        cal_bad_value = v;
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "-o"))
            o->out = v, o->out_given = 1;
        else if (!strcmp(a, "--verify"))
            o->verify = v;
        else if (!strcmp(a, "--budget") && (o->budget = parse_duration(v)) >= 0)
            continue;
        else if (!strcmp(a, "--sizes") && (o->nsizes = parse_list(v, o->sizes, CAL_MAX_SIZES, 1, (size_t)1 << 30)) > 0)
            continue;
        else if (!strcmp(a, "--comm-sizes")) {
            size_t q[CAL_MAX_Q];
            if ((o->nqs = parse_list(v, q, CAL_MAX_Q, 2, (size_t)cal_world)) < 0)
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
        cal_bad_combination = o->fit > 0 ? "--fit" : "--rules";
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

void cal_usage_error(int asked)
{
    static const char *const takes_value[] = {"-o",           "--verify",       "--budget", "--sizes",
                                              "--comm-sizes", "--alltoall-max", "--reps",   "--noise",
                                              "--target",     "--colls",        "--skip"};
    int known = 0;
    for (int i = 0; asked != 0 && cal_bad_option && i < NELEMS(takes_value); i++)
        known |= !strcmp(cal_bad_option, takes_value[i]);
    if (cal_rank == 0 && cal_bad_combination)
        cs_tool_usage_error("collshim-calibrate", "%s and --verify: one writes a file, the other reads one",
                            cal_bad_combination);
    else if (cal_rank == 0 && asked != 0 && !known)
        cs_tool_usage_error("collshim-calibrate", "unknown option '%s'", cal_bad_option);
    else if (cal_rank == 0 && asked != 0 && !cal_bad_value)
        cs_tool_usage_error("collshim-calibrate", "%s needs a value", cal_bad_option);
    else if (cal_rank == 0 && asked != 0)
        cs_tool_usage_error("collshim-calibrate", "%s: bad value '%s'", cal_bad_option, cal_bad_value);
    else if (cal_rank == 0)
        cs_tool_usage_error("collshim-calibrate", "needs at least 2 ranks (" CAL_LAUNCHER " -n 2 or more)");
}
