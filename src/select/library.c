/*
 * The MPI library priced: its default algorithm for a call, as the rows of
 * ours that run the same schedule, priced under the model.
 *
 * MPICH 4.0.2 as Debian builds it (ch4:ucx; no shared-memory module, which
 * ch4 drops with ucx, so every collective is MPIR's): MPI_Allreduce,
 * MPI_Reduce and MPI_Alltoall go to the device (MPIR_CVAR_DEVICE_COLLECTIVES
 * percoll, MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE true), whose selection
 * (maint/tuning/coll/ch4/generic.json) hands a communicator on one node to
 * MPIR's (MPIR_CVAR_<COLL>_INTRA_ALGORITHM auto: MPIR_<Coll>_allcomm_auto,
 * maint/tuning/coll/mpir/generic.json, built in as src/mpi/coll/src/
 * csel_json_autogen.c). m is count times the type's size:
 *
 *   alltoall   in place: pairwise sendrecv-replace           -> direct
 *              m <= 256 B and p >= 9: Bruck, radix 2          -> bruck:r=2
 *                (the tree says "comm_size<8", but csel.c's search,
 *                which decides past is_sendbuf_inplace, tests it as
 *                p <= 8: at p = 8 MPICH runs scattered, 64 messages,
 *                not Bruck's 24, as tests/tools/check-export counts)
 *              m <= 32 KiB: scattered, Isend/Irecv in batches  -> linear:w=32
 *                of 32 (MPIR_CVAR_ALLTOALL_THROTTLE)
 *              else pairwise                                   -> direct
 *   allreduce  m <= 8 B, an operator not built in, or count < p':
 *              recursive doubling; else reduce-scatter + allgather
 *              (Rabenseifner) from 9 B on (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
 *              is read by the nonblocking allreduce only); both fold p to
 *              p' = 2^floor(log2 p) first: the first 2r ranks (r = p - p')
 *              pair up, even ones send their vector to the odd one and get
 *              the result at the end
 *                                                 -> butterfly on p' (k = 0,
 *                                                    or halving to the end)
 *                                                    + the fold and unfold
 *   reduce     m <= 2 KiB, an operator not built in, or count < p': binomial
 *                                                  -> binomial
 *              else reduce-scatter + gather (folded likewise)
 *                                                  -> butterfly on p'
 *              The device's selection first: a commutative operator up to
 *              2 KiB reduces on the node to the root itself
 *              (MPIDI_Reduce_intra_composition_beta), and MPIR's binomial
 *              tree is built around the root then (reduce_intra_binomial.c),
 *              so priced as root 0; above 2 KiB it reduces to rank 0 and
 *              sends the result on to the root
 *              (MPIDI_Reduce_intra_composition_alpha); an operator that does
 *              not commute goes to MPIR whole, whose binomial tree reduces to
 *              rank 0 and sends on too (our rows' price for a root other
 *              than 0).
 *
 * Over several nodes ch4 composes a commutative allreduce and reduce from
 * the node's and the nodes' first ranks' (cs_mpich_composed below).
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
 *              else recursive doubling
 *   reduce     MPICH 3's rule (MPIR_Reduce_intra_auto): m < 2 KiB, an
 *              operator that does not commute, or count < p': binomial;
 *              else reduce-scatter + gather (the two-level reduce's
 *              leaders run the same choice)
 *
 * Open MPI 4.1 and SMPI's ompi selector: library_openmpi.c.
 *
 * A user operator is told by its non-commutativity: every predefined
 * operator commutes (a commutative user operator is priced as predefined;
 * MPICH would run it as one that does not commute: recursive doubling, a
 * binomial reduce).
 */
#include <math.h>
#include <string.h>

#include "coll/compose/compose.h"
#include "select/library.h"
#include "select/library_rows.h"
#include "config/library_rules.h"

/* mpir/generic.json's allreduce "avg_msg_size<=8", reduce's "avg_msg_size<=2048" (SMPI's
 * copy of MPICH 3's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE for both), alltoall's 256 and 32768 */
