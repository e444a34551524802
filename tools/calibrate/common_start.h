/*
 * A common start for a timing where every rank reads one clock (MPI_WTIME_IS_GLOBAL: a
 * simulator such as SimGrid's SMPI). The ranks agree on the latest of their clocks (a
 * max-allreduce) and each sleeps until that instant plus a slack longer than the agreement
 * takes (nanosleep: simulated time under SMPI); a call's time is then from that instant to the
 * last rank's end (cs_timed_calls, which starts from a barrier where the clocks differ). A
 * barrier start instead lets ranks leave the barrier at different instants: a rank that leaves
 * late starts its clock late, and one call's time is mostly that skew. Used
 * by collshim-calibrate (tools/calibrate/measure.c) and the scale lab's benchmark
 * (bench/smpi/collshim_smpi_bench.c).
 */
#ifndef CS_COMMON_START_H
#define CS_COMMON_START_H

#include <mpi.h>
#include <time.h>

/* The common start on comm, slack seconds after the latest clock; *late: this rank reached it
 * after it had passed (the slack was too short: time again with a longer one). */
static inline double cs_common_start(MPI_Comm comm, double slack, int *late)
{
    double now = PMPI_Wtime(), latest;
    PMPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, comm);
    const double start = latest + slack;
    now = PMPI_Wtime();
    *late = now > start;
    if (start > now) {
        const double dt = start - now;
        struct timespec ts = {.tv_sec = (time_t)dt, .tv_nsec = (long)((dt - (double)(time_t)dt) * 1e9)};
        nanosleep(&ts, NULL);
    }
    return start;
}

/* Seconds per call of `calls` calls of call(arg) on comm, the slowest rank's. global: from a
 * common start to the last rank's end (a timing some rank started late is done again with four
 * times *slack); else each rank from its exit from a barrier. */
static inline double cs_timed_calls(MPI_Comm comm, int global, double *slack, int calls, void (*call)(void *),
                                    void *arg)
{
    for (;;) {
        int late = 0;
        double t0;
        if (global) {
            t0 = cs_common_start(comm, *slack, &late);
        } else {
            PMPI_Barrier(comm);
            t0 = PMPI_Wtime();
        }
        for (int i = 0; i < calls; i++)
            call(arg);
        const double end = PMPI_Wtime();
        double mine[2] = {global ? end : (end - t0) / calls, late}, all[2];
        PMPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm);
        if (all[1] == 0)
            return global ? (all[0] - t0) / calls : all[0];
        *slack *= 4;
    }
}

/* Does every rank of MPI_COMM_WORLD read one clock? */
static inline int cs_clock_is_global(void)
{
    int flag = 0, *v = NULL;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
    return flag && v && *v;
}

#endif
