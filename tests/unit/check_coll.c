/*
 * Every algorithm of every table, in the simulator: for every p its
 * restrictions allow up to 128, many counts, in place or not, commutative or
 * not, several roots and parameters, the schedules must run without a
 * violation and give the right result; the closed-form cost must be the cost
 * of the schedule built; building twice gives the same schedule. Rows added to
 * src/coll/registry.c are tested without a change here.
 *
 * Also the lookup of "name[:args]" and the round trip of format() and parse.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/pricer.h"
#include "select/select.h"
#include "shard.h"
#include "sim.h"

enum { COLL_MAX_P = 128, COLL_MAX_VARIANTS = 16 };

/* A balanced machine, then a latency-dominated machine whose ranks pay o
 * per message posted (a fifth of alpha: every closed form must count its
 * posts), and a bandwidth-dominated one. */
static const cs_model coll_models[] = {
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10, .gamma = 1e-9},
    {.alpha = 1e-3, .beta = 1e-12, .rho = 1e-13, .gamma = 1e-12, .overhead = 2e-4},
    {.alpha = 1e-9, .beta = 1e-7, .rho = 3e-8, .gamma = 2e-7},
};
enum { NMODELS = sizeof(coll_models) / sizeof(coll_models[0]) };

/* Parameters as a configuration may force them; a row whose parse rejects one
 * is not run with it. */
static const char *const coll_specs[] = {
    "b=0", "b=64", "b=4096", "b=1152921504606846976", "k=0", "k=1", "k=2", "r=2", "r=3", "r=5", "l=1", "l=2", "l=3",
    "w=1", "w=3",  "w=32"};
enum { NSPECS = sizeof(coll_specs) / sizeof(coll_specs[0]) };

/* ------------------------------------------------------------- helpers */

/* The restrictions that depend on p alone, as select checks them. */
static bool coll_p_allowed(const cs_alg *alg, int p)
{
    const cs_problem prob = {.coll = alg->coll,
                             .p = p,
                             .count = 1,
                             .elem = 1,
                             .bytes = 1,
                             .flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE | CS_PROB_EXACT};
    return cs_alg_restriction(alg, &prob) == NULL;
}

/* A count that every split of every algorithm divides evenly: the
 * power-of-two part of p for the butterflies; for p = 2^n q, q odd, p
 * (rings split by their factor) times 2^floor(log2 q) (elimination halves
 * again). */
static size_t coll_nominal_unit(int p)
{
    const size_t pow2 = (size_t)p & (size_t) - (size_t)p, q = (size_t)p / pow2;
    size_t halvings = 1;
    while (2 * halvings <= q && q > 1)
        halvings *= 2;
    return q == 1 ? pow2 : (size_t)p * halvings;
}

/* The simulator records every combination: keep its work bounded. */
#define COLL_MAX_NOMINAL 2048

/* {1, 2, 3, 5, p-1, p, p+1, 2p+3, 64, 1000, the nominal unit}, without
 * repeats or a forbidden 0; above p = 16 (where one simulation of a large
 * count takes tens of milliseconds) {1, 2, p-1, p+1, 2p+3, the unit}. */
static int coll_counts(int p, unsigned requires, size_t *out)
{
    const size_t unit = coll_nominal_unit(p), small_p = p <= 16;
    const size_t all[] = {1,
                          2,
                          3,
                          5,
                          (size_t)p - 1,
                          (size_t)p,
                          (size_t)p + 1,
                          2 * (size_t)p + 3,
                          64,
                          1000,
                          unit <= COLL_MAX_NOMINAL ? unit : 1};
    const size_t large[] = {1, 2, (size_t)p - 1, (size_t)p + 1, 2 * (size_t)p + 3, unit <= COLL_MAX_NOMINAL ? unit : 1};
    const size_t *want = small_p ? all : large;
    const size_t nwant = small_p ? sizeof(all) / sizeof(all[0]) : sizeof(large) / sizeof(large[0]);
    int n = 0;
    for (size_t i = 0; i < nwant; i++) {
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = out[j] == want[i];
        if (!seen)
            out[n++] = want[i];
    }
    return n;
}

