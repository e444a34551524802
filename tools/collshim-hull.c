/*
 * collshim-hull: Bokhari's hull of optimality for alltoall on p = 2^d, from
 * the command line's model or a configuration file's (whose alltoall.hull
 * faces, if it gives some for this p, are printed instead).
 *
 * usage: collshim-hull -d D [--config FILE] [--alpha S] [--beta S] [--rho S] [--svg FILE]
 *        collshim-hull -p P [--config FILE] [--alpha S] [--beta S] [--rho S]
 *
 * One line per face, in order of increasing block size: the partition, the
 * block sizes (bytes, inclusive; "inf": no bound) where it is chosen, and its
 * predicted time at both ends. --svg also draws every partition's cost line
 * with the hull over it, like the paper's Fig. 1. -p P prints the hull of
 * any p over the factorisations of p instead (the mixed-radix multiphase
 * exchange, src/model/factor.h): the faces the model chooses, "4x4x6".
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "cs_tool.h"
#include "model/factor.h"

typedef struct cs_hull_opts {
    int d, p;
    cs_model model;
    const cs_hull_given *given; /* the configuration's faces for this d, or NULL */
    const char *svg;
} cs_hull_opts;

static const char *const cs_prog = "collshim-hull";

static void cs_usage(FILE *f)
{
    fprintf(f,
            "usage: collshim-hull -d D [--config FILE] [--alpha S] [--beta S] [--rho S] [--svg FILE]\n"
            "       collshim-hull -p P [--config FILE] [--alpha S] [--beta S] [--rho S]\n"
            "Bokhari's hull of optimality for alltoall: one line per face, the partition (or the\n"
            "factorisation), the block sizes where the model chooses it, its time at both ends.\n"
            "\n"
            "  -d D           p = 2^D, D from 0 to %d: the partitions of D (the configuration's\n"
            "                 alltoall.hull faces for this p, if it gives some)\n"
            "  -p P           any p >= 1: the factorisations of p of the mixed-radix exchange (4x4x6)\n"
            "  --config FILE  the model of a collshim configuration (default: the built-in model)\n"
            "  --alpha S      seconds per message, over the file's\n"
            "  --beta S       seconds per byte sent\n"
            "  --rho S        seconds per byte copied\n"
            "  --svg FILE     with -d: draw every partition's cost line and the hull (as Bokhari's Fig. 1)\n"
            "  -h, --help     this text\n" CS_TOOL_EXIT_STATUS,
            CS_HULL_MAX_D);
}

static int cs_number(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return *s && !*end && isfinite(*out) && *out >= 0 ? 0 : -1;
}

/* ---- the text --------------------------------------------------------------- */

/* One face: its label, where it starts (first whole size, vertex), where the
 * next starts (last: none), its line. A face whose vertices lie between the
 * same two whole sizes is shown with its real range: no block size chooses it. */
typedef struct cs_face_row {
    const char *label;
    size_t first, next_first;
    double from, next_from, intercept, slope;
    int last;
} cs_face_row;

static void cs_print_row(const cs_face_row *f)
{
    char lo[32], hi[32], thi[32];
    const int whole = f->last || f->next_first > f->first;
    const double m0 = whole ? (double)f->first : f->from;
    const double m1 = f->last ? INFINITY : whole ? (double)(f->next_first - 1) : f->next_from;
    snprintf(lo, sizeof lo, whole ? "%.0f" : "%.4f", m0);
    snprintf(hi, sizeof hi, f->last ? "inf" : whole ? "%.0f" : "%.4f", m1);
    snprintf(thi, sizeof thi, f->last ? "inf" : "%.6e", f->intercept + f->slope * m1);
    printf("%-16s %12s %12s %14.6e %14s%s\n", f->label, lo, hi, f->intercept + f->slope * m0, thi,
           whole ? "" : "  (between two whole sizes)");
}

static void cs_print_face(const cs_hull *h, int i)
{
    const cs_hull_face *f = &h->face[i];
    char parts[128];
    const int last = i + 1 == h->nfaces;
    cs_parts_format(f->parts, f->nparts, parts, sizeof parts);
    if (h->d == 0)
        snprintf(parts, sizeof parts, "-");
    cs_print_row(&(cs_face_row){parts, f->first, last ? 0 : h->face[i + 1].first, f->from,
                                last ? 0 : h->face[i + 1].from, f->intercept, f->slope, last});
}

