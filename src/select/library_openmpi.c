/*
 * Open MPI 4.1's default algorithms (coll/tuned's fixed decisions,
 * coll_tuned_decision_fixed.c), which SimGrid 3.32 SMPI's ompi selector
 * copies (src/smpi/colls/smpi_openmpi_selector.cpp, "updated 02/2022"):
 * per collective, bands of communicator size and, within each, of message
 * size (the vector, or alltoall's block), each naming an algorithm. The
 * tables below are those thresholds; each algorithm is priced as the row of
 * ours with its schedule, or where we have none, by its closed form:
 *
 *   alltoall   linear, linear_sync, two_proc        -> linear (all at once)
 *              pairwise                             -> direct
 *              modified Bruck                       -> bruck:r=2
 *              in place (Open MPI): sendrecv-replace -> direct
 *   allreduce  recursive doubling                   -> butterfly k = 0, folded
 *              Rabenseifner                         -> butterfly b = 0, folded
 *                (linear reduce and broadcast when count < p' or
 *                the operator does not commute; SMPI: recursive doubling)
 *              ring, segmented ring                 -> 2(p - 1) steps of m/p:
 *                (recursive doubling when count < p)   2(p-1)(alpha + 2o)
 *                                                      + (p-1)/p m (2 beta + gamma)
 *                                                      + rho m (its copy of the send
 *                                                      buffer, unless in place)
 *              basic linear                         -> the linear reduce below and
 *                (coll_base_allreduce.c,                 a linear broadcast (the root's
 *                ompi_coll_base_allreduce_intra_         p - 1 sends: knomial:l=1
 *                basic_linear)                           without gamma)
 *              nonoverlapping (its reduce and its   -> the reduce and broadcast
 *                broadcast are the communicator's:     coll/tuned's tables pick
 *                coll/tuned's own decisions)           (cs_ompi_bcast below)
 *   reduce     binomial                             -> binomial
 *              linear                               -> knomial:l=1 (a flat tree)
 *              binary, in-order binary              -> a binary tree: floor(log2 p)
 *                                                      levels of two children,
 *                                                      alpha + 3o + 2m (beta + gamma)
 *                (the in-order tree's root is rank p - 1, which sends the
 *                result on to any other root: one message more)
 *              chain, pipeline (unsegmented, fanout -> p - 1 hops of
 *                one)                                  alpha + 2o + m (beta + gamma)
 *              Rabenseifner (Open MPI; SMPI runs    -> butterfly b = 0, folded
 *                linear)
 *              Each tree but the in-order one, and Rabenseifner's gather, is
 *              built around the root (coll_base_topo.c, coll_base_reduce.c), so
 *              a root other than 0 costs nothing more: priced as root 0.
 *
 * An algorithm the user forced (model->library_forced: Open MPI's
 * coll_tuned_use_dynamic_rules with coll_tuned_<coll>_algorithm, which its
 * dynamic decision takes before any table) is priced instead of the table's,
 * with coll/base's own fallbacks (the ring with count < p: recursive
 * doubling; Rabenseifner with count < p' or an operator that does not
 * commute: the linear algorithms, allreduce's too) and the forced path's
 * defaults: no segments, reduce's chain of fanout 4 (its
 * coll_tuned_reduce_algorithm_chain_fanout).
 *
 * Open MPI 4.1's fixed decisions pass no segment size, so its trees run
 * unsegmented. SMPI's copies of them segment by themselves (its
 * ompi_binomial reduce sends 1 KiB segments from 2 KiB on), which no mirror
 * here follows: smpi-ompi mispredicts those reduces (docs/results.md).
 */
#include <math.h>

#include "select/library_openmpi_tables.h"
#include "select/library_rows.h"
#include "config/library_rules.h"

static int cs_ompi_choose(const cs_ompi_band *band, int p, size_t bytes)
{
    while (band->below_p && p >= band->below_p)
        band++;
    const cs_ompi_step *step = band->steps;
    while (step->below && bytes >= step->below)
        step++;
    return step->alg;
}

