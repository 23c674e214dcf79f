#!/usr/bin/env bash
# test/bench/setops_bench.sh - the set type's speed, in one run, with
# ratios (docs/bench/setops.md, a page of docs/BENCHMARKS.md):
#
#   1. the library (test/bench/bin/bench_setops): union of compressed
#      lists along the merge plan against decoding and merging, and
#      against merging two plain arrays; the union encoded as merged (what
#      T | T runs); the k-way union; appends;
#   2. SQL on a throwaway cluster: union, difference and symmetric
#      difference of two long lists stored in a table (T | T, T - T,
#      T # T, posting_or_count, the aggregates posting_union and
#      posting_union_agg over the two rows) against the int4[] + intarray
#      path icount(a | b); appending one docID to a stored list of
#      SETOPS_APPEND_N docIDs, T + int4, against rebuilding it
#      (T(docids(t) || x), what the first version needed).
#
#   test/bench/setops_bench.sh     (root, or a user with pg_config on PATH
#                                   and the extension installed)
#
# Knobs (environment): SETOPS_N (docIDs per list of a union, 1000000),
# SETOPS_APPEND_N (10000000), SETOPS_LIB_N (bench_setops's N, 10000000),
# SETOPS_MIN_MS (CPU milliseconds each SQL figure runs for at least, 400),
# SETOPS_OUT (docs/bench/setops.md), SETOPS_INSTALL (0: no make install as
# root), SETOPS_BASE (a git revision: its extension and bench_setops are
# built too, CPU-only, and every SQL figure is taken for both builds in
# turn, SETOPS_AB_ROUNDS times (2), swapping gpuidx.so in the server's
# library folder between them, this tree then built without CUDA too (the
# installed library is put back at the end); needs the same SQL script
# and write access to that folder).
#
# A SQL figure is the server's CPU time per statement (the backend's
# /proc/self/schedstat over runs adding up to SETOPS_MIN_MS, after a
# warm-up; wall-clock where that file cannot be read), so that other load
# on a shared machine does not enter it.  Every SQL path's answer is
# checked against intarray's before it is timed; every timed statement
# consumes its result (a length or a count).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
N=${SETOPS_N:-1000000}
AN=${SETOPS_APPEND_N:-10000000}
LN=${SETOPS_LIB_N:-10000000}
MIN_MS=${SETOPS_MIN_MS:-400}
OUT=${SETOPS_OUT:-docs/bench/setops.md}
BASE=${SETOPS_BASE:-}
ABR=${SETOPS_AB_ROUNDS:-2}
# whether the tree differs from HEAD, before this run writes its page
DIRTY=$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')

# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
BL_TAG=setops
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init setops "${SETOPS_INSTALL:-1}" || exit 1
LIBDIR=$(pg_config --pkglibdir)
trap 'pgc_stop >/dev/null 2>&1; [ -f "$BL_WORK/installed.so" ] && cp "$BL_WORK/installed.so" "$LIBDIR/gpuidx.so.setops" && mv "$LIBDIR/gpuidx.so.setops" "$LIBDIR/gpuidx.so"; rm -rf "$BL_WORK"' EXIT
make -s test/bench/bin/bench_setops >/dev/null || { echo "building bench_setops failed"; exit 1; }

