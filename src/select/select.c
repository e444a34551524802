/*
 * Selection, in order: calls nothing can improve (p = 1, an empty or huge
 * message); a forced algorithm; native by configuration; the rules of the
 * configuration (<coll>.rules, measured by collshim-calibrate: the first
 * whose p and size range hold decides; where rules exist but none holds,
 * or the rule's algorithm cannot run the call, the MPI library, to be
 * safe); a native size range; the breakpoints (the model's choice per size,
 * computed once per communicator and variant); the model's cheapest
 * candidate that can run; last, the MPI library. An algorithm that cannot
 * run is passed over, and the decision says which restriction stopped it.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "select/library.h"
#include "select/select.h"

static const struct {
    unsigned flag;
    const char *words;
} cs_restrictions[] = {
    {CS_REQ_POW2, "needs p a power of two"},
    {CS_REQ_COMMUTATIVE, "needs a commutative operator"},
    {CS_REQ_EXACT, "needs an exact type and operator"},
    {CS_REQ_CONTIG, "needs a contiguous datatype"},
    {CS_REQ_NOT_POW2, "is for p not a power of two"},
    {CS_REQ_SMALL_ODD, "needs an odd factor 3, 5 or 7 in p"},
    {CS_REQ_PARTITION, "needs parts that sum to log2 p"},
    {CS_REQ_INVERSE, "needs an operator with an exact inverse"},
    {CS_REQ_FACTORS, "needs factors whose product is p"},
};

const char *cs_select_restriction_words(unsigned flag)
{
    for (size_t i = 0; i < sizeof(cs_restrictions) / sizeof(cs_restrictions[0]); i++)
        if (cs_restrictions[i].flag == flag)
            return cs_restrictions[i].words;
    return NULL;
}

/* given: parameters fixed in advance (a forced "name:args"), or NULL when
 * the algorithm's tune will choose them. */
static int cs_restriction_holds(unsigned flag, const cs_problem *prob, const cs_params *given)
{
    switch (flag) {
    case CS_REQ_POW2: return (prob->p & (prob->p - 1)) == 0;
    case CS_REQ_COMMUTATIVE: return (prob->flags & CS_PROB_COMMUTATIVE) != 0;
    case CS_REQ_EXACT: return (prob->flags & CS_PROB_EXACT) != 0;
    case CS_REQ_CONTIG: return (prob->flags & CS_PROB_CONTIG) != 0;
    case CS_REQ_INVERSE: return (prob->flags & CS_PROB_INVERSE) != 0;
    case CS_REQ_NOT_POW2: return (prob->p & (prob->p - 1)) != 0;
    case CS_REQ_SMALL_ODD: return prob->p % 3 == 0 || prob->p % 5 == 0 || prob->p % 7 == 0;
    case CS_REQ_PARTITION: return !given || cs_params_parts_fit(given, prob->p);
    case CS_REQ_FACTORS: return !given || cs_params_factors_fit(given, prob->p);
    default: return 0;
    }
}

const char *cs_select_restriction_given(const cs_alg *alg, const cs_problem *prob, const cs_params *given)
{
    for (size_t i = 0; i < sizeof(cs_restrictions) / sizeof(cs_restrictions[0]); i++)
        if ((alg->requires & cs_restrictions[i].flag) && !cs_restriction_holds(cs_restrictions[i].flag, prob, given))
            return cs_restrictions[i].words;
    return NULL;
}

const char *cs_select_restriction(const cs_alg *alg, const cs_problem *prob)
{
    return cs_select_restriction_given(alg, prob, NULL);
}

/* Tune the parameters of alg for prob and price it; stop: a price to beat
 * (a row that cannot may say so with any price at or above it). */