enum {
    CS_MPICH_SHORT_ALLREDUCE = 8,
    CS_MPICH_SHORT_REDUCTION = 2048,
    CS_MPICH_ALLTOALL_SHORT = 256,
    CS_MPICH_ALLTOALL_MEDIUM = 32768
};

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
    /* its ranks are the unfolded ones, farther apart (model.distance): one pass (recursive doubling) or two */
    t +=
        cs_model_folded_latency(model, prob->p, alg == &cs_allreduce_butterfly && spec && !strcmp(spec, "k=0") ? 1 : 2);
    const cs_model whole = cs_model_sized(model, (double)prob->bytes); /* those messages' band (model.bands) */
    if (pof2 < prob->p) { /* one vector in and combined; the result back (allreduce) or on (reduce) */
        const cs_model pair = cs_model_at_level(&whole, prob, 1, 2); /* ranks 2i and 2i + 1 */
        const double m = (double)prob->bytes, message = pair.alpha + 2 * model->overhead + pair.beta * m;
        t += message + model->gamma * m;
        t += prob->coll == CS_COLL_ALLREDUCE ? message : 0.0;
    }
    if (prob->coll == CS_COLL_REDUCE && prob->root != 0)
        t += whole.alpha + 2 * model->overhead + whole.beta * (double)prob->bytes;
    return t;
}

double cs_library_bcast_scatter(const cs_model *unsized, const cs_problem *prob, int ring)
{
    const int p = prob->p;
    const cs_model sized = cs_model_sized(unsized, (double)prob->bytes / p), *model = &sized; /* m / p a message */
    const double step = model->alpha + 2 * model->overhead;
    /* every rank sends at once: all p through the network core (model.beta_core) */
    const double spread = (p - 1) / (double)p * (double)prob->bytes * cs_model_off_nodes(model, 1, p).beta;
    return (cs_ceil_log2(p) + (ring ? p - 1 : cs_ceil_log2(p))) * step + 2 * spread;
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
    const cs_model bcast = cs_model_sized(&on, m); /* the broadcast's messages' band (model.bands) */
    return cs_library_row(&cs_reduce_binomial, &on, &node, NULL) +
           cs_library_folded(&cs_allreduce_butterfly, &off, &leaders, "k=0") +
           cs_ceil_log2(prob->ppn) * (bcast.alpha + 2 * model->overhead + bcast.beta * m);
}

/* MPICH's thresholds are inclusive, SMPI's copies of them exclusive. */
static int cs_below(size_t bytes, size_t limit, int smpi)
{
    return smpi ? bytes < limit : bytes <= limit;
}

/* The algorithm an MPICH selection file names for prob, priced (-1: none, or not one we price). */
static double cs_library_from_rules(const cs_model *model, const cs_problem *prob, const char **name)
{
    const char *mpir = model->library_rules ? cs_library_rules_mpich(model->library_rules, prob) : NULL;
    return mpir ? cs_library_mpich_alg(model, prob, mpir, name) : -1.0;
}

static double cs_library_alltoall(const cs_model *model, const cs_problem *prob, int smpi, const char **name)
{
    const double ruled = smpi ? -1.0 : cs_library_from_rules(model, prob, name);
    if (ruled >= 0)
        return ruled;
    if ((prob->flags & CS_PROB_INPLACE) && !smpi)
        return cs_library_mpich_alg(model, prob, "MPIR_Alltoall_intra_pairwise_sendrecv_replace", name);
    if (cs_below(prob->bytes, CS_MPICH_ALLTOALL_SHORT, smpi) && prob->p >= (smpi ? 8 : 9))
        return cs_library_mpich_alg(model, prob, "MPIR_Alltoall_intra_brucks", name);
    if (cs_below(prob->bytes, CS_MPICH_ALLTOALL_MEDIUM, smpi)) {
        if (!smpi)
            return cs_library_mpich_alg(model, prob, "MPIR_Alltoall_intra_scattered", name);
        *name = "scatter_dest";
        return cs_library_row(&cs_alltoall_linear, model, prob, "w=4");
    }
    return cs_library_mpich_alg(model, prob, "MPIR_Alltoall_intra_pairwise", name);
}

