#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"
#include "why.h"

/* The picture: panels of PH pixels stacked in a column; in each, the plot area from (L, T) to
 * (W - R, PH - B) and the legend in the R pixels on its right. */
enum { W = 980, PH = 430, L = 86, R = 260, T = 48, B = 58 };

static const char *const cs_palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf", "#bcbd22"};
static const char *const cs_native_color = "#555555"; /* the MPI library */

/* One panel: the rows of a group, where it is drawn and its axes (log2 bytes, log10 seconds). */
typedef struct cs_panel {
    FILE *f;
    const cs_table *t;
    const cs_row *rows;
    size_t nrows;
    const int *color; /* per name id: an index in cs_palette, or -1 for native */
    double top;
    double x0, x1, y0, y1;
} cs_panel;

static double cs_px(const cs_panel *pn, double bytes)
{
    return L + (W - L - R) * (log2(bytes) - pn->x0) / (pn->x1 - pn->x0);
}

static double cs_py(const cs_panel *pn, double seconds)
{
    return pn->top + PH - B - (PH - T - B) * (log10(seconds) - pn->y0) / (pn->y1 - pn->y0);
}

static const char *cs_color(const cs_panel *pn, int alg)
{
    return pn->color[alg] < 0 ? cs_native_color
                              : cs_palette[(size_t)pn->color[alg] % (sizeof cs_palette / sizeof cs_palette[0])];
}

/* A name from a log as SVG text or attribute value: markup escaped, anything but printable
 * ASCII as '?' (a log's bytes need not be UTF-8). */
static void cs_svg_puts(FILE *f, const char *s)
{
    static const char *const entity[] = {
        ['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;", ['\''] = "&apos;", ['"'] = "&quot;"};
    for (; *s; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c < sizeof entity / sizeof entity[0] && entity[c])
            fputs(entity[c], f);
        else
            fputc(c >= 0x20 && c < 0x7f ? c : '?', f);
    }
}

/* 1 ns, 20 µs, 5 ms, 1 s */
static void cs_time_label(double s, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e-9, "ns"}, {1e-6, "\u00b5s"}, {1e-3, "ms"}, {1, "s"}};
    int u = 0;
    while (u < 3 && s >= units[u + 1].scale * 0.999)
        u++;
    snprintf(buf, size, "%.3g %s", s / units[u].scale, units[u].unit);
}

/* ---- the axes --------------------------------------------------------------- */

/* A row is drawn if it has a size (a log axis has no 0) and a time. */
static int cs_drawn(const cs_row *r)
{
    return r->bin != CS_BIN_EMPTY && r->median > 0;
}

/* The axes' ranges: whole powers of two and of ten around every point drawn, measured or predicted. */
static void cs_panel_range(cs_panel *pn)
{
    double bmin = INFINITY, bmax = 0, tmin = INFINITY, tmax = 0;
    for (size_t i = 0; i < pn->nrows; i++) {
        const cs_row *r = &pn->rows[i];
        if (!cs_drawn(r))
            continue;
        bmin = fmin(bmin, r->bytes);
        bmax = fmax(bmax, r->bytes);
        tmin = fmin(tmin, r->median);
        tmax = fmax(tmax, r->median);
        if (r->predicted > 0) {
            tmin = fmin(tmin, r->predicted);
            tmax = fmax(tmax, r->predicted);
        }
    }
    if (bmax == 0) { /* nothing to draw: any axes */
        bmin = bmax = 1;
        tmin = tmax = 1e-6;
    }
    pn->x0 = floor(log2(bmin) - 0.5);
    pn->x1 = ceil(log2(bmax) + 0.5);
    pn->y0 = floor(log10(tmin) - 0.05);
    pn->y1 = fmax(ceil(log10(tmax) + 0.05), pn->y0 + 1);
}

