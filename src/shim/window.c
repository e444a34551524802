/*
 * The extension API of include/collshim.h, two collectives of collshim's
 * own: windowed reduction across ranks (the window collective: recursive
 * combination or prefix-suffix, src/coll/window/window_rows.c) and over a
 * block-distributed array (window_block: one boundary exchange, then
 * prefix and suffix reductions over sections of the window's length:
 * Szymanski et al. 1995, §3.2, scalable case). After their own argument
 * checks both take the path of every collective (cs_call_go): select,
 * schedule cache, executor on the private duplicate, log. Errors go to the
 * user's communicator's error handler. The wrong build (src/shim/abi.c)
 * returns COLLSHIM_ERR_WRONG_BUILD before it reads a handle.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "collshim.h"
#include "log/log.h"
#include "sched/inverse.h"
#include "shim/abi.h"
#include "shim/args.h"
#include "shim/shim.h"

/* The most bytes of a vector one schedule carries: its messages hold up to
 * three vectors and the executor counts bytes in an int. (Overridden in a
 * test build to check the pieces.) */
#ifndef CS_WINDOW_PIECE_BYTES
#define CS_WINDOW_PIECE_BYTES ((size_t)INT_MAX / 3)
#endif

extern const cs_alg cs_window_block_differences;

/* A contiguous datatype: first data byte at true_lb, elements extent apart. */
typedef struct cs_win_type {
    MPI_Aint true_lb, extent;
} cs_win_type;

