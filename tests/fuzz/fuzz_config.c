/*
 * libFuzzer harness over the configuration: the YAML loader (cs_config_load),
 * the COLLSHIM_* environment parsers (cs_config_apply_env) and the two
 * together with the fallback after an error (cs_config_init). Built and run
 * by mk/fuzz.mk (`make fuzz`, `make check-fuzz`) through scripts/collshim-fuzz;
 * everything is compiled with clang -fsanitize=fuzzer,address,undefined.
 *
 * One input, three modes, told apart by its first line, so that any YAML file
 * is a seed as it is (a '%' line is a YAML directive, which no config file
 * uses):
 *
 *   anything else   the whole input is a config file: cs_config_defaults,
 *                   cs_config_load, then the checks below.
 *   "%env\n..."     each further line is NAME=VALUE (NAME a COLLSHIM_*
 *                   variable, with or without the prefix; an unknown NAME, or
 *                   a line without '=', picks a variable from its bytes): the
 *                   variables are set, cs_config_apply_env runs over the
 *                   defaults, and they are unset again.
 *   "%init\n..."    NAME=VALUE lines as for %env, then optionally a line
 *                   "%yaml" whose rest is the file COLLSHIM_CONFIG names:
 *                   cs_config_init, the program's own entry.
 *
 * The file is written to a memfd (a temporary file where there is none) and
 * loaded through /proc/self/fd/N, so the loader reads it exactly as it reads
 * a user's file.
 *
 * What must hold, besides "no crash, no leak, no undefined behaviour":
 *   - a successful load leaves a valid config: costs in [0, 1e9], every
 *     enum in range, a forced algorithm a row of its collective's table whose
 *     parameters survive format and parse, native ranges sorted, disjoint and
 *     not touching (cs_config_native_range agrees with a linear scan), hulls
 *     with distinct p, faces from 0 increasing, parts partitioning log2 p,
 *     log ranks sorted and unique, a log file pattern with only %r %p %%;
 *     the model's hull computes for it, a forced algorithm tunes and prices
 *     calls under it (a finite cost); loading the file again over the result
 *     changes nothing.
 *   - a failed load leaves *cfg as it was but for strict (0 or 1) and gives
 *     file = the path, line and column >= 1 and within the input, a message;
 *     cs_config_error_format writes "file:line:col: message", truncated and
 *     terminated in any buffer size.
 *   - the environment: all or nothing, errors at "environment" line 0 naming
 *     the variable; each set variable is reflected in the result; each value
 *     means in the file's key what it means in the variable (accepted with
 *     the same effect, or rejected with the same reason).
 *   - cs_config_init: a valid config, or on an error the fallback: every
 *     collective native, the defaults' model, no ranges, no hulls.
 *
 * Run one input by hand: build/fuzz/fuzz_config FILE (or a directory).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll/coll.h"
#include "coll/window/window.h"
#include "config/config.h"
#include "model/hull.h"
#include "select/select.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* cs_config_apply_env's variables, in its order, and COLLSHIM_CONFIG. */
static const char *const fz_vars[] = {
    "COLLSHIM_STRICT",    "COLLSHIM_LOG",    "COLLSHIM_LOG_LEVEL",     "COLLSHIM_ALLTOALL",
    "COLLSHIM_ALLREDUCE", "COLLSHIM_REDUCE", "COLLSHIM_WINDOW_METHOD", "COLLSHIM_LIBRARY",
};
enum { FZ_STRICT, FZ_LOG, FZ_LOG_LEVEL, FZ_ALLTOALL, FZ_ALLREDUCE, FZ_REDUCE, FZ_WINDOW, FZ_LIBRARY, FZ_NVARS };

static const cs_coll fz_var_coll[FZ_NVARS] = {
    [FZ_ALLTOALL] = CS_COLL_ALLTOALL, [FZ_ALLREDUCE] = CS_COLL_ALLREDUCE, [FZ_REDUCE] = CS_COLL_REDUCE};

static int fz_fd = -1;
static char fz_path[64];
static size_t fz_input_size; /* of the file, for the bounds on error positions */

/* An invariant broke: say which, then abort so that libFuzzer keeps the input. */
static void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fz_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "fuzz_config: invariant broken: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

#define FZ_CHECK(cond, ...)                                                                                            \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            fz_fail(__VA_ARGS__);                                                                                      \
    } while (0)

static void fz_unset_all(void)
{
    for (size_t i = 0; i < NELEMS(fz_vars); i++)
        unsetenv(fz_vars[i]);
    unsetenv("COLLSHIM_CONFIG");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fz_unset_all(); /* whatever the caller's environment holds */
    /* Inputs go to a memory file, read through its /proc path (Linux). */
    fz_fd = memfd_create("collshim-fuzz.yaml", 0);
    snprintf(fz_path, sizeof fz_path, "/proc/self/fd/%d", fz_fd);
    if (fz_fd < 0 || access(fz_path, R_OK) != 0) {
        perror("fuzz_config: memfd_create or /proc/self/fd");
        exit(2);
    }
    return 0;
}