/* {0, p-1, p/2} without repeats; one "root" (0) for the other collectives. */
static int coll_roots(cs_coll coll, int p, int *out)
{
    if (coll != CS_COLL_REDUCE) {
        out[0] = 0;
        return 1;
    }
    const int want[3] = {0, p - 1, p / 2};
    int n = 0;
    for (int i = 0; i < 3; i++) {
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || out[j] == want[i];
        if (!seen)
            out[n++] = want[i];
    }
    return n;
}

/* The flag combinations a row is run with: in place or not; for reductions
 * commutative or not (only commutative if the row requires it). */
static int coll_flag_sets(const cs_alg *alg, unsigned *out)
{
    const unsigned base = CS_PROB_CONTIG | (alg->requires & CS_REQ_EXACT ? CS_PROB_EXACT : 0);
    int n = 0;
    for (int inplace = 0; inplace < 2; inplace++)
        for (int comm = 0; comm < 2; comm++) {
            if (alg->coll == CS_COLL_ALLTOALL && comm)
                continue;
            if (alg->coll != CS_COLL_ALLTOALL && !comm && (alg->requires & CS_REQ_COMMUTATIVE))
                continue;
            out[n++] = base | (inplace ? CS_PROB_INPLACE : 0u) | (comm ? CS_PROB_COMMUTATIVE : 0u);
        }
    return n;
}

static cs_problem coll_problem(cs_coll coll, int p, size_t count, unsigned flags, int root)
{
    const size_t elem = coll == CS_COLL_ALLTOALL ? 1 : 4;
    return (cs_problem){
        .coll = coll, .p = p, .root = root, .count = count, .elem = elem, .bytes = count * elem, .flags = flags};
}

static bool coll_params_equal(const cs_params *a, const cs_params *b, bool with_b)
{
    if ((with_b && a->b != b->b) || a->k != b->k || a->nparts != b->nparts || a->factors != b->factors ||
        a->radix != b->radix || a->levels != b->levels || a->window != b->window)
        return false;
    for (int i = 0; i < a->nparts && i < CS_MAX_PARTS; i++)
        if (a->parts[i] != b->parts[i])
            return false;
    return true;
}

static const char *coll_format(const cs_alg *alg, const cs_params *params, char *buf, size_t size)
{
    buf[0] = 0;
    if (alg->format)
        alg->format(params, buf, size);
    return buf;
}

static const char *coll_describe(const cs_alg *alg, const cs_problem *prob, const cs_params *params, char *buf,
                                 size_t size)
{
    char args[128];
    snprintf(buf, size, "%s %s p=%d count=%zu%s%s root=%d params b=%lld k=%d \"%s\"", cs_coll_name(alg->coll),
             alg->name, prob->p, prob->count, prob->flags & CS_PROB_INPLACE ? " inplace" : "",
             prob->flags & CS_PROB_COMMUTATIVE ? " commutative" : "", prob->root, params->b, params->k,
             coll_format(alg, params, args, sizeof args));
    return buf;
}

/* The parameters a row is run with for one problem: tuned by each model, and
 * each forced spec the row accepts, tuned. The threshold b only chooses k (the
 * header: k is derived), so variants that differ only in b build the same
 * schedules and run once. */
static int coll_variants(const cs_alg *alg, const cs_problem *prob, cs_params *out)
{
    int n = 0;
    for (int v = 0; v < NMODELS + NSPECS; v++) {
        cs_params params;
        cs_params_init(&params);
        if (v >= NMODELS && (!alg->parse || alg->parse(coll_specs[v - NMODELS], &params)))
            continue;
        if (alg->tune)
            alg->tune(&coll_models[v < NMODELS ? v : 0], prob, &params);
        bool seen = false;
        for (int j = 0; j < n && !seen; j++)
            seen = coll_params_equal(&out[j], &params, false);
        if (!seen && n < COLL_MAX_VARIANTS)
            out[n++] = params;
    }
    return n;
}

