/*
 * What the library mirrors share (select/library.c): a row's price as the
 * library runs it, the fold to a power of two MPICH and Open MPI put before
 * recursive doubling and Rabenseifner's algorithm, and Open MPI's defaults.
 */
#ifndef CS_LIBRARY_ROWS_H
#define CS_LIBRARY_ROWS_H

#include "coll/coll.h"

extern const cs_alg cs_alltoall_direct, cs_alltoall_bruck, cs_alltoall_linear;
extern const cs_alg cs_allreduce_butterfly, cs_reduce_butterfly, cs_reduce_binomial, cs_reduce_knomial;

/* alg's price with the parameters spec names (NULL: none), tuned where it
 * leaves some open. */
double cs_library_row(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec);

/* alg over p' = 2^floor(log2 p) ranks after the first 2(p - p') ranks fold
 * in pairs (even into odd), the result back to them (allreduce), and on to a
 * root other than 0 (reduce). */
double cs_library_folded(const cs_alg *alg, const cs_model *model, const cs_problem *prob, const char *spec);

/* A broadcast of prob->bytes from rank 0 by a binomial scatter, then an
 * allgather by recursive doubling (ring 0) or a ring (ring 1), each step
 * alpha + 2o, (p - 1)/p m a phase; model without gamma. */
double cs_library_bcast_scatter(const cs_model *model, const cs_problem *prob, int ring);

/* MPICH's MPIR algorithm named mpir ("MPIR_Allreduce_intra_recursive_doubling")
 * for prob, as MPICH 4.0.2 runs it: its price and its name in words; -1: not
 * one of prob's collective we price (config/library_rules.c lists them). */
double cs_library_mpich_alg(const cs_model *model, const cs_problem *prob, const char *mpir, const char **name);

/* Open MPI 4.1's algorithm number alg of prob's collective (fanout: the
 * chain's, 0: its default), as coll/base runs it, with its fallbacks. */
double cs_library_openmpi_alg(const cs_model *model, const cs_problem *prob, int alg, int fanout, const char **name);

/* Open MPI 4.1's fixed decisions (smpi 0), or SimGrid 3.32 SMPI's ompi
 * selector, which copies them and runs its own algorithms (smpi 1). */
double cs_library_openmpi(const cs_model *model, const cs_problem *prob, int smpi, const char **name);

/* What Open MPI runs for prob (smpi: SMPI's copy), as one number: the
 * algorithm after coll/base's fallbacks on the count (the ring, Rabenseifner's),
 * and nonoverlapping's reduce and broadcast; no pricing. Alltoall: 0 (its
 * choice tests no count). */
unsigned cs_library_openmpi_choice(const cs_model *model, const cs_problem *prob, int smpi);

/* The message sizes (bytes) at which Open MPI's choice for prob's p and
 * flags changes (smpi: SMPI's copy), and its count tests (count < p, < p')
 * as bytes of 1-byte elements; unsorted, up to max: how many. */
int cs_library_openmpi_switches(const cs_model *model, const cs_problem *prob, int smpi, size_t *sizes, int max);

#endif
