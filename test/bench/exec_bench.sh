#!/usr/bin/env bash
# test/bench/exec_bench.sh - the executor path against the in-backend path:
# throughput and latency for 1, 4, 16, 64 concurrent clients (pgbench, one
# random query per transaction) and batching thresholds c from 16K to 4M
# postings, and the time of one statement that evaluates 1000 queries
# (GROUP BY and posting_intersect_batch), all in one run on one cluster.
#
#   test/bench/exec_bench.sh            (root or a user with pg_config on PATH
#                                        and the extension installed)
#
# Knobs (environment):
#   EXEC_BENCH_SCALE       collection scale, 1.0 = GOV2's 25.2M docs (0.2)
#   EXEC_BENCH_QUERIES     queries in the log (1000)
#   EXEC_BENCH_TIME        seconds per pgbench run (10)
#   EXEC_BENCH_CLIENTS     client counts ("1 4 16 64")
#   EXEC_BENCH_THRESHOLDS  gpuidx.batch_threshold values
#                          ("16384 65536 262144 1048576 4194304")
#   EXEC_BENCH_MAX_WAIT    gpuidx.batch_max_wait in microseconds (2000)
#   EXEC_BENCH_THREADS     gpuidx.executor_threads (0: one per CPU)
#   EXEC_BENCH_THREAD_SWEEP  executor thread counts for the one-statement
#                          runs, e.g. "1 2 4 8 16" (none)
#   EXEC_BENCH_CODEC       pfor | lrc | qs (pfor)
#   EXEC_BENCH_REPS        repetitions of the batch statements (5)
#   EXEC_BENCH_OUT         report file (docs/bench/executor-HOST.md)
#   EXEC_BENCH_RESULTS     keep the raw results (TSV, pgbench output) here
#
# The collection is test/gen/gpx_gen's GOV2-calibrated synthetic one
# (queries of 2-6 terms in Table 4's proportions, mean shortest list
# 8.4K * scale).  The executor runs with gpuidx.device = cpu (its CPU
# threads; a GPU build would run gpu); the in-backend path is the same
# query with gpuidx.use_executor = off.  Every answer is checked against
# the generator's answers before anything is timed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
SCALE=${EXEC_BENCH_SCALE:-0.2}
QUERIES=${EXEC_BENCH_QUERIES:-1000}
SECS=${EXEC_BENCH_TIME:-10}
CLIENTS=${EXEC_BENCH_CLIENTS:-"1 4 16 64"}
THRESHOLDS=${EXEC_BENCH_THRESHOLDS:-"16384 65536 262144 1048576 4194304"}
MAXWAIT=${EXEC_BENCH_MAX_WAIT:-2000}
THREADS=${EXEC_BENCH_THREADS:-0}
THREAD_SWEEP=${EXEC_BENCH_THREAD_SWEEP:-}
CODEC=${EXEC_BENCH_CODEC:-pfor}
REPS=${EXEC_BENCH_REPS:-5}
OUT=${EXEC_BENCH_OUT:-docs/bench/executor-$(hostname -s).md}
NCPU=$(nproc)

# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
BL_TAG=exec-bench
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init exec-bench "${EXEC_BENCH_INSTALL:-1}" || exit 1
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT
DB=bench_exec
RES=${EXEC_BENCH_RESULTS:-$BL_WORK/results}
mkdir -p "$RES"

bl_step "generating: scale $SCALE, $QUERIES queries"
bl_gen_synth "$BL_WORK/gen" "$SCALE" "$QUERIES" || exit 1

bl_step "starting a cluster with gpuidx preloaded"
pgc_start "$BL_WORK/pg" 1 || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "the server does not start with gpuidx preloaded"; exit 1; }
cat >>"$PGC_DIR/data/postgresql.conf" <<EOF
gpuidx.device = cpu
gpuidx.arena_size = 1GB
gpuidx.cache_size = 1GB
gpuidx.executor_threads = $THREADS
gpuidx.batch_max_wait = $MAXWAIT
max_connections = 120
work_mem = 1GB
EOF
pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -l "$PGC_DIR/server.log" -w -t 60 restart >/dev/null || exit 1

