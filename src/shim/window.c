/*
 * The extension API of include/collshim.h: windowed reduction across ranks
 * (recursive combination or prefix-suffix, src/coll/window/, the cheaper
 * under the model unless window.method says) and over a block-distributed
 * array (one boundary exchange, then prefix and suffix reductions over
 * sections of the window's length: Szymanski et al. 1995, §3.2, scalable
 * case). Both run on the communicator's private duplicate, from its
 * context; errors go to the user's communicator's error handler.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "coll/window/window.h"
#include "collshim.h"
#include "log/log.h"
#include "sched/inverse.h"
#include "shim/args.h"
#include "shim/shim.h"

/* The most bytes of a vector one schedule carries: its messages hold up to
 * three vectors and the executor counts bytes in an int. (Overridden in a
 * test build to check the pieces.) */
#ifndef CS_WINDOW_PIECE_BYTES
#define CS_WINDOW_PIECE_BYTES ((size_t)INT_MAX / 3)
#endif

/* Marks window schedules in a context's schedule cache (never a table row). */
static const cs_alg cs_window_tag = {.name = "window", .description = "collshim_window_reduce"};

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

/* Why a method was taken, for the log. */
static const char *const cs_window_reasons[] = {
    "the model's cheapest method",
    "window.method",
    "window.method asks for prefix-suffix-inverse; the operator has no exact inverse",
};

/* The method of a call: the configured one (prefix-suffix-inverse only with
 * an inverse, else prefix-suffix), or the model's cheapest; *why indexes
 * cs_window_reasons. */
static cs_window_method cs_window_method_of(const cs_problem *prob, int n, int r, int inverse, int *why)
{
    const int given = cs_shim.cfg.window_method;
    *why = given >= 0;
    if (given == CS_WIN_PREFIX_SUFFIX_INVERSE && !inverse) {
        *why = 2;
        return CS_WIN_PREFIX_SUFFIX;
    }
    if (given >= 0)
        return (cs_window_method)given;
    return cs_window_method_choose(&cs_shim.cfg.model, prob->p, n, r, prob->bytes,
                                   (prob->flags & CS_PROB_INPLACE) != 0, inverse, NULL);
}

/* The schedule of this call: the context's last one if it is the same
 * (the key: the problem, n, r and whether the operator has an inverse).
 * The context's parameters keep n, r, inverse, the method and the reason. */
static int cs_window_schedule(cs_context *ctx, const cs_problem *prob, int n, int r, int inverse)
{
    cs_params params;
    cs_params_init(&params);
    params.nparts = 5;
    params.parts[0] = n;
    params.parts[1] = r;
    params.parts[2] = inverse;
    if (ctx->sched_alg == &cs_window_tag && ctx->sched_prob.p == prob->p && ctx->sched_prob.count == prob->count &&
        ctx->sched_prob.elem == prob->elem && ctx->sched_prob.flags == prob->flags &&
        ctx->sched_params.parts[0] == n && ctx->sched_params.parts[1] == r && ctx->sched_params.parts[2] == inverse)
        return MPI_SUCCESS;
    ctx->sched_alg = NULL;
    cs_sched_reset(&ctx->sched);
    int why = 0;
    const cs_window_method method = cs_window_method_of(prob, n, r, inverse, &why);
    params.parts[3] = (int)method;
    params.parts[4] = why;
    int rc = cs_window_method_build(method, prob->p, n, r, ctx->rank, prob->count, prob->elem,
                                    (prob->flags & CS_PROB_INPLACE) != 0, &ctx->sched);
    if (rc == MPI_SUCCESS) {
        ctx->sched_alg = &cs_window_tag;
        ctx->sched_prob = *prob;
        ctx->sched_params = params;
    }
    return rc;
}