static bool coll_sched_equal(const cs_sched *a, const cs_sched *b)
{
    if (a->nsteps != b->nsteps || a->nrounds != b->nrounds || a->tmp_bytes[0] != b->tmp_bytes[0] ||
        a->tmp_bytes[1] != b->tmp_bytes[1])
        return false;
    for (int r = 0; r < a->nrounds; r++)
        if (a->round_start[r] != b->round_start[r])
            return false;
    for (size_t i = 0; i < a->nsteps; i++) {
        const cs_step *x = &a->steps[i], *y = &b->steps[i];
        if (x->kind != y->kind || x->buf != y->buf || x->off != y->off || x->len != y->len)
            return false;
        if ((x->kind == CS_STEP_SEND || x->kind == CS_STEP_RECV) ? x->peer != y->peer
                                                                 : x->dst != y->dst || x->dst_off != y->dst_off)
            return false;
    }
    return true;
}

/* --------------------------------------------------- one algorithm, one p */

typedef struct coll_job {
    const cs_alg *alg;
    int p;
} coll_job;

static coll_job *coll_jobs;
static int coll_njobs;

/* Building again, into a fresh schedule, gives the same schedule. */
static void coll_check_determinism(const cs_alg *alg, const cs_problem *prob, const cs_params *params,
                                   const cs_sched *scheds, const char *what)
{
    for (int r = 0; r < prob->p; r++) {
        cs_sched again;
        cs_sched_init(&again);
        alg->build(prob, params, r, &again);
        ck_assert_msg(coll_sched_equal(&scheds[r], &again), "%s: rank %d builds two different schedules", what, r);
        cs_sched_free(&again);
    }
}

/*
 * The closed form prices nominal sizes (m / 2^z, m / f); it is exact when
 * the count divides evenly by every split (coll_nominal_unit), and otherwise
 * off by at most an element per term of every round.
 */
static void coll_check_cost(const cs_alg *alg, const cs_problem *prob, const cs_params *params, const cs_sched *scheds,
                            const char *what)
{
    ck_assert_msg(alg->cost, "%s: a row that builds has a closed-form cost", what);
    const bool nominal = prob->count % coll_nominal_unit(prob->p) == 0;
    const int rounds = sim_rounds_max(scheds, prob->p);
    for (int i = 0; i < NMODELS; i++) {
        const cs_model *mo = &coll_models[i];
        const double closed = alg->cost(mo, prob, params);
        /* a row that promises its critical path is checked against the pricer,
         * the others against the slowest rank's sum over its rounds */
        const double simulated = alg->critical_path ? cs_price_critical_path(mo, scheds, prob->p, 0, NULL)
                                                    : sim_cost_max(scheds, prob->p, mo);
        const double tol =
            nominal ? 1e-9 * fmax(fabs(closed), fabs(simulated))
                    : rounds * (mo->beta + mo->gamma + mo->rho) * (double)prob->elem * (alg->critical_path ? 4 : 2) +
                          1e-15; /* both sides of a wait */
        ck_assert_msg(fabs(closed - simulated) <= tol, "%s: model %d: closed form %.17g, schedule %.17g (%s)", what, i,
                      closed, simulated, nominal ? "nominal sizes" : "uneven sizes");
    }
}

static void coll_check_one(const cs_alg *alg, const cs_problem *prob, const cs_params *params, cs_sched *scheds)
{
    char what[256], rep_str[2048];
    sim_report rep;
    coll_describe(alg, prob, params, what, sizeof what);
    sim_run_alg(alg, prob, params, scheds, &rep);
    ck_assert_msg(rep.total == 0, "%s: %s", what, sim_report_str(&rep, rep_str, sizeof rep_str));
    coll_check_determinism(alg, prob, params, scheds, what);
    coll_check_cost(alg, prob, params, scheds, what);
}

