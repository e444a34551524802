/*
 * Open MPI 4.1's fixed decisions as tables (coll/tuned's
 * coll_tuned_decision_fixed.c; library_openmpi_tables.c): per collective,
 * bands of communicator size, each a list of message-size steps naming an
 * algorithm by Open MPI's number. Priced in library_openmpi.c.
 */
#ifndef CS_LIBRARY_OPENMPI_TABLES_H
#define CS_LIBRARY_OPENMPI_TABLES_H

#include <stddef.h>

typedef struct cs_ompi_step {
    size_t below; /* message sizes up to here, exclusive; 0: every size left */
    int alg;
} cs_ompi_step;

typedef struct cs_ompi_band {
    int below_p; /* communicator sizes up to here, exclusive; 0: every size left */
    const cs_ompi_step *steps;
} cs_ompi_band;

/* The tables, each ending with a band of below_p 0 (numbers in library_openmpi_tables.c). */
extern const cs_ompi_band cs_ompi_alltoall_table[], cs_ompi_allreduce_table[], cs_ompi_allreduce_noncommutative[],
    cs_ompi_reduce_table[], cs_ompi_reduce_noncommutative[], cs_ompi_bcast_table[];

#endif
