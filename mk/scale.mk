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
# Variables: SCALE_BUDGET (minutes, default 55), SCALE_JOBS (simulations at once, default 2: one
# per core of the development machine), SCALE_OUT (default $(B)/scale-full), SCALE_RESULTS
# (default bench/smpi/results). The simulations run under nice -n 15.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_scale_default_goal := $(.DEFAULT_GOAL)

SCALE_BUDGET  ?= 55
SCALE_JOBS    ?= 2
SCALE_OUT     ?= $(B)/scale-full
SCALE_RESULTS ?= bench/smpi/results

.PHONY: scale

scale: smpi
	scripts/collshim-scale --plan full --budget $(SCALE_BUDGET) --jobs $(SCALE_JOBS) --reps 1 --warm 1 --build $(B) --out $(SCALE_OUT)
	@mkdir -p $(SCALE_RESULTS)
	cp $(SCALE_OUT)/table.txt $(SCALE_OUT)/raw.txt $(SCALE_OUT)/cut.txt $(SCALE_OUT)/plan.txt $(SCALE_OUT)/wall.txt $(SCALE_RESULTS)/
	cp $(SCALE_OUT)/salg-failed.txt $(SCALE_RESULTS)/smpi-algs-left-out.txt
	for f in $(SCALE_OUT)/machine.*.yaml $(SCALE_OUT)/fit.*.yaml; do case $$f in *.log.yaml) ;; *) [ ! -f $$f ] || cp $$f $(SCALE_RESULTS)/ ;; esac; done
	@echo "make scale: results in $(SCALE_RESULTS)/ (table.txt)"

.DEFAULT_GOAL := $(cs_scale_default_goal)
