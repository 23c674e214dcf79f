#!/usr/bin/env bash
# test/bench/routing_bench.sh - end to end through SQL with many concurrent
# clients: gpuidx.device = auto against gpu-only, cpu-only (the executor's
# CPU threads) and the backend alone, on one mixed workload, in one run on
# one cluster.
#
#   test/bench/routing_bench.sh     (root, or a user with pg_config on PATH
#                                    and the extension installed)
#
# Knobs (environment):
#   ROUTING_SCALE     collection scale, 1.0 = GOV2's 25.2M docs (0.3)
#   ROUTING_QUERIES   queries in the log (2000)
#   ROUTING_CLIENTS   concurrent clients (32), or a list ("1 16 64": every
#                     mode at each count, the auto cost model's calibration)
#   ROUTING_TIME      seconds per pgbench run (15)
#   ROUTING_MODES     modes to run ("backend cpu gpu auto"; gpu needs a GPU)
#   ROUTING_CODEC     pfor | lrc | qs (pfor)
#   ROUTING_MAX_WAIT  gpuidx.batch_max_wait in microseconds (100, the default)
#   ROUTING_OUT       report (docs/bench/routing-wMAXWAIT.md, quoted by docs/BENCHMARKS.md)
#
# The workload: test/gen/gpx_gen's GOV2-calibrated query log, queries of
# 2-6 terms whose shortest lists span from a few docIDs to 10^5 and more
# (the mix of cheap and expensive queries the auto cost model routes).
# Each client runs random queries of the log. Every mode's answers are
# checked against the generator's before anything is timed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
SCALE=${ROUTING_SCALE:-0.3}
QUERIES=${ROUTING_QUERIES:-2000}
CLIENTS=${ROUTING_CLIENTS:-32}
SECS=${ROUTING_TIME:-15}
MODES=${ROUTING_MODES:-"backend cpu gpu auto"}
CODEC=${ROUTING_CODEC:-pfor}
MAXWAIT=${ROUTING_MAX_WAIT:-100}
OUT=${ROUTING_OUT:-docs/bench/routing-w$MAXWAIT.md}
NCPU=$(nproc)

# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
BL_TAG=routing
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init routing "${ROUTING_INSTALL:-1}" || exit 1
trap 'pgc_stop; rm -rf "$BL_WORK"' EXIT
DB=bench_routing

bl_step "generating: scale $SCALE, $QUERIES queries"
bl_gen_synth "$BL_WORK/gen" "$SCALE" "$QUERIES" || exit 1

bl_step "starting a cluster with gpuidx preloaded"
pgc_start "$BL_WORK/pg" 1 || exit 1
[ "$PGC_PRELOADED" = 1 ] || { echo "the server does not start with gpuidx preloaded"; exit 1; }
cat >>"$PGC_DIR/data/postgresql.conf" <<EOF
gpuidx.arena_size = 1GB
gpuidx.cache_size = 4GB
gpuidx.batch_max_wait = $MAXWAIT
max_connections = $(( $(echo "$CLIENTS" | tr ' ' '\n' | sort -n | tail -n 1) + 20 ))
EOF
pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -l "$PGC_DIR/server.log" -w -t 60 restart >/dev/null || exit 1

bl_step "loading"
bl_load_synth "$DB" "$BL_WORK/gen" >/dev/null || exit 1
COL=docs_$CODEC
Q1="SELECT cardinality(posting_intersect(p.$COL)) FROM queries q JOIN postings p ON p.term_id = ANY (q.term_ids) WHERE q.qid = :q"
nq=$(bl_val "$DB" "SELECT count(*) FROM queries")
DEVICE=$(bl_val "$DB" "SELECT device_active FROM gpuidx_info()")
bl_step "executor: $DEVICE"

# Put the server in a mode: gpuidx.device set for everyone (the executor
# runs its batches where the server-wide setting says, so cpu-only means
# its CPU threads even on a GPU machine); prints the sessions' PGOPTIONS.
mode_setup() {
	local why
	case $1 in
		backend|auto) bl_exec_reset "$DB" ;;
		cpu|gpu)
			why=$(bl_exec_device "$DB" "$1")
			[ -z "$why" ] || { echo "mode $1: $why" >&2; return 1; } ;;
		*) echo "unknown mode $1" >&2; return 1 ;;
	esac
	sleep 1
	[ "$1" = backend ] && echo "-c gpuidx.use_executor=off"
	return 0
}