CS_EXPORT int collshim_window_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                                     int n, int r, MPI_Comm comm)
{
    cs_context *ctx = NULL;
    cs_win_type t;
    int p = 0;
    int rc = cs_window_check(comm, count, datatype, op, &t, &p);
    if (rc == MPI_SUCCESS && (n < 1 || n > p || r < 0 || r >= n))
        rc = MPI_ERR_ARG;
    if (rc != MPI_SUCCESS || count == 0)
        return cs_window_fail(comm, rc);
    if ((rc = cs_context_get(comm, &ctx)) != MPI_SUCCESS)
        return cs_window_fail(comm, rc);

    const int inplace = sendbuf == MPI_IN_PLACE, inverse = cs_inverse_exists(op, datatype);
    const size_t x = (size_t)t.extent, most = CS_WINDOW_PIECE_BYTES / x ? CS_WINDOW_PIECE_BYTES / x : 1;
    const double t0 = cs_log_active() ? PMPI_Wtime() : 0.0;
    cs_problem prob = {0};
    /* The elements are independent: a vector whose messages would pass an
     * int count of bytes runs in pieces. */
    for (size_t done = 0; done < (size_t)count && rc == MPI_SUCCESS; done += prob.count) {
        const size_t piece = (size_t)count - done < most ? (size_t)count - done : most;
        prob = (cs_problem){.coll = CS_COLL_ALLREDUCE, .p = p, .count = piece, .elem = x, .bytes = piece * x,
                            .flags = CS_PROB_CONTIG | (inplace ? CS_PROB_INPLACE : 0u)};
        rc = cs_window_schedule(ctx, &prob, n, r, inverse);
        if (rc == MPI_SUCCESS) {
            cs_exec ex = {.type = datatype, .type_lb = t.true_lb, .type_extent = x, .op = op, .comm = ctx->comm,
                          .scratch = &ctx->scratch};
            ex.buf[CS_BUF_SEND] = inplace ? NULL : cs_addr(sendbuf, t.true_lb + (ptrdiff_t)(done * x));
            ex.buf[CS_BUF_RECV] = cs_addr(recvbuf, t.true_lb + (ptrdiff_t)(done * x));
            rc = cs_exec_run(&ctx->sched, &ex);
        }
    }
    if (rc == MPI_SUCCESS && cs_log_active()) {
        cs_sched_stats st;
        cs_sched_stats_get(&ctx->sched, &cs_shim.cfg.model, &st);
        const cs_window_record w = {
            .coll = "window", .rank = ctx->rank, .p = p, .n = n, .r = r, .bytes = (size_t)count * x, .op = op,
            .inplace = inplace, .alg = cs_window_method_name((cs_window_method)ctx->sched_params.parts[3]),
            .reason = cs_window_reasons[ctx->sched_params.parts[4]], .predicted = st.cost,
            .elapsed = PMPI_Wtime() - t0, .stats = &st};
        cs_log_window(&w);
    }
    return cs_window_fail(comm, rc);
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

/* The exchange, a schedule of one round run by the executor: r elements
 * from the left neighbour, n - 1 - r from the right, as bytes of the
 * (contiguous) datatype. The send buffer is this rank's slice, the receive
 * buffer the extended slice e. */
static int cs_window_halo(cs_context *ctx, const cs_win_type *t, const char *mine, int count, int n, int r, char *e,
                          int left, int right)
{
    const size_t x = (size_t)t->extent;
    cs_sched s;
    cs_sched_init(&s);
    cs_sched_round(&s);
    if (left)
        cs_sched_recv(&s, ctx->rank - 1, CS_BUF_RECV, 0, (size_t)left * x);
    if (right)
        cs_sched_recv(&s, ctx->rank + 1, CS_BUF_RECV, (size_t)(left + count) * x, (size_t)right * x);
    if (ctx->rank > 0 && n - 1 - r > 0)
        cs_sched_send(&s, ctx->rank - 1, CS_BUF_SEND, 0, (size_t)(n - 1 - r) * x);
    if (ctx->rank < ctx->p - 1 && r > 0)
        cs_sched_send(&s, ctx->rank + 1, CS_BUF_SEND, (size_t)(count - r) * x, (size_t)r * x);
    int rc = s.error;
    if (rc == MPI_SUCCESS) {
        cs_exec ex = {.comm = ctx->comm, .scratch = &ctx->scratch};
        ex.buf[CS_BUF_SEND] = (void *)mine;
        ex.buf[CS_BUF_RECV] = e;
        rc = cs_exec_run(&s, &ex);
    }
    cs_sched_free(&s);
    return rc;
}

CS_EXPORT int collshim_window_reduce_block(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                           MPI_Op op, int n, int r, MPI_Comm comm)
{
    cs_context *ctx = NULL;
    cs_win_type t;
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
    const char *mine = cs_addr(sendbuf, t.true_lb);
    const int inverse = cs_inverse_exists(op, datatype);
    const double t0 = cs_log_active() ? PMPI_Wtime() : 0.0;
    char *e = malloc(len * x);
    if (!e)
        return cs_window_fail(comm, MPI_ERR_NO_MEM);
    memcpy(e + (size_t)left * x, mine, (size_t)count * x);
    rc = cs_window_halo(ctx, &t, mine, count, n, r, e, left, right);
    if (rc == MPI_SUCCESS)
        rc = (inverse ? cs_window_block_inverse : cs_window_block_local)(&t, datatype, op, e, len, (size_t)left,
                                                                          (size_t)count, n, r,
                                                                          cs_addr(recvbuf, t.true_lb));
    free(e);
    if (rc == MPI_SUCCESS && cs_log_active()) {
        const cs_window_record w = {
            .coll = "window_block", .rank = ctx->rank, .p = p, .n = n, .r = r, .bytes = (size_t)count * x, .op = op,
            .alg = inverse ? "prefix-differences" : "prefix-suffix",
            .reason = inverse ? "the operator has an exact inverse" : "no exact inverse for the operator",
            .predicted = -1.0, .elapsed = PMPI_Wtime() - t0};
        cs_log_window(&w);
    }
    return cs_window_fail(comm, rc);
}
