#!/usr/bin/env bash
# test/bench/pipeline_bench.sh [OUTDIR] - the executor under many clients,
# issue #21's rows in one run: on the acceptance queries (the cpu-long
# collection: GOV2-calibrated, scale 0.3, 10000 queries of which those
# whose shortest list has >= 10^4 docIDs, random order), for 1, 16 and 64
# clients: intarray's &, the "floor: stored answer only" path, each codec
# in the backend, and each codec through the executor (gpuidx.device =
# gpu, no fallback) once per executor setting, with the executor's
# gpuidx_stats and cost model after each run.  Every answer of every path
# is checked against the generator's first.
#
#   test/bench/pipeline_bench.sh [OUTDIR]      (root, after make install)
#
# Knobs (environment):
#   PIPE_CLIENTS   client counts ("1 16 64")
#   PIPE_TYPES     codecs ("pfor lrc qs")
#   PIPE_DEVICE    gpu | cpu: the executor's device (cpu: its CPU threads,
#                  for a machine without a GPU)
#   PIPE_SETTINGS  executor settings, one run of the executor paths each,
#                  ';'-separated sighup settings per entry, entries
#                  separated by '|' ("gpuidx.pipeline_depth=2|gpuidx.pipeline_depth=1":
#                  the pipeline, then one batch at a time as before it)
#   PIPE_TIME      seconds of timed rounds per path (4)
#   PIPE_SCALE, PIPE_QUERIES, PIPE_MIN_SHORTEST   the collection (0.3, 10000, 10000)
#   PIPE_CONF      extra postgresql.conf lines
#   PIPE_AUTO      1: also each codec with gpuidx.device = auto (the cost
#                  model routes each query to the executor or keeps it in
#                  the backend), once per setting, its split in stats.txt
#   PIPE_WAITS     1: sample what every other process of the cluster waits
#                  on (pg_stat_activity, every 5 ms for PIPE_TIME s, from
#                  1 s into each executor path) into OUTDIR/waits.txt
#   PIPE_PERF      a perf binary: record the executor paths of the last
#                  setting system-wide (perf record -a -F 999) into
#                  OUTDIR/perf-CODEC-NCLIENTS-K.data (K: the setting's number)
# Writes OUTDIR/pipeline.md (the tables: queries/s, p50, p99, x intarray,
# % of the stored-answer floor, x the same codec in the backend),
# OUTDIR/results.tsv (bench_query's rows), OUTDIR/stats.txt (gpuidx_stats,
# gpuidx_info and gpuidx_executor_profile after each executor run),
# OUTDIR/meta.txt; OUTDIR
# defaults to test/bench/out/pipeline-UTCSTAMP (ignored by git).
set -u
OUTD=${1:-test/bench/out/pipeline-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUTD" || exit 1
OUTD=$(cd "$OUTD" && pwd)
CLIENTS=${PIPE_CLIENTS:-1 16 64}
TYPES=${PIPE_TYPES:-pfor lrc qs}
DEV=${PIPE_DEVICE:-gpu}
SETTINGS=${PIPE_SETTINGS:-gpuidx.pipeline_depth=2|gpuidx.pipeline_depth=1}
SECS=${PIPE_TIME:-4}
SCALE=${PIPE_SCALE:-0.3}
NQ=${PIPE_QUERIES:-10000}
MINS=${PIPE_MIN_SHORTEST:-10000}
CMDLINE="$0 $*"
BL_TAG=pipe; export BL_T0=$(date +%s.%N)
. test/bench/pgcluster.sh; . test/bench/benchlib.sh
BL_WORK=$(mktemp -d /tmp/pipe.XXXXXX); chmod 755 "$BL_WORK"
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT
TSV=$OUTD/results.tsv
STATS=$OUTD/stats.txt
: >"$TSV"
: >"$STATS"

bl_step "building the benchmark tools"
make -s bench-tools >"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }
GPUIDX_PG_CONF="max_connections = 120
${PIPE_CONF:-}" pgc_start "$BL_WORK/pg" 1 || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "the server does not start with gpuidx preloaded"; exit 1; }
for i in $(seq 1 20); do [ "$(bl_executors postgres)" -gt 0 ] && break; sleep 0.5; done
g=$BL_WORK/gen
bl_step "generating: scale $SCALE, $NQ queries, random order; keeping shortest list >= $MINS"
test/gen/bin/gpx_gen --scale "$SCALE" --queries "$NQ" --extra 0 --seed 1 --order random \
	--quiet --out "$g" >/dev/null || exit 1
read -r nq_kept _ _ < <(bl_prune_min_shortest "$g" "$MINS") || exit 1
chmod -R a+rX "$g"
bl_load_synth d "$g" || exit 1
why=$(bl_exec_device d "$DEV")
[ -z "$why" ] || { echo "no $DEV executor: $why"; exit 1; }

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: PIPE_CLIENTS='$CLIENTS' PIPE_TYPES='$TYPES' PIPE_DEVICE=$DEV PIPE_SETTINGS='$SETTINGS' PIPE_TIME=$SECS PIPE_SCALE=$SCALE PIPE_QUERIES=$NQ PIPE_MIN_SHORTEST=$MINS $CMDLINE"
	echo "gpuidx: $(git rev-parse --short HEAD 2>/dev/null)$(git status --porcelain 2>/dev/null | grep -q . && echo ' + uncommitted changes')"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online"
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		echo "gpu: $(nvidia-smi -L | sed 's/ (UUID.*//' | paste -sd ';' -)"
	else
		echo "gpu: none"
	fi
	echo "postgresql: $(pg_config --version)"
	echo "queries: $nq_kept with shortest list >= $MINS docIDs"
	echo "executor: $(bl_val d "SELECT device_active FROM gpuidx_info()")"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUTD/meta.txt"

# bq NCLIENTS PATH...: the paths over the query set, every answer checked
bq() {
	local nc=$1 args=() p
	shift
	for p in "$@"; do args+=(--path "$p"); done
	PGDATABASE=d test/bench/bin/bench_query --dataset x \
		--queries-sql "SELECT qid, term_ids::text, NULL FROM queries ORDER BY qid" \
		--answers-sql "SELECT qid, n, hash FROM answers" --min-time "$SECS" --max-time $((SECS * 4)) \
		--clients "$nc" --tsv "$TSV" --header 0 --cpu 1 "${args[@]}" 2>&1 | grep "^|" | grep -v -e "^| path " -e "^|---"
}
# waits_sample TAG: PIPE_WAITS's sampler (one session, 5 ms steps), its
# counts appended to OUTDIR/waits.txt
waits_sample() {
	sleep 1
	{
		echo "== $1"
		pgc_psql -d d -At -F ' | ' \
			-c "CREATE TEMP TABLE w (backend text, wtype text, wevent text, n int)" \
			-c "DO \$\$ BEGIN FOR i IN 1..($SECS * 200) LOOP
				PERFORM pg_stat_clear_snapshot();
				INSERT INTO w SELECT backend_type, coalesce(wait_event_type, 'CPU'), coalesce(wait_event, '-'), count(*)
				  FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state IS DISTINCT FROM 'idle'
				   AND backend_type IN ('client backend', '$GPX_EXEC_TYPE') GROUP BY 1, 2, 3;
				PERFORM pg_sleep(0.005); END LOOP; END \$\$" \
			-c "SELECT backend, wtype, wevent, sum(n), round(100.0 * sum(n) / sum(sum(n)) OVER (PARTITION BY backend), 1) AS pct
				FROM w GROUP BY 1, 2, 3 ORDER BY 1, 4 DESC"
	} >>"$OUTD/waits.txt" 2>&1
}
GPX_EXEC_TYPE=$(sed -n 's/^#define GPX_EXEC_WORKER_TYPE "\(.*\)"/\1/p' src/*.h | head -1)
# bq_perf TAG NCLIENTS PATH: bq, with PIPE_PERF recording the whole host meanwhile
bq_perf() {
	local tag=$1 pp= ws=
	shift
	if [ "${PIPE_WAITS:-0}" = 1 ]; then
		waits_sample "$tag" &
		ws=$!
	fi
	if [ -n "${PIPE_PERF:-}" ] && [ "${tag##*-}" = "${#SETS[@]}" ]; then
		"$PIPE_PERF" record -a -F 999 -o "$OUTD/perf-$tag.data" >"$BL_WORK/perf.log" 2>&1 &
		pp=$!
		sleep 0.5
	fi
	bq "$@"
	if [ -n "$pp" ]; then
		kill -INT "$pp" 2>/dev/null
		wait "$pp" || tail -3 "$BL_WORK/perf.log"
	fi
	[ -z "$ws" ] || wait "$ws"
}
# apply SET: a ';'-separated list of sighup settings, the others reset
apply() {
	local a kv
	pgc_psql -d d -c "ALTER SYSTEM RESET ALL" >/dev/null
	IFS=';' read -ra kv <<<"$1"
	for a in "${kv[@]}"; do
		[ -n "${a// }" ] && pgc_psql -d d -c "ALTER SYSTEM SET ${a%%=*} = '${a#*=}'" >/dev/null
	done
	pgc_psql -d d -c "ALTER SYSTEM SET gpuidx.device = '$DEV'" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 1
}
ans="(SELECT a.docs FROM answer_docs a WHERE a.term_ids = \$1::int[])"
IFS='|' read -ra SETS <<<"$SETTINGS"
for nc in $CLIENTS; do
	bl_step "$nc client(s)"
	apply ""
	bq "$nc" "intarray & over int4[]||SELECT bench_int_and(docs_arr) FROM postings WHERE term_id = ANY (\$1::int[])" \
		"floor: stored answer only||SELECT $ans"
	for t in $TYPES; do
		bq "$nc" "$t in-backend|SET gpuidx.use_executor = off|SELECT posting_intersect(docs_$t) FROM postings WHERE term_id = ANY (\$1::int[])"
	done
	k=0
	for set in "${SETS[@]}"; do
		apply "$set"
		k=$((k + 1))
		for t in $TYPES; do
			pgc_psql -d d -c "SELECT gpuidx_stats_reset()" >/dev/null
			bq_perf "$t-$nc-$k" "$nc" "$t executor $DEV ${set:-defaults}|SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = '$DEV'|SELECT posting_intersect(docs_$t) FROM postings WHERE term_id = ANY (\$1::int[])"
			{
				echo "== $t executor $DEV ${set:-defaults}, $nc client(s)"
				pgc_psql -d d -x -c "SELECT * FROM gpuidx_stats" \
					-c "SELECT device_active, cost_backend_ns, cost_executor_ns, overhead_us, cost_batch_us, wait_us, pipeline_depth, cache_entries FROM gpuidx_info()" \
					-c "SELECT phase, calls, round(time_ms::numeric, 1) AS time_ms, round(100 * share::numeric, 1) AS pct, round((1000 * time_ms / NULLIF((SELECT batches FROM gpuidx_stats), 0))::numeric, 2) AS us_per_batch FROM gpuidx_executor_profile()"
			} >>"$STATS" 2>&1
			[ "${PIPE_AUTO:-0}" = 1 ] || continue
			pgc_psql -d d -c "SELECT gpuidx_stats_reset()" >/dev/null
			bq_perf "$t-$nc-$k-auto" "$nc" "$t executor auto ${set:-defaults}|SET gpuidx.use_executor = on; SET gpuidx.device = 'auto'|SELECT posting_intersect(docs_$t) FROM postings WHERE term_id = ANY (\$1::int[])"
			{
				echo "== $t executor auto ${set:-defaults}, $nc client(s)"
				pgc_psql -d d -x -c "SELECT backend_queries, queries, batches, gpu_batches, fallbacks, round(mean_roundtrip_ms::numeric, 3) AS mean_roundtrip_ms FROM gpuidx_stats" \
					-c "SELECT device_active, cost_backend_ns, cost_executor_ns, overhead_us, cost_batch_us, wait_us FROM gpuidx_info()"
			} >>"$STATS" 2>&1
		done
	done
done
apply ""

# the tables: one per client count, ratios within the run (PIPE_REPORT=TSV
# redoes them from a run's results.tsv)
{
	echo "# The executor under many clients: $(sed -n 's/^queries: //p' "$OUTD/meta.txt")"
	echo
	sed 's/^/- /' "$OUTD/meta.txt"
	echo
	echo "Queries/s over every query of the set (each answer checked), client-side p50 and p99 in ms;"
	echo "x intarray and % of floor: against the intarray and stored-answer rows of the same client count;"
	echo "x backend: against the same codec in the backend.  Executor rows: gpuidx.device = $DEV, per setting."
	awk -F'\t' -v clients="$CLIENTS" '
		$1 != "query" { next }
		{
			path = $3; nc = 1
			if (match(path, / \[[0-9]+ clients\]$/)) { nc = substr(path, RSTART + 2) + 0; path = substr(path, 1, RSTART - 1) }
			key = nc SUBSEP path
			if (!(key in qps)) { order[nc, ++n[nc]] = path }
			qps[key] = $11 == "ok" ? $6 : -1; p50[key] = $7; p99[key] = $8; st[key] = $11
		}
		END {
			split(clients, cl, " ")
			for (c = 1; c in cl; c++) {
				nc = cl[c]
				ia = qps[nc, "intarray & over int4[]"]; fl = qps[nc, "floor: stored answer only"]
				printf "\n## %d client%s\n\n", nc, nc == 1 ? "" : "s"
				print "| path | q/s | p50 ms | p99 ms | x intarray | % of floor | x backend |"
				print "|---|---:|---:|---:|---:|---:|---:|"
				for (i = 1; i <= n[nc]; i++) {
					p = order[nc, i]; k = nc SUBSEP p
					if (qps[k] < 0) { printf "| %s | %s | | | | | |\n", p, st[k]; continue }
					t = p; sub(/ .*/, "", t)
					be = qps[nc, t " in-backend"]
					s99 = "-"; sia = "-"; sfl = "-"; sbe = "-"
					if (p99[k] >= 0) s99 = sprintf("%.3f", p99[k])
					if (ia > 0) sia = sprintf("%.2f", qps[k] / ia)
					if (fl > 0) sfl = sprintf("%.0f %%", 100 * qps[k] / fl)
					if (be > 0 && p ~ /executor/) sbe = sprintf("%.2f", qps[k] / be)
					printf "| %s | %.0f | %.3f | %s | %s | %s | %s |\n", p, qps[k], p50[k], s99, sia, sfl, sbe
				}
			}
		}' "$TSV"
	echo
	echo "## Where the CPU went"
	echo
	echo "Over each path's timed rounds (bench_query --cpu, from /proc): the host's busy share of its"
	echo "$(nproc) cores, and CPU microseconds a query of the path's own backends, of the gpuidx executor"
	echo "(all its threads), of the client program (bench_query) and of every other process."
	echo
	echo "| path | host busy | cores busy | backends us/q | executor us/q | client us/q | other us/q | sum us/q |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	awk -F'\t' '$1 == "cpu" { printf "| %s | %.0f %% | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", $3, $4, $5, $6, $7, $8, $9, $6 + $7 + $8 + $9 }' "$TSV"
	echo
	echo "Executor statistics per run: stats.txt."
} >"$OUTD/pipeline.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUTD/meta.txt"
cat "$OUTD/pipeline.md"
bl_step "done: $OUTD/pipeline.md"
