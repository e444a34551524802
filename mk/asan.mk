# make check-asan: the library, the unit suites and a subset of the MPI tests under
# AddressSanitizer (with LeakSanitizer) and UndefinedBehaviorSanitizer (gcc's runtimes).
# Everything is built under $(B)/asan with its own objects; scripts/collshim-check-asan runs it
# (what runs, the sanitizer options, how the runtime is preloaded into MPICH programs).
# COLLSHIM_ASAN_FULL=1 make check-asan runs everything (see the script).

# This fragment is read before the Makefile's first rule: it must not take the default goal.
ASAN_SAVED_GOAL := $(.DEFAULT_GOAL)

ASAN_B := $(B)/asan
# Every finding is fatal: UBSan does not recover, ASan halts on its first report (its default).
SAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
             -fno-omit-frame-pointer
ASAN_CFLAGS := $(ALLCFLAGS) -O1 $(SAN_FLAGS)

ASAN_CORE_OBJ := $(CORE_SRC:%.c=$(ASAN_B)/obj/%.o)
ASAN_SHIM_OBJ := $(SHIM_SRC:%.c=$(ASAN_B)/obj/%.o)
ASAN_UNIT_OBJ := $(UNIT_SRC:%.c=$(ASAN_B)/obj/%.o)
# The pieces build (the Makefile's PIECES_LIB): the same sources, the same macros.
ASAN_PIECES_SRC := $(PIECES_OBJ:$(B)/obj-pieces/%.o=%.c)
ASAN_PIECES_OBJ := $(ASAN_PIECES_SRC:%.c=$(ASAN_B)/obj-pieces/%.o)
ASAN_PIECES_DEFS := -DCS_WINDOW_PIECE_BYTES=24 -DCS_EXEC_MAX_MSG=40

ASAN_LIB        := $(ASAN_B)/mpich/libcollshim.so
ASAN_PIECES_LIB := $(ASAN_B)/pieces/libcollshim.so
ASAN_YIELD      := $(ASAN_B)/libcs_yield.so
ASAN_FAULT      := $(if $(wildcard tests/mpi/fault/cs_fault.c),$(ASAN_B)/libcs_fault.so)
ASAN_UNIT       := $(ASAN_B)/unit_tests
ASAN_TOOLS      := $(TOOL_SRC:tools/%.c=$(ASAN_B)/%)
# The MPI programs (C only), built with the sanitizers too: their stack and global buffers get
# redzones, and ASan's runtime is linked into the executable. scripts/collshim-check-asan picks
# the subset that runs.
ASAN_MPI_TESTS := $(MPI_TEST_SRC:tests/mpi/%.c=$(ASAN_B)/tests/%)

.PHONY: check-asan asan-build

asan-build: $(ASAN_LIB) $(ASAN_PIECES_LIB) $(ASAN_YIELD) $(ASAN_FAULT) $(ASAN_UNIT) $(ASAN_TOOLS) \
            $(ASAN_MPI_TESTS)

check-asan: asan-build
	MPIEXEC="$(MPIEXEC)" MPICC="$(MPICC)" scripts/collshim-check-asan $(ASAN_B)

$(ASAN_LIB): $(ASAN_CORE_OBJ) $(ASAN_SHIM_OBJ)
	@mkdir -p $(dir $@)
	$(call cs_say,LD)$(MPICC) $(SAN_FLAGS) -shared -o $@ $^ $(YAML_LIBS)

$(ASAN_PIECES_LIB): $(filter-out $(ASAN_PIECES_SRC:%.c=$(ASAN_B)/obj/%.o),$(ASAN_CORE_OBJ) $(ASAN_SHIM_OBJ)) \
                    $(ASAN_PIECES_OBJ)
	@mkdir -p $(dir $@)
	$(call cs_say,LD)$(MPICC) $(SAN_FLAGS) -shared -o $@ $^ $(YAML_LIBS)

$(ASAN_B)/obj-pieces/%.o: %.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ASAN_CFLAGS) $(ASAN_PIECES_DEFS) -MMD -MP -c -o $@ $<

$(ASAN_B)/obj/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ASAN_CFLAGS) $(CHECK_CFLAGS) -Itests/unit -MMD -MP -c -o $@ $<

$(ASAN_B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) $(ASAN_CFLAGS) -MMD -MP -c -o $@ $<

$(ASAN_UNIT): $(ASAN_UNIT_OBJ) $(ASAN_CORE_OBJ)
	$(call cs_say,LD)$(MPICC) $(SAN_FLAGS) -o $@ $^ $(CHECK_LIBS) $(YAML_LIBS) -lm

# The tools (collshim-hull, ...), checked by tests/tools/check-collshim-* as in make check-unit.
$(ASAN_B)/collshim-%: tools/collshim-%.c $(ASAN_CORE_OBJ)
	$(call cs_say,LD)$(MPICC) $(ASAN_CFLAGS) -o $@ $^ $(YAML_LIBS) -lm

$(ASAN_YIELD): tests/mpi/yield/ucx_yield.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(CC) -O1 -g -Wall -Wextra $(SAN_FLAGS) -fPIC -shared -o $@ $< -ldl

$(ASAN_B)/libcs_fault.so: tests/mpi/fault/cs_fault.c
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) -O1 -g -Wall -Wextra $(SAN_FLAGS) -fPIC -shared -o $@ $< -ldl

$(ASAN_B)/tests/%: tests/mpi/%.c tests/mpi/cs_test.h
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(MPICC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra $(SAN_FLAGS) -Itests/mpi -o $@ $< -lm

-include $(ASAN_CORE_OBJ:.o=.d) $(ASAN_SHIM_OBJ:.o=.d) $(ASAN_UNIT_OBJ:.o=.d) $(ASAN_PIECES_OBJ:.o=.d)

# An empty .DEFAULT_GOAL lets the next target parsed (the Makefile's `all`) be the default.
.DEFAULT_GOAL := $(ASAN_SAVED_GOAL)
