/*
 * The hull of optimality of Bokhari 1993, §3.5: the faces are among the
 * equipartitions E(d, n) for n <= ⌊√d⌋ and, for each element value
 * w = 1..⌊√d⌋, the first and last of the run of indistinct equipartitions
 * made of w and w + 1 (cardinalities ⌈d/(w+1)⌉ .. ⌊d/w⌋): the members
 * inside a run meet in one point (Theorem 3) and only touch the hull there.
 * Those Θ(√d) candidates come out in order of decreasing cardinality, which is
 * decreasing slope (Property 5), so one pass of the lower-envelope stack
 * finds the faces and their vertices.
 *
 * Differences of intercepts and slopes are taken on the lines' integer
 * coefficients, so that the coincidences the paper proves (three lines
 * through one vertex) are seen as such up to rounding of a product.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/hull.h"

/* Relative slack of a vertex comparison: products of exact differences
 * carry a few roundings; real near-ties of distinct vertices are far wider. */
#define CS_HULL_TIE 1e-12

cs_part_line cs_part_line_of(int d, const unsigned char *parts, int nparts)
{
    cs_part_line l = {0, 0, 0};
    for (int i = 0; i < nparts; i++) {
        const int64_t peers = ((int64_t)1 << parts[i]) - 1;
        l.msgs += peers;
        l.wire += peers << (d - parts[i]);
        l.copied += (int64_t)1 << d;
    }
    return l;
}

double cs_part_line_cost(const cs_model *model, const cs_part_line *line, double m)
{
    return model->alpha * (double)line->msgs +
           m * (model->beta * (double)line->wire + model->rho * (double)line->copied);
}

static double cs_line_slope(const cs_model *model, const cs_part_line *l)
{
    return model->beta * (double)l->wire + model->rho * (double)l->copied;
}

/* intercept(b) - intercept(a) and slope(a) - slope(b), from exact integer differences. */
static double cs_rise(const cs_model *model, const cs_part_line *a, const cs_part_line *b)
{
    return model->alpha * (double)(b->msgs - a->msgs);
}

static double cs_drop(const cs_model *model, const cs_part_line *a, const cs_part_line *b)
{
    return model->beta * (double)(a->wire - b->wire) + model->rho * (double)(a->copied - b->copied);
}

void cs_equipartition(int d, int n, unsigned char *parts)
{
    for (int i = 0; i < n; i++)
        parts[i] = (unsigned char)(d / n + (i >= n - d % n));
}

/* Is b, between a (steeper) and c (flatter), off the envelope: does c meet b
 * no later than a leaves it? x(b,c) <= x(a,b), cross-multiplied. */
static int cs_envelope_hides(const cs_model *model, const cs_part_line *a, const cs_part_line *b, const cs_part_line *c)
{
    const double lhs = cs_rise(model, b, c) * cs_drop(model, a, b);
    const double rhs = cs_rise(model, a, b) * cs_drop(model, b, c);
    return lhs <= rhs + CS_HULL_TIE * fmax(fabs(lhs), fabs(rhs));
}

/* Is c (not steeper than b) at or below b at m = 0, hence for every m >= 0? */
static int cs_envelope_below_at_zero(const cs_model *model, const cs_part_line *b, const cs_part_line *c)
{
    const double rise = cs_rise(model, b, c);
    return rise <= CS_HULL_TIE * model->alpha * (double)(b->msgs > c->msgs ? b->msgs : c->msgs);
}

int cs_envelope(const cs_model *model, const cs_part_line *lines, int n, int *out)
{
    int top = 0;
    for (int i = 0; i < n; i++) {
        const cs_part_line *c = &lines[i];
        if (top && cs_drop(model, &lines[out[top - 1]], c) <= 0) { /* parallel: the lower stays */
            if (!cs_envelope_below_at_zero(model, &lines[out[top - 1]], c))
                continue;
            top--;
        }
        while (top && cs_envelope_below_at_zero(model, &lines[out[top - 1]], c))
            top--;
        while (top >= 2 && cs_envelope_hides(model, &lines[out[top - 2]], &lines[out[top - 1]], c))
            top--;
        out[top++] = i;
    }
    return top;
}

/* §3.5's candidates, in order of decreasing cardinality, without repeats. */
static int cs_hull_candidates(int d, int *card)
{
    int s = 0, n = 0;
    while ((s + 1) * (s + 1) <= d)
        s++;
    for (int w = 1; w <= s; w++) {
        const int run[2] = {d / w, (d + w) / (w + 1)}; /* ⌊d/w⌋, ⌈d/(w+1)⌉ */
        for (int j = 0; j < 2; j++)
            if (n == 0 || card[n - 1] != run[j])
                card[n++] = run[j];
    }
    for (int c = s; c >= 1; c--)
        if (n == 0 || card[n - 1] != c)
            card[n++] = c;
    return n;
}