if [ -n "$BASE" ]; then
	base=$(git rev-parse --short "$BASE^{commit}") || exit 1
	git diff --quiet "$base" -- sql/gpuidx.sql.in sql/gpuidx_gen.awk ||
		{ echo "SETOPS_BASE=$BASE: its SQL script differs from this tree's; no A/B"; exit 1; }
	[ -w "$LIBDIR" ] || { echo "SETOPS_BASE needs write access to $LIBDIR"; exit 1; }
	bl_step "building $base (the base: extension without CUDA, bench_setops)"
	mkdir -p "$BL_WORK/base" && git archive "$base" | tar -x -C "$BL_WORK/base" || exit 1
	# its bench_setops timed in CPU time like this tree's (bench_util.h's clock)
	sed -i 's/CLOCK_MONOTONIC/CLOCK_PROCESS_CPUTIME_ID/' "$BL_WORK/base/test/bench/bench_util.h"
	(cd "$BL_WORK/base" && make -s -j2 NVCC= >"$BL_WORK/base.log" 2>&1 &&
		make -s test/bench/bin/bench_setops >>"$BL_WORK/base.log" 2>&1) ||
		{ tail -20 "$BL_WORK/base.log"; echo "building $base failed"; exit 1; }
	# this tree's files as they are, built the same way
	bl_step "building this tree without CUDA (the other side)"
	mkdir -p "$BL_WORK/cur" &&
		git ls-files -z --cached --others --exclude-standard |
		xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		xargs -0 -r cp -a --parents -t "$BL_WORK/cur" || exit 1
	(cd "$BL_WORK/cur" && make -s -j2 NVCC= >"$BL_WORK/cur.log" 2>&1) ||
		{ tail -20 "$BL_WORK/cur.log"; echo "building this tree without CUDA failed"; exit 1; }
	cp "$LIBDIR/gpuidx.so" "$BL_WORK/installed.so" && cp "$BL_WORK/base/gpuidx.so" "$BL_WORK/base.so" &&
		cp "$BL_WORK/cur/gpuidx.so" "$BL_WORK/new.so" || exit 1
fi

bl_step "library benchmark (N = $LN)"
lib=$(test/bench/bin/bench_setops "$LN") || { echo "bench_setops failed"; exit 1; }
if [ -n "$BASE" ]; then
	bl_step "library benchmark of $base (N = $LN)"
	libbase=$("$BL_WORK/base/test/bench/bin/bench_setops" "$LN") || { echo "bench_setops of $base failed"; exit 1; }
fi

bl_step "starting a cluster"
pgc_start "$BL_WORK/pg" 0 >/dev/null || exit 1
DB=bench_setops
[ "$(bl_create_db $DB)" = gpuidx ] || { cat "$BL_WORK/gpuidx-ext.err"; exit 1; }

bl_step "loading lists ($N docIDs per union operand, $AN for the append)"
pgc_psql -d $DB <<EOF || exit 1
SELECT setseed(0.42);
-- pairs of lists: 1, 2 interleaved (random gaps averaging 16), 3 dense
-- (gap 2) with 4 sparse (gap 64), 5, 6 in disjoint docID ranges
-- (int4[] stored uncompressed, intarray's best case; the lists' types are
-- stored uncompressed by default)
CREATE TABLE lists (id int, arr int4[], pf posting_pfor, lr posting_lrc, qs posting_qs);
ALTER TABLE lists ALTER arr SET STORAGE EXTERNAL;
INSERT INTO lists
SELECT id, arr, arr, arr, arr
FROM (SELECT id, ARRAY(SELECT (s + sum(g) OVER (ORDER BY i))::int4
                       FROM (SELECT i, 1 + floor(random() * (2 * gap - 1))::int AS g
                             FROM generate_series(1, n) i) x) AS arr
      FROM (VALUES (1, 0, 16, $N), (2, 7, 16, $N), (3, 0, 2, $N), (4, 3, 64, $N / 8),
                   (5, 0, 16, $N), (6, 20 * $N, 16, $N)) v(id, s, gap, n)) y;
-- the list to append to (no int4[] column: only the rebuild path reads it)
CREATE TABLE big AS
SELECT ARRAY(SELECT (sum(1 + floor(random() * 31)::int) OVER (ORDER BY i))::int4
             FROM generate_series(1, $AN) i)::posting_pfor AS pf;
