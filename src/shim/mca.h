/*
 * Whether the user may have set Open MPI's coll/tuned parameters, read
 * without starting MPI_T (which costs Open MPI 4.1 some 0.2 s a process).
 */
#ifndef CS_MCA_H
#define CS_MCA_H

/* 1 if a coll_tuned_* parameter may be set where Open MPI reads its
 * parameters: the environment (OMPI_MCA_*, which mpirun --mca also sets),
 * the parameter files (mca_base_param_files, default the user's
 * ~/.openmpi/mca-params.conf and the system's openmpi-mca-params.conf, and
 * the override file) and aggregate parameter sets (mpirun -am); also where
 * a file named cannot be read through. 0: none can be. */
int cs_mca_tuned_may_be_set(void);

#endif
