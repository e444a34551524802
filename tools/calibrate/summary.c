/*
 * collshim-calibrate's closing summary and --verify's verdicts (summary.h).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* "12.3 µs", "1.52 ms", "2.10 s": seconds as a person reads them, three digits. */
static const char *cs_cal_seconds_text(double t, char *buf, size_t n)
{
    if (t < 1e-3)
        snprintf(buf, n, "%.3g µs", t * 1e6);
    else if (t < 1.0)
        snprintf(buf, n, "%.3g ms", t * 1e3);
    else
        snprintf(buf, n, "%.3g s", t);
    return buf;
}

void cs_cal_verify_print(FILE *f, const cs_cal_verify_cell *cells, int n, const char *file, const char *fixed,
                         const int *set)
{
    int count[CS_CAL_NOISY + 1] = {0}, nset = 0, nforced = 0;
    char size[32], t[32], t_native[32];
    for (int i = 0; i < n; i++) {
        count[cells[i].verdict]++;
        if (cells[i].verdict == CS_CAL_SLOWER && set && set[i])
            nset++;
        nforced += cells[i].verdict == CS_CAL_SLOWER && cells[i].forced;
    }
    fprintf(
        f,
        "# verify: %d cells, %d slower than native beyond the noise; %d faster, %d as fast, %d inconclusive (noisy)\n",
        n, count[CS_CAL_SLOWER], count[CS_CAL_FASTER], count[CS_CAL_AS_FAST], count[CS_CAL_NOISY]);
    for (int i = 0; i < n; i++) { /* the slower first, then the inconclusive */
        const cs_cal_verify_cell *c = &cells[i];
        if (c->verdict == CS_CAL_SLOWER)
            fprintf(f, "#   slower: %s at p = %d, %s: %s: %s against the library's %s, %.2f ± %.2f (%s)%s%s%s\n",
                    c->coll, c->p, cs_cal_bytes_text(c->bytes, size, sizeof size), c->what,
                    cs_cal_seconds_text(c->t, t, sizeof t), cs_cal_seconds_text(c->t_native, t_native, sizeof t_native),
                    c->ratio.median, c->ratio.noise, c->start ? "from a common start" : "back to back",
                    c->forced       ? ": forced by "
                    : set && set[i] ? ": set native"
                    : set           ? ": left (the rules are full)"
                                    : "",
                    c->forced ? c->coll : "", c->forced ? ".algorithm, before every rule: not set" : "");
    }
    for (int i = 0; i < n; i++) {
        const cs_cal_verify_cell *c = &cells[i];
        if (c->verdict == CS_CAL_NOISY)
            fprintf(f, "#   inconclusive: %s at p = %d, %s: %s: %.2f ± %.2f of the library's time\n", c->coll, c->p,
                    cs_cal_bytes_text(c->bytes, size, sizeof size), c->what, c->ratio.median, c->ratio.noise);
    }
    if (count[CS_CAL_NOISY])
        fprintf(f, "#   inconclusive: the spread covers 1; time again with more --reps on a quiet machine\n");
    if (fixed && count[CS_CAL_SLOWER] == 0)
        fprintf(f, "# wrote %s: %s as it was (no cell slower)\n", fixed, file);
    else if (fixed && nset == count[CS_CAL_SLOWER])
        fprintf(f, "# wrote %s: %s with its %d slower cell%s native, every other rule as it was\n", fixed, file, nset,
                nset == 1 ? "" : "s");
    else if (fixed)
        fprintf(f, "# wrote %s: %s with %d of its %d slower cells native, every other rule as it was\n", fixed, file,
                nset, count[CS_CAL_SLOWER]);
    else if (count[CS_CAL_SLOWER] > nforced)
        fprintf(f,
                "#   what to do: rerun with -o FIXED (collshim-calibrate --verify %s -o FIXED) to write a copy of %s "
                "with %s slower cell%s native (the library there);\n"
                "#   or calibrate again with more repetitions (--reps 21, not --quick) on an otherwise idle machine, "
                "one rank per core\n",
                file, file, count[CS_CAL_SLOWER] - nforced == 1 ? "the" : "these",
                count[CS_CAL_SLOWER] - nforced == 1 ? "" : "s");
    if (nforced)
        fprintf(f,
                "#   %d slower cell%s forced by an algorithm key of %s, which comes before every rule: set it to "
                "auto to let rules decide\n",
                nforced, nforced == 1 ? "" : "s", file);
}

/* The sizes cell i of cells[0..n) stands for: from halfway (geometric mean) to the size measured before it at its
 * collective and p to halfway to the next; from 0 for the first, with no end for the last. */
