/*
 * Selection: which algorithm runs a call, and why. Every input is
 * rank-invariant (docs/architecture.md, "Decisions"), so every rank decides the same.
 */
#ifndef CS_SELECT_H
#define CS_SELECT_H

#include "config/config.h"

#define CS_BP_MAX 64

/* The model's choice as a function of the message size, for one collective,
 * one p and one variant (commutative or not, in place or not, exact or not): algorithm
 * alg[i] from lo[i] bytes up to lo[i + 1] - 1. */
typedef struct cs_breakpoints {
    int computed;
    int n;
    size_t lo[CS_BP_MAX];
    unsigned char alg[CS_BP_MAX]; /* index in the collective's table; 0: the library's, as cheap */
    /* The parameters tune chose there, so that a call tunes nothing: the
     * radix (bruck, knomial; 0: none), split stages k + 1 (0: none), ring
     * size rmax (0: none), and a composition's row across the nodes (sub;
     * 0: none), its node level's radix and path (node_radix, node_level).
     * A change of any starts an entry of its own. */
    unsigned char radix[CS_BP_MAX], k1[CS_BP_MAX], rmax[CS_BP_MAX];
    unsigned char sub[CS_BP_MAX], node_radix[CS_BP_MAX], node_level[CS_BP_MAX];
    const cs_alg *passed; /* when none of ours can run: the first, */
    const char *declined; /* and the restriction that stops it */
} cs_breakpoints;

#define CS_BP_VARIANTS 16 /* (commutative, in place, exact, a user's operator) */

typedef struct cs_select_cache {
    cs_breakpoints bp[CS_COLL_LAST][CS_BP_VARIANTS];
} cs_select_cache;

typedef struct cs_decision {
    const cs_alg *alg; /* the native row hands the call to the MPI library */
    cs_params params;
    const char *reason;   /* why this one: static text */
    const cs_alg *passed; /* an algorithm passed over (forced, or the breakpoint's), or NULL */
    const char *declined; /* and the restriction it failed */
    double predicted;     /* seconds under the model; < 0 for native */
    int rule;             /* the rule of <coll>.rules that decided: its index + 1; 0: none */
    int rule_line;        /* its line in the configuration file */
    /* When the model compared ours with the library (the log is on, or no
     * breakpoint decided): the library's algorithm in words, its price and
     * ours; library_alg NULL: not compared. */
    const char *library_alg;
    double library_predicted, ours_predicted;
} cs_decision;

void cs_select(const cs_config *cfg, cs_select_cache *cache, const cs_problem *prob, cs_decision *d);
/* The reason of a call that runs ours because the library computes its
 * operator wrongly (CS_PROB_LIBRARY_WRONG); the caller may name the pair. */
extern const char cs_select_library_wrong[];

/* What a forced choice could not do in decision d, as the line cs_select
 * says once on stderr (cs_config.says): the forced algorithm cannot run
 * the call (why, and what runs), or a given parameter was clamped (to
 * what). Its length, or 0 where nothing is wrong. */
int cs_select_warning(const cs_config *cfg, const cs_problem *prob, const cs_decision *d, char *buf, size_t size);

/* The price of the decision under the model into d->predicted, where select
 * did not compute it (it does only for the log: a call that runs from the
 * breakpoints looks up and tunes nothing more). */
void cs_select_predict(const cs_model *model, const cs_problem *prob, cs_decision *d);

/* Fill a breakpoint table (exposed for the tests and the tools). */
void cs_breakpoints_compute(const cs_model *model, const cs_problem *variant, cs_breakpoints *bp);

/* The table index of the algorithm the breakpoints give for a size. */
int cs_breakpoints_lookup(const cs_breakpoints *bp, size_t bytes);

/* The entry of bp that holds a size (alg[i], radix[i]). */
int cs_breakpoints_entry(const cs_breakpoints *bp, size_t bytes);

/* The restriction that every row of table with a price requires and prob
 * fails, in words (the first such of the restrictions' order); NULL: none,
 * or fewer than two rows. */
const char *cs_select_shared_restriction(const cs_alg *const *table, int n, const cs_problem *prob);

/* Why the library keeps a call (cs_select_library_keeps); 0: it does not. */
enum { CS_KEEP_NO, CS_KEEP_CALL, CS_KEEP_LOOP };

/*
 * Does the library keep a call that ours, row alg with params, would run for
 * `ours` seconds? Its default's price (select/library.h) into *library and
 * *name. CS_KEEP_CALL unless ours is cheaper by model.margin; else
 * CS_KEEP_LOOP where ours costs more back to back (cs_select_loop_keeps);
 * else CS_KEEP_NO, also for the extension API (no library version).
 */
int cs_select_library_keeps(const cs_model *model, const cs_problem *prob, const cs_alg *alg, const cs_params *params,
                            double ours, double *library, const char **name);

/* Does ours (alg, params) cost more than the library's default in a loop of
 * calls, where ranks run ahead and start-ups overlap (a reduce under a
 * library that sends eagerly)? select.c says why. */
int cs_select_loop_keeps(const cs_model *model, const cs_problem *prob, const cs_alg *alg, const cs_params *params);

#endif
