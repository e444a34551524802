/*
 * The event pricer (pricer.h): a discrete-event run of all ranks' schedules.
 * Two kinds of event, in time order: a rank starts a round (it posts, and
 * its sends take their place on its link), and a message reaches its
 * receiver (it takes its place on the receiver's link). Every event pushes
 * only events at or after its own time, so links are claimed in time order.
 */
#include <stdlib.h>

#include "sched/pricer.h"

enum { CS_EV_ARRIVE, CS_EV_START }; /* at one instant, arrivals first */

typedef struct cs_event {
    double t;
    int kind;
    int rank;  /* START: the rank; ARRIVE: the receiver */
    int from;  /* ARRIVE: the sender */
    int round; /* START: the round to begin; ARRIVE: the receiver's round */
    int local; /* ARRIVE: 1 if sender and receiver share a node */
    int link;  /* ARRIVE: it crosses the nodes' links (model->beta_link) */
    size_t bytes;
    size_t seq; /* ties in push order: links are FIFO */
} cs_event;

typedef struct cs_heap {
    cs_event *ev;
    size_t n, cap, seq;
} cs_heap;

static int cs_event_before(const cs_event *a, const cs_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->seq < b->seq;
}

static int cs_heap_push(cs_heap *h, cs_event e)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        cs_event *ev = realloc(h->ev, cap * sizeof *ev);
        if (!ev)
            return -1;
        h->ev = ev;
        h->cap = cap;
    }
    e.seq = h->seq++;
    size_t i = h->n++;
    while (i > 0 && cs_event_before(&e, &h->ev[(i - 1) / 2])) {
        h->ev[i] = h->ev[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->ev[i] = e;
    return 0;
}

static cs_event cs_heap_pop(cs_heap *h)
{
    cs_event top = h->ev[0], last = h->ev[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && cs_event_before(&h->ev[c + 1], &h->ev[c]))
            c++;
        if (!cs_event_before(&h->ev[c], &last))
            break;
        h->ev[i] = h->ev[c];
        i = c;
    }
    if (h->n)
        h->ev[i] = last;
    return top;
}

/* A rank's state in the round it is in. */
typedef struct cs_rank_clock {
    int round;     /* the round being run; nrounds: finished */
    int posted;    /* its messages of this round are posted */
    int expected;  /* receives of this round */
    double ready;  /* posts done and sends off the link */
    double local;  /* the round's local steps, seconds */
    double link_free[2], in_free[2]; /* [network, node] */
} cs_rank_clock;

typedef struct cs_pricer {
    const cs_model *model;
    const cs_sched *scheds;
    int p, ppn;
    cs_rank_clock *clock;
    size_t *first;      /* first[r]: index of rank r's round 0 in got, last */
    int *got;           /* deliveries per (rank, round) */
    double *last;       /* the latest delivery per (rank, round) */
    double *finish;
    double *node_out, *node_in; /* per node: when its link is through what was queued on it */
    cs_heap heap;
} cs_pricer;

static int cs_same_node(const cs_pricer *pr, int a, int b)
{
    return pr->model->node_levels && pr->ppn > 1 && a / pr->ppn == b / pr->ppn;
}

/* Does a message from a to b go through their nodes' links? */
static int cs_crosses_link(const cs_pricer *pr, int a, int b)
{
    return pr->node_out && a / pr->ppn != b / pr->ppn;
}

/* The round's messages are all in: its local steps, then the next round. */
static int cs_round_done(cs_pricer *pr, int rank)
{
    cs_rank_clock *c = &pr->clock[rank];
    const size_t at = pr->first[rank] + (size_t)c->round;
    double end = c->ready > pr->last[at] ? c->ready : pr->last[at];
    end += c->local;
    c->round++;
    c->posted = 0;
    if (c->round >= pr->scheds[rank].nrounds) {
        pr->finish[rank] = end;
        return 0;
    }
    return cs_heap_push(&pr->heap, (cs_event){.t = end, .kind = CS_EV_START, .rank = rank, .round = c->round});
}

/* Post one message of the round: its overhead, and for a send its place on
 * the link and its arrival. *t is the rank's clock. */
static int cs_post(cs_pricer *pr, int rank, const cs_step *st, double *t)
{
    const cs_model *mo = pr->model;
    cs_rank_clock *c = &pr->clock[rank];
    *t += mo->overhead;
    if (st->kind == CS_STEP_RECV) {
        c->expected++;
        return 0;
    }
    const int local = cs_same_node(pr, rank, st->peer), link = cs_crosses_link(pr, rank, st->peer);
    const double beta = local ? mo->beta_node : mo->beta, alpha = local ? mo->alpha_node : mo->alpha;
    const double leave = *t > c->link_free[local] ? *t : c->link_free[local];
    c->link_free[local] = leave + beta * (double)st->len;
    if (c->link_free[local] > c->ready)
        c->ready = c->link_free[local];
    return cs_heap_push(&pr->heap, (cs_event){.t = leave + alpha, .kind = CS_EV_ARRIVE, .rank = st->peer,
                                              .from = rank, .round = c->round, .local = local, .link = link,
                                              .bytes = st->len});
}

