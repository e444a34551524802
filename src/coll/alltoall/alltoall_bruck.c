/*
 * Alltoall: Bruck's index algorithm, radix r, for any p.
 *
 * Reference: Bruck, Ho, Kipnis, Upfal, Weathersby 1997, "Efficient
 * Algorithms for All-to-All Communications in Multiport Message-Passing
 * Systems", §3 (the index algorithm, radix r); MPICH's
 * alltoall_intra_brucks.c is its r = 2. The any-p counterpart of the
 * Standard exchange: ceil(log_r p) digits, at most r - 1 rounds each,
 * messages of about m p / r bytes, for small blocks.
 *
 * Rank q numbers its blocks by distance: block i is the one for rank
 * q + i (mod p). For each digit x of i in base r (lowest first) and each
 * value v = 1..r-1, one round: q sends every block whose digit x is v to
 * q + v r^x and receives the same indices from q - v r^x. A block has then
 * made the hops of its digits so far; after the last digit, block i on
 * rank q came from q - i and belongs there: it goes to recv[(q - i) mod p].
 * MPICH rotates the whole buffer before and after; here a block is read
 * from the send buffer where it lies (block q + i) until it first moves,
 * then from a holding area, and written to its final place by the round
 * after which no digit of i is left, so the rotations cost nothing. A round
 * packs its n blocks into a staging area (TMP0 after the holding area) and
 * unpacks what arrives (TMP1) to the holding area or the final place.
 *
 * In place, the blocks of the other ranks go to the holding area first.
 *
 * Restrictions: contiguous datatypes.
 *
 * Cost, m bytes per block, n(x, v) = #{0 <= i < p : digit x of i is v}
 * (rounds with n = 0 are skipped):
 *   Σ_{x, v} [alpha + (beta + 2 rho) m n(x, v)] + rho m c,
 *   c = 1 (the own block), in place c = p - 1.
 * On nodes (cs_problem.ppn) the round that sends v r^x ranks ahead takes
 * cs_model_at_level's alpha and beta for ranks that far apart (within 1.7
 * times the pricer, a unit test).
 * Without a radix (bruck, not bruck:r=4) the model picks r in 2..min(p, 16);
 * collshim-calibrate also times r = 2, the libraries' Bruck (MPICH's,
 * MVAPICH2's small-message alltoall), which the model rarely picks but a
 * network whose links serve several rounds' hops at once can favour
 * (SMPI's hypercube-256 at p = 192, 512 B: 73 us against r = 14's 165).
 */
#include <math.h>

#include <mpi.h>

#include "coll/coll.h"
#include "coll/params.h"

#define CS_BRUCK_MAX_TUNED_RADIX 16

/* r^x for the digits that matter (r^x < p); 0 past them. */
static size_t cs_bruck_weight(int p, int r, int x)
{
    size_t w = 1;
    for (int i = 0; i < x; i++, w *= (size_t)r)
        if (w >= (size_t)p)
            return 0;
    return w < (size_t)p ? w : 0;
}

/* n(x, v): the indices below p whose digit x (weight w = r^x) is v. */
static size_t cs_bruck_count(int p, int r, size_t w, int v)
{
    const size_t cycle = w * (size_t)r, full = (size_t)p / cycle, rem = (size_t)p % cycle;
    const size_t past = rem > (size_t)v * w ? rem - (size_t)v * w : 0;
    return full * w + (past < w ? past : w);
}

/* given: the model, not yet pairwise. On nodes, the round that sends v w
 * ranks ahead (round robin: off the node for some ranks, the slowest) at
 * cs_model_at_level's price for ranks that far apart. */
static double cs_bruck_cost(const cs_model *model_given, const cs_problem *prob, int r)
{
    const double m = (double)prob->bytes;
    cs_model near = *model_given; /* the rounds' distance: their shifts' (cs_shift_hops), not a level's */
    near.distance = CS_DISTANCE_NONE;
    const cs_model *given = &near;
    double t = given->rho * m * ((prob->flags & CS_PROB_INPLACE) ? prob->p - 1 : 1);
    for (size_t w, x = 0; r >= 2 && (w = cs_bruck_weight(prob->p, r, (int)x)); x++)
        for (int v = 1; v < r; v++) {
            const size_t n = cs_bruck_count(prob->p, r, w, v);
            const cs_model sized = cs_model_sized(given, m * (double)n); /* the round's message: n blocks */
            const cs_model at = cs_model_at_level(&sized, prob, (long)(v * w), prob->p), round = cs_model_pairwise(&at),
                           flat = cs_model_pairwise(&sized);
            const cs_model *model = cs_model_nodes(given, prob) ? &round : &flat;
            const long hops = cs_shift_hops(model_given->distance, prob->p, (long)(v * w));
            if (n)
                t += model->alpha + sized.alpha_hop * (double)(hops - 1) +
                     (model->beta + 2 * model->rho) * m * (double)n;
        }
    return t;
}

static double cs_alltoall_bruck_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return params->radix >= 2 ? cs_bruck_cost(model, prob, params->radix) : INFINITY;
}

