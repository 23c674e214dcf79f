#!/bin/bash
# test/gpu/decode_src_ncu.sh [OUTDIR] - where the decode kernel's
# instructions go: Nsight Compute's source counters (SourceCounters
# section, source page as CSV, SASS) of one launch of the decode kernel
# at SIZE docIDs per case, executed warp instructions per SASS line, for
# test/gpu/sass_src_top.py to group.  Builds bench_gpu_src with GPU_DEFS
# (default: none, the default build).  Logs in OUTDIR (default $OUT, else
# test/gpu/out/decode-src-UTCSTAMP): build.log, src-CODEC-DENSITY-fFMT.csv.
#
# Environment: CASES ("codec:density:format ...", default "qs:dense:2
# qs:sparse:2"), SIZE (100000000), GPU_DEFS.  Run from the repository root
# after `source .gpubundle/device-env.sh`.
set -u
O=${1:-${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/decode-src-$(date -u +%Y%m%d-%H%M%S)}}
CASES=${CASES:-qs:dense:2 qs:sparse:2}
SIZE=${SIZE:-100000000}
. "$(dirname "$0")/ncu_env.sh"
make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 GPU_NVCC="$NVCC" GPU_VARIANT=_src \
	GPU_DEFS="${GPU_DEFS:-}" test/gpu/bin/bench_gpu_src > "$O/build.log" 2>&1 || { tail "$O/build.log"; exit 1; }
for c in $CASES; do
	IFS=: read -r codec dens fmt <<< "$c"
	timeout --signal=KILL 150 "$NCU" --clock-control none -k regex:decode_list \
		--launch-skip 3 --launch-count 1 --section SourceCounters \
		--page source --print-source sass --csv \
		test/gpu/bin/bench_gpu_src --no-isect --codecs "$codec" --decode-size "$SIZE" \
		--density "$dens" --format "$fmt" > "$O/src-$codec-$dens-f$fmt.csv" 2> "$O/src-$codec-$dens-f$fmt.err"
	echo "$codec $dens f$fmt: rc=$? $(wc -l < "$O/src-$codec-$dens-f$fmt.csv") lines"
done
