#!/bin/sh
# test/fuzz/run-suite.sh - libFuzzer harnesses of the codec core (a bounded
# run of each, FUZZ_SECONDS, default 20) and the C unit tests built with
# -fsanitize=address,undefined.  Called by test/run-tests.sh; counts one
# case per harness and the unit tests' cases; the last line is
# "N passed, N failed" and the exit status is non-zero on any failure.
# Logs and crash inputs go to a folder from mktemp -d, removed at exit;
# a crash prints its input (base64) and the command that reproduces it.
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
FUZZ_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$FUZZ_WORK"' EXIT
trap 'exit 130' INT TERM HUP
export FUZZ_CC FUZZ_SECONDS FUZZ_WORK
MK="make --no-print-directory -f test/fuzz/fuzz.mk"
HARNESSES="fuzz_validate fuzz_encode fuzz_intersect fuzz_setops fuzz_doclen fuzz_rank"
passed=0; failed=0

if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "fuzz: $FUZZ_CC not found: install clang-14 and libclang-rt-14-dev (apt-get install clang-14 libclang-rt-14-dev)"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---- fuzzers
echo "fuzz: building the harnesses"
if ! out=$($MK fuzz-build 2>&1); then
	printf '%s\n' "$out" | tail -n 30
	echo "fuzz: build of the harnesses failed"
	failed=$((failed + $(echo $HARNESSES | wc -w)))
else
	for h in $HARNESSES; do
		echo "fuzz: $h: start (${FUZZ_SECONDS}s)"
		if $MK "fuzz-run-$h"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	done
fi

# ---- unit tests under ASan/UBSan, their cases counted
echo "unit-asan: building the unit tests with -fsanitize=address,undefined"
start=$(date +%s)
if ! out=$($MK unittest-asan-build 2>&1); then
	printf '%s\n' "$out" | tail -n 30
	echo "unit-asan: build failed"
	failed=$((failed + 1))
else
	progs=""
	for src in test/unit/test_*.c; do
		t=test/fuzz/bin/asan/$(basename "$src" .c)
		if [ -n "${UNIT_ASAN_QUICK:-}" ] && [ "$(basename "$t")" = test_lrc ]; then
			echo "unit-asan: $(basename "$t") skipped (UNIT_ASAN_QUICK)"
			continue
		fi
		progs="$progs $t"
	done
	res="$FUZZ_WORK/unit-asan.out"
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 UNIT_PREFIX=unit-asan UNIT_QUIET=1 \
		test/unit/run-unit.sh $progs | tee "$res"
	line=$(grep -E '^unit-asan: [0-9]+ passed, [0-9]+ failed$' "$res" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/^unit-asan: ([0-9]+) passed.*/\1/p')
	f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed$/\1/p')
	[ -n "$line" ] || { p=0; f=1; }
	passed=$((passed + p)); failed=$((failed + f))
	asserts=$(sed -nE 's/^unit-asan: (assertions: [0-9]+ passed, [0-9]+ failed)$/\1/p' "$res" | tail -n 1)
	[ "$f" = 0 ] || echo "unit-asan: reproduce: make -f test/fuzz/fuzz.mk unittest-asan-build && test/fuzz/bin/asan/PROGRAM"
	echo "unit-asan: $(( $(date +%s) - start ))s"
fi

# the unit tests' assertions on the line before the closing one
[ -z "${asserts:-}" ] || echo "$asserts"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
