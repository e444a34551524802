/*
 * collshim-calibrate's closing summary and --verify's verdicts (summary.h).
 */
#include <math.h>
#include <string.h>

#include "calibrate/summary.h"

/* "8 B", "16 KiB", "1 MiB": a size as a person reads it (exact, or in bytes). */
static const char *cs_cal_bytes_text(size_t bytes, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0)
        bytes /= 1024, u++;
    snprintf(buf, n, "%zu %s", bytes, unit[u]);
    return buf;
}

static void cs_cal_coll_print(FILE *f, const cs_cal_coll_summary *c)
{
    int by[CS_CHOICE_FORCED + 1] = {0}, ours = 0, best = -1;
    double log_all = 0.0, log_ours = 0.0;
    char forced[160] = "", size[32];
    for (int i = 0; i < c->nrules; i++) {
        const cs_rule *r = &c->rules[i];
        by[r->choice]++;
        if (r->choice == CS_CHOICE_FORCED && !strstr(forced, r->alg->name))
            snprintf(forced + strlen(forced), sizeof forced - strlen(forced), "%s%s", forced[0] ? ", " : "",
                     r->alg->name);
    }
    for (int i = 0; i < c->ncells; i++) {
        const double g = cs_cal_cell_gain(&c->cells[i]);
        log_all += log(g);
        if (g != 1.0) {
            ours++;
            log_ours += log(g);
        }
        if (best < 0 || g < cs_cal_cell_gain(&c->cells[best]))
            best = i;
    }
    fprintf(f, "#   %-9s %d rule%s: %d native, %d auto, %d forced%s%s%s\n", c->name, c->nrules,
            c->nrules == 1 ? "" : "s", by[CS_CHOICE_NATIVE], by[CS_CHOICE_AUTO], by[CS_CHOICE_FORCED],
            forced[0] ? " (" : "", forced, forced[0] ? ")" : "");
    if (c->ncells == 0)
        return;
    fprintf(f, "#   %-9s expected gain: %.2f of the library's time over its %d cells (geometric mean)", "",
            exp(log_all / c->ncells), c->ncells);
    if (ours)
        fprintf(f, "; ours runs in %d, at %.2f there; best %.2f at p = %d, %s\n", ours, exp(log_ours / ours),
                cs_cal_cell_gain(&c->cells[best]), c->cells[best].p,
                cs_cal_bytes_text(c->cells[best].bytes, size, sizeof size));
    else
        fprintf(f, "; the library is kept in every one\n");
}

void cs_cal_summary_print(FILE *f, const cs_cal_summary *s)
{
    fprintf(f, "# summary: %s\n",
            s->fit_only ? "the fitted model, no rules (collshim's model decides every call)"
                        : "rules per collective (measured time over the library's: < 1 is faster)");
    if (s->distance)
        fprintf(f, "#   latency grows with the ranks' distance: model.distance %s, alpha_hop %.3e s per link\n",
                s->distance == CS_DISTANCE_XOR ? "xor" : "difference", s->alpha_hop);
    for (int c = 0; c < s->ncoll && !s->fit_only; c++)
        cs_cal_coll_print(f, &s->coll[c]);
    if (s->beta_core > 0.0)
        fprintf(f, "#   network core: beta_core %.3e s/B (%.2f GB/s), shared by every message between nodes\n",
                s->beta_core, 1e-9 / s->beta_core);
    else
        fprintf(f, "#   network core: none (full bisection, or fewer than four nodes to tell)\n");
    if (s->nerr == 0)
        return;
    fprintf(
        f,
        "#   model error: fitted %.0f%%, built-in %.0f%% (median |predicted/measured - 1| over %d timings of ours)\n",
        100 * s->err_fitted, 100 * s->err_builtin, s->nerr);
    if (!(s->err_fitted > s->err_builtin))
        return;
    fprintf(f,
            "# warning: the fitted model errs more than the built-in one (%.0f%% against %.0f%%).\n"
            "#          %s holds the fitted model%s; without it collshim prices with the built-in model.\n"
            "#          %s\n"
            "#          Calibrate again on an otherwise idle machine (one rank per core), or leave %s unloaded.\n",
            100 * s->err_fitted, 100 * s->err_builtin, s->file, s->fit_only ? "" : " and the measured rules",
            s->fit_only ? "Under it the model decides every call: it may choose worse than the built-in model would."
                        : "The rules were measured and stand; where a rule says auto, or none covers a call, the "
                          "fitted model decides.",
            s->file);
}

void cs_cal_verify_print(FILE *f, const cs_cal_verify_cell *cells, int n)
{
    int count[CS_CAL_NOISY + 1] = {0};
    char size[32];
    for (int i = 0; i < n; i++)
        count[cells[i].verdict]++;
    fprintf(
        f,
        "# verify: %d cells, %d slower than native beyond the noise; %d faster, %d as fast, %d inconclusive (noisy)\n",
        n, count[CS_CAL_SLOWER], count[CS_CAL_FASTER], count[CS_CAL_AS_FAST], count[CS_CAL_NOISY]);
    for (int i = 0; i < n; i++) {
        const cs_cal_verify_cell *c = &cells[i];
        if (c->verdict == CS_CAL_SLOWER || c->verdict == CS_CAL_NOISY)
            fprintf(f, "#   %s: %s at p = %d, %s: %s: %.2f ± %.2f of the library's time\n",
                    c->verdict == CS_CAL_SLOWER ? "slower" : "inconclusive", c->coll, c->p,
                    cs_cal_bytes_text(c->bytes, size, sizeof size), c->what, c->ratio.median, c->ratio.noise);
    }
    if (count[CS_CAL_NOISY])
        fprintf(f, "#   inconclusive: the spread covers 1; time again with more --reps on a quiet machine\n");
}