static void cs_hull_face_set(const cs_model *model, int d, cs_hull_face *f, const unsigned char *parts, int nparts)
{
    const cs_part_line l = cs_part_line_of(d, parts, nparts);
    f->nparts = nparts;
    memcpy(f->parts, parts, (size_t)nparts);
    f->intercept = cs_part_line_cost(model, &l, 0);
    f->slope = cs_line_slope(model, &l);
}

double cs_part_line_vertex(const cs_model *model, const cs_part_line *a, const cs_part_line *b)
{
    return cs_rise(model, a, b) / cs_drop(model, a, b);
}

size_t cs_hull_first_byte(double x)
{
    if (!(x > 0))
        return 0;
    if (x >= 0x1p63)
        return SIZE_MAX;
    return (size_t)ceil(x);
}

void cs_hull_compute(const cs_model *model, int d, cs_hull *hull)
{
    int card[CS_HULL_MAX_FACES], face[CS_HULL_MAX_FACES];
    cs_part_line lines[CS_HULL_MAX_FACES];
    unsigned char parts[CS_HULL_MAX_D] = {0};

    memset(hull, 0, sizeof *hull);
    hull->d = d;
    if (d == 0) { /* p = 1: the empty partition, nothing to exchange */
        hull->nfaces = 1;
        cs_hull_face_set(model, 0, &hull->face[0], parts, 0);
        return;
    }
    const int nc = cs_hull_candidates(d, card);
    for (int i = 0; i < nc; i++) {
        cs_equipartition(d, card[i], parts);
        lines[i] = cs_part_line_of(d, parts, card[i]);
    }
    hull->nfaces = cs_envelope(model, lines, nc, face);
    for (int i = 0; i < hull->nfaces; i++) {
        cs_hull_face *f = &hull->face[i];
        cs_equipartition(d, card[face[i]], parts);
        cs_hull_face_set(model, d, f, parts, card[face[i]]);
        if (i > 0) {
            const cs_part_line *a = &lines[face[i - 1]], *b = &lines[face[i]];
            f->from = cs_part_line_vertex(model, a, b);
            f->first = cs_hull_first_byte(f->from);
        }
    }
}

void cs_hull_from_given(const cs_model *model, int d, const cs_hull_given *given, cs_hull *hull)
{
    memset(hull, 0, sizeof *hull);
    hull->d = d;
    hull->from_config = 1;
    hull->nfaces = given->nfaces;
    for (int i = 0; i < given->nfaces; i++) {
        cs_hull_face *f = &hull->face[i];
        cs_hull_face_set(model, d, f, given->face[i].parts, given->face[i].nparts);
        f->first = given->face[i].first;
        f->from = (double)f->first;
    }
}

const cs_hull_face *cs_hull_lookup(const cs_hull *hull, size_t m)
{
    int lo = 0, hi = hull->nfaces - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        if (hull->face[mid].first <= m)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &hull->face[lo];
}

/* ---- a model's table ------------------------------------------------------ */

void cs_hull_table_init(cs_hull_table *table, const cs_model *config_model, const cs_hull_given *given, int ngiven)
{
    /* multiphase's rounds are pairwise: its costs and hulls see the overhead in alpha */
    const cs_model pairwise = cs_model_pairwise(config_model), *model = &pairwise;
    for (int d = 0; d <= CS_HULL_MAX_D; d++)
        cs_hull_compute(model, d, &table->hull[d]);
    for (int i = 0; i < ngiven; i++)
        cs_hull_from_given(model, given[i].d, &given[i], &table->hull[given[i].d]);
    table->model = *model;
    table->model.hulls = NULL;
}

static int cs_model_same_comm(const cs_model *a, const cs_model *b)
{
    return a->alpha == b->alpha && a->beta == b->beta && a->rho == b->rho;
}

const cs_hull *cs_hull_get(const cs_model *model, int d, cs_hull *scratch)
{
    if (model->hulls && cs_model_same_comm(model, &model->hulls->model))
        return &model->hulls->hull[d];
    cs_hull_compute(model, d, scratch);
    return scratch;
}

int cs_parts_format(const unsigned char *parts, int nparts, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = '\0';
    for (int i = 0; i < nparts; i++) {
        const int k = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, i ? ",%d" : "%d", parts[i]);
        n += (size_t)k;
    }
    return (int)n;
}
