# make smpi: collshim's sources built with SimGrid's smpicc (Debian libsimgrid-dev) and linked
# with the scale lab's benchmark (bench/smpi/) into one SMPI program; scripts/collshim-scale
# runs it under smpirun on the platforms of config/platforms/.
#
# smpicc makes every program a shared object that smpirun's smpimain loads once per simulated
# rank (SMPI's default privatization, dlopen: each rank its own copy, so its own globals, its own
# thread-local storage and its own pthread_once). -Wl,-Bsymbolic binds the benchmark's calls of
# MPI_Allreduce, ... to collshim's entry points in the same object, where the dynamic linker
# would otherwise pick libsimgrid's MPI_* (weak aliases of its PMPI_*): the benchmark's MPI_*
# are collshim's, its PMPI_* SMPI's (but for two that bench/smpi/smpi_compat.c corrects). Nothing
# in src/ is compiled differently from the library.
#
# Variables: SMPICC (smpicc), SMPI_CFLAGS (-O2: the object is copied per rank, debug info
# would make 1024 copies of it).

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_smpi_default_goal := $(.DEFAULT_GOAL)

SMPICC      ?= smpicc
SMPI_CFLAGS ?= -O2
SMPI_B      := $(B)/smpi
SMPI_BENCH  := $(SMPI_B)/collshim-smpi-bench

# The library's flags with the build's own optimization level.
SMPI_LIBFLAGS := -std=c11 -D_GNU_SOURCE $(SMPI_CFLAGS) $(WARN) -fPIC -fvisibility=hidden -Isrc -Iinclude -Itools \
                 $(YAML_CFLAGS)
SMPI_OBJ := $(CORE_SRC:%.c=$(SMPI_B)/obj/%.o) $(SHIM_SRC:%.c=$(SMPI_B)/obj/%.o)

.PHONY: smpi smpi-toolchain check-smpi

smpi: smpi-toolchain $(SMPI_BENCH)

smpi-toolchain:
	@command -v $(SMPICC) >/dev/null 2>&1 || { \
	    echo "smpi: $(SMPICC) not found; install the Debian package libsimgrid-dev (scripts/install-deps)" >&2; \
	    exit 1; }

$(SMPI_B)/obj/%.o: %.c | smpi-toolchain
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(SMPICC) $(SMPI_LIBFLAGS) -MMD -MP -c -o $@ $<

# smpimain finds main by name: the benchmark keeps default visibility.
$(SMPI_B)/obj/bench/smpi/%.o: bench/smpi/%.c bench/bench_stats.h tools/calibrate/common_start.h | smpi-toolchain
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(SMPICC) -std=c11 -D_GNU_SOURCE -DCS_BENCH_SYNC_CLOCKS=1 $(SMPI_CFLAGS) $(WARN) -Wno-unused-function -fPIC -c -o $@ $<

# smpi_compat.o: SMPI's answers that collshim's objects cannot take as they are (see the file).
$(SMPI_BENCH): $(SMPI_OBJ) $(SMPI_B)/obj/bench/smpi/collshim_smpi_bench.o $(SMPI_B)/obj/bench/smpi/smpi_compat.o
	$(call cs_say,LD)$(SMPICC) -o $@ $^ -Wl,-Bsymbolic $(YAML_LIBS) -lm

# collshim-calibrate inside the simulator (each platform's calibrated configuration):
# the library's code without the entry points, the calibration's sources, all through smpicc.
SMPI_CALIBRATE := $(SMPI_B)/collshim-calibrate
SMPI_CAL_OBJ   := $(CORE_SRC:%.c=$(SMPI_B)/obj/%.o) $(CAL_SRC:%.c=$(SMPI_B)/obj/%.o) \
                  $(SMPI_B)/obj/tools/collshim-calibrate.o
smpi: $(SMPI_CALIBRATE)
# smpimain finds main by name: not hidden.
$(SMPI_B)/obj/tools/collshim-calibrate.o: tools/collshim-calibrate.c | smpi-toolchain
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(SMPICC) $(filter-out -fvisibility=hidden,$(SMPI_LIBFLAGS)) -MMD -MP -c -o $@ $<
$(SMPI_CALIBRATE): $(SMPI_CAL_OBJ)
	$(call cs_say,LD)$(SMPICC) -o $@ $^ -Wl,-Bsymbolic $(YAML_LIBS) -lm