static void fz_write_file(const uint8_t *data, size_t size)
{
    size_t done = 0;

    if (ftruncate(fz_fd, 0) != 0) {
        perror("fuzz_config: ftruncate");
        exit(2);
    }
    while (done < size) {
        ssize_t n = pwrite(fz_fd, data + done, size - done, (off_t)done);
        if (n <= 0) {
            perror("fuzz_config: pwrite");
            exit(2);
        }
        done += (size_t)n;
    }
    fz_input_size = size;
}

/* ---- a valid config ---------------------------------------------------------- */

static void fz_check_cost(const char *name, double v)
{
    FZ_CHECK(isfinite(v) && v >= 0 && v <= 1e9, "model.%s = %g", name, v);
}

static int fz_alg_in_table(cs_coll c, const cs_alg *alg)
{
    int n = 0;
    const cs_alg *const *table = cs_alg_table(c, &n);
    for (int i = 0; i < n; i++)
        if (table[i] == alg)
            return 1;
    return 0;
}

static void fz_check_params(cs_coll c, const cs_coll_config *cc)
{
    const cs_params *p = &cc->params;
    int sum = 0;

    FZ_CHECK(p->b >= -1, "%s: b = %lld", cs_coll_name(c), p->b);
    FZ_CHECK(p->k >= -1 && p->k <= 62, "%s: k = %d", cs_coll_name(c), p->k);
    FZ_CHECK(p->rmax >= -1 && p->rmax <= 7, "%s: rmax = %d", cs_coll_name(c), p->rmax);
    FZ_CHECK(p->nparts >= 0 && p->nparts <= CS_MAX_PARTS, "%s: nparts = %d", cs_coll_name(c), p->nparts);
    FZ_CHECK(p->radix == -1 || p->radix >= 2, "%s: radix = %d", cs_coll_name(c), p->radix);
    FZ_CHECK(p->levels == -1 || (p->levels >= 1 && p->radix == -1), "%s: levels = %d", cs_coll_name(c), p->levels);
    if (p->factors) {
        /* Factors of p (4x4x6): each at least 1, their product a communicator size. */
        long long product = 1;
        for (int i = 0; i < p->nparts; i++) {
            FZ_CHECK(p->parts[i] >= 1, "%s: factor %d", cs_coll_name(c), p->parts[i]);
            product *= p->parts[i];
            FZ_CHECK(product <= INT_MAX, "%s: factors multiply beyond INT_MAX", cs_coll_name(c));
        }
    } else {
        /* A partition of d = log2 p. */
        for (int i = 0; i < p->nparts; i++) {
            FZ_CHECK(p->parts[i] >= 1 && p->parts[i] <= CS_HULL_MAX_D, "%s: part %d", cs_coll_name(c), p->parts[i]);
            sum += p->parts[i];
        }
        FZ_CHECK(sum <= CS_HULL_MAX_D, "%s: parts sum to %d", cs_coll_name(c), sum);
    }

    /* What the log would print for the choice reads back as the same choice. */
    if (cc->choice == CS_CHOICE_FORCED && cc->alg->format) {
        char args[256], spec[300];
        const char *why = NULL;
        cs_params again;
        int len = cc->alg->format(p, args, sizeof args);
        FZ_CHECK(len >= 0 && (size_t)len < sizeof args, "%s: format length %d", cc->alg->name, len);
        if (len == 0)
            return;
        snprintf(spec, sizeof spec, "%s:%s", cc->alg->name, args);
        FZ_CHECK(cs_alg_lookup(c, spec, &again, &why) == cc->alg, "'%s' does not parse back: %s", spec,
                 why ? why : "?");
        FZ_CHECK(again.b == p->b && again.k == p->k && again.rmax == p->rmax && again.nparts == p->nparts &&
                     again.factors == p->factors && again.radix == p->radix && again.levels == p->levels &&
                     memcmp(again.parts, p->parts, (size_t)p->nparts * sizeof p->parts[0]) == 0,
                 "'%s' parses back to other parameters", spec);
    }
}