/* The radix r in 2..min(p, 16) of least cost, ties to the smaller. */
static void cs_alltoall_bruck_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    double best = INFINITY;
    if (params->radix >= 2)
        return;
    params->radix = 2;
    for (int r = 2; r <= prob->p && r <= CS_BRUCK_MAX_TUNED_RADIX; r++) {
        const double t = cs_bruck_cost(model, prob, r);
        if (t < best) {
            best = t;
            params->radix = r;
        }
    }
}

typedef struct cs_bruck {
    int p, rank, inplace;
    size_t m, hold, pack; /* TMP0: the holding area (p blocks), then the pack area */
} cs_bruck;

/* Where block i lies before the round of digit x (weight w): where it
 * started until a lower digit has moved it, else the holding area. */
static void cs_bruck_where(const cs_bruck *b, size_t i, size_t w, cs_buf *buf, size_t *off)
{
    if (i % w || b->inplace) {
        *buf = CS_BUF_TMP0;
        *off = b->hold + i * b->m;
    } else {
        *buf = CS_BUF_SEND;
        *off = ((size_t)b->rank + i) % (size_t)b->p * b->m;
    }
}

static void cs_bruck_round(cs_sched *s, const cs_bruck *b, int r, size_t w, int v)
{
    const size_t p = (size_t)b->p, step = (size_t)v * w, cycle = w * (size_t)r;
    const size_t n = cs_bruck_count(b->p, r, w, v);
    const int to = (int)(((size_t)b->rank + step) % p), from = (int)(((size_t)b->rank + p - step % p) % p);
    size_t c = 0;
    if (!n)
        return;
    for (size_t i = step; i < p; i += i % cycle == step + w - 1 ? cycle - w + 1 : 1, c++) {
        cs_buf buf;
        size_t off;
        cs_bruck_where(b, i, w, &buf, &off);
        cs_sched_copy_merge(s, buf, off, CS_BUF_TMP0, b->pack + c * b->m, b->m);
    }
    cs_sched_round(s);
    cs_sched_send(s, to, CS_BUF_TMP0, b->pack, n * b->m);
    cs_sched_recv(s, from, CS_BUF_TMP1, 0, n * b->m);
    c = 0;
    for (size_t i = step; i < p; i += i % cycle == step + w - 1 ? cycle - w + 1 : 1, c++) {
        const int last = i / cycle == 0; /* no digit of i above x */
        const size_t dst = last ? ((size_t)b->rank + p - i) % p * b->m : b->hold + i * b->m;
        cs_sched_copy_merge(s, CS_BUF_TMP1, c * b->m, last ? CS_BUF_RECV : CS_BUF_TMP0, dst, b->m);
    }
}

static int cs_alltoall_bruck_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const int r = params->radix;
    cs_bruck b = {.p = prob->p, .rank = rank, .inplace = (prob->flags & CS_PROB_INPLACE) != 0, .m = prob->bytes};
    size_t most = 0;
    if (r < 2)
        return MPI_ERR_ARG;
    for (size_t w, x = 0; (w = cs_bruck_weight(b.p, r, (int)x)); x++)
        for (int v = 1; v < r; v++) {
            const size_t n = cs_bruck_count(b.p, r, w, v);
            most = n > most ? n : most;
        }
    b.hold = 0;
    b.pack = (size_t)b.p * b.m;
    cs_sched_scratch(s, CS_BUF_TMP0, b.pack + most * b.m);
    cs_sched_scratch(s, CS_BUF_TMP1, most * b.m);
    cs_sched_round(s); /* the blocks that stay, before any message */
    if (!b.inplace)
        cs_sched_copy(s, CS_BUF_SEND, (size_t)rank * b.m, CS_BUF_RECV, (size_t)rank * b.m, b.m);
    for (size_t i = 1; b.inplace && i < (size_t)b.p; i++)
        cs_sched_copy_merge(s, CS_BUF_RECV, ((size_t)rank + i) % (size_t)b.p * b.m, CS_BUF_TMP0, i * b.m, b.m);
    for (size_t w, x = 0; (w = cs_bruck_weight(b.p, r, (int)x)); x++)
        for (int v = 1; v < r; v++)
            cs_bruck_round(s, &b, r, w, v);
    return s->error;
}

const cs_alg cs_alltoall_bruck = {
    .name = "bruck",
    .description = "Bruck's index algorithm, radix r (bruck:r=4), ceil(log_r p) digits of up to r - 1 rounds, "
                   "any p (Bruck et al. 1997)",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_CONTIG,
    .parse = cs_params_parse_radix,
    .syntax = "expected r=<radix>, a radix of at least 2 (bruck:r=4)",
    .tune = cs_alltoall_bruck_tune,
    .cost = cs_alltoall_bruck_cost,
    .build = cs_alltoall_bruck_build,
    .format = cs_params_format_radix,
    .measured = (const char *const[]){"r=2", NULL},
    .critical_path = CS_PATH_EXACT,
};
