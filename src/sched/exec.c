/*
 * The one executor of schedules over MPI. In each round the receives are
 * posted, then the sends, then all are waited for; then the round's local
 * steps run. Messages go on the private communicator, so nothing of the
 * user's can meet them; MPI's non-overtaking rule keeps the messages between
 * a pair in schedule order. A message longer than CS_EXEC_MAX_MSG bytes goes
 * as several, cut the same way on both sides.
 *
 * Errors. A rank whose point-to-point call fails cannot just return: its
 * partners would wait for messages it no longer sends. As MPICH's own
 * collectives do, it goes on with the communication of its schedule, with
 * no data and the error tag in every message it sends from then on, and
 * without the local steps; a rank that receives a message with the error tag
 * does the same. A failed send is posted once more, empty with the error tag,
 * and a failed receive once more as it was, so that the partner's call still
 * matches. (Receives keep their room: a truncated message is an error that
 * MPICH's MPI_Waitall reports through MPI_COMM_WORLD's handler, fatal by
 * default.) Every rank then completes its schedule, nothing is left in flight
 * on the private communicator, and each returns the first error it met
 * (MPI_ERR_OTHER for a partner's), or success if its result did not depend on
 * a failed rank. What can still leave a partner waiting: a call that fails
 * twice, and no memory for the requests or the scratch buffers before the
 * first message (kept from call to call, so only a call larger than all
 * before it can meet that).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sched/combine.h"
#include "sched/exec.h"
#include "sched/inverse.h"

#define CS_EXEC_TAG 0x7c5
#define CS_EXEC_TAG_FAILED 0x7c4 /* the sender has failed: no data */

/* The largest message (bytes): an MPI count is an int. A test build sets it
 * small to check that long messages are cut and put back together. */
#ifndef CS_EXEC_MAX_MSG
#define CS_EXEC_MAX_MSG ((size_t)INT_MAX)
#endif

static char *cs_exec_at(const cs_exec *x, int buf, size_t off)
{
    return (char *)x->buf[buf] + off;
}

static int cs_exec_local(const cs_step *st, cs_exec *x)
{
    char *src = cs_exec_at(x, st->buf, st->off), *dst = cs_exec_at(x, st->dst, st->dst_off);
    if (st->kind == CS_STEP_COPY) {
        memmove(dst, src, st->len);
        return MPI_SUCCESS;
    }
    if (st->kind == CS_STEP_UNREDUCE)
        return cs_inverse_apply(x->op, x->type, src, dst, st->len / x->type_extent);
    if (x->own_width) /* the library computes this (op, type) wrongly: our own loop */
        return cs_combine_wrapping(x->op, x->own_width, src, dst, st->len / x->type_extent);
    /* MPI addresses a buffer of this type at data - true_lb. */
    return PMPI_Reduce_local(cs_addr(src, -x->type_lb), cs_addr(dst, -x->type_lb), (int)(st->len / x->type_extent),
                             x->type, x->op);
}

/* Messages a step of len bytes goes as. */
static size_t cs_exec_pieces(size_t len)
{
    return len <= CS_EXEC_MAX_MSG ? 1 : (len + CS_EXEC_MAX_MSG - 1) / CS_EXEC_MAX_MSG;
}

/* One message: a receive takes any tag (the error tag too); a send after a
 * failure is empty, with the error tag. */
static int cs_exec_post_one(int recv, char *at, size_t len, int peer, int failed, const cs_exec *x, MPI_Request *req)
{
    if (recv)
        return PMPI_Irecv(at, (int)len, MPI_BYTE, peer, MPI_ANY_TAG, x->comm, req);
    if (failed)
        return PMPI_Isend(NULL, 0, MPI_BYTE, peer, CS_EXEC_TAG_FAILED, x->comm, req);
    return PMPI_Isend(at, (int)len, MPI_BYTE, peer, CS_EXEC_TAG, x->comm, req);
}

/* Post the receives (recv = 1) or the sends of steps [first, end), each in
 * its pieces, at reqs[*n...]; *rc keeps the first failure. */
static void cs_exec_post(const cs_sched *s, size_t first, size_t end, int recv, cs_exec *x, MPI_Request *reqs, int *n,
                         int *rc)
{
    for (size_t i = first; i < end; i++) {
        const cs_step *st = &s->steps[i];
        if (st->kind != (recv ? CS_STEP_RECV : CS_STEP_SEND))
            continue;
        for (size_t piece = 0, pieces = cs_exec_pieces(st->len); piece < pieces; piece++) {
            const size_t off = piece * CS_EXEC_MAX_MSG;
            const size_t len = st->len - off < CS_EXEC_MAX_MSG ? st->len - off : CS_EXEC_MAX_MSG;
            char *at = cs_exec_at(x, st->buf, st->off + off);
            int prc = cs_exec_post_one(recv, at, len, st->peer, *rc != MPI_SUCCESS, x, &reqs[*n]);
            if (prc != MPI_SUCCESS) {
                if (*rc == MPI_SUCCESS)
                    *rc = prc;
                prc = cs_exec_post_one(recv, at, len, st->peer, 1, x, &reqs[*n]);
            }
            if (prc == MPI_SUCCESS)
                (*n)++;
        }
    }
}

