#!/usr/bin/env bash
# test/bench/setops_bench.sh - the set type's speed, in one run, with
# ratios (docs/bench/setops.md, a page of docs/BENCHMARKS.md):
#
#   1. the library (test/bench/bin/bench_setops): union of compressed
#      lists along the merge plan against decoding and merging, and
#      against merging two plain arrays; the k-way union; appends;
#   2. SQL on a throwaway cluster: union of two long lists stored in a
#      table, T | T (and posting_or_count, posting_union) against the
#      int4[] + intarray path (icount(a | b)); appending one docID to a
#      stored list of SETOPS_APPEND_N docIDs, T + int4, against rebuilding
#      it (T(docids(t) || x), what the first version needed).
#
#   test/bench/setops_bench.sh     (root, or a user with pg_config on PATH
#                                   and the extension installed)
#
# Knobs (environment): SETOPS_N (docIDs per list of a union, 1000000),
# SETOPS_APPEND_N (10000000), SETOPS_LIB_N (bench_setops's N, 10000000),
# SETOPS_REPS (timed runs per statement, median, 11), SETOPS_OUT
# (docs/bench/setops.md), SETOPS_INSTALL (0: no make install as root).
# Every SQL path's answer is checked against intarray's before it is timed;
# every timed statement consumes its result (a length or a count).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
N=${SETOPS_N:-1000000}
AN=${SETOPS_APPEND_N:-10000000}
LN=${SETOPS_LIB_N:-10000000}
REPS=${SETOPS_REPS:-11}
OUT=${SETOPS_OUT:-docs/bench/setops.md}

# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
BL_TAG=setops
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init setops "${SETOPS_INSTALL:-1}" || exit 1
trap 'pgc_stop >/dev/null 2>&1; rm -rf "$BL_WORK"' EXIT
make -s test/bench/bin/bench_setops >/dev/null || { echo "building bench_setops failed"; exit 1; }

bl_step "library benchmark (N = $LN)"
lib=$(test/bench/bin/bench_setops "$LN") || { echo "bench_setops failed"; exit 1; }

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
-- median server-side milliseconds of a statement over n runs (after a warm-up)
CREATE FUNCTION bench_ms(stmt text, n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; r bigint; ms float8[] := '{}';
BEGIN
	EXECUTE stmt INTO r;
	FOR i IN 1..n LOOP
		t0 := clock_timestamp();
		EXECUTE stmt INTO r;
		ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x);
END \$\$;
EOF

bl_step "checking every path's answers"
bad=$(bl_val $DB "
SELECT count(*) FILTER (WHERE (a.pf | b.pf)::int4[] <> (a.arr | b.arr)
                           OR (a.lr | b.lr)::int4[] <> (a.arr | b.arr)
                           OR (a.qs | b.qs)::int4[] <> (a.arr | b.arr)
                           OR posting_or_count(a.qs, b.pf) <> icount(a.arr | b.arr))
FROM lists a JOIN lists b ON b.id = a.id + 1 WHERE a.id IN (1, 3, 5)")
[ "$bad" = 0 ] || { echo "union answers differ from intarray's ($bad pairs)"; exit 1; }
bad=$(bl_val $DB "
SELECT count(*) FILTER (WHERE (pf + (last_docid(pf) + 1))::bytea
                              <> posting_pfor(docids(pf) || (last_docid(pf) + 1))::bytea
                           OR (qs + (last_docid(qs) + 1))::bytea
                              <> posting_qs(docids(qs) || (last_docid(qs) + 1))::bytea
                           OR (lr + (last_docid(lr) + 1))::bytea
                              <> posting_lrc(docids(lr) || (last_docid(lr) + 1))::bytea)
FROM big")
[ "$bad" = 0 ] || { echo "appended lists differ from rebuilt ones"; exit 1; }

# ms STATEMENT: the median of REPS runs
ms() {
	bl_val $DB "SELECT round(bench_ms(\$q\$$1\$q\$, $REPS)::numeric, 2)"
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
}

bl_step "timing the unions"
union_rows=""
for pair in "1 interleaved" "3 dense-with-sparse" "5 disjoint-ranges"; do
	set -- $pair
	id=$1 name=$2
	from="FROM lists a, lists b WHERE a.id = $id AND b.id = $id + 1"
	ia=$(ms "SELECT icount(a.arr | b.arr) $from")
	row="| $name | $(bl_val $DB "SELECT cardinality(arr) FROM lists WHERE id = $id") + $(bl_val $DB "SELECT cardinality(arr) FROM lists WHERE id = $id + 1") | $ia"
	for t in pf lr qs; do
		u=$(ms "SELECT length(a.$t | b.$t) $from")
		c=$(ms "SELECT posting_or_count(a.$t, b.$t) $from")
		g=$(ms "SELECT cardinality(posting_union($t)) FROM lists WHERE id IN ($id, $id + 1)")
		row="$row | $u ($(ratio "$ia" "$u")x) | $c ($(ratio "$ia" "$c")x) | $g ($(ratio "$ia" "$g")x)"
	done
	union_rows="$union_rows$row |"$'\n'
done

bl_step "timing the appends"
append_rows=""
for t in pf lr qs; do
	case $t in pf) ty=posting_pfor ;; lr) ty=posting_lrc ;; qs) ty=posting_qs ;; esac
	a=$(ms "SELECT length($t + (last_docid($t) + 1)) FROM big")
	r=$(ms "SELECT length($ty(docids($t) || (last_docid($t) + 1))) FROM big")
	d=$(ms "SELECT cardinality(docids($t)) FROM big")
	append_rows="$append_rows| $ty | $AN | $(bl_val $DB "SELECT size_bytes($t) FROM big") | $a | $r | $(ratio "$r" "$a")x | $d |"$'\n'
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
	echo "# Set algebra and appends"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: $CMDLINE (SETOPS_N=$N SETOPS_APPEND_N=$AN SETOPS_LIB_N=$LN SETOPS_REPS=$REPS)"
	echo "- **gpuidx**: $(git rev-parse --short HEAD 2>/dev/null)"
	echo "- **machine**: $cpu, $(nproc) CPUs (shared with other work: figures are medians of $REPS runs, compare ratios within this run)"
	echo "- **PostgreSQL**: $(bl_val $DB 'SHOW server_version')"
	echo
	echo "## SQL: union of two stored lists against int4[] + intarray"
	echo
	echo "Median server-side milliseconds of one statement (detoasting both"
	echo "operands included), and how many times faster than the intarray"
	echo "path \`icount(a.arr | b.arr)\` on the same docIDs stored as \`int4[]\`."
	echo "\`T | T\` builds the union as a list of type T (merge plus encode) and"
	echo "reads its length; \`posting_or_count\` only counts (intersection"
	echo "count); \`posting_union(T)\` is the aggregate over the two rows,"
	echo "returning \`int4[]\` like intarray."
	echo
	echo "| lists | docIDs | intarray \`|\` ms | pfor \`|\` | pfor count | pfor \`posting_union\` | lrc \`|\` | lrc count | lrc \`posting_union\` | qs \`|\` | qs count | qs \`posting_union\` |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	printf '%s' "$union_rows"
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
	echo
	echo "## Library (test/bench/bin/bench_setops $LN)"
	echo
	echo "One thread, no PostgreSQL. \"decode + merge\" decodes both lists and"
	echo "merges the arrays; \"merge of int arrays\" merges two plain arrays"
	echo "(intarray's \`|\` once its inputs are in memory); \"encoding the"
	echo "union\" is what \`T | T\` adds to build its result; ratios below 1 mean"
	echo "the first column is faster."
	echo "$lib" | sed 1d
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