/* levels of a tree, each a receive of `children` messages of m bytes combined as they come (their
 * band, model.bands) */
static double cs_ompi_tree(const cs_model *unsized, const cs_problem *prob, int levels, int children)
{
    const double m = (double)prob->bytes;
    const cs_model sized = cs_model_sized(unsized, m), *model = &sized;
    return levels * (model->alpha + (children + 1) * model->overhead + children * m * (model->beta + model->gamma));
}

/* On nodes (cs_model_nodes): `on` of the levels within a node, the others
 * off it with `senders` of a node's ranks sending at once; else as one level. */
static double cs_ompi_tree_on_nodes(const cs_model *model, const cs_problem *prob, int levels, int on, long senders,
                                    int children)
{
    if (!cs_model_nodes(model, prob))
        return cs_ompi_tree(model, prob, levels, children);
    const cs_model within = cs_model_on_node(model), off = cs_model_off_node(model, senders);
    on = on < levels ? on : levels;
    return cs_ompi_tree(&within, prob, on, children) + cs_ompi_tree(&off, prob, levels - on, children);
}

/* fanout chains of the p - 1 other ranks towards the root: the longest one's
 * hops of one message, the root's receive of fanout (the chains' ends). A
 * chain runs over consecutive ranks: on nodes, one of its hops in ppn
 * crosses to the next node, one rank of it sending. */
static double cs_ompi_chain(const cs_model *model, const cs_problem *prob, int fanout)
{
    const int chains = fanout < prob->p - 1 ? fanout : prob->p - 1, hops = (prob->p - 1 + chains - 1) / chains;
    const int ppn = prob->ppn > 1 ? prob->ppn : 1, crossing = (hops - 1) / ppn;
    return cs_ompi_tree_on_nodes(model, prob, hops - 1, hops - 1 - crossing, 1, 1) +
           cs_ompi_tree_on_nodes(model, prob, 1, chains < ppn, 1, chains);
}

/* Open MPI's binary trees number ranks level by level (children 2r + 1 and
 * 2r + 2): on nodes, the top floor(log2 ppn) levels are the first node's,
 * and below them each node's ranks are in one level, all sending off it. */
static double cs_ompi_binary(const cs_model *model, const cs_problem *prob)
{
    const int levels = cs_floor_log2(prob->p), on = prob->ppn > 1 ? cs_floor_log2(prob->ppn) : 0;
    return cs_ompi_tree_on_nodes(model, prob, levels, on, prob->ppn, 2);
}

/* prob with its root as rank 0: Open MPI builds its trees (binomial, binary,
 * chain, the linear one) and Rabenseifner's gather around the root
 * (coll_base_topo.c, coll_base_reduce.c), so no message goes on to it. */
static cs_problem cs_ompi_at_root(const cs_problem *prob)
{
    cs_problem at = *prob;
    at.root = 0;
    return at;
}

/* The in-order binary tree's root is always rank p - 1, which sends the
 * result on to any other root (coll_base_reduce.c,
 * ompi_coll_base_reduce_intra_in_order_binary). */
static double cs_ompi_in_order_binary(const cs_model *model, const cs_problem *prob)
{
    const int last = prob->p - 1;
    double t = cs_ompi_binary(model, prob);
    if (prob->root != last) {
        const int ppn = prob->ppn > 1 ? prob->ppn : 0;
        const cs_model sized = cs_model_sized(model, (double)prob->bytes);
        const cs_model hop = cs_model_hop(&sized, prob, ppn && last / ppn == prob->root / ppn, 1);
        t += hop.alpha + 2 * model->overhead + hop.beta * (double)prob->bytes;
    }
    return t;
}

