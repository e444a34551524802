/*
 * Measurements over MPI (measure.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/common_start.h"
#include "calibrate/derive.h"
#include "calibrate/measure.h"

void cs_cal_problem(cs_coll coll, int p, size_t bytes, cs_problem *prob)
{
    memset(prob, 0, sizeof *prob);
    prob->coll = coll;
    prob->p = p;
    if (coll == CS_COLL_ALLTOALL) {
        prob->elem = 1;
        prob->count = prob->bytes = bytes;
        prob->flags = CS_PROB_CONTIG;
    } else {
        prob->elem = sizeof(double);
        prob->count = bytes / sizeof(double);
        prob->bytes = prob->count * sizeof(double);
        prob->flags = CS_PROB_CONTIG | CS_PROB_COMMUTATIVE; /* MPI_SUM on doubles: not exact */
    }
}

static int cs_cal_native(const cs_cal_comm *c, const cs_problem *prob, const void *send, void *recv)
{
    const int n = (int)prob->count;
    switch (prob->coll) {
    case CS_COLL_ALLTOALL: return PMPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, c->comm);
    case CS_COLL_ALLREDUCE: return PMPI_Allreduce(send, recv, n, MPI_DOUBLE, MPI_SUM, c->comm);
    default: return PMPI_Reduce(send, recv, n, MPI_DOUBLE, MPI_SUM, prob->root, c->comm);
    }
}

static int cs_cal_run(cs_cal_comm *c, const cs_problem *prob, cs_cal_path *path, const void *send, void *recv)
{
    if (!path->alg || !path->alg->build)
        return cs_cal_native(c, prob, send, recv);
    const int has_result = prob->coll != CS_COLL_REDUCE || c->rank == prob->root;
    cs_exec x = {.buf = {(void *)send, has_result ? recv : NULL},
                 .type = prob->coll == CS_COLL_ALLTOALL ? MPI_BYTE : MPI_DOUBLE,
                 .type_extent = prob->elem,
                 .op = MPI_SUM,
                 .comm = c->priv,
                 .scratch = &c->scratch};
    return cs_exec_run(&path->sched, &x);
}

/* One call of a path, for cs_timed_calls. */
typedef struct cs_cal_call {
    cs_cal_comm *c;
    const cs_problem *prob;
    cs_cal_path *path;
    const void *send;
    void *recv;
} cs_cal_call;

static void cs_cal_call_once(void *arg)
{
    cs_cal_call *k = arg;
    cs_cal_run(k->c, k->prob, k->path, k->send, k->recv);
}

/* The slowest rank's seconds per call of `calls` calls of a path (common_start.h: from one
 * instant where the clocks are one, else from a barrier). */
static double cs_cal_timed(cs_cal_comm *c, const cs_problem *prob, cs_cal_path *path, const void *send, void *recv,
                           int calls)
{
    cs_cal_call k = {c, prob, path, send, recv};
    return cs_timed_calls(c->comm, c->global_clock, &c->slack, calls, cs_cal_call_once, &k);
}

/* Our result against the library's, where the rank has one; 0 if the same on every rank. */
static int cs_cal_check(cs_cal_comm *c, const cs_problem *prob, const void *ref, const void *recv, size_t size)
{
    int bad = (prob->coll != CS_COLL_REDUCE || c->rank == prob->root) && memcmp(ref, recv, size) != 0, any;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, c->comm);
    return any;
}

