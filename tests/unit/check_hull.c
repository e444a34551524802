/*
 * Bokhari's hull of optimality (src/model/hull.c) and the multiphase rows
 * (src/coll/alltoall/alltoall_multiphase.c, alltoall_standard.c):
 * - for every d <= 20 and several models (Fig. 1's and random ones) the hull
 *   found in Θ(√d) is the lower envelope of the lines of every partition of d,
 *   checked twice: against the envelope of all partitions, and by evaluating
 *   every partition at the vertices, inside every face and beyond the last;
 * - the face count lies in [2⌊√d⌋ - 1, 3⌊√d⌋], every face is an
 *   equipartition (Theorem 1), the lookup is the argmin;
 * - Fig. 1: d = 4 and d = 6 as the paper draws them;
 * - the schedules of every ordered partition of d <= 6 (and some of 7) in the
 *   simulator, closed form equal to the schedule's cost;
 * - parsing, the per-call partition check, the configured table, the choice
 *   that auto makes.
 */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/alltoall/multiphase.h"
#include "model/hull.h"
#include "select/select.h"
#include "sim.h"

Suite *make_hull_suite(void);

extern const cs_alg cs_alltoall_multiphase, cs_alltoall_standard;

enum { HULL_MAX_D = 20, HULL_MAX_PARTITIONS = 627, NRANDOM = 6 };

/* Fig. 1: λ = 100 µs, δ = 10 µs, τ = 2 µs/byte, ρ = 1 µs/byte. */
static const cs_model fig1 = {.alpha = 110e-6, .beta = 2e-6, .rho = 1e-6};

/* A reproducible log-uniform model: alpha 1e-7..1e-3, beta 1e-11..1e-6, rho 1e-12..1e-6 (rho 0 once). */
static cs_model hull_model(int i)
{
    if (i == 0)
        return fig1;
    uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)i;
    double u[3];
    for (int k = 0; k < 3; k++) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdull;
        x ^= x >> 29;
        u[k] = (double)(x >> 11) / 9007199254740992.0;
    }
    return (cs_model){.alpha = pow(10, -7 + 4 * u[0]),
                      .beta = pow(10, -11 + 5 * u[1]),
                      .rho = i == NRANDOM ? 0 : pow(10, -12 + 6 * u[2])};
}

/* ---------------------------------------------------------------- partitions */

typedef struct part {
    int n;
    unsigned char a[HULL_MAX_D];
} part;

/* Every partition of d into parts <= max, non-increasing, appended at out[*n]. */
static void parts_all(int d, int max, part *prefix, part *out, int *n)
{
    if (d == 0) {
        out[(*n)++] = *prefix;
        return;
    }
    for (int a = max < d ? max : d; a >= 1; a--) {
        prefix->a[prefix->n++] = (unsigned char)a;
        parts_all(d - a, a, prefix, out, n);
        prefix->n--;
    }
}

static const cs_model *sort_model;
static int sort_d;

static double line_slope(const cs_model *mo, const cs_part_line *l)
{
    return mo->beta * (double)l->wire + mo->rho * (double)l->copied;
}

static int by_slope_desc(const void *x, const void *y)
{
    const cs_part_line *a = x, *b = y;
    const double sa = line_slope(sort_model, a), sb = line_slope(sort_model, b);
    return (sa < sb) - (sa > sb);
}

static bool line_eq(const cs_part_line *a, const cs_part_line *b)
{
    return a->msgs == b->msgs && a->wire == b->wire && a->copied == b->copied;
}

