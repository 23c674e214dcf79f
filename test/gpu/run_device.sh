#!/bin/bash
# test/gpu/run_device.sh - one pass on a GPU machine: build the GPU test and
# benchmark, run the tests, compute-sanitizer, and the benchmarks, within
# one time budget; logs go to OUTDIR, a summary to stdout.
#
#   test/gpu/run_device.sh [OUTDIR] [BUDGET_SECONDS] [STEPS...]
#
# OUTDIR "" or left out: test/gpu/out/run-UTCSTAMP (ignored by git); the logs
# a document cites are copied by hand into docs/gpu-runs/.
#
# STEPS (default: info build test memcheck bench racecheck):
#   info       nvidia-smi, nvcc and compute-sanitizer versions, CPU count
#   build      make -f cuda/cuda.mk gpu-build (nvcc, CUDA_ARCH; warnings shown)
#   test       test/gpu/bin/test_gpu (full suites)
#   quicktest  test/gpu/bin/test_gpu --quick
#   memcheck   compute-sanitizer --tool memcheck test_gpu --quick
#   racecheck  compute-sanitizer --tool racecheck test_gpu --quick --max-n 3000
#   synccheck  compute-sanitizer --tool synccheck test_gpu --quick --max-n 3000
#   bench      test/gpu/bin/bench_gpu ($BENCH_ARGS)
#   multi      bench_gpu --no-decode on $MULTI_DEVICES (default 0,1), then on one
#   variants   bench_gpu builds with -DGPX_D_COOP_MIN=$COOP_VARIANTS (pfor only)
#   benchquick test/gpu/bin/bench_gpu --quick
#   rank       test/gpu/bin/test_gpu_rank (GPU top-k = CPU, bit for bit), then
#              compute-sanitizer memcheck and racecheck of test_gpu_rank --quick
#   rankbench  test/gpu/bin/bench_gpu_rank ($RANK_ARGS): ranked AND / OR top-10 and
#              top-1000, GPU vs CPU, GOV2-calibrated collection
#   union      test/gpu/bin/test_gpu_union (GPU union = CPU = naive, lists of 10^7
#              included), then compute-sanitizer memcheck and racecheck of it --quick
#   unionbench test/gpu/bin/bench_gpu --union --no-decode --no-isect ($UNION_ARGS):
#              batched union (docIDs and counts), GPU vs 1 and all CPU threads
# Steps that would start with less than 20 s of the budget left are skipped.
set -u
OUT=${1:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/run-$(date -u +%Y%m%d-%H%M%S)}
BUDGET=${2:-560}
shift 2 2>/dev/null || shift $#
STEPS=${*:-info build test memcheck bench racecheck}
START=$(date +%s)
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
echo "== logs in $OUT"

# sanitized_suite NAME MAXSECONDS BIN: the test program BIN in full, then
# its --quick run under memcheck (NAMEmem) and racecheck (NAMErace)
sanitized_suite() {
	local name=$1 max=$2 bin=$3
	step "$name" "$max" "$bin"
	grep -v '^ok' "$OUT/$name.log" | tail -25
	step "${name}mem" 200 "$SAN" --tool memcheck --leak-check no "$bin" --quick
	grep -E 'ERROR SUMMARY|passed,|Invalid|out of bounds' "$OUT/${name}mem.log" | head -20
	step "${name}race" 200 "$SAN" --tool racecheck "$bin" --quick
	grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed,|hazard' "$OUT/${name}race.log" | head -20
}

# left: seconds of the budget still available
left() { echo $(( BUDGET - ($(date +%s) - START) )); }

# step NAME MAXSECONDS CMD...: run CMD with a timeout, log to OUT/NAME.log
step() {
	local name=$1 max=$2 l t0 rc
	shift 2
	l=$(left)
	if [ "$l" -lt 20 ]; then
		echo "== $name: skipped (budget spent)"
		return 0
	fi
	[ "$max" -gt $((l - 5)) ] && max=$((l - 5))
	t0=$(date +%s)
	timeout --signal=KILL "$max" "$@" > "$OUT/$name.log" 2>&1
	rc=$?
	echo "== $name: rc=$rc in $(( $(date +%s) - t0 )) s (limit $max s)"
	return $rc
}

