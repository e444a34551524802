# collshim-calibrate (tools/collshim-calibrate.c and tools/calibrate/): measures the machine and
# writes collshim's configuration for it. An MPI program linked with the library's code,
# like the other tools; built by `make`, installed by `make install`. The unit suite links
# tools/calibrate/derive.c (rules from measurements, no MPI) to test it; `make check-calibrate` (a
# part of `make check`) runs a --quick calibration at p = 2 and 4 and checks the file it writes.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_calibrate_default_goal := $(.DEFAULT_GOAL)

CAL_SRC := $(sort $(wildcard tools/calibrate/*.c))
CAL_HDR := $(wildcard tools/calibrate/*.h)

# Explicit: it takes the place of the Makefile's pattern for tools.
$(B)/collshim-calibrate: tools/collshim-calibrate.c $(CAL_SRC) $(CAL_HDR) $(CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -o $@ tools/collshim-calibrate.c $(CAL_SRC) $(CORE_OBJ) $(YAML_LIBS) -lm

# collshim-model reads its --bytes as calibrate does (calibrate/sizes.h): the pattern's rule with
# that header among its prerequisites, not its sources; and tools/model/ (--export, the
# libraries' tuning files) among its sources.
MODEL_SRC := $(sort $(wildcard tools/model/*.c))
$(B)/collshim-model: tools/collshim-model.c tools/calibrate/sizes.h $(MODEL_SRC) $(wildcard tools/model/*.h) $(CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ALLCFLAGS) -o $@ tools/collshim-model.c $(MODEL_SRC) $(CORE_OBJ) $(YAML_LIBS) -ldl -lm

$(B)/unit_tests: $(B)/obj/tools/calibrate/derive.o $(B)/obj/tools/calibrate/summary.o \
                 $(B)/obj/tools/calibrate/distance.o
# Their header dependencies (cs_rule, cs_params): without them a changed header leaves them stale.
-include $(B)/obj/tools/calibrate/derive.d $(B)/obj/tools/calibrate/summary.d $(B)/obj/tools/calibrate/distance.d

ifdef ASAN_B
$(ASAN_B)/collshim-calibrate: tools/collshim-calibrate.c $(CAL_SRC) $(CAL_HDR) $(ASAN_CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ASAN_CFLAGS) -o $@ tools/collshim-calibrate.c $(CAL_SRC) $(ASAN_CORE_OBJ) $(YAML_LIBS) -lm

$(ASAN_B)/collshim-model: tools/collshim-model.c $(MODEL_SRC) $(ASAN_CORE_OBJ)
	$(call cs_say,CC)$(MPICC) $(ASAN_CFLAGS) -o $@ tools/collshim-model.c $(MODEL_SRC) $(ASAN_CORE_OBJ) $(YAML_LIBS) -ldl -lm

$(ASAN_UNIT): $(ASAN_B)/obj/tools/calibrate/derive.o $(ASAN_B)/obj/tools/calibrate/summary.o \
              $(ASAN_B)/obj/tools/calibrate/distance.o
-include $(ASAN_B)/obj/tools/calibrate/derive.d $(ASAN_B)/obj/tools/calibrate/summary.d \
         $(ASAN_B)/obj/tools/calibrate/distance.d
endif

.PHONY: check-calibrate
check-calibrate: $(B)/collshim-calibrate $(B)/collshim-model $(YIELD)
	MPIEXEC="$(MPIEXEC)" tests/tools/check-collshim-calibrate $(B)

CHECK_EXTRA += check-calibrate

.DEFAULT_GOAL := $(cs_calibrate_default_goal)