int cs_cal_time(cs_cal_comm *c, const cs_problem *prob, cs_cal_path *paths, int npaths, cs_cal_timing *tm)
{
    const size_t size = prob->coll == CS_COLL_ALLTOALL ? prob->bytes * (size_t)c->p : prob->bytes;
    char *send = malloc(size + 1), *recv = malloc(size + 1), *ref = malloc(size + 1);
    int rc = send && recv && ref ? MPI_SUCCESS : MPI_ERR_NO_MEM;

    for (size_t i = 0; rc == MPI_SUCCESS && i < size; i++)
        send[i] = (char)((c->rank * 7 + i) % 13);
    if (rc == MPI_SUCCESS && prob->coll != CS_COLL_ALLTOALL)
        for (size_t i = 0; i < prob->count; i++)
            ((double *)send)[i] = (double)((c->rank + i) % 5); /* small integers: exact sums */
    for (int k = 0; rc == MPI_SUCCESS && k < npaths; k++) {
        cs_sched_init(&paths[k].sched);
        if (paths[k].alg && paths[k].alg->build)
            rc = paths[k].alg->build(prob, &paths[k].params, c->rank, &paths[k].sched);
    }
    /* Every rank goes on, or none: a rank that could not allocate must not leave the others waiting. */
    int failed = rc != MPI_SUCCESS, any;
    PMPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, c->comm);
    if (any && rc == MPI_SUCCESS)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS)
        rc = cs_cal_native(c, prob, send, ref);
    for (int k = 0; rc == MPI_SUCCESS && k < npaths; k++) {
        memset(recv, 0, size);
        rc = cs_cal_run(c, prob, &paths[k], send, recv);
        if (rc == MPI_SUCCESS && cs_cal_check(c, prob, ref, recv, size)) {
            char spec[128];
            cs_alg_spec(paths[k].alg, &paths[k].params, spec, sizeof spec);
            if (c->rank == 0)
                fprintf(stderr, "collshim-calibrate: %s at p = %d, %zu bytes: %s's result differs from the library's\n",
                        cs_coll_name(prob->coll), c->p, prob->bytes, spec);
            rc = MPI_ERR_OTHER;
        }
    }
    if (rc == MPI_SUCCESS) {
        /* As many calls per timing as make it last the target, judged by the library's. */
        const double one = cs_cal_timed(c, prob, &paths[0], send, recv, 1);
        tm->calls = one > 0 ? (int)(tm->target / one) + 1 : 1;
        if (tm->calls > 10000)
            tm->calls = 10000;
        for (int k = 0; k < npaths; k++)
            cs_cal_timed(c, prob, &paths[k], send, recv, 1);
        for (int r = 0; r < tm->reps; r++)
            for (int j = 0; j < npaths; j++) {
                const int k = (r + j) % npaths;
                paths[k].t[r] = cs_cal_timed(c, prob, &paths[k], send, recv, tm->calls);
                paths[k].t_start[r] = tm->calls > 1 ? cs_cal_timed(c, prob, &paths[k], send, recv, 1) : paths[k].t[r];
            }
    }
    free(send);
    free(recv);
    free(ref);
    return rc;
}

void cs_cal_paths_free(cs_cal_path *paths, int npaths)
{
    for (int k = 0; k < npaths; k++)
        cs_sched_free(&paths[k].sched);
}

/* n ping-pongs of `bytes` with other (none where other < 0). */
static void cs_cal_pingpongs(MPI_Comm comm, int rank, int other, char *buf, size_t bytes, int n)
{
    for (int i = 0; other >= 0 && i < n; i++) {
        if (rank < other) {
            PMPI_Send(buf, (int)bytes, MPI_BYTE, other, 0, comm);
            PMPI_Recv(buf, (int)bytes, MPI_BYTE, other, 0, comm, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, (int)bytes, MPI_BYTE, other, 0, comm, MPI_STATUS_IGNORE);
            PMPI_Send(buf, (int)bytes, MPI_BYTE, other, 0, comm);
        }
    }
}

/* The first ping-pongs of a size run slow (MPICH 4.0.2 over shared memory:
 * 512 B and 4 KiB at 10 times their later time for about 50), and a timing
 * of a few calls measured those: CS_CAL_WARM of them, untimed, first. */
static void cs_cal_warm_up(MPI_Comm comm, int rank, int other, char *buf, size_t bytes)
{
    cs_cal_pingpongs(comm, rank, other, buf, bytes, bytes <= CS_CAL_WARM_BYTES ? CS_CAL_WARM : 4);
}

