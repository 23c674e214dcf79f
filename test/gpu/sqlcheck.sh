#!/usr/bin/env bash
# test/gpu/sqlcheck.sh - the whole pg_regress suite through the GPU executor.
#
# Starts a throwaway cluster with gpuidx preloaded and gpuidx.device = gpu,
# checks that the executor really runs its batches on a GPU, runs every
# regression test with each session routing every intersection, union
# (posting_union, _count, _agg of two lists or more) and ranked batch to
# the executor (PGOPTIONS: gpuidx.device = gpu), and finally checks from
# gpuidx_stats that the executor served queries, unions among them, and
# that none of them fell back to the backend.  The expected outputs are the CPU's, so a pass means
# GPU results equal CPU results through SQL.
#
#   test/gpu/sqlcheck.sh            (as root: runs PostgreSQL as user pgrun)
#   SQLCHECK_OPTS="-c gpuidx.executor_timeout=300s"   more session settings
#   SQLCHECK_SKIP="posting_rank" test/gpu/sqlcheck.sh   leave tests out
#                                   (the emulated GPU of run-tests.sh's
#                                   gpu-exec stage is slow)
#   GPUIDX_GPUS=0,1 test/gpu/sqlcheck.sh   the executor on both GPUs
#                                   (gpuidx.gpus); checks that every GPU
#                                   named ran part of the suite's batches
#
# Needs the extension installed for the pg_config on PATH (or $PG_CONFIG).
# Last line: "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
BIN=$($PG_CONFIG --bindir)
PORT=${GPUIDX_GPU_PORT:-54371}
RUNAS=${GPUIDX_RUNAS:-pgrun}
pass=0
fail=0

# ok COND-RESULT MESSAGE: count and print one check
ok() { if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok - $2"; else fail=$((fail + 1)); echo "not ok - $2"; fi; }

SUDO=""
if [ "$(id -u)" = 0 ]; then
	id "$RUNAS" >/dev/null 2>&1 || useradd -m "$RUNAS"
	SUDO="runuser -u $RUNAS -- env PATH=$BIN:$PATH LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
fi
WORK=$(mktemp -d /tmp/gpuidx-gpucheck.XXXXXX)
cp -a "$ROOT/." "$WORK/src"
rm -rf "$WORK/src/results" "$WORK/src/regression."*
chmod -R a+rwX "$WORK"
[ -n "$SUDO" ] && chown -R "$RUNAS" "$WORK"
cleanup() { $SUDO "$BIN/pg_ctl" -D "$WORK/data" -m immediate stop >/dev/null 2>&1; rm -rf "$WORK"; }
trap cleanup EXIT

$SUDO "$BIN/initdb" -D "$WORK/data" -A trust -U postgres >/dev/null || { echo "initdb failed"; echo "0 passed, 1 failed"; exit 1; }
cat >>"$WORK/data/postgresql.conf" <<EOF
port = $PORT
unix_socket_directories = '$WORK'
listen_addresses = ''
shared_preload_libraries = 'gpuidx'
gpuidx.device = gpu
gpuidx.batch_max_wait = 200
gpuidx.gpus = '${GPUIDX_GPUS:-0}'
max_worker_processes = 16
EOF
$SUDO "$BIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w start >/dev/null \
	|| { cat "$WORK/server.log"; echo "0 passed, 1 failed"; exit 1; }
PSQL="$SUDO $BIN/psql -h $WORK -p $PORT -U postgres -d postgres -XAtq"

$PSQL -c 'CREATE EXTENSION gpuidx' >/dev/null
# the executor opens the GPU at start: wait until it runs
for _ in $(seq 1 60); do
	st=$($PSQL -c "SELECT executor_state FROM gpuidx_info()")
	[ "$st" = running ] && break
	sleep 0.5
done
active=$($PSQL -c "SELECT device_active || ' / ' || coalesce(device_note, '') FROM gpuidx_info()")
echo "# executor: $active"
case "$active" in gpu*) ok 0 "the executor runs its batches on a GPU" ;; *) ok 1 "the executor runs its batches on a GPU" ;; esac
$PSQL -c 'SELECT gpuidx_stats_reset()' >/dev/null
$PSQL -c 'DROP EXTENSION gpuidx' >/dev/null