static bool near(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* The cheapest partition of d at m, and whether only lines equal to `face` reach it. */
static double brute_min(const cs_model *mo, const cs_part_line *lines, int n, double m)
{
    double best = INFINITY;
    for (int i = 0; i < n; i++)
        best = fmin(best, cs_part_line_cost(mo, &lines[i], m));
    return best;
}

/* ------------------------------------------------------- hull vs brute force */

static void check_against_envelope(const cs_model *mo, const cs_hull *h, cs_part_line *lines, int n, const char *what)
{
    int faces[HULL_MAX_PARTITIONS];
    sort_model = mo;
    sort_d = h->d;
    qsort(lines, (size_t)n, sizeof *lines, by_slope_desc);
    const int nf = cs_envelope(mo, lines, n, faces);
    ck_assert_msg(nf == h->nfaces, "%s: brute-force envelope has %d faces, the hull %d", what, nf, h->nfaces);
    for (int i = 0; i < nf; i++) {
        const cs_hull_face *f = &h->face[i];
        const cs_part_line l = cs_part_line_of(h->d, f->parts, f->nparts);
        ck_assert_msg(line_eq(&l, &lines[faces[i]]), "%s: face %d is not the brute-force envelope's", what, i);
        if (i > 0) {
            const cs_part_line *a = &lines[faces[i - 1]], *b = &lines[faces[i]];
            const double x = mo->alpha * (double)(b->msgs - a->msgs) /
                             (mo->beta * (double)(a->wire - b->wire) + mo->rho * (double)(a->copied - b->copied));
            ck_assert_msg(near(x, f->from, 1e-9), "%s: vertex %d at %.17g, brute force %.17g", what, i, f->from, x);
        }
    }
}

/* Evaluate: the hull is the minimum at every vertex, at m = 0, inside every
 * face (where only its own line reaches the minimum) and beyond the last. */
static void check_by_evaluation(const cs_model *mo, const cs_hull *h, const cs_part_line *lines, int n,
                                const char *what)
{
    const double last = h->nfaces > 1 ? h->face[h->nfaces - 1].from : 1.0;
    for (int i = 0; i < h->nfaces; i++) {
        const cs_hull_face *f = &h->face[i];
        const cs_part_line l = cs_part_line_of(h->d, f->parts, f->nparts);
        const double lo = f->from, hi = i + 1 < h->nfaces ? h->face[i + 1].from : 2 * last + 1;
        const double at[3] = {lo, hi, 0.5 * (lo + hi)};
        for (int k = 0; k < 3; k++)
            ck_assert_msg(near(cs_part_line_cost(mo, &l, at[k]), brute_min(mo, lines, n, at[k]), 1e-12),
                          "%s: face %d is not the minimum at m = %g", what, i, at[k]);
        for (int j = 0; j < n; j++)
            if (!line_eq(&lines[j], &l))
                ck_assert_msg(cs_part_line_cost(mo, &lines[j], at[2]) > cs_part_line_cost(mo, &l, at[2]),
                              "%s: another partition reaches face %d inside it", what, i);
        ck_assert_msg(f->nparts == 0 || f->parts[f->nparts - 1] - f->parts[0] <= 1,
                      "%s: face %d is not an equipartition (Theorem 1)", what, i);
    }
    /* Beyond the last vertex: no line is flatter than the last face. */
    const cs_hull_face *f = &h->face[h->nfaces - 1];
    const cs_part_line l = cs_part_line_of(h->d, f->parts, f->nparts);
    for (int j = 0; j < n; j++)
        ck_assert_msg(line_slope(mo, &lines[j]) >= line_slope(mo, &l) * (1 - 1e-12), "%s: a flatter line", what);
}

/* _i: d * (NRANDOM + 1) + model */
START_TEST(test_hull_brute_force)
{
    const int d = 1 + _i / (NRANDOM + 1);
    const cs_model mo = hull_model(_i % (NRANDOM + 1));
    static part all[HULL_MAX_PARTITIONS];
    static cs_part_line lines[HULL_MAX_PARTITIONS];
    part prefix = {0};
    int n = 0;
    char what[160];
    cs_hull h;

    snprintf(what, sizeof what, "d=%d alpha=%g beta=%g rho=%g", d, mo.alpha, mo.beta, mo.rho);
    parts_all(d, d, &prefix, all, &n);
    for (int i = 0; i < n; i++)
        lines[i] = cs_part_line_of(d, all[i].a, all[i].n);
    cs_hull_compute(&mo, d, &h);

    const int s = (int)floor(sqrt((double)d));
    ck_assert_msg(h.nfaces >= 2 * s - 1 && h.nfaces <= 3 * s, "%s: %d faces, not in [%d, %d]", what, h.nfaces,
                  2 * s - 1, 3 * s);
    check_by_evaluation(&mo, &h, lines, n, what);
    check_against_envelope(&mo, &h, lines, n, what);
}
END_TEST

/* The lookup is the argmin over the faces at whole block sizes. */
START_TEST(test_hull_lookup)
{
    const cs_model mo = hull_model(_i);
    for (int d = 0; d <= CS_HULL_MAX_D; d++) {
        cs_hull h;
        cs_hull_compute(&mo, d, &h);
        ck_assert_int_ge(h.nfaces, 1);
        ck_assert_int_eq(h.face[0].first, 0);
        for (int i = 0; i < h.nfaces; i++) {
            const size_t probes[3] = {h.face[i].first, h.face[i].first + 1, h.face[i].first ? h.face[i].first - 1 : 0};
            for (int k = 0; k < 3; k++) {
                const cs_hull_face *got = cs_hull_lookup(&h, probes[k]);
                double best = INFINITY;
                for (int j = 0; j < h.nfaces; j++)
                    best = fmin(best, h.face[j].intercept + h.face[j].slope * (double)probes[k]);
                ck_assert_msg(near(got->intercept + got->slope * (double)probes[k], best, 1e-12),
                              "d=%d m=%zu: lookup is not the cheapest face", d, probes[k]);
            }
        }
    }
}
END_TEST

static void hull_names(const cs_hull *h, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < h->nfaces && n < size; i++) {
        n += (size_t)snprintf(buf + n, size - n, i ? " | " : "");
        n += (size_t)cs_parts_format(h->face[i].parts, h->face[i].nparts, buf + n, size - n);
    }
}

