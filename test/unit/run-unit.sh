#!/bin/sh
# Run the C unit test binaries given as arguments; each prints its own
# "N passed, N failed" line.  Prints the sum as the last line and exits
# non-zero if any test binary failed.
passed=0; failed=0; rc=0
for t in "$@"; do
	out=$("$t" 2>&1); st=$?
	printf '%s\n' "$out" | tail -n 3 | sed "s|^|  $(basename "$t"): |"
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	[ -n "$line" ] || { p=0; f=1; }
	[ $st -eq 0 ] || { rc=1; [ "$f" -gt 0 ] || f=1; }
	passed=$((passed + p)); failed=$((failed + f))
done
echo "unit: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $rc -eq 0 ]