/* -p P: the hull over the factorisations of any p (model/factor.h). */
static int cs_print_factor_hull(const cs_model *model, int p)
{
    static cs_factor_hull h;
    if (cs_factor_hull_compute(model, p, &h) != 0) {
        fprintf(stderr, "%s: p = %d has too many divisors\n", cs_prog, p);
        return 1;
    }
    printf("# p=%d alpha=%g beta=%g rho=%g: the model's hull over the factorisations of p, %d faces\n", p, model->alpha,
           model->beta, model->rho, h.nfaces);
    printf("# %-14s %12s %12s %14s %14s\n", "factors", "from_bytes", "to_bytes", "t_from_s", "t_to_s");
    for (int i = 0; i < h.nfaces; i++) {
        const cs_factor_face *f = &h.face[i];
        char factors[160];
        const int last = i + 1 == h.nfaces;
        if (f->n == 1)
            snprintf(factors, sizeof factors, "%d", f->factors[0]);
        else
            cs_factors_format(f->factors, f->n, factors, sizeof factors);
        if (f->n == 0)
            snprintf(factors, sizeof factors, "-");
        cs_print_row(&(cs_face_row){factors, f->first, last ? 0 : h.face[i + 1].first, f->from,
                                    last ? 0 : h.face[i + 1].from, cs_part_line_cost(model, &f->line, 0),
                                    cs_part_line_cost(model, &f->line, 1) - cs_part_line_cost(model, &f->line, 0),
                                    last});
    }
    return 0;
}

static void cs_print_hull(const cs_hull_opts *o, const cs_hull *h)
{
    printf("# d=%d p=%lu alpha=%g beta=%g rho=%g: %s, %d faces\n", o->d, 1ul << o->d, o->model.alpha, o->model.beta,
           o->model.rho, h->from_config ? "faces from the configuration" : "the model's hull", h->nfaces);
    printf("# %-14s %12s %12s %14s %14s\n", "partition", "from_bytes", "to_bytes", "t_from_s", "t_to_s");
    for (int i = 0; i < h->nfaces; i++)
        cs_print_face(h, i);
}

/* ---- the plot --------------------------------------------------------------- */

enum { W = 900, H = 600, L = 90, R = 230, T = 40, B = 60, MAX_LINES = 6000 };

typedef struct cs_plot {
    FILE *f;
    double xmax, ymax;
} cs_plot;

static double cs_px(const cs_plot *pl, double m)
{
    return L + (W - L - R) * m / pl->xmax;
}

static double cs_py(const cs_plot *pl, double t)
{
    return H - B - (H - T - B) * t / pl->ymax;
}

/* Every partition of d (parts non-increasing), appended to out. */
static void cs_partitions(int d, int max, unsigned char *prefix, int n, unsigned char (*out)[CS_HULL_MAX_D], int *nout,
                          int *len)
{
    if (d == 0) {
        if (*nout < MAX_LINES) {
            memcpy(out[*nout], prefix, (size_t)n);
            len[(*nout)++] = n;
        }
        return;
    }
    for (int a = max < d ? max : d; a >= 1; a--) {
        prefix[n] = (unsigned char)a;
        cs_partitions(d - a, a, prefix, n + 1, out, nout, len);
    }
}

static void cs_plot_axes(const cs_plot *pl, int d)
{
    FILE *f = pl->f;
    fprintf(f, "<rect x='0' y='0' width='%d' height='%d' fill='white'/>\n", W, H);
    fprintf(f,
            "<text x='%d' y='24' font-size='16' text-anchor='middle'>Multiphase complete exchange, d = %d "
            "(p = %lu): time against block size</text>\n",
            (W - R + L) / 2, d, 1ul << d);
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", L, H - B, W - R, H - B);
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", L, T, L, H - B);
    for (int i = 0; i <= 5; i++) {
        const double m = pl->xmax * i / 5, t = pl->ymax * i / 5;
        fprintf(f,
                "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='black'/>"
                "<text x='%.1f' y='%d' font-size='12' text-anchor='middle'>%.4g</text>\n",
                cs_px(pl, m), H - B, cs_px(pl, m), H - B + 5, cs_px(pl, m), H - B + 20, m);
        fprintf(f,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='black'/>"
                "<text x='%d' y='%.1f' font-size='12' text-anchor='end'>%.3g</text>\n",
                L - 5, cs_py(pl, t), L, cs_py(pl, t), L - 8, cs_py(pl, t) + 4, t);
    }
    fprintf(f, "<text x='%d' y='%d' font-size='14' text-anchor='middle'>block size m (bytes)</text>\n", (W - R + L) / 2,
            H - 15);
    fprintf(f,
            "<text x='20' y='%d' font-size='14' text-anchor='middle' transform='rotate(-90 20 %d)'>"
            "time (s)</text>\n",
            (H - B + T) / 2, (H - B + T) / 2);
}