double cs_cal_pingpong_pairs(MPI_Comm comm, const int *peer, int a, size_t bytes, int reps, double target)
{
    int rank, calls = 1;
    double t[CS_CAL_MAX_REPS], half = 0.0;
    char *buf = malloc(bytes + 1);
    PMPI_Comm_rank(comm, &rank);
    const int other = peer[rank];
    if (target > 0) /* a timing lasts: not a simulator */
        cs_cal_warm_up(comm, rank, other, buf, bytes);
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up, and the calls per timing */
        PMPI_Barrier(comm);           /* every pair starts at once, and each pair in step */
        if (other >= 0)
            PMPI_Sendrecv(NULL, 0, MPI_BYTE, other, 1, NULL, 0, MPI_BYTE, other, 1, comm, MPI_STATUS_IGNORE);
        const double t0 = PMPI_Wtime();
        cs_cal_pingpongs(comm, rank, other, buf, bytes, calls);
        const double dt = (PMPI_Wtime() - t0) / calls / 2.0;
        if (r < 0) { /* every pair takes a's count of calls */
            if (rank == a)
                calls = dt > 0 && target / dt < 200000.0 ? (int)(target / dt / 2.0) + 1 : 100000;
            PMPI_Bcast(&calls, 1, MPI_INT, a, comm);
        } else {
            t[r] = dt;
        }
    }
    if (rank == a)
        half = cs_cal_quantile(t, reps, 0.5);
    free(buf);
    PMPI_Bcast(&half, 1, MPI_DOUBLE, a, comm);
    return half;
}

void cs_cal_latency_row(MPI_Comm comm, size_t bytes, int reps, double *lat)
{
    int rank, p;
    double t[CS_CAL_MAX_REPS];
    char buf[64];
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &p);
    bytes = bytes < sizeof buf ? bytes : sizeof buf;
    reps = reps < CS_CAL_MAX_REPS ? reps : CS_CAL_MAX_REPS;
    lat[0] = 0.0;
    for (int j = 1; j < p; j++) {
        lat[j] = 0.0;
        if (rank != 0 && rank != j)
            continue;
        for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
            const double t0 = PMPI_Wtime();
            if (rank == 0) {
                PMPI_Send(buf, (int)bytes, MPI_BYTE, j, 2, comm);
                PMPI_Recv(buf, (int)bytes, MPI_BYTE, j, 2, comm, MPI_STATUS_IGNORE);
                if (r >= 0)
                    t[r] = (PMPI_Wtime() - t0) / 2.0;
            } else {
                PMPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 2, comm, MPI_STATUS_IGNORE);
                PMPI_Send(buf, (int)bytes, MPI_BYTE, 0, 2, comm);
            }
        }
        if (rank == 0)
            lat[j] = cs_cal_quantile(t, reps, 0.5);
    }
    PMPI_Bcast(lat, p, MPI_DOUBLE, 0, comm);
}

double cs_cal_late_receive(MPI_Comm comm, size_t bytes, int reps, int warm)
{
    int rank;
    double t[CS_CAL_MAX_REPS], late = 0.0;
    char one = 0, *buf = malloc(bytes + 1);
    MPI_Request req;
    PMPI_Comm_rank(comm, &rank);
    reps = reps < CS_CAL_MAX_REPS ? reps : CS_CAL_MAX_REPS;
    if (warm) /* ranks 0 and 1 with each other, the others none */
        cs_cal_warm_up(comm, rank, rank <= 1 ? 1 - rank : -1, buf, bytes);
    /* no barrier: rank 1 posts its send before it answers the ping, so before rank 0 posts the
     * receive, in every repetition (a barrier over every rank cost seconds at p = 1024 under SMPI) */
    for (int r = -1; r < reps && rank <= 1; r++) { /* r = -1: warm-up */
        if (rank == 0) {
            PMPI_Send(&one, 1, MPI_BYTE, 1, 3, comm);
            PMPI_Recv(&one, 1, MPI_BYTE, 1, 3, comm, MPI_STATUS_IGNORE);
            const double t0 = PMPI_Wtime();
            PMPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 4, comm, MPI_STATUS_IGNORE);
            if (r >= 0)
                t[r] = PMPI_Wtime() - t0;
        } else if (rank == 1) {
            PMPI_Isend(buf, (int)bytes, MPI_BYTE, 0, 4, comm, &req);
            PMPI_Recv(&one, 1, MPI_BYTE, 0, 3, comm, MPI_STATUS_IGNORE);
            PMPI_Send(&one, 1, MPI_BYTE, 0, 3, comm);
            PMPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 0)
        late = cs_cal_quantile(t, reps, 0.5);
    free(buf);
    PMPI_Bcast(&late, 1, MPI_DOUBLE, 0, comm);
    return late;
}

