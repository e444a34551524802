/*
 * Reduce: butterfly reduction phase, then a gather towards the root.
 *
 * Reference: Rabenseifner and Träff 2004, §2 (the reduction phase is in
 * src/coll/butterfly.c; "the routing phase is most easily implemented by
 * reversing the communication pattern of the reduction phase"). After the
 * reduction phase the 2^k ranks that agree with the root on bits k..n-1 hold
 * the result in blocks; the gather undoes the halving rounds, last first: in
 * round z the rank whose bit z differs from the root's sends all it holds to
 * its partner and is done. The whole-block rounds z >= k of the reduction
 * phase are one-way too (a binomial tree): the rank whose bit z differs from
 * the root's sends its block and is done.
 *
 * Restrictions: p a power of two; contiguous datatype. Any operator, any
 * root, in place at the root: canonical order, one bracketing.
 *
 * Cost, m bytes, n = log2 p >= 1, k halving rounds, s = m/2^k:
 *   R = sum_{z<k} [alpha + (beta + gamma) m/2^(z+1)] + (n - k) [alpha + (beta + gamma) s]
 *   G = sum_{z<k} [alpha + beta m/2^(z+1)]          the gather
 *   root:  rho m (unless in place) + rho s (if a non-commutative combine left
 *          its block in scratch: the parity of the root's zero bits) + G
 *   other: rho m + G for k >= 1 (root ^ 1 gathers as long as the root);
 *          rho m - gamma m for k = 0 (root ^ 2^(n-1) sends its last block
 *          instead of combining it)
 *   cost = R + max(root, other); p = 1: rho m, or 0 in place.
 */
#include "coll/params.h"
#include "coll/butterfly.h"

/* Does a non-commutative reduction phase leave `rank`'s block in scratch?
 * Each round where it holds the left operand moves the block once. */
static int cs_reduce_butterfly_moved(const cs_problem *prob, int rank)
{
    if (prob->flags & CS_PROB_COMMUTATIVE)
        return 0;
    int n = cs_log2_exact(prob->p), left_rounds = 0;
    for (int z = 0; z < n; z++)
        left_rounds += !((rank >> z) & 1);
    return left_rounds & 1;
}

static double cs_reduce_butterfly_cost(const cs_model *model, const cs_problem *prob, const cs_params *params)
{
    const int k = params->k;
    const double m = (double)prob->bytes, s = m / (double)(1ull << k);
    const double copy_in = (prob->flags & CS_PROB_INPLACE) ? 0.0 : model->rho * m;
    if (prob->p == 1)
        return copy_in;
    const double gather = cs_butterfly_routing_cost(model, prob, k);
    const double root = copy_in + model->rho * s * cs_reduce_butterfly_moved(prob, prob->root) + gather;
    /* The busiest other rank: root ^ 1 gathers as long as the root does
     * (k >= 1); with k = 0, root ^ 2^(n-1) sends in the last round instead
     * of combining. Either copies its input. */
    const double other = k >= 1 ? model->rho * m + gather : model->rho * m - model->gamma * m;
    return cs_butterfly_reduce_cost(model, prob, k) + (root > other ? root : other);
}

static void cs_reduce_butterfly_tune(const cs_model *model, const cs_problem *prob, cs_params *params)
{
    cs_butterfly_tune_with(cs_reduce_butterfly_cost, model, prob, params);
}

static int cs_reduce_butterfly_build(const cs_problem *prob, const cs_params *params, int rank, cs_sched *s)
{
    const size_t e = prob->elem;
    const int root = prob->root, is_root = rank == root;
    const cs_buf acc = is_root ? CS_BUF_RECV : CS_BUF_TMP1;
    cs_butterfly_state st;

    if (!is_root)
        cs_sched_scratch(s, CS_BUF_TMP1, prob->bytes);
    /* Every rank has this round, so that rounds stay aligned across ranks
     * when only the root is in place. */
    cs_sched_round(s);
    if (!(is_root && (prob->flags & CS_PROB_INPLACE)))
        cs_sched_copy(s, CS_BUF_SEND, 0, acc, 0, prob->bytes);
    cs_butterfly_reduce_phase(prob, params, rank, root, acc, s, &st);
    if (is_root)
        cs_sched_copy(s, st.cur, st.lo * e, CS_BUF_RECV, st.lo * e, (st.hi - st.lo) * e);

    /* Only the ranks that agree with the root above the halving bits gather. */
    if (st.done || (rank ^ root) >> params->k)
        return s->error;
    const cs_buf held = is_root ? CS_BUF_RECV : st.cur;
    for (int z = params->k - 1; z >= 0; z--) {
        const int partner = rank ^ (1 << z);
        const int right = (rank >> z) & 1;
        cs_sched_round(s);
        if (((rank ^ root) >> z) & 1) {
            cs_sched_send(s, partner, held, st.lo * e, (st.hi - st.lo) * e);
            break;
        }
        const size_t plo = right ? st.lo_at[z] : st.hi;
        const size_t phi = right ? st.lo : st.hi_at[z];
        cs_sched_recv(s, partner, held, plo * e, (phi - plo) * e);
        st.lo = st.lo_at[z];
        st.hi = st.hi_at[z];
    }
    return s->error;
}

const cs_alg cs_reduce_butterfly = {
    .name = "butterfly",
    .description = "recursive halving, then gather to the root (Rabenseifner-Traeff 2004 s2)",
    .coll = CS_COLL_REDUCE,
    .requires = CS_REQ_POW2 | CS_REQ_CONTIG,
    .parse = cs_params_parse_bk,
    .tune = cs_reduce_butterfly_tune,
    .cost = cs_reduce_butterfly_cost,
    .build = cs_reduce_butterfly_build,
    .format = cs_params_format_bk,
};
