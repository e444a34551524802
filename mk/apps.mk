# make apps: real applications natively and under collshim (scripts/collshim-apps).
# Not part of `make check`: it needs nwchem-mpich, scalapack-mpi-test, lammps and lammps-examples
# (`scripts/collshim-apps --install-deps` installs them; without it a missing application is named
# and skipped) and runs for minutes. NWChem and
# ScaLAPACK's xdlu/xdqr are MPICH programs (build/mpich/libcollshim.so), LAMMPS an Open MPI one
# (build/openmpi/libcollshim.so). Writes bench/apps/results.txt; the runs stay in build/apps/.
# APPS_REPS pairs (native, shim) per application and p, APPS_PROCS the process counts.

APPS_REPS  ?= 3
APPS_PROCS ?= 2 4

.PHONY: apps

# (OMPI_LIB is set by openmpi.mk, read after this fragment: named in the recipe.)
apps: $(LIB) $(YIELD) $(B)/collshim-report
	$(if $(OMPI_LIB),$(MAKE) $(OMPI_LIB))
	REPS='$(APPS_REPS)' PROCS='$(APPS_PROCS)' scripts/collshim-apps $(B)
