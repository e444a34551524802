/*
 * Building schedules. Allocation failures are sticky in s->error so that the
 * algorithms read as straight-line rank arithmetic.
 */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

void cs_sched_init(cs_sched *s)
{
    memset(s, 0, sizeof(*s));
}

void cs_sched_free(cs_sched *s)
{
    free(s->steps);
    free(s->round_start);
    cs_sched_init(s);
}

void cs_sched_reset(cs_sched *s)
{
    s->nsteps = 0;
    s->nrounds = 0;
    s->tmp_bytes[0] = s->tmp_bytes[1] = 0;
    s->error = MPI_SUCCESS;
    s->messages_most = 0;
}

/* Grow an array to hold at least `need` items; 0 on success. */
static int cs_grow(void **items, size_t *cap, size_t need, size_t item_size)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap * 2 : 16;
    while (cap2 < need)
        cap2 *= 2;
    void *p = realloc(*items, cap2 * item_size);
    if (!p)
        return -1;
    *items = p;
    *cap = cap2;
    return 0;
}

/* A one-way round's beta off the node: p_beta_oneway, or where more is
 * the core's share, p / 2d ranks through it at once, d the round's nearest
 * peer off the node (a tree's round with children d apart: p / 2d parents). */
static double cs_sched_oneway_beta(const cs_sched *s)
{
    if (!(s->price->beta_core > 0.0) || s->p_near_off < 1)
        return s->p_beta_oneway;
    const double core = (double)(s->p_size / (2L * s->p_near_off)) * s->price->beta_core; /* INT_MAX: none off */
    return core > s->p_beta_oneway ? core : s->p_beta_oneway;
}

/* The open round on nodes: its messages off the node at the model of a
 * whole node's ranks sending at once (an exchange) or p_oneway of them,
 * those within it at the node's own; local steps as one level. */
static double cs_sched_price_round_nodes(const cs_sched *s, const cs_band *band)
{
    const cs_model *mo = s->price;
    const int sends_off = s->p_sends_off, recvs_off = s->p_recvs_off;
    const size_t sent_off = s->p_sent_off, recv_off = s->p_recv_off;
    const double beta_off = sends_off && recvs_off ? s->p_beta_exchange : cs_sched_oneway_beta(s);
    const double fa = band ? band->alpha_factor : 1.0, fb = band ? band->beta_factor : 1.0;
    return cs_sched_messages_cost(mo->overhead, fa * s->p_alpha_on, fb * s->p_beta_on, s->p_sends - sends_off,
                                  s->p_recvs - recvs_off, s->p_sent - sent_off, s->p_recv - recv_off) +
           cs_sched_messages_cost(mo->overhead, fa * mo->alpha, fb * beta_off, sends_off, recvs_off, sent_off,
                                  recv_off) +
           mo->gamma * (double)s->p_reduced + mo->rho * (double)s->p_copied;
}

/* Pricing mode: close the open round. */
static void cs_sched_price_flush(cs_sched *s)
{
    /* the round's band: its largest message's (model.bands) */
    const cs_band *band = cs_model_band(s->price, (double)s->p_largest);
    const cs_model sized = cs_model_sized(s->price, (double)s->p_largest);
    s->priced_starts += s->p_sends > s->p_recvs ? s->p_sends : s->p_recvs;
    s->priced_posts += s->p_sends + s->p_recvs;
    if (s->p_ppn)
        s->priced += cs_sched_price_round_nodes(s, band);
    else
        s->priced +=
            cs_sched_round_cost(&sized, s->p_sends, s->p_recvs, s->p_sent, s->p_recv, s->p_reduced, s->p_copied);
    if (s->p_hops > 1) /* the round's farthest message: its links beyond the first */
        s->priced += sized.alpha_hop * (double)(s->p_hops - 1);
    s->p_hops = 1;
    s->p_largest = 0;
    s->p_sent = s->p_recv = s->p_reduced = s->p_copied = 0;
    s->p_sends = s->p_recvs = 0;
    s->p_sent_off = s->p_recv_off = 0;
    s->p_sends_off = s->p_recvs_off = 0;
    s->p_near_off = INT_MAX;
}

