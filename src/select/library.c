/*
 * The MPI library priced: its default algorithm for a call, as the rows of
 * ours that run the same schedule, priced under the model.
 *
 * MPICH 4.0.2 (src/mpi/coll/ : the intra "auto" algorithms and the CVARs'
 * defaults, which its JSON selection reproduces on one node):
 *
 *   alltoall   in place: pairwise sendrecv-replace           -> direct
 *              m <= 256 B and p >= 8: Bruck, radix 2          -> bruck:r=2
 *              m <= 32 KiB: scattered, Isend/Irecv in batches  -> linear:w=32
 *                of 32 (MPIR_CVAR_ALLTOALL_THROTTLE)
 *              else pairwise                                   -> direct
 *   allreduce  m <= 2 KiB, a user operator, or count < p': recursive
 *              doubling; else reduce-scatter + allgather (Rabenseifner);
 *              both fold p to p' = 2^floor(log2 p) first: the first 2r
 *              ranks (r = p - p') pair up, even ones send their vector
 *              to the odd one and get the result at the end
 *                                                 -> butterfly on p' (k = 0,
 *                                                    or halving to the end)
 *                                                    + the fold and unfold
 *   reduce     m <= 2 KiB, a user operator or count < p': binomial
 *                                                  -> binomial
 *              else reduce-scatter + gather (folded likewise)
 *                                                  -> butterfly on p'
 *
 * SimGrid 3.32 SMPI's mpich selector (src/smpi/colls/smpi_mpich_selector.cpp,
 * the scale lab's library) differs:
 *
 *   alltoall   m < 256 B and p >= 8: Bruck                     -> bruck:r=2
 *              m < 32 KiB: mvapich2_scatter_dest, batches of 4 -> linear:w=4
 *              else pairwise or ring                            -> direct
 *              (in place as not: SMPI copies the buffer first)
 *   allreduce  commutative: mvapich2_two_level, whose leaders run
 *              recursive doubling; with one rank per node that is all of
 *              it (a node's own reduce and broadcast are not priced)
 *                                                  -> folded butterfly k = 0
 *              else as MPICH, whose choice is then recursive doubling
 *   reduce     as MPICH with m < 2 KiB (the two-level reduce's leaders run
 *              the same choice)
 *
 * Open MPI 4.1 and SMPI's ompi selector: library_openmpi.c.
 *
 * A user operator is told by its non-commutativity: every predefined
 * operator commutes (a commutative user operator is priced as predefined).
 */
#include <math.h>

#include "select/library.h"
#include "select/library_rows.h"

enum { CS_MPICH_SHORT_REDUCTION = 2048, CS_MPICH_ALLTOALL_SHORT = 256, CS_MPICH_ALLTOALL_MEDIUM = 32768 };

double cs_library_row(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec)
{
    cs_params params;
    cs_params_init(&params);
    if (spec && alg->parse)
        alg->parse(spec, &params);
    if (alg->tune)
        alg->tune(model, prob, &params);
    return cs_alg_cost_on_map(alg, model, prob, &params);
}

double cs_library_folded(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec)
{
    const int pof2 = 1 << cs_floor_log2(prob->p);
    cs_problem folded = *prob;
    folded.p = pof2;
    folded.root = 0;
    double t = cs_library_row(alg, model, &folded, spec);
    if (pof2 < prob->p) { /* one vector in and combined; the result back (allreduce) or on (reduce) */
        const cs_model pair = cs_model_at_level(model, prob, 1, 2); /* ranks 2i and 2i + 1 */
        const double m = (double)prob->bytes, message = pair.alpha + 2 * model->overhead + pair.beta * m;
        t += message + model->gamma * m;
        t += prob->coll == CS_COLL_ALLREDUCE ? message : 0.0;
    }
    if (prob->coll == CS_COLL_REDUCE && prob->root != 0)
        t += model->alpha + 2 * model->overhead + model->beta * (double)prob->bytes;
    return t;
}

/*
 * SMPI's mvapich2_two_level allreduce on nodes of ppn ranks: a node's
 * reduce to its first rank (binomial, on the node), the first ranks'
 * recursive doubling (one rank of each node sending off it), the node's
 * broadcast (binomial: ceil(log2 ppn) rounds, the root's last message).
 */
