/*
 * MPICH 4.0.2's defaults, priced by the rows that run the same schedules.
 * From its src/mpi/coll/ (the intra "auto" algorithms and the CVARs'
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
 * A user operator is told by its non-commutativity: every predefined
 * operator commutes (a commutative user operator is priced as predefined).
 */
#include <math.h>

#include "coll/coll.h"
#include "select/library.h"

extern const cs_alg cs_alltoall_direct, cs_alltoall_bruck, cs_alltoall_linear;
extern const cs_alg cs_allreduce_butterfly, cs_reduce_butterfly, cs_reduce_binomial;

enum { CS_MPICH_SHORT_REDUCTION = 2048, CS_MPICH_ALLTOALL_SHORT = 256, CS_MPICH_ALLTOALL_MEDIUM = 32768 };

static double cs_library_row(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec)
{
    cs_params params;
    cs_params_init(&params);
    if (spec && alg->parse)
        alg->parse(spec, &params);
    if (alg->tune)
        alg->tune(model, prob, &params);
    return alg->cost(model, prob, &params);
}

static double cs_library_alltoall(const cs_model *model, const cs_problem *prob, const char **name)
{
    if (prob->flags & CS_PROB_INPLACE) {
        *name = "pairwise sendrecv-replace";
        return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
    }
    if (prob->bytes <= CS_MPICH_ALLTOALL_SHORT && prob->p >= 8) {
        *name = "Bruck";
        return cs_library_row(&cs_alltoall_bruck, model, prob, "r=2");
    }
    if (prob->bytes <= CS_MPICH_ALLTOALL_MEDIUM) {
        *name = "scattered";
        return cs_library_row(&cs_alltoall_linear, model, prob, "w=32");
    }
    *name = "pairwise";
    return cs_library_row(&cs_alltoall_direct, model, prob, NULL);
}

/* A reduction over p' = 2^floor(log2 p) ranks after folding the rest in. */
static double cs_library_folded(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec)
{
    const int pof2 = 1 << cs_floor_log2(prob->p);
    cs_problem folded = *prob;
    folded.p = pof2;
    folded.root = 0;
    double t = cs_library_row(alg, model, &folded, spec);
    if (pof2 < prob->p) { /* one vector in and combined; the result back (allreduce) or on (reduce) */
        const double m = (double)prob->bytes, message = model->alpha + 2 * model->overhead + model->beta * m;
        t += message + model->gamma * m;
        t += prob->coll == CS_COLL_ALLREDUCE ? message : 0.0;
    }
    if (prob->coll == CS_COLL_REDUCE && prob->root != 0)
        t += model->alpha + 2 * model->overhead + model->beta * (double)prob->bytes;
    return t;
}

static double cs_library_reduction(const cs_model *model, const cs_problem *prob, const char **name)
{
    const int pof2 = 1 << cs_floor_log2(prob->p);
    const int user_op = !(prob->flags & CS_PROB_COMMUTATIVE);
    const int short_msg = prob->bytes <= CS_MPICH_SHORT_REDUCTION || user_op || prob->count < (size_t)pof2;
    if (prob->coll == CS_COLL_REDUCE) {
        if (short_msg) {
            *name = "binomial";
            return cs_library_row(&cs_reduce_binomial, model, prob, NULL);
        }
        *name = "reduce-scatter and gather";
        return cs_library_folded(&cs_reduce_butterfly, model, prob, "b=0");
    }
    *name = short_msg ? "recursive doubling" : "reduce-scatter and allgather";
    return cs_library_folded(&cs_allreduce_butterfly, model, prob, short_msg ? "k=0" : "b=0");
}

double cs_library_price(const cs_model *model, const cs_problem *prob, const char **name)
{
    *name = "native";
    if (prob->p <= 1)
        return 0.0;
    switch (prob->coll) {
    case CS_COLL_ALLTOALL: return cs_library_alltoall(model, prob, name);
    case CS_COLL_ALLREDUCE:
    case CS_COLL_REDUCE: return cs_library_reduction(model, prob, name);
    default: return -1.0;
    }
}