/* SMPI's mpich selector: MPICH 3's rules (MPIR_Allreduce_intra_auto, MPIR_Reduce_intra_auto) */
static double cs_library_reduction_smpi(const cs_model *model, const cs_problem *prob, const char **name)
{
    const int pof2 = 1 << cs_floor_log2(prob->p);
    const int user_op = !(prob->flags & CS_PROB_COMMUTATIVE);
    const int short_msg = prob->bytes < CS_MPICH_SHORT_REDUCTION || user_op || prob->count < (size_t)pof2;
    if (prob->coll == CS_COLL_REDUCE) {
        if (short_msg) {
            *name = "binomial";
            return cs_library_row(&cs_reduce_binomial, model, prob, NULL);
        }
        *name = "reduce-scatter and gather";
        return cs_library_folded(&cs_reduce_butterfly, model, prob, "b=0");
    }
    if (!user_op) {
        *name = "two-level recursive doubling";
        if (cs_model_nodes(model, prob) && prob->p % prob->ppn == 0 && prob->p > prob->ppn)
            return cs_library_two_level(model, prob);
        return cs_library_folded(&cs_allreduce_butterfly, model, prob, "k=0");
    }
    *name = "recursive doubling";
    return cs_library_folded(&cs_allreduce_butterfly, model, prob, "k=0");
}

/*
 * mpir/generic.json's "count<pow2": fewer elements than p'. With 1-byte
 * elements the count is not known: select's breakpoints price every
 * datatype of a variant as bytes (select.c, cs_bp_problem). There a vector
 * under 8 p' bytes counts as short, as a vector of doubles is, so that the
 * library is never priced dearer than it runs (a real 1-byte type's vector
 * of p' to 8 p' bytes, which MPICH reduce-scatters, is priced as its
 * recursive doubling or binomial tree then).
 */
static int cs_mpich_count_below_pof2(const cs_problem *prob, int pof2)
{
    return prob->elem == 1 ? prob->bytes < 8 * (size_t)pof2 : prob->count < (size_t)pof2;
}

static double cs_library_reduction(const cs_model *model, const cs_problem *prob, const char **name);

/*
 * MPIR's broadcast on a node's ranks (mpir/generic.json, "collective=bcast",
 * comm_hierarchy=any): binomial below 8 ranks or up to 12 KiB; else, p a
 * power of two, scatter and recursive-doubling allgather up to 512 KiB;
 * else scatter and ring allgather. model without gamma.
 */
static double cs_mpich_bcast(const cs_model *model, const cs_problem *prob)
{
    if (prob->p < 8 || prob->bytes <= 12288)
        return cs_library_row(&cs_reduce_binomial, model, prob, NULL);
    const int pow2 = !(prob->p & (prob->p - 1));
    return cs_library_bcast_scatter(model, prob, !pow2 || prob->bytes > 524288);
}

/*
 * MPICH's ch4 over nodes (ch4/generic.json, a communicator of several nodes
 * with ranks sharing one: comm_hierarchy=parent), for a commutative
 * operator, src/mpid/ch4/src/ch4_coll_impl.h: allreduce
 * (MPIDI_Allreduce_intra_composition_alpha) reduces on each node to its
 * first rank, allreduces among those, broadcasts on the node; reduce up to
 * 2 KiB (composition_beta) reduces on the other nodes, among the first
 * ranks to the root's node, then on that node to the root; above 2 KiB
 * (composition_alpha) on each node, among the first ranks to rank 0, then
 * on to the root. Each part is MPIR's choice for its communicator. Priced
 * where the ranks are in blocks of ppn (cs_model_nodes), else flat.
 */