/*
 * The broadcast of nonoverlapping's allreduce (model without gamma, prob at
 * root 0): coll/tuned's fixed decision for a broadcast, unsegmented (it
 * passes no segment size), in coll_base_bcast.c. The split binary tree is
 * priced as the binary tree; scatter and allgather (8, 9: a vector of fewer
 * elements than ranks goes linear) as a binomial scatter, then recursive
 * doubling (8) or a ring (9), each step alpha + 2o and (p - 1)/p m in all.
 */
static double cs_ompi_bcast(const cs_model *model, const cs_problem *prob)
{
    const int p = prob->p, alg = cs_ompi_choose(cs_ompi_bcast_table, p, prob->bytes);
    switch (alg) {
    case 2:
    case 3: return cs_ompi_chain(model, prob, 1); /* fanout 0 from the table: one chain */
    case 4:
    case 5: return cs_ompi_binary(model, prob);
    case 6: return cs_library_row(&cs_reduce_binomial, model, prob, NULL);
    case 7: return cs_library_row(&cs_reduce_knomial, model, prob, "r=4"); /* coll_tuned_bcast_knomial_radix */
    case 8:
    case 9:
        if (prob->count >= (size_t)p)
            return cs_library_bcast_scatter(model, prob, alg == 9);
        __attribute__((fallthrough));
    default: return cs_library_row(&cs_reduce_knomial, model, prob, "l=1");
    }
}

/* The algorithm the user forced for prob's collective, 0: none (or not
 * Open MPI's own, whose MCA parameters SMPI does not read). */
static int cs_ompi_forced(const cs_model *model, const cs_problem *prob, int smpi)
{
    static const int last[CS_COLL_LAST] = {[CS_COLL_ALLTOALL] = 5, [CS_COLL_ALLREDUCE] = 6, [CS_COLL_REDUCE] = 7};
    const int alg = smpi ? 0 : model->library_forced[prob->coll];
    return alg <= last[prob->coll] ? alg : 0; /* a number Open MPI 4.1 does not have: its tables */
}

/* What Open MPI runs for prob: the rules file's choice (alg 0 there: none),
 * the algorithm forced, else the table's; with the chain's fan-out (a rule's,
 * coll_tuned_reduce_algorithm_chain_fanout's 4 when forced, the tables' 1). */
typedef struct cs_ompi_pick {
    int alg, fanout;
} cs_ompi_pick;

static cs_ompi_pick cs_ompi_alg(const cs_model *model, const cs_problem *prob, int smpi, const cs_ompi_band *table)
{
    static const int last[CS_COLL_LAST] = {[CS_COLL_ALLTOALL] = 5, [CS_COLL_ALLREDUCE] = 6, [CS_COLL_REDUCE] = 7};
    int fanout = 0, segsize;
    const int ruled =
        smpi || !model->library_rules ? 0 : cs_library_rules_openmpi(model->library_rules, prob, &fanout, &segsize);
    if (ruled > 0 && ruled <= last[prob->coll]) /* segments: priced unsegmented */
        return (cs_ompi_pick){ruled, fanout > 0 ? fanout : 4};
    const int forced = cs_ompi_forced(model, prob, smpi);
    return forced ? (cs_ompi_pick){forced, 4} : (cs_ompi_pick){cs_ompi_choose(table, prob->p, prob->bytes), 1};
}

/* Our flat and binomial trees (the rows these are priced by) end with the
 * result copied into the root's buffer (rho m); Open MPI's receive into it:
 * the linear one (coll_base_reduce.c, basic_linear) its first block, unless
 * the root is rank p - 1 and copies its own data there first; the binomial
 * one (reduce_generic) its first child's, where the operator commutes. */
static double cs_ompi_no_result_copy(const cs_model *model, const cs_problem *prob, double t)
{
    return prob->p > 1 ? t - model->rho * (double)prob->bytes : t;
}

