/*
 * The library mirrors (select/library.c, library_openmpi.c) against the
 * sources Debian 12 builds: MPICH 4.0.2 (mpich_4.0.2-3) and Open MPI 4.1.4
 * (openmpi_4.1.4-3), `apt-get source mpich openmpi`. Each row is a call
 * (p, count, element size, operator class) and the algorithm that library's
 * source picks for it, read case by case at the lines cited, both sides of
 * each threshold; then the prices of what the algorithms do beyond their
 * names (where the root's result goes, which broadcast follows a reduce).
 */
#include <check.h>
#include <string.h>

#include "coll/coll.h"
#include "config/config_internal.h"
#include "select/library.h"
#include "select/library_rows.h"

enum { C = CS_PROB_COMMUTATIVE, I = CS_PROB_INPLACE, U = CS_PROB_USER_OP };

static cs_model model_of(int library)
{
    cs_config cfg;
    cs_config_defaults(&cfg);
    cfg.model.library = library;
    return cfg.model;
}

static cs_problem call(cs_coll coll, int p, size_t count, size_t elem, unsigned flags, int root)
{
    return (cs_problem){.coll = coll,
                        .p = p,
                        .root = root,
                        .count = count,
                        .elem = elem,
                        .bytes = count * elem,
                        .flags = flags | CS_PROB_CONTIG};
}

