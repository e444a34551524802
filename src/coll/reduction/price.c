/*
 * The engine's prices and parameters: the closed form of allreduce, reduce
 * priced on the ranks that can be slowest, tuning of k (and rmax), the
 * plan in words, and the rows' entry points.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/reduction/engine.h"

/* A level's exchange of messages of `bytes`: their band (model.bands), the
 * level within a node or off it (cs_model_at_level), and the exchange's two
 * posts in alpha (cs_model_pairwise). */
static cs_model cs_red_level_msgs(const cs_model *model, const cs_problem *prob, const cs_level *l, double bytes)
{
    const cs_model sized = cs_model_sized(model, bytes), at = cs_model_at_level(&sized, prob, l->stride, l->f);
    return cs_model_pairwise(&at);
}

/* The cost of an elimination level on its slowest role, m bytes entering,
 * stages split from `first` on as the plan says; *out gets the size left.
 * Each round's exchange at its messages' band (cs_red_level_msgs); o1, the
 * overhead of one post, comes off a round where the role only sends or
 * receives. */
static double cs_red_elim_cost(const cs_model *model, const cs_problem *prob, const cs_level *l, int k, double m,
                               double *out)
{
    cs_elim el;
    cs_elim_init(l->f, &el);
    const int split0 = l->first_stage < k;
    const double a = split0 ? m / 2 : m, o1 = model->overhead; /* each survivor's block after E0 */
    const cs_model ma = cs_red_level_msgs(model, prob, l, a), mm = cs_red_level_msgs(model, prob, l, m), *mo = &ma;
    const double x = mo->alpha + (mo->beta + mo->gamma) * a, back = split0 ? mo->alpha + mo->beta * a : 0.0;
    const double get = x - o1, give = mo->alpha - o1 + mo->beta * a, whole = mm.alpha - o1 + mm.beta * m;
    double u = 0.0, size = a;
    for (int z = 1; z < el.h; z++) { /* the units' butterfly and its allgather */
        if (l->first_stage + z < k) {
            const cs_model half = cs_red_level_msgs(model, prob, l, size / 2);
            u += 2 * half.alpha + (2 * half.beta + half.gamma) * size / 2;
            size /= 2;
        } else {
            const cs_model all = cs_red_level_msgs(model, prob, l, size);
            u += all.alpha + (all.beta + all.gamma) * size;
        }
    }
    u += model->rho * size; /* the survivor's result into RECV */
    *out = size;
    /* T0: E1 (both ways), units, E0 back, gives T2 the block; T1: E0, E1
     * (gets), units, E0 back; T2 (and an eliminated pair member): E0, gives,
     * gets the block; a member that absorbs a pair: as T1, then gives. */
    const double t0 = x + u + back + whole, t1 = x + get + u + back, t2 = x + give + whole;
    double worst = t0 > t1 ? t0 : t1;
    worst = worst > t2 ? worst : t2;
    if (el.merged > 0 && t1 + whole > worst)
        worst = t1 + whole;
    return worst;
}

/*
 * Per rank: rho m (input copy) + each level. Butterfly stage, split:
 * alpha + (beta + gamma) m/2 and alpha + beta m/2 back; whole: alpha +
 * (beta + gamma) m. Ring of f, split: (f - 1)(alpha + beta m/f) + (f - 1)
 * gamma m/f + 2 rho m/f and (f - 1)(alpha + beta m/f) back; whole:
 * ceil(log2 f) alpha + (f - 1)(beta + gamma) m + 2 rho m. Elimination: its
 * slowest role (cs_red_elim_cost). Without elimination every rank copies
 * its final block to RECV: rho m_final. Every round of a rank's but the
 * elimination's one-way ones posts a send and a receive: alpha + 2o. On
 * nodes (cs_problem.ppn), each level's alpha and beta are those of its
 * stride (cs_model_at_level).
 */
