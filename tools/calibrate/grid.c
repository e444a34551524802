/*
 * collshim-calibrate's grid: per communicator size and message size, the library and every
 * algorithm of ours that can run the call, timed (measure.h), recorded and printed (tool.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/common_start.h"
#include "calibrate/summary.h"
#include "calibrate/tool.h"
#include "coll/compose/leader.h"
#include "sched/nodes.h"

static const size_t red_full[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 2097152};
static const size_t red_quick[] = {8, 512, 32768, 1048576};
static const size_t a2a_full[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072};
static const size_t a2a_quick[] = {8, 512, 16384};
/* --fit times every algorithm of ours at these sizes only, for the model's error. */
static const size_t red_fit[] = {8, 1024, 65536};
static const size_t a2a_fit[] = {8, 1024};

/* The communicator sizes: the world first, then up to CAL_MAX_Q - 1 smaller
 * ones: every q below 8, else powers of two and three times powers of two. */
int cal_comm_sizes(int p, int *q)
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

/* A leader row's node level ours: the library's (leader:node=library) runs
 * outside the schedule, on node communicators that only the shim makes, and
 * the tool runs schedules itself. Other rows ignore it. */
static void cal_node_level_ours(cs_params *params)
{
    params->node_level = CS_NODE_OURS;
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
        if (cs_compose_leader_library(d->alg, prob, &d->params)) { /* timed with our node level */
            cs_params_init(&rows[n].path.params);
            cal_node_level_ours(&rows[n].path.params);
            d->alg->tune(&st->cfg.model, prob, &rows[n].path.params);
        }
        rows[n++].predicted = d->predicted;
        return n;
    }
    const cs_alg *const *table = cs_alg_table(prob->coll, &nalgs);
    for (int i = 0; i < nalgs; i++) {
        const cs_alg *alg = table[i];
        char given[CAL_MAX_GIVENS][CAL_GIVEN];
        if (!alg->cost || cs_alg_restriction(alg, prob) || cal_skipped(st->o, alg))
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
            cal_node_level_ours(&r->path.params);
            if (alg->tune)
                alg->tune(&st->cfg.model, prob, &r->path.params);
            if (timed_before(rows, n, r))
                continue;
            r->predicted = cs_alg_cost_on_map(alg, &st->cfg.model, prob, &r->path.params);
            r->predicted_default = cs_alg_cost_on_map(alg, &st->defaults, prob, &r->path.params);
            n++;
        }
    }
    return n;
}

/*
 * --verify's cell: what select decided under the file (rows[1]) against the library (rows[0]),
 * with a verdict that follows the numbers (derive.h) and, where a rule decided, the rule as the
 * shim's log names it: <coll>.rules[i] from 0, and FILE:LINE.
 */
