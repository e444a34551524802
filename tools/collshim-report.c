/*
 * collshim-report: what the decision logs of one or many ranks say, condensed.
 *
 * usage: collshim-report [--svg FILE] [--cores N] LOG...     (LOG "-": standard input; options anywhere)
 *
 * Reads the JSON call lines of logs written at COLLSHIM_LOG_LEVEL=calls (src/log/log.c; rank 0's
 * summary, as a table or a JSON record, and other text in them are skipped) and prints, per
 * collective and communicator size p (logs mix communicators), one line per size bin x
 * algorithm: the calls, their total and median time, the median prediction and its ratio to the
 * median measured time, and why the calls ran it (the class of the log's reasons:
 * tools/report/why.h). Each rank's first call of a collective, p, size bin and algorithm is left
 * out as set-up where the rank made more than one there (tools/report/table.h). Bins are powers
 * of two, [2^k, 2^(k+1)) bytes. Reduce's root is reported apart from its other ranks. The
 * algorithm chosen in a bin is the one collshim's selection ran most often there (forced calls,
 * experiments, count only where all were: tools/report/table.h); a "faster:" line follows each
 * bin where another algorithm measured a lower median, and a "far off:" line each row whose
 * prediction is 3x or more from its median, in words: "set-up?" where the row holds one call a
 * rank, "oversubscribed?" only where its ranks on one node (from the log's p, nodes and share)
 * exceed the cores of a node (this machine's, or --cores N). Window lines of
 * the extension API are reported the same way, per window n as well.
 *
 * --svg FILE draws, for each collective and p, the median time against message size per
 * algorithm on log-log axes, with the model's predictions dashed and the chosen algorithm's
 * points ringed and joined, each with the letter of why it ran (tools/report/svg.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cs_tool.h"
#include "report/logline.h"
#include "report/svg.h"
#include "report/table.h"

typedef struct cs_counts {
    size_t files, calls, windows, other, bad;
    size_t whys[CS_WHY_LAST]; /* the calls per reason class */
    int roles;                /* some reduce lines name their rank and root */
    /* The notes printed: "faster:", "far off:" each way, and those put down to set-up and to
     * more ranks than cores. */
    int faster, far_faster, far_slower, setup, oversubscribed;
    int cores_given; /* --cores N, not this machine's count */
} cs_counts;

/* The widths of the variable columns. */
typedef struct cs_widths {
    int alg, why;
} cs_widths;

static const char *const cs_prog = "collshim-report";

static void cs_usage(FILE *f)
{
    fprintf(f, "usage: collshim-report [--svg FILE] [--cores N] LOG...\n"
               "What collshim's logs (COLLSHIM_LOG_LEVEL=calls; one per rank, or several runs) say, per\n"
               "collective, p, size bin and algorithm: the calls, their median times, the model's\n"
               "prediction and why the calls ran what they ran; reduce's root apart from the other ranks;\n"
               "\"faster:\" where another algorithm measured faster than the one chosen, \"far off:\" where\n"
               "the model's prediction is 3x or more from the measured time. Each rank's first call of a\n"
               "collective, p, size bin and algorithm is left out as set-up where it made more there.\n"
               "Options may come anywhere; -- ends them.\n"
               "\n"
               "  LOG          a log file; - reads standard input\n"
               "  --svg FILE   also plot median time against message size, one panel per collective and p\n"
               "  --cores N    the cores of one of the logs' nodes (default: this machine's), for\n"
               "               \"oversubscribed?\": said only where a node had more ranks than cores\n"
               "  -h, --help   this text\n" CS_TOOL_EXIT_STATUS);
}

/* ---- reading ---------------------------------------------------------------- */