static void cs_panel_xaxis(const cs_panel *pn, int alltoall)
{
    const double step = ceil((pn->x1 - pn->x0) / 10), base = pn->top + PH - B;
    for (double k = pn->x0; k <= pn->x1; k += step) {
        char label[16];
        const double x = cs_px(pn, exp2(k));
        cs_bytes_label(exp2(k), label, sizeof label);
        fprintf(pn->f,
                "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='#e3e3e3'/>"
                "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' stroke='black'/>"
                "<text x='%.1f' y='%.1f' font-size='12' text-anchor='middle'>%s</text>\n",
                x, pn->top + T, x, base, x, base, x, base + 5, x, base + 19, label);
    }
    fprintf(pn->f, "<text x='%d' y='%.1f' font-size='13' text-anchor='middle'>message size (bytes%s)</text>\n",
            (L + W - R) / 2, base + 40, alltoall ? " per destination block" : "");
}

/* Decades labelled; 2 and 5 too when the axis spans at most two decades; 3, 4, 6..9 as grid. */
static void cs_panel_yaxis(const cs_panel *pn)
{
    const int few = pn->y1 - pn->y0 <= 2;
    for (double k = pn->y0; k < pn->y1 + 0.5; k++)
        for (int m = 1; m <= 9 && (m == 1 || k < pn->y1); m++) {
            const double s = m * exp10(k), y = cs_py(pn, s);
            const int labelled = m == 1 || (few && (m == 2 || m == 5));
            char label[24];
            cs_time_label(s, label, sizeof label);
            fprintf(pn->f, "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='%s'/>", L, y, W - R, y,
                    m == 1 ? "#d0d0d0" : "#efefef");
            if (labelled)
                fprintf(pn->f,
                        "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='black'/>"
                        "<text x='%d' y='%.1f' font-size='12' text-anchor='end'>%s</text>",
                        L - 5, y, L, y, L - 8, y + 4, label);
            fputc('\n', pn->f);
        }
    fprintf(pn->f,
            "<text x='18' y='%.1f' font-size='13' text-anchor='middle' transform='rotate(-90 18 %.1f)'>"
            "median time per call</text>\n",
            pn->top + (PH - B + T) / 2.0, pn->top + (PH - B + T) / 2.0);
}

static void cs_panel_frame(const cs_panel *pn)
{
    const cs_row *r = pn->rows;
    fprintf(pn->f, "<text x='%d' y='%.1f' font-size='16' text-anchor='middle'>", (L + W - R) / 2, pn->top + 26);
    cs_svg_puts(pn->f, cs_table_name(pn->t, r->coll));
    if (r->n)
        fprintf(pn->f, " n = %d", r->n);
    fprintf(pn->f, ", p = %d%s%s: median time per call against message size</text>\n", r->p, r->role ? ", " : "",
            cs_role_words(r->role));
    cs_panel_xaxis(pn, !strcmp(cs_table_name(pn->t, r->coll), "alltoall"));
    cs_panel_yaxis(pn);
    fprintf(pn->f, "<rect x='%d' y='%.1f' width='%d' height='%d' fill='none' stroke='black'/>\n", L, pn->top + T,
            W - L - R, PH - T - B);
}

/* ---- the series ------------------------------------------------------------- */

/* The points a polyline joins: the chosen algorithm's (alg < 0) or one algorithm's, measured or
 * predicted. The time of row r on it, or 0 if r is not on it. */
static double cs_line_time(const cs_row *r, int alg, int predicted)
{
    if (!cs_drawn(r) || (alg < 0 ? !r->chosen : r->alg != alg))
        return 0;
    return predicted ? fmax(r->predicted, 0) : r->median;
}

/* A polyline in size order (rows are) through the points of (alg, predicted), drawn in style
 * where there are two or more. */
static void cs_polyline(const cs_panel *pn, int alg, int predicted, const char *style)
{
    int n = 0;
    for (size_t i = 0; i < pn->nrows; i++)
        n += cs_line_time(&pn->rows[i], alg, predicted) > 0;
    if (n < 2)
        return;
    fprintf(pn->f, "<polyline fill='none' %s points='", style);
    for (size_t i = 0; i < pn->nrows; i++) {
        const double s = cs_line_time(&pn->rows[i], alg, predicted);
        if (s > 0)
            fprintf(pn->f, " %.1f,%.1f", cs_px(pn, pn->rows[i].bytes), cs_py(pn, s));
    }
    fprintf(pn->f, "'/>\n");
}

