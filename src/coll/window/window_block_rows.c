/*
 * The methods of collshim_window_reduce_block (include/collshim.h) as rows
 * of the window_block collective: windowed reduction over an array
 * distributed in blocks, element x gets the reduction of elements
 * max(0, x - r) .. min(x - r + n - 1, N - 1) of the whole array (Szymanski
 * et al. 1995, §3.2, the scalable case). Both rows exchange the boundary in
 * one round (built here, run by the executor): r elements from the left
 * neighbour, n - 1 - r from the right, into the extended slice
 * (RECV: left halo, own elements, right halo; SEND: the slice). The local
 * pass over the extended slice is the shim's (src/shim/window.c):
 *
 *   prefix-suffix       prefixes and suffixes of sections of n elements,
 *                       a window is a suffix (+) a prefix: up to 3 operator
 *                       steps per element
 *   prefix-differences  running prefixes and the operator's exact inverse
 *                       (§3.2, footnote f): 2 steps per element
 *
 * Restrictions: r and n - 1 - r at most the slice's count (the API checks
 * them); prefix-differences needs an exact inverse.
 * Cost, m bytes of count elements of e bytes, L = count + n - 1:
 *   alpha + beta (n - 1) e + rho m + gamma s L e,  s = 3 or 2.
 */
#include "coll/coll.h"

static int cs_block_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const size_t e = prob->elem;
    const size_t left = rank > 0 ? (size_t)prob->r : 0;
    const size_t right = rank < prob->p - 1 ? (size_t)(prob->n - 1 - prob->r) : 0;
    cs_sched_round(s); /* no empty messages: both sides know which are empty */
    if (left)
        cs_sched_recv(s, rank - 1, CS_BUF_RECV, 0, left * e);
    if (right)
        cs_sched_recv(s, rank + 1, CS_BUF_RECV, (left + prob->count) * e, right * e);
    if (rank > 0 && prob->n - 1 - prob->r > 0)
        cs_sched_send(s, rank - 1, CS_BUF_SEND, 0, (size_t)(prob->n - 1 - prob->r) * e);
    if (rank < prob->p - 1 && prob->r > 0)
        cs_sched_send(s, rank + 1, CS_BUF_SEND, (prob->count - (size_t)prob->r) * e, (size_t)prob->r * e);
    return s->error;
}

static double cs_block_cost(const cs_model *unsized, const cs_problem *prob, double steps)
{
    const double e = (double)prob->elem, halo = (double)(prob->n - 1) * e;
    const cs_model sized = cs_model_sized(unsized, halo), *model = &sized; /* the halo's band (model.bands) */
    return model->alpha + model->beta * halo + model->rho * (double)prob->bytes +
           model->gamma * steps * ((double)prob->bytes + halo);
}

static double cs_block_ps_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_block_cost(model, prob, 3.0);
}

static double cs_block_differences_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_block_cost(model, prob, 2.0);
}

const cs_alg cs_window_block_prefix_suffix = {
    .name = "prefix-suffix",
    .description = "boundary exchange, then prefixes and suffixes of sections (Szymanski et al. 1995 s3.2)",
    .coll = CS_COLL_WINDOW_BLOCK,
    .cost = cs_block_ps_cost,
    .build = cs_block_build,
};

const cs_alg cs_window_block_differences = {
    .name = "prefix-differences",
    .description = "boundary exchange, then running prefixes and the exact inverse (s3.2, note f)",
    .coll = CS_COLL_WINDOW_BLOCK,
    .requires = CS_REQ_INVERSE,
    .cost = cs_block_differences_cost,
    .build = cs_block_build,
    .instead = &cs_window_block_prefix_suffix,
};