static int cs_mpich_composed(const cs_model *model, const cs_problem *prob, const char **name, double *t)
{
    const int ppn = prob->ppn, nodes = ppn > 1 ? prob->p / ppn : 0;
    if (!(prob->flags & CS_PROB_COMMUTATIVE) || !cs_model_nodes(model, prob) || nodes < 2 || prob->p % ppn)
        return 0;
    const cs_model on = cs_model_on_node(model), off = cs_model_off_node(model, 1);
    cs_problem node = *prob, leaders = *prob;
    node.p = ppn;
    node.ppn = leaders.ppn = 0;
    node.root = 0;
    node.coll = CS_COLL_REDUCE;
    leaders.p = nodes;
    const char *how;
    const double reduce = cs_library_reduction(&on, &node, &how);
    if (prob->coll == CS_COLL_ALLREDUCE) {
        cs_model bcast = on;
        bcast.gamma = 0.0;
        *t = reduce + cs_library_reduction(&off, &leaders, &how) + cs_mpich_bcast(&bcast, &node);
        *name = "node reduce, allreduce across nodes, node broadcast";
        return 1;
    }
    leaders.root = 0;
    *t = reduce + cs_library_reduction(&off, &leaders, &how);
    if (prob->bytes <= CS_MPICH_SHORT_REDUCTION)
        *t += reduce; /* the root's node reduces last, to the root */
    else if (prob->root != 0) {
        const cs_model last = cs_model_hop(model, prob, prob->root < ppn, 1);
        *t += last.alpha + 2 * model->overhead + last.beta * (double)prob->bytes;
    }
    *name = "node reduce and reduce across nodes";
    return 1;
}

double cs_library_mpich_alg(const cs_model *model, const cs_problem *prob, const char *mpir, const char **name)
{
    static const struct {
        const char *mpir, *words;
        const cs_alg *row;
        const char *spec;
        int folded;
    } algs[] = {
        {"MPIR_Allreduce_intra_recursive_doubling", "recursive doubling", &cs_allreduce_butterfly, "k=0", 1},
        {"MPIR_Allreduce_intra_reduce_scatter_allgather", "reduce-scatter and allgather", &cs_allreduce_butterfly,
         "b=0", 1},
        {"MPIR_Reduce_intra_binomial", "binomial", &cs_reduce_binomial, NULL, 0},
        {"MPIR_Reduce_intra_reduce_scatter_gather", "reduce-scatter and gather", &cs_reduce_butterfly, "b=0", 1},
        {"MPIR_Alltoall_intra_brucks", "Bruck", &cs_alltoall_bruck, "r=2", 0},
        {"MPIR_Alltoall_intra_scattered", "scattered", &cs_alltoall_linear, "w=32", 0},
        {"MPIR_Alltoall_intra_pairwise", "pairwise", &cs_alltoall_direct, NULL, 0},
        {"MPIR_Alltoall_intra_pairwise_sendrecv_replace", "pairwise sendrecv-replace", &cs_alltoall_direct, NULL, 0},
    };
    for (size_t i = 0; i < sizeof algs / sizeof *algs; i++) {
        if (strcmp(mpir, algs[i].mpir) || algs[i].row->coll != prob->coll)
            continue;
        *name = algs[i].words;
        if (algs[i].folded) /* to rank 0, then on to the root: composition_alpha */
            return cs_library_folded(algs[i].row, model, prob, algs[i].spec);
        cs_problem at = *prob;
        if (prob->coll == CS_COLL_REDUCE && (prob->flags & CS_PROB_COMMUTATIVE) &&
            prob->bytes <= CS_MPICH_SHORT_REDUCTION)
            at.root = 0; /* composition_beta: the tree built around the root */
        return cs_library_row(algs[i].row, model, &at, algs[i].spec);
    }
    return -1.0;
}

/* MPICH 4.0.2: MPIR's selection (mpir/generic.json, or the file the library
 * runs under) behind ch4's (ch4/generic.json), as above */