/* The chosen algorithm's points from size to size, as a wide grey band under the series. */
static void cs_chosen_band(const cs_panel *pn)
{
    cs_polyline(pn, -1, 0,
                "class='chosen' stroke='black' stroke-opacity='0.13' stroke-width='16' stroke-linecap='round' "
                "stroke-linejoin='round'");
}

/* One algorithm's line, measured (solid) or predicted (dashed), in its colour. */
static void cs_series_line(const cs_panel *pn, int alg, int predicted)
{
    char style[96];
    snprintf(style, sizeof style, "stroke='%s' stroke-width='%s'%s", cs_color(pn, alg), predicted ? "1.5" : "2.5",
             predicted ? " stroke-dasharray='6,4'" : "");
    cs_polyline(pn, alg, predicted, style);
}

/* A measured point, filled, with what it is as its title (shown on hover). */
static void cs_point_measured(const cs_panel *pn, const cs_row *r)
{
    char bin[32], why[160], median[24];
    cs_bin_label(r->bin, bin, sizeof bin);
    cs_why_label(r->whys, why, sizeof why);
    cs_time_label(r->median, median, sizeof median);
    fprintf(pn->f, "<circle cx='%.1f' cy='%.1f' r='4.5' fill='%s'><title>", cs_px(pn, r->bytes), cs_py(pn, r->median),
            cs_color(pn, r->alg));
    cs_svg_puts(pn->f, cs_table_name(pn->t, r->alg));
    fprintf(pn->f, " %s: %zu call%s, median %s; why: %s</title></circle>\n", bin, r->calls, r->calls == 1 ? "" : "s",
            median, why);
}

/* One algorithm's points: predicted (hollow) or measured (filled). */
static void cs_series_points(const cs_panel *pn, int alg, int predicted)
{
    for (size_t i = 0; i < pn->nrows; i++) {
        const cs_row *r = &pn->rows[i];
        if (r->alg != alg || !cs_drawn(r) || (predicted && r->predicted <= 0))
            continue;
        if (predicted)
            fprintf(pn->f, "<circle cx='%.1f' cy='%.1f' r='3' fill='white' stroke='%s' stroke-width='1.5'/>\n",
                    cs_px(pn, r->bytes), cs_py(pn, r->predicted), cs_color(pn, alg));
        else
            cs_point_measured(pn, r);
    }
}

/* A ring around each chosen point, and above the plot at its size the letter of why it ran. */
static void cs_chosen_rings(const cs_panel *pn)
{
    for (size_t i = 0; i < pn->nrows; i++) {
        const cs_row *r = &pn->rows[i];
        if (!r->chosen || !cs_drawn(r))
            continue;
        fprintf(pn->f,
                "<circle class='chosen' cx='%.1f' cy='%.1f' r='9' fill='none' stroke='black' stroke-width='2'/>\n"
                "<text class='why' x='%.1f' y='%.1f' font-size='11' text-anchor='middle' fill='#333'>%c</text>\n",
                cs_px(pn, r->bytes), cs_py(pn, r->median), cs_px(pn, r->bytes), pn->top + T - 6,
                cs_why_letter(cs_why_main(r->whys)));
    }
}

/* Is rows[i] the first of the panel for its algorithm? */
static int cs_first_of_alg(const cs_panel *pn, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (pn->rows[j].alg == pn->rows[i].alg)
            return 0;
    return 1;
}

static size_t cs_alg_calls(const cs_panel *pn, int alg)
{
    size_t calls = 0;
    for (size_t i = 0; i < pn->nrows; i++)
        calls += pn->rows[i].alg == alg ? pn->rows[i].calls : 0;
    return calls;
}

