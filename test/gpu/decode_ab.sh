#!/bin/bash
# test/gpu/decode_ab.sh [OUTDIR] - A/B of the GPU decode kernels on a GPU
# machine, in one call: builds bench_gpu for the baseline (BASE_DEFS) and
# for each variant of cuda/gpx_dec_dev.cuh side by side
# (GPU_DEFS / GPU_VARIANT of cuda/cuda.mk, CUDA_ARCH sm_90), runs the decode
# table (bench_gpu --no-isect at 10^6 and 10^8 docIDs, sparse and dense)
# for formats 2 and 1, baseline and variants interleaved (A B A B ...),
# then test_gpu --quick --format all and test_gpu_rank --quick built with
# the chosen variant (the batched intersection and ranking decode with the
# same device functions).  Logs in OUTDIR (default $OUT, else
# test/gpu/out/decode-ab-UTCSTAMP): build.log, bench.log, test.log,
# summary.log (the G docIDs/s of every run side by side and the variant's
# ratio to the baseline, mean of the rounds); the summary also on stdout.
#
# Environment: BASE_DEFS (the baseline's GPU_DEFS; unset: "-DGPX_DEC_FAST=31",
# the fast decoders and pairs, one unit a warp; set and empty: the
# default build),
# VARIANTS ("name:defs ...", defs comma-separated, default "pipe:-DGPX_DEC_FAST=63": also the
# pipelined loop on long lists, the default build; earlier A/Bs used
# "fast:-DGPX_DEC_FAST=7 pairs:-DGPX_DEC_FAST=31" against
# -DGPX_DEC_FAST=0), CHOSEN (the variant the tests run with, default
# pipe: it has every fast path), ROUNDS (2),
# SIZES (1000000,100000000), FORMATS (the format versions, default "2 1"), BUDGET (seconds for everything, default 330;
# a step that would start with less than 20 s left is skipped).
# Run from the repository root after `source .gpubundle/device-env.sh`.
set -u
O=${1:-${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/decode-ab-$(date -u +%Y%m%d-%H%M%S)}}
BASE_DEFS=${BASE_DEFS--DGPX_DEC_FAST=31}
VARIANTS=${VARIANTS:-pipe:-DGPX_DEC_FAST=63}
CHOSEN=${CHOSEN:-pipe}
ROUNDS=${ROUNDS:-2}
SIZES=${SIZES:-1000000,100000000}
FORMATS=${FORMATS:-2 1}
BUDGET=${BUDGET:-330}
START=$(date +%s)
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
# the bundle's LD_LIBRARY_PATH holds an older libstdc++ than nvcc's programs need
unset LD_LIBRARY_PATH
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
left() { echo $(( BUDGET - ($(date +%s) - START) )); }
echo "decode A/B: variants base (${BASE_DEFS:-the default build}) ${VARIANTS}, tests with $CHOSEN, logs in $O" | tee "$O/summary.log"

