# test/fuzz/fuzz.mk - libFuzzer harnesses of the codec core and the C unit
# tests under ASan/UBSan.  Works standalone from the repository root:
#
#   make -f test/fuzz/fuzz.mk fuzz-build      build the fuzzers
#   make -f test/fuzz/fuzz.mk fuzz-ci         run each for FUZZ_SECONDS (20)
#   make -f test/fuzz/fuzz.mk fuzz-long       run each for FUZZ_SECONDS=600
#   make -f test/fuzz/fuzz.mk unittest-asan   test/unit/test_*.c under
#                                             -fsanitize=address,undefined
#   make -f test/fuzz/fuzz.mk fuzz-corpus     regenerate test/fuzz/corpus/
#
# or, with "include test/fuzz/fuzz.mk" in the top-level Makefile (after
# PGXS), the same targets through plain "make".  Fuzzers run on a copy of
# test/fuzz/corpus/<harness>/ in a temporary directory, so the tree's corpus
# is never modified; crash inputs go to $(FUZZ_WORK)/artifacts/.
#
# Knobs: FUZZ_CC (clang-14), FUZZ_SECONDS, FUZZ_MAX_LEN (4096),
# FUZZ_WORK (where logs and crash inputs go; by default a new folder from
# mktemp -d for each run, removed when the run passes and named when it
# fails), UNIT_ASAN_QUICK=1 (skip test_lrc, the slow one).

FUZZ_CC ?= clang-14
FUZZ_SECONDS ?= 20
FUZZ_MAX_LEN ?= 4096
FUZZ_WORK ?=
FUZZ_HARNESSES = fuzz_validate fuzz_encode fuzz_intersect fuzz_setops fuzz_doclen fuzz_rank
FUZZ_BIN = test/fuzz/bin
FUZZ_LIB_SRCS = $(sort $(wildcard src/codec/gpx_*.c)) test/ref/gpx_ref.c test/unit/unit.c
FUZZ_HDRS = $(wildcard src/codec/*.h) test/ref/gpx_ref.h test/unit/unit.h test/fuzz/fuzz_common.h
FUZZ_CFLAGS ?= -O1 -g -std=gnu11 -Wall -Wextra -ffp-contract=off -fno-omit-frame-pointer \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Isrc/codec -Itest/ref -Itest/unit
ASAN_CFLAGS ?= -O1 -g -std=gnu11 -Wall -Wextra -ffp-contract=off -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-Isrc/codec -Icuda -Itest/ref -Itest/unit
# the unit tests link what `make unittest` links: the codec and the CUDA planner
ASAN_LIB_SRCS = $(FUZZ_LIB_SRCS) cuda/gpx_cuda_plan.c
ASAN_UNIT_TESTS = $(patsubst test/unit/%.c,$(FUZZ_BIN)/asan/%,$(wildcard test/unit/test_*.c))
ASAN_UNIT_RUN = $(if $(UNIT_ASAN_QUICK),$(filter-out %/test_lrc,$(ASAN_UNIT_TESTS)),$(ASAN_UNIT_TESTS))

.PHONY: fuzz-build fuzz-ci fuzz-long fuzz-corpus unittest-asan unittest-asan-build \
	$(addprefix fuzz-run-,$(FUZZ_HARNESSES))

fuzz-build: $(addprefix $(FUZZ_BIN)/,$(FUZZ_HARNESSES))

$(FUZZ_BIN)/fuzz_%: test/fuzz/fuzz_%.c $(FUZZ_LIB_SRCS) $(FUZZ_HDRS)
	@mkdir -p $(FUZZ_BIN)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB_SRCS) -lm -lpthread

# one harness: prints "fuzz: NAME: ok ..." or "fuzz: NAME: FAILED ..."
$(addprefix fuzz-run-,$(FUZZ_HARNESSES)): fuzz-run-%: $(FUZZ_BIN)/%
	@test/fuzz/run-fuzzer.sh $* $(FUZZ_BIN)/$* test/fuzz/corpus/$* \
		$(FUZZ_SECONDS) $(FUZZ_MAX_LEN) "$(FUZZ_WORK)"

# every harness, even after one fails; fails if any did
fuzz-ci: fuzz-build
	@rc=0; for h in $(FUZZ_HARNESSES); do \
		test/fuzz/run-fuzzer.sh $$h $(FUZZ_BIN)/$$h test/fuzz/corpus/$$h \
			$(FUZZ_SECONDS) $(FUZZ_MAX_LEN) "$(FUZZ_WORK)" || rc=1; \
	done; exit $$rc

fuzz-long:
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) fuzz-ci FUZZ_SECONDS=600

$(FUZZ_BIN)/gen_corpus: test/fuzz/gen_corpus.c $(FUZZ_LIB_SRCS) $(FUZZ_HDRS)
	@mkdir -p $(FUZZ_BIN)
	$(FUZZ_CC) -O1 -g -std=gnu11 -Wall -Wextra -Isrc/codec -Itest/ref -Itest/unit -o $@ $< $(FUZZ_LIB_SRCS) -lm -lpthread

fuzz-corpus: $(FUZZ_BIN)/gen_corpus
	rm -rf test/fuzz/corpus
	$(FUZZ_BIN)/gen_corpus test/fuzz/corpus

$(FUZZ_BIN)/asan/%: test/unit/%.c $(ASAN_LIB_SRCS) $(FUZZ_HDRS) cuda/gpx_cuda_plan.h
	@mkdir -p $(FUZZ_BIN)/asan
	$(FUZZ_CC) $(ASAN_CFLAGS) -o $@ $< $(ASAN_LIB_SRCS) -lm -lpthread

unittest-asan-build: $(ASAN_UNIT_TESTS)

unittest-asan: unittest-asan-build
	@ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 UNIT_PREFIX=unit-asan \
		test/unit/run-unit.sh $(ASAN_UNIT_RUN)

EXTRA_CLEAN += $(FUZZ_BIN)