START_TEST(test_alg)
{
    if (unit_shard_skip(_i))
        return;
    const cs_alg *alg = coll_jobs[_i].alg;
    const int p = coll_jobs[_i].p;
    size_t counts[16]; /* coll_counts gives at most 11 */
    unsigned flags[4];
    int roots[3];
    cs_params variants[COLL_MAX_VARIANTS];
    const int ncounts = coll_counts(p, alg->requires, counts);
    const int nflags = coll_flag_sets(alg, flags);
    const int nroots = coll_roots(alg->coll, p, roots);
    cs_sched *scheds = sim_scheds_new(p);

    for (int c = 0; c < ncounts; c++)
        for (int f = 0; f < nflags; f++)
            for (int r = 0; r < nroots; r++) {
                const cs_problem prob = coll_problem(alg->coll, p, counts[c], flags[f], roots[r]);
                const int nv = coll_variants(alg, &prob, variants);
                for (int v = 0; v < nv; v++)
                    coll_check_one(alg, &prob, &variants[v], scheds);
            }
    sim_scheds_free(scheds, p);
}
END_TEST

/* CS_COLL_ONLY=<collective>:<name> (or just <name>) restricts the runs to
 * matching rows, for working on one algorithm. */
static bool coll_row_wanted(const cs_alg *alg)
{
    const char *only = getenv("CS_COLL_ONLY");
    char both[64];
    if (!only || !*only)
        return true;
    snprintf(both, sizeof(both), "%s:%s", cs_coll_name(alg->coll), alg->name);
    return !strcmp(only, alg->name) || !strcmp(only, both);
}

static void coll_jobs_make(void)
{
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        int n;
        const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
        for (int i = 0; i < n; i++)
            for (int p = 1; table[i]->build && coll_row_wanted(table[i]) && p <= COLL_MAX_P; p++) {
                if (!coll_p_allowed(table[i], p))
                    continue;
                coll_jobs = realloc(coll_jobs, (size_t)(coll_njobs + 1) * sizeof(*coll_jobs));
                if (!coll_jobs)
                    abort();
                coll_jobs[coll_njobs++] = (coll_job){table[i], p};
            }
    }
}

/* --------------------------------------------------------------- lookup */

typedef struct lookup_case {
    cs_coll coll;
    const char *spec;
    bool found;
    long long b; /* found: the threshold parsed */
} lookup_case;

static const lookup_case lookup_cases[] = {
    {CS_COLL_ALLTOALL, "native", true, -1},
    {CS_COLL_ALLREDUCE, "native", true, -1},
    {CS_COLL_REDUCE, "native", true, -1},
    {CS_COLL_ALLTOALL, "direct", true, -1},
    {CS_COLL_ALLREDUCE, "butterfly", true, -1},
    {CS_COLL_REDUCE, "butterfly", true, -1},
    {CS_COLL_ALLREDUCE, "butterfly:b=4096", true, 4096},
    {CS_COLL_REDUCE, "butterfly:b=4096", true, 4096},
    {CS_COLL_ALLREDUCE, "nosuch", false, 0},
    {CS_COLL_ALLREDUCE, "butterfly:b=x", false, 0},
    {CS_COLL_ALLREDUCE, "butterfly:b=4096x", false, 0},
    {CS_COLL_ALLTOALL, "direct:3", false, 0},
    {CS_COLL_ALLTOALL, "bruck:r=4", true, -1},
    {CS_COLL_ALLTOALL, "bruck:r=1", false, 0},
    {CS_COLL_ALLTOALL, "bruck:k=1", false, 0},
    {CS_COLL_ALLTOALL, "bruck:l=2", false, 0}, /* rounds: knomial's only */
    {CS_COLL_REDUCE, "knomial:l=2", true, -1},
    {CS_COLL_REDUCE, "knomial:l=0", false, 0},
    {CS_COLL_REDUCE, "knomial:r=4,l=2", false, 0}, /* a radix or rounds, not both */
    {CS_COLL_ALLTOALL, "multiphase:4x4x6", true, -1},
    {CS_COLL_ALLTOALL, "multiphase:4x", false, 0},
    {CS_COLL_ALLTOALL, "butterfly", false, 0}, /* not an alltoall */
    {CS_COLL_ALLREDUCE, "", false, 0},
};
enum { NLOOKUP = sizeof(lookup_cases) / sizeof(lookup_cases[0]) };

