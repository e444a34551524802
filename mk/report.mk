# collshim-report (tools/collshim-report.c and tools/report/): the logs condensed, as text and
# SVG. A plain C program: no MPI, none of the library's code. Built by `make` with the other tools
# (the Makefile's TOOLS), installed by `make install`; `make check-report` (a part of `make check`)
# runs tests/tools/check-collshim-report on the fixtures under tests/report/.

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_report_default_goal := $(.DEFAULT_GOAL)

REPORT_SRC    := $(sort $(wildcard tools/report/*.c))
REPORT_HDR    := $(wildcard tools/report/*.h)
REPORT_CFLAGS := -std=c11 -D_GNU_SOURCE $(CFLAGS) $(WARN) -Itools

.PHONY: check-report

# Explicit rules: they take the place of the Makefile's pattern for tools (and asan.mk's), which
# links the library's objects.
$(B)/collshim-report: tools/collshim-report.c $(REPORT_SRC) $(REPORT_HDR)
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(CC) $(REPORT_CFLAGS) -o $@ tools/collshim-report.c $(REPORT_SRC) -lm

ifdef ASAN_B
$(ASAN_B)/collshim-report: tools/collshim-report.c $(REPORT_SRC) $(REPORT_HDR)
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(CC) $(REPORT_CFLAGS) -O1 $(SAN_FLAGS) -o $@ tools/collshim-report.c $(REPORT_SRC) -lm
endif

# scripts/collshim-demo reports on the demo's logs.
demo: $(B)/collshim-report

check-report: $(B)/collshim-report
	tests/tools/check-collshim-report $(B)

CHECK_EXTRA += check-report

.DEFAULT_GOAL := $(cs_report_default_goal)
