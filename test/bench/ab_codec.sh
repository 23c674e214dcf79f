#!/usr/bin/env bash
# test/bench/ab_codec.sh REV_A REV_B - A/B of the codec library between two
# git revisions: each revision's own bench_codec (library level, no
# PostgreSQL: decode speed of whole lists, one-thread intersections, the
# CPU batch back end) over the same generated collection, the two run in
# turn AB_ROUNDS times; the table gives each figure's best round per
# revision and the ratio B / A.  On a shared or noisy machine the best of
# interleaved rounds is the figure least disturbed by other load.
#
# Knobs: AB_SCALE (0.3), AB_QUERIES (10000), AB_MIN_SHORTEST (10000),
# AB_ORDER (random), AB_ROUNDS (3), AB_MIN_TIME (3 seconds per figure).
# The defaults are the collection of the acceptance figure (BENCHMARKS.md).
# AB_COLLECTION=DIR: that collection instead of a generated one (DIR holds
# postings.copy and queries.copy, gpx_gen's formats; answers.copy if there
# is one; AB_NDOCS, default the largest docID + 1; AB_SCALE, AB_QUERIES,
# AB_MIN_SHORTEST and AB_ORDER do not apply), e.g. a real-text one.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ $# -eq 2 ] || { echo "usage: $0 REV_A REV_B" >&2; exit 2; }
SCALE=${AB_SCALE:-0.3}
QUERIES=${AB_QUERIES:-10000}
MIN_SHORTEST=${AB_MIN_SHORTEST:-10000}
ORDER=${AB_ORDER:-random}
ROUNDS=${AB_ROUNDS:-3}
MIN_TIME=${AB_MIN_TIME:-3}
CC=${BENCH_CC:-cc}

BL_TAG=ab
export BL_T0=$(date +%s.%N)
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh
W=$(mktemp -d /tmp/gpuidx-ab.XXXXXX)
trap 'rm -rf "$W"' EXIT

declare -A rev=([A]=$1 [B]=$2)
for r in A B; do
	h=$(git rev-parse --short "${rev[$r]}^{commit}") || exit 1
	rev[$r]=$h
	bl_step "building bench_codec of $r = $h"
	mkdir -p "$W/$r"
	git archive "$h" | tar -x -C "$W/$r" || exit 1
	# the reference library (test/ref) where the revision has one
	(cd "$W/$r" && ref=() && { [ ! -f test/ref/gpx_ref.c ] || ref=(-Itest/ref test/ref/gpx_ref.c); } &&
		$CC -O2 -g -std=gnu11 -Isrc/codec -Icuda -Itest/gen -o bench_codec \
		test/bench/bench_codec.c src/codec/gpx_*.c "${ref[@]}" -lm -lpthread) || exit 1
done

if [ -n "${AB_COLLECTION:-}" ]; then
	bl_step "the collection of $AB_COLLECTION"
	mkdir -p "$W/gen"
	for f in postings.copy queries.copy answers.copy; do
		[ ! -f "$AB_COLLECTION/$f" ] || ln -s "$(cd "$AB_COLLECTION" && pwd)/$f" "$W/gen/$f"
	done
	[ -f "$W/gen/postings.copy" ] && [ -f "$W/gen/queries.copy" ] ||
		{ echo "$AB_COLLECTION needs postings.copy and queries.copy" >&2; exit 1; }
	ndocs=${AB_NDOCS:-$(awk -F'[{},\t]' '{ v = $(NF - 1) + 0; if (v > m) m = v } END { print m + 1 }' \
		"$W/gen/postings.copy")}
	SCALE=- QUERIES=$(wc -l <"$W/gen/queries.copy") MIN_SHORTEST=- ORDER=-
else
	bl_step "generating the collection: scale $SCALE, $QUERIES queries, order $ORDER"
	$CC -O2 -Isrc/codec -Itest/ref -o "$W/gpx_gen" test/gen/gpx_gen.c test/ref/gpx_ref.c -lm || exit 1
	"$W/gpx_gen" --scale "$SCALE" --queries "$QUERIES" --extra 0 --seed 1 --order "$ORDER" \
		--quiet --out "$W/gen" >/dev/null || exit 1
	if [ "$MIN_SHORTEST" -gt 0 ]; then
		read -r nq _ np < <(bl_prune_min_shortest "$W/gen" "$MIN_SHORTEST") || exit 1
		bl_step "  $nq queries with shortest list >= $MIN_SHORTEST, $np postings"
		[ "$nq" -gt 0 ] || { echo "no query qualifies" >&2; exit 1; }
	fi
	ndocs=$(sed -n 's/^ndocs=//p' "$W/gen/stats.txt")
fi
answers=()
[ ! -f "$W/gen/answers.copy" ] || answers=(--answers "$W/gen/answers.copy")

for i in $(seq 1 "$ROUNDS"); do
	for r in A B; do
		bl_step "round $i: $r"
		env -u LD_LIBRARY_PATH "$W/$r/bench_codec" --postings "$W/gen/postings.copy" \
			--ndocs "$ndocs" --queries "$W/gen/queries.copy" "${answers[@]}" \
			--dataset "$r" --min-time "$MIN_TIME" --tsv "$W/results.tsv" >/dev/null || exit 1
	done
done

echo
echo "A = ${rev[A]}, B = ${rev[B]}; $(uname -m), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC');"
if [ -n "${AB_COLLECTION:-}" ]; then
	echo "collection $AB_COLLECTION ($ndocs documents), $QUERIES queries; best of $ROUNDS rounds"
else
	echo "scale $SCALE, $QUERIES queries, shortest list >= $MIN_SHORTEST, order $ORDER; best of $ROUNDS rounds"
fi
echo
echo "| figure | A | B | B / A |"
echo "|---|---|---|---|"
# decode rows: M docIDs/s (column 6); query rows: queries/s (column 6);
# a row whose status (last column) is not ok is left out
awk -F'\t' '
	($1 == "decode" || $1 == "query") && $NF ~ /^ok/ {
		k = ($1 == "decode" ? "decode " $3 " (M docIDs/s)" : $3 " (queries/s)")
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		if ($6 + 0 > best[k, $2]) best[k, $2] = $6 + 0
	}
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; a = best[k, "A"]; b = best[k, "B"]
			printf "| %s | %.1f | %.1f | %s |\n", k, a, b, (a > 0 ? sprintf("%.2f", b / a) : "n/a")
		}
	}' "$W/results.tsv"
