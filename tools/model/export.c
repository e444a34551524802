/*
 * The plan of an exported tuning file (export.h): every communicator size
 * from 2 to pmax and every power of two from 1 B to 16 MiB priced for each of
 * the library's algorithms (the mirrors' rows), the cheapest kept (the
 * library's default where it ties), neighbours with the same choices merged.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "select/library.h"
#include "select/library_rows.h"
#include "select/select.h"
#include "model/export.h"

const cs_coll cs_export_colls[3] = {CS_COLL_ALLREDUCE, CS_COLL_ALLTOALL, CS_COLL_REDUCE};

/* MPICH 4.0 (src/mpi/coll/coll_algorithms.txt): the reduce-scatter algorithms
 * need a built-in operator and count >= p', Bruck, scattered and pairwise a
 * send buffer not in place; the file's own guards (export_mpich.c) send those
 * calls elsewhere before any size rule, so every algorithm here is safe. */
static const cs_export_alg cs_export_mpich[CS_COLL_LAST][4] = {
    [CS_COLL_ALLREDUCE] = {{"MPIR_Allreduce_intra_recursive_doubling"},
                           {"MPIR_Allreduce_intra_reduce_scatter_allgather"}},
    [CS_COLL_REDUCE] = {{"MPIR_Reduce_intra_binomial"}, {"MPIR_Reduce_intra_reduce_scatter_gather"}},
    [CS_COLL_ALLTOALL] = {{"MPIR_Alltoall_intra_brucks"},
                          {"MPIR_Alltoall_intra_scattered"},
                          {"MPIR_Alltoall_intra_pairwise"}},
};

/* Open MPI 4.1 (coll/base, coll/tuned's fixed decision): a rules file is
 * applied whatever the operator and datatype, and these algorithms check
 * neither; the fixed decision sends a non-commutative operator to linear,
 * recursive doubling, reduce-and-broadcast or the in-order binary tree. */
#define CS_OMPI_ORDER ": it loses a non-commutative operator's order"
#define CS_OMPI_TYPES ": it is wrong for derived receive types"
/* Open MPI 4.1's numbers (library_openmpi.c): two_proc, linear_sync and the
 * segmented ring are left out (the mirror prices them as linear and ring),
 * and reduce's Rabenseifner (7), which the mirror prices as MPICH's and
 * which runs 3 to 20 times slower than Open MPI's default at p = 4, 8 KiB to
 * 128 KiB, on the development machine (bench/run-export). Rabenseifner's
 * allreduce (6) runs linear for a non-commutative operator: slower, right. */
static const cs_export_alg cs_export_openmpi[CS_COLL_LAST][8] = {
    [CS_COLL_ALLREDUCE] = {{NULL, 1}, {NULL, 2}, {NULL, 3}, {NULL, 4, 0, "ring (4)" CS_OMPI_ORDER}, {NULL, 6}},
    [CS_COLL_REDUCE] = {{NULL, 1},
                        {NULL, 2, 4, "chain (2)" CS_OMPI_ORDER},
                        {NULL, 3, 0, "pipeline (3)" CS_OMPI_ORDER},
                        {NULL, 4, 0, "binary tree (4)" CS_OMPI_ORDER},
                        {NULL, 5, 0, "binomial tree (5)" CS_OMPI_ORDER},
                        {NULL, 6}},
    [CS_COLL_ALLTOALL] = {{NULL, 1}, {NULL, 2}, {NULL, 3, 0, "modified Bruck (3)" CS_OMPI_TYPES}},
};

/* A call as --library prices it: doubles where the size allows, else bytes. */
static cs_problem cs_export_problem(cs_coll coll, int p, size_t bytes)
{
    const size_t elem = coll == CS_COLL_ALLTOALL || bytes % 8 ? 1 : 8;
    return (cs_problem){.coll = coll,
                        .p = p,
                        .count = bytes / elem,
                        .elem = elem,
                        .bytes = bytes,
                        .flags = CS_PROB_COMMUTATIVE | CS_PROB_EXACT * (elem == 1) | CS_PROB_CONTIG};
}

/* alg's price for prob, -1 where the file cannot send prob to it (MPICH's
 * reduce-scatter algorithms under count<pow2, which the file keeps). */
static double cs_export_price(const cs_model *model, const cs_problem *prob, const cs_export_alg *alg,
                              const char **words)
{
    if (!alg->mpir)
        return cs_library_openmpi_alg(model, prob, alg->alg, alg->fanout, words);
    if (strstr(alg->mpir, "reduce_scatter") && prob->count < (size_t)(1 << cs_floor_log2(prob->p)))
        return -1.0;
    return cs_library_mpich_alg(model, prob, alg->mpir, words);
}

