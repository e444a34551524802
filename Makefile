# collshim: make, make check, make demo, make install. MPICC, PREFIX overridable; V=1 prints
# the commands.
#
# One library per MPI installed (docs/mpi-libraries.md): build/mpich/libcollshim.so with MPICH's
# wrapper, and build/openmpi/libcollshim.so with Open MPI's when it is there (mk/openmpi.mk).
# Each wrapper is named explicitly, never the plain mpicc that Debian's alternatives point at
# whichever library was installed last. The tools, unit tests and test programs are built with
# MPICH's, in build/; collshim-calibrate, which times the library's collectives, also with Open
# MPI's (build/openmpi/collshim-calibrate).

MPICC_MPICH ?= mpicc.mpich
MPICC   ?= $(MPICC_MPICH)
MPIF90  ?= mpif90.mpich
MPIEXEC ?= mpiexec.mpich
PREFIX  ?= /usr/local
PKG_CONFIG ?= pkg-config

YAML_CFLAGS := $(shell $(PKG_CONFIG) --cflags yaml-0.1)
YAML_LIBS   := $(shell $(PKG_CONFIG) --libs yaml-0.1)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell $(PKG_CONFIG) --libs check 2>/dev/null)

CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wno-unused-parameter -Werror=implicit-function-declaration
ALLCFLAGS := -std=c11 -D_GNU_SOURCE $(CFLAGS) $(WARN) -fPIC -fvisibility=hidden -Isrc -Iinclude -Itools $(YAML_CFLAGS)

B := build

# Quiet builds: one short line a compile or link (`CC build/obj/src/x.o`), so that a warning
# stands out; V=1 prints every command as it runs. A rule's recipe starts with
# $(call cs_say,WHAT) (nothing under V=1), then the command itself; $(Q) before a command that
# is not a compile hides it but under V=1.
V ?= 0
ifeq ($(V),1)
Q :=
cs_say =
else
Q := @
cs_say = @printf '  %-7s %s\n' '$(1)' '$@';
endif