/* The legend's entries: one per algorithm, then the two marks. Returns the next free y. */
static double cs_panel_legend(const cs_panel *pn)
{
    const int x = W - R + 20;
    double y = pn->top + T + 14;
    int priced = 0;
    fprintf(pn->f, "<g class='legend'>\n");
    for (size_t i = 0; i < pn->nrows; i++) {
        const int alg = pn->rows[i].alg;
        if (!cs_first_of_alg(pn, i))
            continue;
        fprintf(pn->f,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='%s' stroke-width='2.5'/>"
                "<circle cx='%d' cy='%.1f' r='4.5' fill='%s'/><text x='%d' y='%.1f' font-size='13'>",
                x, y, x + 28, y, cs_color(pn, alg), x + 14, y, cs_color(pn, alg), x + 36, y + 4.5);
        cs_svg_puts(pn->f, cs_table_name(pn->t, alg));
        const size_t calls = cs_alg_calls(pn, alg);
        fprintf(pn->f, " (%zu call%s)</text>\n", calls, calls == 1 ? "" : "s");
        y += 22;
        for (size_t j = 0; j < pn->nrows; j++)
            priced |= pn->rows[j].alg == alg && pn->rows[j].predicted > 0;
    }
    y += 6;
    if (priced) {
        fprintf(pn->f,
                "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#555' stroke-width='1.5' stroke-dasharray='6,4'/>"
                "<circle cx='%d' cy='%.1f' r='3' fill='white' stroke='#555' stroke-width='1.5'/>"
                "<text x='%d' y='%.1f' font-size='12'>the model's prediction</text>\n",
                x, y, x + 28, y, x + 14, y, x + 36, y + 4);
        y += 22;
    }
    fprintf(pn->f,
            "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='black' stroke-opacity='0.13' stroke-width='16' "
            "stroke-linecap='round'/><circle cx='%d' cy='%.1f' r='9' fill='none' stroke='black' stroke-width='2'/>"
            "<text x='%d' y='%.1f' font-size='12'>chosen at that size</text>"
            "<text x='%d' y='%.1f' font-size='11' fill='#555'>(collshim's choice: most calls)</text>\n</g>\n",
            x + 4, y + 8, x + 24, y + 8, x + 14, y + 8, x + 36, y + 6, x + 36, y + 20);
    return y + 44;
}

/* A note under the legend at *y, grey, in lines of at most 40 characters: cut after a ": "
 * where there is one, else at the last space. */
static void cs_panel_note(const cs_panel *pn, double *y, const char *text)
{
    while (*text) {
        const char *colon = strstr(text, ": ");
        size_t cut = strlen(text);
        if (colon && colon - text < 40)
            cut = (size_t)(colon - text) + 1;
        else if (cut > 40)
            for (cut = 40; cut > 1 && text[cut] != ' ';)
                cut--;
        char line[64];
        snprintf(line, sizeof line, "%.*s", (int)cut, text);
        fprintf(pn->f, "<text class='note' x='%d' y='%.1f' font-size='12' fill='#555'>", W - R + 20, *y);
        cs_svg_puts(pn->f, line);
        fprintf(pn->f, "</text>\n");
        *y += 16;
        for (text += cut; *text == ' ';)
            text++;
    }
}

/* Under the legend: what the letters over the chosen points mean, the worst prediction each way
 * where the model is far off, and what a log axis cannot show. */
static void cs_panel_notes(const cs_panel *pn, double y)
{
    size_t empty = 0, whys[CS_WHY_LAST] = {0};
    double worst[2] = {0, 0}; /* the factor predicted faster, slower */
    const cs_row *worst_row[2] = {NULL, NULL};
    char text[160];
    for (size_t i = 0; i < pn->nrows; i++) {
        const cs_row *r = &pn->rows[i];
        double factor;
        const int dir = cs_drawn(r) ? cs_far_off(r->predicted, r->median, &factor) : 0;
        empty += r->bin == CS_BIN_EMPTY ? r->calls : 0;
        whys[cs_why_main(r->whys)] += r->chosen && cs_drawn(r);
        if (dir && factor > worst[dir > 0]) {
            worst[dir > 0] = factor;
            worst_row[dir > 0] = r;
        }
    }
    size_t n = 0;
    for (int w = 0; w < CS_WHY_LAST && n < sizeof text; w++)
        if (whys[w])
            n += (size_t)snprintf(text + n, sizeof text - n, "%s%c=%s", n ? ", " : "", cs_why_letter((cs_why)w),
                                  cs_why_word((cs_why)w));
    if (n) { /* some chosen point drawn */
        cs_panel_note(pn, &y, "why chosen (the letter above it)");
        cs_panel_note(pn, &y, text);
    }
    for (int dir = 0; dir < 2; dir++)
        if (worst[dir] > 0) {
            y += 6;
            const cs_row *r = worst_row[dir];
            cs_far_off_words(dir ? 1 : -1, worst[dir], cs_row_far_cause(pn->t, r, dir ? 1 : -1), r->node_ranks,
                             pn->t->cores, text, sizeof text);
            cs_panel_note(pn, &y, text);
        }
    if (empty) {
        y += 6;
        snprintf(text, sizeof text, "%zu call%s of 0 bytes not drawn", empty, empty == 1 ? "" : "s");
        cs_panel_note(pn, &y, text);
    }
}

