/*
 * Schedules: what one rank does in one collective call, as data.
 *
 * A schedule is a sequence of rounds. In a round, a rank first exchanges
 * messages (every send and receive of the round is in flight at once), then
 * runs the round's local steps in order (copies and reductions). Algorithms
 * (src/coll/) build schedules from rank arithmetic alone; the MPI executor
 * (exec.c) runs them, the unit tests' simulator runs all ranks of one in
 * memory, and the model prices them (sched_cost.c).
 *
 * Byte offsets are relative to the first byte of data of a buffer: for the
 * user's buffers that is the buffer address plus the datatype's true lower
 * bound.
 */
#ifndef CS_SCHED_H
#define CS_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "common.h"

typedef enum cs_buf {
    CS_BUF_SEND, /* the user's send buffer (read only) */
    CS_BUF_RECV, /* the user's receive buffer */
    CS_BUF_TMP0, /* scratch, sized by the schedule */
    CS_BUF_TMP1,
    CS_BUF_LAST
} cs_buf;

typedef enum cs_step_kind {
    CS_STEP_SEND,
    CS_STEP_RECV,
    CS_STEP_COPY,    /* dst[dst_off..+len) = src[off..+len) */
    CS_STEP_REDUCE,  /* dst = src (+) dst: src is the left operand, as in MPI_Reduce_local */
    CS_STEP_UNREDUCE /* dst = dst (-) src: the inverse operator (sched/inverse.h), commutative groups only */
} cs_step_kind;

typedef struct cs_step {
    uint8_t kind;   /* cs_step_kind */
    uint8_t buf;    /* send/recv: the buffer; copy/reduce: the source */
    uint8_t dst;    /* copy/reduce: the destination */
    int peer;       /* send/recv: rank in the communicator */
    size_t off;     /* byte offset in buf */
    size_t dst_off; /* copy/reduce: byte offset in dst */
    size_t len;     /* bytes; reductions: a multiple of the element size */
} cs_step;

typedef struct cs_sched {
    cs_step *steps;
    size_t nsteps, cap;
    size_t *round_start; /* index of the first step of each round */
    int nrounds, round_cap;
    size_t tmp_bytes[2]; /* sizes of CS_BUF_TMP0 and CS_BUF_TMP1 */
    int error;           /* first failure while building (MPI error code), sticky */
    int messages_most;   /* the executor's most messages in a round, once it has run it (0: not yet) */
    /* Pricing mode: with a model set, builders store no steps and add up
     * the rank's cost instead (the same sum as cs_sched_stats_get). */
    const cs_model *price;
    double priced;                              /* rounds closed so far */
    int priced_starts;                          /* their start-ups (the alpha terms' count) */
    int priced_posts;                           /* their messages posted (the overhead terms' count) */
    size_t p_sent, p_recv, p_reduced, p_copied; /* the open round */
    int p_sends, p_recvs;
    /* ... on nodes (cs_sched_price_node): the priced rank, the problem (its
     * ppn, or its node map where that is not blocks of one size), how many
     * of a node's ranks send off it at once in a one-way round, and the
     * open round's messages off the node. */
    int p_rank, p_ppn; /* p_ppn 0: one level; -1: on the map p_node, the rank on node p_mynode */
    const int *p_node;
    int p_mynode;
    double p_alpha_on, p_beta_on, p_beta_exchange, p_beta_oneway;
    size_t p_sent_off, p_recv_off;
    int p_sends_off, p_recvs_off;
    /* ... and the network's core (model.beta_core): the communicator's size,
     * and the open round's nearest peer off the node, in ranks either way
     * round (a one-way round's senders over the communicator: p / 2 that). */
    int p_size, p_near_off;
    long p_hops;      /* the open round's farthest message from p_rank (model.distance; p_rank < 0: not priced) */
    size_t p_largest; /* the open round's largest message: its band prices the round (model.bands) */
} cs_sched;

void cs_sched_init(cs_sched *s);
void cs_sched_free(cs_sched *s);
/* Forget the steps, keep the memory: a schedule object can be reused. */
void cs_sched_reset(cs_sched *s);

/* Builders. Failures (allocation) are recorded in s->error, so a builder
 * calls them unchecked and returns s->error at the end. */
void cs_sched_round(cs_sched *s);
/* A step stored (sched.c); the builders below call it outside pricing mode. */
void cs_sched_store(cs_sched *s, const cs_step *step);

/* Pricing mode's share of a step: the open round's tallies. Inline, as a
 * communicator's first decision builds thousands of schedules in pricing
 * mode (at p = 65,535, a third of its time went to the calls). */
static inline void cs_sched_price_message(cs_sched *s, int send, int peer, size_t len)
{
    const int off =
        s->p_ppn && (s->p_ppn > 0 ? peer / s->p_ppn != s->p_rank / s->p_ppn : s->p_node[peer] != s->p_mynode);
    if (off) {
        const int d = peer > s->p_rank ? peer - s->p_rank : s->p_rank - peer;
        const int near = 2 * d > s->p_size ? s->p_size - d : d;
        s->p_near_off = near < s->p_near_off ? near : s->p_near_off;
    }
    s->p_largest = len > s->p_largest ? len : s->p_largest;
    if (send) {
        s->p_sent += len;
        s->p_sends++;
        s->p_sent_off += off ? len : 0;
        s->p_sends_off += off;
    } else {
        s->p_recv += len;
        s->p_recvs++;
        s->p_recv_off += off ? len : 0;
        s->p_recvs_off += off;
    }
    if (s->price->distance && s->p_rank >= 0) { /* its farthest message (cs_model_hop_latency) */
        const long h = cs_hops(s->price->distance, s->p_rank, peer);
        s->p_hops = h > s->p_hops ? h : s->p_hops;
    }
}

