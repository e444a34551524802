# make scale: the full scale lab on SimGrid SMPI: scripts/collshim-scale --plan full
# (the plan is in the script: each platform of config/platforms/, p from 64 to 1024, sizes 8 B
# to 1 MiB, SMPI's single algorithms on hypercube-64 and fattree-64 at p = 64 and on multi-core
# nodes at p = 48 (a p not a power of two), the plain network everywhere and SMPI's
# default model on hypercube-64) under a wall-time budget (--budget, minutes: an entry that
# would end past it is cut, and the cut is printed). The results go to bench/smpi/results/
# (table.txt, raw.txt, the calibrated configurations machine.*.yaml, the fitted models fit.*.yaml
# (collshim-calibrate --fit: the `fitted` column), cut.txt); the runs' logs
# and outputs to $(B)/scale-full/.
#
# The table again from the committed data, without a run: scripts/collshim-scale --table
# bench/smpi/results.
#
# Then make scale-placements (scripts/collshim-scale --plan placements: multi-core nodes with
# the last part full, ranks placed round robin, column communicators inside a larger job, nodes
# of 32 ranks on one link, the Ethernet backbone at larger p and sizes), under a budget of its
# own, its results in bench/smpi/results/placements/ (its table: scripts/collshim-scale --table
# bench/smpi/results/placements).
#
# Variables: SCALE_BUDGET (minutes, default 55), SCALE_JOBS (simulations at once, default 2: one
# per core of the development machine), SCALE_OUT (default $(B)/scale-full), SCALE_RESULTS
# (default bench/smpi/results); SCALE_PLACEMENTS_BUDGET (minutes, default 60). The simulations
# run under nice -n 15.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_scale_default_goal := $(.DEFAULT_GOAL)

SCALE_BUDGET  ?= 55
SCALE_JOBS    ?= 2
SCALE_OUT     ?= $(B)/scale-full
SCALE_RESULTS ?= bench/smpi/results
SCALE_PLACEMENTS_BUDGET ?= 60

.PHONY: scale scale-full scale-placements

scale: scale-full
	$(MAKE) --no-print-directory scale-placements

# cs_scale_results OUT RESULTS: a plan's results kept (the recipe's lines)
define cs_scale_results
	@mkdir -p $(2)
	cp $(1)/table.txt $(1)/raw.txt $(1)/cut.txt $(1)/plan.txt $(1)/wall.txt $(2)/
	cp $(1)/salg-failed.txt $(2)/smpi-algs-left-out.txt
	for f in $(1)/machine.*.yaml $(1)/fit.*.yaml; do case $$f in *.log.yaml) ;; *) [ ! -f $$f ] || cp $$f $(2)/ ;; esac; done
	@echo "make scale: results in $(2)/ (table.txt)"
endef

scale-full: smpi
	scripts/collshim-scale --plan full --budget $(SCALE_BUDGET) --jobs $(SCALE_JOBS) --reps 1 --warm 1 --build $(B) --out $(SCALE_OUT)
	$(call cs_scale_results,$(SCALE_OUT),$(SCALE_RESULTS))

scale-placements: smpi
	scripts/collshim-scale --plan placements --budget $(SCALE_PLACEMENTS_BUDGET) --jobs $(SCALE_JOBS) --reps 1 --warm 1 --build $(B) --out $(B)/scale-placements
	$(call cs_scale_results,$(B)/scale-placements,$(SCALE_RESULTS)/placements)

.DEFAULT_GOAL := $(cs_scale_default_goal)