static const struct {
    int library;
    cs_coll coll;
    int p;
    size_t count, elem;
    unsigned flags;
    const char *name;
} choices[] = {
    /* MPICH 4.0.2, maint/tuning/coll/mpir/generic.json (built in as src/mpi/coll/src/
     * csel_json_autogen.c), which MPIR_Allreduce_allcomm_auto (src/mpi/coll/mpir_coll.c) reads
     * behind ch4's composition_gamma (maint/tuning/coll/ch4/generic.json lines 48-78).
     * allreduce, lines 99-135: avg_msg_size<=8, then is_op_built_in=no, then count<pow2: recursive
     * doubling; else reduce_scatter_allgather. */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 2, 2, 4, C, "recursive doubling"},           /* 8 B, count = p' */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 2, 3, 3, C, "reduce-scatter and allgather"}, /* 9 B */
    /* 1-byte elements (a breakpoint's): short below 8 p' bytes (cs_mpich_count_below_pof2) */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 63, 1, C, "recursive doubling"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 64, 1, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 512, 4095, 1, C, "binomial"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 512, 4096, 1, C, "reduce-scatter and gather"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 7, 4, C, "recursive doubling"},            /* count < p' */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 8, 4, C, "reduce-scatter and allgather"},  /* 32 B */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 12, 7, 8, C, "recursive doubling"},           /* p' = 8 */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 12, 8, 8, C, "reduce-scatter and allgather"}, /* 64 B */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 16, 16, 8, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 2, 2, 8, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_AUTO, CS_COLL_ALLREDUCE, 8, 8, 4, C, "reduce-scatter and allgather"},
    /* is_op_built_in=no: a user's commutative operator takes recursive doubling at every size */
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 1 << 16, 4, C | U, "recursive doubling"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 16, 16, 8, C | U, "recursive doubling"},
    /* reduce, lines 206-276 (comm_hierarchy=parent on one node, and any): avg_msg_size<=2048:
     * binomial; is_op_built_in=yes and count<pow2: binomial; built in: reduce_scatter_gather;
     * not: binomial */
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 8, 513, 4, C, "reduce-scatter and gather"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 8, 1 << 18, 4, 0, "binomial"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 8, 1 << 18, 4, C | U, "binomial"}, /* is_op_built_in=no */
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 12, 600, 4, C, "reduce-scatter and gather"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 1024, 600, 4, C, "binomial"}, /* count < p' */
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 1024, 1024, 4, C, "reduce-scatter and gather"},
    /* alltoall, lines 432-474: in place: pairwise_sendrecv_replace; comm_size<8: scattered up
     * to 32768, else pairwise; else brucks up to 256, scattered up to 32768, pairwise */
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 7, 8, 1, 0, "scattered"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 7, 32768, 1, 0, "scattered"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 7, 32769, 1, 0, "pairwise"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 8, 257, 1, 0, "scattered"},

    /* Open MPI 4.1.4, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c.
     * ompi_coll_tuned_allreduce_intra_dec_fixed, lines 55-218: commutative, lines 120-214 */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 7, 1, C, "ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 8, 1, C, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 4095, 1, C, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 4096, 1, C, "ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 65535, 1, C, "ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 65536, 1, C, "segmented ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 2, 262144, 1, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 15, 1, C, "ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 16, 1, C, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 4, 8192, 1, C, "reduce-scatter and allgather"},
    /* not commutative, lines 80-119 */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 3, 131071, 1, 0, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 3, 131072, 1, 0, "linear reduce and broadcast"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 8, 1048575, 1, 0, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 8, 1048576, 1, 0, "reduce and broadcast"},
    /* ompi_coll_tuned_reduce_intra_dec_fixed, lines 662-814: commutative, lines 725-810 */
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 7, 1, C, "reduce-scatter and gather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 8, 1, C, "binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 16, 1, C, "pipeline"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 32, 1, C, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 4, 4095, 1, C, "binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 4, 4096, 1, C, "chain"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 4, 65536, 1, C, "binomial"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 300, 8192, 1, C, "in-order binary tree"},
    /* not commutative, lines 691-724 */
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 3, 7, 1, 0, "in-order binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 3, 8, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 8, 1023, 1, 0, "in-order binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 8, 1024, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 8, 8192, 1, 0, "in-order binary tree"},
    /* ompi_coll_tuned_alltoall_intra_dec_fixed, lines 228-411; in place, every algorithm hands
     * the call to mca_coll_base_alltoall_intra_basic_inplace (coll_base_alltoall.c) */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 8, 262143, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 16, 3, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 16, 4, 1, 0, "modified Bruck"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 16, 512, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 128, 262144, 1, 0, "pairwise"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 16, 4, 1, I, "in-place sendrecv-replace"},
    /* Further edges, and SMPI's selectors (the scale lab's library): MPICH's thresholds are
     * inclusive, SMPI's copies exclusive; Open MPI 4.1's bands of p and size, and the fallbacks it
     * takes where an algorithm cannot run. */
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 4, 100, 1, 0, "scattered"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 8, 256, 1, 0, "scattered"}, /* csel.c's search: "comm_size<8" as <= */
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 9, 256, 1, 0, "Bruck"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 8, 32768, 1, 0, "scattered"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 8, 32769, 1, 0, "pairwise"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLTOALL, 8, 8, 1, I, "pairwise sendrecv-replace"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 2, 4, C, "recursive doubling"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 512, 4, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 513, 4, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_MPICH, CS_COLL_ALLREDUCE, 8, 1 << 18, 4, 0, "recursive doubling"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 8, 512, 4, C, "binomial"},
    {CS_LIBRARY_MPICH, CS_COLL_REDUCE, 8, 1024, 4, C, "reduce-scatter and gather"},
    {CS_LIBRARY_AUTO, CS_COLL_ALLTOALL, 9, 256, 1, 0, "Bruck"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLTOALL, 8, 255, 1, 0, "Bruck"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLTOALL, 8, 256, 1, 0, "scatter_dest"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLTOALL, 8, 32768, 1, 0, "pairwise"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLTOALL, 8, 8, 1, I, "Bruck"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLREDUCE, 8, 1 << 18, 4, C, "two-level recursive doubling"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_ALLREDUCE, 8, 1 << 18, 4, 0, "recursive doubling"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_REDUCE, 8, 512, 4, C, "reduce-scatter and gather"},
    {CS_LIBRARY_SMPI_MPICH, CS_COLL_REDUCE, 8, 511, 4, C, "binomial"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 2, 1, 1, 0, "pairwise"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 2, 2, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 64, 512, 1, 0, "modified Bruck"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 40, 512, 1, 0, "linear"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 200, 300000, 1, 0, "pairwise"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 5000, 1024, 1, 0, "modified Bruck"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLTOALL, 64, 512, 1, I, "in-place sendrecv-replace"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 64, 2, 4, C, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 64, 1 << 16, 4, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 40, 2, 4, C, "recursive doubling"}, /* segmented ring, count < p */
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 40, 40, 4, C, "reduce-scatter and allgather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 3, 1250, 4, C, "ring"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 3, 1250, 4, 0, "recursive doubling"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 200, 250, 4, C, "reduce and broadcast"},
    {CS_LIBRARY_OPENMPI, CS_COLL_ALLREDUCE, 3, 50000, 4, 0, "linear reduce and broadcast"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 64, 1024, 4, C, "binomial"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 5, 250, 4, C, "binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 5, 2500, 4, C, "chain"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 3, 1, 4, C, "linear"}, /* Rabenseifner, count < p' */
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 2, 3, 2, C, "reduce-scatter and gather"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 64, 1024, 4, 0, "in-order binary tree"},
    {CS_LIBRARY_OPENMPI, CS_COLL_REDUCE, 5, 1024, 4, 0, "linear"},
    {CS_LIBRARY_SMPI_OMPI, CS_COLL_REDUCE, 2, 3, 2, C, "linear"},
    {CS_LIBRARY_SMPI_OMPI, CS_COLL_ALLTOALL, 64, 512, 1, I, "modified Bruck"},
};

