#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "table.h"

/* ---- names ------------------------------------------------------------------ */

/* items (n of size bytes each, room for *cap) with room for one more: the same pointer, or a new
 * one and *cap doubled; NULL when out of memory (items is left as it was). */
static void *cs_reserve(void *items, size_t *cap, size_t n, size_t size)
{
    const size_t more = *cap ? 2 * *cap : 64;
    if (n < *cap)
        return items;
    items = realloc(items, more * size);
    *cap = items ? more : *cap;
    return items;
}

/* The id of a name (its first len bytes), added if new; -1 when out of memory. Logs name few
 * collectives and algorithms, so a linear search will do. */
static int cs_table_intern(cs_table *t, const char *s, size_t len)
{
    char **names;
    for (int i = 0; i < t->nnames; i++)
        if (!strncmp(t->names[i], s, len) && !t->names[i][len])
            return i;
    if (!(names = cs_reserve(t->names, &t->capnames, (size_t)t->nnames, sizeof *names)))
        return -1;
    t->names = names;
    if (!(t->names[t->nnames] = strndup(s, len)))
        return -1;
    return t->nnames++;
}

const char *cs_table_name(const cs_table *t, int id)
{
    return t->names[id];
}

/* ---- bins ------------------------------------------------------------------- */

int cs_bin_of(size_t bytes)
{
    int k = CS_BIN_EMPTY;
    for (; bytes; bytes >>= 1)
        k++;
    return k;
}

void cs_bytes_label(double bytes, char *buf, size_t size)
{
    static const char unit[] = " KMGTPE";
    int u = 0;
    for (; bytes >= 1024 && unit[u + 1]; u++)
        bytes /= 1024;
    if (u)
        snprintf(buf, size, "%.4g%c", bytes, unit[u]);
    else
        snprintf(buf, size, "%.4g", bytes);
}

void cs_bin_label(int bin, char *buf, size_t size)
{
    char lo[16], hi[16];
    if (bin == CS_BIN_EMPTY) {
        snprintf(buf, size, "0");
        return;
    }
    cs_bytes_label((double)((size_t)1 << bin), lo, sizeof lo);
    if (bin + 1 < (int)(8 * sizeof(size_t)))
        cs_bytes_label((double)((size_t)1 << (bin + 1)), hi, sizeof hi);
    else
        snprintf(hi, sizeof hi, "inf");
    snprintf(buf, size, "[%s,%s)", lo, hi);
}

/* ---- calls ------------------------------------------------------------------ */

int cs_table_add(cs_table *t, const cs_logline *l, int log)
{
    const int nodes = l->nodes > 0 ? l->nodes : 1, share = l->share > 1 ? l->share : 1;
    cs_call c = {.n = l->n,
                 .p = l->p,
                 .bin = cs_bin_of(l->bytes),
                 .bytes = l->bytes,
                 .predicted = l->predicted,
                 .elapsed = l->elapsed,
                 .why = l->why,
                 .reason = -1,
                 .log = log,
                 .rank = l->rank,
                 .seq = t->ncalls,
                 .node_ranks = (l->p + nodes - 1) / nodes * share};
    if (!strcmp(l->coll, "reduce") && l->rank >= 0 && l->root >= 0)
        c.role = l->rank == l->root ? CS_ROLE_ROOT : CS_ROLE_OTHERS;
    c.coll = cs_table_intern(t, l->coll, strlen(l->coll));
    c.alg = cs_table_intern(t, l->alg, strcspn(l->alg, ":"));
    c.spec = cs_table_intern(t, l->alg, strlen(l->alg));
    if (l->why == CS_WHY_OTHER && (c.reason = cs_table_intern(t, l->reason, strlen(l->reason))) < 0)
        return -1;
    if (c.coll < 0 || c.alg < 0 || c.spec < 0)
        return -1;
    cs_call *calls = cs_reserve(t->calls, &t->capcalls, t->ncalls, sizeof *calls);
    if (!calls)
        return -1;
    t->calls = calls;
    t->calls[t->ncalls++] = c;
    return 0;
}

static int cs_cmp_int(int a, int b)
{
    return (a > b) - (a < b);
}

static int cs_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Calls of one row next to each other: by collective, n, p, role, bin, algorithm (ids), spec. */
static int cs_cmp_call(const void *a, const void *b)
{
    const cs_call *x = a, *y = b;
    int c = cs_cmp_int(x->coll, y->coll);
    c = c ? c : cs_cmp_int(x->n, y->n);
    c = c ? c : cs_cmp_int(x->p, y->p);
    c = c ? c : cs_cmp_int((int)x->role, (int)y->role);
    c = c ? c : cs_cmp_int(x->bin, y->bin);
    c = c ? c : cs_cmp_int(x->alg, y->alg);
    return c ? c : cs_cmp_int(x->spec, y->spec);
}

