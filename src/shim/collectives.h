/*
 * The shim's side of each collective (src/shim/collectives.c).
 */
#ifndef CS_SHIM_COLLECTIVES_H
#define CS_SHIM_COLLECTIVES_H

#include "sched/exec.h"
#include "shim/shim.h"

typedef struct cs_shim_coll {
    /* The MPI library's collective (through cs_shim_native). */
    int (*native)(const cs_call *c);
    /* Fill prob (beyond coll and p) and this rank's l->prob from a checked
     * call; NULL for the extension API, whose entries describe their calls. */
    int (*describe)(const cs_call *c, cs_problem *prob, cs_local *l);
    /* Run ctx's schedule on the call's buffers. */
    int (*run)(const cs_call *c, cs_context *ctx, const cs_local *l, cs_exec *x);
} cs_shim_coll;

const cs_shim_coll *cs_shim_coll_of(cs_coll coll);

/* The MPI library's collective for a call, around the library's known bugs. */
int cs_shim_native(const cs_call *c);

/* Is the call's message in a configured native range? (one datatype query) */
int cs_shim_coll_in_native_range(const cs_call *c, const cs_coll_config *cc);

#endif
