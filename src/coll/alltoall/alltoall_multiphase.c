/*
 * Alltoall: Bokhari's multiphase complete exchange, on a mixed radix for
 * any p.
 *
 * Reference: Bokhari 1993, "Multiphase Complete Exchange: A Theoretical
 * Analysis", §2.3 (the algorithm), §3 eq. (1)-(2) (its cost) and §3.5 (the
 * hull of optimality, src/model/hull.c, which picks the partition on
 * p = 2^d); on other p the same exchange over a factorisation, whose choice
 * and the form Theorem 1 takes there are in src/model/factor.h.
 *
 * p = k_1 k_2 .. k_n (the radices, in phase order), blocks of m bytes; a
 * rank r has the mixed-radix digits r_i, r = Σ r_i W_i with W_i = k_1 ..
 * k_{i-1}, digit 1 the lowest, as §2.3 numbers the bits. Phase i exchanges
 * among the k_i ranks that differ from r only in digit i: for a radix that
 * is a power of two rank r sends to and receives from the partner whose
 * digit is r_i ^ j, j = 1..k_i-1 (Bokhari's exclusive-or schedule, r ^
 * (j << L) on p = 2^d); for any other radix it sends to the digit r_i + j
 * and receives from r_i - j (mod k_i). Each partner gets, as one message,
 * the p/k_i blocks whose destination has the partner's digit i. Before each
 * phase a rank permutes all p blocks it holds, once: the blocks for
 * partners into a staging area (TMP0), one segment per partner in the order
 * the partner stores them, its own into place in the stage the phase
 * receives into. After phase i a rank holds the blocks (source s,
 * destination t) with s = r in the digits above i and t = r in digits 1..i,
 * at index
 *     s_i p/k_i + t[i+1..n] W_i + s[1..i-1]
 * (t[..] and s[..] the digits as a mixed-radix number), so that each
 * received segment is contiguous and after the last phase the index is s:
 * the receive buffer in order, with no final shuffle.
 *
 * p = 2^d with a partition D = (d_1..d_n) of d (multiphase:2,2,1) is the
 * radix k_i = 2^{d_i}: digit i is the field of d_i bits [L_{i-1}, L_i), the
 * partners r ^ (j << L_{i-1}), the index s[L_{i-1}, L_i) 2^{d-d_i} +
 * t[L_i, d) 2^{L_{i-1}} + s[0, L_{i-1}) -- the schedule exactly as the
 * paper's.
 *
 * Stages alternate between the receive buffer and TMP1, backwards from the
 * receive buffer; in place with n odd the first stage is a second region of
 * TMP0 (the data start in the receive buffer and must not be permuted onto
 * themselves). One phase (D = {d}, or the factorisation {p}) is Direct's
 * schedule (alltoall_direct.c).
 *
 * Restrictions: contiguous datatypes; parts given in advance must sum to
 * log2 p (CS_REQ_PARTITION), factors given in advance must multiply to p
 * (CS_REQ_FACTORS), both checked per call: the configuration is read before
 * p is known.
 *
 * Cost, n >= 2 phases, in place or not (eq. 2 with 2^{d_i} = k_i; the
 * permutation before each phase is the paper's shuffle after the previous
 * one):
 *   Σ_i [(k_i - 1)(alpha + beta m p/k_i) + rho m p]
 * One phase: Direct's, (p - 1)(alpha + beta m) + rho m (in place rho m
 * (p - 1) on p = 2^d, rho m floor(p/2) otherwise), which leaves out the
 * paper's final shuffle, "redundant" (§2.3). alpha is alpha + 2o (two posts
 * a round). On nodes of ppn ranks in blocks each phase at its level: a
 * phase whose groups (k_i ranks W_i = k_1 .. k_{i-1} apart) each lie on one
 * node takes alpha_node and beta_node, the others alpha and, every rank of
 * a node sending off it at once, the larger of beta and ppn beta_link (and
 * the core's share).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "coll/alltoall/multiphase.h"
#include "model/factor.h"

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

typedef struct cs_mp {
    int p, rank, k;
    const int *radix; /* k_i of phase i; phase i works on digit i, the lowest first */
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
    const size_t all = mp->m * (size_t)mp->p;
    size_t staging = 0;
    for (int i = 0; i < mp->k; i++) {
        const size_t bytes = (size_t)(mp->radix[i] - 1) * (mp->m * (size_t)(mp->p / mp->radix[i]));
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

/* A radix that is a power of two pairs partners by exclusive or (Bokhari's
 * schedule, both directions one peer); any other by shifts of the digit. */
static int cs_mp_xor(int k)
{
    return (k & (k - 1)) == 0;
}

/* The staging slot (1..k-1) of the partner whose digit is x, own digit own;
 * the partner sent to in round j is the one of slot j. */
static size_t cs_mp_slot(int k, size_t x, size_t own)
{
    return cs_mp_xor(k) ? x ^ own : (x + (size_t)k - own) % (size_t)k;
}

/*
 * Before phase i (W = k_0 .. k_{i-1}, the ranks the digits done span; a =
 * k_{i-1}, 1 before the first phase): every block of z[i] to the staging
 * segment of its partner, or to this rank's own segment of z[i+1]. A block
 * of z[i] at index j = s_{i-1} p/a + t_high W/a + s_low has its source's
 * lower digits s_low, its destination's digits i.. in t_high, its source's
 * digit i-1 in s_{i-1}; its partner is the one with the destination's digit
 * i, and in the segment it goes to it is at t_high/k_i W + s_{i-1} W/a + s_low.
 */
static void cs_mp_permute(cs_sched *s, const cs_mp *mp, int i, size_t W, size_t a)
{
    const size_t k = (size_t)mp->radix[i], p = (size_t)mp->p, lw = W / a, seg = p / k;
    const size_t own = ((size_t)mp->rank / W) % k;
    for (size_t j = 0; j < p; j++) {
        const size_t s_low = j % lw, t_high = (j / lw) % (p / W), s_field = j / (p / a);
        const size_t x = t_high % k; /* the partner's digit */
        const size_t inner = t_high / k * W + s_field * lw + s_low;
        const cs_region to = x == own ? cs_at(mp->z[i + 1].buf, mp->z[i + 1].off + (x * seg + inner) * mp->m)
                                      : cs_at(CS_BUF_TMP0, ((cs_mp_slot((int)k, x, own) - 1) * seg + inner) * mp->m);
        cs_sched_copy_merge(s, mp->z[i].buf, mp->z[i].off + j * mp->m, to.buf, to.off, mp->m);
    }
}

/* Phase i: one round per partner; its segment of the staging area out, a
 * segment from the partner of the opposite slot in. */
static void cs_mp_exchange(cs_sched *s, const cs_mp *mp, int i, int W)
{
    const int k = mp->radix[i];
    const size_t seg = mp->m * (size_t)(mp->p / k);
    const int own = (mp->rank / W) % k, base = mp->rank - own * W;
    for (int j = 1; j < k; j++) {
        const int to = cs_mp_xor(k) ? own ^ j : (own + j) % k, from = cs_mp_xor(k) ? to : (own - j + k) % k;
        cs_sched_round(s);
        cs_sched_send(s, base + to * W, CS_BUF_TMP0, (size_t)(j - 1) * seg, seg);
        cs_sched_recv(s, base + from * W, mp->z[i + 1].buf, mp->z[i + 1].off + (size_t)from * seg, seg);
    }
}

/* The radices fit p: each at least 2 (a phase of 1 does nothing), at most
 * CS_MAX_PARTS of them, their product p. */
static int cs_mp_radix_fit(int p, const int *radix, int n)
{
    long long product = 1;
    if (n > CS_MAX_PARTS)
        return 0;
    for (int i = 0; i < n; i++) {
        if (radix[i] < 2 || product * radix[i] > p)
            return 0;
        product *= radix[i];
    }
    return product == p;
}

static int cs_direct_build(const cs_problem *prob, int rank, cs_sched *s)
{
    cs_params none;
    cs_params_init(&none);
    return cs_alltoall_direct.build(prob, &none, rank, s);
}

static double cs_direct_cost(const cs_model *model, const cs_problem *prob)
{
    cs_params none;
    cs_params_init(&none);
    return cs_alltoall_direct.cost(model, prob, &none);
}

int cs_multiphase_build_radix(const cs_problem *prob, const int *radix, int n, int rank, cs_sched *s)
{
    cs_mp mp = {.p = prob->p, .rank = rank, .k = n, .radix = radix, .m = prob->bytes};
    if (!cs_mp_radix_fit(prob->p, radix, n))
        return MPI_ERR_ARG;
    if (n <= 1)
        return cs_direct_build(prob, rank, s);
    cs_mp_stages(s, &mp, (prob->flags & CS_PROB_INPLACE) != 0);
    cs_sched_round(s); /* the first permutation, before any message */
    for (int i = 0, W = 1; i < n; W *= radix[i], i++) {
        cs_mp_permute(s, &mp, i, (size_t)W, i ? (size_t)radix[i - 1] : 1);
        cs_mp_exchange(s, &mp, i, W);
    }
    return s->error;
}

/* On nodes of ppn ranks in blocks: phase i's k - 1 rounds, each a message
 * of m p / k and two posts, within a node where each group of k ranks W
 * apart lies on one (cs_level_on_node), else off it with every rank of a
 * node sending off it at once (a group that straddles nodes priced so);
 * then the permutation, rho m p. */
static double cs_mp_phases_on_nodes(const cs_model *model, const cs_problem *prob, const int *radix, int n)
{
    const double m = (double)prob->bytes, p = prob->p;
    double t = 0.0;
    for (int i = 0, W = 1; i < n; W *= radix[i], i++) {
        const cs_model sized = cs_model_sized(model, m * (p / radix[i])); /* the phase's messages' band */
        const cs_model on_node = cs_model_on_node(&sized), off_node = cs_model_off_nodes(&sized, prob->ppn, prob->p);
        const cs_model on = cs_model_pairwise(&on_node), off = cs_model_pairwise(&off_node);
        const cs_model *at = cs_level_on_node(prob, W, radix[i]) ? &on : &off;
        t += (radix[i] - 1) * (at->alpha + at->beta * m * (p / radix[i])) + model->rho * m * p;
    }
    return t;
}

double cs_multiphase_cost_radix(const cs_model *model, const cs_problem *prob, const int *radix, int n)
{
    if (!cs_mp_radix_fit(prob->p, radix, n))
        return INFINITY;
    if (n <= 1)
        return cs_direct_cost(model, prob);
    if (prob->ppn > 1 && prob->ppn < prob->p && cs_model_nodes(model, prob))
        return cs_mp_phases_on_nodes(model, prob, radix, n);
    /* The line of the factorisation: the same that chooses it (model/factor.h);
     * on one level, or a column's shared links (cs_model_one_level); two
     * posts a round (cs_model_pairwise). */
    /* With size bands (model.bands), phase by phase, each at its messages' band (m p / k). */
    double t = 0.0;
    for (int i = 0, k = model->bands ? 1 : n; i < n; i += k) {
        const cs_part_line line = cs_factor_line(prob->p, &radix[i], k);
        const cs_model sized = cs_model_sized(model, (double)prob->bytes * (double)(prob->p / radix[i]));
        const cs_model level = cs_model_one_level(&sized, prob), at = cs_model_pairwise(&level);
        t += cs_part_line_cost(&at, &line, (double)prob->bytes);
    }
    return t;
}

/* A partition of d = log2 p as radices 2^{d_i}; -1 if it is not one. */
static int cs_mp_radix_of_parts(int p, const int *parts, int nparts, int *radix)
{
    unsigned char checked[CS_HULL_MAX_D];
    if (cs_mp_parts(cs_log2_exact(p), parts, nparts, checked) < 0)
        return -1;
    for (int i = 0; i < nparts; i++)
        radix[i] = 1 << parts[i];
    return nparts;
}

int cs_multiphase_build(const cs_problem *prob, const int *parts, int nparts, int rank, cs_sched *s)
{
    int radix[CS_MAX_PARTS];
    const int n = cs_mp_radix_of_parts(prob->p, parts, nparts, radix);
    return n < 0 ? MPI_ERR_ARG : cs_multiphase_build_radix(prob, radix, n, rank, s);
}

double cs_multiphase_cost(const cs_model *model, const cs_problem *prob, const int *parts, int nparts)
{
    int radix[CS_MAX_PARTS];
    const int n = cs_mp_radix_of_parts(prob->p, parts, nparts, radix);
    return n < 0 ? INFINITY : cs_multiphase_cost_radix(model, prob, radix, n);
}

/* ---- the row ------------------------------------------------------------ */

/* "2,2,1": positive parts, at most a partition of CS_HULL_MAX_D; whether
 * they sum to log2 p is checked per call (CS_REQ_PARTITION). */
static int cs_mp_parse_partition(const char *args, cs_params *params)
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

/* "4x4x6": factors joined by x, in phase order (digit 0 first); factors of
 * 1 are phases that do nothing and are dropped ("1x7" is the one phase 7);
 * their product at most INT_MAX and not 1. Whether it is p is checked per
 * call (CS_REQ_FACTORS). */
static int cs_mp_parse_factors(const char *args, cs_params *params)
{
    int factors[CS_MAX_PARTS], n = 0;
    long long product = 1;
    const char *at = args;
    do {
        char *end;
        if (!isdigit((unsigned char)*at))
            return -1;
        const long long v = strtoll(at, &end, 10);
        if (v < 1 || v > INT_MAX || (*end && (*end != 'x' || !end[1])))
            return -1;
        product *= v;
        if (product > INT_MAX || (v > 1 && n == CS_MAX_PARTS))
            return -1;
        if (v > 1)
            factors[n++] = (int)v;
        at = *end ? end + 1 : end;
    } while (*at);
    if (n == 0)
        return -1;
    params->factors = 1;
    params->nparts = n;
    for (int i = 0; i < n; i++)
        params->parts[i] = factors[i];
    return 0;
}

static int cs_alltoall_multiphase_parse(const char *args, cs_params *params)
{
    return strchr(args, 'x') ? cs_mp_parse_factors(args, params) : cs_mp_parse_partition(args, params);
}

/*
 * The cheapest factorisation of p for blocks of m bytes, remembered: the
 * breakpoints keep the row a size runs, not its factors, so a later call
 * tunes again, and the search over p's divisors is O(tau(p)^2) (1.5 us at
 * p = 65,535). The last few answers per thread, keyed by what the search
 * reads (alpha, beta, rho, p, m), make a repeated call a lookup.
 */
enum { CS_MP_MEMO = 8 };
typedef struct cs_mp_memo {
    double alpha, beta, rho;
    int p, n;
    size_t m;
    int factors[CS_FACTOR_MAX];
} cs_mp_memo;

static int cs_mp_factor_best(const cs_model *model, int p, size_t m, int *factors)
{
    static _Thread_local cs_mp_memo memo[CS_MP_MEMO];
    static _Thread_local int next;
    for (int i = 0; i < CS_MP_MEMO; i++) {
        const cs_mp_memo *e = &memo[i];
        if (e->p == p && e->m == m && e->alpha == model->alpha && e->beta == model->beta && e->rho == model->rho) {
            memcpy(factors, e->factors, (size_t)e->n * sizeof *factors);
            return e->n;
        }
    }
    const int n = cs_factor_best(model, p, (double)m, factors, NULL);
    if (n >= 0) {
        cs_mp_memo *e = &memo[next];
        next = (next + 1) % CS_MP_MEMO;
        *e = (cs_mp_memo){.alpha = model->alpha, .beta = model->beta, .rho = model->rho, .p = p, .n = n, .m = m};
        memcpy(e->factors, factors, (size_t)n * sizeof *factors);
    }
    return n;
}

/* Without parts: on p = 2^d the hull's face for this block size (Bokhari,
 * over partitions of d, possibly configured); on any other p the cheapest
 * factorisation of p (model/factor.h). */
static void cs_alltoall_multiphase_tune(const cs_model *given, const cs_problem *prob, cs_params *params)
{
    const cs_model pairwise = cs_model_pairwise(given), *model = &pairwise;
    const int d = cs_log2_exact(prob->p);
    cs_hull scratch;
    if (params->nparts)
        return;
    if (d < 0) {
        int factors[CS_FACTOR_MAX];
        const int n = cs_mp_factor_best(model, prob->p, prob->bytes, factors);
        if (n < 1 || n > CS_MAX_PARTS)
            return; /* no parts: priced INFINITY, never chosen */
        params->factors = 1;
        params->nparts = n;
        for (int i = 0; i < n; i++)
            params->parts[i] = factors[i];
        params->face_src = 3;
        return;
    }
    const cs_hull *hull = cs_hull_get(model, d, &scratch);
    const cs_hull_face *f = cs_hull_lookup(hull, prob->bytes);
    params->nparts = f->nparts;
    for (int i = 0; i < f->nparts; i++)
        params->parts[i] = f->parts[i];
    params->face_lo = f->first;
    params->face_hi = f + 1 < hull->face + hull->nfaces ? f[1].first - 1 : SIZE_MAX;
    params->face_src = hull->from_config ? 2 : 1;
}

static double cs_alltoall_multiphase_cost(const cs_model *given, const cs_problem *prob, const cs_params *params)
{
    if (params->factors)
        return cs_multiphase_cost_radix(given, prob, params->parts, params->nparts);
    return cs_multiphase_cost(given, prob, params->parts, params->nparts);
}

static int cs_alltoall_multiphase_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    if (params->factors)
        return cs_multiphase_build_radix(prob, params->parts, params->nparts, rank, s);
    return cs_multiphase_build(prob, params->parts, params->nparts, rank, s);
}

