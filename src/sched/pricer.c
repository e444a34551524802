/*
 * The event pricer (pricer.h): a discrete-event run of all ranks' schedules.
 * Two kinds of event, in time order: a rank starts a round (it posts, and
 * its sends take their place on its link), and a message reaches its
 * receiver (it takes its place on the receiver's link). Every event pushes
 * only events at or after its own time, so links are claimed in time order.
 * A rank begins a round (BEGIN) before it posts (START) at the same instant,
 * after every other rank that begins one then: a rendezvous send posted
 * before its receiver has begun the round waits, parked on that (receiver,
 * round), until the receiver's BEGIN releases it. A message between nodes
 * also queues its bytes on the network's core, one FIFO for all of them
 * (model->beta_core; cs_core_through). A message on a path of its own
 * (cs_model_queues: model.node_paths pair, on a node) queues on neither
 * rank's path. A message's latency and bytes take its size band's factors
 * (model.bands, cs_band_of).
 */
#include <stdlib.h>

#include "sched/pricer.h"

/* At one instant: arrivals first, then every rank that begins a round there
 * (ready for the rendezvous blocks sent to it), then their posts. */
enum { CS_EV_ARRIVE, CS_EV_BEGIN, CS_EV_START };

typedef struct cs_event {
    double t;
    int kind;
    int rank;  /* BEGIN, START: the rank; ARRIVE: the receiver */
    int from;  /* ARRIVE: the sender */
    int round; /* BEGIN, START: the round to begin; ARRIVE: the receiver's round */
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
    int round;                                     /* the round being run; nrounds: finished */
    int posted;                                    /* its messages of this round are posted */
    int expected;                                  /* receives of this round */
    int parked;                                    /* its rendezvous sends of this round waiting for their receivers */
    double ready;                                  /* posts done and sends off the link */
    double local;                                  /* the round's local steps, seconds */
    double link_free[CS_LINKS], in_free[CS_LINKS]; /* its links each way (cs_link_out, cs_link_in) */
} cs_rank_clock;

/* A rendezvous send waiting for its receiver to begin the round. */
typedef struct cs_parked {
    int from, local, link;
    size_t bytes;
    double posted; /* the sender's clock when it posted: the block leaves at the later of it and the begin */
    int next;      /* the next one parked on the same (receiver, round); -1: none */
} cs_parked;

typedef struct cs_pricer {
    const cs_model *model;
    const cs_sched *scheds;
    int p;
    const int *node; /* node of each rank; NULL: one level */
    cs_rank_clock *clock;
    size_t *first;    /* first[r]: index of rank r's round 0 in got, last */
    int *got;         /* deliveries per (rank, round) */
    double *last;     /* the latest delivery per (rank, round) */
    double *begin;    /* per (rank, round): when the rank begins it, once known; -1: not yet */
    int *parked_head; /* per (rank, round): the first send parked on it, -1: none */
    cs_parked *parked;
    int nparked, parked_cap;
    double *finish;
    double *node_out, *node_in; /* per node: when its link is through what was queued on it */
    double core_free;           /* when the network's core is through what was queued on it */
    cs_heap heap;
} cs_pricer;

static int cs_same_node(const cs_pricer *pr, int a, int b)
{
    return pr->model->node_levels && pr->node && pr->node[a] == pr->node[b];
}

/* Does a message from a to b go through their nodes' links? */
static int cs_crosses_link(const cs_pricer *pr, int a, int b)
{
    return pr->node_out && pr->node[a] != pr->node[b];
}

/* Does a message from a to b cross the network's core (model->beta_core)?
 * Between nodes where the pricer has a node map; without one, between any
 * two ranks: each rank a host of its own, as the model's one level has it
 * (the lab's Ethernet cluster, one rank a host behind one backbone). */
static int cs_crosses_core(const cs_pricer *pr, int a, int b)
{
    return pr->model->beta_core > 0.0 && a != b && (!pr->node || pr->node[a] != pr->node[b]);
}

/* An arriving message's bytes through the core, one FIFO queue for every
 * message between nodes, behind those that reached it before: when they
 * are through (done: when they are through the links, at the latest). */
static double cs_core_through(cs_pricer *pr, const cs_event *e, double done)
{
    if (!cs_crosses_core(pr, e->from, e->rank))
        return done;
    pr->core_free = (pr->core_free > e->t ? pr->core_free : e->t) + pr->model->beta_core * (double)e->bytes;
    return pr->core_free > done ? pr->core_free : done;
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
    pr->begin[at + 1] = end;
    return cs_heap_push(&pr->heap, (cs_event){.t = end, .kind = CS_EV_BEGIN, .rank = rank, .round = c->round});
}

/* A message's latency from a to b: alpha (alpha_node on the node), and off
 * it the links it crosses beyond the first (model.distance). */