START_TEST(test_lookup)
{
    const lookup_case *c = &lookup_cases[_i];
    const char *why = NULL;
    cs_params params;
    const cs_alg *alg = cs_alg_lookup(c->coll, c->spec, &params, &why);
    const char *colon = strchr(c->spec, ':');
    const size_t len = colon ? (size_t)(colon - c->spec) : strlen(c->spec);
    if (!c->found) {
        ck_assert_msg(!alg, "%s \"%s\" accepted", cs_coll_name(c->coll), c->spec);
        ck_assert_msg(why && *why, "%s \"%s\" rejected without a reason", cs_coll_name(c->coll), c->spec);
        return;
    }
    ck_assert_msg(alg, "%s \"%s\" rejected: %s", cs_coll_name(c->coll), c->spec, why ? why : "(no reason)");
    ck_assert_msg(alg->coll == c->coll && strlen(alg->name) == len && !strncmp(alg->name, c->spec, len),
                  "\"%s\" found %s %s", c->spec, cs_coll_name(alg->coll), alg->name);
    ck_assert_int_eq(params.b, c->b);
    if (!strcmp(c->spec, "native"))
        ck_assert_ptr_eq(alg, cs_alg_native(c->coll));
}
END_TEST

/* "name:format(params)" is looked up to the same row and the same params. */
static void coll_check_round_trip(const cs_alg *alg, const cs_params *params, const char *from, bool tuned)
{
    char args[256], spec[300];
    coll_format(alg, params, args, sizeof args);
    snprintf(spec, sizeof spec, args[0] ? "%s:%s" : "%s", alg->name, args);
    const char *why = NULL;
    cs_params back;
    const cs_alg *found = cs_alg_lookup(alg->coll, spec, &back, &why);
    ck_assert_msg(found == alg, "%s %s: params from %s%s (b=%lld k=%d) format as \"%s\", which is %s",
                  cs_coll_name(alg->coll), alg->name, from, tuned ? ", tuned," : "", params->b, params->k, spec,
                  found ? "another row"
                  : why ? why
                        : "rejected");
    ck_assert_msg(coll_params_equal(params, &back, true),
                  "%s %s: params from %s%s (b=%lld k=%d) format as \"%s\", which parses to b=%lld k=%d",
                  cs_coll_name(alg->coll), alg->name, from, tuned ? ", tuned," : "", params->b, params->k, spec, back.b,
                  back.k);
}

/* For every row, the params of one source: _i = 0 is cs_params_init, _i > 0
 * the spec coll_specs[_i - 1] if the row accepts it; each as given, then as
 * the models tune it for a few problems. */
START_TEST(test_format_round_trip)
{
    static const int ps[] = {1, 2, 8, 64};
    static const size_t counts[] = {1, 1000, 1 << 20};
    const char *from = _i ? coll_specs[_i - 1] : "cs_params_init";
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        int n;
        const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
        for (int i = 0; i < n; i++) {
            const cs_alg *alg = table[i];
            cs_params given;
            cs_params_init(&given);
            if (_i && (!alg->parse || alg->parse(from, &given)))
                continue;
            coll_check_round_trip(alg, &given, from, false);
            for (size_t a = 0; alg->tune && a < sizeof ps / sizeof ps[0]; a++)
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                    for (int m = 0; m < NMODELS && coll_p_allowed(alg, ps[a]); m++) {
                        cs_params tuned = given;
                        const cs_problem prob = coll_problem(alg->coll, ps[a], counts[c], CS_PROB_CONTIG, 0);
                        alg->tune(&coll_models[m], &prob, &tuned);
                        coll_check_round_trip(alg, &tuned, from, true);
                    }
        }
    }
}
END_TEST