static int cs_same_row(const cs_call *x, const cs_call *y)
{
    return x->coll == y->coll && x->n == y->n && x->p == y->p && x->role == y->role && x->bin == y->bin &&
           x->alg == y->alg;
}

/* The median of v[0..n), n > 0; sorts v. */
static double cs_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cs_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The most-called spec of calls c[0..n), sorted by spec: ties go to the first by name. */
static void cs_row_spec(const cs_table *t, const cs_call *c, size_t n, cs_row *row)
{
    size_t best = 0;
    row->nspecs = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && c[j].spec == c[i].spec; j++)
            ;
        row->nspecs++;
        if (row->nspecs == 1 || j - i > best ||
            (j - i == best && strcmp(t->names[c[i].spec], t->names[row->spec]) < 0)) {
            best = j - i;
            row->spec = c[i].spec;
        }
    }
}

/* The row of calls c[0..n); tmp holds n doubles. */
static cs_row cs_row_of(const cs_table *t, const cs_call *c, size_t n, double *tmp)
{
    cs_row row = {.coll = c->coll, .alg = c->alg, .n = c->n, .p = c->p, .role = c->role, .bin = c->bin, .calls = n};
    size_t priced = 0;
    cs_row_spec(t, c, n, &row);
    for (size_t i = 0; i < n; i++) {
        row.alone += (size_t)c[i].alone;
        row.node_ranks = c[i].node_ranks > row.node_ranks ? c[i].node_ranks : row.node_ranks;
        row.whys[c[i].why]++;
        row.decided += c[i].why != CS_WHY_FORCED;
        row.total += c[i].elapsed;
        tmp[i] = c[i].elapsed;
    }
    row.median = cs_median(tmp, n);
    for (size_t i = 0; i < n; i++)
        tmp[i] = (double)c[i].bytes;
    row.bytes = cs_median(tmp, n);
    for (size_t i = 0; i < n; i++)
        if (c[i].predicted >= 0)
            tmp[priced++] = c[i].predicted;
    row.predicted = priced ? cs_median(tmp, priced) : -1;
    return row;
}

/* ---- set-up ----------------------------------------------------------------- */

/* Calls of one rank's bin and algorithm next to each other, in the order logged: by log, rank,
 * collective, n, p, role, bin, algorithm, then place. */