static double cs_latency(const cs_model *mo, int a, int b, int local)
{
    return local ? mo->alpha_node : mo->alpha + cs_model_hop_latency(mo, a, b);
}

/* A message's band (cs_model_band), its factors 1 outside every band. */
static cs_band cs_band_of(const cs_model *mo, size_t bytes)
{
    const cs_band *band = cs_model_band(mo, (double)bytes);
    return band ? *band : (cs_band){.alpha_factor = 1.0, .beta_factor = 1.0};
}

/* A send of rank's round leaves at t or when its link is free, and arrives its latency later. */
static int cs_depart(cs_pricer *pr, int rank, int to, int local, int link, size_t bytes, double t)
{
    const cs_model *mo = pr->model;
    cs_rank_clock *c = &pr->clock[rank];
    const cs_band band = cs_band_of(mo, bytes);
    const double beta = (local ? mo->beta_node : mo->beta) * band.beta_factor,
                 alpha = cs_latency(mo, rank, to, local) * band.alpha_factor;
    double own = 0.0; /* a path of its own (cs_model_queues): free when posted */
    double *busy = !cs_model_queues(mo, local)       ? &own
                   : local && cs_model_node_path(mo) ? &c->link_free[CS_LINK_NODE]
                   : local                           ? &c->link_free[CS_LINK_NET]
                                                     : &c->link_free[cs_link_out(mo, rank, to)];
    const double leave = t > *busy ? t : *busy;
    *busy = leave + beta * (double)bytes;
    if (*busy > c->ready)
        c->ready = *busy;
    return cs_heap_push(&pr->heap, (cs_event){.t = leave + alpha,
                                              .kind = CS_EV_ARRIVE,
                                              .rank = to,
                                              .from = rank,
                                              .round = c->round,
                                              .local = local,
                                              .link = link,
                                              .bytes = bytes});
}

/* A rendezvous send whose receiver has not begun the round: it waits there. */
static int cs_park(cs_pricer *pr, int rank, size_t at, int local, int link, size_t bytes, double posted)
{
    if (pr->nparked == pr->parked_cap) {
        const int cap = pr->parked_cap ? 2 * pr->parked_cap : 64;
        cs_parked *more = realloc(pr->parked, (size_t)cap * sizeof *more);
        if (!more)
            return -1;
        pr->parked = more;
        pr->parked_cap = cap;
    }
    pr->parked[pr->nparked] = (cs_parked){
        .from = rank, .local = local, .link = link, .bytes = bytes, .posted = posted, .next = pr->parked_head[at]};
    pr->parked_head[at] = pr->nparked++;
    pr->clock[rank].parked++;
    return 0;
}

/* Rank begins round `round` at t: the sends parked on it leave (their
 * senders' rounds may then be done). */
static int cs_release(cs_pricer *pr, int rank, int round, double t)
{
    const size_t at = pr->first[rank] + (size_t)round;
    int i = pr->parked_head[at];
    pr->parked_head[at] = -1;
    for (; i >= 0; i = pr->parked[i].next) {
        const cs_parked q = pr->parked[i];
        cs_rank_clock *c = &pr->clock[q.from];
        if (cs_depart(pr, q.from, rank, q.local, q.link, q.bytes, q.posted > t ? q.posted : t) != 0)
            return -1;
        c->parked--;
        if (c->posted && !c->parked && pr->got[pr->first[q.from] + (size_t)c->round] >= c->expected &&
            cs_round_done(pr, q.from) != 0)
            return -1;
    }
    return 0;
}

/* Post one message of the round: its overhead, and for a send its place on
 * the link and its arrival (a rendezvous send, once its receiver has begun
 * the round: it waits where the receiver begins later, beyond rounding, or
 * has not finished the round before). *t is the rank's clock. */
static int cs_post(cs_pricer *pr, int rank, const cs_step *st, double *t)
{
    cs_rank_clock *c = &pr->clock[rank];
    *t += pr->model->overhead;
    if (st->kind == CS_STEP_RECV) {
        c->expected++;
        return 0;
    }
    const int local = cs_same_node(pr, rank, st->peer), link = cs_crosses_link(pr, rank, st->peer);
    if (cs_model_rendezvous(pr->model, st->len)) {
        if (c->round >= pr->scheds[st->peer].nrounds)
            return -1; /* a message for a round the receiver does not have */
        const size_t at = pr->first[st->peer] + (size_t)c->round;
        const double begin = pr->begin[at];
        if (begin < 0.0 || begin > *t * (1.0 + 1e-12))
            return cs_park(pr, rank, at, local, link, st->len, *t);
    }
    return cs_depart(pr, rank, st->peer, local, link, st->len, *t);
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
    if (pr->got[pr->first[rank] + (size_t)c->round] >= c->expected && !c->parked)
        return cs_round_done(pr, rank);
    return 0;
}