/* knomial:l=L is the tree of at most L rounds with the least radix: r^L >= p > (r - 1)^L
 * (r = 2 where even 2 has L rounds to spare), and the log and a rule name it r=R. */
START_TEST(test_knomial_levels)
{
    for (int levels = 1; levels <= 4; levels++)
        for (int p = 2; p <= 4096; p++) {
            char spec[32], args[64];
            const char *why = NULL;
            cs_params params;
            snprintf(spec, sizeof spec, "knomial:l=%d", levels);
            const cs_alg *alg = cs_alg_lookup(CS_COLL_REDUCE, spec, &params, &why);
            ck_assert_msg(alg, "%s: %s", spec, why ? why : "rejected");
            const cs_problem prob = coll_problem(CS_COLL_REDUCE, p, 1, CS_PROB_CONTIG, 0);
            alg->tune(&coll_models[0], &prob, &params);
            const int r = params.radix;
            ck_assert_msg(pow(r, levels) >= p && (r == 2 || pow(r - 1, levels) < p), "p = %d, l=%d: r = %d", p, levels,
                          r);
            alg->format(&params, args, sizeof args);
            snprintf(spec, sizeof spec, "r=%d", r);
            ck_assert_str_eq(args, spec);
        }
}
END_TEST

/* Every table starts with its native row, which has no schedule. */
/* The distance helpers (common.h): a pair's links, a level's farthest pair
 * and a shift's, under XOR and the difference; the latency they add. */
