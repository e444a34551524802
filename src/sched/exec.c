/*
 * The one executor of schedules over MPI. Messages of a round are all posted,
 * then waited for; then the round's local steps run. Every message carries
 * the same tag on the private communicator: MPI's non-overtaking rule keeps
 * messages between a pair in schedule order, and the private communicator
 * keeps them apart from the user's traffic (even MPI_ANY_SOURCE/ANY_TAG).
 */
#include <stdlib.h>
#include <string.h>

#include "sched/exec.h"
#include "sched/inverse.h"

#define CS_EXEC_TAG 0x7c5
#define CS_EXEC_INLINE_REQS 8

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
    /* MPI addresses a buffer of this type at data - true_lb. */
    return PMPI_Reduce_local(src - x->type_lb, dst - x->type_lb, (int)(st->len / x->type_extent), x->type,
                             x->op);
}

/* Post the messages of steps [first, end); *n gets the number of requests. */
static int cs_exec_post(const cs_sched *s, size_t first, size_t end, cs_exec *x, MPI_Request *reqs, int *n)
{
    int rc = MPI_SUCCESS;
    *n = 0;
    for (size_t i = first; i < end && rc == MPI_SUCCESS; i++) {
        const cs_step *st = &s->steps[i];
        if (st->kind == CS_STEP_RECV)
            rc = PMPI_Irecv(cs_exec_at(x, st->buf, st->off), (int)st->len, MPI_BYTE, st->peer, CS_EXEC_TAG,
                            x->comm, &reqs[(*n)++]);
        else if (st->kind == CS_STEP_SEND)
            rc = PMPI_Isend(cs_exec_at(x, st->buf, st->off), (int)st->len, MPI_BYTE, st->peer, CS_EXEC_TAG,
                            x->comm, &reqs[(*n)++]);
    }
    return rc;
}

/* GCC 12 reads MPICH's access attributes as if MPI_STATUSES_IGNORE were an
 * array of n statuses and warns; it is the standard's way to ignore them. */
static int cs_exec_waitall(int n, MPI_Request *reqs)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    return PMPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
}

static int cs_exec_max_messages(const cs_sched *s)
{
    int most = 0;
    for (int r = 0; r < s->nrounds; r++) {
        int n = 0;
        for (size_t i = s->round_start[r]; i < cs_sched_round_end(s, r); i++)
            n += s->steps[i].kind == CS_STEP_SEND || s->steps[i].kind == CS_STEP_RECV;
        most = n > most ? n : most;
    }
    return most;
}

void cs_scratch_free(cs_scratch *sc)
{
    for (int t = 0; t < 2; t++) {
        free(sc->buf[t]);
        sc->buf[t] = NULL;
        sc->size[t] = 0;
    }
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

int cs_exec_run(const cs_sched *s, cs_exec *x)
{
    MPI_Request inline_reqs[CS_EXEC_INLINE_REQS], *reqs = inline_reqs;
    const int most = cs_exec_max_messages(s);
    int rc = cs_scratch_reserve(x->scratch, s->tmp_bytes);

    if (rc != MPI_SUCCESS)
        return rc;
    x->buf[CS_BUF_TMP0] = x->scratch->buf[0];
    x->buf[CS_BUF_TMP1] = x->scratch->buf[1];
    if (most > CS_EXEC_INLINE_REQS && !(reqs = malloc(sizeof(*reqs) * (size_t)most)))
        return MPI_ERR_NO_MEM;

    for (int r = 0; r < s->nrounds && rc == MPI_SUCCESS; r++) {
        const size_t first = s->round_start[r], end = cs_sched_round_end(s, r);
        int n = 0;
        rc = cs_exec_post(s, first, end, x, reqs, &n);
        if (n) {
            /* Complete what was posted even after a failure, then report it. */
            int wrc = cs_exec_waitall(n, reqs);
            if (rc == MPI_SUCCESS)
                rc = wrc;
        }
        for (size_t i = first; i < end && rc == MPI_SUCCESS; i++)
            if (s->steps[i].kind >= CS_STEP_COPY)
                rc = cs_exec_local(&s->steps[i], x);
    }

    if (reqs != inline_reqs)
        free(reqs);
    return rc;
}
