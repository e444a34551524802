# Fuzzing the configuration (tests/fuzz/fuzz_config.c says what the harness
# checks): `make fuzz` runs libFuzzer for FUZZ_TIME seconds (default 600),
# `make check-fuzz` for 60 (a part of `make check`). A crash, leak, timeout or
# broken invariant fails the target and prints the reproducer's path.
#
# Everything is built with clang under $(B)/fuzz/ (its own objects, never
# $(B)/obj): -fsanitize=fuzzer,address,undefined. The clang packages on Debian
# 12: clang (the compiler) and libclang-rt-14-dev (libclang_rt.fuzzer*.a and
# the sanitizer runtimes); without them the targets fail, they do not skip.
#
# Variables: FUZZ_CC (clang), FUZZ_TIME, FUZZ_ARGS (more libFuzzer flags).

# A fragment is read before the Makefile's own rules: keep `make` building `all`.
cs_fuzz_default_goal := $(.DEFAULT_GOAL)

FUZZ_CC   ?= clang
FUZZ_TIME ?= 600
FUZZ_ARGS ?=
FZ        := $(B)/fuzz
FUZZ_BIN  := $(FZ)/fuzz_config

# mpi.h and libmpich as the MPICC wrapper finds them (the config code calls no
# MPI, but the algorithm table it looks names up in links against it).
FUZZ_MPI_CFLAGS := $(filter -I%,$(shell $(MPICC) -show 2>/dev/null))
FUZZ_MPI_LIBS   := $(filter -L% -l%,$(shell $(MPICC) -show 2>/dev/null))

FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer $(WARN) -Isrc -Iinclude \
               $(YAML_CFLAGS) $(FUZZ_MPI_CFLAGS) $(FUZZ_SAN)

FUZZ_OBJ := $(CORE_SRC:%.c=$(FZ)/obj/%.o)

.PHONY: fuzz check-fuzz fuzz-toolchain

# Loud, before anything is compiled: a missing clang or libFuzzer runtime is
# an error, never a skipped test.
fuzz-toolchain:
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
	    echo "fuzz: $(FUZZ_CC) not found; install the Debian packages clang and libclang-rt-14-dev" >&2; exit 1; }
	@mkdir -p $(FZ)
	@printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
	    > $(FZ)/toolchain-probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $(FZ)/toolchain-probe $(FZ)/toolchain-probe.c \
	    >$(FZ)/toolchain-probe.log 2>&1 || { cat $(FZ)/toolchain-probe.log >&2; \
	    echo "fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer,address,undefined; install libclang-rt-14-dev" \
	         "(libclang_rt.fuzzer-x86_64.a) for clang 14" >&2; exit 1; }

# The library's code with coverage for the fuzzer; the harness links libFuzzer's main.
$(FZ)/obj/%.o: %.c | fuzz-toolchain
	@mkdir -p $(dir $@)
	$(call cs_say,CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

$(FUZZ_BIN): tests/fuzz/fuzz_config.c $(FUZZ_OBJ) | fuzz-toolchain
	$(call cs_say,CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< $(FUZZ_OBJ) $(YAML_LIBS) $(FUZZ_MPI_LIBS) -lm

fuzz: $(FUZZ_BIN)
	scripts/collshim-fuzz run $(FUZZ_BIN) $(FUZZ_TIME) $(FZ) $(FUZZ_ARGS)

# In `make check`, a fixed seed: the same mutations on every machine (how many
# run in 60 s depends on the machine).
check-fuzz: $(FUZZ_BIN)
	scripts/collshim-fuzz run $(FUZZ_BIN) 60 $(FZ) -seed=1 $(FUZZ_ARGS)

CHECK_EXTRA += check-fuzz

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_BIN).d

.DEFAULT_GOAL := $(cs_fuzz_default_goal)
