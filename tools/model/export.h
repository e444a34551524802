/*
 * collshim-model --export: the MPI library's own tuning file from the model.
 * Per collective and band of communicator size and message size, the
 * library's algorithm the model prices cheapest among the library's own
 * (select/library.c, library_openmpi.c), bands merged where the choice does
 * not change; and per band what collshim's own algorithms would gain over it.
 */
#ifndef CS_TOOL_EXPORT_H
#define CS_TOOL_EXPORT_H

#include <stdio.h>

#include "common.h"

enum { CS_EXPORT_SIZES = 25 }; /* the grid: 1 B to 16 MiB, every power of two */

/* One of the library's algorithms: MPICH's MPIR name or Open MPI's number (and chain fan-out).
 * unsafe: why a file must never name it (wrong for a class of calls the file cannot tell
 * apart: an operator's commutativity, a derived datatype), NULL where it is right for every call
 * the library accepts; such an algorithm is priced, and where it would have been named, the
 * export says which band it left and why. */
typedef struct cs_export_alg {
    const char *mpir;
    int alg, fanout;
    const char *unsafe;
} cs_export_alg;

/* Sizes (from, upto] (MPICH's avg_msg_size<=upto) or [upto, next) (Open MPI's
 * from) of grid point upto: algorithm alg, and over the band the cheapest of
 * ours where it beats the file, its price and gain (library / ours; 0: none). */
typedef struct cs_export_msg {
    size_t upto;
    int alg; /* index in the plan's algs; -1: Open MPI's own decision (algorithm 0) */
    const char *words;
    double gain;
    size_t gain_at;
    int gain_p;
    const char *ours;
    int unsafe; /* index in algs of an unsafe algorithm priced cheapest in the band; -1: none */
} cs_export_msg;

typedef struct cs_export_com {
    int p_lo, p_hi; /* communicator sizes */
    int n;          /* message bands, the last one open above */
    cs_export_msg msg[CS_EXPORT_SIZES];
} cs_export_com;

typedef struct cs_export_plan {
    int library; /* CS_LIBRARY_MPICH or CS_LIBRARY_OPENMPI */
    int pmax;
    const cs_export_alg *algs[CS_COLL_LAST];
    int ncom[CS_COLL_LAST];
    cs_export_com *com[CS_COLL_LAST];
} cs_export_plan;

/* The collectives exported, in the order written. */
extern const cs_coll cs_export_colls[3];

/* The plan for p = 2 .. pmax under model (its library is set to library). 0, or -1 out of memory. */
int cs_export_plan_make(const cs_model *model, int library, int pmax, cs_export_plan *plan);
void cs_export_plan_free(cs_export_plan *plan);

/* Where collshim's own would win: a line per band on out. */
void cs_export_report(const cs_export_plan *plan, double margin, FILE *out);

/* A line per band where an unsafe algorithm was priced cheapest and the file names another
 * (prefix: the line's start, e.g. the tool's name). The number of such bands. */
int cs_export_report_unsafe(const cs_export_plan *plan, const char *prefix, FILE *out);

/* The files (export_mpich.c, export_openmpi.c): 0, or -1 with why. base:
 * MPICH's tree for the other collectives (NULL: the one built into the
 * libmpich this tool runs with). */
int cs_export_write_mpich(const cs_export_plan *plan, const char *base, FILE *out, char *why, size_t n);
int cs_export_write_openmpi(const cs_export_plan *plan, FILE *out);

#endif