static inline void cs_sched_send(cs_sched *s, int peer, cs_buf buf, size_t off, size_t len)
{
    if (s->price)
        cs_sched_price_message(s, 1, peer, len);
    else
        cs_sched_store(s, &(cs_step){.kind = CS_STEP_SEND, .buf = buf, .peer = peer, .off = off, .len = len});
}

static inline void cs_sched_recv(cs_sched *s, int peer, cs_buf buf, size_t off, size_t len)
{
    if (s->price)
        cs_sched_price_message(s, 0, peer, len);
    else
        cs_sched_store(s, &(cs_step){.kind = CS_STEP_RECV, .buf = buf, .peer = peer, .off = off, .len = len});
}

static inline void cs_sched_copy(cs_sched *s, cs_buf src, size_t off, cs_buf dst, size_t dst_off, size_t len)
{
    if (len == 0 || (src == dst && off == dst_off))
        return;
    if (s->price)
        s->p_copied += len;
    else
        cs_sched_store(
            s, &(cs_step){.kind = CS_STEP_COPY, .buf = src, .dst = dst, .off = off, .dst_off = dst_off, .len = len});
}

/* A copy that extends the round's last step if that copies the bytes just
 * before, at both ends (blocks that lie next to each other move as one). */
void cs_sched_copy_merge(cs_sched *s, cs_buf src, size_t off, cs_buf dst, size_t dst_off, size_t len);

/* Combine (reduce) or undo a combination (unreduce: an exact inverse). */
static inline void cs_sched_combine(cs_sched *s, cs_step_kind kind, cs_buf src, size_t off, cs_buf dst, size_t dst_off,
                                    size_t len)
{
    if (len == 0)
        return;
    if (s->price)
        s->p_reduced += len;
    else
        cs_sched_store(s, &(cs_step){.kind = kind, .buf = src, .dst = dst, .off = off, .dst_off = dst_off, .len = len});
}

static inline void cs_sched_reduce(cs_sched *s, cs_buf src, size_t off, cs_buf dst, size_t dst_off, size_t len)
{
    cs_sched_combine(s, CS_STEP_REDUCE, src, off, dst, dst_off, len);
}

static inline void cs_sched_unreduce(cs_sched *s, cs_buf src, size_t off, cs_buf dst, size_t dst_off, size_t len)
{
    cs_sched_combine(s, CS_STEP_UNREDUCE, src, off, dst, dst_off, len);
}

void cs_sched_scratch(cs_sched *s, cs_buf tmp, size_t bytes);

/* The steps of round r are steps[first .. end). */
static inline size_t cs_sched_round_end(const cs_sched *s, int r)
{
    return r + 1 < s->nrounds ? s->round_start[r + 1] : s->nsteps;
}

/* What one rank's schedule does, for the log and the model. */
typedef struct cs_sched_stats {
    int rounds;           /* rounds with at least one message */
    size_t sent_bytes;    /* sum over sends */
    size_t reduced_bytes; /* sum over reductions */
    size_t copied_bytes;  /* sum over copies */
    double cost;          /* seconds under the model (see sched_cost.c) */
} cs_sched_stats;

void cs_sched_stats_get(const cs_sched *s, const cs_model *model, cs_sched_stats *out);

/* Pricing mode: start (after cs_sched_init), and the total once built. */
void cs_sched_price_start(cs_sched *s, const cs_model *model);
double cs_sched_price_total(cs_sched *s);
/* ... with the rank being priced on prob's nodes (after cs_sched_price_start;
 * nothing where the model has one level): a message off the rank's node
 * costs alpha and beta or its share of the node's link, as many of the
 * node's ranks sending at once as prob->ppn in a round that exchanges (on
 * a map of uneven nodes, cs_model_map_uneven: p / nodes rounded up),
 * `oneway` in one that only sends or receives; one within it alpha_node
 * and beta_node (cs_model_at_level). Through the network's core
 * (model.beta_core; where the model sees no nodes, a rank a node): in a
 * round that exchanges every rank of the communicator at once, in a one-way
 * round p / 2d of them, d the nearest peer off the node (a tree's round). */
void cs_sched_price_node(cs_sched *s, int rank, const cs_problem *prob, int oneway);

/* A round's messages at one alpha and beta: o per post, alpha per message
 * of the busier direction, beta per byte of the larger (sched_cost.c's
 * model). */
static inline double cs_sched_messages_cost(double o, double alpha, double beta, int sends, int recvs, size_t sent,
                                            size_t received)
{
    return o * (sends + recvs) + alpha * (sends > recvs ? sends : recvs) +
           beta * (double)(sent > received ? sent : received);
}

/* One round's cost under the model (sched_cost.c). */
static inline double cs_sched_round_cost(const cs_model *model, int sends, int recvs, size_t sent, size_t received,
                                         size_t reduced, size_t copied)
{
    return cs_sched_messages_cost(model->overhead, model->alpha, model->beta, sends, recvs, sent, received) +
           model->gamma * (double)reduced + model->rho * (double)copied;
}

#endif