static void fz_check_ranges(cs_coll c, const cs_coll_config *cc)
{
    const size_t probes[] = {0, 1, 4096, SIZE_MAX - 1, SIZE_MAX};

    FZ_CHECK(cc->nnative >= 0 && cc->nnative <= CS_MAX_RANGES, "%s: nnative = %d", cs_coll_name(c), cc->nnative);
    for (int i = 0; i < cc->nnative; i++) {
        const cs_range *r = &cc->native[i];
        FZ_CHECK(r->lo <= r->hi, "%s.native[%d]: lo %zu > hi %zu", cs_coll_name(c), i, r->lo, r->hi);
        if (i > 0) /* merged: a gap of at least one size between ranges */
            FZ_CHECK(cc->native[i - 1].hi != SIZE_MAX && r->lo > cc->native[i - 1].hi + 1,
                     "%s.native[%d]: [%zu, %zu] after [%zu, %zu]", cs_coll_name(c), i, r->lo, r->hi,
                     cc->native[i - 1].lo, cc->native[i - 1].hi);
        FZ_CHECK(cs_config_native_range(cc, r->lo) && cs_config_native_range(cc, r->hi),
                 "%s.native[%d]: bounds not found", cs_coll_name(c), i);
        if (r->lo > 0)
            FZ_CHECK(!cs_config_native_range(cc, r->lo - 1), "%s.native[%d]: lo - 1 found", cs_coll_name(c), i);
        if (r->hi < SIZE_MAX)
            FZ_CHECK(!cs_config_native_range(cc, r->hi + 1), "%s.native[%d]: hi + 1 found", cs_coll_name(c), i);
    }
    for (size_t j = 0; j < NELEMS(probes); j++) {
        int in = 0;
        for (int i = 0; i < cc->nnative; i++)
            in |= cc->native[i].lo <= probes[j] && probes[j] <= cc->native[i].hi;
        FZ_CHECK(cs_config_native_range(cc, probes[j]) == in, "%s: lookup of %zu", cs_coll_name(c), probes[j]);
    }
}

/* The hulls the file gives, and the one the model gives, as MPI_Init builds them. */
static void fz_check_hulls(const cs_config *cfg, const cs_coll_config *cc)
{
    cs_hull hull;

    FZ_CHECK(cc->nhulls >= 0 && cc->nhulls <= CS_MAX_HULLS, "nhulls = %d", cc->nhulls);
    for (int h = 0; h < cc->nhulls; h++) {
        const cs_hull_given *g = &cc->hull[h];
        FZ_CHECK(g->d >= 1 && g->d <= CS_HULL_MAX_D, "hull d = %d", g->d);
        for (int e = 0; e < h; e++)
            FZ_CHECK(cc->hull[e].d != g->d, "hull d = %d twice", g->d);
        FZ_CHECK(g->nfaces >= 1 && g->nfaces <= CS_HULL_MAX_FACES, "hull %d: %d faces", g->d, g->nfaces);
        FZ_CHECK(g->face[0].first == 0, "hull %d: first face at %zu", g->d, g->face[0].first);
        for (int i = 0; i < g->nfaces; i++) {
            const cs_hull_given_face *f = &g->face[i];
            int sum = 0;
            FZ_CHECK(i == 0 || f->first > g->face[i - 1].first, "hull %d: face %d not increasing", g->d, i);
            FZ_CHECK(f->nparts >= 1 && f->nparts <= g->d, "hull %d: face %d has %d parts", g->d, i, f->nparts);
            for (int k = 0; k < f->nparts; k++) {
                FZ_CHECK(f->parts[k] >= 1, "hull %d: face %d: a part 0", g->d, i);
                sum += f->parts[k];
            }
            FZ_CHECK(sum == g->d, "hull %d: face %d sums to %d", g->d, i, sum);
        }
        cs_hull_from_given(&cfg->model, g->d, g, &hull);
        FZ_CHECK(cs_hull_lookup(&hull, SIZE_MAX) == &hull.face[hull.nfaces - 1], "hull %d: lookup", g->d);
    }
}

static void fz_check_model_hull(const cs_model *model, int d)
{
    cs_hull hull;

    cs_hull_compute(model, d, &hull);
    FZ_CHECK(hull.nfaces >= 1 && hull.nfaces <= CS_HULL_MAX_FACES, "model hull %d: %d faces", d, hull.nfaces);
    FZ_CHECK(hull.face[0].first == 0, "model hull %d: first face at %zu", d, hull.face[0].first);
    for (int i = 0; i < hull.nfaces; i++)
        FZ_CHECK(hull.face[i].nparts >= 1 && hull.face[i].nparts <= d, "model hull %d: face %d", d, i);
}

/* A forced choice as the call path prices it (select.c): the parameters given,
 * tuned per call, under the configured model. No UB; a finite cost (the log
 * writes it as a JSON number). */
static void fz_check_forced(const cs_config *cfg, cs_coll c)
{
    static const int ps[] = {2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64};
    static const size_t sizes[] = {1, 1000, (size_t)1 << 20, (size_t)1 << 30};
    const cs_coll_config *cc = &cfg->coll[c];

    if (cc->choice != CS_CHOICE_FORCED || !cc->alg->cost)
        return;
    for (size_t i = 0; i < NELEMS(ps); i++)
        for (size_t j = 0; j < NELEMS(sizes); j++) {
            cs_problem prob = {.coll = c,
                               .p = ps[i],
                               .root = c == CS_COLL_REDUCE ? ps[i] - 1 : 0,
                               .count = sizes[j],
                               .elem = 1,
                               .bytes = sizes[j],
                               .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_EXACT};
            cs_params params = cc->params;
            double t;
            if (cs_alg_restriction_given(cc->alg, &prob, &cc->params))
                continue;
            if (cc->alg->tune)
                cc->alg->tune(&cfg->model, &prob, &params);
            t = cc->alg->cost(&cfg->model, &prob, &params);
            FZ_CHECK(isfinite(t) && t >= 0, "%s at p = %d, %zu bytes: cost %g", cc->alg->name, ps[i], sizes[j], t);
        }
}

