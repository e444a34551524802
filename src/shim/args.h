/*
 * Which calls collshim's algorithms may run: the arguments the MPI standard
 * makes significant, checked once per call; everything erroneous goes to the
 * MPI library, which judges it and reports through the communicator's error
 * handler.
 */
#ifndef CS_ARGS_H
#define CS_ARGS_H

#include <mpi.h>

#include "shim/shim.h"

/*
 * Check a call on an intracommunicator of ctx->p > 1 ranks and fill the
 * layouts in *l, all but its buffers (cs_args_check_buffers): what it says
 * is a function of the handles, counts, root and in-place, and holds for
 * every call that repeats them. NULL: collshim may run it. Otherwise the
 * call goes to the MPI library, and the string says why (for the log:
 * "erroneous: ...").
 */
const char *cs_args_check(const cs_call *c, const cs_context *ctx, cs_local *l);

/* The rest of the check: the buffers, with the layouts in *l; for a call
 * whose handles and counts repeat a checked one (cs_described), the one
 * part that can differ. */
const char *cs_args_check_buffers(const cs_call *c, const cs_context *ctx, const cs_local *l);

/* A significant count below zero, which the MPI library reports wrongly (MPI_ERR_COUNT). */
static inline int cs_args_count_negative(const cs_call *c)
{
    if (c->coll != CS_COLL_ALLTOALL)
        return c->scount < 0;
    return c->rcount < 0 || (c->sendbuf != MPI_IN_PLACE && c->scount < 0);
}

/* Are type and op (MPI_OP_NULL for alltoall) predefined handles, which no
 * program can free? */
int cs_args_predefined(MPI_Datatype type, MPI_Op op);
/* Whether op is a user's operator (MPI_Op_create), not a predefined one. */
int cs_args_op_user(MPI_Op op);

/* Is op defined on type, by the MPI library's own judgement? User
 * operators are defined on every type; predefined ones only on some
 * predefined types. *exact, if given, gets whether the combination is
 * exact in any order and bracketing. */
int cs_args_op_defined(MPI_Op op, MPI_Datatype type, int *exact);

/* Ask the MPI library, once, on which predefined types each predefined
 * operator is defined, and which integer sums and products it computes
 * wrongly (at start-up, before the program's first call). */
void cs_args_probe_ops(void);

/* Make what cs_args_probe_ops found wrong the same on every rank of comm (a
 * collective: MPI_Init's; MPI_COMM_NULL: this rank's own) and word it. */
void cs_args_probe_agree(MPI_Comm comm);

/* Why our algorithms combine (op, type) with their own loop, for the log
 * ("the library computes MPI_SUM on MPI_INT8_T wrongly"), or NULL where the
 * library computes it right. One compare when no pair is wrong. */
const char *cs_args_library_wrong(MPI_Op op, MPI_Datatype type);

#endif