static double cs_library_two_level(const cs_model *model, const cs_problem *prob)
{
    const cs_model on = cs_model_on_node(model), off = cs_model_off_node(model, 1);
    cs_problem node = *prob, leaders = *prob;
    node.coll = CS_COLL_REDUCE;
    node.p = prob->ppn;
    node.root = node.ppn = 0;
    leaders.p = prob->p / prob->ppn;
    leaders.ppn = 0;
    const double m = (double)prob->bytes;
    return cs_library_row(&cs_reduce_binomial, &on, &node, NULL) +
           cs_library_folded(&cs_allreduce_butterfly, &off, &leaders, "k=0") +
           cs_ceil_log2(prob->ppn) * (on.alpha + 2 * model->overhead + on.beta * m);
}

/* MPICH's thresholds are inclusive, SMPI's copies of them exclusive. */
static int cs_below(size_t bytes, size_t limit, int smpi)
{
    return smpi ? bytes < limit : bytes <= limit;
}

static double cs_library_alltoall(const cs_model *model, const cs_problem *prob, int smpi, const char **name)
{
    if ((prob->flags & CS_PROB_INPLACE) && !smpi) {
        *name = "pairwise sendrecv-replace";
        return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
    }
    if (cs_below(prob->bytes, CS_MPICH_ALLTOALL_SHORT, smpi) && prob->p >= 8) {
        *name = "Bruck";
        return cs_library_row(&cs_alltoall_bruck, model, prob, "r=2");
    }
    if (cs_below(prob->bytes, CS_MPICH_ALLTOALL_MEDIUM, smpi)) {
        *name = smpi ? "scatter_dest" : "scattered";
        return cs_library_row(&cs_alltoall_linear, model, prob, smpi ? "w=4" : "w=32");
    }
    *name = "pairwise";
    return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
}

static double cs_library_reduction(const cs_model *model, const cs_problem *prob, int smpi, const char **name)
{
    const int pof2 = 1 << cs_floor_log2(prob->p);
    const int user_op = !(prob->flags & CS_PROB_COMMUTATIVE);
    const int short_msg = cs_below(prob->bytes, CS_MPICH_SHORT_REDUCTION, smpi) || user_op || prob->count < (size_t)pof2;
    if (prob->coll == CS_COLL_REDUCE) {
        if (short_msg) {
            *name = "binomial";
            return cs_library_row(&cs_reduce_binomial, model, prob, NULL);
        }
        *name = "reduce-scatter and gather";
        return cs_library_folded(&cs_reduce_butterfly, model, prob, "b=0");
    }
    if (smpi && !user_op) {
        *name = "two-level recursive doubling";
        if (cs_model_nodes(model, prob) && prob->p % prob->ppn == 0 && prob->p > prob->ppn)
            return cs_library_two_level(model, prob);
        return cs_library_folded(&cs_allreduce_butterfly, model, prob, "k=0");
    }
    *name = short_msg ? "recursive doubling" : "reduce-scatter and allgather";
    return cs_library_folded(&cs_allreduce_butterfly, model, prob, short_msg ? "k=0" : "b=0");
}

double cs_library_price(const cs_model *model, const cs_problem *prob, const char **name)
{
    *name = "native";
    if (prob->p <= 1)
        return 0.0;
    if (prob->coll != CS_COLL_ALLTOALL && prob->coll != CS_COLL_ALLREDUCE && prob->coll != CS_COLL_REDUCE)
        return -1.0;
    if (model->library == CS_LIBRARY_OPENMPI || model->library == CS_LIBRARY_SMPI_OMPI)
        return cs_library_openmpi(model, prob, model->library == CS_LIBRARY_SMPI_OMPI, name);
    const int smpi = model->library == CS_LIBRARY_SMPI_MPICH;
    return prob->coll == CS_COLL_ALLTOALL ? cs_library_alltoall(model, prob, smpi, name)
                                          : cs_library_reduction(model, prob, smpi, name);
}

int cs_library_eager(const cs_model *model)
{
    return model->library != CS_LIBRARY_SMPI_MPICH && model->library != CS_LIBRARY_SMPI_OMPI;
}