static void fz_check_log_file(const char *s)
{
    size_t len = strnlen(s, PATH_MAX);

    FZ_CHECK(len > 0 && len < PATH_MAX, "log file of length %zu", len);
    for (size_t i = 0; i < len; i++)
        if (s[i] == '%') {
            FZ_CHECK(s[i + 1] == 'r' || s[i + 1] == 'p' || s[i + 1] == '%', "log file '%s': bad escape", s);
            i++;
        }
}

/* <coll>.rules: ranges that hold somewhere, choices of the collective's own rows. */
static void fz_check_rules(cs_coll c, const cs_coll_config *cc)
{
    FZ_CHECK(cc->nrules >= 0 && cc->nrules <= CS_MAX_RULES, "%s: %d rules", cs_coll_name(c), cc->nrules);
    for (int i = 0; i < cc->nrules; i++) {
        const cs_rule *r = &cc->rules[i];
        FZ_CHECK(r->p_lo >= 1 && r->p_lo <= r->p_hi, "%s.rules[%d]: p [%d, %d]", cs_coll_name(c), i, r->p_lo, r->p_hi);
        FZ_CHECK(r->bytes.lo <= r->bytes.hi, "%s.rules[%d]: bytes", cs_coll_name(c), i);
        FZ_CHECK(r->line >= 1, "%s.rules[%d]: line %d", cs_coll_name(c), i, r->line);
        if (r->choice == CS_CHOICE_FORCED)
            FZ_CHECK(r->alg && fz_alg_in_table(c, r->alg), "%s.rules[%d]: algorithm not in its table", cs_coll_name(c),
                     i);
        else
            FZ_CHECK((r->choice == CS_CHOICE_AUTO || r->choice == CS_CHOICE_NATIVE) && !r->alg,
                     "%s.rules[%d]: choice %d", cs_coll_name(c), i, (int)r->choice);
    }
}

static void fz_check_config(const cs_config *cfg, size_t input_size)
{
    fz_check_cost("alpha", cfg->model.alpha);
    fz_check_cost("beta", cfg->model.beta);
    fz_check_cost("rho", cfg->model.rho);
    fz_check_cost("gamma", cfg->model.gamma);
    fz_check_cost("overhead", cfg->model.overhead);
    fz_check_cost("alpha_node", cfg->model.alpha_node);
    fz_check_cost("beta_node", cfg->model.beta_node);
    FZ_CHECK(cfg->model.margin >= 0 && cfg->model.margin < 1, "model.margin = %g", cfg->model.margin);
    FZ_CHECK(cfg->model.library >= 0 && cfg->model.library < CS_LIBRARY_COUNT, "model.library = %d",
             cfg->model.library);

    for (int c = 0; c < CS_COLL_LAST; c++) {
        const cs_coll_config *cc = &cfg->coll[c];
        FZ_CHECK(cc->choice == CS_CHOICE_AUTO || cc->choice == CS_CHOICE_NATIVE || cc->choice == CS_CHOICE_FORCED,
                 "%s: choice %d", cs_coll_name((cs_coll)c), (int)cc->choice);
        if (cc->choice == CS_CHOICE_FORCED)
            FZ_CHECK(cc->alg && cc->alg->coll == (cs_coll)c && fz_alg_in_table((cs_coll)c, cc->alg),
                     "%s: forced algorithm not in its table", cs_coll_name((cs_coll)c));
        else
            FZ_CHECK(cc->alg == NULL, "%s: an algorithm without a forced choice", cs_coll_name((cs_coll)c));
        FZ_CHECK(cc->from_env == 0 || cc->from_env == 1, "from_env %d", cc->from_env);
        fz_check_params((cs_coll)c, cc);
        fz_check_forced(cfg, (cs_coll)c);
        fz_check_ranges((cs_coll)c, cc);
        if (c == CS_COLL_ALLTOALL)
            fz_check_hulls(cfg, cc);
        else
            FZ_CHECK(cc->nhulls == 0, "%s: hulls", cs_coll_name((cs_coll)c));
        fz_check_rules((cs_coll)c, cc);
    }

    FZ_CHECK(cfg->log_level == CS_LOG_OFF || cfg->log_level == CS_LOG_SUMMARY || cfg->log_level == CS_LOG_CALLS,
             "log level %d", (int)cfg->log_level);
    fz_check_log_file(cfg->log_file);
    FZ_CHECK(cfg->log_all_ranks == 0 || cfg->log_all_ranks == 1, "log_all_ranks %d", cfg->log_all_ranks);
    FZ_CHECK(cfg->nlog_ranks >= 0 && cfg->nlog_ranks <= CS_MAX_LOG_RANKS, "nlog_ranks %d", cfg->nlog_ranks);
    if (cfg->log_all_ranks)
        FZ_CHECK(cfg->nlog_ranks == 0, "all ranks and a list of %d", cfg->nlog_ranks);
    for (int i = 0; i < cfg->nlog_ranks; i++)
        FZ_CHECK(cfg->log_ranks[i] >= 0 && (i == 0 || cfg->log_ranks[i] > cfg->log_ranks[i - 1]),
                 "log ranks not sorted and unique at %d", i);
    FZ_CHECK(cfg->strict == 0 || cfg->strict == 1, "strict %d", cfg->strict);
    FZ_CHECK(cfg->reproducible == 0 || cfg->reproducible == 1, "reproducible %d", cfg->reproducible);
    const cs_coll_config *w = &cfg->coll[CS_COLL_WINDOW]; /* window.method: auto, or a row of the window's */
    FZ_CHECK((w->choice == CS_CHOICE_AUTO && !w->alg) ||
                 (w->choice == CS_CHOICE_FORCED && w->alg && fz_alg_in_table(CS_COLL_WINDOW, w->alg)),
             "window method: choice %d", (int)w->choice);
    FZ_CHECK(strnlen(cfg->source, PATH_MAX) < PATH_MAX, "source not terminated");

    /* One d from the input, and the largest: the model's hull must compute. */
    fz_check_model_hull(&cfg->model, 1 + (int)(input_size % CS_HULL_MAX_D));
    fz_check_model_hull(&cfg->model, CS_HULL_MAX_D);
}