START_TEST(test_library_choice)
{
    const char *name;
    const cs_model model = model_of(choices[_i].library);
    const cs_problem prob =
        call(choices[_i].coll, choices[_i].p, choices[_i].count, choices[_i].elem, choices[_i].flags, 0);
    const double price = cs_library_price(&model, &prob, &name);
    ck_assert_msg(!strcmp(name, choices[_i].name), "%s, %s at p = %d, %zu x %zu B: '%s', not '%s'",
                  cs_library_name(choices[_i].library), cs_coll_name(prob.coll), prob.p, prob.count, prob.elem, name,
                  choices[_i].name);
    ck_assert_double_gt(price, 0.0);
}
END_TEST

static double row(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec)
{
    cs_params params;
    cs_params_init(&params);
    if (spec)
        ck_assert_int_eq(alg->parse(spec, &params), 0);
    return alg->cost(model, prob, &params);
}

/*
 * MPICH's reduce to a root other than 0. A commutative operator up to 2 KiB:
 * ch4's composition_beta (src/mpid/ch4/src/ch4_coll_impl.h lines 415-552)
 * reduces on the node to the root, and MPIR_Reduce_intra_binomial
 * (src/mpi/coll/reduce/reduce_intra_binomial.c lines 90-94) builds its tree
 * around it: the price of root 0. One that does not commute: the tree at
 * rank 0 and a send on (lines 145-150). Above 2 KiB composition_alpha
 * (lines 328-413) reduces to rank 0 and sends on.
 */
START_TEST(test_mpich_reduce_root)
{
    const char *name;
    const cs_model model = model_of(CS_LIBRARY_MPICH);
    const cs_problem at0 = call(CS_COLL_REDUCE, 8, 64, 4, C, 0), at3 = call(CS_COLL_REDUCE, 8, 64, 4, C, 3);
    ck_assert_double_eq_tol(cs_library_price(&model, &at3, &name), row(&cs_reduce_binomial, &model, &at0, NULL), 1e-15);
    const cs_problem user3 = call(CS_COLL_REDUCE, 8, 64, 4, 0, 3);
    ck_assert_double_eq_tol(cs_library_price(&model, &user3, &name), row(&cs_reduce_binomial, &model, &user3, NULL),
                            1e-15);
    ck_assert_double_gt(row(&cs_reduce_binomial, &model, &user3, NULL), row(&cs_reduce_binomial, &model, &at0, NULL));
    const cs_problem big3 = call(CS_COLL_REDUCE, 8, 4096, 4, C, 3), big0 = call(CS_COLL_REDUCE, 8, 4096, 4, C, 0);
    ck_assert_str_eq(name, "binomial");
    ck_assert_double_eq_tol(cs_library_price(&model, &big3, &name),
                            cs_library_folded(&cs_reduce_butterfly, &model, &big3, "b=0"), 1e-15);
    ck_assert_double_gt(cs_library_price(&model, &big3, &name), cs_library_price(&model, &big0, &name));
}
END_TEST

