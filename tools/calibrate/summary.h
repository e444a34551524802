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
    int p;
    size_t bytes;
    char what[192]; /* "butterfly:k=1 (allreduce.rules[0], machine.yaml:14)" */
    cs_cal_ratio ratio;
    cs_cal_verdict verdict;
} cs_cal_verify_cell;

/* "# verify: N cells: ..." by verdict, then each slower and each inconclusive cell by name. */
void cs_cal_verify_print(FILE *f, const cs_cal_verify_cell *cells, int n);

#endif