/* Fig. 1 (a): {1111}, {22}, {4}; {112} passes through the first vertex and
 * {13} never touches. (b): {111111}, {222}, {33}, {6}; the partitions of
 * cardinality 2 meet at m = (λ+δ)/τ = 55 bytes (Property 7). */
START_TEST(test_fig1)
{
    char names[256];
    cs_hull h4, h6;
    cs_hull_compute(&fig1, 4, &h4);
    hull_names(&h4, names, sizeof names);
    ck_assert_str_eq(names, "1,1,1,1 | 2,2 | 4");
    cs_hull_compute(&fig1, 6, &h6);
    hull_names(&h6, names, sizeof names);
    ck_assert_str_eq(names, "1,1,1,1,1,1 | 2,2,2 | 3,3 | 6");

    const unsigned char p112[] = {1, 1, 2}, p13[] = {1, 3};
    const cs_part_line l112 = cs_part_line_of(4, p112, 3), l13 = cs_part_line_of(4, p13, 2);
    const double v = h4.face[1].from;
    ck_assert(near(cs_part_line_cost(&fig1, &l112, v), h4.face[1].intercept + h4.face[1].slope * v, 1e-12));
    for (double m = 0; m < 100; m += 0.25)
        ck_assert(cs_part_line_cost(&fig1, &l13, m) > cs_hull_lookup(&h4, (size_t)m)->intercept - 1);
    ck_assert(cs_part_line_cost(&fig1, &l13, v) > h4.face[1].intercept + h4.face[1].slope * v);

    const unsigned char c2[3][2] = {{1, 5}, {2, 4}, {3, 3}};
    const double x = (fig1.alpha) / fig1.beta;
    const cs_part_line l0 = cs_part_line_of(6, c2[0], 2);
    for (int i = 1; i < 3; i++) {
        const cs_part_line l = cs_part_line_of(6, c2[i], 2);
        ck_assert(near(cs_part_line_cost(&fig1, &l, x), cs_part_line_cost(&fig1, &l0, x), 1e-12));
    }
}
END_TEST

/* ------------------------------------------------------------ the schedules */

/* The k-th ordered partition (composition) of d: bit i of k set = a cut after unit i. */
static int composition(int d, unsigned k, int *parts)
{
    int n = 0, run = 1;
    for (int i = 0; i < d - 1; i++, run++)
        if (k >> i & 1) {
            parts[n++] = run;
            run = 0;
        }
    parts[n++] = run;
    return n;
}

static const cs_model sched_models[] = {
    {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-10},
    {.alpha = 1e-9, .beta = 1e-7, .rho = 3e-8},
};