/* The cheapest of collshim's own rows for prob (0: none can run it). */
static double cs_export_ours(const cs_model *model, const cs_problem *prob, const char **name)
{
    int n;
    double best = 0.0;
    const cs_alg *const *table = cs_alg_table(prob->coll, &n);
    for (int row = 1; row < n; row++) {
        const cs_alg *alg = table[row];
        if (!alg->cost || alg->rules_only || cs_alg_restriction(alg, prob))
            continue;
        cs_params params;
        cs_params_init(&params);
        if (alg->tune)
            alg->tune(model, prob, &params);
        const double t = cs_alg_cost_on_map(alg, model, prob, &params);
        if (t >= 0 && (best == 0.0 || t < best)) {
            best = t;
            *name = alg->name;
        }
    }
    return best;
}

/* The message bands of one communicator size. */
static void cs_export_sizes(const cs_model *model, const cs_export_plan *plan, cs_coll coll, int p, cs_export_com *com)
{
    com->p_lo = com->p_hi = p;
    com->n = 0;
    for (int k = 0; k < CS_EXPORT_SIZES; k++) {
        const size_t bytes = (size_t)1 << k;
        const cs_problem prob = cs_export_problem(coll, p, bytes);
        const char *dflt, *words = NULL, *ours = NULL;
        const double native = cs_library_price(model, &prob, &dflt);
        double best = -1.0, best_unsafe = -1.0;
        int choice = 0, dflt_choice = -1, unsafe = -1;
        for (int a = 0; plan->algs[coll][a].mpir || plan->algs[coll][a].alg; a++) {
            const char *w;
            const double t = cs_export_price(model, &prob, &plan->algs[coll][a], &w);
            if (plan->algs[coll][a].unsafe) { /* priced, never named */
                if (t >= 0 && (best_unsafe < 0 || t < best_unsafe * (1 - 1e-9))) {
                    best_unsafe = t;
                    unsafe = a;
                }
                continue;
            }
            /* the default's name (an algorithm whose fallback runs it names it too) */
            if (t >= 0 && dflt_choice < 0 && !strcmp(w, dflt) && t <= native * (1 + 1e-9))
                dflt_choice = a;
            if (t >= 0 && (best < 0 || t < best * (1 - 1e-9))) {
                best = t;
                choice = a;
                words = w;
            }
        }
        /* The default is kept unless another is cheaper by the margin the
         * shim asks of its own rows: a model a few percent apart does not
         * know which is faster (Open MPI's ring at p = 8, 128 KiB: 2% cheaper
         * than its Rabenseifner under the built-in model, 1.7 times slower on
         * 8 ranks over 2 cores). Open MPI: algorithm 0, its own decision
         * (which also keeps linear_sync and two_proc). */
        if (best >= native * (1 - model->margin)) {
            if (plan->library == CS_LIBRARY_OPENMPI || dflt_choice >= 0) {
                choice = plan->library == CS_LIBRARY_OPENMPI ? -1 : dflt_choice;
                words = dflt;
                best = native;
            }
        }
        /* said where the unsafe one would have been named: cheapest, and by the margin */
        if (unsafe >= 0 && !(best_unsafe < best * (1 - 1e-9) && best_unsafe < native * (1 - model->margin)))
            unsafe = -1;
        const double mine = cs_export_ours(model, &prob, &ours);
        const double gain = mine > 0 ? best / mine : 0.0;
        cs_export_msg *band = com->n && com->msg[com->n - 1].alg == choice ? &com->msg[com->n - 1] : NULL;
        if (!band) {
            band = &com->msg[com->n++];
            *band = (cs_export_msg){.alg = choice, .words = words, .unsafe = -1};
        }
        if (band->unsafe < 0)
            band->unsafe = unsafe;
        band->upto = bytes;
        if (gain > band->gain) {
            band->gain = gain;
            band->gain_at = bytes;
            band->gain_p = p;
            band->ours = ours;
        }
    }
}

/* Do two communicator sizes make the same choices at the same sizes? */
static int cs_export_same(const cs_export_com *a, const cs_export_com *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (a->msg[i].alg != b->msg[i].alg || (i + 1 < a->n && a->msg[i].upto != b->msg[i].upto))
            return 0;
    return 1;
}