/*
 * Open MPI's trees are built around the root (ompi/mca/coll/base/
 * coll_base_topo.c: ompi_coll_base_topo_build_tree, _build_in_order_bmtree,
 * _build_chain), and its linear reduce receives at the root: a root other
 * than 0 costs nothing more. The in-order binary tree's root is rank p - 1
 * (coll_base_reduce.c lines 513-600, ompi_coll_base_reduce_intra_in_order_
 * binary): another root gets the result in one more message.
 */
static const struct {
    int p;
    size_t count;
    unsigned flags;
    int root;
    const char *name;
    int levels; /* of the in-order binary tree; 0: the price is root 0's */
} ompi_roots[] = {
    {64, 256, C, 5, "binomial", 0},              /* lines 768-769 of coll_tuned_decision_fixed.c */
    {3, 16, C, 2, "linear", 0},                  /* lines 726-741 */
    {5, 256, C, 3, "binary tree", 0},            /* lines 742-755 */
    {16, 256, 0, 15, "in-order binary tree", 4}, /* lines 712-713: the tree's own root */
    {16, 256, 0, 0, "in-order binary tree", 4},  /* then one message on to rank 0 */
    {10, 64, 0, 9, "in-order binary tree", 3},   /* lines 700-702 */
};

START_TEST(test_openmpi_reduce_root)
{
    const char *name;
    const cs_model mo = model_of(CS_LIBRARY_OPENMPI);
    const cs_problem prob =
        call(CS_COLL_REDUCE, ompi_roots[_i].p, ompi_roots[_i].count, 4, ompi_roots[_i].flags, ompi_roots[_i].root);
    cs_problem at0 = prob;
    at0.root = 0;
    const double price = cs_library_price(&mo, &prob, &name);
    ck_assert_str_eq(name, ompi_roots[_i].name);
    if (!ompi_roots[_i].levels) {
        /* the linear tree receives into the root's buffer; rank p - 1 copies its own data there first */
        const int copies = !strcmp(ompi_roots[_i].name, "linear") && prob.root == prob.p - 1;
        const double copy = copies ? mo.rho * 4.0 * (double)prob.count : 0.0;
        ck_assert_double_eq_tol(price, cs_library_price(&mo, &at0, &name) + copy, 1e-15);
        return;
    }
    const double m = 4.0 * (double)prob.count, level = mo.alpha + 3 * mo.overhead + 2 * m * (mo.beta + mo.gamma);
    const double on = prob.root == prob.p - 1 ? 0.0 : mo.alpha + 2 * mo.overhead + mo.beta * m;
    ck_assert_double_eq_tol(price, ompi_roots[_i].levels * level + on, 1e-15);
}
END_TEST

/*
 * Open MPI's trees receive into the root's buffer (coll_base_reduce.c):
 * the binomial one (reduce_generic) its first child's block where the
 * operator commutes, else it copies its own data there first, as our row
 * does (rho m).
 */
START_TEST(test_openmpi_reduce_into_root)
{
    const char *name;
    cs_model mo = model_of(CS_LIBRARY_OPENMPI);
    mo.library_forced[CS_COLL_REDUCE] = 5;
    cs_problem prob = call(CS_COLL_REDUCE, 6, 8192, 4, C, 0);
    const double m = 32768.0, ours = row(&cs_reduce_binomial, &mo, &prob, NULL);
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name), ours - mo.rho * m, 1e-15);
    ck_assert_str_eq(name, "binomial");
    prob.flags = 0;
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name), ours, 1e-15);
}
END_TEST

/*
 * Open MPI's allreduce through a reduce and a broadcast. Basic linear
 * (coll_base_allreduce.c lines 881-912) broadcasts linearly
 * (ompi_coll_base_bcast_intra_basic_linear: the root's p - 1 sends);
 * nonoverlapping (lines 54-86) calls the communicator's broadcast, coll/
 * tuned's fixed decision (coll_tuned_decision_fixed.c lines 512-652): at
 * p = 8..15 from 32 KiB the linear one (lines 575-588), at p = 128..255
 * below 16 KiB a binary tree (lines 605-616).
 */