/* window.method: the same choice and row. */
static int fz_window_same(const cs_coll_config *a, const cs_coll_config *b)
{
    return a->choice == b->choice && a->alg == b->alg;
}

/* The fields that mean something; unused slots of the arrays may differ. */
static int fz_config_same(const cs_config *a, const cs_config *b)
{
    if (memcmp(&a->model, &b->model, sizeof a->model) != 0)
        return 0;
    for (int c = 0; c < CS_COLL_LAST; c++) {
        const cs_coll_config *x = &a->coll[c], *y = &b->coll[c];
        if (x->choice != y->choice || x->alg != y->alg || x->from_env != y->from_env || x->nnative != y->nnative ||
            x->nhulls != y->nhulls || memcmp(&x->params, &y->params, sizeof x->params) != 0 ||
            memcmp(x->native, y->native, (size_t)x->nnative * sizeof x->native[0]) != 0 || x->nrules != y->nrules)
            return 0;
        for (int i = 0; i < x->nrules; i++) {
            const cs_rule *r = &x->rules[i], *q = &y->rules[i];
            if (r->p_lo != q->p_lo || r->p_hi != q->p_hi || r->bytes.lo != q->bytes.lo || r->bytes.hi != q->bytes.hi ||
                r->choice != q->choice || r->alg != q->alg || r->line != q->line ||
                memcmp(&r->params, &q->params, sizeof r->params) != 0)
                return 0;
        }
        for (int h = 0; h < x->nhulls; h++) {
            if (x->hull[h].d != y->hull[h].d || x->hull[h].nfaces != y->hull[h].nfaces)
                return 0;
            for (int i = 0; i < x->hull[h].nfaces; i++) {
                const cs_hull_given_face *f = &x->hull[h].face[i], *g = &y->hull[h].face[i];
                if (f->first != g->first || f->nparts != g->nparts || memcmp(f->parts, g->parts, f->nparts) != 0)
                    return 0;
            }
        }
    }
    return a->log_level == b->log_level && strcmp(a->log_file, b->log_file) == 0 &&
           a->log_all_ranks == b->log_all_ranks && a->nlog_ranks == b->nlog_ranks &&
           memcmp(a->log_ranks, b->log_ranks, (size_t)a->nlog_ranks * sizeof a->log_ranks[0]) == 0 &&
           a->strict == b->strict && a->reproducible == b->reproducible &&
           fz_window_same(&a->coll[CS_COLL_WINDOW], &b->coll[CS_COLL_WINDOW]) && strcmp(a->source, b->source) == 0;
}

/* ---- an error ------------------------------------------------------------------ */

static void fz_check_format(const cs_config_error *err)
{
    static const size_t sizes[] = {1, 2, 8, 40, PATH_MAX + 300};
    char expect[PATH_MAX + 300], guard = 'G';

    if (err->line == 0)
        snprintf(expect, sizeof expect, "%s: %s", err->file, err->message);
    else
        snprintf(expect, sizeof expect, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);

    cs_config_error_format(err, &guard, 0);
    FZ_CHECK(guard == 'G', "cs_config_error_format wrote into a 0-byte buffer");
    for (size_t i = 0; i < NELEMS(sizes); i++) {
        /* Exactly the size given, on the heap, so that ASan sees a byte too far. */
        char *buf = malloc(sizes[i]);
        FZ_CHECK(buf != NULL, "out of memory");
        memset(buf, 'x', sizes[i]);
        cs_config_error_format(err, buf, sizes[i]);
        FZ_CHECK(memchr(buf, '\0', sizes[i]) != NULL, "formatted error not terminated in %zu bytes", sizes[i]);
        FZ_CHECK(strncmp(buf, expect, sizes[i] - 1) == 0, "formatted error '%s', expected '%s'", buf, expect);
        free(buf);
    }
}