static int cs_window_fail(MPI_Comm comm, int rc)
{
    if (rc != MPI_SUCCESS && comm != MPI_COMM_NULL)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* What both entries check before anything collective: *p gets the size. */
static int cs_window_check(MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op, cs_win_type *t, int *p)
{
    MPI_Aint lb, true_extent;
    int inter, size, rc;

    if (comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    if (!cs_shim.on)
        cs_shim_ensure();
    if (!cs_shim.on)
        return MPI_ERR_OTHER; /* MPI is not initialized, or is finalized */
    if ((rc = PMPI_Comm_test_inter(comm, &inter)) != MPI_SUCCESS || (rc = PMPI_Comm_size(comm, p)) != MPI_SUCCESS)
        return rc;
    if (inter)
        return MPI_ERR_COMM;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (!cs_args_op_defined(op, type, NULL))
        return MPI_ERR_OP;
    if ((rc = PMPI_Type_size(type, &size)) != MPI_SUCCESS || (rc = PMPI_Type_get_extent(type, &lb, &t->extent)) ||
        (rc = PMPI_Type_get_true_extent(type, &t->true_lb, &true_extent)) != MPI_SUCCESS)
        return rc;
    if (size == 0 || size != t->extent || size != true_extent)
        return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* What the executor and the log need of this rank's side of a call. */
static void cs_window_local(const cs_win_type *t, int inplace, cs_local *l)
{
    memset(l, 0, sizeof(*l));
    l->send.size = l->send.extent = l->send.true_extent = t->extent;
    l->send.true_lb = t->true_lb;
    l->send.contig = 1;
    l->recv = l->send;
    l->inplace = inplace;
}

/* The problem of a window call: the flags the rows' restrictions read. */
static cs_problem cs_window_problem(cs_coll coll, int p, size_t count, const cs_win_type *t, MPI_Op op,
                                    MPI_Datatype type, int n, int r, int inplace)
{
    int commutative = 0;
    PMPI_Op_commutative(op, &commutative);
    return (cs_problem){.coll = coll,
                        .p = p,
                        .count = count,
                        .elem = (size_t)t->extent,
                        .bytes = count * (size_t)t->extent,
                        .n = n,
                        .r = r,
                        .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u) |
                                 (commutative ? CS_PROB_COMMUTATIVE : 0u) |
                                 (cs_inverse_exists(op, type) ? CS_PROB_INVERSE : 0u)};
}

/* The method is a row of the window collective (src/coll/window/window_rows.c),
 * chosen, built, run and logged like any collective's (cs_call_go). */
CS_EXPORT int collshim_window_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     int n, int r, MPI_Comm comm)
{
    if (cs_abi_aside())
        return COLLSHIM_ERR_WRONG_BUILD; /* no handle of the program's read */
    cs_context *ctx = NULL;
    cs_win_type t;
    cs_local l;
    int p = 0;
    int rc = cs_window_check(comm, count, datatype, op, &t, &p);
    if (rc == MPI_SUCCESS && (n < 1 || n > p || r < 0 || r >= n))
        rc = MPI_ERR_ARG;
    if (rc != MPI_SUCCESS || count == 0)
        return cs_window_fail(comm, rc);
    if ((rc = cs_context_get(comm, &ctx)) != MPI_SUCCESS)
        return cs_window_fail(comm, rc);

    const int inplace = sendbuf == MPI_IN_PLACE;
    const size_t x = (size_t)t.extent, most = CS_WINDOW_PIECE_BYTES / x ? CS_WINDOW_PIECE_BYTES / x : 1;
    cs_window_local(&t, inplace, &l);
    l.library_wrong = cs_args_library_wrong(op, datatype); /* combined by our own loop */
    /* The elements are independent: a vector whose messages would pass an
     * int count of bytes runs in pieces, each a call of its own. */
    for (size_t done = 0; done < (size_t)count && rc == MPI_SUCCESS; done += most) {
        const size_t piece = (size_t)count - done < most ? (size_t)count - done : most;
        const cs_problem prob = cs_window_problem(CS_COLL_WINDOW, p, piece, &t, op, datatype, n, r, inplace);
        const cs_call c = {.coll = CS_COLL_WINDOW,
                           .sendbuf = inplace ? MPI_IN_PLACE : cs_addr(sendbuf, (ptrdiff_t)(done * x)),
                           .recvbuf = cs_addr(recvbuf, (ptrdiff_t)(done * x)),
                           .scount = (int)piece,
                           .rcount = (int)piece,
                           .stype = datatype,
                           .rtype = datatype,
                           .op = op,
                           .comm = comm};
        l.prob = prob;
        rc = cs_call_go(&c, ctx, &prob, &l); /* reports its own failures */
    }
    return rc;
}

/* ------------------------------------------------ block-distributed array */

/* One element operation on data pointers: inout = in (+) inout (MPI
 * addresses the data at buffer + true_lb). */
static int cs_window_op(const cs_win_type *t, MPI_Datatype type, MPI_Op op, const char *in, char *inout)
{
    return PMPI_Reduce_local(cs_addr(in, -t->true_lb), cs_addr(inout, -t->true_lb), 1, type, op);
}

/*
 * Windows of the extended slice e[0..len) (halo, own elements, halo): P and
 * S are the prefixes and suffixes of the sections [s, s + n) of e, cut at
 * len; element x's window [lo, hi] of e is S[lo] (+) P[hi] when it spans
 * two sections, else the prefix or suffix it is (a window shorter than n is
 * cut at an end of e, which is also an end of a section).
 */
static int cs_window_block_local(const cs_win_type *t, MPI_Datatype type, MPI_Op op, const char *e, size_t len,
                                 size_t first, size_t count, int n, int r, char *out)
{
    const size_t x = (size_t)t->extent, nn = (size_t)n;
    char *pre = malloc(2 * len * x + 1), *suf = pre + len * x;
    int rc = pre ? MPI_SUCCESS : MPI_ERR_NO_MEM;

    for (size_t s = 0; s < len && rc == MPI_SUCCESS; s += nn) {
        const size_t end = s + nn < len ? s + nn : len;
        memcpy(pre + s * x, e + s * x, x);
        for (size_t i = s + 1; i < end && rc == MPI_SUCCESS; i++) {
            memcpy(pre + i * x, e + i * x, x);
            rc = cs_window_op(t, type, op, pre + (i - 1) * x, pre + i * x);
        }
        memcpy(suf + (end - 1) * x, e + (end - 1) * x, x);
        for (size_t i = end - 1; i > s && rc == MPI_SUCCESS; i--) {
            memcpy(suf + (i - 1) * x, suf + i * x, x);
            rc = cs_window_op(t, type, op, e + (i - 1) * x, suf + (i - 1) * x);
        }
    }
    for (size_t i = 0; i < count && rc == MPI_SUCCESS; i++) {
        const long long want = (long long)(first + i) - r;
        const size_t lo = want < 0 ? 0 : (size_t)want;
        const size_t hi = (size_t)(want + n - 1) < len ? (size_t)(want + n - 1) : len - 1;
        if (lo % nn == 0) {
            memcpy(out + i * x, pre + hi * x, x);
        } else if (lo / nn == hi / nn) {
            memcpy(out + i * x, suf + lo * x, x);
        } else {
            memcpy(out + i * x, pre + hi * x, x);
            rc = cs_window_op(t, type, op, suf + lo * x, out + i * x);
        }
    }
    free(pre);
    return rc;
}

/*
 * The same with an exact inverse (MPI_SUM on integers, MPI_BXOR: §3.2,
 * footnote f): the running prefixes Q of e, and element x's window [lo, hi]
 * is Q[hi] (-) Q[lo - 1]; two steps per element instead of three. Exact:
 * integer sums wrap modulo 2^w, so the differences are the sums.
 */
static int cs_window_block_inverse(const cs_win_type *t, MPI_Datatype type, MPI_Op op, const char *e, size_t len,
                                   size_t first, size_t count, int n, int r, char *out)
{
    const size_t x = (size_t)t->extent;
    char *q = malloc(len * x + 1);
    int rc = q ? MPI_SUCCESS : MPI_ERR_NO_MEM;

    if (rc == MPI_SUCCESS)
        memcpy(q, e, len * x);
    for (size_t i = 1; i < len && rc == MPI_SUCCESS; i++)
        rc = cs_window_op(t, type, op, q + (i - 1) * x, q + i * x);
    for (size_t i = 0; i < count && rc == MPI_SUCCESS; i++) {
        const long long want = (long long)(first + i) - r;
        const size_t hi = (size_t)(want + n - 1) < len ? (size_t)(want + n - 1) : len - 1;
        memcpy(out + i * x, q + hi * x, x);
        if (want > 0)
            rc = cs_inverse_apply(op, type, q + (size_t)(want - 1) * x, out + i * x, 1);
    }
    free(q);
    return rc;
}

/* The block window's state for its pass after the exchange. */
typedef struct cs_block_state {
    const cs_win_type *t;
    const char *e; /* the extended slice: left halo, own elements, right halo */
    size_t len, left, count;
    int n, r;
    char *out;
} cs_block_state;

/* The pass over the extended slice, by the row that ran the exchange. */
static int cs_window_block_finish(const cs_call *c, const cs_alg *ran)
{
    const cs_block_state *b = c->state;
    return (ran == &cs_window_block_differences ? cs_window_block_inverse : cs_window_block_local)(
        b->t, c->stype, c->op, b->e, b->len, b->left, b->count, b->n, b->r, b->out);
}

/* A row of the window_block collective (src/coll/window/window_block_rows.c)
 * exchanges the boundary, then this rank's pass (cs_window_block_finish). */
CS_EXPORT int collshim_window_reduce_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                           MPI_Op op, int n, int r, MPI_Comm comm)
{
    if (cs_abi_aside())
        return COLLSHIM_ERR_WRONG_BUILD;
    cs_context *ctx = NULL;
    cs_win_type t;
    cs_local l;
    int p = 0;
    int rc = cs_window_check(comm, count, datatype, op, &t, &p);
    if (rc == MPI_SUCCESS && (n < 1 || r < 0 || r >= n))
        rc = MPI_ERR_ARG;
    if (rc == MPI_SUCCESS && p > 1 && (r > count || n - 1 - r > count))
        rc = MPI_ERR_COUNT;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE)
        rc = MPI_ERR_BUFFER;
    if (rc != MPI_SUCCESS || count == 0)
        return cs_window_fail(comm, rc);
    if ((rc = cs_context_get(comm, &ctx)) != MPI_SUCCESS)
        return cs_window_fail(comm, rc);

    const int left = ctx->rank > 0 ? r : 0, right = ctx->rank < p - 1 ? n - 1 - r : 0;
    const size_t len = (size_t)left + (size_t)count + (size_t)right, x = (size_t)t.extent;
    char *e = malloc(len * x);
    if (!e)
        return cs_window_fail(comm, MPI_ERR_NO_MEM);
    memcpy(e + (size_t)left * x, cs_addr(sendbuf, (ptrdiff_t)t.true_lb), (size_t)count * x);
    const cs_block_state b = {.t = &t,
                              .e = e,
                              .len = len,
                              .left = (size_t)left,
                              .count = (size_t)count,
                              .n = n,
                              .r = r,
                              .out = cs_addr(recvbuf, (ptrdiff_t)t.true_lb)};
    const cs_problem prob = cs_window_problem(CS_COLL_WINDOW_BLOCK, p, (size_t)count, &t, op, datatype, n, r, 0);
    /* RECV is the extended slice: its data starts at e (true_lb added back by the executor's caller). */
    const cs_call c = {.coll = CS_COLL_WINDOW_BLOCK,
                       .sendbuf = sendbuf,
                       .recvbuf = cs_addr(e, -(ptrdiff_t)t.true_lb),
                       .scount = count,
                       .rcount = count,
                       .stype = datatype,
                       .rtype = datatype,
                       .op = op,
                       .comm = comm,
                       .finish = cs_window_block_finish,
                       .state = (void *)&b};
    cs_window_local(&t, 0, &l);
    l.library_wrong = cs_args_library_wrong(op, datatype);
    l.prob = prob;
    rc = cs_call_go(&c, ctx, &prob, &l); /* reports its own failures */
    free(e);
    return rc;
}
