/*
 * The candidates of a call: the restrictions that stop an algorithm, its
 * price under the model with the parameters its tune chooses, the cheapest
 * that can run, and whether the library keeps the call against it.
 */
#include <math.h>

#include "select/library.h"
#include "select/select.h"
#include "select/select_internal.h"

/* Tune the parameters of alg for prob and price it; stop: a price to beat
 * (a row that cannot may say so with any price at or above it). */
double cs_select_price(const cs_model *model, const cs_alg *alg, const cs_problem *prob, cs_params *params, double stop)
{
    if (alg->tune_priced) { /* priced on the map (cs_alg_priced_on_map): tuned in full, then priced there */
        const int on_map = cs_alg_priced_on_map(alg, model, prob);
        const double t = alg->tune_priced(model, prob, params, on_map ? INFINITY : stop);
        if (t >= 0 && !on_map)
            return t;
    } else if (alg->tune) {
        alg->tune(model, prob, params);
    }
    return cs_alg_cost_within(alg, model, prob, params, stop);
}

/* Row i, if the model chooses among it, tuned and priced against *best_cost
 * (on a tie, first: the lower row wins). */
static void cs_select_try(const cs_model *model, const cs_problem *prob, const cs_alg *const *table, int i, int first,
                          int *best, cs_params *best_params, double *best_cost)
{
    cs_params params;
    if (!table[i]->cost || table[i]->rules_only || cs_alg_restriction(table[i], prob))
        return;
    cs_params_init(&params);
    /* a row tried first on a tie: priced until it passes the next double up,
     * so that a price at or above that is above the best */
    const double stop = first ? nextafter(*best_cost, INFINITY) : *best_cost;
    const double t = cs_select_price(model, table[i], prob, &params, stop);
    if (t < *best_cost || (first && t == *best_cost)) {
        *best_cost = t;
        *best_params = params;
        *best = i;
    }
}

/* The model's cheapest runnable algorithm (not a rules_only row); -1 if
 * none. Row hint (or -1) is priced first: where it is the cheapest, the
 * others stop pricing as soon as they pass it (the breakpoints' next
 * sample is likely to choose what the last one chose); the choice is the
 * same, the first of equal prices in the table's order. */
int cs_select_cheapest_from(const cs_model *model, const cs_problem *prob, int hint, cs_params *best_params,
                            double *best_cost)
{
    int n, best = -1;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    *best_cost = INFINITY;
    if (hint > 0 && hint < n)
        cs_select_try(model, prob, table, hint, 0, &best, best_params, best_cost);
    for (int i = 0; i < n; i++)
        if (i != hint)
            cs_select_try(model, prob, table, i, best >= 0 && i < best, &best, best_params, best_cost);
    return best;
}

int cs_select_cheapest(const cs_model *model, const cs_problem *prob, cs_params *best_params, double *best_cost)
{
    return cs_select_cheapest_from(model, prob, -1, best_params, best_cost);
}

/*
 * Does the library keep the call? Only for the collectives it has: ours must
 * be predicted cheaper than its default by the fraction model.margin, and,
 * for reduce, cost no more than it back to back (cs_select_loop_keeps).
 */
int cs_select_library_keeps(const cs_model *model, const cs_problem *prob, const cs_alg *alg, const cs_params *params,
                            double ours, double *library, const char **name)
{
    if (!cs_collective_of(prob->coll)->native)
        return CS_KEEP_NO;
    *library = cs_library_price(model, prob, name);
    if (*library < 0)
        return CS_KEEP_NO;
    if (!(ours < *library * (1.0 - model->margin)))
        return CS_KEEP_CALL;
    return cs_select_loop_keeps(model, prob, alg, params) ? CS_KEEP_LOOP : CS_KEEP_NO;
}

/*
 * Back to back, as applications and benchmarks call, the ranks of a reduce
 * that leave its tree early run ahead into the next calls: their start-ups
 * (alpha) overlap, and what a call costs is the work of the ranks that
 * cannot run ahead, the root above all (its posts, the bytes on its link,
 * what it combines). A tree that saves rounds by giving the root more
 * children (knomial) then costs more per call than the library's binomial,
 * though it is cheaper from a common start. Priced as the critical path
 * with alpha 0 (the same rows, the same closed forms), ours must not cost
 * more than the library's. Only where ranks can run ahead, under a library
 * that sends eagerly (cs_library_eager: not SMPI's selectors).
 */
int cs_select_loop_keeps(const cs_model *model, const cs_problem *prob, const cs_alg *alg, const cs_params *params)
{
    if (prob->coll != CS_COLL_REDUCE || !alg || !alg->cost || !cs_library_eager(model))
        return 0;
    cs_model ahead = *model;
    ahead.alpha = ahead.alpha_node = 0.0;
    const char *name;
    const double library = cs_library_price(&ahead, prob, &name);
    /* ours priced only until it passes the library's (the next double up: a
     * price at or above it is then above it) */
    return library >= 0 && cs_alg_cost_within(alg, &ahead, prob, params, nextafter(library, INFINITY)) > library;
}

/* The words of a decision that names no one row: every algorithm of a
 * collective, as the log prints a row passed over ("every algorithm needs
 * a contiguous datatype"). */
static const cs_alg cs_select_every[CS_COLL_COUNT] = {
    [CS_COLL_ALLTOALL] = {.name = "every algorithm", .coll = CS_COLL_ALLTOALL},
    [CS_COLL_ALLREDUCE] = {.name = "every algorithm", .coll = CS_COLL_ALLREDUCE},
    [CS_COLL_REDUCE] = {.name = "every algorithm", .coll = CS_COLL_REDUCE},
    [CS_COLL_WINDOW] = {.name = "every algorithm", .coll = CS_COLL_WINDOW},
    [CS_COLL_WINDOW_BLOCK] = {.name = "every algorithm", .coll = CS_COLL_WINDOW_BLOCK},
};

const char *cs_select_shared_restriction(const cs_alg *const *table, int n, const cs_problem *prob)
{
    cs_alg every = {.requires = ~0u};
    int rows = 0;
    for (int i = 0; i < n; i++)
        if (table[i]->cost) {
            every.requires &= table[i]->requires;
            rows++;
        }
    return rows >= 2 && every.requires ? cs_alg_restriction(&every, prob) : NULL;
}

/* Why none of our algorithms can run prob: the restriction every one of
 * them shares, where one does (a datatype with gaps), else the first that
 * cannot run and its restriction. */
void cs_select_first_declined(const cs_problem *prob, const cs_alg **passed, const char **declined)
{
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    const char *shared = cs_select_shared_restriction(table, n, prob);
    if (shared && (unsigned)prob->coll < CS_COLL_COUNT) {
        *passed = &cs_select_every[prob->coll];
        *declined = shared;
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *no = table[i]->cost ? cs_alg_restriction(table[i], prob) : NULL;
        if (no) {
            *passed = table[i];
            *declined = no;
            return;
        }
    }
}