/* Every call line of one log into t. 0, or -1 (reported) if the file cannot be read. */
static int cs_read_log(const char *path, cs_table *t, cs_counts *n)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    char *line = NULL, why[128];
    size_t cap = 0, lineno = 0;
    cs_logline l;
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", cs_prog, path, strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        switch (cs_logline_parse(line, &l, why, sizeof why)) {
        case CS_LINE_OTHER: n->other++; break;
        case CS_LINE_BAD:
            fprintf(stderr, "%s: %s:%zu: %s; line skipped\n", cs_prog, path, lineno, why);
            n->bad++;
            break;
        case CS_LINE_CALL:
            if (cs_table_add(t, &l, (int)n->files) != 0) {
                fprintf(stderr, "%s: out of memory\n", cs_prog);
                exit(1);
            }
            n->calls++;
            n->windows += !strncmp(l.coll, "window", 6);
            n->whys[l.why]++;
            n->roles |= !strcmp(l.coll, "reduce") && l.rank >= 0 && l.root >= 0;
            break;
        }
    }
    free(line);
    const int err = ferror(f);
    if (err)
        fprintf(stderr, "%s: %s: %s\n", cs_prog, path, strerror(errno));
    if (f != stdin)
        fclose(f);
    n->files++;
    return err ? -1 : 0;
}

/* ---- the text --------------------------------------------------------------- */

static void cs_print_header(const cs_table *t, const cs_counts *n)
{
    printf("# collshim-report: %zu calls from %zu log%s (%zu of them window lines); %zu other lines skipped,"
           " %zu bad\n",
           n->calls, n->files, n->files == 1 ? "" : "s", n->windows, n->other, n->bad);
    printf("# bins: [2^k, 2^(k+1)) bytes as logged (alltoall: the block for one destination)\n"
           "# calls: log lines, one per logging rank per call; times in seconds, medians over the lines\n"
           "# set-up left out: %zu call%s, each rank's first of a collective, p, bin and algorithm where it\n"
           "#    made more there (a row of one call a rank keeps it: \"set-up?\" where far off)\n"
           "# pred/meas: median predicted / median measured; - where the model prices nothing (native)\n"
           "# *: the algorithm chosen in the bin: the one collshim's selection ran most often (calls forced\n"
           "#    by the environment or the configuration count only in a bin where every call was forced)\n",
           t->nsetup, t->nsetup == 1 ? "" : "s");
    printf("# cores: %d a node (%s)\n"
           "#    \"oversubscribed?\" only where a row's ranks on one node (ceil(p / nodes) x share, from the\n"
           "#    log; p where it has no nodes) exceed them\n",
           t->cores, n->cores_given ? "--cores" : "this machine's; --cores N: the logs' machine's");
    if (n->roles)
        printf("# reduce: the root apart from the other ranks (the root waits for the whole reduction)\n");
    printf("# why: what decided the calls, from the log's reasons (calls per class where they differ):\n");
    for (int w = 0; w < CS_WHY_LAST; w++)
        if (n->whys[w])
            printf("#   %-12s %s\n", cs_why_word((cs_why)w), cs_why_meaning((cs_why)w));
}

/* "window n=4 p=8", "allreduce p=8" or "reduce p=8 at the root" */
static void cs_group_name(const cs_table *t, const cs_row *r, char *buf, size_t size)
{
    char n[24] = "";
    if (r->n)
        snprintf(n, sizeof n, " n=%d", r->n);
    snprintf(buf, size, "%s%s p=%d%s%s", cs_table_name(t, r->coll), n, r->p, r->role ? " " : "",
             cs_role_words(r->role));
}

static void cs_print_row(const cs_table *t, const cs_row *r, const cs_widths *w)
{
    char bin[32], pred[16] = "-", ratio[16] = "-", more[24] = "", why[160];
    cs_bin_label(r->bin, bin, sizeof bin);
    if (r->predicted >= 0) {
        snprintf(pred, sizeof pred, "%.3e", r->predicted);
        snprintf(ratio, sizeof ratio, "%.3g", r->median > 0 ? r->predicted / r->median : 0.0);
    }
    if (r->nspecs > 1)
        snprintf(more, sizeof more, " (+%d other%s)", r->nspecs - 1, r->nspecs > 2 ? "s" : "");
    cs_why_label(r->whys, why, sizeof why);
    printf("%-11s %c %-*s %7zu %10.3e %10.3e %10s %9s  %-*s  %s%s\n", bin, r->chosen ? '*' : ' ', w->alg,
           cs_table_name(t, r->alg), r->calls, r->total, r->median, pred, ratio, w->why, why, cs_table_name(t, r->spec),
           more);
}

