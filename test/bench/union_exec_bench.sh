#!/usr/bin/env bash
# test/bench/union_exec_bench.sh - unions in SQL through the executor
# (#18): the same statements in the backend (gpuidx.use_executor = off),
# through the executor on its CPU threads and, where the machine has one,
# on its GPU (docs/bench/union-exec.md):
#
#   group        SELECT ... posting_union(docs) ... GROUP BY qid over
#                UNION_QUERIES queries of UNION_K terms each (one batch of
#                union requests through the executor);
#   group count  the same with posting_union_count (sizes only);
#   one query    the union of UNION_K of the longest lists, one statement.
#
# Lists: UNION_TERMS of them, lengths log-uniform in [UNION_MINLEN,
# UNION_MAXLEN], uniform over [0, UNION_UNIVERSE), stored in each type of
# UNION_TYPES; a query's terms are distinct random terms.  Every path's
# answers (an md5 of every group's docIDs or sizes) are checked against
# the backend's before they are timed; a timed statement returns a sum of
# its results' lengths (or sizes), so every union is built.  Figures:
# median server-side milliseconds of UNION_REPS runs after a warm-up, and
# queries per second.  The executor's device is switched with ALTER SYSTEM
# and a reload (bl_exec_device).
#
#   test/bench/union_exec_bench.sh      (root, or a user with pg_config on
#                                        PATH and the extension installed)
#
# Knobs (environment): UNION_TERMS (300) UNION_MINLEN (1000) UNION_MAXLEN
# (300000) UNION_UNIVERSE (25000000) UNION_QUERIES (200) UNION_K (8)
# UNION_TYPES ("pfor qs") UNION_REPS (5) UNION_OUT (docs/bench/union-exec.md)
# UNION_INSTALL (1: make install as root).  The cluster gets
# gpuidx.arena_size = 1GB (GPUIDX_PG_CONF lines are added after it).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
TERMS=${UNION_TERMS:-300}
MINLEN=${UNION_MINLEN:-1000}
MAXLEN=${UNION_MAXLEN:-300000}
UNIVERSE=${UNION_UNIVERSE:-25000000}
NQ=${UNION_QUERIES:-200}
K=${UNION_K:-8}
TYPES=${UNION_TYPES:-pfor qs}
REPS=${UNION_REPS:-5}
OUT=${UNION_OUT:-docs/bench/union-exec.md}

BL_TAG=union
export BL_T0=$(date +%s.%N)
# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init union "${UNION_INSTALL:-1}" || exit 1
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
trap 'pgc_stop >/dev/null 2>&1; rm -rf "$BL_WORK"' EXIT

bl_step "starting a cluster with gpuidx preloaded"
export GPUIDX_PG_CONF="gpuidx.arena_size = 1GB
gpuidx.batch_max_wait = 200${GPUIDX_PG_CONF:+
$GPUIDX_PG_CONF}"
pgc_start "$BL_WORK/pg" 1 >/dev/null || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "gpuidx could not be preloaded"; exit 1; }
DB=bench_union
[ "$(bl_create_db $DB)" = gpuidx ] || { cat "$BL_WORK/gpuidx-ext.err"; exit 1; }

bl_step "loading $TERMS lists of $MINLEN .. $MAXLEN docIDs, $NQ queries of $K terms"
cols=""
for t in $TYPES; do cols="$cols, arr::posting_$t AS $t"; done
pgc_psql -d $DB <<EOF || exit 1
SELECT setseed(0.18);
CREATE TABLE raw AS
SELECT t AS term, ARRAY(SELECT DISTINCT (random() * ($UNIVERSE - 1) + 0 * t)::int4
                        FROM generate_series(1, ($MINLEN * power($MAXLEN::float8 / $MINLEN, random()) + 0 * t)::int)
                        ORDER BY 1) AS arr
FROM generate_series(1, $TERMS) t;
CREATE TABLE lists AS SELECT term, cardinality(arr) AS n $cols FROM raw;
DROP TABLE raw;
CREATE TABLE queries AS
SELECT q AS qid, term FROM (
  SELECT q, term, row_number() OVER (PARTITION BY q ORDER BY random()) AS r
  FROM generate_series(1, $NQ) q, generate_series(1, $TERMS) term) s