int cs_export_plan_make(const cs_model *model, int library, int pmax, cs_export_plan *plan)
{
    cs_model m = *model;
    m.library = library;
    memset(plan, 0, sizeof *plan);
    plan->library = library;
    plan->pmax = pmax;
    for (int i = 0; i < 3; i++) {
        const cs_coll coll = cs_export_colls[i];
        plan->algs[coll] = library == CS_LIBRARY_OPENMPI ? cs_export_openmpi[coll] : cs_export_mpich[coll];
        cs_export_com *com = calloc((size_t)pmax, sizeof *com);
        if (!com)
            return -1;
        plan->com[coll] = com;
        int n = 0;
        for (int p = 2; p <= pmax; p++) {
            cs_export_com here;
            cs_export_sizes(&m, plan, coll, p, &here);
            /* Open MPI measures alltoall by p blocks: a size rule per p keeps its bounds exact */
            const int merge = !(library == CS_LIBRARY_OPENMPI && coll == CS_COLL_ALLTOALL);
            if (merge && n && cs_export_same(&com[n - 1], &here)) {
                cs_export_com *band = &com[n - 1];
                band->p_hi = p;
                for (int b = 0; b < band->n; b++) {
                    if (band->msg[b].unsafe < 0)
                        band->msg[b].unsafe = here.msg[b].unsafe;
                    if (here.msg[b].gain > band->msg[b].gain) {
                        band->msg[b].gain = here.msg[b].gain;
                        band->msg[b].gain_at = here.msg[b].gain_at;
                        band->msg[b].gain_p = p;
                        band->msg[b].ours = here.msg[b].ours;
                    }
                }
                continue;
            }
            com[n++] = here;
        }
        plan->ncom[coll] = n;
    }
    return 0;
}

void cs_export_plan_free(cs_export_plan *plan)
{
    for (int c = 0; c < CS_COLL_LAST; c++)
        free(plan->com[c]);
    memset(plan, 0, sizeof *plan);
}

/* Each band of the plan, in the order written: visit(coll, band b of com, its first byte, ctx). */
typedef void cs_export_visit(cs_coll coll, const cs_export_com *com, int b, size_t from, void *ctx);
static void cs_export_bands(const cs_export_plan *plan, cs_export_visit *visit, void *ctx)
{
    for (int i = 0; i < 3; i++) {
        const cs_coll coll = cs_export_colls[i];
        for (int c = 0; c < plan->ncom[coll]; c++)
            for (int b = 0; b < plan->com[coll][c].n; b++)
                visit(coll, &plan->com[coll][c], b, b ? plan->com[coll][c].msg[b - 1].upto + 1 : 0, ctx);
    }
}

typedef struct cs_export_out {
    const cs_export_plan *plan;
    FILE *out;
    double margin;
    const char *prefix;
    int n;
} cs_export_out;

static void cs_export_gain_line(cs_coll coll, const cs_export_com *com, int b, size_t from, void *ctx)
{
    cs_export_out *o = ctx;
    const cs_export_msg *m = &com->msg[b];
    if (m->gain <= 1.0 + o->margin)
        return;
    fprintf(o->out, "%s %d-%d %zu-%zu %s %.2f %d %zu %s\n", cs_coll_name(coll), com->p_lo, com->p_hi, from, m->upto,
            m->words, m->gain, m->gain_p, m->gain_at, m->ours);
    o->n++;
}

void cs_export_report(const cs_export_plan *plan, double margin, FILE *out)
{
    fprintf(out, "# where collshim preloaded would gain over the file (the model's library / ours, largest "
                 "in the band)\n# collective p-range bytes-range file's-algorithm gain at-p at-bytes ours\n");
    cs_export_out o = {.plan = plan, .out = out, .margin = margin};
    cs_export_bands(plan, cs_export_gain_line, &o);
    if (!o.n)
        fprintf(out, "# none: the library's own algorithms are the model's best everywhere\n");
}

static void cs_export_unsafe_line(cs_coll coll, const cs_export_com *com, int b, size_t from, void *ctx)
{
    cs_export_out *o = ctx;
    const cs_export_msg *m = &com->msg[b];
    if (m->unsafe < 0)
        return;
    fprintf(o->out, "%s: %s p = %d-%d, ", o->prefix, cs_coll_name(coll), com->p_lo, com->p_hi);
    if (b + 1 < com->n)
        fprintf(o->out, "%zu-%zu B", from, m->upto);
    else
        fprintf(o->out, "from %zu B", from);
    if (m->alg < 0)
        fprintf(o->out, ": the library's own decision (0)");
    else
        fprintf(o->out, ": %s (%d)", m->words, o->plan->algs[coll][m->alg].alg);
    fprintf(o->out, ", not the cheaper %s\n", o->plan->algs[coll][m->unsafe].unsafe);
    o->n++;
}

int cs_export_report_unsafe(const cs_export_plan *plan, const char *prefix, FILE *out)
{
    cs_export_out o = {.plan = plan, .out = out, .prefix = prefix};
    cs_export_bands(plan, cs_export_unsafe_line, &o);
    if (o.n)
        fprintf(out,
                "%s: %d bands name another algorithm than the cheapest: a tuning file cannot tell operators or "
                "datatypes apart, and never names one wrong for some of them\n",
                prefix, o.n);
    return o.n;
}