static void fz_check_error(const cs_config_error *err, const char *file, int env)
{
    FZ_CHECK(strnlen(err->file, sizeof err->file) < sizeof err->file, "error file not terminated");
    FZ_CHECK(strnlen(err->message, sizeof err->message) < sizeof err->message, "error message not terminated");
    FZ_CHECK(err->message[0] != '\0', "empty error message");
    FZ_CHECK(strcmp(err->file, file) == 0, "error in '%s', expected '%s'", err->file, file);
    if (env) {
        int named = 0;
        FZ_CHECK(err->line == 0 && err->column == 0, "environment error at %d:%d", err->line, err->column);
        for (size_t i = 0; i < NELEMS(fz_vars); i++) {
            size_t n = strlen(fz_vars[i]);
            named |= strncmp(err->message, fz_vars[i], n) == 0 && strncmp(err->message + n, ": ", 2) == 0;
        }
        FZ_CHECK(named, "environment error names no variable: %s", err->message);
    } else {
        /* libyaml counts a line break per byte at most ("\r\n" is one). */
        FZ_CHECK(err->line >= 1 && (size_t)err->line <= fz_input_size + 1, "error at line %d of a %zu-byte file",
                 err->line, fz_input_size);
        FZ_CHECK(err->column >= 1 && (size_t)err->column <= fz_input_size + 1, "error at column %d of a %zu-byte file",
                 err->column, fz_input_size);
    }
    fz_check_format(err);
}

/* ---- the modes ----------------------------------------------------------------- */

static void fz_yaml(const uint8_t *data, size_t size)
{
    cs_config cfg, before, again;
    cs_config_error err;
    int rc;

    fz_write_file(data, size);
    cs_config_defaults(&cfg);
    before = cfg;
    memset(&err, 0, sizeof err);
    rc = cs_config_load(fz_path, &cfg, &err);
    if (rc == 0) {
        fz_check_config(&cfg, size);
        FZ_CHECK(strcmp(cfg.source, fz_path) == 0, "source '%s'", cfg.source);
        /* Every key sets its value whatever was there: a second load is a no-op. */
        again = cfg;
        FZ_CHECK(cs_config_load(fz_path, &again, &err) == 0, "the second load failed: %s", err.message);
        FZ_CHECK(fz_config_same(&cfg, &again), "the second load changed the config");
        return;
    }
    FZ_CHECK(rc == -1, "cs_config_load returned %d", rc);
    fz_check_error(&err, fz_path, 0);
    /* All or nothing, except strict (the salvaged top-level key). */
    FZ_CHECK(cfg.strict == 0 || cfg.strict == 1, "strict %d after a failed load", cfg.strict);
    before.strict = cfg.strict;
    FZ_CHECK(memcmp(&cfg, &before, sizeof cfg) == 0, "a failed load changed the config");
}

/* The variable a NAME stands for: its own, without the prefix, or by its bytes. */
static int fz_var_of(const char *name, size_t len, size_t line)
{
    unsigned h = 0;

    for (int v = 0; v < FZ_NVARS; v++) {
        const char *full = fz_vars[v], *suffix = full + strlen("COLLSHIM_");
        if ((strlen(full) == len && memcmp(name, full, len) == 0) ||
            (strlen(suffix) == len && memcmp(name, suffix, len) == 0))
            return v;
    }
    if (len == 0)
        return (int)(line % FZ_NVARS);
    for (size_t i = 0; i < len; i++)
        h = h * 31 + (unsigned char)name[i];
    return (int)(h % FZ_NVARS);
}

/* Set the variables of NAME=VALUE lines in data[0..size); stops at a "%yaml"
 * line, whose offset past the line goes to *rest (SIZE_MAX if none). Each entry
 * of set[] is 1 if its variable got a nonempty value. */
static void fz_set_env(const uint8_t *data, size_t size, size_t *rest, int set[FZ_NVARS])
{
    size_t at = 0, line = 0;

    memset(set, 0, FZ_NVARS * sizeof set[0]);
    *rest = SIZE_MAX;
    while (at < size) {
        const uint8_t *nl = memchr(data + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (data + at)) : size - at, next = at + len + (nl != NULL);
        const char *text = (const char *)data + at;
        const char *eq = memchr(text, '=', len);
        char *value;
        int v;

        if (len == 5 && memcmp(text, "%yaml", 5) == 0) {
            *rest = next;
            return;
        }
        v = eq ? fz_var_of(text, (size_t)(eq - text), line) : (int)(line % FZ_NVARS);
        value = eq ? strndup(eq + 1, len - (size_t)(eq + 1 - text)) : strndup(text, len);
        FZ_CHECK(value != NULL, "out of memory");
        setenv(fz_vars[v], value, 1); /* a NUL in the value ends it, as in a real environment */
        set[v] = value[0] != '\0';
        free(value);
        at = next;
        line++;
    }
}

