/*
 * collshim-calibrate's report: ratios of paired timings, a row of the grid, and the model's
 * error per algorithm (tool.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calibrate/tool.h"

/* The ratios t_a / t_b of two paths' paired repetitions, back to back or from a common start. */
cs_cal_ratio cal_ratio_of(const cs_cal_path *a, const cs_cal_path *b, int start, int reps, double floor)
{
    return start ? cs_cal_ratio_paired(a->t_start, b->t_start, reps, floor)
                 : cs_cal_ratio_paired(a->t, b->t, reps, floor);
}

/* What the decisions use (derive.h): on a real node at p = 16, small reduce was ruled faster
 * from timings like the common start's and measured 1.28-1.73x slower in a back-to-back loop. */
cs_cal_ratio cal_worse_ratio(const cs_cal_path *a, const cs_cal_path *b, int reps, double floor)
{
    return cs_cal_ratio_worse(a->t, b->t, a->t_start, b->t_start, reps, floor);
}

double cal_median_time(const double *t, int reps)
{
    double v[CS_CAL_MAX_REPS];
    memcpy(v, t, sizeof(double) * (size_t)reps);
    return cs_cal_quantile(v, reps, 0.5);
}

void cal_print_row(const cs_problem *prob, const cal_row *r, const cal_row *native, int reps, const char *mark)
{
    char spec[128];
    if (r->path.alg)
        cs_alg_spec(r->path.alg, &r->path.params, spec, sizeof spec);
    else
        strcpy(spec, "native");
    const double med = cal_median_time(r->path.t, reps), start = cal_median_time(r->path.t_start, reps);
    const cs_cal_ratio loop = cal_ratio_of(&r->path, &native->path, 0, reps, 0.0);
    const cs_cal_ratio once = cal_ratio_of(&r->path, &native->path, 1, reps, 0.0);
    printf("%-9s %5d %8zu  %-22s %10.3e  %6.3f ±%5.3f  %10.3e  %6.3f ±%5.3f", cs_coll_name(prob->coll), prob->p,
           prob->bytes, spec, med, loop.median, loop.noise, start, once.median, once.noise);
    if (r->path.alg && r->path.alg->cost && r->predicted >= 0)
        printf("  %10.3e %7.3f", r->predicted, r->predicted / start);
    else
        printf("  %10s %7s", "-", "-");
    printf("  %s\n", mark);
}

/* |predicted/measured - 1| of one timing of ours, per collective and algorithm. */
void cal_record_error(cal_state *st, cs_coll coll, const cal_row *r)
{
    const int reps = st->o->reps;
    if (!r->path.alg || !r->path.alg->cost || !(r->predicted >= 0))
        return;
    int i = 0;
    while (i < st->nerrs && (st->errs[i].coll != coll || st->errs[i].alg != r->path.alg))
        i++;
    if (i == NELEMS(st->errs))
        return;
    cal_err *e = &st->errs[i];
    if (i == st->nerrs) {
        st->nerrs++;
        *e = (cal_err){.coll = coll, .alg = r->path.alg};
    }
    if (e->n == CAL_ERR_MAX)
        return;
    e->once[e->n] = fabs(r->predicted / cal_median_time(r->path.t_start, reps) - 1.0);
    e->loop[e->n++] = fabs(r->predicted / cal_median_time(r->path.t, reps) - 1.0);
}

/* The model's error per algorithm: median and worst over its timings, both ways. */
void cal_print_errors(cal_state *st)
{
    printf("# model error per algorithm, |predicted/measured - 1|: median, worst over its cells; from a common start "
           "(what the model prices) | back to back\n");
    for (int i = 0; i < st->nerrs; i++) {
        cal_err *e = &st->errs[i];
        const double once = cs_cal_quantile(e->once, e->n, 0.5), once_max = cs_cal_quantile(e->once, e->n, 1.0);
        const double loop = cs_cal_quantile(e->loop, e->n, 0.5), loop_max = cs_cal_quantile(e->loop, e->n, 1.0);
        printf("# model error %-9s %-12s %3d cells: median %6.1f%% worst %7.1f%% | median %6.1f%% worst %7.1f%%\n",
               cs_coll_name(e->coll), e->alg->name, e->n, 100 * once, 100 * once_max, 100 * loop, 100 * loop_max);
    }
}

double cal_median_of(double *v, int n)
{
    return n ? cs_cal_quantile(v, n, 0.5) : NAN;
}

/* The closing summary (summary.h): rules per collective, the expected gain, the model's error. */
void cal_print_summary(cal_state *st)
{
    cs_cal_summary s = {.ncoll = 0,
                        .nerr = st->nerr,
                        .file = st->o->out,
                        .fit_only = st->o->fit,
                        .distance = st->cfg.model.distance,
                        .alpha_hop = st->cfg.model.alpha_hop,
                        .beta_core = st->cfg.model.beta_core};
    for (int c = 0; c < CS_COLL_LAST; c++)
        if (st->o->colls & (1u << c))
            s.coll[s.ncoll++] = (cs_cal_coll_summary){cs_coll_name((cs_coll)c), st->cfg.coll[c].rules,
                                                      st->cfg.coll[c].nrules, st->cells[c], st->ncells[c]};
    if (st->nerr > 0) {
        s.err_fitted = cal_median_of(st->err_fit, st->nerr);
        s.err_builtin = cal_median_of(st->err_default, st->nerr);
    }
    cs_cal_summary_print(stdout, &s);
    if (s.nerr > 0 && s.err_fitted > s.err_builtin) /* where a log of stdout alone would hide it */
        fprintf(stderr,
                "collshim-calibrate: warning: the fitted model errs more than the built-in one (%.0f%% against "
                "%.0f%%): see the summary\n",
                100 * s.err_fitted, 100 * s.err_builtin);
}