double cs_red_allreduce_cost(const cs_model *model, const cs_problem *prob, const cs_plan *plan, int k)
{
    double m = (double)prob->bytes, t = model->rho * m;
    for (int i = 0; i < plan->nlevels; i++) {
        const cs_level *l = &plan->level[i];
        const int split = l->first_stage < k, f = l->f;
        if (l->kind == CS_LEVEL_ELIM)
            return t + cs_red_elim_cost(model, prob, l, k, m, &m);
        /* the level's messages, m / 2 or m / f split and m whole: within a node or off it, at their band */
        const double part = split ? m / (l->kind == CS_LEVEL_BUTTERFLY ? 2 : f) : m;
        const cs_model pairwise = cs_red_level_msgs(model, prob, l, part), *mo = &pairwise;
        if (l->kind == CS_LEVEL_BUTTERFLY) {
            t += split ? 2 * mo->alpha + (2 * mo->beta + mo->gamma) * m / 2 : mo->alpha + (mo->beta + mo->gamma) * m;
            m = split ? m / 2 : m;
        } else if (split) {
            t += (f - 1) * (2 * mo->alpha + (2 * mo->beta + mo->gamma) * m / f) + 2 * mo->rho * m / f;
            m /= f;
        } else {
            t += cs_ceil_log2(f) * mo->alpha + (f - 1) * (mo->beta + mo->gamma) * m + 2 * mo->rho * m;
        }
    }
    return t + model->rho * m;
}

/*
 * The butterfly rows' closed forms (the formulas of allreduce_butterfly.c
 * and reduce_butterfly.c, at nominal sizes m/2^z, summed in their order).
 * R: the halving rounds sum_{z<k} alpha + (beta + gamma) m/2^(z+1), then
 * the whole rounds; *back: the k rounds back, sum_{z<k} alpha + beta m/2^(z+1).
 */
static double cs_red_pow2_sums(const cs_model *model, int pairwise, const cs_problem *prob, int k, double *back)
{
    const int n = cs_log2_exact(prob->p);
    const double m = (double)prob->bytes;
    double t = 0.0;
    *back = 0.0;
    for (int z = 0; z < n; z++) { /* round z: partners 2^z apart (cs_model_at_level) */
        /* its messages: m / 2^(z+1) halving, m / 2^k whole (their band, model.bands) */
        const cs_model sized = cs_model_sized(model, z < k ? m / ldexp(1.0, z + 1) : m / ldexp(1.0, k));
        const cs_model at = cs_model_at_level(&sized, prob, 1L << z, 2);
        const cs_model both = pairwise ? cs_model_pairwise(&at) : at, *mo = &both;
        /* reduce's one-way rounds: p / 2^(z+1) ranks through the core at once (cs_model_at_level_of) */
        const cs_model tree = pairwise ? both : cs_model_at_level_of(&sized, prob, 1L << z, 2, prob->p >> (z + 1));
        if (z < k) {
            t += mo->alpha + (mo->beta + mo->gamma) * m / ldexp(1.0, z + 1);
            *back += tree.alpha + tree.beta * m / ldexp(1.0, z + 1);
        } else {
            t += tree.alpha + (tree.beta + tree.gamma) * m / ldexp(1.0, k);
        }
    }
    return t;
}

/* Allreduce: R + back, the input copy unless in place, and the result a
 * non-commutative combine left in TMP0 on some rank (n >= 1). */
static double cs_red_allreduce_cost_pow2(const cs_model *mo, const cs_problem *prob, int k)
{
    const double m = (double)prob->bytes;
    double back, t = cs_red_pow2_sums(mo, 1, prob, k, &back);
    t = t + back;
    if (!(prob->flags & CS_PROB_INPLACE))
        t += mo->rho * m;
    if (prob->p > 1 && !(prob->flags & CS_PROB_COMMUTATIVE))
        t += mo->rho * m / (double)(1ull << k);
    return t;
}

/* Does a non-commutative reduction phase leave `rank`'s block in TMP0?
 * Each round where it holds the left operand (bit z of rank is 0) moves
 * the block once: the parity of the zero bits among the low n. */
