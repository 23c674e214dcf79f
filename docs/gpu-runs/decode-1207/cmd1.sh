#!/bin/bash
# device call 1 (#21), tree 2ff9f8b: the decode kernels A/B on the GPU.  base = the
# kernels before this session (bitmap blocks word-parallel, every v2 qs
# list in pairs); bm8 = bitmap blocks by rank (gpx_d_bm8); single = bm8
# and every v2 qs list one block a warp.  (2ff9f8b's default build: bm8
# for lists of 16384 blocks or more, single below; bm8 was then removed.)  Sizes 10^6, 10^7,
# 10^8, formats 2 and 1, two rounds interleaved; then test_gpu and
# test_gpu_rank --quick with "single" (every decode checked against the
# CPU's in the benchmark too).
LIMIT=${1:-380}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
BASE_DEFS="-DGPX_DEC_BM8=0 -DGPX_DEC_E2_MIN=0" \
  VARIANTS="bm8:-DGPX_DEC_BM8=1,-DGPX_DEC_E2_MIN=0 single:-DGPX_DEC_BM8=1,-DGPX_DEC_E2_MIN=1000000000" \
  CHOSEN=single SIZES=1000000,10000000,100000000 ROUNDS=2 BUDGET=$(( LIMIT - 20 )) \
  test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
