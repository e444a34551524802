/*
 * Open MPI 4.1's fixed decisions (coll_tuned_decision_fixed.c), which SimGrid
 * 3.32 SMPI's ompi selector copies: the thresholds, transcribed
 * (library_openmpi_tables.h).
 */
#include "select/library_openmpi_tables.h"

#define CS_STEPS(...) ((const cs_ompi_step[]){__VA_ARGS__})

/* 1 linear, 2 pairwise, 3 modified Bruck, 4 linear_sync, 5 two_proc */
const cs_ompi_band cs_ompi_alltoall_table[] = {
    {3, CS_STEPS({2, 2}, {4, 5}, {16, 2}, {64, 5}, {256, 2}, {4096, 5}, {32768, 2}, {262144, 4}, {1048576, 5}, {0, 2})},
    {8, CS_STEPS({8192, 4}, {16384, 1}, {65536, 4}, {524288, 1}, {1048576, 2}, {0, 1})},
    {16, CS_STEPS({262144, 4}, {0, 1})},
    {32, CS_STEPS({4, 4}, {512, 3}, {8192, 4}, {32768, 1}, {262144, 4}, {524288, 1}, {0, 4})},
    {64, CS_STEPS({512, 3}, {524288, 1}, {0, 4})},
    {128, CS_STEPS({1024, 3}, {2048, 1}, {4096, 4}, {262144, 1}, {0, 2})},
    {256, CS_STEPS({1024, 3}, {2048, 4}, {262144, 1}, {0, 2})},
    {512, CS_STEPS({1024, 3}, {8192, 4}, {32768, 1}, {0, 2})},
    {1024, CS_STEPS({512, 3}, {8192, 4}, {16384, 1}, {131072, 4}, {262144, 1}, {0, 2})},
    {2048, CS_STEPS({512, 3}, {1024, 4}, {2048, 1}, {16384, 4}, {262144, 1}, {0, 4})},
    {4096, CS_STEPS({1024, 3}, {4096, 4}, {8192, 1}, {131072, 4}, {0, 1})},
    {0, CS_STEPS({2048, 3}, {8192, 4}, {16384, 1}, {32768, 4}, {65536, 1}, {0, 4})},
};

/* 1 basic linear, 2 nonoverlapping, 3 recursive doubling, 4 ring, 5 segmented ring, 6 Rabenseifner */
const cs_ompi_band cs_ompi_allreduce_table[] = {
    {4, CS_STEPS({8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}, {0, 6})},
    {8, CS_STEPS({16, 4}, {8192, 3}, {0, 6})},
    {16, CS_STEPS({8192, 3}, {0, 6})},
    {32, CS_STEPS({64, 5}, {4096, 3}, {0, 6})},
    {64, CS_STEPS({128, 5}, {0, 6})},
    {128, CS_STEPS({262144, 3}, {0, 6})},
    {256, CS_STEPS({131072, 2}, {262144, 3}, {0, 6})},
    {512, CS_STEPS({4096, 2}, {0, 6})},
    {2048, CS_STEPS({2048, 2}, {16384, 3}, {0, 6})},
    {4096, CS_STEPS({2048, 2}, {4096, 5}, {16384, 3}, {0, 6})},
    {0, CS_STEPS({2048, 2}, {16384, 5}, {32768, 3}, {0, 6})},
};

const cs_ompi_band cs_ompi_allreduce_noncommutative[] = {
    {4, CS_STEPS({131072, 3}, {0, 1})},
    {8, CS_STEPS({0, 3})},
    {16, CS_STEPS({1048576, 3}, {0, 2})},
    {128, CS_STEPS({0, 3})},
    {256, CS_STEPS({131072, 2}, {524288, 3}, {0, 2})},
    {512, CS_STEPS({4096, 2}, {524288, 3}, {0, 2})},
    {0, CS_STEPS({2048, 2}, {0, 3})},
};

/* 1 linear, 2 chain, 3 pipeline, 4 binary, 5 binomial, 6 in-order binary, 7 Rabenseifner */
const cs_ompi_band cs_ompi_reduce_table[] = {
    {4, CS_STEPS({8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}, {0, 3})},
    {8, CS_STEPS({4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}, {0, 1})},
    {16, CS_STEPS({8192, 4}, {0, 5})},
    {32, CS_STEPS({4096, 4}, {0, 5})},
    {256, CS_STEPS({0, 5})},
    {512, CS_STEPS({8192, 5}, {16384, 6}, {0, 5})},
    {2048, CS_STEPS({0, 5})},
    {4096, CS_STEPS({512, 5}, {1024, 6}, {8192, 5}, {16384, 6}, {0, 5})},
    {0, CS_STEPS({16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}, {0, 5})},
};

const cs_ompi_band cs_ompi_reduce_noncommutative[] = {
    {4, CS_STEPS({8, 6}, {0, 1})},
    {8, CS_STEPS({0, 1})},
    {16, CS_STEPS({1024, 6}, {8192, 1}, {16384, 6}, {262144, 1}, {0, 6})},
    {128, CS_STEPS({0, 6})},
    {256, CS_STEPS({512, 6}, {1024, 1}, {0, 6})},
    {0, CS_STEPS({0, 6})},
};

/* 1 basic linear, 2 chain, 3 pipeline, 4 split binary tree, 5 binary tree, 6 binomial, 7 knomial,
 * 8 scatter and allgather, 9 scatter and ring allgather: ompi_coll_tuned_bcast_intra_dec_fixed,
 * which nonoverlapping's broadcast runs */
const cs_ompi_band cs_ompi_bcast_table[] = {
    {4, CS_STEPS({32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1},
                 {1048576, 6}, {0, 5})},
    {8, CS_STEPS({64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}, {0, 2})},
    {16, CS_STEPS({8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}, {0, 1})},
    {32, CS_STEPS({4096, 7}, {1048576, 6}, {0, 8})},
    {64, CS_STEPS({2048, 6}, {0, 7})},
    {128, CS_STEPS({0, 7})},
    {256, CS_STEPS({2, 6}, {16384, 5}, {32768, 1}, {65536, 5}, {0, 7})},
    {1024, CS_STEPS({16384, 7}, {32768, 4}, {0, 7})},
    {2048, CS_STEPS({524288, 7}, {0, 8})},
    {4096, CS_STEPS({262144, 7}, {0, 8})},
    {0, CS_STEPS({8192, 7}, {16384, 5}, {262144, 7}, {0, 8})},
};