bl_step "loading"
bl_load_synth "$DB" "$BL_WORK/gen" >/dev/null || exit 1
COL=docs_$CODEC
Q1="SELECT cardinality(posting_intersect(p.$COL)) FROM queries q JOIN postings p ON p.term_id = ANY (q.term_ids) WHERE q.qid = :q"
QALL="SELECT q.qid, posting_intersect(p.$COL) AS r FROM queries q, unnest(q.term_ids) t JOIN postings p ON p.term_id = t GROUP BY q.qid"
QBATCH="SELECT b.qid, b.docs AS r FROM (SELECT array_agg(q.qid::bigint) AS i, array_agg(p.$COL) AS l FROM queries q JOIN postings p ON p.term_id = ANY (q.term_ids)) s, posting_intersect_batch(s.i, s.l) b"
nq=$(bl_val "$DB" "SELECT count(*) FROM queries")

# sanity: both paths give the generator's answer sizes
for mode in on off; do
	bad=$(PGOPTIONS="-c gpuidx.use_executor=$mode" bl_val "$DB" "SELECT count(*) FROM ($QALL) r JOIN answers a USING (qid) WHERE cardinality(r.r) <> a.n")
	[ "$bad" = 0 ] || { echo "use_executor=$mode: $bad answers differ from the generator's"; exit 1; }
done
bl_step "answers checked on both paths ($nq queries)"
PLAN_ALL=$(bl_val "$DB" "EXPLAIN (COSTS OFF) $QALL" | head -n 1 | sed 's/^ *//')
bl_step "GROUP BY plan: $PLAN_ALL"

# a GUC for the executor, applied by reload
set_guc() {
	pgc_psql -d "$DB" -c "ALTER SYSTEM SET $1 = '$2'" -c "SELECT pg_reload_conf()" >/dev/null
	sleep 0.5
}
stats() {
	bl_val "$DB" "SELECT round(mean_batch_postings)::bigint || ' ' || round(mean_batch_requests::numeric, 1) || ' ' || batches || ' ' || multi_backend_batches || ' ' || fallbacks FROM gpuidx_stats"
}

# pgbench run: run_pgbench LABEL CLIENTS [PGOPTIONS] -> "tps p50 p95 p99" (ms)
printf '\\set q random(1, %s)\n%s;\n' "$nq" "$Q1" >"$BL_WORK/q1.sql"
chmod a+r "$BL_WORK/q1.sql"
run_pgbench() {
	bl_pgbench "$DB" q1.sql "$2" "$SECS" "$RES/$1.out" "${3:-}"
}

bl_step "pgbench: $SECS s per run, clients: $CLIENTS; thresholds: $THRESHOLDS"
TSV=$RES/clients.tsv
: >"$TSV"
for c in $CLIENTS; do
	r=$(run_pgbench "backend-$c" "$c" "-c gpuidx.use_executor=off") || exit 1
	echo -e "backend\t$c\t-\t$r\t-" >>"$TSV"
	bl_step "  in-backend, $c clients: $r"
	for t in $THRESHOLDS; do
		set_guc gpuidx.batch_threshold "$t"
		pgc_psql -d "$DB" -c "SELECT gpuidx_stats_reset()" >/dev/null
		r=$(run_pgbench "exec-$c-$t" "$c") || exit 1
		s=$(stats)
		echo -e "executor\t$c\t$t\t$r\t$s" >>"$TSV"
		bl_step "  executor c=$t, $c clients: $r  (batch postings, requests/batch, batches, multi-backend, fallbacks: $s)"
	done
done