static int cs_round_start(cs_pricer *pr, int rank, double t)
{
    const cs_sched *s = &pr->scheds[rank];
    cs_rank_clock *c = &pr->clock[rank];
    const size_t first = s->round_start[c->round], end = cs_sched_round_end(s, c->round);
    c->expected = 0;
    c->local = 0.0;
    for (int pass = 0; pass < 2; pass++) /* receives first, then sends */
        for (size_t i = first; i < end; i++) {
            const cs_step *st = &s->steps[i];
            if (st->kind == (pass ? CS_STEP_SEND : CS_STEP_RECV) && cs_post(pr, rank, st, &t))
                return -1;
        }
    for (size_t i = first; i < end; i++) {
        const cs_step *st = &s->steps[i];
        if (st->kind == CS_STEP_REDUCE || st->kind == CS_STEP_UNREDUCE)
            c->local += pr->model->gamma * (double)st->len;
        else if (st->kind == CS_STEP_COPY)
            c->local += pr->model->rho * (double)st->len;
    }
    if (t > c->ready)
        c->ready = t;
    c->posted = 1;
    if (pr->got[pr->first[rank] + (size_t)c->round] >= c->expected)
        return cs_round_done(pr, rank);
    return 0;
}

static int cs_arrive(cs_pricer *pr, const cs_event *e)
{
    const cs_model *mo = pr->model;
    cs_rank_clock *c = &pr->clock[e->rank];
    if (e->round >= pr->scheds[e->rank].nrounds)
        return -1; /* a message for a round the receiver does not have */
    const double beta = e->local ? mo->beta_node : mo->beta;
    const double start = e->t > c->in_free[e->local] ? e->t : c->in_free[e->local];
    c->in_free[e->local] = start + beta * (double)e->bytes;
    double done = c->in_free[e->local];
    if (e->link) { /* its bytes also pass both nodes' links, behind those that came before */
        const double through = mo->beta_link * (double)e->bytes;
        double *out = &pr->node_out[e->from / pr->ppn], *in = &pr->node_in[e->rank / pr->ppn];
        *out = (*out > e->t ? *out : e->t) + through;
        *in = (*in > e->t ? *in : e->t) + through;
        done = *out > done ? *out : done;
        done = *in > done ? *in : done;
    }
    const size_t at = pr->first[e->rank] + (size_t)e->round;
    pr->got[at]++;
    if (done > pr->last[at])
        pr->last[at] = done;
    if (c->posted && c->round == e->round && pr->got[at] >= c->expected)
        return cs_round_done(pr, e->rank);
    return 0;
}

static int cs_pricer_run(cs_pricer *pr)
{
    for (int r = 0; r < pr->p; r++) {
        if (pr->scheds[r].nrounds == 0)
            pr->finish[r] = 0.0;
        else if (cs_heap_push(&pr->heap, (cs_event){.t = 0.0, .kind = CS_EV_START, .rank = r, .round = 0}))
            return -1;
    }
    while (pr->heap.n) {
        const cs_event e = cs_heap_pop(&pr->heap);
        pr->clock[e.rank].ready = e.kind == CS_EV_START ? e.t : pr->clock[e.rank].ready;
        if ((e.kind == CS_EV_START ? cs_round_start(pr, e.rank, e.t) : cs_arrive(pr, &e)) != 0)
            return -1;
    }
    for (int r = 0; r < pr->p; r++)
        if (pr->clock[r].round < pr->scheds[r].nrounds)
            return -1; /* still waiting: a receive nothing feeds */
    return 0;
}

double cs_price_critical_path(const cs_model *model, const cs_sched *scheds, int p, int ppn, double *finish)
{
    cs_pricer pr = {.model = model, .scheds = scheds, .p = p, .ppn = ppn};
    size_t total = 0;
    double worst = -1.0;
    pr.clock = calloc((size_t)p, sizeof *pr.clock);
    pr.first = calloc((size_t)p + 1, sizeof *pr.first);
    pr.finish = finish ? finish : calloc((size_t)p, sizeof *pr.finish);
    if (!pr.clock || !pr.first || !pr.finish)
        goto fn_exit;
    for (int r = 0; r < p; r++) {
        if (scheds[r].error)
            goto fn_exit;
        pr.first[r] = total;
        total += (size_t)scheds[r].nrounds;
    }
    pr.got = calloc(total + 1, sizeof *pr.got);
    pr.last = calloc(total + 1, sizeof *pr.last);
    if (ppn > 1 && model->beta_link > 0.0) {
        const size_t nodes = (size_t)(p + ppn - 1) / (size_t)ppn;
        pr.node_out = calloc(2 * nodes, sizeof *pr.node_out);
        if (!pr.node_out)
            goto fn_exit;
        pr.node_in = pr.node_out + nodes;
    }
    if (!pr.got || !pr.last || cs_pricer_run(&pr) != 0)
        goto fn_exit;
    worst = 0.0;
    for (int r = 0; r < p; r++)
        worst = pr.finish[r] > worst ? pr.finish[r] : worst;
fn_exit:
    free(pr.node_out);
    free(pr.heap.ev);
    free(pr.got);
    free(pr.last);
    free(pr.clock);
    free(pr.first);
    if (pr.finish != finish)
        free(pr.finish);
    return worst;
}