static int cs_cmp_setup(const void *a, const void *b)
{
    const cs_call *x = a, *y = b;
    int c = cs_cmp_int(x->log, y->log);
    c = c ? c : cs_cmp_int(x->rank, y->rank);
    c = c ? c : cs_cmp_int(x->coll, y->coll);
    c = c ? c : cs_cmp_int(x->n, y->n);
    c = c ? c : cs_cmp_int(x->p, y->p);
    c = c ? c : cs_cmp_int((int)x->role, (int)y->role);
    c = c ? c : cs_cmp_int(x->bin, y->bin);
    c = c ? c : cs_cmp_int(x->alg, y->alg);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cs_same_rank_bin(const cs_call *x, const cs_call *y)
{
    return x->log == y->log && x->rank == y->rank && x->coll == y->coll && x->n == y->n && x->p == y->p &&
           x->role == y->role && x->bin == y->bin && x->alg == y->alg;
}

/* Each rank's first call of a bin and algorithm into t->setup where it made more there; a call
 * alone in its rank's bin is marked so. t->calls keeps the rest. 0, or -1 when out of memory. */
static int cs_table_split_setup(cs_table *t)
{
    size_t kept = 0;
    t->nsetup = 0;
    if (!(t->setup = malloc((t->ncalls ? t->ncalls : 1) * sizeof *t->setup)))
        return -1;
    qsort(t->calls, t->ncalls, sizeof *t->calls, cs_cmp_setup);
    for (size_t i = 0, j; i < t->ncalls; i = j) {
        for (j = i + 1; j < t->ncalls && cs_same_rank_bin(&t->calls[i], &t->calls[j]); j++)
            ;
        if (j - i == 1) {
            t->calls[i].alone = 1;
            t->calls[kept++] = t->calls[i];
            continue;
        }
        t->setup[t->nsetup++] = t->calls[i];
        for (size_t k = i + 1; k < j; k++)
            t->calls[kept++] = t->calls[k];
    }
    t->ncalls = kept;
    return 0;
}

size_t cs_table_setup_in_group(const cs_table *t, const cs_row *r)
{
    size_t n = 0;
    for (size_t i = 0; i < t->nsetup; i++) {
        const cs_call *c = &t->setup[i];
        n += c->coll == r->coll && c->n == r->n && c->p == r->p && c->role == r->role;
    }
    return n;
}

cs_far_cause cs_row_far_cause(const cs_table *t, const cs_row *r, int dir)
{
    if (dir < 0 && r->alone == r->calls)
        return CS_FAR_SETUP;
    if (dir < 0 && t->cores > 0 && r->node_ranks > t->cores)
        return CS_FAR_OVERSUBSCRIBED;
    return CS_FAR_MODEL;
}

/* ---- rows ------------------------------------------------------------------- */

const char *cs_role_words(cs_role role)
{
    return role == CS_ROLE_ROOT ? "at the root" : role == CS_ROLE_OTHERS ? "at the other ranks" : "";
}

int cs_row_same_group(const cs_row *a, const cs_row *b)
{
    return a->coll == b->coll && a->n == b->n && a->p == b->p && a->role == b->role;
}

int cs_row_same_cell(const cs_row *a, const cs_row *b)
{
    return cs_row_same_group(a, b) && a->bin == b->bin;
}

/* Does row a rank before b as the cell's choice: more calls whose algorithm collshim chose, then
 * more calls, then the first by name? */
static int cs_more_chosen(const cs_table *t, const cs_row *a, const cs_row *b)
{
    if (a->decided != b->decided)
        return a->decided > b->decided;
    if (a->calls != b->calls)
        return a->calls > b->calls;
    return strcmp(t->names[a->alg], t->names[b->alg]) < 0;
}

/* Mark the chosen algorithm of each cell; rows of a cell are next to each other. */
static void cs_mark_chosen(cs_table *t)
{
    for (size_t i = 0, j; i < t->nrows; i = j) {
        size_t best = i;
        for (j = i + 1; j < t->nrows && cs_row_same_cell(&t->rows[i], &t->rows[j]); j++)
            if (cs_more_chosen(t, &t->rows[j], &t->rows[best]))
                best = j;
        t->rows[best].chosen = 1;
    }
}

/* The three collectives in the log's order, then the window lines, then any other by name. */
static int cs_coll_rank(const char *coll)
{
    static const char *const order[] = {"alltoall", "allreduce", "reduce", "window", "window_block"};
    for (int i = 0; i < (int)(sizeof order / sizeof order[0]); i++)
        if (!strcmp(coll, order[i]))
            return i;
    return (int)(sizeof order / sizeof order[0]);
}

static int cs_cmp_row(const void *a, const void *b, void *arg)
{
    const cs_row *x = a, *y = b;
    char *const *names = arg;
    int c = cs_cmp_int(cs_coll_rank(names[x->coll]), cs_coll_rank(names[y->coll]));
    c = c ? c : strcmp(names[x->coll], names[y->coll]);
    c = c ? c : cs_cmp_int(x->n, y->n);
    c = c ? c : cs_cmp_int(x->p, y->p);
    c = c ? c : cs_cmp_int((int)x->role, (int)y->role);
    c = c ? c : cs_cmp_int(x->bin, y->bin);
    c = c ? c : cs_cmp_int(y->chosen, x->chosen);
    c = c ? c : cs_cmp_double(&x->median, &y->median);
    return c ? c : strcmp(names[x->alg], names[y->alg]);
}

int cs_table_finish(cs_table *t)
{
    double *tmp = malloc((t->ncalls ? t->ncalls : 1) * sizeof *tmp);
    t->rows = malloc((t->ncalls ? t->ncalls : 1) * sizeof *t->rows);
    if (!tmp || !t->rows || cs_table_split_setup(t) != 0) {
        free(tmp);
        return -1;
    }
    qsort(t->calls, t->ncalls, sizeof *t->calls, cs_cmp_call);
    t->nrows = 0;
    for (size_t i = 0, j; i < t->ncalls; i = j) {
        for (j = i + 1; j < t->ncalls && cs_same_row(&t->calls[i], &t->calls[j]); j++)
            ;
        t->rows[t->nrows++] = cs_row_of(t, t->calls + i, j - i, tmp);
    }
    free(tmp);
    cs_mark_chosen(t);
    qsort_r(t->rows, t->nrows, sizeof *t->rows, cs_cmp_row, t->names);
    return 0;
}

void cs_table_free(cs_table *t)
{
    for (int i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->calls);
    free(t->setup);
    free(t->rows);
    *t = (cs_table){0};
}
