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
 *
 * Set-up: a program's first call of a collective and size on a communicator pays for what the
 * library and the shim set up once (connections, buffers, a duplicate communicator), often 10 to
 * 1000 times a later call. So each rank's first call (in its log) of a collective, n, p, role,
 * size bin and algorithm is left out of the rows where that rank made more than one there; where
 * it made one, the call stays and the row counts it as alone (cs_row.alone: a row of such calls
 * only may be all set-up).
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
    int reason;     /* the reason's name where why is CS_WHY_OTHER, else -1 */
    int log, rank;  /* the log it came from (cs_table_add's order) and the logging rank (-1: not said) */
    size_t seq;     /* its place among the calls added: the order of a log's lines */
    int node_ranks; /* ranks on one of its nodes, at least: ceil(p / nodes) x share (p where nodes is not said) */
    int alone;      /* the only call of its rank, bin and algorithm (set by cs_table_finish) */
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
    size_t alone;             /* calls that were their rank's only one in the row (set-up?) */
    int node_ranks;           /* the most ranks on one node among its calls (cs_call.node_ranks) */
} cs_row;

typedef struct cs_table {
    char **names; /* the collectives, algorithms and specs met, by id */
    int nnames;
    size_t capnames;
    cs_call *calls;
    size_t ncalls, capcalls;
    cs_call *setup; /* after cs_table_finish: the calls left out as set-up */
    size_t nsetup;
    cs_row *rows; /* after cs_table_finish: by collective, n, p, role, bin; the chosen row first in
                     a cell, then by median time */
    size_t nrows;
    int cores; /* the cores of a node, for "oversubscribed?" (the caller's to set; 0: not known) */
} cs_table;

/* Add a call of log number log (0, 1, ...: each rank's log its own). 0, or -1 when out of memory. */
int cs_table_add(cs_table *t, const cs_logline *l, int log);

/* Build the rows from the calls. 0, or -1 when out of memory. */
int cs_table_finish(cs_table *t);

void cs_table_free(cs_table *t);

const char *cs_table_name(const cs_table *t, int id);

/* Do two rows share a panel (collective, n, p, role)? A cell (and the size bin)? */
int cs_row_same_group(const cs_row *a, const cs_row *b);
int cs_row_same_cell(const cs_row *a, const cs_row *b);

/* The calls left out as set-up in row r's group (collective, n, p, role). */
size_t cs_table_setup_in_group(const cs_table *t, const cs_row *r);

/* Why a row's prediction is far off (cs_far_off's dir), as a cause for cs_far_off_words: set-up
 * where every call of the row was its rank's only one there and the model predicted faster;
 * oversubscribed where the model predicted faster and its ranks on one node exceed t->cores. */
cs_far_cause cs_row_far_cause(const cs_table *t, const cs_row *r, int dir);

/* "", "at the root", "at the other ranks" */
const char *cs_role_words(cs_role role);

/* The bin of a size, and its label: "[64,128)", "[1K,2K)", "0". */
int cs_bin_of(size_t bytes);
void cs_bin_label(int bin, char *buf, size_t size);

/* A size as a short label: 512, 1K, 64K, 2M (powers of two and their multiples of 1024). */
void cs_bytes_label(double bytes, char *buf, size_t size);

#endif