static int cs_red_moved_pow2(const cs_problem *prob, int rank)
{
    int n = cs_log2_exact(prob->p), left_rounds = 0;
    if (prob->flags & CS_PROB_COMMUTATIVE)
        return 0;
    for (int z = 0; z < n; z++)
        left_rounds += !((rank >> z) & 1);
    return left_rounds & 1;
}

/* Reduce: R + the slower of the root (input copy unless in place, its
 * block out of TMP0, the gather) and the busiest other rank (root ^ 1
 * gathers as long as the root for k >= 1; for k = 0 root ^ 2^(n-1) sends
 * its last block instead of combining it). Each posts a send and a receive
 * in a halving round and one message in every other round: o each. */
static double cs_red_reduce_cost_pow2(const cs_model *mo, const cs_problem *prob, int k)
{
    const double m = (double)prob->bytes, s = m / (double)(1ull << k);
    const double copy_in = (prob->flags & CS_PROB_INPLACE) ? 0.0 : mo->rho * m;
    if (prob->p == 1)
        return copy_in;
    const int n = cs_log2_exact(prob->p);
    double gather, t = cs_red_pow2_sums(mo, 0, prob, k, &gather);
    t += mo->overhead * (2 * k + (n - k));
    gather += mo->overhead * k;
    const double root = copy_in + mo->rho * s * cs_red_moved_pow2(prob, prob->root) + gather;
    const double other = k >= 1 ? mo->rho * m + gather : mo->rho * m - mo->gamma * m;
    return t + (root > other ? root : other);
}

/* Every input is rank-invariant: every rank gets the same k. */
double cs_red_tune(cs_red_pricing *cost, cs_red_floor *lower, const cs_model *model, const cs_problem *prob,
                   cs_params *params, int keep_one, double stop)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    int kmax = plan.nstages;
    while (keep_one && kmax > 0 && (prob->count >> kmax) == 0) /* count / 2^kmax < 1 */
        kmax--;
    if (params->k >= 0) {
        if (params->k > kmax)
            params->k = kmax;
        return -1.0; /* not priced: a later call's decision tunes too */
    }
    if (params->b >= 0) {
        double m = (double)prob->bytes;
        int k = 0;
        for (int i = 0; i < plan.nlevels && m > (double)params->b; i++) {
            const cs_level *l = &plan.level[i];
            for (int st = 0; st < l->nstages && m > (double)params->b && k < kmax; st++, k++)
                m /= l->kind == CS_LEVEL_RING ? l->f : 2;
        }
        params->k = k;
        return -1.0;
    }
    /* the k's by floor, then k: the first of equal prices is the least k */
    double lowest[CS_MAX_STAGES + 1];
    int order[CS_MAX_STAGES + 1];
    for (int k = 0; k <= kmax; k++) {
        params->k = k;
        lowest[k] = lower ? lower(model, prob, params) : 0.0;
        int i = k;
        for (; i > 0 && lowest[order[i - 1]] > lowest[k]; i--)
            order[i] = order[i - 1];
        order[i] = k;
    }
    double best = INFINITY;
    int best_k = 0;
    for (int i = 0; i <= kmax; i++) {
        const int k = order[i];
        if (lowest[k] > best || lowest[k] >= stop)
            break; /* neither this k nor any after it can be cheaper */
        params->k = k;
        const double t = cost(model, prob, params, best < stop ? best : stop);
        if (i == 0 || t < best || (t == best && k < best_k)) {
            best = t;
            best_k = k;
        }
    }
    params->k = best_k;
    return best;
}