static void check_schedule(const cs_problem *prob, const cs_params *params, cs_sched *scheds)
{
    char what[200], fmt[64], rep_str[2048];
    sim_report rep;
    cs_alltoall_multiphase.format(params, fmt, sizeof fmt);
    snprintf(what, sizeof what, "multiphase:%s p=%d m=%zu%s", fmt, prob->p, prob->bytes,
             prob->flags & CS_PROB_INPLACE ? " in place" : "");
    sim_run_alg(&cs_alltoall_multiphase, prob, params, scheds, &rep);
    ck_assert_msg(rep.total == 0, "%s: %s", what, sim_report_str(&rep, rep_str, sizeof rep_str));
    for (size_t i = 0; i < sizeof sched_models / sizeof sched_models[0]; i++) {
        const double closed = cs_alltoall_multiphase.cost(&sched_models[i], prob, params);
        const double sim = sim_cost_max(scheds, prob->p, &sched_models[i]);
        ck_assert_msg(near(closed, sim, 1e-12), "%s: closed form %.17g, schedule %.17g", what, closed, sim);
    }
    int rounds = 0; /* one round per partner of every phase */
    for (int i = 0; i < params->nparts; i++)
        rounds += (1 << params->parts[i]) - 1;
    for (int r = 0; r < prob->p; r++) {
        cs_sched_stats st;
        cs_sched_stats_get(&scheds[r], &sched_models[0], &st);
        ck_assert_msg(st.rounds == rounds, "%s: rank %d: %d rounds with messages, not %d", what, r, st.rounds, rounds);
    }
}

/* _i = d: every ordered partition of d (d <= 6; for d = 7 the equipartitions
 * and a few others), block sizes 1, 3, 8, in place and not (0 bytes never
 * reach a schedule: select hands an empty message to the MPI library). */
START_TEST(test_schedules)
{
    const int d = _i, p = 1 << d;
    const size_t sizes[] = {1, 3, 8};
    static const unsigned some7[] = {0, 63, 21, 9, 36, 1, 32, 18};
    const unsigned ncomp = d == 0 ? 1 : d <= 6 ? 1u << (d - 1) : sizeof some7 / sizeof some7[0];
    cs_sched *scheds = sim_scheds_new(p);
    for (unsigned c = 0; c < ncomp; c++) {
        cs_params params;
        cs_params_init(&params);
        params.nparts = d == 0 ? 0 : composition(d, d <= 6 ? c : some7[c], params.parts);
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int inplace = 0; inplace < 2; inplace++) {
                const cs_problem prob = {.coll = CS_COLL_ALLTOALL,
                                         .p = p,
                                         .count = sizes[k],
                                         .elem = 1,
                                         .bytes = sizes[k],
                                         .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u)};
                check_schedule(&prob, &params, scheds);
            }
    }
    sim_scheds_free(scheds, p);
}
END_TEST

/* Standard is the partition {1,...,1}, as the paper's t_standard says. */
START_TEST(test_standard_cost)
{
    for (int d = 1; d <= 10; d++) {
        const cs_problem prob = {
            .coll = CS_COLL_ALLTOALL, .p = 1 << d, .count = 100, .elem = 1, .bytes = 100, .flags = CS_PROB_CONTIG};
        const double m = 100, P = 1 << d;
        const double paper =
            d == 1 ? fig1.alpha + (fig1.beta + fig1.rho) * m : d * ((fig1.beta / 2 + fig1.rho) * P * m + fig1.alpha);
        ck_assert(near(cs_alltoall_standard.cost(&fig1, &prob, NULL), paper, 1e-12));
    }
}
END_TEST

/* ---------------------------------------------------------- parse and select */

/* Partitions of d (2,2,1) and factorisations of p (4x4x6); back: what
 * format() writes (NULL: args again). */
static const struct {
    const char *args;
    int nparts; /* -1: rejected */
    int parts[4];
    bool factors;
    const char *back;
} parse_cases[] = {
    {"2,2,1", 3, {2, 2, 1}, false, NULL},
    {"6", 1, {6}, false, NULL},
    {"1,1,1,1", 4, {1, 1, 1, 1}, false, NULL},
    {"30", 1, {30}, false, NULL},
    {"", -1, {0}, false, NULL},
    {"0", -1, {0}, false, NULL},
    {"2,,1", -1, {0}, false, NULL},
    {"2,", -1, {0}, false, NULL},
    {",2", -1, {0}, false, NULL},
    {"a", -1, {0}, false, NULL},
    {"2, 2", -1, {0}, false, NULL},
    {"31", -1, {0}, false, NULL},
    {"16,15", -1, {0}, false, NULL},
    {"-1", -1, {0}, false, NULL},
    {"2x", -1, {0}, false, NULL},
    {"k=2", -1, {0}, false, NULL},
    {"4x4x6", 3, {4, 4, 6}, true, NULL},
    {"6x4x4", 3, {6, 4, 4}, true, NULL},
    {"2x3", 2, {2, 3}, true, NULL},
    {"1x97", 1, {97}, true, NULL},
    {"97x1", 1, {97}, true, "1x97"},
    {"1x2x1x3", 2, {2, 3}, true, "2x3"},
    {"2147483647x1", 1, {2147483647}, true, "1x2147483647"},
    {"1x1", -1, {0}, false, NULL},
    {"x4", -1, {0}, false, NULL},
    {"4xx4", -1, {0}, false, NULL},
    {"4x0", -1, {0}, false, NULL},
    {"4x-2", -1, {0}, false, NULL},
    {"4x 4", -1, {0}, false, NULL},
    {"4x4,2", -1, {0}, false, NULL},
    {"65536x65536", -1, {0}, false, NULL},
    {"2147483648x1", -1, {0}, false, NULL},
    {"x", -1, {0}, false, NULL},
};