static double cs_ompi_reduce_alg(const cs_model *model, const cs_problem *prob, int alg, int fanout, int smpi,
                                 const char **name)
{
    const cs_problem at_root = cs_ompi_at_root(prob);
    double t;
    switch (alg) {
    case 2:
    case 3: *name = alg == 2 ? "chain" : "pipeline"; return cs_ompi_chain(model, prob, alg == 2 ? fanout : 1);
    case 4: *name = "binary tree"; return cs_ompi_binary(model, prob);
    case 6: *name = "in-order binary tree"; return cs_ompi_in_order_binary(model, prob);
    case 5:
        *name = "binomial";
        t = cs_library_row(&cs_reduce_binomial, model, &at_root, NULL);
        return smpi || !(prob->flags & CS_PROB_COMMUTATIVE) ? t : cs_ompi_no_result_copy(model, prob, t);
    case 7:
        if (!smpi && (prob->flags & CS_PROB_COMMUTATIVE) && prob->count >= (size_t)(1 << cs_floor_log2(prob->p))) {
            *name = "reduce-scatter and gather";
            return cs_library_folded(&cs_reduce_butterfly, model, &at_root, "b=0");
        }
        /* SMPI runs linear, Open MPI too where Rabenseifner cannot run */
        __attribute__((fallthrough));
    default:
        *name = "linear";
        t = cs_library_row(&cs_reduce_knomial, model, &at_root, "l=1");
        return smpi || prob->root == prob->p - 1 ? t : cs_ompi_no_result_copy(model, prob, t);
    }
}

static double cs_ompi_reduce_price(const cs_model *model, const cs_problem *prob, int smpi, const cs_ompi_pick *given,
                                   const char **name)
{
    const int commutative = prob->flags & CS_PROB_COMMUTATIVE;
    const cs_ompi_pick pick =
        given ? *given
              : cs_ompi_alg(model, prob, smpi, commutative ? cs_ompi_reduce_table : cs_ompi_reduce_noncommutative);
    return cs_ompi_reduce_alg(model, prob, pick.alg, pick.fanout, smpi, name);
}

static double cs_ompi_allreduce(const cs_model *model, const cs_problem *prob, int smpi, const cs_ompi_pick *given,
                                const char **name)
{
    const int commutative = prob->flags & CS_PROB_COMMUTATIVE;
    const int p = prob->p, pof2 = 1 << cs_floor_log2(p);
    int alg =
        given ? given->alg
              : cs_ompi_alg(model, prob, smpi, commutative ? cs_ompi_allreduce_table : cs_ompi_allreduce_noncommutative)
                    .alg;
    if ((alg == 4 || alg == 5) && prob->count < (size_t)p)
        alg = 3; /* the ring's own fallback (it does not ask whether the operator commutes) */
    if (alg == 6 && (!commutative || prob->count < (size_t)pof2))
        alg = smpi ? 3 : 1; /* coll/base hands those to its linear allreduce (make check-openmpi-mirror) */
    const double m = (double)prob->bytes;
    const cs_model part = cs_model_sized(model, m / p); /* the ring's messages (model.bands) */
    switch (alg) {
    case 1:
    case 2: {
        /* a reduce to rank 0 (linear, or coll/tuned's choice), then a broadcast from it: linear
         * (ompi_coll_base_allreduce_intra_basic_linear), or coll/tuned's choice
         * (ompi_coll_base_allreduce_intra_nonoverlapping); SMPI's copies priced binomial */
        cs_problem reduce = *prob;
        reduce.coll = CS_COLL_REDUCE;
        reduce.root = 0;
        const char *how;
        cs_model bcast = *model;
        bcast.gamma = 0.0;
        *name = alg == 1 ? "linear reduce and broadcast" : "reduce and broadcast";
        const double t = alg == 1 ? cs_ompi_reduce_alg(model, &reduce, 1, 1, smpi, &how)
                                  : cs_ompi_reduce_price(model, &reduce, smpi, NULL, &how);
        if (smpi)
            return t + cs_library_row(&cs_reduce_binomial, &bcast, &reduce, NULL);
        return t +
               (alg == 1 ? cs_library_row(&cs_reduce_knomial, &bcast, &reduce, "l=1") : cs_ompi_bcast(&bcast, &reduce));
    }
    case 4:
    case 5:
        *name = alg == 4 ? "ring" : "segmented ring";
        /* each step waits for its slowest message: on nodes, a node's last rank's to the next
         * node (one sender: the larger of beta and the node's link); the send buffer is first
         * copied into the receive buffer, unless in place */
        return 2.0 * (p - 1) * (part.alpha + 2 * model->overhead) +
               (p - 1) / (double)p * m * (2 * cs_model_off_node(&part, 1).beta + model->gamma) +
               (prob->flags & CS_PROB_INPLACE ? 0.0 : model->rho * m);
    case 6:
        *name = "reduce-scatter and allgather";
        return cs_library_folded(&cs_allreduce_butterfly, model, prob, "b=0");
    default: *name = "recursive doubling"; return cs_library_folded(&cs_allreduce_butterfly, model, prob, "k=0");
    }
}

