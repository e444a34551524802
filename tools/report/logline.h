/*
 * One line of a collshim log read back (the writer is src/log/log.c; README.md, "The log"): the
 * call lines of the three collectives, and the window lines of the extension API ("coll":"window"
 * and "window_block", which carry the window n). Anything else a log may hold is not a call: rank 0's
 * summary, as a table ("@" lines and its rows, in older logs) or as a JSON record (an object with
 * no "coll", or with a "summary" key, or a "record" or "type" other than "call"), or a program's
 * own output when the log is stderr.
 */
#ifndef CS_LOGLINE_H
#define CS_LOGLINE_H

#include <stddef.h>

#include "why.h"

typedef struct cs_logline {
    char coll[32];    /* "alltoall", "allreduce", "reduce", "window", "window_block" */
    char alg[128];    /* as logged: "native", "butterfly:k=0", "multiphase:1,1" */
    int p;            /* the communicator's size */
    int n;            /* the window on window lines, else 0 */
    size_t bytes;     /* count x type size; alltoall: the block for one destination */
    double predicted; /* seconds; < 0 where the log says null (native, unpriced) */
    double elapsed;   /* seconds, measured on the logging rank */
    int rank, root;   /* the logging rank and the call's root; -1 where the line has none */
    int nodes;        /* the nodes the communicator spans; -1 where the line does not say */
    int share;        /* communicators like this one sharing its nodes (the log's "share"); 1 where absent */
    cs_why why;       /* the class of the line's reason */
    char reason[96];  /* the reason as logged, cut to fit (for the reasons of class other) */
} cs_logline;

typedef enum cs_line_kind {
    CS_LINE_OTHER, /* not a JSON object: a summary line, a blank, a program's output */
    CS_LINE_CALL,  /* *out holds the call */
    CS_LINE_BAD    /* a JSON object we cannot read; why says what is wrong */
} cs_line_kind;

/* Read one line (a trailing newline is allowed). */
cs_line_kind cs_logline_parse(const char *line, cs_logline *out, char *why, size_t whysize);

#endif