# every regression test, every intersection sent to the GPU executor; the
# readme test runs its examples' gpuidx_stats_reset(), so it runs after the
# counters are read
regress() {
	local reg rp rf
	reg=$(cd "$WORK/src" && $SUDO env PGOPTIONS="-c gpuidx.device=gpu ${SQLCHECK_OPTS:-}" \
		make -s installcheck PG_CONFIG="$PG_CONFIG" PGHOST="$WORK" PGPORT="$PORT" PGUSER=postgres \
		REGRESS="$1" 2>&1)
	echo "$reg" | grep -E '^(test |ok |not ok )|tests? (passed|failed)'
	rp=$(echo "$reg" | grep -cE '\.\.\. ok|^ok ')
	rf=$(echo "$reg" | grep -cE '\.\.\. FAILED|^not ok ')
	[ "$rp" -gt 0 ] || rf=$((rf + 1))
	[ "$rf" -eq 0 ] || head -n 100 "$WORK/src/regression.diffs" 2>/dev/null
	pass=$((pass + rp)); fail=$((fail + rf))
}
tests=$(cd "$WORK/src" && ls sql/*.sql | sed 's|sql/||; s|\.sql$||' | grep -v '^gpuidx--' | grep -vx readme |
	grep -vxF -f <(printf '%s\n' ${SQLCHECK_SKIP:-} '') | sort | tr '\n' ' ')
[ -n "${SQLCHECK_SKIP:-}" ] && echo "# skipped: $SQLCHECK_SKIP"
regress "$tests"

# the stats are shared memory: they survive the tests' DROP/CREATE EXTENSION
$PSQL -c 'CREATE EXTENSION IF NOT EXISTS gpuidx' >/dev/null
read -r queries unions batches gpu_batches gpu_failures fallbacks failed <<<"$($PSQL -F ' ' -c \
	"SELECT queries, union_queries, batches, gpu_batches, gpu_failures, fallbacks, fallback_failed FROM gpuidx_stats")"
echo "# executor served $queries queries ($unions unions) in $batches batches ($gpu_batches on the GPU, $gpu_failures GPU failures); fallbacks to the backend $fallbacks (failed $failed)"
[ "${queries:-0}" -gt 1000 ]; ok $? "the executor computed the suite's intersections ($queries)"
[ "${unions:-0}" -gt 100 ]; ok $? "the executor computed the suite's unions ($unions)"
[ "${gpu_batches:-0}" -eq "${batches:--1}" ]; ok $? "every batch ran on the GPU ($gpu_batches of $batches)"
[ "${gpu_failures:-1}" -eq 0 ] && [ "${failed:-1}" -eq 0 ]; ok $? "no GPU batch failed"
grep -q 'gpu batch failed' "$WORK/server.log"; [ $? -ne 0 ]; ok $? "the server log reports no GPU failure"
sleep 2	# the executor refreshes its description when idle, at most once a second
active=$($PSQL -c "SELECT device_active FROM gpuidx_info()")
case "$active" in gpu*) ok 0 "still on the GPU after the suite ($active)" ;; *) ok 1 "still on the GPU after the suite ($active)" ;; esac
# every GPU named ran batches: "gpu: 0: NAME (.. SMs, .. GiB, N chunks), 1: ..."
for g in $(echo "${GPUIDX_GPUS:-0}" | tr ',' ' '); do
	n=$(echo "$active" | sed -n "s/.*[:,] $g: [^(]*([^)]*, \([0-9]*\) chunks).*/\1/p")
	[ "${n:-0}" -gt 0 ]; ok $? "GPU $g ran ${n:-no} chunks of the suite's batches"
done
regress readme

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
