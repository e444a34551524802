/*
 * Alltoall: Bokhari's multiphase complete exchange.
 *
 * Reference: Bokhari 1993, "Multiphase Complete Exchange: A Theoretical
 * Analysis", §2.3 (the algorithm), §3 eq. (1)-(2) (its cost) and §3.5 (the
 * hull of optimality, src/model/hull.c, which picks the partition).
 *
 * p = 2^d, blocks of m bytes, a partition D = (d_1..d_k) of d in the order
 * given. Phase i works on the d_i bits [L_{i-1}, L_i) of the rank, L_i =
 * d_1 + .. + d_i, lowest bits first as §2.3 numbers them: rank r exchanges
 * with the 2^{d_i} - 1 ranks r ^ (j << L_{i-1}), j = 1..2^{d_i}-1, sending
 * each, as one message, the 2^{d-d_i} blocks whose destination agrees with
 * that partner on the field. Before each phase a rank permutes all 2^d
 * blocks it holds, once: the blocks for partners into a staging area (TMP0),
 * one segment per partner in the order the partner stores them, its own
 * into place in the stage the phase receives into. After phase i a rank
 * holds the blocks (source s, destination t) with s = r above bit L_i and
 * t = r below it, at index
 *     s[L_{i-1}, L_i) 2^{d - d_i} + t[L_i, d) 2^{L_{i-1}} + s[0, L_{i-1})
 * so that each received segment is contiguous and after the last phase the
 * index is s: the receive buffer in order, with no final shuffle.
 *
 * Stages alternate between the receive buffer and TMP1, backwards from the
 * receive buffer; in place with k odd the first stage is a second region of
 * TMP0 (the data start in the receive buffer and must not be permuted onto
 * themselves). One part (D = {d}) is Direct's schedule (alltoall_direct.c).
 *
 * Restrictions: p a power of two; contiguous datatypes; parts given in
 * advance must sum to log2 p (CS_REQ_PARTITION, checked per call: the
 * configuration is read before p is known).
 *
 * Cost, k >= 2 parts, in place or not (eq. 2; the permutation before each
 * phase is the paper's shuffle after the previous one):
 *   Σ_i [(2^{d_i} - 1)(alpha + beta m 2^{d - d_i}) + rho m 2^d]
 * One part: Direct's, (p - 1)(alpha + beta m) + rho m (rho m (p - 1) in
 * place), which leaves out the paper's final shuffle, "redundant" (§2.3).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "coll/alltoall/multiphase.h"
#include "model/hull.h"

extern const cs_alg cs_alltoall_direct;

/* The parts as the hull writes them, if they are a partition of d; else -1. */
static int cs_mp_parts(int d, const int *parts, int nparts, unsigned char *out)
{
    int sum = 0;
    if (d < 0 || nparts > CS_HULL_MAX_D)
        return -1;
    for (int i = 0; i < nparts; i++) {
        if (parts[i] < 1 || parts[i] > d)
            return -1;
        sum += parts[i];
        out[i] = (unsigned char)parts[i];
    }
    return sum == d ? nparts : -1;
}

/* ---- the schedule ------------------------------------------------------ */

/* Where a stage of the data lives. */
typedef struct cs_region {
    cs_buf buf;
    size_t off;
} cs_region;

/* Blocks that lie next to each other at both ends are copied as one step. */
typedef struct cs_run {
    cs_region from, to;
    size_t len;
} cs_run;

static void cs_run_flush(cs_sched *s, cs_run *run)
{
    cs_sched_copy(s, run->from.buf, run->from.off, run->to.buf, run->to.off, run->len);
    run->len = 0;
}

static void cs_run_add(cs_sched *s, cs_run *run, cs_region from, cs_region to, size_t len)
{
    if (run->len && run->from.buf == from.buf && run->to.buf == to.buf && run->from.off + run->len == from.off &&
        run->to.off + run->len == to.off) {
        run->len += len;
        return;
    }
    cs_run_flush(s, run);
    *run = (cs_run){from, to, len};
}

typedef struct cs_mp {
    int d, rank, k;
    const int *parts;
    size_t m;
    cs_region z[CS_MAX_PARTS + 1]; /* z[i]: the data after phase i; z[0] the input */
} cs_mp;

static cs_region cs_at(cs_buf buf, size_t off)
{
    return (cs_region){buf, off};
}