static void cs_plot_line(const cs_plot *pl, double intercept, double slope, double m0, double m1, const char *style)
{
    fprintf(pl->f, "<line x1='%.2f' y1='%.2f' x2='%.2f' y2='%.2f' %s/>\n", cs_px(pl, m0),
            cs_py(pl, intercept + slope * m0), cs_px(pl, m1), cs_py(pl, intercept + slope * m1), style);
}

static const char *const cs_colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e",
                                        "#8c564b", "#e377c2", "#17becf", "#bcbd22"};

static void cs_plot_legend(const cs_plot *pl, const cs_hull *h)
{
    FILE *f = pl->f;
    const int x = W - R + 20;
    fprintf(f, "<text x='%d' y='%d' font-size='13' font-weight='bold'>hull of optimality</text>\n", x, T + 10);
    for (int i = 0; i < h->nfaces; i++) {
        char parts[128];
        const int y = T + 32 + 20 * i;
        cs_parts_format(h->face[i].parts, h->face[i].nparts, parts, sizeof parts);
        fprintf(f,
                "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='4'/>"
                "<text x='%d' y='%d' font-size='12'>{%s} from %zu B</text>\n",
                x, y - 4, x + 24, y - 4, cs_colors[i % 9], x + 30, y, parts, h->face[i].first);
    }
    const int y = T + 40 + 20 * h->nfaces;
    fprintf(f,
            "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='#999' stroke-width='1'/>"
            "<text x='%d' y='%d' font-size='12'>other partitions</text>\n",
            x, y - 4, x + 24, y - 4, x + 30, y);
    fprintf(f,
            "<circle cx='%d' cy='%d' r='5' fill='none' stroke='black'/>"
            "<text x='%d' y='%d' font-size='12'>cardinality 2 meet</text>\n",
            x + 12, y + 16, x + 30, y + 20);
}