# The --quick smoke run: p = 16, one platform, a few sizes, seconds; a part of make check, so
# that the SMPI build does not rot.
CHECK_EXTRA += check-smpi
check-smpi: smpi
	scripts/collshim-scale --quick --build $(B)
	@# the hypercube's latency by the XOR of the ranks (model.distance), none on the fat tree
	@grep -q '^  distance: xor$$' $(B)/scale/fit.hypercube-64.16.plain.yaml || \
	    { echo "check-smpi: --fit did not find hypercube-64's distance (xor)" >&2; exit 1; }
	@# the fat tree's leaf switches (8 hosts each) as the fit's nodes: model.ranks_per_node
	scripts/collshim-scale --quick --platform fattree-64 --build $(B) --out $(B)/scale-fattree
	@grep -q '^  ranks_per_node: 8$$' $(B)/scale-fattree/fit.fattree-64.16.plain.yaml || \
	    { echo "check-smpi: --fit did not take fattree-64's leaf switches (8 ranks) as nodes" >&2; exit 1; }
	@# a multi-core node's loopback takes a rank's messages at once: --fit's node_paths pair
	scripts/collshim-scale --quick --platform multicore --colls reduce --build $(B) \
	    --out $(B)/scale-multicore
	@grep -q '^  node_paths: pair$$' $(B)/scale-multicore/fit.multicore.16.plain.yaml || \
	    { echo "check-smpi: --fit did not find multicore's node paths per pair" >&2; exit 1; }
	@# the placements: --plan placements parses and places its points; ranks round robin on
	@# multi-core nodes (the script stops where the benchmark's node map, MPI_COMM_TYPE_SHARED as
	@# collshim sees it, is not cyclic), and the benchmark's column communicators (-C column)
	scripts/collshim-scale --plan placements --dry-run --out $(B)/scale-placements-dry >/dev/null
	scripts/collshim-scale --quick --platform multicore:cyclic,multicore:column --np 20 --colls allreduce,reduce \
	    --no-calibrate --build $(B) --out $(B)/scale-placements-quick
	@grep -q '^# nodes: 3, ranks per node 6..7, placement cyclic$$' $(B)/scale-placements-quick/multicore:cyclic.20.plain.*.out && \
	    grep -q '^# column communicators: 8, of 3 ranks$$' $(B)/scale-placements-quick/multicore:column-of-20.20.plain.*.out && \
	    grep -q '^multicore:column-of-20 plain 3 allreduce 65536 auto ' $(B)/scale-placements-quick/raw.txt || \
	    { echo "check-smpi: the cyclic placement or the column communicators are not what the benchmark ran" >&2; exit 1; }
	@! grep -q '^  distance:' $(B)/scale-fattree/fit.fattree-64.16.plain.yaml || \
	    { echo "check-smpi: --fit found a distance on fattree-64, whose leaves are its nodes" >&2; exit 1; }
	@# every selector runs where the last node is part full (multi-core p = 36: 4 nodes of 8 and one
	@# of 4; SMPI's mvapich2 gather crashes after an allreduce there, and the benchmark's set-up
	@# must call none of the selector's collectives: docs/scale-lab.md)
	NO_FORCED=1 scripts/collshim-scale --platform multicore --np 36 --sizes 8,4096 --colls allreduce,reduce \
	    --no-calibrate --build $(B) --out $(B)/scale-partfull >/dev/null 2>&1
	@for sel in mpich ompi mvapich2; do for coll in allreduce reduce; do \
	    grep -q "^multicore plain 36 $$coll 4096 smpi $$sel " $(B)/scale-partfull/raw.txt || \
	    { echo "check-smpi: SMPI's $$sel selector did not run $$coll at multi-core p = 36 (last node part full):" \
	        "$$(cat $(B)/scale-partfull/salg-failed.txt 2>/dev/null)" >&2; exit 1; }; done; done
	@# a fitted run past the time limit is cut softly: the cells it timed are kept, the point tabled
	SMPIRUN=tests/tools/smpi/smpirun-hang HANG_AFTER_LINES=4 COLLSHIM_SCALE_TIMEOUT=30 NO_FORCED=1 scripts/collshim-scale \
	    --platform multicore --np 16 --sizes 8,512,4096 --colls allreduce,reduce --build $(B) \
	    --out $(B)/scale-cut >/dev/null 2>&1
	@grep -q '^cut: multicore.16.plain.fitted took over 30 s (COLLSHIM_SCALE_TIMEOUT): the cells it timed are kept$$' \
	    $(B)/scale-cut/cut.txt && grep -q '^multicore plain 16 allreduce 8 fit ' $(B)/scale-cut/raw.txt && \
	    ! grep -q '^multicore plain 16 reduce 8 fit ' $(B)/scale-cut/raw.txt && \
	    grep -q '^== multicore, plain network, p = 16' $(B)/scale-cut/table.txt || \
	    { echo "check-smpi: a fitted run past the limit was not cut softly: $$(cat $(B)/scale-cut/cut.txt)" >&2; exit 1; }

-include $(SMPI_OBJ:.o=.d) $(SMPI_CAL_OBJ:.o=.d)

.DEFAULT_GOAL := $(cs_smpi_default_goal)
