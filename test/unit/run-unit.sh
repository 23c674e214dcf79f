#!/usr/bin/env bash
# test/unit/run-unit.sh PROGRAM... - run C unit test programs (unit.h) one
# after the other, showing their output as it comes: a line as each
# starts, its cases' "ok" / "not ok" lines and failed checks at once, a
# line as it ends.  The closing lines sum over the programs:
#
#   unit: assertions: N passed, N failed
#   unit: N passed, N failed            (cases)
#
# A program that crashes or exits non-zero without a failed case counts
# one failed case more.  Exit status 1 if anything failed.  UNIT_PREFIX
# (default "unit") starts every line.  UNIT_QUIET=1 shows only failures
# (failed cases and checks at once; a crashed program's last 200 lines of
# output when it ends) between the start and end lines.
set -uo pipefail
pfx=${UNIT_PREFIX:-unit}
passed=0 failed=0 apassed=0 afailed=0
# awk that passes each line on as it comes (mawk reads a pipe in blocks
# unless -W interactive)
AWK="awk"
awk -W version 2>/dev/null | grep -q '^mawk' && AWK="awk -W interactive"
res=$(mktemp "${TMPDIR:-/tmp}/run-unit.XXXXXX") || exit 1
trap 'rm -f "$res"' EXIT

# every program runs once per vectorised variant this CPU supports
# (GPX_SIMD=scalar, sse4.1, avx2, avx512: src/codec/gpx_cpu.h), as
# test_simd --levels lists them; test_simd compares them itself and runs
# once; GPX_SIMD set in the environment: only that variant
levels=${GPX_SIMD:-}
if [ -z "$levels" ]; then
	for t in "$@"; do
		case "$t" in */test_simd) levels=$("$t" --levels) || { echo "$pfx: test_simd --levels failed"; exit 1; } ;; esac
	done
fi
[ -n "$levels" ] || levels=auto
echo "$pfx: vectorised variants: $levels"
runs=()
for t in "$@"; do
	case "$t" in */test_simd) runs+=("auto:$t") ;; *) for lv in $levels; do runs+=("$lv:$t"); done ;; esac
done

for run in "${runs[@]}"; do
	lv=${run%%:*} t=${run#*:}
	name="$(basename "$t") [$lv]"
	echo "$pfx: $name: start"
	t0=$SECONDS
	# the counting lines are kept for the end; everything else shows at once
	# (the subshell's own stderr, where bash would report a crash, is dropped:
	# the exit status below says it)
	(GPX_SIMD=$lv "$t" 2>&1; exit $?) 2>/dev/null | $AWK -v res="$res" -v quiet="${UNIT_QUIET:-0}" '
		/^assertions: [0-9]+ passed, [0-9]+ failed$/ { ap = $2; af = $4; next }
		/^[0-9]+ passed, [0-9]+ failed$/ { p = $1; f = $3; seen = 1; next }
		/^ok - / { okc++ }
		/^not ok - / { nokc++ }
		quiet != 1 || /^(not ok |FAIL |\(further failures)/ { print "  " $0; fflush(); next }
		{ held[n++ % 200] = $0 }
		END {
			if (!seen && n > 0) {
				print "  (the program'"'"'s other output, last 200 lines)"
				for (i = (n > 200 ? n - 200 : 0); i < n; i++) print "  " held[i % 200]
			}
			# without a closing line, count the case lines it printed
			if (!seen) { p = okc; f = nokc }
			print p + 0, f + 0, ap + 0, af + 0, seen + 0 > res
		}'
	st=${PIPESTATUS[0]}
	read -r p f ap af seen <"$res"
	note=""
	why="exit status $st"
	[ "$st" -gt 128 ] && why="killed by signal $((st - 128))"
	if [ "$seen" != 1 ]; then
		f=$((f + 1)); note=" (no closing line: $why)"
	elif [ "$st" != 0 ] && [ "$f" = 0 ]; then
		f=1; note=" ($why)"
	fi
	passed=$((passed + p)) failed=$((failed + f))
	apassed=$((apassed + ap)) afailed=$((afailed + af))
	echo "$pfx: $name: $p passed, $f failed$note; $ap assertions ($((SECONDS - t0)) s)"
done
echo "$pfx: assertions: $apassed passed, $afailed failed"
echo "$pfx: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
