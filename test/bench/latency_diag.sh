#!/usr/bin/env bash
# test/bench/latency_diag.sh [OUTDIR] [gpu|cpu] [SETTINGS...] - where one client's query time goes on
# the executor's GPU path, for the acceptance queries (the cpu-long
# collection: scale 0.3, 10000 queries, shortest list >= 10^4, random order).
# For each codec, one client, in one run: the query through the GPU executor
# and its floor (fetch + detoast the lists, return the stored answer), with
# gpuidx_stats (executor time per batch, backend-side round trip) and
# gpuidx_info(); then in the backend and the floor again.  The executor
# path runs once per SETTINGS, a ';'-separated list of sighup settings set
# with ALTER SYSTEM for that run (e.g. 'gpuidx.spin_wait=100;
# gpuidx.batch_max_wait=25'; default: none).  DIAG_CLIENTS=N runs every
# path with N clients instead of one; DIAG_TYPES (default "pfor lrc qs")
# picks the codecs; DIAG_LEAN=1 skips the floors and the in-backend runs.
# Run from the
# repository root on the GPU machine after `make install`, as root
# (test/bench/pgcluster.sh runs PostgreSQL as an unprivileged user);
# writes OUTDIR/diag.tsv (OUTDIR "" or left out: test/bench/out/diag-UTCSTAMP,
# ignored by git), prints the tables and statistics.
set -u
OUTD=${1:-test/bench/out/diag-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$OUTD" || exit 1
DEV=${2:-gpu}		# cpu: the executor's CPU threads (a dry run without a GPU)
shift $(( $# >= 2 ? 2 : $# ))
SETS=("$@"); [ ${#SETS[@]} -gt 0 ] || SETS=("")
CLIENTS=${DIAG_CLIENTS:-1}
BL_TAG=diag; export BL_T0=$(date +%s.%N)
. test/bench/pgcluster.sh; . test/bench/benchlib.sh
BL_WORK=$(mktemp -d /tmp/diag.XXXXXX); chmod 755 $BL_WORK
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT
make -s bench-tools >&2 || exit 1
pgc_start $BL_WORK/pg 1 || exit 1
for i in $(seq 1 20); do [ "$(bl_executors postgres)" -gt 0 ] && break; sleep 0.5; done
g=$BL_WORK/gen
test/gen/bin/gpx_gen --scale 0.3 --queries 10000 --extra 0 --seed 1 --order random --quiet --out $g >/dev/null || exit 1
bl_prune_min_shortest $g 10000 >/dev/null || exit 1
chmod -R a+rX $g
bl_load_synth d $g >&2 || exit 1
why=$(bl_exec_device d "$DEV")
[ -z "$why" ] || { echo "no $DEV path: $why"; exit 1; }
# bq PATH...: one client over the query set, every answer checked
bq() {
	local args=() p
	for p in "$@"; do args+=(--path "$p"); done
	PGDATABASE=d test/bench/bin/bench_query --dataset x \
		--queries-sql "SELECT qid, term_ids::text, NULL FROM queries ORDER BY qid" \
		--answers-sql "SELECT qid, n, hash FROM answers" --min-time 4 --max-time 20 \
		--clients "$CLIENTS" --tsv "$OUTD/diag.tsv" --header 1 "${args[@]}" 2>&1 | grep "^|" | grep -v -e "^| path " -e "^|---"
}
floors=()
[ "${DIAG_LEAN:-0}" = 1 ] || mapfile -t floors < <(bl_floor_paths d)
bq "intarray & over int4[]||SELECT bench_int_and(docs_arr) FROM postings WHERE term_id = ANY (\$1::int[])" "${floors[@]}"
for t in ${DIAG_TYPES:-pfor lrc qs}; do
	q="SELECT posting_intersect(docs_$t) FROM postings WHERE term_id = ANY (\$1::int[])"
	for set in "${SETS[@]}"; do
		IFS=';' read -ra kv <<<"$set"
		for a in "${kv[@]}"; do
			[ -n "${a// }" ] && pgc_psql -d d -c "ALTER SYSTEM SET ${a%%=*} = '${a#*=}'" >/dev/null
		done
		pgc_psql -d d -c "SELECT pg_reload_conf()" >/dev/null
		sleep 0.5
		pgc_psql -d d -c "SELECT gpuidx_stats_reset()" >/dev/null
		bq "$t executor $DEV ${set:-defaults}|SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = '$DEV'|$q"
		pgc_psql -d d -x -c "SELECT * FROM gpuidx_stats" \
			-c "SELECT cost_backend_ns, cost_executor_ns, overhead_us, cache_entries FROM gpuidx_info()"
		pgc_psql -d d -c "ALTER SYSTEM RESET ALL" -c "SELECT pg_reload_conf()" >/dev/null
	done
	[ "${DIAG_LEAN:-0}" = 1 ] || bq "$t in-backend|SET gpuidx.use_executor = off|$q"
done
