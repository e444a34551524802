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
#include "select/select_internal.h"

static void cs_decide(cs_decision *d, const cs_alg *alg, const char *reason)
{
    d->alg = alg;
    d->reason = reason;
}

/* Why the library keeps a call (cs_select_library_keeps's answer). */
static const char *cs_select_keeps_reason(int keeps)
{
    return keeps == CS_KEEP_LOOP ? "model: the library's own is cheaper back to back (start-ups overlapped)"
                                 : "model: the library's own is as cheap, within model.margin";
}

/* Why no algorithm of ours applies, into d: the restriction every one
 * shares where one does (a datatype with gaps: "every algorithm needs a
 * contiguous datatype", not the first row's "needs p a power of two"),
 * else the row passed over already (the breakpoints' choice), else the
 * first row that cannot run. A forced algorithm passed over stays named
 * (what its warning says). */
static void cs_select_none_applies(const cs_problem *prob, const cs_alg *forced, cs_decision *d)
{
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    if (d->passed && (d->passed == forced || !cs_select_shared_restriction(table, n, prob)))
        return;
    cs_select_first_declined(prob, &d->passed, &d->declined);
}

/* The model's cheapest that can run, else the first row (native, or the
 * extension API's fallback, which runs every call). forced: the algorithm
 * forced, or NULL. */
static void cs_select_model(const cs_model *model, const cs_problem *prob, const cs_alg *forced, cs_decision *d)
{
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    int i = cs_select_cheapest(model, prob, &d->params, &d->predicted);
    if (i >= 0) {
        d->ours_predicted = d->predicted;
        const int keeps = cs_select_library_keeps(model, prob, table[i], &d->params, d->predicted,
                                                  &d->library_predicted, &d->library_alg);
        if (keeps) {
            d->predicted = d->library_predicted;
            return cs_decide(d, table[0], cs_select_keeps_reason(keeps));
        }
        return cs_decide(d, table[i], "model: cheapest that can run");
    }
    cs_select_none_applies(prob, forced, d);
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
static int cs_select_by_rules(const cs_model *model, const cs_coll_config *cc, const cs_problem *prob, cs_decision *d)
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
    const char *no = cs_alg_restriction_given(rule->alg, prob, &rule->params);
    if (no) {
        if (!d->passed) {
            d->passed = rule->alg;
            d->declined = no;
        }
        cs_decide(d, native, "rule's algorithm cannot run this call: native, to be safe");
        return 1;
    }
    d->params = rule->params;
    d->predicted = cs_select_price(model, rule->alg, prob, &d->params, INFINITY);
    cs_decide(d, rule->alg, "rule");
    return 1;
}

void cs_select_predict(const cs_model *model, const cs_problem *prob, cs_decision *d)
{
    if (d->predicted < 0 && d->alg->cost && !cs_alg_restriction(d->alg, prob))
        d->predicted = cs_alg_cost_on_map(d->alg, model, prob, &d->params);
}

const char cs_select_library_wrong[] = "the library computes this operator on this type wrongly";

static const char *cs_select_forced_reason(const cs_coll_config *cc)
{
    return cc->from_env ? "forced by the environment" : "forced by the configuration";
}

