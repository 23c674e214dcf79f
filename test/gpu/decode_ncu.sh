#!/bin/bash
# test/gpu/decode_ncu.sh [OUTDIR] - Nsight Compute reports of the decode
# kernel at 10^8 docIDs, baseline (GPX_DEC_FAST=0) and a variant of
# cuda/gpx_dec_dev.cuh side by side: the sections of the earlier reports
# (speed of light, compute and memory workload, scheduler, warp states,
# launch, occupancy, instruction statistics) and the executed warp
# instructions (smsp__inst_executed.sum: divided by 10^8, instructions
# per docID), one profiled launch each (after 3 warm-up launches).  Builds
# bench_gpu_base / bench_gpu_<variant> as test/gpu/decode_ab.sh does (make:
# nothing to do when decode_ab.sh built them).  Logs in OUTDIR (default $OUT, else
# test/gpu/out/decode-ncu-UTCSTAMP): build.log, ncu.log (every report,
# concatenated), summary.log (duration, throughputs, instructions per
# docID per case).
#
# Environment: VARIANT ("name:defs", default "fast:-DGPX_DEC_FAST=7"),
# CASES ("codec:density:format ...", default "qs:sparse:2 qs:dense:2
# qs:dense:1"), SIZE (100000000).  Run from the repository root after
# `source .gpubundle/device-env.sh`.
set -u
O=${1:-${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/decode-ncu-$(date -u +%Y%m%d-%H%M%S)}}
VARIANT=${VARIANT:-fast:-DGPX_DEC_FAST=7}
CASES=${CASES:-qs:sparse:2 qs:dense:2 qs:dense:1}
SIZE=${SIZE:-100000000}
. "$(dirname "$0")/ncu_env.sh"
vname=${VARIANT%%:*}
vdefs=${VARIANT#*:}
pids=""
for v in "base:" "$VARIANT"; do
	n=${v%%:*}
	d=${v#*:}
	( make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 GPU_NVCC="$NVCC" GPU_VARIANT="_$n" GPU_DEFS="$d" \
		test/gpu/bin/bench_gpu_$n > "$O/build_$n.tmp" 2>&1; echo "rc=$?" >> "$O/build_$n.tmp" ) &
	pids="$pids $!"
done
[ -n "$pids" ] && wait $pids
cat "$O"/build_*.tmp > "$O/build.log" 2>/dev/null
rm -f "$O"/build_*.tmp
echo "ncu of the decode kernel, $SIZE docIDs, base and $vname ($vdefs)" > "$O/summary.log"
for c in $CASES; do
	IFS=: read -r codec dens fmt <<< "$c"
	for n in base "$vname"; do
		echo "### $codec $dens format $fmt variant $n" >> "$O/ncu.log"
		timeout --signal=KILL 150 "$NCU" --clock-control none --print-units base -k regex:decode_list \
			--launch-skip 3 --launch-count 1 \
			--section SpeedOfLight --section ComputeWorkloadAnalysis \
			--section MemoryWorkloadAnalysis --section SchedulerStats \
			--section WarpStateStats --section LaunchStats --section Occupancy \
			--section InstructionStats \
			--metrics smsp__inst_executed.sum,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active \
			test/gpu/bin/bench_gpu_$n --no-isect --codecs "$codec" --decode-size "$SIZE" \
			--density "$dens" --format "$fmt" > "$O/one.tmp" 2>&1
		echo "rc=$?" >> "$O/one.tmp"
		cat "$O/one.tmp" >> "$O/ncu.log"
		awk -v c="$codec $dens f$fmt $n" -v n="$SIZE" '
			/^\| (pfor|lrc|qs) \|/ { split($0, f, "|"); gd = f[7]; bw = f[9] }
			/Duration/ { dur = $NF " " $(NF-1) }
			/DRAM Throughput/ { dram = $NF }
			/Compute \(SM\) Throughput/ { sm = $NF }
			/Executed Ipc Active/ { ipc = $NF }
			/Registers Per Thread/ { reg = $NF }
			/Achieved Occupancy/ { occ = $NF }
			/smsp__inst_executed.sum/ { x = $NF; gsub(/,/, "", x); inst = x }
			END {
				printf "%s: bench %s G docIDs/s (%s of copy bw); ncu %s, DRAM %s%%, SM %s%%, IPC %s, %s regs, occupancy %s%%, %.2f warp instructions per docID\n",
					c, gd, bw, dur, dram, sm, ipc, reg, occ, inst / n
			}' "$O/one.tmp" >> "$O/summary.log"
		rm -f "$O/one.tmp"
	done
done
cat "$O/summary.log"