START_TEST(test_openmpi_allreduce_bcast)
{
    const char *name;
    const cs_model mo = model_of(CS_LIBRARY_OPENMPI);
    cs_model bcast = mo;
    bcast.gamma = 0.0;
    /* basic linear forced (coll_tuned_use_dynamic_rules, coll_tuned_allreduce_algorithm 1), p = 16,
     * 4 KiB: linear reduce, linear broadcast (at p = 3, where the tables pick it, lines 81-86, the
     * model prices a linear broadcast as a binomial one) */
    cs_model forced = mo;
    forced.library_forced[CS_COLL_ALLREDUCE] = 1;
    cs_problem prob = call(CS_COLL_ALLREDUCE, 16, 1024, 4, C, 0), reduce = prob;
    reduce.coll = CS_COLL_REDUCE;
    ck_assert_double_eq_tol(cs_library_price(&forced, &prob, &name),
                            row(&cs_reduce_knomial, &mo, &reduce, "l=1") - mo.rho * 4096.0 +
                                row(&cs_reduce_knomial, &bcast, &reduce, "l=1"),
                            1e-15);
    ck_assert_str_eq(name, "linear reduce and broadcast");
    prob = call(CS_COLL_ALLREDUCE, 3, 32768, 4, 0, 0);
    ck_assert_double_gt(cs_library_price(&mo, &prob, &name), 0.0);
    ck_assert_str_eq(name, "linear reduce and broadcast");
    /* p = 10, 1 MiB, not commutative (lines 89-94): nonoverlapping; its reduce the in-order binary
     * tree (lines 700-711), its broadcast linear */
    prob = call(CS_COLL_ALLREDUCE, 10, 1 << 18, 4, 0, 0);
    reduce = prob;
    reduce.coll = CS_COLL_REDUCE;
    const double m = (double)(1 << 20), level = mo.alpha + 3 * mo.overhead + 2 * m * (mo.beta + mo.gamma);
    ck_assert_double_eq_tol(
        cs_library_price(&mo, &prob, &name),
        3 * level + mo.alpha + 2 * mo.overhead + mo.beta * m + row(&cs_reduce_knomial, &bcast, &reduce, "l=1"), 1e-12);
    ck_assert_str_eq(name, "reduce and broadcast");
    /* SMPI's ompi selector keeps the binomial broadcast it was priced with */
    const cs_model smpi = model_of(CS_LIBRARY_SMPI_OMPI);
    prob = call(CS_COLL_ALLREDUCE, 3, 32768, 4, 0, 0);
    reduce = prob;
    reduce.coll = CS_COLL_REDUCE;
    bcast = smpi;
    bcast.gamma = 0.0;
    ck_assert_double_eq_tol(
        cs_library_price(&smpi, &prob, &name),
        row(&cs_reduce_knomial, &smpi, &reduce, "l=1") + row(&cs_reduce_binomial, &bcast, &reduce, NULL), 1e-15);
}
END_TEST

/* On a network with distance (model.distance), SMPI's MPICH selector's
 * recursive doubling (the scale lab's library) at p = 48 runs on the 32
 * unfolded ranks 0, 2, .., 30, 32, .., 47, farther
 * apart than the 32 the row is priced on: the mirror adds that latency, one
 * pass (cs_model_folded_latency); at a power of two nothing is folded. */
START_TEST(test_mpich_folded_distance)
{
    cs_model flat = model_of(CS_LIBRARY_SMPI_MPICH), hops = flat;
    hops.distance = CS_DISTANCE_XOR;
    hops.alpha_hop = 1e-6;
    const char *name;
    const cs_problem folded = call(CS_COLL_ALLREDUCE, 48, 1, 8, C, 0), whole = call(CS_COLL_ALLREDUCE, 32, 1, 8, C, 0);
    const double extra = cs_model_folded_latency(&hops, 48, 1);
    ck_assert(extra > 0.0);
    const double t_flat = cs_library_price(&flat, &folded, &name), t_hops = cs_library_price(&hops, &folded, &name);
    ck_assert_str_eq(name, "two-level recursive doubling");
    ck_assert_msg(t_hops >= t_flat + extra, "%g vs %g + %g", t_hops, t_flat, extra);
    ck_assert_double_eq(cs_model_folded_latency(&hops, 32, 1), 0.0);
    ck_assert(cs_library_price(&hops, &whole, &name) >= cs_library_price(&flat, &whole, &name));
}
END_TEST

