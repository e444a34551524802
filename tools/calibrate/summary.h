/*
 * collshim-calibrate's closing words, as pure functions of what it measured
 * (no MPI, tested by the unit suite): per collective its rules and the time
 * its cells' choices measured against the library's; the model's error
 * against the built-in model's, with a warning where the fit is the worse;
 * and --verify's cells by verdict, the slower and the inconclusive named.
 */
#ifndef CS_CAL_SUMMARY_H
#define CS_CAL_SUMMARY_H

#include <stdio.h>

#include "calibrate/derive.h"

/* One collective's rules and cells. */
typedef struct cs_cal_coll_summary {
    const char *name;
    const cs_rule *rules;
    int nrules;
    const cs_cal_cell *cells;
    int ncells;
} cs_cal_coll_summary;

typedef struct cs_cal_summary {
    cs_cal_coll_summary coll[CS_COLL_LAST];
    int ncoll;
    int nerr;                       /* timings of ours behind the model's error; 0: none */
    double err_fitted, err_builtin; /* their median |predicted/measured - 1|, from a common start */
    const char *file;               /* the configuration written */
    int fit_only;                   /* --fit: the model and no rules */
    double beta_core;               /* the fitted model's network core (model.beta_core); 0: none */
    int distance;                   /* the model's (model.distance): CS_DISTANCE_NONE where the network has none */
    double alpha_hop;
} cs_cal_summary;

/* "# summary ..." lines (the network's core among them), then the warning where the fitted model errs more than the
 * built-in one. */
void cs_cal_summary_print(FILE *f, const cs_cal_summary *s);

/* One cell of --verify: what collshim ran there and how it measured against the library. */
typedef struct cs_cal_verify_cell {
    const char *coll;
    cs_coll coll_id;
    int p;
    size_t bytes;
    char what[192]; /* "butterfly:k=1 (allreduce.rules[0], machine.yaml:14)" */
    cs_cal_ratio ratio;
    cs_cal_verdict verdict;
    double t, t_native; /* seconds a call, median, of the timing whose ratio is the worse (ratio) */
    int start;          /* that timing: 1 from a common start, 0 back to back */
    int rule;           /* the rule of <coll>.rules that decided: its index + 1; 0: none (the model) */
    int forced;         /* <coll>.algorithm forced it in every call: no rule to set */
} cs_cal_verify_cell;

/*
 * "# verify: N cells: ..." by verdict; each slower cell by name (the collective, p, size, what ran
 * and the rule, the ratio, its time against the library's) and each inconclusive one; then what to
 * do. file: the configuration verified; fixed: the file -o wrote with the slower cells native, and
 * set (cs_cal_verify_fix's) which were; NULL both where no -o was given.
 */
void cs_cal_verify_print(FILE *f, const cs_cal_verify_cell *cells, int n, const char *file, const char *fixed,
                         const int *set);

/*
 * --verify FILE -o FIXED: cfg (FILE as read) with every slower cell of cells[0..n) native, and
 * nothing else changed. A cell stands for the sizes from halfway (the geometric mean) to the size
 * measured before it to halfway to the next (from 0 for the first, with no end for the last), at
 * its p alone: before the rule that decided it goes a rule {p: [p, p], bytes: those sizes within
 * that rule's, algorithm: native} (neighbouring cells of one rule share one); where that is all of
 * the rule, the rule itself says native. Where no rule decided (a collective without rules: the
 * model decides), the native rules are followed by {p: [1, inf], bytes: [0, inf], algorithm: auto},
 * which leaves every other call to the model as before. A cell forced by <coll>.algorithm, or whose
 * rules would pass CS_MAX_RULES, is left (set[i] 0). set[i] (n entries): 1 where cell i was set
 * native. Returns how many were.
 */
int cs_cal_verify_fix(cs_config *cfg, const cs_cal_verify_cell *cells, int n, int *set);

#endif