/* Complete reqs[0..n), the first nrecv of them receives. A failed wait may
 * leave requests active (MPI_ERR_PENDING in their status): they are waited
 * for one by one. A receive with the error tag is a partner's failure. */
static void cs_exec_complete(int n, int nrecv, MPI_Request *reqs, MPI_Status *st, int *rc)
{
    const int wrc = PMPI_Waitall(n, reqs, st);
    if (wrc != MPI_SUCCESS) {
        int first = wrc;
        for (int i = 0; i < n; i++) {
            if (wrc == MPI_ERR_IN_STATUS && first == wrc && st[i].MPI_ERROR != MPI_SUCCESS &&
                st[i].MPI_ERROR != MPI_ERR_PENDING)
                first = st[i].MPI_ERROR;
            if (reqs[i] != MPI_REQUEST_NULL)
                PMPI_Wait(&reqs[i], &st[i]);
        }
        if (*rc == MPI_SUCCESS)
            *rc = first;
    }
    for (int i = 0; i < nrecv && *rc == MPI_SUCCESS; i++)
        if (st[i].MPI_TAG == CS_EXEC_TAG_FAILED)
            *rc = MPI_ERR_OTHER;
}

static int cs_exec_max_messages(const cs_sched *s)
{
    size_t most = 0;
    for (int r = 0; r < s->nrounds; r++) {
        size_t n = 0;
        for (size_t i = s->round_start[r]; i < cs_sched_round_end(s, r); i++)
            if (s->steps[i].kind == CS_STEP_SEND || s->steps[i].kind == CS_STEP_RECV)
                n += cs_exec_pieces(s->steps[i].len);
        most = n > most ? n : most;
    }
    return most > INT_MAX ? -1 : (int)most;
}

void cs_scratch_free(cs_scratch *sc)
{
    for (int t = 0; t < 2; t++) {
        free(sc->buf[t]);
        sc->buf[t] = NULL;
        sc->size[t] = 0;
    }
    free(sc->reqs);
    free(sc->st);
    sc->reqs = NULL;
    sc->st = NULL;
    sc->nreqs = 0;
}

static int cs_scratch_reserve_reqs(cs_scratch *sc, int n)
{
    if (n <= sc->nreqs)
        return MPI_SUCCESS;
    MPI_Request *reqs = realloc(sc->reqs, sizeof(*reqs) * (size_t)n);
    if (reqs)
        sc->reqs = reqs;
    MPI_Status *st = realloc(sc->st, sizeof(*st) * (size_t)n);
    if (st)
        sc->st = st;
    if (!reqs || !st)
        return MPI_ERR_NO_MEM;
    sc->nreqs = n;
    return MPI_SUCCESS;
}

static int cs_scratch_reserve(cs_scratch *sc, const size_t bytes[2])
{
    for (int t = 0; t < 2; t++) {
        if (bytes[t] <= sc->size[t])
            continue;
        void *p = realloc(sc->buf[t], bytes[t]);
        if (!p)
            return MPI_ERR_NO_MEM;
        sc->buf[t] = p;
        sc->size[t] = bytes[t];
    }
    return MPI_SUCCESS;
}

int cs_exec_run(cs_sched *s, cs_exec *x)
{
    /* Counted once per schedule: a schedule runs again and again while calls repeat. */
    if (s->messages_most == 0)
        s->messages_most = cs_exec_max_messages(s);
    const int most = s->messages_most;
    if (most < 0)
        return MPI_ERR_COUNT; /* the same on every rank: nobody waits */
    int rc = cs_scratch_reserve_reqs(x->scratch, most);
    if (rc == MPI_SUCCESS)
        rc = cs_scratch_reserve(x->scratch, s->tmp_bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Request *reqs = x->scratch->reqs;
    MPI_Status *st = x->scratch->st;
    x->buf[CS_BUF_TMP0] = x->scratch->buf[0];
    x->buf[CS_BUF_TMP1] = x->scratch->buf[1];
    for (int r = 0; r < s->nrounds; r++) {
        const size_t first = s->round_start[r], end = cs_sched_round_end(s, r);
        int n = 0, nrecv;
        cs_exec_post(s, first, end, 1, x, reqs, &n, &rc);
        nrecv = n;
        cs_exec_post(s, first, end, 0, x, reqs, &n, &rc);
        if (n)
            cs_exec_complete(n, nrecv, reqs, st, &rc);
        for (size_t i = first; i < end && rc == MPI_SUCCESS; i++)
            if (s->steps[i].kind >= CS_STEP_COPY)
                rc = cs_exec_local(&s->steps[i], x);
    }
    return rc;
}