/*
 * MPICH over nodes (8 ranks a node, a node level and a node's link): ch4's
 * compositions for a commutative operator (ch4/generic.json lines 48-148;
 * src/mpid/ch4/src/ch4_coll_impl.h lines 217-286, allreduce's alpha: the
 * node's reduce to its first rank, the first ranks' allreduce, the node's
 * broadcast; lines 328-413, reduce's alpha above 2 KiB: on the node, across
 * the first ranks to rank 0, on to the root), each part MPIR's choice for its
 * communicator (mpir/generic.json; the broadcast's "collective=bcast",
 * lines 2-98: binomial up to 12288 B, then scatter and recursive-doubling
 * allgather on a power of two); an operator that does not commute runs MPIR
 * on the whole communicator (composition_beta, lines 288-304).
 */
START_TEST(test_mpich_on_nodes)
{
    const char *name;
    const cs_model mo = {.alpha = 2e-6,
                         .beta = 8e-11,
                         .gamma = 2.5e-10,
                         .rho = 1e-10,
                         .overhead = 1e-7,
                         .alpha_node = 2e-7,
                         .beta_node = 2.5e-11,
                         .node_levels = 1,
                         .beta_link = 7e-11,
                         .margin = 0.1,
                         .library = CS_LIBRARY_MPICH};
    const cs_model on = cs_model_on_node(&mo), off = cs_model_off_node(&mo, 1);
    cs_model bcast = on;
    bcast.gamma = 0.0;
    cs_problem prob = call(CS_COLL_ALLREDUCE, 64, 64, 8, C, 0);
    prob.ppn = 8;
    cs_problem node = call(CS_COLL_REDUCE, 8, 64, 8, C, 0), leaders = call(CS_COLL_ALLREDUCE, 8, 64, 8, C, 0);
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name),
                            row(&cs_reduce_binomial, &on, &node, NULL) +
                                cs_library_folded(&cs_allreduce_butterfly, &off, &leaders, "b=0") +
                                row(&cs_reduce_binomial, &bcast, &node, NULL),
                            1e-15);
    ck_assert_str_eq(name, "node reduce, allreduce across nodes, node broadcast");
    /* 16 KiB: the node's reduce-scatter and gather, its scatter and allgather */
    prob.count = node.count = leaders.count = 2048;
    prob.bytes = node.bytes = leaders.bytes = 16384;
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name),
                            cs_library_folded(&cs_reduce_butterfly, &on, &node, "b=0") +
                                cs_library_folded(&cs_allreduce_butterfly, &off, &leaders, "b=0") +
                                cs_library_bcast_scatter(&bcast, &node, 0),
                            1e-15);
    /* reduce of 16 KiB to rank 3: on the nodes, across them to rank 0, on to rank 3 on its node */
    prob.coll = leaders.coll = CS_COLL_REDUCE;
    prob.root = 3;
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name),
                            cs_library_folded(&cs_reduce_butterfly, &on, &node, "b=0") +
                                cs_library_folded(&cs_reduce_butterfly, &off, &leaders, "b=0") + on.alpha +
                                2 * mo.overhead + on.beta * 16384.0,
                            1e-15);
    ck_assert_str_eq(name, "node reduce and reduce across nodes");
    /* not commutative: MPIR's recursive doubling on all 64 ranks, priced on the nodes */
    prob = call(CS_COLL_ALLREDUCE, 64, 2048, 8, 0, 0);
    prob.ppn = 8;
    ck_assert_double_eq_tol(cs_library_price(&mo, &prob, &name),
                            cs_library_folded(&cs_allreduce_butterfly, &mo, &prob, "k=0"), 1e-15);
    ck_assert_str_eq(name, "recursive doubling");
}
END_TEST