# -- builds: every variant at once (each make -j16; nvcc dominates)
names="base"
pids=""
for v in base $VARIANTS; do
	name=${v%%:*}
	defs=${v#*:}
	defs=${defs//,/ }	# "name:-DA=1,-DB=2": several defines
	[ "$v" = base ] && defs=$BASE_DEFS
	[ "$name" != base ] && names="$names $name"
	targets=test/gpu/bin/bench_gpu_$name
	[ "$name" = "$CHOSEN" ] && targets="$targets test/gpu/bin/test_gpu_$name test/gpu/bin/test_gpu_rank_$name"
	( make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 GPU_NVCC="$NVCC" GPU_VARIANT="_$name" \
		GPU_DEFS="$defs" $targets > "$O/build_$name.tmp" 2>&1; echo "rc=$?" >> "$O/build_$name.tmp" ) &
	pids="$pids $!"
done
wait $pids
for n in $names; do
	echo "### build $n" >> "$O/build.log"
	cat "$O/build_$n.tmp" >> "$O/build.log"
	rm -f "$O/build_$n.tmp"
done
grep -E "^### |warning|error|^rc=" "$O/build.log" | tee -a "$O/summary.log"
echo "builds done in $(( $(date +%s) - START )) s" | tee -a "$O/summary.log"

# -- the decode tables, interleaved
for r in $(seq 1 "$ROUNDS"); do
	for f in $FORMATS; do
		for n in $names; do
			if [ "$(left)" -lt 20 ]; then
				echo "round $r format $f $n: skipped (budget spent)" | tee -a "$O/summary.log"
				continue
			fi
			echo "### round $r format $f variant $n" >> "$O/bench.log"
			timeout --signal=KILL 100 test/gpu/bin/bench_gpu_$n --no-isect --format $f \
				--decode-size "$SIZES" >> "$O/bench.log" 2>&1
			echo "rc=$?" >> "$O/bench.log"
		done
	done
done
echo "benches done at $(( $(date +%s) - START )) s" | tee -a "$O/summary.log"
grep -E "^empty kernel" "$O/bench.log" | sort | uniq -c | tee -a "$O/summary.log"

# -- summary: G docIDs/s (and % of copy bandwidth) per run, ratio of means
awk -v names="$names" '
	/^### round/ { r = $3; f = $5; v = $7; next }
	/^\| (pfor|lrc|qs) \|/ {
		split($0, c, "|")
		for (i in c) gsub(/^ +| +$/, "", c[i])
		k = c[2] " " c[3] " " c[4] " f" f
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		g[k, v, r] = c[7]; bw[k, v, r] = c[9]
		if (r > maxr) maxr = r
		if (c[15] != "equal") bad[k, v] = 1
	}
	END {
		nv = split(names, vs, " ")
		printf "\n| codec n density format |"
		for (j = 1; j <= nv; j++) for (r = 1; r <= maxr; r++) printf " %s r%d |", vs[j], r
		for (j = 2; j <= nv; j++) printf " %s / base |", vs[j]
		printf "\n|---|"
		for (j = 1; j <= nv * maxr + nv - 1; j++) printf "---|"
		printf "\n"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "| %s |", k
			for (j = 1; j <= nv; j++) for (r = 1; r <= maxr; r++)
				printf " %s (%s)%s |", g[k, vs[j], r], bw[k, vs[j], r], ((k, vs[j]) in bad) ? " DIFFERS" : ""
			for (j = 2; j <= nv; j++) {
				sb = 0; sv = 0
				for (r = 1; r <= maxr; r++) { sb += g[k, "base", r]; sv += g[k, vs[j], r] }
				printf(" %.2fx |", (sb > 0) ? sv / sb : 0)
			}
			printf "\n"
		}
	}' "$O/bench.log" | tee -a "$O/summary.log"

# -- correctness with the chosen variant: GPU = CPU, formats 1, 2, mixed
if [ "$(left)" -ge 20 ]; then
	echo "### test_gpu_$CHOSEN --quick --format all" >> "$O/test.log"
	timeout --signal=KILL $(( $(left) - 5 )) test/gpu/bin/test_gpu_$CHOSEN --quick --format all >> "$O/test.log" 2>&1
	echo "test_gpu_$CHOSEN: rc=$?" | tee -a "$O/summary.log" >> "$O/test.log"
fi
if [ "$(left)" -ge 20 ]; then
	echo "### test_gpu_rank_$CHOSEN --quick" >> "$O/test.log"
	timeout --signal=KILL $(( $(left) - 5 )) test/gpu/bin/test_gpu_rank_$CHOSEN --quick >> "$O/test.log" 2>&1
	echo "test_gpu_rank_$CHOSEN: rc=$?" | tee -a "$O/summary.log" >> "$O/test.log"
fi
grep -E "^not ok|passed,|FAIL" "$O/test.log" | tail -8 | tee -a "$O/summary.log"
echo "total $(( $(date +%s) - START )) s" | tee -a "$O/summary.log"
