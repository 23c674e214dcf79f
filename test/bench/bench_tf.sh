#!/usr/bin/env bash
# test/bench/bench_tf.sh - the Simple-8b term-frequency benchmark, in one
# run: bits per frequency and one-thread decode speed of left-greedy and
# optimal packing (test/bench/bench_tf.c) on
#   - the GOV2-calibrated collection with frequencies (gpx_gen --tf, the
#     model of test/gen/gen_tf.h), crawl (clustered) and random docID order;
#   - the PostgreSQL 15 HTML documentation (postgresql-doc-15), PostgreSQL's
#     english stop words removed;
#   - a sample of the Linux source (linux-source, evenly spread files, as
#     run-bench.sh's cpu profile), no stop words.
# The report (markdown) goes to $BENCH_OUT/tf.md and to stdout.
#
#   make bench-tf            or   test/bench/bench_tf.sh
#
# Knobs: BENCH_SCALE (0.02), BENCH_QUERIES (1000), BENCH_EXTRA (500),
# BENCH_SEED (1), BENCH_LINUX_MAX_DOCS (4000; 0 leaves Linux out),
# BENCH_MIN_TIME (2 seconds of decoding per configuration and dataset),
# BENCH_OUT (test/bench/out).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BL_TAG=bench-tf
. test/bench/benchlib.sh

SCALE=${BENCH_SCALE:-0.02}
QUERIES=${BENCH_QUERIES:-1000}
EXTRA=${BENCH_EXTRA:-500}
SEED=${BENCH_SEED:-1}
LINUX_MAX=${BENCH_LINUX_MAX_DOCS:-4000}
MIN_TIME=${BENCH_MIN_TIME:-2}
OUT=${BENCH_OUT:-test/bench/out}
PGDOCS=/usr/share/doc/postgresql-doc-15/html
STOP=$(ls /usr/share/postgresql/*/tsearch_data/english.stop 2>/dev/null | sort -V | tail -n 1 || true)

W=$(mktemp -d /tmp/gpuidx-bench-tf.XXXXXX)
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"

mk="make -s"
grep -q 'test/bench/bench.mk' Makefile || mk="make -s -f Makefile -f test/bench/bench.mk"
bl_step "building"
$mk test/bench/bin/bench_tf test/bench/bin/gpx_corpus test/gen/bin/gpx_gen >"$W/build.log" 2>&1 ||
	{ cat "$W/build.log"; exit 1; }

args=()
notes=()
for order in clustered random; do
	bl_step "gpx_gen --tf --order $order (scale $SCALE)"
	test/gen/bin/gpx_gen --scale "$SCALE" --queries "$QUERIES" --extra "$EXTRA" --seed "$SEED" \
		--order "$order" --tf --quiet --out "$W/synth-$order" >/dev/null
	args+=(--synth "synth-$order=$W/synth-$order")
done
if [ -d "$PGDOCS" ]; then
	bl_step "reading the PostgreSQL docs"
	find "$PGDOCS" -name '*.html' -type f | LC_ALL=C sort |
		test/bench/bin/gpx_corpus --html --strip-prefix "$PGDOCS/" >"$W/pgdocs.copy" 2>"$W/pgdocs.log"
	if [ -n "$STOP" ]; then args+=(--stop "$STOP"); fi
	args+=(--corpus "pgdocs=$W/pgdocs.copy")
	args+=(--stop -)
else
	notes+=("pgdocs: not available: postgresql-doc-15 is not installed")
fi
if [ "$LINUX_MAX" -gt 0 ]; then
	if tree=$(bl_linux_tree 2>"$W/linux.err"); then
		bl_step "reading $LINUX_MAX files of $tree"
		find "$tree" -type f | LC_ALL=C sort >"$W/linux.all"
		n=$(wc -l <"$W/linux.all")
		awk -v n="$n" -v m="$LINUX_MAX" 'int((NR - 1) * m / n) != int(NR * m / n)' "$W/linux.all" |
			test/bench/bin/gpx_corpus --strip-prefix "$tree/" >"$W/linux.copy" 2>"$W/linux.log"
		args+=(--corpus "linux=$W/linux.copy")
	else
		notes+=("linux: not available: $(tail -n 1 "$W/linux.err")")
	fi
fi

bl_step "bench_tf"
{
	echo "# Term frequencies: Simple-8b, left-greedy and optimal packing"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: make bench-tf (test/bench/bench_tf.sh)"
	echo "- **knobs**: BENCH_SCALE=$SCALE BENCH_QUERIES=$QUERIES BENCH_EXTRA=$EXTRA BENCH_SEED=$SEED BENCH_LINUX_MAX_DOCS=$LINUX_MAX BENCH_MIN_TIME=$MIN_TIME"
	echo "- **cpu**: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1) ($(nproc) online), one thread"
	echo "- **gpuidx**: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
	echo "- bits/tf: section bytes x 8 / frequencies; decode and encode: million frequencies per second of thread CPU time, block by block (gpx_s8b_decode_block), best of 5 rounds; words vs greedy: the optimal packing's size change"
	for n in "${notes[@]+"${notes[@]}"}"; do echo "- $n"; done
	echo
	test/bench/bin/bench_tf --min-time "$MIN_TIME" --rounds 5 "${args[@]}"
} >"$W/tf.md"
sed -e "s|$W/||g" "$W/tf.md" >"$OUT/tf.md"
cat "$OUT/tf.md"
bl_step "report: $OUT/tf.md"
