/*
 * Private to src/select/: what the decision (select.c), its candidates
 * (candidates.c) and the breakpoints (breakpoints.c) share.
 */
#ifndef CS_SELECT_INTERNAL_H
#define CS_SELECT_INTERNAL_H

#include "select/select.h"

/* Tune the parameters of alg for prob and price it; stop: a price to beat
 * (a row that cannot may say so with any price at or above it). */
double cs_select_price(const cs_model *model, const cs_alg *alg, const cs_problem *prob, cs_params *params,
                       double stop);

/* The model's cheapest runnable algorithm (not a rules_only row), its
 * parameters and price; -1 if none. Row hint (or -1) is priced first. */
int cs_select_cheapest_from(const cs_model *model, const cs_problem *prob, int hint, cs_params *best_params,
                            double *best_cost);
int cs_select_cheapest(const cs_model *model, const cs_problem *prob, cs_params *best_params, double *best_cost);

/* Why none of our algorithms can run prob: the restriction that every one
 * shares ("every algorithm" as the row passed over), else the first that
 * cannot run and its restriction. */
void cs_select_first_declined(const cs_problem *prob, const cs_alg **passed, const char **declined);

/* Entry i of bp as one number, and that number's table index and
 * parameters on fresh params (breakpoints.c). */
long cs_bp_entry_key(const cs_breakpoints *bp, int i);
int cs_bp_key_params(long key, cs_params *params);

/* Say on stderr, once, what a forced choice could not do for this
 * decision (warn.c); nothing is formatted where nothing is wrong. */
void cs_select_warn(const cs_config *cfg, const cs_problem *prob, const cs_decision *d);

#endif