START_TEST(test_parse)
{
    cs_params params;
    cs_params_init(&params);
    const int rc = cs_alltoall_multiphase.parse(parse_cases[_i].args, &params);
    if (parse_cases[_i].nparts < 0) {
        ck_assert_msg(rc != 0, "\"%s\" accepted", parse_cases[_i].args);
        return;
    }
    ck_assert_msg(rc == 0, "\"%s\" rejected", parse_cases[_i].args);
    ck_assert_int_eq(params.factors, parse_cases[_i].factors);
    ck_assert_int_eq(params.nparts, parse_cases[_i].nparts);
    for (int i = 0; i < params.nparts; i++)
        ck_assert_int_eq(params.parts[i], parse_cases[_i].parts[i]);
    char back[64];
    cs_alltoall_multiphase.format(&params, back, sizeof back);
    ck_assert_str_eq(back, parse_cases[_i].back ? parse_cases[_i].back : parse_cases[_i].args);
}
END_TEST

static void select_alltoall(cs_config *cfg, int p, size_t bytes, cs_decision *d)
{
    cs_select_cache cache;
    memset(&cache, 0, sizeof cache);
    const cs_problem prob = {
        .coll = CS_COLL_ALLTOALL, .p = p, .count = bytes, .elem = 1, .bytes = bytes, .flags = CS_PROB_CONTIG};
    cs_select(cfg, &cache, &prob, d);
}

/* A forced partition that does not fit p is passed over, with the reason;
 * one that fits runs. */
START_TEST(test_forced_partition)
{
    cs_config cfg;
    cs_decision d;
    const char *why;
    cs_config_defaults(&cfg);
    cfg.coll[CS_COLL_ALLTOALL].choice = CS_CHOICE_FORCED;
    cfg.coll[CS_COLL_ALLTOALL].alg =
        cs_alg_lookup(CS_COLL_ALLTOALL, "multiphase:2,2", &cfg.coll[CS_COLL_ALLTOALL].params, &why);
    ck_assert_ptr_eq(cfg.coll[CS_COLL_ALLTOALL].alg, &cs_alltoall_multiphase);

    select_alltoall(&cfg, 32, 100, &d);
    ck_assert_ptr_eq(d.passed, &cs_alltoall_multiphase);
    ck_assert_str_eq(d.declined, "needs parts that sum to log2 p");
    ck_assert(strstr(d.reason, "breakpoint")); /* the model's choice runs instead (ours or the library's) */
    ck_assert(!d.alg->build || cs_params_parts_fit(&d.params, 32));

    select_alltoall(&cfg, 16, 100, &d);
    ck_assert_ptr_eq(d.alg, &cs_alltoall_multiphase);
    ck_assert_ptr_null(d.passed);
    ck_assert_int_eq(d.params.nparts, 2);
    ck_assert_int_eq(d.params.face_src, 0);
    ck_assert(strstr(d.reason, "forced"));
}
END_TEST

/* multiphase without parameters at p = 64 under Fig. 1's model (the papers':
 * no overhead, one message at a time): the hull's partition for every size
 * below the {33}/direct crossing, with the face that decided it. (auto also
 * weighs linear, whose concurrent messages share one alpha, and the library.) */