START_TEST(test_distance_hops)
{
    ck_assert_int_eq(cs_hops(CS_DISTANCE_XOR, 63, 64), 7);
    ck_assert_int_eq(cs_hops(CS_DISTANCE_DIFFERENCE, 63, 64), 1);
    ck_assert_int_eq(cs_hops(CS_DISTANCE_DIFFERENCE, 70, 6), 64);
    ck_assert_int_eq(cs_hops(CS_DISTANCE_NONE, 0, 100), 1);
    /* a butterfly over 64: one bit a level under XOR, its stride under the difference */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 64, 16, 2), 1);
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_DIFFERENCE, 64, 16, 2), 16);
    /* p = 192 = 64 * 3: a ring of 3 at stride 64 (0, 64, 128: 1 and 2 bits), a butterfly at stride 3 * 8 */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 192, 64, 3), 2);
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 192, 24, 2), 5); /* 119 = 1110111 and 143 = 10001111 */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_DIFFERENCE, 192, 64, 3), 128);
    /* every pair (the linear exchanges): the bits of p - 1, or p - 1 */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 192, 1, 192), 8);
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_DIFFERENCE, 192, 1, 192), 191);
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 5, 2, 3), 2); /* 0, 2, 4 */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 64, 1, 1), 1);
    /* Bruck's shift by 1 at p = 6: 3 -> 4 crosses 3 links, 5 -> 0 two; by 2 under the difference: 4 -> 0 */
    ck_assert_int_eq(cs_shift_hops(CS_DISTANCE_XOR, 6, 1), 3);
    ck_assert_int_eq(cs_shift_hops(CS_DISTANCE_DIFFERENCE, 6, 2), 4);
    ck_assert_int_eq(cs_shift_hops(CS_DISTANCE_XOR, 6, 6), 1);
    const cs_model mo = {.alpha = 1e-6, .distance = CS_DISTANCE_XOR, .alpha_hop = 5e-7};
    ck_assert(cs_model_hop_latency(&mo, 0, 7) == 1e-6 && cs_model_hop_latency(&mo, 0, 4) == 0.0);
    ck_assert(cs_model_level_latency(&mo, 192, 1, 192) == 7 * 5e-7);
    const cs_problem prob = {.coll = CS_COLL_ALLREDUCE, .p = 192};
    ck_assert(cs_model_at_level(&mo, &prob, 24, 2).alpha == 1e-6 + 4 * 5e-7);
    /* a k-nomial round at p = 40, r = 8, d = 8: parent 0, children 8 .. 32 (24: 2 bits), where a level's
     * every pair has 24 and 32 (3 bits) */
    ck_assert_int_eq(cs_tree_hops(CS_DISTANCE_XOR, 40, 8, 8, 0), 2);
    ck_assert_int_eq(cs_tree_hops(CS_DISTANCE_XOR, 40, 8, 8, 2), 1); /* 16 */
    ck_assert_int_eq(cs_level_hops(CS_DISTANCE_XOR, 40, 8, 8), 3);
    ck_assert_int_eq(cs_tree_hops(CS_DISTANCE_XOR, 40, 1, 8, 0), 3);
    ck_assert_int_eq(cs_tree_hops(CS_DISTANCE_DIFFERENCE, 40, 8, 4, 0), 24);
    ck_assert_int_eq(cs_tree_hops(CS_DISTANCE_DIFFERENCE, 40, 8, 4, 1), 8);
    /* folded: p = 48, p' = 32, new rank i < 16 is 2i + 1, else i + 16: every level's farthest pair one link
     * more than on 32 ranks (mask 1: 29 -> 31 is 2 bits); under the difference at p = 24, 14 ranks more in all */
    const cs_model xor1 = {.distance = CS_DISTANCE_XOR, .alpha_hop = 1.0},
                   diff1 = {.distance = CS_DISTANCE_DIFFERENCE, .alpha_hop = 1.0};
    ck_assert(cs_model_folded_latency(&xor1, 48, 1) == 5.0 && cs_model_folded_latency(&xor1, 48, 2) == 10.0);
    ck_assert(cs_model_folded_latency(&diff1, 24, 1) == 14.0 && cs_model_folded_latency(&xor1, 64, 1) == 0.0);
    const cs_model none = {.alpha = 1e-6, .alpha_hop = 5e-7};
    ck_assert(cs_model_folded_latency(&none, 48, 1) == 0.0);
    ck_assert(cs_model_at_level(&none, &prob, 24, 2).alpha == 1e-6 && cs_model_hop_latency(&none, 0, 7) == 0.0);
}
END_TEST

START_TEST(test_tables)
{
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        int n;
        const cs_alg *const *table = cs_alg_table((cs_coll)coll, &n);
        ck_assert_int_ge(n, 1);
        ck_assert_ptr_eq(table[0], cs_alg_native((cs_coll)coll));
        ck_assert_ptr_null(table[0]->build);
        for (int i = 0; i < n; i++) {
            ck_assert_int_eq(table[i]->coll, coll);
            ck_assert_msg(table[i]->name && table[i]->description, "row %d of %s", i, cs_coll_name((cs_coll)coll));
            for (int j = 0; j < i; j++)
                ck_assert_msg(strcmp(table[i]->name, table[j]->name), "%s twice", table[i]->name);
        }
    }
}
END_TEST

Suite *make_coll_suite(void)
{
    Suite *suite = suite_create("coll");
    TCase *tc = tcase_create("lookup");
    tcase_add_test(tc, test_tables);
    tcase_add_loop_test(tc, test_lookup, 0, NLOOKUP);
    tcase_add_test(tc, test_knomial_levels);
    tcase_add_test(tc, test_distance_hops);
    tcase_add_loop_test(tc, test_format_round_trip, 0, NSPECS + 1);
    suite_add_tcase(suite, tc);

    coll_jobs_make();
    tc = tcase_create("simulated");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_alg, 0, coll_njobs);
    suite_add_tcase(suite, tc);
    return suite;
}