/* The "faster:" lines of a cell rows[0..n), the chosen row first. */
static void cs_print_faster(const cs_table *t, const cs_row *rows, size_t n, cs_counts *counts)
{
    const cs_row *c = &rows[0];
    char group[96], bin[32];
    cs_group_name(t, c, group, sizeof group);
    cs_bin_label(c->bin, bin, sizeof bin);
    for (size_t i = 1; i < n; i++) {
        if (!(rows[i].median < c->median))
            continue;
        printf("faster: %s %s: %s %.3e s is %.2fx the chosen %s's %.3e s (medians of %zu and %zu calls)\n", group, bin,
               cs_table_name(t, rows[i].alg), rows[i].median, rows[i].median / c->median, cs_table_name(t, c->alg),
               c->median, rows[i].calls, c->calls);
        counts->faster++;
    }
}

/* The "far off:" lines of a cell rows[0..n): the rows whose prediction is CS_FAR_OFF times from
 * their median or more, either way. */
static void cs_print_far_off(const cs_table *t, const cs_row *rows, size_t n, cs_counts *counts)
{
    char group[96], bin[32], words[128];
    cs_group_name(t, rows, group, sizeof group);
    cs_bin_label(rows->bin, bin, sizeof bin);
    for (size_t i = 0; i < n; i++) {
        double factor;
        const int dir = cs_far_off(rows[i].predicted, rows[i].median, &factor);
        if (!dir)
            continue;
        const cs_far_cause cause = cs_row_far_cause(t, &rows[i], dir);
        cs_far_off_words(dir, factor, cause, rows[i].node_ranks, t->cores, words, sizeof words);
        printf("far off: %s %s: %s: %s\n", group, bin, cs_table_name(t, rows[i].alg), words);
        counts->far_faster += dir < 0;
        counts->far_slower += dir > 0;
        counts->setup += cause == CS_FAR_SETUP;
        counts->oversubscribed += cause == CS_FAR_OVERSUBSCRIBED;
    }
}

/* One group (collective, n, p, role): rows[0..n). */
static void cs_print_group(const cs_table *t, const cs_row *rows, size_t n, const cs_widths *w, cs_counts *counts)
{
    char group[96], setup[48] = "";
    size_t calls = 0, first = cs_table_setup_in_group(t, rows);
    for (size_t i = 0; i < n; i++)
        calls += rows[i].calls;
    if (first)
        snprintf(setup, sizeof setup, " (and %zu set-up call%s left out)", first, first == 1 ? "" : "s");
    cs_group_name(t, rows, group, sizeof group);
    printf("\n== %s: %zu call%s%s\n", group, calls, calls == 1 ? "" : "s", setup);
    printf("%-11s   %-*s %7s %10s %10s %10s %9s  %-*s  %s\n", "bytes", w->alg, "alg", "calls", "total_s", "median_s",
           "pred_s", "pred/meas", w->why, "why", "spec (most calls)");
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && cs_row_same_cell(&rows[i], &rows[j]); j++)
            cs_print_row(t, &rows[j], w);
        cs_print_faster(t, rows + i, j - i, counts);
        cs_print_far_off(t, rows + i, j - i, counts);
    }
}

/* The reasons of class other, each with its calls, in the order met. */
static void cs_print_other_reasons(const cs_table *t)
{
    size_t *calls = calloc((size_t)t->nnames + 1, sizeof *calls);
    if (!calls)
        return;
    for (size_t i = 0; i < t->ncalls; i++)
        calls[t->calls[i].reason + 1]++; /* [0]: the calls of a known class */
    for (size_t i = 0; i < t->nsetup; i++)
        calls[t->setup[i].reason + 1]++;
    printf("# reasons of class other (not known to this report):\n");
    for (int i = 0; i < t->nnames; i++) {
        const char *reason = cs_table_name(t, i), *s = calls[i + 1] == 1 ? "" : "s";
        if (calls[i + 1] && *reason)
            printf("#   %zu call%s: \"%s\"\n", calls[i + 1], s, reason);
        else if (calls[i + 1])
            printf("#   %zu call%s: none (the line has no \"reason\")\n", calls[i + 1], s);
    }
    free(calls);
}