#define CS_CAL_FAN_MAX 256

/* One k-way round trip (cs_cal_fan), for cs_timed_calls. */
typedef struct cs_cal_fan_arg {
    MPI_Comm comm;
    int rank, p, mine; /* mine: messages this rank sends (ranks 0 and 1: k; the others none) */
    size_t bytes;
    char *buf, *in;
    MPI_Request req[2 * CS_CAL_FAN_MAX];
    MPI_Status st[2 * CS_CAL_FAN_MAX]; /* not MPI_STATUSES_IGNORE: GCC reads that as an empty array */
} cs_cal_fan_arg;

static void cs_cal_fan_once(void *arg)
{
    cs_cal_fan_arg *a = arg;
    const int root = a->rank == 0, n = a->mine;
    const int bytes = (int)a->bytes;
    if (n == 0)
        return;
    for (int j = 0; root && j < n; j++) /* rank 0: k sends, then k receives */
        PMPI_Isend(a->buf + (size_t)j * a->bytes, bytes, MPI_BYTE, 1, 3, a->comm, &a->req[j]);
    for (int j = 0; j < n; j++)
        PMPI_Irecv(a->in + (size_t)j * a->bytes, bytes, MPI_BYTE, root ? 1 : 0, 3, a->comm, &a->req[root * n + j]);
    PMPI_Waitall(root ? 2 * n : n, a->req, a->st);
    for (int j = 0; !root && j < n; j++) /* rank 1 returns what it got, once it has it all */
        PMPI_Isend(a->buf + (size_t)j * a->bytes, bytes, MPI_BYTE, 0, 3, a->comm, &a->req[j]);
    if (!root)
        PMPI_Waitall(n, a->req, a->st);
}

/* Half the time of once(arg), all ranks from a common start (common_start.h),
 * the slowest rank's: calls enough for target seconds, median of reps; -1
 * where a rank has no buf (malloc failed). Frees buf. */
static double cs_cal_half_round_trip(MPI_Comm comm, char *buf, void (*once)(void *), void *arg, int reps, double target)
{
    double t[CS_CAL_MAX_REPS], slack = 1e-6;
    int ok = buf != NULL, all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(buf);
        return -1.0;
    }
    const int global = cs_clock_is_global();
    const double one = cs_timed_calls(comm, global, &slack, 1, once, arg);
    const int calls = one > 0 && target / one < 100000.0 ? (int)(target / one) + 1 : 100000;
    for (int r = 0; r < reps; r++)
        t[r] = cs_timed_calls(comm, global, &slack, calls, once, arg) / 2.0;
    free(buf);
    return cs_cal_quantile(t, reps, 0.5);
}

double cs_cal_fan(MPI_Comm comm, int k, size_t bytes, int reps, double target)
{
    static cs_cal_fan_arg a; /* requests and statuses: too many for the stack */
    a.comm = comm;
    a.bytes = bytes;
    PMPI_Comm_rank(comm, &a.rank);
    PMPI_Comm_size(comm, &a.p);
    if (k > CS_CAL_FAN_MAX)
        k = CS_CAL_FAN_MAX;
    /* Every message between ranks 0 and 1: peers at other distances (hops
     * on a hypercube or a fat tree) would add their latency to the posts'. */
    a.mine = a.rank <= 1 ? k : 0;
    a.buf = malloc(2 * (size_t)(a.mine + 1) * (bytes + 1));
    a.in = a.rank ? a.buf : a.buf + (size_t)a.mine * bytes;
    /* The slowest rank's time is rank 0's (its last receive ends the round trip); every rank gets it. */
    return cs_cal_half_round_trip(comm, a.buf, cs_cal_fan_once, &a, reps, target);
}

typedef struct cs_cal_fan_in_arg {
    MPI_Comm comm;
    int rank, k, sender; /* sender: one of from[] */
    const int *from;
    size_t bytes;
    char *buf;
    MPI_Request req[2 * CS_CAL_FAN_MAX];
    MPI_Status st[2 * CS_CAL_FAN_MAX];
} cs_cal_fan_in_arg;

