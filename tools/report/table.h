/*
 * The calls of one or many logs, condensed into rows: one per collective x window n x p x size bin
 * x algorithm. Size bins are powers of two, [2^k, 2^(k+1)) bytes, and one bin for 0 bytes. An
 * algorithm is the name before the ':' of what the log's "alg" says (butterfly:k=0 and
 * butterfly:k=1 are both butterfly); the row keeps its most-called spec. In each cell
 * (collective, n, p, bin) the chosen algorithm is the one collshim's selection ran most often:
 * calls whose choice was forced (COLLSHIM_ALLREDUCE=native, a forced algorithm in the
 * configuration: experiments) count only where every call of the cell was forced. Reduce's calls
 * at the root and at the other ranks are kept apart (their own rows, cells and groups): the root
 * waits for the whole reduction, the others only for their part of it.
 */
#ifndef CS_REPORT_TABLE_H
#define CS_REPORT_TABLE_H

#include <stddef.h>

#include "logline.h"

#define CS_BIN_EMPTY (-1) /* the bin of 0-byte calls */

/* Where a call was logged: any rank (every collective but reduce, and reduce's lines that lack
 * "rank" or "root"), reduce's root, or another rank of a reduce. */
typedef enum cs_role { CS_ROLE_ANY, CS_ROLE_ROOT, CS_ROLE_OTHERS } cs_role;

typedef struct cs_call {
    int coll, alg, spec; /* names (cs_table_name) */
    int n, p, bin;
    cs_role role;
    size_t bytes;
    double predicted, elapsed; /* predicted < 0: not priced */
    cs_why why;
    int reason; /* the reason's name where why is CS_WHY_OTHER, else -1 */
} cs_call;

typedef struct cs_row {
    int coll, alg, n, p, bin;
    cs_role role;
    int spec, nspecs;         /* the most-called spec (ties: the first by name) and how many specs ran */
    size_t calls;             /* log lines: one per logging rank per call */
    size_t whys[CS_WHY_LAST]; /* the calls per reason class */
    size_t decided;           /* those whose algorithm collshim chose (not forced) */
    double bytes;             /* the median size */
    double total;             /* the sum of the measured times */
    double median;            /* of the measured times */
    double predicted;         /* the median of the predictions; < 0: none (native) */
    int chosen;               /* the chosen algorithm of its cell (ties: the first by name) */
} cs_row;

typedef struct cs_table {
    char **names; /* the collectives, algorithms and specs met, by id */
    int nnames;
    size_t capnames;
    cs_call *calls;
    size_t ncalls, capcalls;
    cs_row *rows; /* after cs_table_finish: by collective, n, p, role, bin; the chosen row first in
                     a cell, then by median time */
    size_t nrows;
} cs_table;

/* Add a call. 0, or -1 when out of memory. */
int cs_table_add(cs_table *t, const cs_logline *l);

/* Build the rows from the calls. 0, or -1 when out of memory. */
int cs_table_finish(cs_table *t);

void cs_table_free(cs_table *t);

const char *cs_table_name(const cs_table *t, int id);

/* Do two rows share a panel (collective, n, p, role)? A cell (and the size bin)? */
int cs_row_same_group(const cs_row *a, const cs_row *b);
int cs_row_same_cell(const cs_row *a, const cs_row *b);

/* "", "at the root", "at the other ranks" */
const char *cs_role_words(cs_role role);

/* The bin of a size, and its label: "[64,128)", "[1K,2K)", "0". */
int cs_bin_of(size_t bytes);
void cs_bin_label(int bin, char *buf, size_t size);

/* A size as a short label: 512, 1K, 64K, 2M (powers of two and their multiples of 1024). */
void cs_bytes_label(double bytes, char *buf, size_t size);

#endif
