/*
 * The schedule simulator of the unit tests (docs/architecture.md, "Schedules").
 *
 * It runs the schedules of all p ranks of one collective call in memory, in
 * lock step, round by round, as the MPI executor would run them on p
 * processes: in a round every send reads its bytes first, then every send is
 * matched with the receive its peer posted in the same round and the bytes
 * land, then each rank runs its local steps in order. Everything the MPI
 * executor could not run, or would run into an erroneous MPI program, is
 * reported (never aborted on) as a violation with rank, round and step.
 *
 * The data are chosen so that the result says what happened:
 * - alltoall: every byte is a hash of (source rank, destination rank, byte
 *   index), so every byte of every block is checked at its destination;
 * - allreduce and reduce: every element is a uint32 node id of an expression
 *   tree that the simulated operator records (leaf(rank, element) at the
 *   start, combine(left, right) in each reduction), so the result says which
 *   operands were combined, in which order and with which bracketing.
 */
#ifndef SIM_H
#define SIM_H

#include <stddef.h>

#include "coll/coll.h"
#include "common.h"
#include "sched/sched.h"

/* What went wrong. */
typedef enum sim_kind {
    SIM_V_SETUP,          /* the problem cannot be simulated (test bug) */
    SIM_V_BUILD,          /* build returned an error, or the schedule's sticky error is set */
    SIM_V_STEP,           /* unknown step kind or buffer name */
    SIM_V_PEER,           /* send or receive to self, or peer outside 0..p-1 */
    SIM_V_BOUNDS,         /* a byte range outside its buffer (any access to a 0-byte buffer) */
    SIM_V_WRITE_SEND,     /* a receive, copy or reduction writes CS_BUF_SEND */
    SIM_V_OVERLAP,        /* a receive overlaps another receive or a send of its round */
    SIM_V_ALIAS,          /* a copy or reduction whose source and destination overlap */
    SIM_V_REDUCE_LEN,     /* a reduction length not a multiple of the element size */
    SIM_V_NO_OP,          /* a reduction in a collective without an operator (alltoall) */
    SIM_V_UNMATCHED_SEND, /* a send that no receive of the peer's same round takes */
    SIM_V_UNMATCHED_RECV, /* a receive that no send of the peer's same round feeds */
    SIM_V_LENGTH,         /* matched send and receive of different lengths */
    SIM_V_DATA,           /* alltoall: a byte of the result is wrong */
    SIM_V_ORDER,          /* reduction: an element is not leaves 0..p-1 combined in order */
    SIM_V_SHAPE,          /* reduction: bracketing differs between ranks or elements */
    SIM_V_LAST
} sim_kind;

const char *sim_kind_name(sim_kind kind);

#define SIM_MAX_MSGS 8
#define SIM_MSG_LEN 200

typedef struct sim_report {
    int total;             /* violations found */
    int count[SIM_V_LAST]; /* by kind */
    int nmsg;              /* the first SIM_MAX_MSGS are described */
    char msg[SIM_MAX_MSGS][SIM_MSG_LEN];
} sim_report;

/* Options of sim_run. */
enum {
    /* Accept a different bracketing per rank or element; the leaves must
     * still be 0..p-1 in order (rows that require CS_REQ_EXACT or
     * CS_REQ_COMMUTATIVE promise no bracketing). */
    SIM_RELAX_SHAPE = 1u << 0
};

/*
 * Run scheds[0..p-1] (p = prob->p) of one call of prob->coll and check the
 * results. Buffers are those the caller of the collective provides (see
 * sim.c). For reductions prob->elem must be 4; a commutative problem
 * (CS_PROB_COMMUTATIVE) gets a commutative operator: a (+) b and b (+) a are
 * the same value. Returns rep->total.
 */
int sim_run(const cs_problem *prob, const cs_sched *scheds, unsigned opts, sim_report *rep);

/*
 * The same for an allreduce whose rank r gets the reduction of the vectors
 * of ranks lo[r]..hi[r] only (windowed reductions); the bracketing is
 * compared between the elements of one rank.
 */
int sim_run_spans(const cs_problem *prob, const cs_sched *scheds, unsigned opts, const int *lo, const int *hi,
                  sim_report *rep);

/*
 * Build the schedule of every rank with alg->build (params already tuned)
 * into scheds[0..p-1] (initialized by the caller; reset here, so the memory is
 * reused from call to call) and run them. The options follow alg->requires.
 */
int sim_run_alg(const cs_alg *alg, const cs_problem *prob, const cs_params *params, cs_sched *scheds, sim_report *rep);

/* p initialized schedules, and their release. */
cs_sched *sim_scheds_new(int p);
void sim_scheds_free(cs_sched *scheds, int p);

/* The slowest rank's cost under model, and the most rounds of any rank. */
double sim_cost_max(const cs_sched *scheds, int p, const cs_model *model);
int sim_rounds_max(const cs_sched *scheds, int p);

/* One line for an assertion message: counts by kind and the first messages. */
const char *sim_report_str(const sim_report *rep, char *buf, size_t size);

#endif