ALTER TABLE big ADD lr posting_lrc, ADD qs posting_qs;
UPDATE big SET lr = pf, qs = pf;
VACUUM ANALYZE lists;
VACUUM ANALYZE big;
-- the backend's CPU nanoseconds so far (/proc/self/schedstat), NULL where
-- that cannot be read
CREATE FUNCTION bench_cpu_ns() RETURNS bigint LANGUAGE plpgsql AS \$\$
BEGIN
	RETURN split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::bigint;
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END \$\$;
-- milliseconds per run of a statement: the backend's CPU time over runs
-- adding up to min_ms (at least 5, after a warm-up), or the wall-clock
-- median of 11 runs where the CPU time cannot be read
CREATE FUNCTION bench_ms(stmt text, min_ms int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 bigint; t1 bigint; w0 timestamptz; r bigint; k int := 0; ms float8[] := '{}';
BEGIN
	EXECUTE stmt INTO r;
	t0 := bench_cpu_ns();
	IF t0 IS NULL THEN
		FOR i IN 1..11 LOOP
			w0 := clock_timestamp();
			EXECUTE stmt INTO r;
			ms := ms || extract(epoch FROM clock_timestamp() - w0) * 1000;
		END LOOP;
		RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x);
	END IF;
	LOOP
		EXECUTE stmt INTO r;
		k := k + 1;
		t1 := bench_cpu_ns();
		EXIT WHEN k >= 5 AND (t1 - t0) >= min_ms * 1e6;
	END LOOP;
	RETURN (t1 - t0) / 1e6::float8 / k;
END \$\$;
EOF
clock=$(bl_val $DB "SELECT CASE WHEN bench_cpu_ns() IS NULL THEN 'wall-clock median of 11 runs' ELSE 'server CPU time per run' END")

