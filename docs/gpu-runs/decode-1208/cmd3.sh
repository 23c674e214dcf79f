#!/bin/bash
# device call 3 (#21): short lists in smaller thread-blocks.  Decode A/B
# at 10^6 and 10^7 (formats 2 and 1): base = the default build (every
# launch GPX_D_WARPS = 8 warps a thread-block), sw2 = lists of
# fewer than GPX_DEC_SW_MAX warps of work in 2-warp thread-blocks
# (GPX_DEC_SW); then the kernel's own time by Nsight Compute at 10^6
# (decode_ncu_time.sh, caches kept) for base and sw2.
LIMIT=${1:-420}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log
BASE_DEFS="" VARIANTS="sw2:-DGPX_DEC_SW=2" CHOSEN=sw2 SIZES=1000000,10000000 \
  FORMATS="2 1" ROUNDS=2 BUDGET=$(( $(left) - 95 )) test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
# the two builds side by side, then Nsight Compute (format 2 only)
for v in "base:" "sw2:-DGPX_DEC_SW=2"; do
  env -u LD_LIBRARY_PATH make -j8 -f cuda/cuda.mk CUDA_ARCH=sm_90 GPU_VARIANT="_time_${v%%:*}" GPU_DEFS="${v#*:}" \
    test/gpu/bin/bench_gpu_time_${v%%:*} > $OUT/build-${v%%:*}.log 2>&1 &
done
wait
step "ncu builds"
for v in "base:" "sw2:-DGPX_DEC_SW=2"; do
  FORMATS=2 CACHES=none GPU_DEFS="${v#*:}" NAME="_${v%%:*}" timeout $(( $(left) / 2 - 2 )) test/gpu/decode_ncu_time.sh $OUT/ncu-${v%%:*} > $OUT/ncu-${v%%:*}.log 2>&1
  step "ncu ${v%%:*} rc=$?"
done