static void verify_cell(cal_state *st, const cs_problem *prob, const cal_row *rows)
{
    const cal_opts *o = st->o;
    const cs_cal_ratio r = cal_worse_ratio(&rows[1].path, &rows[0].path, o->reps, o->noise);
    /* the timing whose ratio that is (cs_cal_ratio_worse: the common start's where it is the larger) */
    const int start = cal_ratio_of(&rows[1].path, &rows[0].path, 1, o->reps, o->noise).median >
                      cal_ratio_of(&rows[1].path, &rows[0].path, 0, o->reps, o->noise).median;
    const int ours = rows[1].path.alg->build != NULL; /* else the library runs: no verdict to give */
    /* <coll>.algorithm decided it (or the algorithm in its place): before every rule, none to set native */
    const cs_coll_config *cc = &st->cfg.coll[prob->coll];
    const int forced = !rows[1].d.rule && cc->choice == CS_CHOICE_FORCED &&
                       (rows[1].d.alg == cc->alg || rows[1].d.alg == cc->alg->instead);
    const cs_cal_verdict v = ours ? cs_cal_verdict_of(r, o->noise) : CS_CAL_AS_FAST;
    cs_cal_verify_cell cell = {.coll = cs_coll_name(prob->coll),
                               .coll_id = prob->coll,
                               .p = prob->p,
                               .bytes = prob->bytes,
                               .ratio = r,
                               .verdict = v,
                               .t = cal_median_time(start ? rows[1].path.t_start : rows[1].path.t, o->reps),
                               .t_native = cal_median_time(start ? rows[0].path.t_start : rows[0].path.t, o->reps),
                               .start = start,
                               .rule = rows[1].d.rule,
                               .forced = forced};
    char spec[128], why[sizeof cell.what + 32];
    cs_alg_spec(rows[1].path.alg, &rows[1].path.params, spec, sizeof spec);
    if (rows[1].d.rule)
        snprintf(cell.what, sizeof cell.what, "%s (%s.rules[%d], %s:%d)", spec, cell.coll, rows[1].d.rule - 1,
                 o->verify, rows[1].d.rule_line);
    else
        snprintf(cell.what, sizeof cell.what, "%s (%s)", spec, rows[1].d.reason);
    if (st->nverify < NELEMS(st->verify))
        st->verify[st->nverify++] = cell;
    if (cal_rank == 0) {
        snprintf(why, sizeof why, "%s: %s", ours ? cs_cal_verdict_name(v) : "the library", cell.what);
        cal_print_row(prob, &rows[0], &rows[0], o->reps, "");
        cal_print_row(prob, &rows[1], &rows[0], o->reps, why);
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
    prob.ppn = c->map.ppn;
    prob.node = c->map.node;
    prob.nodes = c->map.nodes;
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
        cal_record_error(st, coll, &rows[k]);

    if (o->verify) {
        verify_cell(st, &prob, rows);
        return 0;
    }

    /* The best of ours: the least of its worse ratio to the library (the two timings' units differ). */
    int best = -1, model = -1;
    double best_ratio = INFINITY;
    for (int k = 1; k < n; k++) {
        const double ratio = cal_worse_ratio(&rows[k].path, &rows[0].path, o->reps, o->noise).median;
        if (best < 0 || ratio < best_ratio)
            best = k, best_ratio = ratio;
        if (!rows[k].path.alg->rules_only && (model < 0 || rows[k].predicted < rows[model].predicted))
            model = k; /* as select chooses: never a rules_only row */
        if (st->nerr < NELEMS(st->err_fit)) {
            const double meas = cal_median_time(rows[k].path.t_start, o->reps);
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
        cell.best_native = cal_worse_ratio(&rows[best].path, &rows[0].path, o->reps, o->noise);
        cell.model_best = cal_worse_ratio(&rows[model].path, &rows[best].path, o->reps, o->noise);
        cell.model_native = cal_worse_ratio(&rows[model].path, &rows[0].path, o->reps, o->noise);
    }
    if (st->ncells[coll] < CAL_MAX_CELLS && !o->fit)
        st->cells[coll][st->ncells[coll]++] = cell;
    if (cal_rank == 0) {
        const char *why;
        const cs_alg *alg;
        const cs_choice choice = cs_cal_cell_choice(&cell, &alg, &why);
        /* "model" where select would run it; where the margin keeps the library, the model's pick is said so */
        const char *model_mark = cell.model ? "model" : "model's pick (the margin keeps the library)";
        char mark[96];
        for (int k = 0; k < n; k++) {
            snprintf(mark, sizeof mark, "%s%s%s", k > 0 && k == best ? "best" : "",
                     k > 0 && k == best && k == model ? ", " : "", k > 0 && k == model ? model_mark : "");
            cal_print_row(&prob, &rows[k], &rows[0], o->reps, mark);
        }
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

/* The sizes of coll timed at communicator size q: into sizes[0..n), n returned (whose alltoall
 * sends no more than --alltoall-max a rank; reductions of whole doubles). */
static int cell_sizes(const cal_opts *o, cs_coll coll, int q, const size_t **out)
{
    static size_t kept[CAL_MAX_SIZES];
    const int a2a = coll == CS_COLL_ALLTOALL;
    const size_t *sizes = o->nsizes ? o->sizes
                          : o->fit  ? (a2a ? a2a_fit : red_fit)
                          : a2a     ? (o->quick ? a2a_quick : a2a_full)
                                    : (o->quick ? red_quick : red_full);
    const int nsizes = o->nsizes ? o->nsizes
                       : o->fit  ? (a2a ? NELEMS(a2a_fit) : NELEMS(red_fit))
                       : a2a     ? (o->quick ? NELEMS(a2a_quick) : NELEMS(a2a_full))
                                 : (o->quick ? NELEMS(red_quick) : NELEMS(red_full));
    int n = 0;
    for (int i = 0; i < nsizes; i++)
        if (a2a ? sizes[i] * (size_t)q <= o->a2a_max : sizes[i] >= sizeof(double))
            kept[n++] = sizes[i];
    *out = kept;
    return n;
}

int cal_cells_planned(const cal_opts *o, const int *qs, int nq)
{
    const size_t *sizes;
    int n = 0;
    for (int i = 0; i < nq; i++)
        for (int coll = 0; coll < CS_COLL_LAST; coll++)
            n += o->colls & (1u << coll) ? cell_sizes(o, (cs_coll)coll, qs[i], &sizes) : 0;
    return n;
}

/* Rank 0, on stderr: where the run is, and the time left at the pace of the cells timed so far
 * (larger p and sizes take longer: an estimate, said so). */
static void progress(const cal_state *st, cs_coll coll, int q, int first, int last)
{
    if (cal_rank != 0 || st->cells_done + 1 != first)
        return;
    const double spent = PMPI_Wtime() - st->t_cells;
    char left[64] = "time left: after the first cell";
    if (st->cells_done > 0) {
        const double s = spent / st->cells_done * (st->cells_planned - st->cells_done);
        snprintf(left, sizeof left, "about %.0f %s left", s < 120 ? s : s / 60, s < 120 ? "s" : "min");
    }
    fprintf(stderr, "collshim-calibrate: %s at p = %d, cells %d-%d of %d; %.0f s so far, %s\n", cs_coll_name(coll), q,
            first, last, st->cells_planned, spent, left);
}

/* Every collective on the first q ranks of the world. */
int cal_measure_comm(cal_state *st, int q)
{
    cs_cal_comm c = {.comm = MPI_COMM_NULL, .priv = MPI_COMM_NULL, .global_clock = cs_clock_is_global(), .slack = 1e-6};
    static cs_select_cache cache;
    int rc = 0;

    /* the world itself where q is all of it: SMPI builds a communicator of 1024 ranks in a minute */
    if (q == cal_world)
        c.comm = MPI_COMM_WORLD;
    else
        PMPI_Comm_split(MPI_COMM_WORLD, cal_rank < q ? 0 : MPI_UNDEFINED, cal_rank, &c.comm);
    if (c.comm == MPI_COMM_NULL)
        return 0;
    PMPI_Comm_dup(c.comm, &c.priv);
    PMPI_Comm_size(c.comm, &c.p);
    PMPI_Comm_rank(c.comm, &c.rank);
    /* the shim's too: its decisions and prices on nodes */
    cs_comm_nodes(c.priv, c.rank, c.p, st->cfg.model.ranks_per_node, st->cfg.model.cyclic, 0, &c.map);
    memset(&cache, 0, sizeof cache);
    for (int coll = 0; coll < CS_COLL_LAST && rc == 0; coll++) {
        if (!(st->o->colls & (1u << coll)))
            continue;
        const size_t *sizes;
        const int nsizes = cell_sizes(st->o, (cs_coll)coll, q, &sizes), first = st->cells_done + 1;
        for (int i = 0; i < nsizes && rc == 0; i++) {
            progress(st, (cs_coll)coll, q, first, first + nsizes - 1);
            rc = measure_cell(st, &c, &cache, (cs_coll)coll, sizes[i]);
            st->cells_done++;
        }
    }
    cs_scratch_free(&c.scratch);
    cs_nodes_free(&c.map);
    PMPI_Comm_free(&c.priv);
    if (c.comm != MPI_COMM_WORLD)
        PMPI_Comm_free(&c.comm);
    return rc;
}