static double cs_library_reduction(const cs_model *model, const cs_problem *prob, const char **name)
{
    double composed;
    if (cs_mpich_composed(model, prob, name, &composed))
        return composed;
    const double ruled = cs_library_from_rules(model, prob, name);
    if (ruled >= 0)
        return ruled;
    const int pof2 = 1 << cs_floor_log2(prob->p);
    const int commutative = (prob->flags & CS_PROB_COMMUTATIVE) != 0;
    const int tree = !commutative || (prob->flags & CS_PROB_USER_OP) ||
                     cs_mpich_count_below_pof2(prob, pof2); /* "is_op_built_in=no", "count<pow2" */
    if (prob->coll == CS_COLL_REDUCE)
        return cs_library_mpich_alg(model, prob,
                                    tree || prob->bytes <= CS_MPICH_SHORT_REDUCTION
                                        ? "MPIR_Reduce_intra_binomial"
                                        : "MPIR_Reduce_intra_reduce_scatter_gather",
                                    name);
    return cs_library_mpich_alg(model, prob,
                                tree || prob->bytes <= CS_MPICH_SHORT_ALLREDUCE
                                    ? "MPIR_Allreduce_intra_recursive_doubling"
                                    : "MPIR_Allreduce_intra_reduce_scatter_allgather",
                                name);
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
    if (prob->coll == CS_COLL_ALLTOALL)
        return cs_library_alltoall(model, prob, smpi, name);
    return smpi ? cs_library_reduction_smpi(model, prob, name) : cs_library_reduction(model, prob, name);
}

/* The compositions price the library's node phase by the mirror; coll,
 * below select, reads it through a pointer set here once the program is
 * loaded (coll/compose/compose.h). */
__attribute__((constructor)) static void cs_library_price_hook(void)
{
    cs_compose_library_price = cs_library_price;
}

/* prob as the breakpoints price it: its bytes in 1-byte elements. */
static cs_problem cs_library_in_bytes(const cs_problem *prob)
{
    cs_problem as = *prob;
    as.count = as.bytes;
    as.elem = 1;
    return as;
}

int cs_library_switches(const cs_model *model, const cs_problem *variant, size_t *sizes, int max)
{
    if (variant->p <= 1 || max < 8)
        return 0;
    if (model->library == CS_LIBRARY_OPENMPI || model->library == CS_LIBRARY_SMPI_OMPI)
        return cs_library_openmpi_switches(model, variant, model->library == CS_LIBRARY_SMPI_OMPI, sizes, max);
    const int smpi = model->library == CS_LIBRARY_SMPI_MPICH, pof2 = 1 << cs_floor_log2(variant->p);
    const size_t past = smpi ? 0 : 1; /* MPICH's thresholds hold the size itself, SMPI's stop before it */
    int n = 0;
    if (variant->coll == CS_COLL_ALLTOALL) {
        sizes[n++] = CS_MPICH_ALLTOALL_SHORT + past;
        sizes[n++] = CS_MPICH_ALLTOALL_MEDIUM + past;
        return n;
    }
    if (smpi) {
        if (variant->coll == CS_COLL_REDUCE) {
            sizes[n++] = CS_MPICH_SHORT_REDUCTION;
            sizes[n++] = (size_t)pof2; /* its count < p', unread in 1-byte elements */
        }
        return n;
    }
    /* MPIR's thresholds and its count < p' (8 p' bytes in 1-byte elements), on the whole communicator
     * and, composed over nodes, on a node's ranks and on the nodes' first ranks, with the node's broadcast */
    const int parts[3] = {variant->p, variant->ppn > 1 ? variant->ppn : 0,
                          variant->ppn > 1 ? variant->p / variant->ppn : 0};
    sizes[n++] = CS_MPICH_SHORT_ALLREDUCE + 1;
    sizes[n++] = CS_MPICH_SHORT_REDUCTION + 1;
    for (int i = 0; i < 3; i++)
        if (parts[i] > 1)
            sizes[n++] = 8 * ((size_t)1 << cs_floor_log2(parts[i]));
    if (parts[1]) {
        sizes[n++] = 12288 + 1;
        sizes[n++] = 524288 + 1;
    }
    return n;
}

/* Which of MPIR's algorithms MPICH runs for prob, as one number: the short
 * one (recursive doubling, binomial) or not, and, composed over nodes, on
 * a node and among the nodes' first ranks; a selection file's choice is
 * compared apart (cs_library_count_matters). No pricing. */