START_TEST(test_auto_uses_hull)
{
    cs_config cfg;
    cs_decision d;
    cs_hull h;
    cs_config_defaults(&cfg);
    cfg.model = fig1;
    cfg.coll[CS_COLL_ALLTOALL].choice = CS_CHOICE_FORCED;
    cfg.coll[CS_COLL_ALLTOALL].alg = &cs_alltoall_multiphase;
    cs_params_init(&cfg.coll[CS_COLL_ALLTOALL].params);
    cs_hull_compute(&fig1, 6, &h);
    const size_t sizes[] = {0 + 1, 2, h.face[1].first, h.face[1].first + 3, h.face[2].first};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        select_alltoall(&cfg, 64, sizes[i], &d);
        const cs_hull_face *f = cs_hull_lookup(&h, sizes[i]);
        ck_assert_msg(d.alg == &cs_alltoall_multiphase, "m=%zu: %s", sizes[i], d.alg->name);
        ck_assert_int_eq(d.params.nparts, f->nparts);
        ck_assert_int_eq(d.params.face_src, 1);
        ck_assert(d.params.face_lo == f->first && d.params.face_lo <= sizes[i] && sizes[i] <= d.params.face_hi);
        ck_assert(strstr(d.reason, "forced"));
    }
    select_alltoall(&cfg, 64, 1 << 20, &d); /* far right: the one phase of 6 bits, Direct */
    ck_assert_int_eq(d.params.nparts, 1);
    select_alltoall(&cfg, 48, 1, &d); /* not a power of two: the model's factorisation */
    ck_assert_str_eq(d.alg->name, "multiphase");
    ck_assert(d.params.factors && d.params.face_src == 3);
}
END_TEST

/* ------------------------------------------------------- the process's table */

START_TEST(test_table)
{
    cs_hull_given given = {.d = 3, .nfaces = 2};
    cs_hull scratch;
    static cs_hull_table table;
    given.face[0] = (cs_hull_given_face){.first = 0, .nparts = 1, .parts = {3}};
    given.face[1] = (cs_hull_given_face){.first = 4096, .nparts = 3, .parts = {1, 1, 1}};
    cs_hull_table_init(&table, &fig1, &given, 1);
    cs_model model = fig1;
    model.hulls = &table;
    ck_assert_ptr_eq(cs_hull_get(&fig1, 3, &scratch), &scratch); /* a model without the table */

    const cs_hull *h = cs_hull_get(&model, 3, &scratch);
    ck_assert_ptr_ne(h, &scratch);
    ck_assert(h->from_config && h->nfaces == 2 && h->face[1].first == 4096);
    ck_assert_int_eq(cs_hull_lookup(h, 4095)->nparts, 1);
    ck_assert_int_eq(cs_hull_lookup(h, 4096)->nparts, 3);
    h = cs_hull_get(&model, 6, &scratch); /* not given: the model's */
    ck_assert(!h->from_config && h->nfaces == 4);

    const cs_model other = {.alpha = 1e-6, .beta = 1e-9, .rho = 1e-9, .hulls = &table}; /* other costs */
    ck_assert_ptr_eq(cs_hull_get(&other, 3, &scratch), &scratch);
    ck_assert(!scratch.from_config);

    cs_params params;
    cs_params_init(&params);
    const cs_problem prob = {
        .coll = CS_COLL_ALLTOALL, .p = 8, .count = 5000, .elem = 1, .bytes = 5000, .flags = CS_PROB_CONTIG};
    cs_alltoall_multiphase.tune(&model, &prob, &params);
    ck_assert(params.nparts == 3 && params.face_src == 2 && params.face_lo == 4096 && params.face_hi == SIZE_MAX);
}
END_TEST

Suite *make_hull_suite(void)
{
    Suite *s = suite_create("hull");
    TCase *hull = tcase_create("hull");
    TCase *sched = tcase_create("schedules");
    TCase *use = tcase_create("use");

    tcase_add_loop_test(hull, test_hull_brute_force, 0, HULL_MAX_D * (NRANDOM + 1));
    tcase_add_loop_test(hull, test_hull_lookup, 0, NRANDOM + 1);
    tcase_add_test(hull, test_fig1);

    tcase_set_timeout(sched, 60);
    tcase_add_loop_test(sched, test_schedules, 0, 8);
    tcase_add_test(sched, test_standard_cost);

    tcase_add_loop_test(use, test_parse, 0, (int)(sizeof parse_cases / sizeof parse_cases[0]));
    tcase_add_test(use, test_forced_partition);
    tcase_add_test(use, test_auto_uses_hull);
    tcase_add_test(use, test_table);

    suite_add_tcase(s, hull);
    suite_add_tcase(s, sched);
    suite_add_tcase(s, use);
    return s;
}
