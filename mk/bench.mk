# make bench-decide: what a decision costs (bench/bench_decide.c): a communicator's first
# decision (its breakpoints) at p = 16 to 65,536, a later one (a lookup), and a call forced to
# the library. Pure: no MPI process is started. BENCH_REPS (9) runs, medians. BENCH_DECIDE_MODEL:
# a configuration whose model prices instead of the built-in one, with BENCH_DECIDE_PPN ranks a node.

BENCH_REPS ?= 9

.PHONY: bench-decide bench-reduce-paths bench-native-path check-openmpi-mirror bench-export

$(B)/bench_decide: bench/bench_decide.c $(CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -Ibench -o $@ $< $(CORE_OBJ) $(YAML_LIBS) -lm

bench-decide: $(B)/bench_decide
	$(B)/bench_decide $(BENCH_REPS) $(or $(BENCH_DECIDE_MODEL),-) $(or $(BENCH_DECIDE_PPN),0)

# make bench-reduce-paths: every reduce row's model price against the critical path of its
# schedules (bench/bench_reduce_paths.c), and what tuning by the model loses on that path.

$(B)/bench_reduce_paths: bench/bench_reduce_paths.c $(CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -o $@ $< $(CORE_OBJ) $(YAML_LIBS) -lm

bench-reduce-paths: $(B)/bench_reduce_paths
	$(B)/bench_reduce_paths

# make bench-native-path: the instructions the shim adds to a call that ends in the MPI library,
# under callgrind, for each way a call gets there (bench/run-native-path).

bench-native-path: $(LIB)
	MPIEXEC="$(MPIEXEC)" MPICC="$(MPICC)" bench/run-native-path $(B)

# make check-openmpi-mirror: the library's price under Open MPI names what Open MPI runs: each
# call of bench/mirror_probe at a few (p, size) under gdb, against collshim-model --library with
# library: openmpi (bench/run-openmpi-mirror; needs gdb and ptrace, so not a part of make check).
# Then each algorithm of coll/tuned forced as a user forces it (its MCA parameters, which the
# shim reads through MPI_T and collshim-model from the environment): alltoall 1-4 (5, two_proc,
# fails in Open MPI itself at p != 2), allreduce 1-6, reduce 1-7, at six points each.
check-openmpi-mirror: $(TOOLS)
	MPICC=$(MPICC_OPENMPI) bench/run-openmpi-mirror $(B)
	@for k in 1 2 3 4 5 6 7; do \
	    echo "forced: alltoall $$(( (k - 1) % 4 + 1 )), allreduce $$(( (k - 1) % 6 + 1 )), reduce $$k"; \
	    OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_alltoall_algorithm=$$(( (k - 1) % 4 + 1 )) \
	    OMPI_MCA_coll_tuned_allreduce_algorithm=$$(( (k - 1) % 6 + 1 )) OMPI_MCA_coll_tuned_reduce_algorithm=$$k \
	    POINTS="2:8 5:104 8:20000 13:10000 16:3000 40:312" MPICC=$(MPICC_OPENMPI) bench/run-openmpi-mirror $(B) \
	        || exit 1; \
	done


# make bench-export: the library's default against the library under the tuning file
# collshim-model --export writes against collshim preloaded, p = 2, 4, 8, paired medians
# (bench/run-export, docs/exporting.md).
bench-export: $(LIB) $(OMPI_LIB) $(TOOLS)
	bench/run-export $(B) 3
