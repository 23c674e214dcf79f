#!/usr/bin/env bash
# test/bench/shmread_bench.sh [OUTDIR] - issue #20's third target in one
# run: one client (SHM_CLIENTS), no GPU, the library preloaded, on the
# acceptance queries (the cpu-long collection: GOV2-calibrated, scale 0.3,
# 10000 queries of which those whose shortest list has >= 10^4 docIDs,
# random order).  Side by side, per codec:
#
#   floor: stored answer only          the answer stored at load time
#   floor: read T lists + answer       ... after detoasting the lists
#   T in-backend, not shared           gpuidx.use_executor = off: the
#                                      backend detoasts and decodes every
#                                      list, as without preloading
#   T executor round trip              gpuidx.device = cpu: every query
#                                      to the executor's CPU threads,
#                                      cached lists sent by key, unread
#   T read in place                    gpuidx.device = auto: the cost
#                                      model keeps a lone query in the
#                                      backend, which reads the lists the
#                                      shared cache holds in place
#
# with intarray's & for scale; every answer of every path is checked
# against the generator's first (bench_query's warm-up round).  The
# executor row runs before the read-in-place row and fills the shared
# cache (gpuidx.cache_size = SHM_CACHE); gpuidx_stats after each of them
# shows which path ran (stats.txt: the read-in-place rows must show
# lists_read_shared > 0 and queries = 0).
#
#   test/bench/shmread_bench.sh [OUTDIR]   (root, after make install into
#                                           the pg_config on PATH)
#
# Knobs (environment):
#   SHM_CLIENTS    client counts ("1")
#   SHM_TYPES      codecs ("pfor lrc qs")
#   SHM_TIME       seconds of timed rounds per path (4)
#   SHM_CACHE      gpuidx.cache_size (1GB: every list of the set fits)
#   SHM_SCALE, SHM_QUERIES, SHM_MIN_SHORTEST   the collection (0.3, 10000, 10000)
#   SHM_PERF       1: profile the read-in-place runs, this cluster's
#                  processes only (perf record -g -p of the postmaster, the
#                  backends it starts followed; as root; OUTDIR/perf-T.txt,
#                  the report by object and symbol)
# Writes OUTDIR/shmread.md (queries/s, p50, p99, x intarray, % of the
# stored-answer floor, % of the read-lists floor of the codec),
# OUTDIR/results.tsv (bench_query's rows), OUTDIR/stats.txt, OUTDIR/meta.txt;
# OUTDIR defaults to test/bench/out/shmread-UTCSTAMP (ignored by git).
set -u
OUTD=${1:-test/bench/out/shmread-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUTD" || exit 1
OUTD=$(cd "$OUTD" && pwd)
CLIENTS=${SHM_CLIENTS:-1}
TYPES=${SHM_TYPES:-pfor lrc qs}
SECS=${SHM_TIME:-4}
CACHE=${SHM_CACHE:-1GB}
SCALE=${SHM_SCALE:-0.3}
NQ=${SHM_QUERIES:-10000}
MINS=${SHM_MIN_SHORTEST:-10000}
CMDLINE="$0 $*"
BL_TAG=shm; export BL_T0=$(date +%s.%N)
. test/bench/pgcluster.sh; . test/bench/benchlib.sh
BL_WORK=$(mktemp -d /tmp/shm.XXXXXX); chmod 755 "$BL_WORK"
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT
TSV=$OUTD/results.tsv
STATS=$OUTD/stats.txt
: >"$TSV"
: >"$STATS"

bl_step "building the benchmark tools"
make -s bench-tools >"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }
GPUIDX_PG_CONF="gpuidx.device = cpu
gpuidx.cache_size = $CACHE" pgc_start "$BL_WORK/pg" 1 || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "the server does not start with gpuidx preloaded"; exit 1; }
for i in $(seq 1 20); do [ "$(bl_executors postgres)" -gt 0 ] && break; sleep 0.5; done
g=$BL_WORK/gen
bl_step "generating: scale $SCALE, $NQ queries, random order; keeping shortest list >= $MINS"
test/gen/bin/gpx_gen --scale "$SCALE" --queries "$NQ" --extra 0 --seed 1 --order random \
	--quiet --out "$g" >/dev/null || exit 1
read -r nq_kept _ _ < <(bl_prune_min_shortest "$g" "$MINS") || exit 1
chmod -R a+rX "$g"
bl_load_synth d "$g" || exit 1
why=$(bl_exec_device d cpu)
[ -z "$why" ] || { echo "no cpu executor: $why"; exit 1; }

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: SHM_CLIENTS='$CLIENTS' SHM_TYPES='$TYPES' SHM_TIME=$SECS SHM_CACHE=$CACHE SHM_SCALE=$SCALE SHM_QUERIES=$NQ SHM_MIN_SHORTEST=$MINS $CMDLINE"
	echo "gpuidx: $(git rev-parse --short HEAD 2>/dev/null)$(git status --porcelain 2>/dev/null | grep -q . && echo ' + uncommitted changes')"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online"
	echo "gpu: none used (the executor runs on its CPU threads)"
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
		--clients "$nc" --tsv "$TSV" --header 0 "${args[@]}" 2>&1 | grep "^|" | grep -v -e "^| path " -e "^|---"
}
# stats LABEL: gpuidx_stats and the cache after a run
stats() {
	{
		echo "== $1"
		pgc_psql -d d -x -c "SELECT queries, backend_queries, fallbacks, cache_hits, lists_not_read, lists_read_shared, cache_evictions FROM gpuidx_stats" \
			-c "SELECT cost_backend_ns, overhead_us, cost_batch_us, cache_entries, cache_bytes, cache_read_pins FROM gpuidx_info()"
	} >>"$STATS" 2>&1
}
ans="(SELECT a.docs FROM answer_docs a WHERE a.term_ids = \$1::int[])"
isect="SELECT posting_intersect(docs_\$T) FROM postings WHERE term_id = ANY (\$1::int[])"
for nc in $CLIENTS; do
	bl_step "$nc client(s)"
	floors=()
	for t in $TYPES; do
		floors+=("floor: read $t lists + stored answer||SELECT CASE WHEN f.s >= 0 THEN $ans END FROM (SELECT sum(length(posting_${t}_send(docs_$t))) AS s FROM postings WHERE term_id = ANY (\$1::int[])) f")
	done
	bq "$nc" "intarray & over int4[]||SELECT bench_int_and(docs_arr) FROM postings WHERE term_id = ANY (\$1::int[])" \
		"floor: stored answer only||SELECT $ans" "${floors[@]}"
	for t in $TYPES; do
		q=${isect//\$T/$t}
		bq "$nc" "$t in-backend, not shared|SET gpuidx.use_executor = off|$q"
		pgc_psql -d d -c "SELECT gpuidx_stats_reset()" >/dev/null
		bq "$nc" "$t executor round trip|SET gpuidx.device = 'cpu'; SET gpuidx.executor_fallback = off|$q"
		stats "$t executor round trip, $nc client(s)"
		pgc_psql -d d -c "SELECT gpuidx_stats_reset()" >/dev/null
		perf_pid=""
		if [ "${SHM_PERF:-0}" = 1 ]; then
			perf record -F 999 -g -p "$(head -n 1 "$PGC_DIR/data/postmaster.pid")" \
				-o "$BL_WORK/perf-$t.data" >/dev/null 2>&1 &
			perf_pid=$!
			sleep 2		# attached before the client connects
		fi
		bq "$nc" "$t read in place|SET gpuidx.device = 'auto'|$q"
		if [ -n "$perf_pid" ]; then
			kill -INT "$perf_pid"; wait "$perf_pid"
			perf report -i "$BL_WORK/perf-$t.data" --no-children --comms postgres \
				--percentage relative --sort dso,symbol --stdio --percent-limit 0.3 \
				-g none 2>/dev/null | grep -v -e '^$' -e '^# *$' >"$OUTD/perf-$t.txt"
		fi
		stats "$t read in place, $nc client(s)"
	done
done

# the tables: one per client count, ratios within the run
{
	echo "# Lists read in place from the shared cache: $(sed -n 's/^queries: //p' "$OUTD/meta.txt")"
	echo
	sed 's/^/- /' "$OUTD/meta.txt"
	echo
	echo "Queries/s over every query of the set (each answer checked), client-side p50 and p99 in ms;"
	echo "x intarray, % of floor (stored answer only) and % of read floor (the codec's lists read +"
	echo "stored answer): against those rows of the same client count."
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
				print "| path | q/s | p50 ms | p99 ms | x intarray | % of floor | % of read floor |"
				print "|---|---:|---:|---:|---:|---:|---:|"
				for (i = 1; i <= n[nc]; i++) {
					p = order[nc, i]; k = nc SUBSEP p
					if (qps[k] < 0) { printf "| %s | %s | | | | | |\n", p, st[k]; continue }
					t = p; sub(/ .*/, "", t)
					rf = qps[nc, "floor: read " t " lists + stored answer"]
					s99 = "-"; sia = "-"; sfl = "-"; srf = "-"
					if (p99[k] >= 0) s99 = sprintf("%.3f", p99[k])
					if (ia > 0) sia = sprintf("%.2f", qps[k] / ia)
					if (fl > 0) sfl = sprintf("%.0f %%", 100 * qps[k] / fl)
					if (rf > 0 && p !~ /^floor/) srf = sprintf("%.0f %%", 100 * qps[k] / rf)
					printf "| %s | %.0f | %.3f | %s | %s | %s | %s |\n", p, qps[k], p50[k], s99, sia, sfl, srf
				}
			}
		}' "$TSV"
	echo
	echo "Executor statistics after the executor and read-in-place runs: stats.txt."
} >"$OUTD/shmread.md"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUTD/meta.txt"
cat "$OUTD/shmread.md"
bl_step "done: $OUTD/shmread.md"