static void cs_select_decide(const cs_config *cfg, cs_select_cache *cache, const cs_problem *prob, cs_decision *d)
{
    const cs_coll_config *cc = &cfg->coll[prob->coll];
    /* the nodes' links as this communicator shares them (cs_problem.share) */
    const cs_model shared = cs_model_shared(&cfg->model, prob), *model = &shared;
    const cs_alg *native = cs_alg_native(prob->coll);
    const cs_alg *forced = cc->choice == CS_CHOICE_FORCED ? cc->alg : NULL;

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
        const char *no = cs_alg_restriction_given(cc->alg, prob, &cc->params);
        if (!no) {
            d->params = cc->params;
            d->predicted = cs_select_price(model, cc->alg, prob, &d->params, INFINITY);
            return cs_decide(d, cc->alg, cs_select_forced_reason(cc));
        }
        d->passed = cc->alg;
        d->declined = no;
        if (cc->alg->instead && !cs_alg_restriction(cc->alg->instead, prob)) {
            d->predicted = cs_select_price(model, cc->alg->instead, prob, &d->params, INFINITY);
            return cs_decide(d, cc->alg->instead, "in place of the forced algorithm");
        }
    }
    if (library && (prob->flags & CS_PROB_LIBRARY_WRONG)) { /* ours, wherever one runs the call */
        int n, i = cs_select_cheapest(model, prob, &d->params, &d->predicted);
        if (i >= 0)
            return cs_decide(d, cs_alg_table(prob->coll, &n)[i], cs_select_library_wrong);
    }
    if (cc->nrules && cs_select_by_rules(model, cc, prob, d))
        return;
    if (cs_config_native_range(cc, prob->bytes))
        return cs_decide(d, native, "in a native size range of the configuration");
    if (!cs_collective_of(prob->coll)->breakpoints)
        return cs_select_model(model, prob, forced, d);

    /* The breakpoints hold the model's choice for this variant and size. */
    const int variant = ((prob->flags & CS_PROB_COMMUTATIVE) ? 1 : 0) | ((prob->flags & CS_PROB_INPLACE) ? 2 : 0) |
                        ((prob->flags & CS_PROB_EXACT) ? 4 : 0) | ((prob->flags & CS_PROB_USER_OP) ? 8 : 0);
    cs_breakpoints *bp = &cache->bp[prob->coll][variant];
    if (!bp->computed)
        cs_breakpoints_compute(model, prob, bp);
    int n;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    const int entry = cs_breakpoints_entry(bp, prob->bytes);
    const cs_alg *alg = table[bp->alg[entry]];
    if (bp->passed) { /* none of ours runs this p and operator at any size */
        cs_select_none_applies(prob, forced, d);
        return cs_decide(d, native, "no algorithm of ours applies");
    }
    if (alg->cost && !cs_alg_restriction(alg, prob)) {
        /* The parameters the breakpoints hold: tune does not search again. The
         * price only for the log: a lookup and the parameters, nothing more. */
        cs_bp_key_params(cs_bp_entry_key(bp, entry), &d->params);
        if (alg->tune)
            alg->tune(model, prob, &d->params);
        cs_decide(d, alg, "breakpoint: the model's choice for this size");
        if (cs_library_count_matters(model, prob)) {
            /* The library tests the call's count where the breakpoints' 1-byte elements
             * would not (one double at p = 4: Open MPI's ring falls back to recursive
             * doubling): the margin checked against its price for this call. */
            cs_select_predict(model, prob, d);
            d->ours_predicted = d->predicted;
            const int keeps = cs_select_library_keeps(model, prob, alg, &d->params, d->predicted, &d->library_predicted,
                                                      &d->library_alg);
            if (keeps) {
                d->predicted = d->library_predicted;
                return cs_decide(d, native, cs_select_keeps_reason(keeps));
            }
            return;
        }
        if (cfg->log_level == CS_LOG_CALLS) { /* the prices, for the log and its reason */
            cs_select_predict(model, prob, d);
            d->ours_predicted = d->predicted;
            cs_select_library_keeps(model, prob, alg, &d->params, d->predicted, &d->library_predicted, &d->library_alg);
        }
        return;
    }
    if (!alg->cost && cfg->log_level != CS_LOG_CALLS) /* the library kept at this size: a lookup, nothing more */
        return cs_decide(d, native, "breakpoint: the library's own, as cheap within model.margin or back to back");

    /* The breakpoint's choice cannot run this call (its datatype, say). */
    if (alg->cost && !d->passed) {
        d->passed = alg;
        d->declined = cs_alg_restriction(alg, prob);
    }
    return cs_select_model(model, prob, forced, d);
}

void cs_select(const cs_config *cfg, cs_select_cache *cache, const cs_problem *prob, cs_decision *d)
{
    cs_select_decide(cfg, cache, prob, d);
    if (cfg->coll[prob->coll].choice == CS_CHOICE_FORCED) /* what it could not do, said once (warn.c) */
        cs_select_warn(cfg, prob, d);
}
