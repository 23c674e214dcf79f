#!/bin/sh
# test/fuzz/run-suite.sh - libFuzzer harnesses of the codec core (a bounded
# run of each, FUZZ_SECONDS, default 20) and the C unit tests built with
# -fsanitize=address,undefined.  Called by test/run-tests.sh; counts one
# pass/fail per harness and per unit-test binary; the last line is
# "N passed, N failed" and the exit status is non-zero on any failure.
#
#   FUZZ_SECONDS=600 test/fuzz/run-suite.sh    longer fuzzing
#   UNIT_ASAN_QUICK=1 test/fuzz/run-suite.sh   skip test_lrc under ASan
#
# Needs clang-14 with libclang-rt-14-dev (Debian packages clang-14,
# libclang-rt-14-dev); without it the suite fails with a message.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
FUZZ_CC=${FUZZ_CC:-clang-14}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
export FUZZ_CC FUZZ_SECONDS
MK="make --no-print-directory -f test/fuzz/fuzz.mk"
HARNESSES="fuzz_validate fuzz_encode fuzz_intersect fuzz_doclen fuzz_rank"
passed=0; failed=0

if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "fuzz: $FUZZ_CC not found: install clang-14 and libclang-rt-14-dev (apt-get install clang-14 libclang-rt-14-dev)"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---- fuzzers
if ! out=$($MK fuzz-build 2>&1); then
	printf '%s\n' "$out" | tail -n 30
	echo "fuzz: build of the harnesses failed"
	failed=$((failed + 3))
else
	for h in $HARNESSES; do
		if $MK "fuzz-run-$h"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	done
fi

# ---- unit tests under ASan/UBSan, one count per binary
start=$(date +%s)
if ! out=$($MK unittest-asan-build 2>&1); then
	printf '%s\n' "$out" | tail -n 30
	echo "unit-asan: build failed"
	failed=$((failed + 1))
else
	for src in test/unit/test_*.c; do
		t=test/fuzz/bin/asan/$(basename "$src" .c)
		if [ -n "${UNIT_ASAN_QUICK:-}" ] && [ "$(basename "$t")" = test_lrc ]; then
			echo "unit-asan: $(basename "$t") skipped (UNIT_ASAN_QUICK)"
			continue
		fi
		if o=$(ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 test/unit/run-unit.sh "$t" 2>&1); then
			passed=$((passed + 1))
			printf '%s\n' "$o" | grep -E "^  $(basename "$t"): [0-9]+ passed" | sed 's/^ */unit-asan: /'
		else
			failed=$((failed + 1))
			printf '%s\n' "$o" | sed 's/^ */unit-asan: /'
			echo "unit-asan: $(basename "$t") FAILED; reproduce: make -f test/fuzz/fuzz.mk unittest-asan-build && $t"
		fi
	done
	echo "unit-asan: $(( $(date +%s) - start ))s"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