/* The stages and the scratch they need. */
static void cs_mp_stages(cs_sched *s, cs_mp *mp, int inplace)
{
    const size_t all = mp->m << mp->d;
    size_t staging = 0;
    for (int i = 0; i < mp->k; i++) {
        const size_t bytes = (((size_t)1 << mp->parts[i]) - 1) * (mp->m << (mp->d - mp->parts[i]));
        staging = bytes > staging ? bytes : staging;
    }
    mp->z[mp->k] = cs_at(CS_BUF_RECV, 0);
    for (int i = mp->k - 1; i >= 1; i--)
        mp->z[i] = cs_at((mp->k - i) % 2 ? CS_BUF_TMP1 : CS_BUF_RECV, 0);
    mp->z[0] = cs_at(inplace ? CS_BUF_RECV : CS_BUF_SEND, 0);
    cs_sched_scratch(s, CS_BUF_TMP1, all);
    if (inplace && mp->z[1].buf == CS_BUF_RECV) {
        mp->z[1] = cs_at(CS_BUF_TMP0, staging);
        staging += all;
    }
    cs_sched_scratch(s, CS_BUF_TMP0, staging);
}

/*
 * Before phase i (L bits done, the last phase's field a bits wide, 0 before
 * the first): every block of z[i] to the staging segment of its partner, or
 * to this rank's own segment of z[i+1].
 */
static void cs_mp_permute(cs_sched *s, const cs_mp *mp, int i, int L, int a)
{
    const int w = mp->parts[i], d = mp->d, lp = L - a;
    const size_t mask = ((size_t)1 << w) - 1, seg = (size_t)1 << (d - w);
    const size_t own = ((size_t)mp->rank >> L) & mask;
    cs_run run = {.len = 0};
    for (size_t j = 0; j < (size_t)1 << d; j++) {
        const size_t s_low = j & (((size_t)1 << lp) - 1);               /* source bits [0, L - a) */
        const size_t t_high = (j >> lp) & (((size_t)1 << (d - L)) - 1); /* destination bits [L, d) */
        const size_t s_field = j >> (d - a);                            /* source bits [L - a, L) */
        const size_t x = t_high & mask;                                 /* the partner's field value */
        const size_t inner = ((t_high >> w) << L) | (s_field << lp) | s_low;
        const cs_region to = x == own ? cs_at(mp->z[i + 1].buf, mp->z[i + 1].off + (x * seg + inner) * mp->m)
                                      : cs_at(CS_BUF_TMP0, (((x ^ own) - 1) * seg + inner) * mp->m);
        cs_run_add(s, &run, cs_at(mp->z[i].buf, mp->z[i].off + j * mp->m), to, mp->m);
    }
    cs_run_flush(s, &run);
}

/* Phase i: one round per partner; its segment of the staging area out, ours from it in. */
static void cs_mp_exchange(cs_sched *s, const cs_mp *mp, int i, int L)
{
    const int w = mp->parts[i];
    const size_t seg = mp->m << (mp->d - w);
    const int own = (mp->rank >> L) & ((1 << w) - 1);
    for (int j = 1; j < 1 << w; j++) {
        const int peer = mp->rank ^ (j << L);
        cs_sched_round(s);
        cs_sched_send(s, peer, CS_BUF_TMP0, (size_t)(j - 1) * seg, seg);
        cs_sched_recv(s, peer, mp->z[i + 1].buf, mp->z[i + 1].off + (size_t)(own ^ j) * seg, seg);
    }
}

int cs_multiphase_build(const cs_problem *prob, const int *parts, int nparts, int rank, cs_sched *s)
{
    unsigned char checked[CS_HULL_MAX_D];
    cs_mp mp = {.d = cs_log2_exact(prob->p), .rank = rank, .k = nparts, .parts = parts, .m = prob->bytes};
    if (cs_mp_parts(mp.d, parts, nparts, checked) < 0)
        return MPI_ERR_ARG;
    if (nparts <= 1) {
        cs_params none;
        cs_params_init(&none);
        return cs_alltoall_direct.build(prob, &none, rank, s);
    }
    cs_mp_stages(s, &mp, (prob->flags & CS_PROB_INPLACE) != 0);
    cs_sched_round(s); /* the first permutation, before any message */
    for (int i = 0, L = 0; i < nparts; L += parts[i], i++) {
        cs_mp_permute(s, &mp, i, L, i ? parts[i - 1] : 0);
        cs_mp_exchange(s, &mp, i, L);
    }
    return s->error;
}