static double cs_select_price(const cs_model *model, const cs_alg *alg, const cs_problem *prob, cs_params *params,
                              double stop)
{
    if (alg->tune_priced) {
        const double t = alg->tune_priced(model, prob, params, stop);
        if (t >= 0)
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
    if (!table[i]->cost || table[i]->rules_only || cs_select_restriction(table[i], prob))
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
static int cs_select_cheapest_from(const cs_model *model, const cs_problem *prob, int hint, cs_params *best_params,
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

static int cs_select_cheapest(const cs_model *model, const cs_problem *prob, cs_params *best_params,
                              double *best_cost)
{
    return cs_select_cheapest_from(model, prob, -1, best_params, best_cost);
}

/*
 * Does the library keep the call? Only for the collectives it has: ours must
 * be predicted cheaper than its default by the fraction model.margin, and,
 * for reduce, cost no more than it back to back (cs_select_loop_keeps).
 */
int cs_select_library_keeps(const cs_model *model, const cs_problem *prob, const cs_alg *alg,
                            const cs_params *params, double ours, double *library, const char **name)
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

/* A breakpoint entry as one number: the table index and the tuned
 * parameters that a call would otherwise tune again (select.h). */
static long cs_bp_key(int alg, const cs_params *params)
{
    const long radix = params->radix >= 2 && params->radix < 256 ? params->radix : 0;
    const long k1 = params->k >= 0 && params->k < 255 ? params->k + 1 : 0;
    const long rmax = params->rmax >= 3 && params->rmax < 256 ? params->rmax : 0;
    return alg + (radix << 8) + (k1 << 16) + (rmax << 24);
}

/* Entry i of bp as the key cs_bp_key made it from. */
static long cs_bp_entry_key(const cs_breakpoints *bp, int i)
{
    return bp->alg[i] + ((long)bp->radix[i] << 8) + ((long)bp->k1[i] << 16) + ((long)bp->rmax[i] << 24);
}

/* The table index a breakpoint key holds, and its parameters on fresh
 * params (cs_bp_key's inverse): what a call runs, tuning nothing more. */
static int cs_bp_key_params(long key, cs_params *params)
{
    const int radix = (int)((key >> 8) & 0xff), k1 = (int)((key >> 16) & 0xff), rmax = (int)((key >> 24) & 0xff);
    params->radix = radix ? radix : params->radix;
    params->k = k1 ? k1 - 1 : params->k;
    params->rmax = rmax ? rmax : params->rmax;
    return (int)(key & 0xff);
}

/* The variant at one size, in bytes of 1-byte elements: the breakpoints
 * serve every datatype of the variant (with the call's element size and
 * count = bytes, a schedule-priced reduce was priced at elem times its
 * size). Contiguity is checked at the call. */
static cs_problem cs_bp_problem(const cs_problem *variant, size_t bytes)
{
    cs_problem prob = *variant;
    prob.bytes = prob.count = bytes;
    prob.elem = 1;
    prob.flags |= CS_PROB_CONTIG;
    return prob;
}

/* The model's choice at one size, ignoring per-call restrictions other than
 * p, the operator and exactness. */
static long cs_breakpoints_choice(const cs_model *model, const cs_problem *variant, size_t bytes, long hint)
{
    const cs_problem prob = cs_bp_problem(variant, bytes);
    cs_params params;
    double cost;
    const char *name;
    double library;
    int n;
    const cs_alg *const *table = cs_alg_table(prob.coll, &n);
    int i = cs_select_cheapest_from(model, &prob, (int)(hint & 0xff), &params, &cost);
    if (i < 0 || cs_select_library_keeps(model, &prob, table[i], &params, cost, &library, &name))
        return 0;
    return cs_bp_key(i, &params);
}

/*
 * The choice at one size between two of ours alone, a and b: each priced
 * with the parameters it holds (no tuning), the cheaper kept (on a tie, a)
 * unless the library keeps the call. It is cs_breakpoints_choice wherever
 * the model's cheapest there is a or b, which the bisection between two
 * samples that chose them assumes (a third choice inside the interval was
 * never entered: the entry at its end is the later sample's). Not where
 * one is the library's: whether it keeps the call depends on which of
 * ours is cheapest (back to back, one row loses where another does not).
 * Two rows priced, not every row tuned: at p = 65,535 a reduce's
 * bisection steps cost a tenth of what they did.
 */
static long cs_breakpoints_between(const cs_model *model, const cs_problem *variant, size_t bytes, long a, long b)
{
    const cs_problem prob = cs_bp_problem(variant, bytes);
    const long keys[2] = {a, b};
    int n, best = 0;
    long best_key = 0;
    double cost = INFINITY, library;
    cs_params best_params;
    const char *name;
    const cs_alg *const *table = cs_alg_table(prob.coll, &n);
    for (int j = 0; j < 2; j++) {
        cs_params params;
        cs_params_init(&params);
        const int i = cs_bp_key_params(keys[j], &params);
        if (i == 0)
            continue; /* the library's: kept below, or not at all */
        const double t = cs_select_price(model, table[i], &prob, &params, cost);
        if (t < cost) {
            cost = t;
            best = i;
            best_key = keys[j];
            best_params = params;
        }
    }
    if (!best || cs_select_library_keeps(model, &prob, table[best], &best_params, cost, &library, &name))
        return 0;
    return best_key;
}

/* The first of our algorithms that cannot run prob, and why. */
static void cs_select_first_declined(const cs_problem *prob, const cs_alg **passed, const char **declined)
{
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    for (int i = 0; i < n; i++) {
        const char *no = table[i]->cost ? cs_select_restriction(table[i], prob) : NULL;
        if (no) {
            *passed = table[i];
            *declined = no;
            return;
        }
    }
}

static void cs_breakpoints_add(cs_breakpoints *bp, size_t lo, long key)
{
    if (bp->n && cs_bp_entry_key(bp, bp->n - 1) == key)
        return;
    if (bp->n == CS_BP_MAX)
        return; /* more changes than the table holds: the last entry stays */
    bp->lo[bp->n] = lo;
    bp->radix[bp->n] = (unsigned char)(key >> 8);
    bp->k1[bp->n] = (unsigned char)(key >> 16);
    bp->rmax[bp->n] = (unsigned char)(key >> 24);
    bp->alg[bp->n++] = (unsigned char)key;
}

/*
 * Sample the sizes 2^(i/4) bytes up to 2^40 (or the largest size a call can
 * run ours at) and bisect between samples whose choices differ, down to the
 * byte or to 1/2^CS_BP_PRECISION of the size: there the two choices' prices
 * cross, and within 0.8% of a crossing they differ by less than the model
 * can tell (it errs by 10% and more). To the byte, a reduce's first
 * decision at p = 65,535 took 120 ms, most of it in bisecting.
 */
enum { CS_BP_PRECISION = 7 };
void cs_breakpoints_compute(const cs_model *model, const cs_problem *variant, cs_breakpoints *bp)
{
    size_t prev = 1;
    long prev_alg = cs_breakpoints_choice(model, variant, 1, 0);
    const int library = cs_collective_of(variant->coll)->native;

    bp->n = 0;
    cs_breakpoints_add(bp, 1, prev_alg);
    for (int i = 1; i <= 160; i++) {
        size_t size = (size_t)ldexp(1.0, i / 4) + (size_t)((ldexp(1.0, i / 4) * (i % 4)) / 4);
        if (size <= prev)
            continue;
        const cs_problem at = cs_bp_problem(variant, size);
        if (library && cs_collective_largest_message(&at) > (double)INT_MAX)
            break; /* the library runs every call from here (cs_select): no entry is looked up */
        long alg = cs_breakpoints_choice(model, variant, size, prev_alg);
        if (alg != prev_alg) {
            size_t lo = prev, hi = size; /* choice(lo) == prev_alg, choice(hi) == alg */
            while (hi - lo > 1 && hi - lo > (lo >> CS_BP_PRECISION)) {
                size_t mid = lo + (hi - lo) / 2;
                const long there = prev_alg && alg ? cs_breakpoints_between(model, variant, mid, prev_alg, alg)
                                                   : cs_breakpoints_choice(model, variant, mid, prev_alg);
                if (there == prev_alg)
                    lo = mid;
                else
                    hi = mid;
            }
            cs_breakpoints_add(bp, hi, alg);
        }
        prev = size;
        prev_alg = alg;
    }
    const cs_problem prob = cs_bp_problem(variant, 1);
    cs_params params;
    double cost;
    if (bp->n == 1 && bp->alg[0] == 0 && cs_select_cheapest(model, &prob, &params, &cost) < 0)
        cs_select_first_declined(&prob, &bp->passed, &bp->declined);
    bp->computed = 1;
}

int cs_breakpoints_lookup(const cs_breakpoints *bp, size_t bytes)
{
    return bp->alg[cs_breakpoints_entry(bp, bytes)];
}

int cs_breakpoints_entry(const cs_breakpoints *bp, size_t bytes)
{
    int lo = 0, hi = bp->n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bp->lo[mid] <= bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void cs_decide(cs_decision *d, const cs_alg *alg, const char *reason)
{
    d->alg = alg;
    d->reason = reason;
}

/* The model's cheapest that can run, else the first row (native, or the
 * extension API's fallback, which runs every call). */
static void cs_select_model(const cs_config *cfg, const cs_problem *prob, cs_decision *d)
{
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    int i = cs_select_cheapest(&cfg->model, prob, &d->params, &d->predicted);
    if (i >= 0) {
        d->ours_predicted = d->predicted;
        const int keeps = cs_select_library_keeps(&cfg->model, prob, table[i], &d->params, d->predicted,
                                                  &d->library_predicted, &d->library_alg);
        if (keeps) {
            d->predicted = d->library_predicted;
            return cs_decide(d, table[0], keeps == CS_KEEP_LOOP
                                              ? "model: the library's own is cheaper back to back (start-ups overlapped)"
                                              : "model: the library's own is as cheap, within model.margin");
        }
        return cs_decide(d, table[i], "model: cheapest that can run");
    }
    if (!d->passed)
        cs_select_first_declined(prob, &d->passed, &d->declined);
    d->predicted = -1.0;
    return cs_decide(d, table[0], "no algorithm of ours applies");
}

/* The first rule whose ranges hold for the call; NULL if none. */
static const cs_rule *cs_select_rule(const cs_coll_config *cc, const cs_problem *prob)
{
    for (int i = 0; i < cc->nrules; i++) {
        const cs_rule *r = &cc->rules[i];
        if (prob->p >= r->p_lo && prob->p <= r->p_hi && prob->bytes >= r->bytes.lo && prob->bytes <= r->bytes.hi)
            return r;
    }
    return NULL;
}

/* The rules decide, or leave it to the model (a rule of auto): 1 if decided. */
static int cs_select_by_rules(const cs_config *cfg, const cs_coll_config *cc, const cs_problem *prob,
                              cs_decision *d)
{
    const cs_alg *native = cs_alg_native(prob->coll);
    const cs_rule *rule = cs_select_rule(cc, prob);
    if (!rule) {
        cs_decide(d, native, "no rule covers this p and size: native, to be safe");
        return 1;
    }
    d->rule = (int)(rule - cc->rules) + 1;
    d->rule_line = rule->line;
    if (rule->choice == CS_CHOICE_AUTO)
        return 0;
    if (rule->choice == CS_CHOICE_NATIVE) {
        cs_decide(d, native, "rule");
        return 1;
    }
    const char *no = cs_select_restriction_given(rule->alg, prob, &rule->params);
    if (no) {
        if (!d->passed) {
            d->passed = rule->alg;
            d->declined = no;
        }
        cs_decide(d, native, "rule's algorithm cannot run this call: native, to be safe");
        return 1;
    }
    d->params = rule->params;
    d->predicted = cs_select_price(&cfg->model, rule->alg, prob, &d->params, INFINITY);
    cs_decide(d, rule->alg, "rule");
    return 1;
}

void cs_select_predict(const cs_model *model, const cs_problem *prob, cs_decision *d)
{
    if (d->predicted < 0 && d->alg->cost && !cs_select_restriction(d->alg, prob))
        d->predicted = d->alg->cost(model, prob, &d->params);
}

const char cs_select_library_wrong[] = "the library computes this operator on this type wrongly";

static const char *cs_select_forced_reason(const cs_coll_config *cc)
{
    return cc->from_env ? "forced by the environment" : "forced by the configuration";
}

void cs_select(const cs_config *cfg, cs_select_cache *cache, const cs_problem *prob, cs_decision *d)
{
    const cs_coll_config *cc = &cfg->coll[prob->coll];
    const cs_alg *native = cs_alg_native(prob->coll);

    d->passed = NULL;
    d->declined = NULL;
    d->predicted = -1.0;
    d->rule = d->rule_line = 0;
    d->library_alg = NULL;
    cs_params_init(&d->params);
    cs_decide(d, native, NULL);

    /* What the library does as well or only it can (the extension API's
     * collectives have no library version: their first row runs these). */
    const int library = cs_collective_of(prob->coll)->native;
    if (library && prob->p == 1)
        return cs_decide(d, native, "p = 1: nothing to exchange");
    if (library && prob->count == 0)
        return cs_decide(d, native, "empty message");
    if (library && cs_collective_largest_message(prob) > (double)INT_MAX)
        return cs_decide(d, native, "a message would exceed INT_MAX bytes");
    if (cc->choice == CS_CHOICE_NATIVE)
        return cs_decide(d, native, cc->from_env ? "native by the environment" : "native by the configuration");

    if (cc->choice == CS_CHOICE_FORCED) {
        const char *no = cs_select_restriction_given(cc->alg, prob, &cc->params);
        if (!no) {
            d->params = cc->params;
            d->predicted = cs_select_price(&cfg->model, cc->alg, prob, &d->params, INFINITY);
            return cs_decide(d, cc->alg, cs_select_forced_reason(cc));
        }
        d->passed = cc->alg;
        d->declined = no;
        if (cc->alg->instead && !cs_select_restriction(cc->alg->instead, prob)) {
            d->predicted = cs_select_price(&cfg->model, cc->alg->instead, prob, &d->params, INFINITY);
            return cs_decide(d, cc->alg->instead, "in place of the forced algorithm");
        }
    }
    if (library && (prob->flags & CS_PROB_LIBRARY_WRONG)) { /* ours, wherever one runs the call */
        int n, i = cs_select_cheapest(&cfg->model, prob, &d->params, &d->predicted);
        if (i >= 0)
            return cs_decide(d, cs_alg_table(prob->coll, &n)[i], cs_select_library_wrong);
    }
    if (cc->nrules && cs_select_by_rules(cfg, cc, prob, d))
        return;
    if (cs_config_native_range(cc, prob->bytes))
        return cs_decide(d, native, "in a native size range of the configuration");
    if (!cs_collective_of(prob->coll)->breakpoints)
        return cs_select_model(cfg, prob, d);

    /* The breakpoints hold the model's choice for this variant and size. */
    const int variant = ((prob->flags & CS_PROB_COMMUTATIVE) ? 1 : 0) | ((prob->flags & CS_PROB_INPLACE) ? 2 : 0) |
                        ((prob->flags & CS_PROB_EXACT) ? 4 : 0);
    cs_breakpoints *bp = &cache->bp[prob->coll][variant];
    if (!bp->computed)
        cs_breakpoints_compute(&cfg->model, prob, bp);
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    const int entry = cs_breakpoints_entry(bp, prob->bytes);
    const cs_alg *alg = table[bp->alg[entry]];
    if (bp->passed) { /* none of ours runs this p and operator at any size */
        if (!d->passed) {
            d->passed = bp->passed;
            d->declined = bp->declined;
        }
        return cs_decide(d, native, "no algorithm of ours applies");
    }
    if (alg->cost && !cs_select_restriction(alg, prob)) {
        /* The parameters the breakpoints hold: tune does not search again. The
         * price only for the log: a lookup and the parameters, nothing more. */
        cs_bp_key_params(cs_bp_entry_key(bp, entry), &d->params);
        if (alg->tune)
            alg->tune(&cfg->model, prob, &d->params);
        cs_decide(d, alg, "breakpoint: the model's choice for this size");
        if (cfg->log_level == CS_LOG_CALLS) { /* the prices, for the log and its reason */
            cs_select_predict(&cfg->model, prob, d);
            d->ours_predicted = d->predicted;
            cs_select_library_keeps(&cfg->model, prob, alg, &d->params, d->predicted, &d->library_predicted,
                                    &d->library_alg);
        }
        return;
    }
    if (!alg->cost && cfg->log_level != CS_LOG_CALLS) /* the library kept at this size: a lookup, nothing more */
        return cs_decide(d, native, "breakpoint: the library's own, as cheap within model.margin or back to back");

    /* The breakpoint's choice cannot run this call (its datatype, say). */
    if (alg->cost && !d->passed) {
        d->passed = alg;
        d->declined = cs_select_restriction(alg, prob);
    }
    return cs_select_model(cfg, prob, d);
}