void cs_sched_price_start(cs_sched *s, const cs_model *model)
{
    cs_sched_reset(s);
    s->price = model;
    s->priced = 0.0;
    s->priced_starts = 0;
    s->priced_posts = 0;
    s->p_sent = s->p_recv = s->p_reduced = s->p_copied = 0;
    s->p_sends = s->p_recvs = 0;
    s->p_ppn = 0;
    s->p_node = NULL;
    s->p_rank = -1;
    s->p_hops = 1;
    s->p_sent_off = s->p_recv_off = 0;
    s->p_sends_off = s->p_recvs_off = 0;
    s->p_near_off = INT_MAX;
    s->p_size = 0;
    s->p_largest = 0;
}

/* cs_sched_price_node's beta off the node: in a round that exchanges, the
 * node's ranks all sending off it (ppn; p / nodes rounded up on an uneven
 * map; one where flat) and so every rank of the communicator through the
 * core; in a one-way round `oneway` of the node's, and as many through the
 * core (the other nodes' senders not counted: a lower bound, as a tree's
 * later rounds have fewer). */
static void cs_sched_price_core(cs_sched *s, const cs_problem *prob, int uneven, int flat, int oneway)
{
    const int senders = uneven ? (prob->p + prob->nodes - 1) / prob->nodes : flat ? 1 : prob->ppn;
    if (flat) { /* a rank a node: no node's link, as cs_model_at_level */
        s->p_beta_exchange = cs_model_through_core(s->price, prob->p).beta;
        s->p_beta_oneway = cs_model_through_core(s->price, 1).beta;
        return;
    }
    s->p_beta_exchange = cs_model_off_nodes(s->price, senders, prob->p).beta;
    s->p_beta_oneway = cs_model_off_nodes(s->price, oneway, oneway).beta;
}

void cs_sched_price_node(cs_sched *s, int rank, const cs_problem *prob, int oneway)
{
    const int uneven = cs_model_map_uneven(s->price, prob), flat = !cs_model_nodes(s->price, prob) && !uneven;
    s->p_rank = rank; /* its messages' distance (model.distance) */
    if (flat && !(s->price->beta_core > 0.0 && prob->p > 1))
        return;
    const cs_model on = cs_model_on_node(s->price);
    s->p_rank = rank;
    s->p_ppn = uneven ? -1 : flat ? 1 : prob->ppn; /* flat: a rank a node, every message through the core */
    s->p_node = uneven ? prob->node : NULL;
    s->p_mynode = uneven ? prob->node[rank] : 0;
    s->p_alpha_on = on.alpha;
    s->p_beta_on = on.beta;
    s->p_size = prob->p;
    cs_sched_price_core(s, prob, uneven, flat, oneway < 1 ? 1 : oneway);
}

double cs_sched_price_total(cs_sched *s)
{
    cs_sched_price_flush(s);
    return s->priced;
}

void cs_sched_round(cs_sched *s)
{
    if (s->price) {
        cs_sched_price_flush(s);
        return;
    }
    size_t cap = (size_t)s->round_cap;
    if (s->error || cs_grow((void **)&s->round_start, &cap, (size_t)s->nrounds + 1, sizeof(size_t))) {
        s->error = MPI_ERR_NO_MEM;
        return;
    }
    s->round_cap = (int)cap;
    s->round_start[s->nrounds++] = s->nsteps;
}

void cs_sched_store(cs_sched *s, const cs_step *step)
{
    if (s->error)
        return;
    if (s->nrounds == 0)
        cs_sched_round(s);
    if (s->error || cs_grow((void **)&s->steps, &s->cap, s->nsteps + 1, sizeof(cs_step))) {
        s->error = MPI_ERR_NO_MEM;
        return;
    }
    s->steps[s->nsteps++] = *step;
    s->messages_most = 0; /* counted again at the next run */
}

void cs_sched_copy_merge(cs_sched *s, cs_buf src, size_t off, cs_buf dst, size_t dst_off, size_t len)
{
    const size_t first = s->nrounds ? s->round_start[s->nrounds - 1] : 0;
    cs_step *last = !s->price && s->nsteps > first ? &s->steps[s->nsteps - 1] : NULL;
    if (last && last->kind == CS_STEP_COPY && last->buf == src && last->dst == dst && last->off + last->len == off &&
        last->dst_off + last->len == dst_off) {
        last->len += len;
        return;
    }
    cs_sched_copy(s, src, off, dst, dst_off, len);
}

void cs_sched_scratch(cs_sched *s, cs_buf tmp, size_t bytes)
{
    size_t *t = &s->tmp_bytes[tmp == CS_BUF_TMP1];
    if (bytes > *t)
        *t = bytes;
}
