/*
 * Butterfly reduction phase: Rabenseifner and Träff, "More Efficient
 * Reduction Algorithms for Non-power-of-two Number of Processors in
 * Message-passing Parallel Systems" (2004), §2 and Fig. 1-3.
 *
 * p = 2^n. In round z a rank exchanges with rank ^ 2^z. While z < k it sends
 * half of its current block and keeps the other half (recursive halving, the
 * bandwidth mode); from round k on it exchanges its whole block (the latency
 * mode). The threshold b of the paper ("halve while the block is larger than
 * b") and the count k of halving rounds say the same thing; the model picks k
 * when the configuration does not give b.
 *
 * Canonical order: the partner whose bit z is 1 holds the right operand, so
 * after round z each block is ((m_i0 + ... ) + ( ... + m_i0+2^(z+1)-1)) with
 * the same balanced bracketing on every rank and for every element. A
 * non-commutative combine may put the result in the receive buffer; the
 * state then names that buffer as current (no copy per round). Commutative
 * operators are always combined into the accumulator (IEEE a+b == b+a, so the
 * result is still bitwise the same on every rank).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/butterfly.h"
#include "coll/params.h"

void cs_butterfly_reduce_phase(const cs_problem *prob, const cs_params *params, int rank, int root, cs_buf acc,
                               cs_sched *s, cs_butterfly_state *st)
{
    const size_t e = prob->elem;
    const int commutative = (prob->flags & CS_PROB_COMMUTATIVE) != 0;
    cs_buf cur = acc, other = CS_BUF_TMP0;
    size_t lo = 0, hi = prob->count;

    st->n = cs_log2_exact(prob->p);
    st->done = 0;
    cs_sched_scratch(s, CS_BUF_TMP0, prob->count * e);
    for (int z = 0; z < st->n; z++) {
        const int partner = rank ^ (1 << z);
        const int right = (rank >> z) & 1; /* this rank holds the right operand */
        size_t keep_lo = lo, keep_hi = hi, send_lo = lo, send_hi = hi;

        st->lo_at[z] = lo;
        st->hi_at[z] = hi;
        if (z < params->k) {
            const size_t mid = lo + (hi - lo + 1) / 2;
            if (right) {
                keep_lo = mid;
                send_hi = mid;
            } else {
                keep_hi = mid;
                send_lo = mid;
            }
        }
        cs_sched_round(s);
        if (root >= 0 && z >= params->k && (((rank ^ root) >> z) & 1)) {
            /* Reduce, whole blocks: only the side of the root needs them. */
            cs_sched_send(s, partner, cur, lo * e, (hi - lo) * e);
            st->done = 1;
            break;
        }
        if (root < 0 || z < params->k)
            cs_sched_send(s, partner, cur, send_lo * e, (send_hi - send_lo) * e);
        cs_sched_recv(s, partner, other, keep_lo * e, (keep_hi - keep_lo) * e);
        if (right || commutative) {
            cs_sched_reduce(s, other, keep_lo * e, cur, keep_lo * e, (keep_hi - keep_lo) * e);
        } else {
            cs_sched_reduce(s, cur, keep_lo * e, other, keep_lo * e, (keep_hi - keep_lo) * e);
            cs_buf t = cur;
            cur = other;
            other = t;
        }
        lo = keep_lo;
        hi = keep_hi;
    }
    st->lo = lo;
    st->hi = hi;
    st->cur = cur;
}

double cs_butterfly_reduce_cost(const cs_model *model, const cs_problem *prob, int k)
{
    const int n = cs_log2_exact(prob->p);
    const double m = (double)prob->bytes;
    double t = 0.0;
    for (int z = 0; z < k; z++)
        t += model->alpha + (model->beta + model->gamma) * m / ldexp(1.0, z + 1);
    return t + (n - k) * (model->alpha + (model->beta + model->gamma) * m / ldexp(1.0, k));
}

double cs_butterfly_routing_cost(const cs_model *model, const cs_problem *prob, int k)
{
    double t = 0.0;
    for (int z = 0; z < k; z++)
        t += model->alpha + model->beta * (double)prob->bytes / ldexp(1.0, z + 1);
    return t;
}

/* The largest useful k: every rank keeps at least one element. */
static int cs_butterfly_max_k(const cs_problem *prob)
{
    int n = cs_log2_exact(prob->p), k = 0;
    while (k < n && (prob->count >> (k + 1)) > 0)
        k++;
    return k;
}

/*
 * A forced k stays (capped); a threshold b gives k = the number of rounds
 * whose block m/2^z is larger than b; else the k of least cost. Every input is
 * rank-invariant, so every rank gets the same k.
 */
void cs_butterfly_tune_with(double (*cost)(const cs_model *, const cs_problem *, const cs_params *),
                            const cs_model *model, const cs_problem *prob, cs_params *params)
{
    const int kmax = cs_butterfly_max_k(prob);
    if (params->k >= 0) {
        if (params->k > kmax)
            params->k = kmax;
        return;
    }
    if (params->b >= 0) {
        int k = 0;
        while (k < kmax && (double)prob->bytes / ldexp(1.0, k) > (double)params->b)
            k++;
        params->k = k;
        return;
    }
    double best = INFINITY;
    int best_k = 0;
    for (int k = 0; k <= kmax; k++) {
        params->k = k;
        double t = cost(model, prob, params);
        if (t < best) {
            best = t;
            best_k = k;
        }
    }
    params->k = best_k;
}