WHERE r <= $K;
VACUUM ANALYZE lists;
VACUUM ANALYZE queries;
-- median server-side milliseconds of a statement over n runs (after a warm-up)
CREATE FUNCTION bench_ms(stmt text, n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; r numeric; ms float8[] := '{}';
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
npost=$(bl_val $DB "SELECT sum(n) FROM lists")
qin=$(bl_val $DB "SELECT round(avg(s)) FROM (SELECT sum(l.n) AS s FROM queries JOIN lists l USING (term) GROUP BY qid) x")
big=$(bl_val $DB "SELECT string_agg(term::text, ',') FROM (SELECT term FROM lists ORDER BY n DESC LIMIT $K) s")
bigin=$(bl_val $DB "SELECT sum(n) FROM lists WHERE term IN ($big)")

# the statements of a type: "name|check|timed": check returns the md5 of
# every result (compared across paths), timed one number from every result
stmts() {
	local t=$1 g="FROM queries JOIN lists l USING (term) GROUP BY qid"
	echo "group|SELECT md5(string_agg(r::text, ';' ORDER BY qid)) FROM (SELECT qid, posting_union(l.$t) AS r $g) s|SELECT sum(cardinality(r)) FROM (SELECT qid, posting_union(l.$t) AS r $g) s"
	echo "group count|SELECT md5(string_agg(c::text, ';' ORDER BY qid)) FROM (SELECT qid, posting_union_count(l.$t) AS c $g) s|SELECT sum(c) FROM (SELECT qid, posting_union_count(l.$t) AS c $g) s"
	echo "one query|SELECT md5(posting_union($t)::text) FROM lists WHERE term IN ($big)|SELECT cardinality(posting_union($t)) FROM lists WHERE term IN ($big)"
}

# path setups: the backend, the executor's CPU threads, its GPU
paths="backend cpu"
gpu_note=$(bl_exec_device $DB gpu)
[ -z "$gpu_note" ] && paths="$paths gpu"
setup() {
	case $1 in
		backend) echo "SET gpuidx.use_executor = off" ;;
		*) echo "SET gpuidx.device = $1; SET gpuidx.executor_fallback = off" ;;
	esac
}

rows=""
for t in $TYPES; do
	while IFS='|' read -r name check sql; do
		declare -A ms=() ans=()
		for p in $paths; do
			if [ "$p" = backend ]; then bl_exec_reset $DB; else
				note=$(bl_exec_device $DB "$p")
				[ -z "$note" ] || { echo "$p: $note"; exit 1; }
			fi
			ans[$p]=$(bl_val $DB "$(setup $p); $check")
			[ "${ans[$p]}" = "${ans[backend]}" ] || { echo "$t $name: $p answers ${ans[$p]}, the backend ${ans[backend]}"; exit 1; }
			bl_step "  $t $name: $p"
			ms[$p]=$(bl_val $DB "$(setup $p); SELECT round(bench_ms(\$q\$$sql\$q\$, $REPS)::numeric, 2)")
		done
		nq=$NQ
		[ "$name" = "one query" ] && nq=1
		row="| $t | $name | ${ms[backend]} | $(awk -v m="${ms[backend]}" -v n=$nq 'BEGIN { printf "%.0f", n / (m / 1000) }')"
		for p in cpu gpu; do
			if [ -n "${ms[$p]:-}" ]; then
				row="$row | ${ms[$p]} | $(awk -v m="${ms[$p]}" -v n=$nq 'BEGIN { printf "%.0f", n / (m / 1000) }') | $(awk -v a="${ms[backend]}" -v b="${ms[$p]}" 'BEGIN { printf "%.2fx", a / b }')"
			else
				row="$row | - | - | -"
			fi
		done
		rows="$rows$row | equal |"$'\n'
		unset ms ans
	done < <(stmts "$t")
done
bl_exec_reset $DB
stats=$(bl_val $DB "SELECT 'requests ' || requests || ', queries ' || queries || ' (unions ' || union_queries || '), batches ' || batches || ', gpu batches ' || gpu_batches || ', fallbacks ' || fallbacks FROM gpuidx_stats")
desc=$(bl_val $DB "SELECT device_active FROM gpuidx_info()")

cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
{
	echo "# Unions through the executor (SQL)"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: $CMDLINE (UNION_TERMS=$TERMS UNION_MINLEN=$MINLEN UNION_MAXLEN=$MAXLEN UNION_UNIVERSE=$UNIVERSE UNION_QUERIES=$NQ UNION_K=$K UNION_TYPES='$TYPES' UNION_REPS=$REPS)"
	echo "- **gpuidx**: $(git rev-parse --short HEAD 2>/dev/null)"
	echo "- **machine**: $cpu, $(nproc) CPUs (shared with other work: medians of $REPS runs, compare ratios within this run); load average $LOAD0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
	echo "- **GPU**: ${gpu_note:-the executor ran on $desc}"
	echo "- **PostgreSQL**: $(bl_val $DB 'SHOW server_version'), gpuidx.arena_size 1GB"
	echo "- **data**: $TERMS lists, $npost docIDs; a query's lists hold $qin docIDs on average; the one query: $K longest lists, $bigin docIDs"
	echo "- **executor counters at the end**: $stats"
	echo
	echo "Median server-side ms of one statement and queries per second: the"
	echo "backend (\`gpuidx.use_executor = off\`), the executor on its CPU"
	echo "threads (\`gpuidx.device = cpu\`, server-wide) and on its GPU (\`gpu\`),"
	echo "and how many times faster than the backend.  Every path's answers"
	echo "equal the backend's (checked before timing)."
	echo
	echo "| type | statement | backend ms | backend q/s | executor cpu ms | cpu q/s | cpu / backend | executor gpu ms | gpu q/s | gpu / backend | answers |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
	printf '%s' "$rows"
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