static int cs_write_svg(const cs_hull_opts *o, const cs_hull *h)
{
    static unsigned char parts[MAX_LINES][CS_HULL_MAX_D];
    static int len[MAX_LINES];
    unsigned char prefix[CS_HULL_MAX_D];
    int n = 0;
    cs_plot pl = {.f = fopen(o->svg, "w")};
    if (!pl.f) {
        fprintf(stderr, "%s: %s: %s\n", cs_prog, o->svg, strerror(errno));
        return -1;
    }
    const double last = h->nfaces > 1 ? h->face[h->nfaces - 1].from : o->model.alpha / fmax(o->model.beta, 1e-300);
    pl.xmax = last > 0 && isfinite(last) ? 1.25 * last : 1.0;
    if (o->d >= 2 && o->model.beta > 0 && o->model.alpha / o->model.beta < 4 * pl.xmax) /* Property 7's point */
        pl.xmax = fmax(pl.xmax, 1.15 * o->model.alpha / o->model.beta);
    cs_partitions(o->d, o->d, prefix, 0, parts, &n, len);
    pl.ymax = 0;
    for (int i = 0; i < n; i++) {
        const cs_part_line l = cs_part_line_of(o->d, parts[i], len[i]);
        pl.ymax = fmax(pl.ymax, cs_part_line_cost(&o->model, &l, pl.xmax));
    }
    pl.ymax = pl.ymax > 0 ? pl.ymax : 1.0;
    fprintf(pl.f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif'>\n", W, H);
    cs_plot_axes(&pl, o->d);
    fprintf(pl.f, "<g clip-path='none'>\n");
    for (int i = 0; i < n; i++) {
        const cs_part_line l = cs_part_line_of(o->d, parts[i], len[i]);
        cs_plot_line(&pl, cs_part_line_cost(&o->model, &l, 0),
                     cs_part_line_cost(&o->model, &l, 1) - cs_part_line_cost(&o->model, &l, 0), 0, pl.xmax,
                     "stroke='#999' stroke-width='1'");
    }
    for (int i = 0; i < h->nfaces; i++) {
        const cs_hull_face *f = &h->face[i];
        const double m0 = fmin(f->from, pl.xmax), m1 = i + 1 < h->nfaces ? fmin(h->face[i + 1].from, pl.xmax) : pl.xmax;
        char style[96];
        snprintf(style, sizeof style, "stroke='%s' stroke-width='4'", cs_colors[i % 9]);
        cs_plot_line(&pl, f->intercept, f->slope, m0, m1, style);
    }
    if (o->d >= 2 && o->model.beta > 0) { /* Property 7: the partitions of cardinality 2 meet at alpha / beta */
        const double m = o->model.alpha / o->model.beta;
        unsigned char two[2] = {(unsigned char)(o->d / 2), (unsigned char)(o->d - o->d / 2)};
        const cs_part_line l = cs_part_line_of(o->d, two, 2);
        if (m <= pl.xmax)
            fprintf(pl.f, "<circle cx='%.2f' cy='%.2f' r='6' fill='none' stroke='black'/>\n", cs_px(&pl, m),
                    cs_py(&pl, cs_part_line_cost(&o->model, &l, m)));
    }
    fprintf(pl.f, "</g>\n");
    cs_plot_legend(&pl, h);
    fprintf(pl.f, "</svg>\n");
    if (fclose(pl.f) != 0) {
        fprintf(stderr, "%s: %s: %s\n", cs_prog, o->svg, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------- */

static int cs_load(const char *path, cs_config *cfg)
{
    cs_config_error err;
    char text[PATH_MAX + 320];
    if (cs_config_load(path, cfg, &err) == 0)
        return 0;
    cs_config_error_format(&err, text, sizeof text);
    fprintf(stderr, "%s: %s\n", cs_prog, text);
    return -1;
}

/* Options into *o; cfg keeps the configuration the given faces point into.
 * 0, 1 (help), or the exit status of an error already reported. */
static int cs_parse_args(int argc, char **argv, cs_hull_opts *o, cs_config *cfg)
{
    double *set[3] = {NULL, NULL, NULL};
    double val[3];
    const char *names[3] = {"--alpha", "--beta", "--rho"};
    o->d = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int k;
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        for (k = 0; k < 3 && strcmp(a, names[k]); k++)
            ;
        if (k == 3 && strcmp(a, "-p") && strcmp(a, "-d") && strcmp(a, "--config") && strcmp(a, "--svg"))
            return cs_tool_usage_error(cs_prog, "unknown option '%s'", a);
        if (!v)
            return cs_tool_usage_error(cs_prog, "%s needs a value", a);
        if (k < 3) {
            if (cs_number(v, &val[k]) != 0)
                return cs_tool_usage_error(cs_prog, "%s must be a finite number >= 0, got '%s'", a, v);
            set[k] = &val[k];
        } else if (!strcmp(a, "-p")) {
            char *end;
            const long p = strtol(v, &end, 10);
            if (*end || !*v || p < 1 || p > INT_MAX)
                return cs_tool_usage_error(cs_prog, "-p must be a communicator size from 1 to %d, got '%s'", INT_MAX,
                                           v);
            o->p = (int)p;
        } else if (!strcmp(a, "-d")) {
            char *end;
            o->d = (int)strtol(v, &end, 10);
            if (*end || !*v || o->d < 0 || o->d > CS_HULL_MAX_D)
                return cs_tool_usage_error(cs_prog, "-d must be log2 p from 0 to %d, got '%s'", CS_HULL_MAX_D, v);
        } else if (!strcmp(a, "--config")) {
            if (cs_load(v, cfg) != 0)
                return CS_TOOL_EXIT_USAGE;
        } else {
            o->svg = v;
        }
        i++;
    }
    o->model = cfg->model;
    o->model.alpha = set[0] ? *set[0] : o->model.alpha;
    o->model.beta = set[1] ? *set[1] : o->model.beta;
    o->model.rho = set[2] ? *set[2] : o->model.rho;
    for (int i = 0; i < cfg->coll[CS_COLL_ALLTOALL].nhulls; i++)
        if (cfg->coll[CS_COLL_ALLTOALL].hull[i].d == o->d)
            o->given = &cfg->coll[CS_COLL_ALLTOALL].hull[i];
    if (o->p && (o->d >= 0 || o->svg)) /* -p alone: no partitions to draw */
        return cs_tool_usage_error(cs_prog, "-p takes neither -d nor --svg");
    if (o->d < 0 && !o->p)
        return cs_tool_usage_error(cs_prog, "-d D or -p P is needed");
    return 0;
}

int main(int argc, char **argv)
{
    static cs_config cfg;
    cs_hull_opts o = {0};
    cs_hull h;
    cs_config_defaults(&cfg);
    const int rc = cs_parse_args(argc, argv, &o, &cfg);
    if (rc == 1)
        cs_usage(stdout);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (o.p)
        return cs_print_factor_hull(&o.model, o.p);
    if (o.given)
        cs_hull_from_given(&o.model, o.d, o.given, &h);
    else
        cs_hull_compute(&o.model, o.d, &h);
    cs_print_hull(&o, &h);
    return o.svg && cs_write_svg(&o, &h) != 0 ? 1 : 0;
}