static double cs_ompi_alltoall(const cs_model *model, const cs_problem *prob, int smpi, const cs_ompi_pick *given,
                               const char **name)
{
    if ((prob->flags & CS_PROB_INPLACE) && !smpi) {
        *name = "in-place sendrecv-replace";
        return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
    }
    switch (given ? given->alg : cs_ompi_alg(model, prob, smpi, cs_ompi_alltoall_table).alg) {
    case 2: *name = "pairwise"; return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
    case 3: *name = "modified Bruck"; return cs_library_row(&cs_alltoall_bruck, model, prob, "r=2");
    default: *name = "linear"; return cs_library_row(&cs_alltoall_linear, model, prob, NULL);
    }
}

static double cs_ompi_price(const cs_model *model, const cs_problem *prob, int smpi, const cs_ompi_pick *given,
                            const char **name)
{
    switch (prob->coll) {
    case CS_COLL_ALLTOALL: return cs_ompi_alltoall(model, prob, smpi, given, name);
    case CS_COLL_ALLREDUCE: return cs_ompi_allreduce(model, prob, smpi, given, name);
    default: return cs_ompi_reduce_price(model, prob, smpi, given, name);
    }
}

double cs_library_openmpi(const cs_model *model, const cs_problem *prob, int smpi, const char **name)
{
    return cs_ompi_price(model, prob, smpi, NULL, name);
}

/* Reduce's algorithm alg as coll/base runs it for prob: Rabenseifner's
 * with fewer elements than p' or an operator that does not commute (SMPI:
 * always) is the linear one (cs_ompi_reduce_alg). */
static int cs_ompi_reduce_runs(const cs_problem *prob, int alg, int smpi)
{
    const int rabenseifner =
        !smpi && (prob->flags & CS_PROB_COMMUTATIVE) && prob->count >= (size_t)(1 << cs_floor_log2(prob->p));
    return alg == 7 && !rabenseifner ? 1 : alg;
}

unsigned cs_library_openmpi_choice(const cs_model *model, const cs_problem *prob, int smpi)
{
    const int commutative = prob->flags & CS_PROB_COMMUTATIVE;
    const int p = prob->p, pof2 = 1 << cs_floor_log2(p);
    if (prob->coll == CS_COLL_REDUCE) {
        const cs_ompi_pick pick =
            cs_ompi_alg(model, prob, smpi, commutative ? cs_ompi_reduce_table : cs_ompi_reduce_noncommutative);
        return (unsigned)cs_ompi_reduce_runs(prob, pick.alg, smpi);
    }
    if (prob->coll != CS_COLL_ALLREDUCE)
        return 0;
    int alg =
        cs_ompi_alg(model, prob, smpi, commutative ? cs_ompi_allreduce_table : cs_ompi_allreduce_noncommutative).alg;
    if ((alg == 4 || alg == 5) && prob->count < (size_t)p)
        alg = 3;
    if (alg == 6 && (!commutative || prob->count < (size_t)pof2))
        alg = smpi ? 3 : 1;
    if (alg != 2 || smpi)
        return (unsigned)alg;
    /* nonoverlapping: coll/tuned's reduce, then its broadcast (scatter and allgather with a count of p and more) */
    cs_problem reduce = *prob;
    reduce.coll = CS_COLL_REDUCE;
    reduce.root = 0;
    const int bcast = cs_ompi_choose(cs_ompi_bcast_table, p, prob->bytes);
    const int scatter = (bcast == 8 || bcast == 9) && prob->count >= (size_t)p;
    return (unsigned)alg | cs_library_openmpi_choice(model, &reduce, smpi) << 4 | (unsigned)scatter << 8;
}