double cs_red_tune_rings(cs_red_pricing *cost, const cs_model *model, const cs_problem *prob, cs_params *params,
                         double stop)
{
    if (params->rmax >= 3)
        return cs_red_tune(cost, cs_red_cost_floor, model, prob, params, 0, stop);
    cs_params best = *params;
    double best_cost = INFINITY;
    cs_plan last = {.nlevels = -1};
    for (int rmax = 3; rmax <= 7; rmax += 2) {
        cs_plan plan;
        cs_plan_make(prob->p, rmax, &plan);
        if (plan.nlevels == last.nlevels &&
            !memcmp(plan.level, last.level, (size_t)plan.nlevels * sizeof plan.level[0]))
            continue; /* no factor 5 (7) in p: the plan and its price are rmax 3's (5's) */
        last = plan;
        cs_params trial = *params;
        trial.rmax = rmax;
        const double beat = best_cost < stop ? best_cost : stop; /* a price at or above it: no better */
        double t = cs_red_tune(cost, cs_red_cost_floor, model, prob, &trial, 0, beat);
        if (t < 0)
            t = cost(model, prob, &trial, beat);
        if (rmax == 3 || t < best_cost) {
            best_cost = t;
            best = trial;
        }
    }
    *params = best;
    return best_cost;
}

/* "butterfly x2 split, ring 3 whole, elimination 5 whole": each level in
 * order; split: its first stage halves (or parts) the block. */
int cs_red_describe(const cs_problem *prob, const cs_params *params, char *buf, size_t size)
{
    cs_plan plan;
    int n = 0, i = 0;
    cs_plan_make(prob->p, params->rmax, &plan);
    if (size)
        buf[0] = '\0';
    while (i < plan.nlevels) {
        const cs_level *l = &plan.level[i];
        const char *mode = l->first_stage < params->k ? "split" : "whole";
        int j = i + 1;
        if (l->kind == CS_LEVEL_BUTTERFLY) /* consecutive butterflies of one mode as one item */
            while (j < plan.nlevels && plan.level[j].kind == CS_LEVEL_BUTTERFLY &&
                   (plan.level[j].first_stage < params->k) == (l->first_stage < params->k))
                j++;
        const char *what = l->kind == CS_LEVEL_BUTTERFLY ? "butterfly"
                           : l->kind == CS_LEVEL_RING    ? "ring"
                                                         : "elimination";
        n += snprintf(buf + n, size > (size_t)n ? size - (size_t)n : 0, "%s%s %s%d %s", n ? ", " : "", what,
                      l->kind == CS_LEVEL_BUTTERFLY ? "x" : "", l->kind == CS_LEVEL_BUTTERFLY ? j - i : l->f, mode);
        i = j;
    }
    return n;
}

double cs_red_cost_within(const cs_model *model, const cs_problem *prob, const cs_params *params, double stop)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return prob->coll == CS_COLL_REDUCE ? cs_red_reduce_cost(model, prob, &plan, params->k, stop)
                                        : cs_red_allreduce_cost(model, prob, &plan, params->k);
}

double cs_red_cost_floor(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    if (prob->coll != CS_COLL_REDUCE)
        return 0.0;
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return cs_red_reduce_root_cost(model, prob, &plan, params->k);
}

double cs_red_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_red_cost_within(model, prob, params, INFINITY);
}

double cs_red_cost_pow2_within(const cs_model *model, const cs_problem *prob, const cs_params *params, double stop)
{
    (void)stop; /* closed forms: as cheap exact */
    return prob->coll == CS_COLL_REDUCE ? cs_red_reduce_cost_pow2(model, prob, params->k)
                                        : cs_red_allreduce_cost_pow2(model, prob, params->k);
}

double cs_red_cost_pow2(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    return cs_red_cost_pow2_within(model, prob, params, INFINITY);
}

static int cs_red_run(const cs_problem *prob, const cs_plan *plan, int k, int rank, int in_recv, cs_sched *s)
{
    cs_red r;
    cs_red_reduce_phase(&r, prob, plan, k, rank, in_recv, s);
    if (prob->coll == CS_COLL_REDUCE)
        cs_red_gather_phase(&r, prob->root);
    else
        cs_red_allgather_phase(&r);
    return s->error;
}

int cs_red_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_plan_make(prob->p, params->rmax, &plan);
    return cs_red_run(prob, &plan, params->k, rank, 0, s);
}

int cs_red_build_pow2(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    cs_plan plan;
    cs_plan_make(prob->p, 0, &plan);
    return cs_red_run(prob, &plan, params->k, rank, 1, s);
}
