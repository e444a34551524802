/*
 * The decision log. Level "calls": one JSON object per line per call on each
 * logging rank. Level "summary": at MPI_Finalize rank 0 writes a table per
 * collective x algorithm x size bin x why, then the collectives the shim did
 * not intercept (cs_log_uncaught), which each logging rank's log also has,
 * as one record. Level "off": nothing is formatted or written on the call
 * path.
 */
#ifndef CS_LOG_H
#define CS_LOG_H

#include <mpi.h>

#include "config/config.h"
#include "sched/sched.h"
#include "select/select.h"

typedef struct cs_record {
    const cs_problem *prob;
    const cs_decision *d;
    int rank;
    MPI_Op op; /* MPI_OP_NULL for alltoall */
    int inplace;
    double elapsed;
    const cs_sched_stats *stats; /* NULL when the MPI library ran the call */
} cs_record;

/* Open the destination for this rank (COMM_WORLD rank). An unwritable path
 * is reported once, by the lowest logging rank, and logging goes off. */
void cs_log_open(const cs_config *cfg, int world_rank, int world_size);

/* Is this rank recording calls (for the log or the summary)? */
int cs_log_active(void);

void cs_log_call(const cs_record *r);

/* A collective the shim did not intercept and how many times this process
 * called it (name: static text); before cs_log_finalize, which says so once:
 * a section of rank 0's summary, a record of each logging rank's log. */
void cs_log_uncaught(const char *name, unsigned long long calls);

/* Rank 0 writes the summary (level summary or calls); then close. */
void cs_log_finalize(void);

/* "MPI_SUM"... or "user" */
const char *cs_log_op_name(MPI_Op op);

/* The algorithm with its parameters as a configuration would name it:
 * "native", "direct", "butterfly:k=2". */
void cs_log_alg_spec(const cs_decision *d, char *buf, size_t size);

#endif