static int cs_arrive(cs_pricer *pr, const cs_event *e)
{
    const cs_model *mo = pr->model;
    cs_rank_clock *c = &pr->clock[e->rank];
    if (e->round >= pr->scheds[e->rank].nrounds)
        return -1; /* a message for a round the receiver does not have */
    const double beta = (e->local ? mo->beta_node : mo->beta) * cs_band_of(mo, e->bytes).beta_factor;
    double own = 0.0; /* a path of its own (cs_model_queues): free when it arrives */
    double *busy = !cs_model_queues(mo, e->local)       ? &own
                   : e->local && cs_model_node_path(mo) ? &c->in_free[CS_LINK_NODE]
                   : e->local                           ? &c->in_free[CS_LINK_NET]
                                                        : &c->in_free[cs_link_in(mo, e->from, e->rank)];
    const double start = e->t > *busy ? e->t : *busy;
    *busy = start + beta * (double)e->bytes;
    double done = *busy;
    if (e->link) { /* its bytes also pass both nodes' links, behind those that came before */
        const double through = mo->beta_link * (double)e->bytes;
        double *out = &pr->node_out[pr->node[e->from]], *in = &pr->node_in[pr->node[e->rank]];
        *out = (*out > e->t ? *out : e->t) + through;
        *in = (*in > e->t ? *in : e->t) + through;
        done = *out > done ? *out : done;
        done = *in > done ? *in : done;
    }
    done = cs_core_through(pr, e, done);
    const size_t at = pr->first[e->rank] + (size_t)e->round;
    pr->got[at]++;
    if (done > pr->last[at])
        pr->last[at] = done;
    if (c->posted && c->round == e->round && pr->got[at] >= c->expected && !c->parked)
        return cs_round_done(pr, e->rank);
    return 0;
}

static int cs_pricer_run(cs_pricer *pr)
{
    for (int r = 0; r < pr->p; r++) {
        if (pr->scheds[r].nrounds == 0)
            pr->finish[r] = 0.0;
        else if (cs_heap_push(&pr->heap, (cs_event){.t = 0.0, .kind = CS_EV_BEGIN, .rank = r, .round = 0}))
            return -1;
    }
    while (pr->heap.n) {
        const cs_event e = cs_heap_pop(&pr->heap);
        int rc;
        if (e.kind == CS_EV_BEGIN) { /* ready to receive; it posts after every rank that begins now */
            rc = cs_release(pr, e.rank, e.round, e.t) ||
                 cs_heap_push(&pr->heap, (cs_event){.t = e.t, .kind = CS_EV_START, .rank = e.rank, .round = e.round});
        } else if (e.kind == CS_EV_START) {
            pr->clock[e.rank].ready = e.t;
            rc = cs_round_start(pr, e.rank, e.t);
        } else {
            rc = cs_arrive(pr, &e);
        }
        if (rc != 0)
            return -1;
    }
    for (int r = 0; r < pr->p; r++)
        if (pr->clock[r].round < pr->scheds[r].nrounds)
            return -1; /* still waiting: a receive nothing feeds */
    return 0;
}

double cs_price_critical_path_map(const cs_model *model, const cs_sched *scheds, int p, const int *node, int nodes,
                                  double *finish)
{
    cs_pricer pr = {.model = model, .scheds = scheds, .p = p, .node = node};
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
    pr.parked_head = malloc((total + 1) * sizeof *pr.parked_head);
    pr.begin = malloc((total + 1) * sizeof *pr.begin);
    if (!pr.parked_head || !pr.begin)
        goto fn_exit;
    for (size_t i = 0; i <= total; i++) {
        pr.parked_head[i] = -1;
        pr.begin[i] = -1.0;
    }
    for (int r = 0; r < p; r++)
        pr.begin[pr.first[r]] = 0.0; /* every rank begins its round 0 at 0 */
    if (node && nodes > 0 && model->beta_link > 0.0) {
        pr.node_out = calloc(2 * (size_t)nodes, sizeof *pr.node_out);
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
    free(pr.parked_head);
    free(pr.begin);
    free(pr.parked);
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

double cs_price_critical_path(const cs_model *model, const cs_sched *scheds, int p, int ppn, double *finish)
{
    if (ppn <= 1 || p <= 0)
        return cs_price_critical_path_map(model, scheds, p, NULL, 0, finish);
    int *node = malloc((size_t)p * sizeof *node);
    if (!node)
        return -1.0;
    for (int r = 0; r < p; r++)
        node[r] = r / ppn;
    const double t = cs_price_critical_path_map(model, scheds, p, node, (p + ppn - 1) / ppn, finish);
    free(node);
    return t;
}
