/*
 * Allreduce: butterfly with recursive halving and doubling.
 *
 * Reference: Rabenseifner and Träff 2004, §2, Fig. 1-3 (the reduction phase
 * is in src/coll/butterfly.c). The routing phase reverses the k halving
 * rounds as an allgather by recursive doubling.
 *
 * Restrictions: p a power of two; contiguous datatype. Any operator:
 * canonical order, one bracketing, bitwise the same result on every rank.
 *
 * Cost, m bytes, n = log2 p, k halving rounds (0 <= k <= n):
 *   rho m                                   copy of the input (unless in place)
 * + sum_{z<k} [alpha + (beta + gamma) m/2^(z+1)]      halving rounds
 * + (n - k) [alpha + (beta + gamma) m/2^k]            whole-block rounds
 * + rho m/2^k                               result left in scratch by a
 *                                           non-commutative combine (n >= 1)
 * + sum_{z<k} [alpha + beta m/2^(z+1)]      allgather
 * k = n, m >> b: about 2 n alpha + 2 beta m + gamma m (bandwidth mode);
 * k = 0: n (alpha + (beta + gamma) m) (latency mode).
 */
#include "coll/params.h"
#include "coll/butterfly.h"

static double cs_allreduce_butterfly_cost(const cs_model *model, const cs_problem *prob,
                                          const cs_params *params)
{
    const int n = cs_log2_exact(prob->p), k = params->k;
    const double m = (double)prob->bytes;
    double t = cs_butterfly_reduce_cost(model, prob, k) + cs_butterfly_routing_cost(model, prob, k);
    if (!(prob->flags & CS_PROB_INPLACE))
        t += model->rho * m;
    if (n >= 1 && !(prob->flags & CS_PROB_COMMUTATIVE))
        t += model->rho * m / (double)(1ull << k);
    return t;
}

static void cs_allreduce_butterfly_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_butterfly_tune_with(cs_allreduce_butterfly_cost, model, prob, params);
}

static int cs_allreduce_butterfly_build(const cs_problem *prob, const cs_params *params, int rank,
                                        cs_sched *s)
{
    const size_t e = prob->elem;
    cs_butterfly_state st;

    if (!(prob->flags & CS_PROB_INPLACE)) {
        cs_sched_round(s);
        cs_sched_copy(s, CS_BUF_SEND, 0, CS_BUF_RECV, 0, prob->bytes);
    }
    cs_butterfly_reduce_phase(prob, params, rank, -1, CS_BUF_RECV, s, &st);
    cs_sched_copy(s, st.cur, st.lo * e, CS_BUF_RECV, st.lo * e, (st.hi - st.lo) * e);

    /* Allgather: undo the halving rounds, last first; each rank's block
     * doubles to the block it had before that round. */
    for (int z = params->k - 1; z >= 0; z--) {
        const int partner = rank ^ (1 << z);
        const int right = (rank >> z) & 1;
        const size_t plo = right ? st.lo_at[z] : st.hi;
        const size_t phi = right ? st.lo : st.hi_at[z];
        cs_sched_round(s);
        cs_sched_send(s, partner, CS_BUF_RECV, st.lo * e, (st.hi - st.lo) * e);
        cs_sched_recv(s, partner, CS_BUF_RECV, plo * e, (phi - plo) * e);
        st.lo = st.lo_at[z];
        st.hi = st.hi_at[z];
    }
    return s->error;
}

const cs_alg cs_allreduce_butterfly = {
    .name = "butterfly",
    .description = "recursive halving and doubling, threshold b (Rabenseifner-Traeff 2004 s2)",
    .coll = CS_COLL_ALLREDUCE,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .parse = cs_params_parse_bk,
    .tune = cs_allreduce_butterfly_tune,
    .cost = cs_allreduce_butterfly_cost,
    .build = cs_allreduce_butterfly_build,
    .format = cs_params_format_bk,
};