# every mode's answers equal the generator's (one statement per query,
# as pgbench sends them, so auto routes each one on its own)
for m in $MODES; do
	opts=$(mode_setup "$m") || exit 1
	bad=$(PGOPTIONS="$opts" bl_val "$DB" "
		SELECT count(*) FROM answers a,
		  LATERAL (SELECT cardinality(posting_intersect(p.$COL)) AS n FROM queries q
		           JOIN postings p ON p.term_id = ANY (q.term_ids) WHERE q.qid = a.qid) r
		WHERE r.n IS DISTINCT FROM a.n")
	[ "$bad" = 0 ] || { echo "mode $m: $bad answers differ from the generator's"; exit 1; }
done
bl_step "answers checked in every mode ($nq queries)"
SHORT=$(bl_val "$DB" "SELECT percentile_disc(ARRAY[0.5, 0.9, 0.99, 1]) WITHIN GROUP (ORDER BY s)
	FROM (SELECT min(t.df) AS s FROM queries q JOIN terms t ON t.term_id = ANY (q.term_ids) GROUP BY q.qid) x")

# run_pgbench MODE -> "tps p50 p95 p99" (ms)
printf '\\set q random(1, %s)\n%s;\n' "$nq" "$Q1" >"$BL_WORK/q1.sql"
chmod a+r "$BL_WORK/q1.sql"
run_pgbench() {
	local opts
	opts=$(mode_setup "$1") || return 1
	bl_pgbench "$DB" q1.sql "$2" "$SECS" "$BL_WORK/$1.out" "$opts"
}

TSV=$BL_WORK/routing.tsv
: >"$TSV"
for nc in $CLIENTS; do
	bl_step "pgbench: $nc clients, $SECS s per mode: $MODES"
	for m in $MODES; do
		pgc_psql -d "$DB" -c "SELECT gpuidx_stats_reset()" >/dev/null
		r=$(run_pgbench "$m" "$nc") || exit 1
		a=$(bl_val "$DB" "SELECT split_part(device_active, ' (', 1) FROM gpuidx_info()")
		s=$(bl_val "$DB" "SELECT backend_queries || ' ' || queries || ' ' || gpu_batches || ' ' || batches || ' ' || fallbacks FROM gpuidx_stats")
		# the cost model as the run left it (columns of 0.2; '-' before)
		c=$(bl_val "$DB" "SELECT concat_ws(' ', round(cost_backend_ns::numeric, 3), round(cost_executor_ns::numeric, 3), round(overhead_us::numeric, 1), round(cost_batch_us::numeric, 1), round(wait_us::numeric, 1)) FROM gpuidx_info()" 2>/dev/null || echo "- - - - -")
		echo -e "$nc $m\t$r\t$s\t$a\t$c" >>"$TSV"
		bl_step "  $m: $r (in backend, executor queries, gpu batches, batches, fallbacks: $s; model c_b c_e o F d: $c)"
	done
done

mkdir -p "$(dirname "$OUT")"
{
	echo "# Routing: auto against gpu-only, cpu-only and the backend, $CLIENTS clients, batch_max_wait $MAXWAIT us"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: \`ROUTING_SCALE=$SCALE ROUTING_QUERIES=$QUERIES ROUTING_CLIENTS='$CLIENTS' ROUTING_TIME=$SECS ROUTING_CODEC=$CODEC ROUTING_MAX_WAIT=$MAXWAIT $CMDLINE\`"
	echo "- **gpuidx**: ${GPUIDX_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
	echo "- **machine**: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $NCPU CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM; $(pg_config --version)"
	echo "- **executor**: $DEVICE; gpuidx.batch_max_wait = $MAXWAIT us, batch_threshold default (1M postings)"
	echo "- **collection**: $(grep -E '^(ndocs|postings|queries|mean_shortest)=' "$BL_WORK/gen/stats.txt" | sed 's/\t.*//' | tr '\n' ' ')"
	echo "- **shortest list per query**: p50 / p90 / p99 / max = $SHORT docIDs"
	echo "- **workload**: $CLIENTS pgbench clients (-M prepared), each one random query of the log per transaction, $SECS s per mode; codec posting_$CODEC; answers of every mode checked against the generator's first"
	echo "- **modes** (gpuidx.device set server-wide with ALTER SYSTEM + reload, so the executor itself runs there): backend = gpuidx.use_executor off; cpu / gpu = gpuidx.device cpu / gpu (every query to the executor, which runs it on its CPU threads / the GPU); auto = gpuidx.device auto (the cost model of docs/EXECUTOR.md keeps cheap queries in the backend, the executor runs on the GPU when there is one)"
	echo
	echo "| clients | mode | q/s | p50 ms | p95 ms | p99 ms | q/s vs best other mode | in backend | executor queries | GPU batches | batches | fallbacks | executor ran on | model after: c_b ns, c_e ns, o us, F us, d us |"
	echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"
	awk -F'\t' '
		{ split($1, k, " "); nc[NR] = k[1]; mode[NR] = k[2]; split($2, r, " "); tps[NR] = r[1]; line[NR] = $0 }
		END {
			for (i = 1; i <= NR; i++) {
				best = 0
				for (j = 1; j <= NR; j++) if (j != i && nc[j] == nc[i] && tps[j] > best) best = tps[j]
				split(line[i], f, "\t"); split(f[2], r, " "); split(f[3], s, " ")
				ratio = "-"
				if (best > 0) ratio = sprintf("%.2f", r[1] / best)
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", nc[i], mode[i], r[1], r[2], r[3], r[4],
					ratio, s[1], s[2], s[3], s[4], s[5], f[4], f[5]
			}
		}' "$TSV"
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
