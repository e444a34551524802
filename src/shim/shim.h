/*
 * The shim's process state and per-communicator contexts.
 */
#ifndef CS_SHIM_H
#define CS_SHIM_H

#include <mpi.h>

#include "config/config.h"
#include "sched/exec.h"
#include "sched/nodes.h"
#include "sched/sched.h"
#include "select/select.h"

/* Written once in MPI_Init, read only afterwards. */
typedef struct cs_state {
    int on; /* MPI_Init went through the shim and the keyval exists */
    cs_config cfg;
    int keyval;
    int world_rank, world_size;
    /* MPI_COMM_WORLD's ranks on this rank's node (MPI_COMM_TYPE_SHARED),
     * found at start where the model prices nodes' links; 0: not known */
    int world_on_node;
    int reduce_inplace_bug; /* the library's MPI_Reduce fails in place at root != 0 */
    int thread_multiple;    /* MPI_THREAD_MULTIPLE: collectives on several communicators at once */
    /* Logging is configured (some rank may log; which ones do is each rank's
     * own): a communicator's first call makes its context, a collective, on
     * every rank alike, so no shortcut before it may depend on whether this
     * rank logs. */
    int log_configured;
} cs_state;

extern cs_state cs_shim;

/* Start the shim if MPI is up and it has not started (once, thread-safe). */
void cs_shim_ensure(void);

/* The arguments of the last call of a collective that went to the MPI
 * library by decision (src/shim/native_memo.c). Set only when its datatypes
 * and operator are predefined, which no program can free: the same handles
 * and counts then describe the same problem, with the same decision. */
typedef struct cs_native_memo {
    int valid;
    int inplace, scount, rcount, root;
    MPI_Datatype stype, rtype;
    MPI_Op op;
} cs_native_memo;

/* The layout of a datatype as the schedules see it. */
typedef struct cs_layout {
    MPI_Count size, extent, true_lb, true_extent;
    int contig; /* elements abut: size == extent == true extent */
} cs_layout;

/* One rank's view of a call, beyond the rank-invariant problem. */
typedef struct cs_local {
    cs_problem prob; /* as this rank builds it: reduce in place at the root */
    cs_layout send, recv;
    int inplace; /* MPI_IN_PLACE here, and significant here */
    int exact;   /* (type, op) combine exactly in any order (cs_args_op_defined) */
    /* The library computes (type, op) wrongly: ours combine it with their
     * own loop, and are preferred; why, for the log (cs_args_library_wrong). */
    const char *library_wrong;
} cs_local;

/* The last call of a collective that was checked and described on a
 * communicator (src/shim/native_memo.c): a call with the same predefined
 * handles and counts has the same problem and layouts, and only its
 * buffers are checked again. */
typedef struct cs_described {
    cs_native_memo key;
    cs_problem prob; /* rank-invariant, as the decision sees it */
    cs_local l;
} cs_described;

/* What collshim keeps on a communicator (an attribute). */
typedef struct cs_context {
    MPI_Comm parent;
    MPI_Comm comm; /* private duplicate for our traffic; MPI_COMM_NULL for intercommunicators */
    int p, rank;
    int inter;
    /* which node each rank is on (sched/nodes.h), gathered where the model
     * sees nodes or the log is on; map.node NULL and map.ppn 0 where the
     * model does not see them (cs_problem.node, .ppn); map.nodes 0: not asked */
    cs_nodes map;
    /* the ranks of this rank's node in rank order (colour its node), made
     * where a leader row may run its node level by the library (1 < nodes <
     * p, the model seeing nodes); else MPI_COMM_NULL */
    MPI_Comm node_comm;
    cs_select_cache cache; /* breakpoints per collective and variant */
    cs_sched sched;        /* the last schedule built, reused while calls repeat */
    const cs_alg *sched_alg;
    cs_problem sched_prob;
    cs_params sched_params;
    cs_scratch scratch;
    /* The last decision per collective: a repeated call (same problem)
     * skips selection, whose tuning can price many schedules. */
    int last_valid[CS_COLL_COUNT];
    cs_problem last_prob[CS_COLL_COUNT];
    cs_decision last_decision[CS_COLL_COUNT];
    /* A call that repeats the last one described: its problem and layouts
     * without datatype queries, and then the last decision. */
    cs_described described[CS_COLL_COUNT];
    struct cs_context *next, *prev;
} cs_context;