for s in $STEPS; do
	case $s in
		info)
			step info 30 bash -c "nvidia-smi; $NVCC --version; $SAN --version; nproc; free -g; uname -a; date -u" ;;
		build)
			step build 240 make -j16 -f cuda/cuda.mk gpu-build GPU_NVCC="$NVCC"
			grep -i 'warning\|error' "$OUT/build.log" | head -20 ;;
		test)
			step test 240 test/gpu/bin/test_gpu ${TEST_ARGS:-}
			grep -v '^  ' "$OUT/test.log" | tail -40 ;;
		quicktest)
			step quicktest 120 test/gpu/bin/test_gpu --quick
			tail -25 "$OUT/quicktest.log" ;;
		memcheck)
			step memcheck 200 "$SAN" --tool memcheck --leak-check no test/gpu/bin/test_gpu --quick ${TEST_ARGS:-}
			grep -E 'ERROR SUMMARY|passed,|Invalid|out of bounds' "$OUT/memcheck.log" | head -20 ;;
		racecheck)
			step racecheck 150 "$SAN" --tool racecheck test/gpu/bin/test_gpu --quick --max-n 3000 ${TEST_ARGS:-}
			grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed,|hazard' "$OUT/racecheck.log" | head -20 ;;
		synccheck)
			step synccheck 150 "$SAN" --tool synccheck test/gpu/bin/test_gpu --quick --max-n 3000
			grep -E 'ERROR SUMMARY|passed,' "$OUT/synccheck.log" | head -20 ;;
		bench)
			step bench 330 test/gpu/bin/bench_gpu ${BENCH_ARGS:-}
			cat "$OUT/bench.log" ;;
		variants)
			# pfor probes: cooperative-decode threshold (default 8) A/B
			for c in ${COOP_VARIANTS:-3 33}; do
				make -j16 -f cuda/cuda.mk gpubench GPU_NVCC="$NVCC" GPU_VARIANT=_c$c \
					GPU_DEFS=-DGPX_D_COOP_MIN=$c > "$OUT/variant_c$c.build.log" 2>&1 &&
				step variant_c$c 120 test/gpu/bin/bench_gpu_c$c --no-decode --codecs pfor ${VARIANT_ARGS:---queries 20000}
				grep -E '^\| pfor' "$OUT/variant_c$c.log"
			done ;;
		multi)
			# intersection on every GPU listed in $MULTI_DEVICES, then on the first alone
			step multi 200 test/gpu/bin/bench_gpu --no-decode --devices ${MULTI_DEVICES:-0,1} ${MULTI_ARGS:---queries 20000}
			grep -E '^\||^## |^gpu:' "$OUT/multi.log"
			step single 200 test/gpu/bin/bench_gpu --no-decode --devices ${MULTI_DEVICES%%,*} ${MULTI_ARGS:---queries 20000}
			grep -E '^\||^## |^gpu:' "$OUT/single.log" ;;
		benchquick)
			step benchquick 200 test/gpu/bin/bench_gpu --quick
			cat "$OUT/benchquick.log" ;;
		rank)
			sanitized_suite rank 180 test/gpu/bin/test_gpu_rank ;;
		rankbench)
			step rankbench 330 test/gpu/bin/bench_gpu_rank ${RANK_ARGS:-}
			cat "$OUT/rankbench.log" ;;
		union)
			sanitized_suite union 240 test/gpu/bin/test_gpu_union ;;
		unionbench)
			step unionbench 330 test/gpu/bin/bench_gpu --union --no-decode --no-isect ${UNION_ARGS:-}
			cat "$OUT/unionbench.log" ;;
		*)
			echo "unknown step $s" ;;
	esac
done
echo "== total $(( $(date +%s) - START )) s"