static void fz_check_env_applied(const cs_config *cfg, const cs_config *before, const int set[FZ_NVARS])
{
    for (int v = FZ_ALLTOALL; v <= FZ_REDUCE; v++) {
        const cs_coll_config *cc = &cfg->coll[fz_var_coll[v]], *was = &before->coll[fz_var_coll[v]];
        if (set[v])
            FZ_CHECK(cc->from_env == 1, "%s set but from_env 0", fz_vars[v]);
        else
            FZ_CHECK(cc->from_env == was->from_env && cc->choice == was->choice && cc->alg == was->alg,
                     "%s unset but the choice changed", fz_vars[v]);
    }
    if (set[FZ_LOG])
        FZ_CHECK(strcmp(cfg->log_file, getenv("COLLSHIM_LOG")) == 0, "COLLSHIM_LOG '%s', log file '%s'",
                 getenv("COLLSHIM_LOG"), cfg->log_file);
    else
        FZ_CHECK(strcmp(cfg->log_file, before->log_file) == 0, "log file changed without COLLSHIM_LOG");
    if (set[FZ_LOG] && !set[FZ_LOG_LEVEL] && before->log_level == CS_LOG_OFF)
        FZ_CHECK(cfg->log_level == CS_LOG_CALLS, "COLLSHIM_LOG did not turn logging on");
    if (!set[FZ_LOG] && !set[FZ_LOG_LEVEL])
        FZ_CHECK(cfg->log_level == before->log_level, "log level changed without a variable");
    if (!set[FZ_STRICT])
        FZ_CHECK(cfg->strict == before->strict, "strict changed without COLLSHIM_STRICT");
    if (!set[FZ_WINDOW])
        FZ_CHECK(fz_window_same(&cfg->coll[CS_COLL_WINDOW], &before->coll[CS_COLL_WINDOW]),
                 "window method changed without a variable");
    cs_model model = cfg->model; /* COLLSHIM_LIBRARY sets model.library, and nothing else of the model */
    if (set[FZ_LIBRARY]) {
        FZ_CHECK(model.library == cs_library_parse(getenv("COLLSHIM_LIBRARY")), "COLLSHIM_LIBRARY '%s', library %d",
                 getenv("COLLSHIM_LIBRARY"), model.library);
        model.library = before->model.library;
    }
    FZ_CHECK(memcmp(&model, &before->model, sizeof model) == 0, "the environment changed the model");
}

/* Where each variable's value goes in the file: "strict: "%s"\n" and the like. */
static const char *const fz_var_yaml[FZ_NVARS] = {
    [FZ_STRICT] = "strict: \"%s\"\n",
    [FZ_LOG] = "log:\n  file: \"%s\"\n",
    [FZ_LOG_LEVEL] = "log:\n  level: \"%s\"\n",
    [FZ_ALLTOALL] = "alltoall:\n  algorithm: \"%s\"\n",
    [FZ_ALLREDUCE] = "allreduce:\n  algorithm: \"%s\"\n",
    [FZ_REDUCE] = "reduce:\n  algorithm: \"%s\"\n",
    [FZ_WINDOW] = "window:\n  method: \"%s\"\n",
    [FZ_LIBRARY] = "model:\n  library: \"%s\"\n",
};

/* The reason after "NAME: " or "key.path: ", the one the shared parser gave. */
static const char *fz_reason(const char *message)
{
    const char *at = strstr(message, ": ");
    return at ? at + 2 : message;
}

/*
 * The file and the environment share their value parsers (config_internal.h):
 * a value the variable takes, the file's key takes, to the same effect, and a
 * value one rejects the other rejects for the same reason. Printable ASCII
 * values only (the file must be UTF-8 and is quoted here).
 */