static void cs_cal_fan_in_once(void *arg)
{
    cs_cal_fan_in_arg *a = arg;
    const int bytes = (int)a->bytes;
    if (a->rank == 0) { /* every block in, then each returned */
        for (int j = 0; j < a->k; j++)
            PMPI_Irecv(a->buf + (size_t)j * a->bytes, bytes, MPI_BYTE, a->from[j], 4, a->comm, &a->req[j]);
        PMPI_Waitall(a->k, a->req, a->st);
        for (int j = 0; j < a->k; j++)
            PMPI_Isend(a->buf + (size_t)j * a->bytes, bytes, MPI_BYTE, a->from[j], 4, a->comm, &a->req[j]);
        PMPI_Waitall(a->k, a->req, a->st);
    } else if (a->sender) {
        PMPI_Irecv(a->buf + a->bytes, bytes, MPI_BYTE, 0, 4, a->comm, &a->req[0]);
        PMPI_Isend(a->buf, bytes, MPI_BYTE, 0, 4, a->comm, &a->req[1]);
        PMPI_Waitall(2, a->req, a->st);
    }
}

double cs_cal_fan_in(MPI_Comm comm, const int *from, int k, size_t bytes, int reps, double target)
{
    static cs_cal_fan_in_arg a;
    a.comm = comm;
    a.bytes = bytes;
    a.from = from;
    a.k = k < CS_CAL_FAN_MAX ? k : CS_CAL_FAN_MAX;
    PMPI_Comm_rank(comm, &a.rank);
    a.sender = 0;
    for (int j = 0; j < a.k; j++)
        a.sender |= from[j] == a.rank;
    const size_t blocks = a.rank == 0 ? (size_t)a.k : a.sender ? 2 : 0;
    a.buf = malloc(blocks * bytes + 1);
    return cs_cal_half_round_trip(comm, a.buf, cs_cal_fan_in_once, &a, reps, target);
}

/* The median over reps of the slowest rank's time of f(arg), all ranks at once. */
static double cs_cal_local(MPI_Comm comm, void (*f)(void *), void *arg, int reps)
{
    double t[CS_CAL_MAX_REPS];
    f(arg); /* warm-up: first touch of the pages */
    for (int r = 0; r < reps; r++) {
        double dt;
        PMPI_Barrier(comm);
        const double t0 = PMPI_Wtime();
        f(arg);
        dt = PMPI_Wtime() - t0;
        PMPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    return cs_cal_quantile(t, reps, 0.5);
}

typedef struct cs_cal_local_arg {
    char *a, *b;
    size_t bytes;
    MPI_Datatype type;
    MPI_Op op;
} cs_cal_local_arg;

static void cs_cal_do_copy(void *p)
{
    cs_cal_local_arg *x = p;
    memcpy(x->b, x->a, x->bytes);
}

static void cs_cal_do_reduce(void *p)
{
    cs_cal_local_arg *x = p;
    int size;
    PMPI_Type_size(x->type, &size);
    PMPI_Reduce_local(x->a, x->b, (int)(x->bytes / (size_t)size), x->type, x->op);
}

static double cs_cal_local_bufs(MPI_Comm comm, void (*f)(void *), cs_cal_local_arg *x, int reps)
{
    x->a = calloc(1, x->bytes);
    x->b = calloc(1, x->bytes);
    int ok = x->a && x->b, all;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    double t = all ? cs_cal_local(comm, f, x, reps) : -1.0;
    free(x->a);
    free(x->b);
    return t;
}

double cs_cal_copy(MPI_Comm comm, size_t bytes, int reps)
{
    cs_cal_local_arg x = {.bytes = bytes};
    return cs_cal_local_bufs(comm, cs_cal_do_copy, &x, reps);
}

double cs_cal_reduce_local(MPI_Comm comm, MPI_Datatype type, MPI_Op op, size_t bytes, int reps)
{
    cs_cal_local_arg x = {.bytes = bytes, .type = type, .op = op};
    return cs_cal_local_bufs(comm, cs_cal_do_reduce, &x, reps);
}