static void cs_print_notes(const cs_table *t, const cs_counts *n)
{
    const int far = n->far_faster + n->far_slower;
    if (n->faster)
        printf("\n# %d bin%s where another algorithm measured faster than the chosen one\n", n->faster,
               n->faster == 1 ? "" : "s");
    else
        printf("\n# no bin where another algorithm measured faster than the chosen one\n");
    if (far) {
        printf("# %d row%s where the model is far off (%gx or more either way): %d predicted faster, %d slower\n", far,
               far == 1 ? "" : "s", CS_FAR_OFF, n->far_faster, n->far_slower);
        if (n->setup)
            printf("#   %d of one call a rank, predicted faster: set-up? (the first call of a size pays it)\n",
                   n->setup);
        if (n->oversubscribed)
            printf("#   %d predicted faster on a node with more ranks than its %d cores: oversubscribed?\n",
                   n->oversubscribed, t->cores);
        if (far > n->setup + n->oversubscribed)
            printf("#   is the model this machine's? collshim-calibrate measures it\n");
    }
    if (n->whys[CS_WHY_OTHER])
        cs_print_other_reasons(t);
}

static void cs_print_report(const cs_table *t, cs_counts *counts)
{
    cs_widths w = {3, 3};
    for (size_t i = 0; i < t->nrows; i++) {
        char why[160];
        const int a = (int)strlen(cs_table_name(t, t->rows[i].alg));
        cs_why_label(t->rows[i].whys, why, sizeof why);
        w.alg = a > w.alg ? a : w.alg;
        w.why = (int)strlen(why) > w.why ? (int)strlen(why) : w.why;
    }
    cs_print_header(t, counts);
    for (size_t i = 0, j; i < t->nrows; i = j) {
        for (j = i + 1; j < t->nrows && cs_row_same_group(&t->rows[i], &t->rows[j]); j++)
            ;
        cs_print_group(t, t->rows + i, j - i, &w, counts);
    }
    cs_print_notes(t, counts);
}

/* ---- main ------------------------------------------------------------------- */

/* The options, anywhere among the logs (getopt_long moves the logs to the end; "--" ends the
 * options): *svg, *cores (left as it was without --cores) and the index of the first log. 0, 1
 * (help), or the exit status of an error already reported. */
static int cs_parse_args(int argc, char **argv, const char **svg, int *cores, int *first)
{
    static const struct option longs[] = {
        {"svg", required_argument, 0, 's'}, {"cores", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0}};
    int opt;
    char *end;
    long v;
    opterr = 0; /* its messages name argv[0]; ours name the tool */
    while ((opt = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
        switch (opt) {
        case 's': *svg = optarg; break;
        case 'c':
            v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > 1 << 20)
                return cs_tool_usage_error(cs_prog, "--cores: '%s' is not a count of cores", optarg);
            *cores = (int)v;
            break;
        case 'h': return 1;
        case ':': return cs_tool_usage_error(cs_prog, "%s needs a value", argv[optind - 1]);
        default:
            if (optopt && strncmp(argv[optind - 1], "--", 2))
                return cs_tool_usage_error(cs_prog, "unknown option '-%c'", optopt);
            return cs_tool_usage_error(cs_prog, "unknown option '%s'", argv[optind - 1]);
        }
    }
    *first = optind;
    return optind < argc ? 0 : cs_tool_usage_error(cs_prog, "no LOG given");
}

int main(int argc, char **argv)
{
    const char *svg = NULL;
    cs_table t = {0};
    cs_counts counts = {0};
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = 0, first = 0, rc = cs_parse_args(argc, argv, &svg, &cores, &first);
    counts.cores_given = cores > 0;
    t.cores = cores > 0 ? cores : online > 0 ? (int)online : 0;
    if (rc == 1)
        cs_usage(stdout);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    for (int i = first; i < argc; i++)
        rc |= cs_read_log(argv[i], &t, &counts);
    if (rc == 0 && !counts.calls) {
        fprintf(stderr,
                "%s: no call lines (a log at COLLSHIM_LOG_LEVEL=summary has only rank 0's "
                "summary; use calls)\n",
                cs_prog);
        rc = -1;
    }
    if (rc == 0 && cs_table_finish(&t) != 0) {
        fprintf(stderr, "%s: out of memory\n", cs_prog);
        rc = -1;
    }
    if (rc == 0) {
        cs_print_report(&t, &counts);
        rc = svg ? cs_svg_write(&t, svg) : 0;
    }
    cs_table_free(&t);
    return rc ? 1 : 0;
}