static void fz_env_vs_file(int v)
{
    const char *value = getenv(fz_vars[v]);
    char quoted[2 * PATH_MAX + 8], text[2 * PATH_MAX + 64];
    cs_config from_env, from_file;
    cs_config_error env_err, file_err;
    size_t n = 0;
    int env_rc, file_rc, len;

    if (!value || !*value)
        return;
    for (const char *c = value; *c; c++) {
        if (*c < 0x20 || *c > 0x7e || n + 2 >= sizeof quoted)
            return;
        if (*c == '"' || *c == '\\')
            quoted[n++] = '\\';
        quoted[n++] = *c;
    }
    quoted[n] = '\0';
    len = snprintf(text, sizeof text, fz_var_yaml[v], quoted);
    FZ_CHECK(len > 0 && (size_t)len < sizeof text, "file text too long");

    cs_config_defaults(&from_env);
    env_rc = cs_config_env_apply_one(&from_env, fz_vars[v], &env_err);
    fz_write_file((const uint8_t *)text, (size_t)len);
    cs_config_defaults(&from_file);
    file_rc = cs_config_load(fz_path, &from_file, &file_err);

    if (env_rc != 0 || file_rc != 0) {
        const char *a, *b;
        size_t common;
        FZ_CHECK(env_rc != 0 && file_rc != 0, "%s='%s' %s, the file's key %s (%s)", fz_vars[v], value,
                 env_rc ? "fails" : "works", file_rc ? "fails" : "works", env_rc ? env_err.message : file_err.message);
        /* The same words, but for truncation (the two messages frame them differently). */
        a = fz_reason(env_err.message);
        b = fz_reason(file_err.message);
        common = strlen(a) < strlen(b) ? strlen(a) : strlen(b);
        FZ_CHECK(strncmp(a, b, common) == 0, "%s: the environment says '%s', the file '%s'", fz_vars[v], a, b);
        return;
    }
    switch (v) {
    case FZ_STRICT: FZ_CHECK(from_env.strict == from_file.strict, "%s: strict differs", value); break;
    case FZ_LOG: FZ_CHECK(strcmp(from_env.log_file, from_file.log_file) == 0, "%s: log file differs", value); break;
    case FZ_LOG_LEVEL: FZ_CHECK(from_env.log_level == from_file.log_level, "%s: log level differs", value); break;
    case FZ_WINDOW:
        FZ_CHECK(fz_window_same(&from_env.coll[CS_COLL_WINDOW], &from_file.coll[CS_COLL_WINDOW]),
                 "%s: window method differs", value);
        break;
    case FZ_LIBRARY: FZ_CHECK(from_env.model.library == from_file.model.library, "%s: library differs", value); break;
    default: {
        const cs_coll_config *x = &from_env.coll[fz_var_coll[v]], *y = &from_file.coll[fz_var_coll[v]];
        FZ_CHECK(x->choice == y->choice && x->alg == y->alg && memcmp(&x->params, &y->params, sizeof x->params) == 0,
                 "%s: the choice differs", value);
    }
    }
}

static void fz_env(const uint8_t *data, size_t size)
{
    cs_config cfg, before;
    cs_config_error err;
    size_t rest;
    int set[FZ_NVARS];

    fz_set_env(data, size, &rest, set);
    cs_config_defaults(&cfg);
    before = cfg;
    memset(&err, 0, sizeof err);
    if (cs_config_apply_env(&cfg, &err) == 0) {
        fz_check_config(&cfg, size);
        fz_check_env_applied(&cfg, &before, set);
    } else {
        fz_check_error(&err, "environment", 1);
        FZ_CHECK(memcmp(&cfg, &before, sizeof cfg) == 0, "a failed cs_config_apply_env changed the config");
    }
    for (int v = 0; v < FZ_NVARS; v++)
        fz_env_vs_file(v);
}

static void fz_init(const uint8_t *data, size_t size)
{
    cs_config cfg, defaults;
    cs_config_error err;
    size_t rest;
    int set[FZ_NVARS], rc;

    fz_set_env(data, size, &rest, set);
    if (rest != SIZE_MAX) {
        fz_write_file(data + rest, size - rest);
        setenv("COLLSHIM_CONFIG", fz_path, 1);
    }
    cs_config_defaults(&defaults);
    memset(&err, 0, sizeof err);
    rc = cs_config_init(&cfg, &err);
    fz_check_config(&cfg, size);
    if (rc == 0)
        return;
    FZ_CHECK(rc == -1, "cs_config_init returned %d", rc);
    if (strcmp(err.file, "environment") == 0)
        fz_check_error(&err, "environment", 1);
    else
        fz_check_error(&err, fz_path, 0);
    /* The fallback: the program runs on the MPI library's collectives. */
    for (int c = 0; c < CS_COLL_LAST; c++)
        FZ_CHECK(cfg.coll[c].choice == CS_CHOICE_NATIVE && cfg.coll[c].nnative == 0 && cfg.coll[c].nhulls == 0,
                 "fallback: %s not plainly native", cs_coll_name((cs_coll)c));
    FZ_CHECK(memcmp(&cfg.model, &defaults.model, sizeof cfg.model) == 0, "fallback: not the default model");
    FZ_CHECK(cfg.source[0] == '\0', "fallback: source '%s'", cfg.source);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 5 && memcmp(data, "%env\n", 5) == 0)
        fz_env(data + 5, size - 5);
    else if (size >= 6 && memcmp(data, "%init\n", 6) == 0)
        fz_init(data + 6, size - 6);
    else
        fz_yaml(data, size);
    fz_unset_all();
    return 0;
}
