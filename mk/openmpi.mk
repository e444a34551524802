# The Open MPI build (docs/mpi-libraries.md): when $(MPICC_OPENMPI) exists, `make` also builds
# build/openmpi/libcollshim.so from the same sources with Open MPI's wrapper (its objects in
# build/openmpi/obj), with the Fortran entry points that only Open MPI needs (src/shim/fortran.c:
# its Fortran bindings call PMPI_* directly), and build/openmpi/collshim-calibrate. `make install`
# (mk/install.mk) puts them in $(PREFIX)/lib/openmpi/ and $(PREFIX)/bin/collshim-calibrate.openmpi.
# `make check` runs the MPI tests under Open MPI (check-mpi-openmpi: C and Fortran programs built
# with its wrappers, under its mpirun) and the wrong build both ways
# (check-wrong-build: each library preloaded into the other's programs steps aside).
#
# Variables: MPICC_OPENMPI (mpicc.openmpi), MPIF90_OPENMPI (mpif90.openmpi), MPIEXEC_OPENMPI
# (mpirun.openmpi; the test script adds --oversubscribe).

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_openmpi_default_goal := $(.DEFAULT_GOAL)

MPICC_OPENMPI   ?= mpicc.openmpi
MPIF90_OPENMPI  ?= mpif90.openmpi
MPIEXEC_OPENMPI ?= mpirun.openmpi
HAVE_OPENMPI    := $(shell command -v $(MPICC_OPENMPI) 2>/dev/null)

OMPI_B   := $(B)/openmpi
OMPI_LIB := $(if $(HAVE_OPENMPI),$(OMPI_B)/libcollshim.so)
OMPI_OBJ := $(CORE_SRC:%.c=$(OMPI_B)/obj/%.o) $(SHIM_SRC:%.c=$(OMPI_B)/obj/%.o)
OMPI_TESTS := $(MPI_TEST_SRC:tests/mpi/%.c=$(OMPI_B)/tests/%) $(F_TEST_SRC:tests/mpi/%.f90=$(OMPI_B)/tests/%)

.PHONY: check-mpi-openmpi check-wrong-build

# The tools that run MPI (collshim-calibrate: it times the library's collectives) for Open MPI,
# with its wrapper and the Open MPI build's objects: build/openmpi/collshim-calibrate, installed
# as collshim-calibrate.openmpi. The others (report, hull, model) start no MPI: one build serves.
# CAL_SRC (mk/calibrate.mk) and the main file in tools/, whatever files calibrate is made of.
OMPI_TOOLS := $(if $(HAVE_OPENMPI),$(OMPI_B)/collshim-calibrate)

all: $(OMPI_LIB) $(OMPI_TOOLS)

$(OMPI_B)/collshim-calibrate: $(wildcard tools/collshim-calibrate.c) $(CAL_SRC) $(CAL_HDR) tools/cs_tool.h \
                              $(CORE_SRC:%.c=$(OMPI_B)/obj/%.o)
	$(call cs_say,CC)$(MPICC_OPENMPI) $(ALLCFLAGS) -o $@ $(filter %.c %.o,$^) $(YAML_LIBS) -lm

# Linked as the MPICH build is (the Makefile's cs_link_preload): no libmpi.so.40 needed, every
# reference to it weak, so that in an MPICH program it resolves to nothing and steps aside.
$(OMPI_B)/libcollshim.so: $(OMPI_OBJ)
	$(call cs_say,LD)$(call cs_link_preload,$^)

$(OMPI_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC_OPENMPI) $(ALLCFLAGS) -MMD -MP -c -o $@ $<

$(OMPI_B)/libcs_fault.so: tests/mpi/fault/cs_fault.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC_OPENMPI) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl

$(OMPI_B)/tests/%: tests/mpi/%.c tests/mpi/cs_test.h
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC_OPENMPI) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Itests/mpi -o $@ $< -lm

$(OMPI_B)/tests/%: tests/mpi/%.f90 tests/mpi/fortran_body.inc
	@mkdir -p $(dir $@) $(OMPI_B)/fmod
	$(call cs_say,FC)$(MPIF90_OPENMPI) $(FFLAGS_TEST) -J$(OMPI_B)/fmod -Itests/mpi -o $@ $<

check-mpi-openmpi: $(OMPI_LIB) $(OMPI_B)/libcs_fault.so $(OMPI_TESTS) $(TOOLS)
	COLLSHIM_TEST_MPI=openmpi MPIEXEC="$(MPIEXEC_OPENMPI)" scripts/collshim-test-mpi $(B)

check-wrong-build: $(LIB) $(OMPI_LIB) $(MPI_TESTS) $(F_TESTS) $(OMPI_TESTS)
	MPIEXEC="$(MPIEXEC)" MPIEXEC_OPENMPI="$(MPIEXEC_OPENMPI)" scripts/collshim-test-wrong-build $(B)

ifneq ($(HAVE_OPENMPI),)
CHECK_EXTRA += check-mpi-openmpi check-wrong-build
else
# Open MPI is optional: make check says that its phases did not run, and why.
CHECK_NOT_RUN += check-mpi-openmpi check-wrong-build
CHECK_NOT_RUN_WHY_check-mpi-openmpi := $(MPICC_OPENMPI) not found
CHECK_NOT_RUN_WHY_check-wrong-build := $(MPICC_OPENMPI) not found
endif

-include $(OMPI_OBJ:.o=.d)

.DEFAULT_GOAL := $(cs_openmpi_default_goal)
