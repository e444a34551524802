/*
 * The MPI executor: runs one rank's schedule over nonblocking PMPI
 * point-to-point calls on the communicator's private duplicate, with
 * memcpy for copies and PMPI_Reduce_local for reductions (or our own loop
 * where the library computes the pair wrongly).
 */
#ifndef CS_EXEC_H
#define CS_EXEC_H

#include <mpi.h>

#include "sched/sched.h"

/* Scratch memory kept from call to call (grown, never shrunk): the
 * schedule's buffers, the requests and statuses of a round. */
typedef struct cs_scratch {
    void *buf[2];
    size_t size[2];
    MPI_Request *reqs;
    MPI_Status *st;
    int nreqs;
} cs_scratch;

void cs_scratch_free(cs_scratch *sc);

typedef struct cs_exec {
    void *buf[CS_BUF_LAST]; /* first data byte of SEND and RECV; cs_exec_run sets the TMPs */
    MPI_Datatype type;      /* reductions: the element type (contiguous) */
    MPI_Aint type_lb;       /* its true lower bound */
    size_t type_extent;     /* bytes per element */
    MPI_Op op;
    /* Nonzero: reductions combine with our own wrapping loop on elements of
     * this width (sched/combine.h), not PMPI_Reduce_local, which the library
     * gets wrong for this (op, type). */
    size_t own_width;
    MPI_Comm comm;       /* the private duplicate */
    cs_scratch *scratch; /* where CS_BUF_TMP0/1 live */
} cs_exec;

/* Runs the schedule; returns the first MPI error met, MPI_ERR_OTHER if a
 * partner failed (exec.c: how a failure travels without leaving anyone
 * waiting). Remembers in s what it counts of the schedule's rounds. */
int cs_exec_run(cs_sched *s, cs_exec *x);

#endif
