/*
 * collshim-calibrate's parts (tools/collshim-calibrate.c and tools/calibrate/): the options, the
 * state of a run, and the functions the tool's files share. Not a library: the tool's own.
 */
#ifndef CS_CAL_TOOL_H
#define CS_CAL_TOOL_H

#include <stdio.h>

#include "calibrate/derive.h"
#include "calibrate/measure.h"
#include "calibrate/summary.h"
#include "config/config.h"
#include "model/fit.h"
#include "select/select.h"

#define CAL_MAX_Q 8      /* communicator sizes measured */
#define CAL_GIVEN 48     /* a row's given parameters, "k=3,rmax=3" */
#define CAL_MAX_SIZES 12 /* message sizes per collective */
#define CAL_MAX_PATHS 24 /* the library and ours */
#define CAL_MAX_GIVENS 8 /* parameter sets a row is timed with */
#define CAL_MAX_CELLS (CAL_MAX_Q * CAL_MAX_SIZES)
#define CAL_A2A_MAX ((size_t)64 << 20) /* alltoall: bytes a rank sends in one call, by default */
#define CAL_COLLS_NONE (1u << 31)      /* --colls none: no collective timed (a bit no collective has) */
#define CAL_ERR_MAX 512                /* timings per algorithm in the model's error */
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct cal_opts {
    const char *out, *verify;
    int out_given; /* -o: with --verify, the file with its slower cells native */
    int quick;
    int fit;       /* --fit: the model only, no rules */
    double budget; /* seconds; 0: none */
    int reps;
    double target, noise;
    size_t sizes[CAL_MAX_SIZES]; /* --sizes: every collective's; 0 of them: the presets */
    int nsizes;
    int qs[CAL_MAX_Q]; /* --comm-sizes; 0 of them: the world and sub-communicators */
    int nqs;
    size_t a2a_max;   /* --alltoall-max: an alltoall of more bytes per rank (block x p) is not timed */
    unsigned colls;   /* --colls: bit c for each collective timed (default all) */
    const char *skip; /* --skip: algorithms of ours not timed, "linear,direct" */
} cal_opts;

typedef struct cal_row {
    cs_cal_path path;
    char given[CAL_GIVEN];               /* parameters given (cs_alg.measured, or the built-in model's), or "" */
    double predicted, predicted_default; /* under the fitted model and the built-in one */
    cs_decision d;                       /* --verify: select's decision under the file */
} cal_row;

/* The model's error for one algorithm: |predicted/measured - 1| per timing. */
typedef struct cal_err {
    cs_coll coll;
    const cs_alg *alg;
    int n;
    double once[CAL_ERR_MAX], loop[CAL_ERR_MAX]; /* from a common start; back to back */
} cal_err;

typedef struct cal_state {
    const cal_opts *o;
    cs_config cfg;     /* the fitted model (calibration) or the file (--verify) */
    cs_model defaults; /* the built-in model, for the error before calibration */
    cs_cal_cell cells[CS_COLL_LAST][CAL_MAX_CELLS];
    char given[CS_COLL_LAST][CAL_MAX_CELLS][CAL_GIVEN]; /* each cell's best_given */
    int ncells[CS_COLL_LAST];
    double err_fit[4096], err_default[4096];
    int nerr;
    cs_cal_verify_cell verify[CS_COLL_LAST * CAL_MAX_CELLS]; /* --verify's cells */
    int nverify;
    int cells_planned, cells_done; /* for the progress line */
    double t_cells;                /* when the first cell began */
    cal_err errs[48];
    int nerrs;
} cal_state;

extern int cal_rank, cal_world; /* in MPI_COMM_WORLD */

/* ---- options.c */

/* The argument a usage error is about, for its message. */
extern const char *cal_bad_option, *cal_bad_value, *cal_bad_combination;
void cal_usage(FILE *f);
/* 0, 1 for --help, -1 on a usage error (cal_usage_error says it). */
int cal_parse_opts(int argc, char **argv, cal_opts *o);
/* Say, on rank 0, why cal_parse_opts returned asked (or that the world is too small). */
void cal_usage_error(int asked);
int cal_skipped(const cal_opts *o, const cs_alg *alg);

/* ---- fit_model.c */

/* Fit the model; 0 on success (every rank gets it). */
int cal_fit_model(const cal_opts *o, cs_model *m);

/* model.bands from a ping-pong between world ranks 0 and b (the pair whose line, alpha + o and
 * beta, the model took) at many sizes; none where the line prices them (fit_bands.c). peer:
 * scratch, p entries. 0, or -1 (every rank alike). */
int cal_fit_bands(int b, int *peer, const cal_opts *o, const cs_fit *line, cs_model *m);

/* ---- grid.c */

int cal_comm_sizes(int p, int *q);
/* The cells a run over communicator sizes qs[0..nq) times. */
int cal_cells_planned(const cal_opts *o, const int *qs, int nq);
/* Every collective on the first q ranks of the world. */
int cal_measure_comm(cal_state *st, int q);

/* ---- report.c */

cs_cal_ratio cal_ratio_of(const cs_cal_path *a, const cs_cal_path *b, int start, int reps, double floor);
cs_cal_ratio cal_worse_ratio(const cs_cal_path *a, const cs_cal_path *b, int reps, double floor);
double cal_median_time(const double *t, int reps);
void cal_print_row(const cs_problem *prob, const cal_row *r, const cal_row *native, int reps, const char *mark);
void cal_record_error(cal_state *st, cs_coll coll, const cal_row *r);
void cal_print_errors(cal_state *st);
double cal_median_of(double *v, int n);
void cal_print_summary(cal_state *st);

#endif