# one statement evaluating all queries: median of REPS runs (ms)
time_stmt() {
	local opts=$1 sql=$2 i ms
	for i in $(seq 1 "$REPS"); do
		ms=$(PGOPTIONS="$opts" pgc_psql -d "$DB" -At -c '\timing on' \
			-c "SELECT count(*), sum(cardinality(r)) FROM ($sql) s" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		echo "$ms"
	done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'
}
bl_step "one statement of $nq queries ($REPS runs each, median)"
BTSV=$RES/batch.tsv
: >"$BTSV"
for form in groupby batchfn; do
	sql=$QALL
	[ "$form" = batchfn ] && sql=$QBATCH
	ms=$(time_stmt "-c gpuidx.use_executor=off" "$sql")
	echo -e "$form\tbackend\t-\t$ms\t-" >>"$BTSV"
	bl_step "  $form in-backend: $ms ms"
	for t in $THRESHOLDS; do
		set_guc gpuidx.batch_threshold "$t"
		pgc_psql -d "$DB" -c "SELECT gpuidx_stats_reset()" >/dev/null
		ms=$(time_stmt "" "$sql")
		s=$(bl_val "$DB" "SELECT requests || ' ' || batches || ' ' || round(mean_batch_queries::numeric, 1) FROM gpuidx_stats")
		echo -e "$form\texecutor\t$t\t$ms\t$s" >>"$BTSV"
		bl_step "  $form executor c=$t: $ms ms (requests, batches, queries/batch over $REPS runs: $s)"
	done
done

# the same statements with fewer or more executor threads (c = the last threshold)
TTSV=$RES/threads.tsv
: >"$TTSV"
for n in $THREAD_SWEEP; do
	set_guc gpuidx.executor_threads "$n"
	for form in groupby batchfn; do
		sql=$QALL
		[ "$form" = batchfn ] && sql=$QBATCH
		ms=$(time_stmt "" "$sql")
		echo -e "$form\t$n\t$ms" >>"$TTSV"
		bl_step "  $form, $n executor threads: $ms ms"
	done
done

# ------------------------------------------------------------- report --
mkdir -p "$(dirname "$OUT")"
{
	echo "# Executor benchmark ($(hostname -s), $(date -u +%Y-%m-%d))"
	echo
	echo "- command: \`$CMDLINE\` (EXEC_BENCH_SCALE=$SCALE EXEC_BENCH_QUERIES=$QUERIES EXEC_BENCH_TIME=$SECS EXEC_BENCH_MAX_WAIT=$MAXWAIT EXEC_BENCH_CODEC=$CODEC)"
	echo "- machine: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $NCPU CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM; $(pg_config --version)"
	echo "- executor: $(bl_val "$DB" "SELECT device_active FROM gpuidx_info()"), gpuidx.batch_max_wait = $MAXWAIT us"
	echo "- collection: $(grep -E '^(ndocs|postings|queries|mean_shortest)=' "$BL_WORK/gen/stats.txt" | sed 's/\t.*//' | tr '\n' ' ')"
	echo
	echo "## pgbench, one random query per transaction ($SECS s per run)"
	echo
	echo "| path | clients | c (postings) | tps | p50 ms | p95 ms | p99 ms | tps vs backend | mean batch (postings) | requests / batch |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	awk -F'\t' '
		$1 == "backend" { split($4, r, " "); base[$2] = r[1] }
		{ split($4, r, " "); split($5, s, " ");
		  ratio = ($1 == "backend") ? "1.00" : sprintf("%.2f", r[1] / base[$2]);
		  printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, r[1], r[2], r[3], r[4], ratio,
		         ($1 == "backend") ? "-" : s[1], ($1 == "backend") ? "-" : s[2] }' "$TSV"
	echo
	echo "## One statement evaluating all $nq queries (median of $REPS runs)"
	echo
	echo "- groupby: \`$QALL\` (plan: $PLAN_ALL)"
	echo "- batchfn: \`$QBATCH\`"
	echo
	echo "| form | path | c (postings) | ms | speed-up vs backend | requests, batches (all runs), queries per batch |"
	echo "|---|---|---:|---:|---:|---|"
	awk -F'\t' '
		$2 == "backend" { base[$1] = $4 }
		{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4,
		         ($2 == "backend") ? "1.00" : sprintf("%.2f", base[$1] / $4), $5 }' "$BTSV"
	if [ -s "$TTSV" ]; then
		echo
		echo "## The same statements by executor thread count (c = ${t:-default})"
		echo
		echo "| form | executor threads | ms | speed-up vs backend |"
		echo "|---|---:|---:|---:|"
		awk -F'\t' 'NR == FNR { if ($2 == "backend") base[$1] = $4; next }
			{ printf "| %s | %s | %s | %.2f |\n", $1, $2, $3, base[$1] / $3 }' "$BTSV" "$TTSV"
	fi
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