static int cs_alltoall_multiphase_format(const cs_params *params, char *buf, size_t size)
{
    unsigned char parts[CS_MAX_PARTS];
    if (params->factors)
        return cs_factors_format(params->parts, params->nparts, buf, size);
    for (int i = 0; i < params->nparts; i++)
        parts[i] = (unsigned char)params->parts[i];
    return cs_parts_format(parts, params->nparts, buf, size);
}

/* For the log: "3 phases: 4x4x6", the radices in phase order. */
static int cs_alltoall_multiphase_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "%d phase%s: ", params->nparts, params->nparts == 1 ? "" : "s");
    for (int i = 0; i < params->nparts; i++) {
        const int k = params->factors ? params->parts[i] : 1 << params->parts[i];
        len += (size_t)snprintf(buf + (len < size ? len : size), len < size ? size - len : 0, i ? "x%d" : "%d", k);
    }
    return (int)len;
}

/* For the log's reason: the breakpoints of the hull face that chose the
 * partition, if one did, or that the factorisation is the model's. */
static int cs_alltoall_multiphase_explain(const cs_params *params, char *buf, size_t size)
{
    const char *src = params->face_src == 2 ? "configured" : "model";
    if (size)
        buf[0] = '\0';
    if (params->face_src == 3)
        return snprintf(buf, size, "; the model's cheapest factorisation of p for this size");
    if (params->face_src && params->face_hi == SIZE_MAX)
        return snprintf(buf, size, "; hull face %zu.. B (%s)", params->face_lo, src);
    if (params->face_src)
        return snprintf(buf, size, "; hull face %zu..%zu B (%s)", params->face_lo, params->face_hi, src);
    return 0;
}

const cs_alg cs_alltoall_multiphase = {
    .name = "multiphase",
    .description = "phases over a partition of log2 p (multiphase:2,2,1) or a factorisation of p "
                   "(multiphase:4x4x6), by default the model's for the size (Bokhari 1993)",
    .coll = CS_COLL_ALLTOALL,
    .requires = CS_REQ_CONTIG | CS_REQ_PARTITION | CS_REQ_FACTORS,
    .parse = cs_alltoall_multiphase_parse,
    .syntax = "expected a partition of log2 p (2,2,1: parts >= 1, summing to at most 30) or a factorisation "
              "of p (4x4x6: factors joined by x, product at most INT_MAX; 1x97 is the one phase 97)",
    .tune = cs_alltoall_multiphase_tune,
    .cost = cs_alltoall_multiphase_cost,
    .build = cs_alltoall_multiphase_build,
    .format = cs_alltoall_multiphase_format,
    .describe = cs_alltoall_multiphase_describe,
    .explain = cs_alltoall_multiphase_explain,
    .critical_path = CS_PATH_EXACT,
};
