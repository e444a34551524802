/*
 * collshim-calibrate's measurements over MPI: a collective by several paths
 * (the library's, and schedules of ours run by collshim's executor) timed in
 * paired repetitions, and the micro-measurements behind alpha, beta, rho and
 * gamma. Every time is the slowest rank's.
 */
#ifndef CS_CAL_MEASURE_H
#define CS_CAL_MEASURE_H

#include <mpi.h>

#include "coll/coll.h"
#include "sched/exec.h"
#include "sched/nodes.h"

#define CS_CAL_MAX_REPS 64
/* Ping-pongs of a size before its timings (cs_cal_pingpong_pairs), up to CS_CAL_WARM_BYTES; 4 above. */
#define CS_CAL_WARM 100
#define CS_CAL_WARM_BYTES 65536

/* A communicator under measurement, and a private duplicate for our traffic. */
typedef struct cs_cal_comm {
    MPI_Comm comm, priv;
    int p, rank;
    cs_nodes map; /* which node each rank is on, ppn where in blocks (sched/nodes.h) */
    cs_scratch scratch;
    int global_clock; /* every rank reads one clock (MPI_WTIME_IS_GLOBAL): timings start at one instant */
    double slack;     /* how long before that instant the ranks agree on it (grows when one is late) */
} cs_cal_comm;

/* One way to run the call: the library's collective (alg NULL or native) or ours. */
typedef struct cs_cal_path {
    const cs_alg *alg;
    cs_params params;
    cs_sched sched; /* this rank's, built by cs_cal_time */
    /* Seconds per call, per repetition, the slowest rank's, timed two ways:
     * t, calls back to back (total / calls), as applications and OSU or IMB
     * call a collective in a loop, where ranks that leave a tree early run
     * ahead into the next call; t_start, one call from a common start (a
     * barrier, or one instant where the clock is global: common_start.h),
     * the critical path the model prices. */
    double t[CS_CAL_MAX_REPS], t_start[CS_CAL_MAX_REPS];
} cs_cal_path;

typedef struct cs_cal_timing {
    int reps;      /* paired repetitions */
    double target; /* seconds one timing should last: calls per timing follow */
    int calls;     /* what that gave, for the record */
} cs_cal_timing;

/* The problem calibration measures: MPI_DOUBLE with MPI_SUM for the
 * reductions (root 0), bytes for alltoall. */
void cs_cal_problem(cs_coll coll, int p, size_t bytes, cs_problem *prob);

/*
 * Build the schedules, run every path once and compare its result with the
 * library's (bit for bit: the inputs are small integers, exact in any order),
 * warm up, then time: in repetition r every path in turn (the first one
 * rotating) runs tm->calls calls back to back from a barrier (t), then one
 * call from a common start (t_start; the same timing when tm->calls is 1,
 * as under a simulator with --target 0). Returns MPI_SUCCESS, or
 * MPI_ERR_OTHER after printing which path gave a wrong result.
 */
int cs_cal_time(cs_cal_comm *c, const cs_problem *prob, cs_cal_path *paths, int npaths, cs_cal_timing *tm);

/* Free what cs_cal_time built. */
void cs_cal_paths_free(cs_cal_path *paths, int npaths);

/* Half the round trip of a ping-pong of `bytes`, every rank r of comm with
 * peer[r] at once (peer[peer[r]] == r; -1: r waits), timed at rank a, median
 * of reps (every rank of comm calls it and gets it). */
double cs_cal_pingpong_pairs(MPI_Comm comm, const int *peer, int a, size_t bytes, int reps, double target);

/* Half the round trip of a `bytes`-byte ping-pong between rank 0 of comm
 * and each other rank in turn, the median of reps (after one to warm up),
 * into lat[1..p) on every rank (lat[0]: 0); the others wait their turn. */
void cs_cal_latency_row(MPI_Comm comm, size_t bytes, int reps, double *lat);

/* Rank 1 of comm posts a send of `bytes` to rank 0 at once, while rank 0
 * first does a 1-byte ping-pong with it and only then posts the receive:
 * the seconds from that post to the receive's end, median of reps (every
 * rank gets it; the others only wait for it). Eagerly the block is in by
 * then, or nearly; by rendezvous it leaves only now (alpha + beta m).
 * warm: ping-pongs of the size first (a real machine's first ones run slow;
 * not in a simulator). */
double cs_cal_late_receive(MPI_Comm comm, size_t bytes, int reps, int warm);

/* Half a k-message round trip of `bytes`-byte messages (the line
 * t = alpha + k o, model/fit.h): rank 0 of comm posts k sends to rank 1,
 * then k receives, and rank 1, once it has all k, returns them; rank 0's time
 * (common_start.h: from one instant where the clock is global, else from a
 * barrier), median of reps (every rank gets it); -1 if out of memory. */
double cs_cal_fan(MPI_Comm comm, int k, size_t bytes, int reps, double target);

/* Half the round trip of k ranks from[0..k) (not 0, at most CS_CAL_FAN_MAX)
 * each sending a `bytes`-byte block to rank 0 of comm at once, and rank 0,
 * once it has them all, returning each: the slowest rank's time, median of
 * reps (every rank of comm calls it and gets it); -1 if out of memory. */
double cs_cal_fan_in(MPI_Comm comm, const int *from, int k, size_t bytes, int reps, double target);

/* Seconds to memcpy `bytes` on every rank at once (the slowest; median of reps). */
double cs_cal_copy(MPI_Comm comm, size_t bytes, int reps);

/* Seconds for PMPI_Reduce_local of `bytes` of type with op on every rank at once. */
double cs_cal_reduce_local(MPI_Comm comm, MPI_Datatype type, MPI_Op op, size_t bytes, int reps);

#endif