double cs_multiphase_cost(const cs_model *model, const cs_problem *prob, const int *parts, int nparts)
{
    unsigned char checked[CS_HULL_MAX_D];
    const int d = cs_log2_exact(prob->p);
    if (cs_mp_parts(d, parts, nparts, checked) < 0)
        return INFINITY;
    if (nparts <= 1) {
        cs_params none;
        cs_params_init(&none);
        return cs_alltoall_direct.cost(model, prob, &none);
    }
    /* The hull's line of the partition: the same eq. (6) that chooses it. */
    const cs_part_line line = cs_part_line_of(d, checked, nparts);
    return cs_part_line_cost(model, &line, (double)prob->bytes);
}

/* ---- the row ------------------------------------------------------------ */

/* "2,2,1": positive parts, at most a partition of CS_HULL_MAX_D; whether
 * they sum to log2 p is checked per call (CS_REQ_PARTITION). */
static int cs_alltoall_multiphase_parse(const char *args, cs_params *params)
{
    int parts[CS_MAX_PARTS], n = 0, sum = 0;
    const char *at = args;
    do {
        char *end;
        if (!isdigit((unsigned char)*at) || n == CS_MAX_PARTS)
            return -1;
        const long v = strtol(at, &end, 10);
        if (v < 1 || v > CS_HULL_MAX_D || (*end && (*end != ',' || !end[1])))
            return -1;
        sum += (int)v;
        parts[n++] = (int)v;
        at = *end ? end + 1 : end;
    } while (*at);
    if (sum > CS_HULL_MAX_D)
        return -1;
    params->nparts = n;
    for (int i = 0; i < n; i++)
        params->parts[i] = parts[i];
    return 0;
}

/* Without parts: the hull's face for this block size. */
static void cs_alltoall_multiphase_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    const int d = cs_log2_exact(prob->p);
    cs_hull scratch;
    if (params->nparts || d < 0)
        return;
    const cs_hull *hull = cs_hull_get(model, d, &scratch);
    const cs_hull_face *f = cs_hull_lookup(hull, prob->bytes);
    params->nparts = f->nparts;
    for (int i = 0; i < f->nparts; i++)
        params->parts[i] = f->parts[i];
    params->face_lo = f->first;
    params->face_hi = f + 1 < hull->face + hull->nfaces ? f[1].first - 1 : SIZE_MAX;
    params->face_src = hull->from_config ? 2 : 1;
}

static double cs_alltoall_multiphase_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_multiphase_cost(model, prob, params->parts, params->nparts);
}

static int cs_alltoall_multiphase_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    return cs_multiphase_build(prob, params->parts, params->nparts, rank, s);
}

static int cs_alltoall_multiphase_format(const cs_params *params, char *buf, size_t size)
{
    unsigned char parts[CS_MAX_PARTS];
    for (int i = 0; i < params->nparts; i++)
        parts[i] = (unsigned char)params->parts[i];
    return cs_parts_format(parts, params->nparts, buf, size);
}

/* For the log's reason: the breakpoints of the hull face that chose the
 * partition, if one did. */
static int cs_alltoall_multiphase_explain(const cs_params *params, char *buf, size_t size)
{
    const char *src = params->face_src == 2 ? "configured" : "model";
    if (size)
        buf[0] = '\0';
    if (params->face_src && params->face_hi == SIZE_MAX)
        return snprintf(buf, size, "; hull face %zu.. B (%s)", params->face_lo, src);
    if (params->face_src)
        return snprintf(buf, size, "; hull face %zu..%zu B (%s)", params->face_lo, params->face_hi, src);
    return 0;
}

const cs_alg cs_alltoall_multiphase = {
    .name = "multiphase",
    .description = "phases over a partition of log2 p (multiphase:2,2,1), by default the hull's for the size "
                   "(Bokhari 1993)",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG | CS_REQ_PARTITION,
    .parse = cs_alltoall_multiphase_parse,
    .tune = cs_alltoall_multiphase_tune,
    .cost = cs_alltoall_multiphase_cost,
    .build = cs_alltoall_multiphase_build,
    .format = cs_alltoall_multiphase_format,
    .explain = cs_alltoall_multiphase_explain,
};