bl_step "checking every path's answers"
check_answers() {
	local bad
	bad=$(bl_val $DB "
SELECT count(*) FILTER (WHERE (a.pf | b.pf)::int4[] <> (a.arr | b.arr)
                           OR (a.lr | b.lr)::int4[] <> (a.arr | b.arr)
                           OR (a.qs | b.qs)::int4[] <> (a.arr | b.arr)
                           OR (a.pf - b.pf)::int4[] <> (a.arr - b.arr)
                           OR (a.lr - b.lr)::int4[] <> (a.arr - b.arr)
                           OR (a.qs - b.qs)::int4[] <> (a.arr - b.arr)
                           OR (a.pf # b.pf)::int4[] <> ((a.arr | b.arr) - (a.arr & b.arr))
                           OR (a.lr # b.lr)::int4[] <> ((a.arr | b.arr) - (a.arr & b.arr))
                           OR (a.qs # b.qs)::int4[] <> ((a.arr | b.arr) - (a.arr & b.arr))
                           OR posting_or_count(a.qs, b.pf) <> icount(a.arr | b.arr)
                           OR (SELECT posting_union(c.pf) FROM lists c WHERE c.id IN (a.id, b.id)) <> (a.arr | b.arr)
                           OR (SELECT posting_union_agg(c.lr)::int4[] FROM lists c WHERE c.id IN (a.id, b.id)) <> (a.arr | b.arr)
                           OR (SELECT posting_union_agg(c.qs)::bytea FROM lists c WHERE c.id IN (a.id, b.id)) <> (a.qs | b.qs)::bytea)
FROM lists a JOIN lists b ON b.id = a.id + 1 WHERE a.id IN (1, 3, 5)")
	[ "$bad" = 0 ] || { echo "set operation answers differ from intarray's ($bad pairs$1)"; exit 1; }
}
check_answers ""
# use_so base|new: the build later connections load
use_so() {
	cp "$BL_WORK/$1.so" "$LIBDIR/gpuidx.so.setops" && mv "$LIBDIR/gpuidx.so.setops" "$LIBDIR/gpuidx.so"
}
if [ -n "$BASE" ]; then
	use_so base || exit 1
	check_answers ", build $base"
	use_so new || exit 1
	check_answers ", this tree without CUDA"
fi
bad=$(bl_val $DB "
SELECT count(*) FILTER (WHERE (pf + (last_docid(pf) + 1))::bytea
                              <> posting_pfor(docids(pf) || (last_docid(pf) + 1))::bytea
                           OR (qs + (last_docid(qs) + 1))::bytea
                              <> posting_qs(docids(qs) || (last_docid(qs) + 1))::bytea
                           OR (lr + (last_docid(lr) + 1))::bytea
                              <> posting_lrc(docids(lr) || (last_docid(lr) + 1))::bytea)
FROM big")
[ "$bad" = 0 ] || { echo "appended lists differ from rebuilt ones"; exit 1; }

# ms STATEMENT: milliseconds per run (bench_ms)
ms() {
	bl_val $DB "SELECT round(bench_ms(\$q\$$1\$q\$, $MIN_MS)::numeric, 2)"
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}
# ab STATEMENT: "new base" milliseconds, the builds in turn ABR times,
# each one's smallest figure (the one least disturbed)
ab() {
	local i t a="" b=""
	for i in $(seq "$ABR"); do
		use_so base || exit 1
		t=$(ms "$1"); b="$b $t"
		use_so new || exit 1
		t=$(ms "$1"); a="$a $t"
	done
	echo "$(echo $a | tr ' ' '\n' | sort -g | head -1) $(echo $b | tr ' ' '\n' | sort -g | head -1)"
}

bl_step "timing the set operations"
union_rows=""
ab_rows=""
for pair in "1 interleaved" "3 dense-with-sparse" "5 disjoint-ranges"; do
	set -- $pair
	id=$1 name=$2
	from="FROM lists a, lists b WHERE a.id = $id AND b.id = $id + 1"
	rows="FROM lists WHERE id IN ($id, $id + 1)"
	sizes="$(bl_val $DB "SELECT cardinality(arr) FROM lists WHERE id = $id") + $(bl_val $DB "SELECT cardinality(arr) FROM lists WHERE id = $id + 1")"
	ia=$(ms "SELECT icount(a.arr | b.arr) $from")
	for t in pf lr qs; do
		case $t in pf) ty=pfor ;; lr) ty=lrc ;; qs) ty=qs ;; esac
		row="| $name | $sizes | $ty | $ia"
		abrow="| $name | $ty"
		for st in "SELECT length(a.$t | b.$t) $from" "SELECT length(a.$t - b.$t) $from" \
			"SELECT length(a.$t # b.$t) $from" "SELECT posting_or_count(a.$t, b.$t) $from" \
			"SELECT cardinality(posting_union($t)) $rows" "SELECT length(posting_union_agg($t)) $rows"; do
			if [ -n "$BASE" ]; then
				read -r u ub < <(ab "$st")
				abrow="$abrow | $ub | $u | $(ratio "$u" "$ub")"
			else
				u=$(ms "$st")
			fi
			row="$row | $u ($(ratio "$ia" "$u")x)"
		done
		union_rows="$union_rows$row |"$'\n'
		ab_rows="$ab_rows$abrow |"$'\n'
	done
done

bl_step "timing the appends"
append_rows=""
ab_append=""
for t in pf lr qs; do
	case $t in pf) ty=posting_pfor ;; lr) ty=posting_lrc ;; qs) ty=posting_qs ;; esac
	if [ -n "$BASE" ]; then
		read -r a ab2 < <(ab "SELECT length($t + (last_docid($t) + 1)) FROM big")
		read -r r rb2 < <(ab "SELECT length($ty(docids($t) || (last_docid($t) + 1))) FROM big")
		ab_append="$ab_append| $ty | $ab2 | $a | $(ratio "$a" "$ab2") | $rb2 | $r | $(ratio "$r" "$rb2") |"$'\n'
	else
		a=$(ms "SELECT length($t + (last_docid($t) + 1)) FROM big")
		r=$(ms "SELECT length($ty(docids($t) || (last_docid($t) + 1))) FROM big")
	fi
	d=$(ms "SELECT cardinality(docids($t)) FROM big")
	append_rows="$append_rows| $ty | $AN | $(bl_val $DB "SELECT size_bytes($t) FROM big") | $a | $r | $(ratio "$r" "$a")x | $d |"$'\n'
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
	echo "# Set algebra and appends"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: $CMDLINE (SETOPS_N=$N SETOPS_APPEND_N=$AN SETOPS_LIB_N=$LN SETOPS_MIN_MS=$MIN_MS${BASE:+ SETOPS_BASE=$BASE SETOPS_AB_ROUNDS=$ABR})"
	echo "- **gpuidx**: $(git rev-parse --short HEAD 2>/dev/null)$DIRTY${BASE:+, against $base}"
	echo "- **machine**: $cpu, $(nproc) CPUs (shared with other work: SQL figures are the $clock, library figures medians of CPU time; compare ratios within this run)"
	echo "- **PostgreSQL**: $(bl_val $DB 'SHOW server_version')"
	echo
	echo "## SQL: set operations on two stored lists against int4[] + intarray"
	echo
	echo "Milliseconds per statement ($clock, detoasting both"
	echo "operands included), and how many times faster than the intarray"
	echo "path \`icount(a.arr | b.arr)\` on the same docIDs stored as \`int4[]\`."
	echo "\`|\`, \`-\`, \`#\` build the result as a list of type T (encoded as the"
	echo "merge produces it) and read its length; \`posting_or_count\` only"
	echo "counts (intersection count); \`posting_union(T)\` is the aggregate over"
	echo "the two rows returning \`int4[]\` like intarray, \`posting_union_agg(T)\`"
	echo "the one returning T."
	echo
	echo "| lists | docIDs | type | intarray \`|\` ms | \`|\` | \`-\` | \`#\` | \`posting_or_count\` | \`posting_union\` | \`posting_union_agg\` |"
	echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s' "$union_rows"
	if [ -n "$BASE" ]; then
		echo
		echo "### Against $base (the same statements, the two builds in turn)"
		echo
		echo "Both built without CUDA (the figures above are this build's); each"
		echo "figure the smallest of $ABR turns; ratio below 1: this tree is faster."
		echo
		echo "| lists | type | \`|\` $base | now | ratio | \`-\` $base | now | ratio | \`#\` $base | now | ratio | count $base | now | ratio | \`posting_union\` $base | now | ratio | \`posting_union_agg\` $base | now | ratio |"
		echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		printf '%s' "$ab_rows"
	fi
	echo
	echo "## SQL: appending one docID to a stored list"
	echo
	echo "\`SELECT length(t + x) FROM big\` (\`posting_add\` through \`gpx_append\`:"
	echo "the list's blocks but the last copied as bytes, the last one encoded"
	echo "again) against rebuilding the list, \`T(docids(t) || x)\`, the only way"
	echo "before \`posting_add\`. Both detoast the stored list; the last column"
	echo "is that floor (detoasting and decoding it, \`length(docids(t))\`)."
	echo
	echo "| type | docIDs | list bytes | \`t + x\` ms | rebuild ms | rebuild / append | detoast + decode ms |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s' "$append_rows"
	if [ -n "$BASE" ]; then
		echo
		echo "Against $base (as above):"
		echo
		echo "| type | \`t + x\` $base | now | ratio | rebuild $base | now | ratio |"
		echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
		printf '%s' "$ab_append"
	fi
	echo
	echo "## Library (test/bench/bin/bench_setops $LN)"
	echo
	echo "One thread, no PostgreSQL, medians of CPU time. \"decode + merge\""
	echo "decodes both lists and merges the arrays; \"merge of int arrays\""
	echo "merges two plain arrays (intarray's \`|\` once its inputs are in"
	echo "memory); \"union encoded as merged\" is what \`T | T\` runs (the union's"
	echo "blocks encoded as the merge produces them); \"encoding the union\" is"
	echo "gpx_encode of the union's array alone; ratios below 1 mean the first"
	echo "column is faster."
	echo "$lib" | sed 1d
	if [ -n "$BASE" ]; then
		echo
		echo "### The same with $base's bench_setops (its own columns, built with CPU time as its clock)"
		echo "$libbase" | sed 1d | sed 's/^## /#### /'
	fi
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
