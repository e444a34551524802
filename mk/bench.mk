# make bench-decide: what a decision costs (bench/bench_decide.c): a communicator's first
# decision (its breakpoints) at p = 16 to 65,536, a later one (a lookup), and a call forced to
# the library. Pure: no MPI process is started. BENCH_REPS (9) runs, medians.

BENCH_REPS ?= 9

.PHONY: bench-decide

$(B)/bench_decide: bench/bench_decide.c $(CORE_OBJ)
	$(MPICC) $(ALLCFLAGS) -Ibench -o $@ $< $(CORE_OBJ) $(YAML_LIBS) -lm

bench-decide: $(B)/bench_decide
	$(B)/bench_decide $(BENCH_REPS)
