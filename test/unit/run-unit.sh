#!/bin/sh
# Run the C unit test binaries given as arguments; each prints its own
# "N passed, N failed" line.  Every binary runs once per vectorised variant
# this CPU supports (GPX_SIMD=scalar, sse4.1, avx2, avx512: see
# src/codec/gpx_cpu.h), as test_simd --levels lists them, so that each
# codec and intersection test covers every variant; test_simd compares
# the variants itself and runs once.  GPX_SIMD set in the environment:
# only that variant.  Prints the sum as the last line and exits non-zero
# if any test binary failed.
passed=0; failed=0; rc=0
levels=${GPX_SIMD:-}
if [ -z "$levels" ]; then
	for t in "$@"; do
		case "$t" in */test_simd) levels=$("$t" --levels) || { echo "unit: test_simd --levels failed"; exit 1; } ;; esac
	done
fi
[ -n "$levels" ] || levels=auto
echo "unit: variants $levels"
for t in "$@"; do
	case "$t" in */test_simd) tl=auto ;; *) tl=$levels ;; esac
	for lv in $tl; do
		out=$(GPX_SIMD=$lv "$t" 2>&1); st=$?
		printf '%s\n' "$out" | tail -n 3 | sed "s|^|  $(basename "$t") [$lv]: |"
		line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
		p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
		[ -n "$line" ] || { p=0; f=1; }
		[ $st -eq 0 ] || { rc=1; [ "$f" -gt 0 ] || f=1; }
		passed=$((passed + p)); failed=$((failed + f))
	done
done
echo "unit: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $rc -eq 0 ]