/* The context of comm, created (collectively) on its first collective. */
int cs_context_get(MPI_Comm comm, cs_context **ctx);
/* The node's communicator (ctx->node_comm: split from the private duplicate
 * by the node map, ranks in order), made on the first call that runs a
 * leader row's node level by the library: a decision every rank makes
 * alike, so every rank is in the split; freed with the context. Only
 * communicators that use it spend a context id on it. */
int cs_context_node_comm(cs_context *ctx);

int cs_context_keyval_create(void);
/* Free every context still attached (at MPI_Finalize), then the keyval. */
void cs_context_free_all(void);

/* One intercepted call. Reductions use scount/stype for count/datatype. */
typedef struct cs_call {
    cs_coll coll;
    const void *sendbuf;
    void *recvbuf;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
    /* The extension API: what runs after the schedule, on this rank alone
     * (the block window's pass over its slice), and its state; NULL: nothing. */
    int (*finish)(const struct cs_call *c, const cs_alg *ran);
    void *state;
} cs_call;

/* The key ignores what MPI ignores: an alltoall's send side in place. */
static inline int cs_native_memo_send_ignored(const cs_call *c)
{
    return c->coll == CS_COLL_ALLTOALL && c->sendbuf == MPI_IN_PLACE;
}

static inline int cs_native_memo_matches(const cs_native_memo *m, const cs_call *c)
{
    const int ignored = cs_native_memo_send_ignored(c);
    return m->valid && m->inplace == (c->sendbuf == MPI_IN_PLACE) && m->rcount == c->rcount && m->rtype == c->rtype &&
           m->op == c->op && m->root == c->root && (ignored || (m->scount == c->scount && m->stype == c->stype));
}

/* MPI_Reduce in place at a root other than 0, on a library with
 * pmodels/mpich#6540: the root's call must go around it (cs_shim_native). */
static inline int cs_reduce_inplace_bug_applies(const cs_call *c)
{
    return c->coll == CS_COLL_REDUCE && c->sendbuf == MPI_IN_PLACE && c->root != 0 && cs_shim.reduce_inplace_bug;
}

/* The last call of each collective that the library took by decision in
 * this process, with its communicator; never set under MPI_THREAD_MULTIPLE. */
typedef struct cs_native_last {
    MPI_Comm comm;
    cs_native_memo memo;
} cs_native_last;

extern cs_native_last cs_last_native[CS_COLL_COUNT];

/* Does c repeat the last call the library took by decision, on any
 * communicator? (Before the context is looked up, or the call described.) */
static inline int cs_native_memo_quick(const cs_call *c)
{
    return cs_last_native[c->coll].comm == c->comm && cs_native_memo_matches(&cs_last_native[c->coll].memo, c);
}

/* Remember c, which the library took by decision on ctx, for the process
 * (cs_native_memo_quick), if it is ctx's described call with predefined
 * handles. */
void cs_native_memo_set(cs_context *ctx, const cs_call *c);
/* Remember c, checked and described on ctx as *prob and *l, if its handles
 * are predefined; forget what ctx had otherwise. */
void cs_described_set(cs_context *ctx, const cs_call *c, const cs_problem *prob, const cs_local *l);
/* Does c repeat the handles and counts of the last call described on ctx? */
static inline int cs_described_hit(const cs_context *ctx, const cs_call *c)
{
    return cs_native_memo_matches(&ctx->described[c->coll].key, c);
}
/* Remember c, which went to the library for its size alone (a configured
 * native range, on any communicator), for the process only. */
void cs_native_memo_set_quick(const cs_call *c);
/* The communicator is being freed: its handle may come back as another. */
void cs_native_memo_forget(MPI_Comm comm);

/* An MPI collective: the whole path (src/shim/call.c). */
int cs_call_run(const cs_call *c);

/* A described call on ctx: decide (or repeat the last decision), run our
 * schedule and c->finish or the MPI library's collective, log. The
 * extension API enters here with its own checks done. */
int cs_call_go(const cs_call *c, cs_context *ctx, const cs_problem *prob, const cs_local *l);

#endif