static unsigned cs_mpich_choice(const cs_model *model, const cs_problem *prob)
{
    const int ppn = prob->ppn, nodes = ppn > 1 ? prob->p / ppn : 0;
    if ((prob->flags & CS_PROB_COMMUTATIVE) && cs_model_nodes(model, prob) && nodes >= 2 && prob->p % ppn == 0) {
        cs_problem node = *prob, leaders = *prob; /* as cs_mpich_composed */
        node.p = ppn;
        node.ppn = leaders.ppn = 0;
        node.root = leaders.root = 0;
        node.coll = CS_COLL_REDUCE;
        leaders.p = nodes;
        return 1u << 2 | cs_mpich_choice(model, &node) << 3 | cs_mpich_choice(model, &leaders) << 6;
    }
    const int pof2 = 1 << cs_floor_log2(prob->p);
    const int tree = !(prob->flags & CS_PROB_COMMUTATIVE) || (prob->flags & CS_PROB_USER_OP) ||
                     cs_mpich_count_below_pof2(prob, pof2);
    return prob->coll == CS_COLL_REDUCE ? tree || prob->bytes <= CS_MPICH_SHORT_REDUCTION
                                        : tree || prob->bytes <= CS_MPICH_SHORT_ALLREDUCE;
}

/* The algorithm a selection file names for prob and, composed, for its parts (a node, the nodes' first ranks). */
static int cs_mpich_rules_differ(const cs_model *model, const cs_problem *prob, const cs_problem *as)
{
    const cs_library_rules *rules = model->library_rules;
    if (cs_library_rules_mpich(rules, prob) != cs_library_rules_mpich(rules, as))
        return 1;
    const int ppn = prob->ppn, nodes = ppn > 1 ? prob->p / ppn : 0;
    if (!(prob->flags & CS_PROB_COMMUTATIVE) || !cs_model_nodes(model, prob) || nodes < 2 || prob->p % ppn)
        return 0;
    cs_problem parts[2][2] = {{*prob, *as}, {*prob, *as}};
    for (int i = 0; i < 2; i++) {
        parts[0][i].p = ppn;
        parts[0][i].coll = CS_COLL_REDUCE;
        parts[1][i].p = nodes;
        for (int j = 0; j < 2; j++)
            parts[j][i].ppn = parts[j][i].root = 0;
    }
    return cs_library_rules_mpich(rules, &parts[0][0]) != cs_library_rules_mpich(rules, &parts[0][1]) ||
           cs_library_rules_mpich(rules, &parts[1][0]) != cs_library_rules_mpich(rules, &parts[1][1]);
}

int cs_library_count_matters(const cs_model *model, const cs_problem *prob)
{
    if (prob->p <= 1 || prob->count == prob->bytes || prob->coll == CS_COLL_ALLTOALL)
        return 0;
    const cs_problem as = cs_library_in_bytes(prob);
    if (model->library == CS_LIBRARY_OPENMPI || model->library == CS_LIBRARY_SMPI_OMPI) {
        const int smpi = model->library == CS_LIBRARY_SMPI_OMPI;
        return cs_library_openmpi_choice(model, prob, smpi) != cs_library_openmpi_choice(model, &as, smpi);
    }
    if (model->library == CS_LIBRARY_SMPI_MPICH) { /* its reduce's count < p' (cs_library_reduction_smpi) */
        const size_t pof2 = (size_t)1 << cs_floor_log2(prob->p);
        return prob->coll == CS_COLL_REDUCE && prob->bytes >= CS_MPICH_SHORT_REDUCTION &&
               (prob->flags & CS_PROB_COMMUTATIVE) && (prob->count < pof2) != (as.count < pof2);
    }
    return cs_mpich_choice(model, prob) != cs_mpich_choice(model, &as) ||
           (model->library_rules && cs_mpich_rules_differ(model, prob, &as));
}

int cs_library_eager(const cs_model *model)
{
    return model->library != CS_LIBRARY_SMPI_MPICH && model->library != CS_LIBRARY_SMPI_OMPI;
}