/* Is size one of the switches? */
static int among(const size_t *sizes, int n, size_t size)
{
    for (int i = 0; i < n; i++)
        if (sizes[i] == size)
            return 1;
    return 0;
}

/*
 * Where the library's choice (its algorithm's name) changes from one size
 * to the next in 1-byte elements, the size is one of cs_library_switches',
 * which the breakpoints sample: every size up to 2100 B and around each
 * larger threshold, p = 2 to 17, every mirror and operator class. And a
 * call of 4- or 8-byte elements that the library runs otherwise than the
 * same bytes in 1-byte elements (its count tests: fewer than p or p') is
 * one that cs_library_count_matters names.
 */
START_TEST(test_library_switches)
{
    static const size_t around[] = {4096, 8192, 12288, 16384, 32768, 65536, 131072, 262144, 524288, 1048576};
    const int libraries[] = {CS_LIBRARY_MPICH, CS_LIBRARY_OPENMPI, CS_LIBRARY_SMPI_MPICH, CS_LIBRARY_SMPI_OMPI};
    const unsigned classes[] = {C, 0, C | I, C | U};
    size_t sizes[64];
    for (int l = 0; l < 4; l++)
        for (int p = 2; p <= 17; p++)
            for (cs_coll coll = 0; coll < CS_COLL_LAST; coll++)
                for (int c = 0; c < 4; c++) {
                    if (coll == CS_COLL_ALLTOALL && (classes[c] & ~(unsigned)I))
                        continue;
                    const cs_model mo = model_of(libraries[l]);
                    const cs_problem variant = call(coll, p, 1, 1, classes[c], 0);
                    const int n = cs_library_switches(&mo, &variant, sizes, 64);
                    const char *before = NULL, *name;
                    size_t last = 0;
                    for (size_t a = 0; a <= sizeof around / sizeof *around; a++) {
                        const size_t lo = a ? around[a - 1] - 8 : 1, hi = a ? around[a - 1] + 8 : 2100;
                        for (size_t m = lo; m <= hi; m++) {
                            const cs_problem at = call(coll, p, m, 1, classes[c], 0);
                            cs_library_price(&mo, &at, &name);
                            if (m == last + 1 && before && strcmp(name, before))
                                ck_assert_msg(among(sizes, n, m), "%s %s p = %d, class %u: %s up to %zu B, then %s",
                                              cs_library_name(libraries[l]), cs_coll_name(coll), p, classes[c], before,
                                              m - 1, name);
                            before = name;
                            last = m;
                        }
                    }
                    if (coll == CS_COLL_ALLTOALL)
                        continue;
                    for (size_t elem = 4; elem <= 8; elem += 4)
                        for (size_t count = 1; count <= 8 * (size_t)p + 1; count++) {
                            const cs_problem real = call(coll, p, count, elem, classes[c], 0),
                                             bytes = call(coll, p, count * elem, 1, classes[c], 0);
                            const char *as_bytes;
                            cs_library_price(&mo, &real, &name);
                            cs_library_price(&mo, &bytes, &as_bytes);
                            if (strcmp(name, as_bytes))
                                ck_assert_msg(cs_library_count_matters(&mo, &real),
                                              "%s %s p = %d, class %u: %zu x %zu B run %s, as bytes %s",
                                              cs_library_name(libraries[l]), cs_coll_name(coll), p, classes[c], count,
                                              elem, name, as_bytes);
                        }
                }
}
END_TEST

Suite *make_library_suite(void)
{
    Suite *s = suite_create("library");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_library_choice, 0, sizeof choices / sizeof choices[0]);
    tcase_add_test(tc, test_mpich_reduce_root);
    tcase_add_loop_test(tc, test_openmpi_reduce_root, 0, sizeof ompi_roots / sizeof ompi_roots[0]);
    tcase_add_test(tc, test_openmpi_reduce_into_root);
    tcase_add_test(tc, test_openmpi_allreduce_bcast);
    tcase_add_test(tc, test_mpich_on_nodes);
    tcase_add_test(tc, test_mpich_folded_distance);
    tcase_add_test(tc, test_library_switches);
    suite_add_tcase(s, tc);
    return s;
}