/* The band of table that holds communicator size p. */
static const cs_ompi_step *cs_ompi_steps(const cs_ompi_band *band, int p)
{
    while (band->below_p && p >= band->below_p)
        band++;
    return band->steps;
}

/* Add each size of a band's steps to sizes[*n] (up to max). */
static void cs_ompi_add_steps(const cs_ompi_band *table, int p, size_t *sizes, int *n, int max)
{
    for (const cs_ompi_step *step = cs_ompi_steps(table, p); step->below && *n < max; step++)
        sizes[(*n)++] = step->below;
}

int cs_library_openmpi_switches(const cs_model *model, const cs_problem *prob, int smpi, size_t *sizes, int max)
{
    int n = 0;
    const int p = prob->p, commutative = (prob->flags & CS_PROB_COMMUTATIVE) != 0;
    if (prob->coll == CS_COLL_ALLTOALL) {
        if (!(prob->flags & CS_PROB_INPLACE) || smpi)
            cs_ompi_add_steps(cs_ompi_alltoall_table, p, sizes, &n, max);
    } else if (prob->coll == CS_COLL_ALLREDUCE) {
        cs_ompi_add_steps(commutative ? cs_ompi_allreduce_table : cs_ompi_allreduce_noncommutative, p, sizes, &n, max);
        /* nonoverlapping's reduce and broadcast, coll/tuned's own choices */
        cs_ompi_add_steps(commutative ? cs_ompi_reduce_table : cs_ompi_reduce_noncommutative, p, sizes, &n, max);
        cs_ompi_add_steps(cs_ompi_bcast_table, p, sizes, &n, max);
    } else {
        cs_ompi_add_steps(commutative ? cs_ompi_reduce_table : cs_ompi_reduce_noncommutative, p, sizes, &n, max);
    }
    const cs_library_rules *rules = smpi ? NULL : model->library_rules;
    if (rules && rules->library == CS_LIBRARY_OPENMPI) /* a rules file's sizes, of every communicator size */
        for (int c = 0; c < rules->ncom[prob->coll]; c++)
            for (int k = 0; k < rules->com[prob->coll][c].n && n + 2 <= max; k++) {
                const size_t from = rules->com[prob->coll][c].msg[k].from;
                if (prob->coll == CS_COLL_ALLTOALL) { /* p blocks': a block from from / p up */
                    sizes[n++] = from / (size_t)p;
                    sizes[n++] = from / (size_t)p + 1;
                } else {
                    sizes[n++] = from;
                }
            }
    if (prob->coll != CS_COLL_ALLTOALL && n + 2 <= max) { /* the count tests (count < p, count < p'), as bytes */
        sizes[n++] = (size_t)p;
        sizes[n++] = (size_t)1 << cs_floor_log2(p);
    }
    return n;
}

double cs_library_openmpi_alg(const cs_model *model, const cs_problem *prob, int alg, int fanout, const char **name)
{
    const cs_ompi_pick given = {alg, fanout > 0 ? fanout : 4};
    return cs_ompi_price(model, prob, 0, &given, name);
}