/* Every algorithm's predictions (class prediction) or measurements (class series), a group each. */
static void cs_panel_series(const cs_panel *pn, int predicted)
{
    for (size_t i = 0; i < pn->nrows; i++)
        if (cs_first_of_alg(pn, i)) {
            fprintf(pn->f, "<g class='%s' data-alg='", predicted ? "prediction" : "series");
            cs_svg_puts(pn->f, cs_table_name(pn->t, pn->rows[i].alg));
            fprintf(pn->f, "'>\n");
            cs_series_line(pn, pn->rows[i].alg, predicted);
            cs_series_points(pn, pn->rows[i].alg, predicted);
            fprintf(pn->f, "</g>\n");
        }
}

/* Bottom to top: the frame, the chosen band, the predictions, the measurements, the rings. */
static void cs_panel_draw(cs_panel *pn)
{
    cs_panel_range(pn);
    fprintf(pn->f, "<g class='panel'>\n");
    cs_panel_frame(pn);
    cs_chosen_band(pn);
    cs_panel_series(pn, 1);
    cs_panel_series(pn, 0);
    cs_chosen_rings(pn);
    cs_panel_notes(pn, cs_panel_legend(pn));
    fprintf(pn->f, "</g>\n");
}

/* ---- the file --------------------------------------------------------------- */

/* Colours by algorithm, in order of first appearance, the same in every panel; native grey. */
static int *cs_colors_assign(const cs_table *t)
{
    int *color = malloc((size_t)(t->nnames ? t->nnames : 1) * sizeof *color), next = 0;
    if (!color)
        return NULL;
    for (int i = 0; i < t->nnames; i++)
        color[i] = -2;
    for (size_t i = 0; i < t->nrows; i++) {
        const int alg = t->rows[i].alg;
        if (color[alg] == -2)
            color[alg] = strcmp(cs_table_name(t, alg), "native") ? next++ : -1;
    }
    return color;
}

static size_t cs_count_groups(const cs_table *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nrows; i++)
        n += i == 0 || !cs_row_same_group(&t->rows[i - 1], &t->rows[i]);
    return n;
}

int cs_svg_write(const cs_table *t, const char *path)
{
    int *color = cs_colors_assign(t);
    FILE *f = fopen(path, "w");
    if (!f || !color) {
        fprintf(stderr, "collshim-report: %s: %s\n", path, strerror(errno));
        free(color);
        if (f)
            fclose(f);
        return -1;
    }
    fprintf(f,
            "<?xml version='1.0' encoding='UTF-8'?>\n"
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%zu' font-family='sans-serif'>\n"
            "<rect x='0' y='0' width='100%%' height='100%%' fill='white'/>\n",
            W, PH * cs_count_groups(t));
    cs_panel pn = {.f = f, .t = t, .color = color};
    for (size_t i = 0, j; i < t->nrows; i = j) {
        for (j = i + 1; j < t->nrows && cs_row_same_group(&t->rows[i], &t->rows[j]); j++)
            ;
        pn.rows = t->rows + i;
        pn.nrows = j - i;
        cs_panel_draw(&pn);
        pn.top += PH;
    }
    fprintf(f, "</svg>\n");
    free(color);
    if (fclose(f) != 0) {
        fprintf(stderr, "collshim-report: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