static cs_range cs_cal_cell_sizes(const cs_cal_verify_cell *cells, int n, int i)
{
    size_t below = 0, above = SIZE_MAX;
    const cs_cal_verify_cell *c = &cells[i];
    for (int k = 0; k < n; k++) {
        if (cells[k].coll_id != c->coll_id || cells[k].p != c->p)
            continue;
        if (cells[k].bytes < c->bytes && cells[k].bytes > below)
            below = cells[k].bytes;
        if (cells[k].bytes > c->bytes && cells[k].bytes < above)
            above = cells[k].bytes;
    }
    cs_range r = {0, SIZE_MAX};
    if (below > 0)
        r.lo = (size_t)floor(sqrt((double)below * (double)c->bytes)) + 1;
    if (above < SIZE_MAX)
        r.hi = (size_t)floor(sqrt((double)c->bytes * (double)above));
    return r;
}

static cs_rule cs_cal_native_rule(int p_lo, int p_hi, cs_range bytes)
{
    cs_rule r = {.p_lo = p_lo, .p_hi = p_hi, .bytes = bytes, .choice = CS_CHOICE_NATIVE};
    cs_params_init(&r.params);
    return r;
}

/* The native rules for the slower cells of coll that rule (index + 1; 0: none) decided, within within, sorted by p
 * and size, neighbouring sizes of one p as one: into out[0..), how many; mark: the cells, for set. */
static int cs_cal_fix_pieces(const cs_cal_verify_cell *cells, int n, cs_coll coll, int rule, cs_range within,
                             cs_rule *out, int *mark)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cs_cal_verify_cell *c = &cells[i];
        mark[i] = c->verdict == CS_CAL_SLOWER && !c->forced && c->coll_id == coll && c->rule == rule;
        if (!mark[i])
            continue;
        cs_range r = cs_cal_cell_sizes(cells, n, i);
        r.lo = r.lo > within.lo ? r.lo : within.lo;
        r.hi = r.hi < within.hi ? r.hi : within.hi;
        int k = m++;
        for (; k > 0 && (out[k - 1].p_lo > c->p || (out[k - 1].p_lo == c->p && out[k - 1].bytes.lo > r.lo)); k--)
            out[k] = out[k - 1];
        out[k] = cs_cal_native_rule(c->p, c->p, r);
    }
    int merged = 0;
    for (int k = 0; k < m; k++) {
        cs_rule *last = merged ? &out[merged - 1] : NULL;
        if (last && last->p_lo == out[k].p_lo && last->bytes.hi != SIZE_MAX && last->bytes.hi + 1 >= out[k].bytes.lo)
            last->bytes.hi = out[k].bytes.hi > last->bytes.hi ? out[k].bytes.hi : last->bytes.hi;
        else
            out[merged++] = out[k];
    }
    return merged;
}

int cs_cal_verify_fix(cs_config *cfg, const cs_cal_verify_cell *cells, int n, int *set)
{
    int nset = 0, *mark = calloc((size_t)n + 1, sizeof *mark);
    cs_rule *pieces = calloc((size_t)n + 1, sizeof *pieces);
    for (int i = 0; i < n; i++)
        set[i] = 0;
    if (!mark || !pieces) {
        free(mark);
        free(pieces);
        return 0;
    }
    for (int coll = 0; coll < CS_COLL_LAST; coll++) {
        cs_coll_config *cc = &cfg->coll[coll];
        cs_rule out[CS_MAX_RULES];
        int nout = 0;
        /* rule i's cells before it; a collective without rules: the model's cells (rule 0), then auto for the rest */
        for (int i = cc->nrules ? 0 : -1; i < cc->nrules; i++) {
            const cs_range every = {0, SIZE_MAX};
            const cs_rule *r = i >= 0 ? &cc->rules[i] : NULL;
            const int m = cs_cal_fix_pieces(cells, n, (cs_coll)coll, i + 1, r ? r->bytes : every, pieces, mark);
            const int whole = r && m == 1 && r->p_lo == r->p_hi && pieces[0].p_lo == r->p_lo &&
                              pieces[0].bytes.lo == r->bytes.lo && pieces[0].bytes.hi == r->bytes.hi;
            const int need = whole ? 1 : m + 1; /* the pieces, and the rule (or auto) after them */
            if (m == 0 || nout + need + (cc->nrules - 1 - i) > CS_MAX_RULES) {
                if (r)
                    out[nout++] = *r;
                continue;
            }
            if (whole) { /* the rule itself, native */
                out[nout] = cs_cal_native_rule(r->p_lo, r->p_hi, r->bytes);
                out[nout++].line = r->line;
            } else {
                memcpy(&out[nout], pieces, sizeof *pieces * (size_t)m);
                nout += m;
                if (r) {
                    out[nout++] = *r;
                } else { /* every other call to the model, as without rules */
                    out[nout] = cs_cal_native_rule(1, INT_MAX, every);
                    out[nout++].choice = CS_CHOICE_AUTO;
                }
            }
            for (int k = 0; k < n; k++)
                if (mark[k] && !set[k])
                    set[k] = 1, nset++;
        }
        memcpy(cc->rules, out, sizeof *out * (size_t)nout);
        cc->nrules = nout;
    }
    free(mark);
    free(pieces);
    return nset;
}