# Everything but the MPI entry points: linked into the library and into the unit tests.
CORE_SRC := $(sort $(wildcard src/*.c src/config/*.c src/model/*.c src/select/*.c \
              src/sched/*.c src/coll/*.c src/coll/*/*.c src/log/*.c))
SHIM_SRC := $(sort $(wildcard src/shim/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(B)/obj/%.o)
SHIM_OBJ := $(SHIM_SRC:%.c=$(B)/obj/%.o)

UNIT_SRC := $(sort $(wildcard tests/unit/*.c))
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/obj/%.o)

MPI_TEST_SRC := $(sort $(wildcard tests/mpi/*.c))
MPI_TESTS    := $(MPI_TEST_SRC:tests/mpi/%.c=$(B)/tests/%)
F_TEST_SRC   := $(sort $(wildcard tests/mpi/*.f90))
F_TESTS      := $(F_TEST_SRC:tests/mpi/%.f90=$(B)/tests/%)

TOOL_SRC     := $(sort $(wildcard tools/*.c))
TOOLS        := $(TOOL_SRC:tools/%.c=$(B)/%)

EXAMPLE_SRC  := $(sort $(wildcard examples/*.c))
EXAMPLES     := $(EXAMPLE_SRC:examples/%.c=$(B)/examples/%)

LIB   := $(B)/mpich/libcollshim.so
YIELD := $(B)/libcs_yield.so
FAULT := $(B)/libcs_fault.so
# A test build whose window API cuts every vector into 24-byte pieces (src/shim/window.c) and
# whose executor cuts every message into pieces of at most 40 bytes (src/sched/exec.c).
PIECES_LIB := $(B)/pieces/libcollshim.so
PIECES_OBJ := $(B)/obj-pieces/src/shim/window.o $(B)/obj-pieces/src/sched/exec.o

# Further targets (make fuzz, make check-asan, ...), one fragment each; a
# fragment may add a phase of `make check` to CHECK_EXTRA, and one it leaves out for want of a
# tool to CHECK_NOT_RUN, with the reason in CHECK_NOT_RUN_WHY_<phase>.
CHECK_EXTRA :=
CHECK_NOT_RUN :=
# A fragment's rule read first must not become the goal: `make` builds `all`.
.DEFAULT_GOAL := all
include $(sort $(wildcard mk/*.mk))

.PHONY: check-full all check check-unit check-mpi demo install clean format

all: $(LIB) $(TOOLS)

# The preloaded library names no MPI library it needs, and its references to MPI's functions and
# data are weak (src/shim/abi.c says why): they bind to the program's MPI library. Needed, the
# build's library would enter the process beside the program's, ahead of it when the program
# reaches its library through another (a Fortran program's libmpichfort or libmpi_mpifh), and
# take its calls: the wrong build's Fortran programs would die in MPI_Init. The objects are
# joined (ld -r), their undefined MPI symbols weakened, then linked: $(call cs_link_preload,OBJS).
cs_link_preload = $(LD) -r -o $@.o $(1) && \
	nm -u $@.o | awk '{print $$2}' | grep -E '^(P?MPIX?_|ompi_|OMPI_|mpi_)' >$@.weak; \
	objcopy --weaken-symbols=$@.weak $@.o && \
	$(CC) -shared -o $@ $@.o $(YAML_LIBS) -lm && rm -f $@.o $@.weak

$(LIB): $(CORE_OBJ) $(SHIM_OBJ)
	@mkdir -p $(dir $@)
	$(call cs_say,LD)$(call cs_link_preload,$^)

$(PIECES_LIB): $(filter-out $(B)/obj/src/sched/exec.o,$(CORE_OBJ)) \
              $(filter-out $(B)/obj/src/shim/window.o,$(SHIM_OBJ)) $(PIECES_OBJ)
	@mkdir -p $(dir $@)
	$(call cs_say,LD)$(MPICC) -shared -o $@ $^ $(YAML_LIBS)

$(B)/obj-pieces/%.o: %.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -DCS_WINDOW_PIECE_BYTES=24 -DCS_EXEC_MAX_MSG=40 -MMD -MP -c -o $@ $<

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -MMD -MP -c -o $@ $<

$(B)/obj/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) $(CHECK_CFLAGS) -Itests/unit -MMD -MP -c -o $@ $<

$(B)/unit_tests: $(UNIT_OBJ) $(CORE_OBJ)
	$(call cs_say,LD)$(MPICC) -o $@ $^ $(CHECK_LIBS) $(YAML_LIBS) -lm

# The test suite's UCX progress wrapper: MPICH's busy polling yields the core, for oversubscribed runs.
$(YIELD): tests/mpi/yield/ucx_yield.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(CC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl

# The test suite's fault injection (tests/mpi/fault/cs_fault.c), preloaded by test_faults' runs.
$(FAULT): tests/mpi/fault/cs_fault.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl

$(B)/tests/%: tests/mpi/%.c tests/mpi/cs_test.h
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Itests/mpi -o $@ $< -lm

# FFLAGS_TEST: mpif.h declares no interfaces, and gfortran 10 and later reject a buffer argument
# passed as integer in one call and double precision in the next unless allowed.
FFLAGS_TEST := -O1 -g -fallow-argument-mismatch
$(B)/tests/%: tests/mpi/%.f90 tests/mpi/fortran_body.inc
	@mkdir -p $(dir $@) $(B)/fmod
	$(call cs_say,FC)$(MPIF90) $(FFLAGS_TEST) -J$(B)/fmod -Itests/mpi -o $@ $<

# Tools (collshim-hull, ...) link the library's code statically.
$(B)/collshim-%: tools/collshim-%.c $(CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -o $@ $^ $(YAML_LIBS) -lm

$(B)/examples/%: examples/%.c include/collshim.h
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Iinclude -o $@ $< -lm

# make check: every phase in turn, each one `make PHASE` of its own (scripts/collshim-check), so
# that a failed phase, or one whose build failed, does not keep the others from running; at the
# end one line a phase (passed, failed, not run and why) and "N passed, N failed" counting the
# phases. Each phase's output is also kept in $(B)/check-logs/PHASE.log. Every phase still runs
# alone: make check-mpi, make check-docs, ...
# CHECK_PHASES: the phases, in this order; make check CHECK_PHASES="check-docs check-layers" runs
# those alone, with the summary (and without the lines of the phases a fragment left out).
CHECK_PHASES = check-unit check-mpi $(CHECK_EXTRA)
check:
	@scripts/collshim-check --make "$(MAKE)" --logs $(B)/check-logs \
	    $(if $(filter file,$(origin CHECK_PHASES)),$(foreach s,$(CHECK_NOT_RUN),--not-run '$(s)=$(CHECK_NOT_RUN_WHY_$(s))')) \
	    $(CHECK_PHASES)

# The unit suites in two processes, one per core (tests/unit/shard.h): every suite with the
# first half of the heaviest loops, and the coll, window and pricer suites with the other half.
# Both write to the terminal as they go, a line a suite as it ends (its tests, failures, seconds;
# tests/unit/check_main.c), each line marked with its half: minutes of silence looked like a hang.
check-unit: $(B)/unit_tests $(TOOLS)
	@echo "$(B)/unit_tests: every suite, half of the simulator loops here (0/2) and half beside it (1/2)"
	@{ CS_UNIT_SHARD=1/2 CK_RUN_SUITE=coll $(B)/unit_tests && \
	   CS_UNIT_SHARD=1/2 CK_RUN_SUITE=window $(B)/unit_tests && \
	   CS_UNIT_SHARD=1/2 CK_RUN_SUITE=pricer $(B)/unit_tests; } & other=$$!; \
	CS_UNIT_SHARD=0/2 $(B)/unit_tests; rc=$$?; wait $$other; rc1=$$?; [ $$rc = 0 ] && [ $$rc1 = 0 ]
	tests/tools/check-collshim-hull $(B)
	tests/tools/check-collshim-model $(B)

check-mpi: $(LIB) $(TOOLS) $(PIECES_LIB) $(YIELD) $(FAULT) $(MPI_TESTS) $(F_TESTS)
	MPIEXEC="$(MPIEXEC)" scripts/collshim-test-mpi $(B)
	MPIEXEC="$(MPIEXEC)" tests/tools/check-node-map $(B)
	MPIEXEC="$(MPIEXEC)" tests/tools/check-export $(B)

# make check with the MPI tests' full matrix (scripts/collshim-test-mpi, COLLSHIM_TEST_FULL):
# every p of the any-p sweeps up to 32, every (type, operator) pair at every p; about an hour on
# 2 cores.
check-full:
	$(MAKE) check COLLSHIM_TEST_FULL=1

# The Open MPI build too (when Open MPI is there: OMPI_LIB, mk/openmpi.mk): the demo's programs
# are MPICH's, but a user who tries the demo then preloads the library into an Open MPI program.
demo: $(LIB) $(OMPI_LIB) $(YIELD) $(EXAMPLES)
	$(Q)MPIEXEC="$(MPIEXEC)" scripts/collshim-demo $(B)

# make install and make check-install (mk/install.mk, which says what goes where): the builds first.
install check-install: $(LIB) $(OMPI_LIB) $(TOOLS) $(OMPI_TOOLS)

# Every C file of the tree as .clang-format says (scripts/collshim-check-tree, a part of make check,
# fails on one that differs).
format:
	git ls-files -z '*.c' '*.h' | xargs -0 clang-format -i

clean:
	rm -rf $(B)

-include $(CORE_OBJ:.o=.d) $(SHIM_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(PIECES_OBJ:.o=.d)
