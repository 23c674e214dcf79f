#!/bin/bash
# device call 3 (#21; not run: the session's device time was spent):
# decode A/B, format 2, 10^6 / 10^7 / 10^8: base = the default build
# (every kernel as in 2ade152), bm = the v2 qs kernels' bitmap loop with
# no bound test and two ones an iteration (GPX_DEC_BM_UNROLL=1; both qs
# kernels stay at 40 registers, every other kernel byte for byte); the
# tests with bm; then test/gpu/tree_check.sh on the tree (the GPU suites,
# sqlcheck, the executor's GPU TAP files).
LIMIT=${1:-450}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log
BASE_DEFS="" VARIANTS="bm:-DGPX_DEC_BM_UNROLL=1" CHOSEN=bm SIZES=1000000,10000000,100000000 \
  FORMATS=2 ROUNDS=2 BUDGET=$(( $(left) - 260 )) test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
test/gpu/tree_check.sh $OUT/tree $(( $(left) - 5 )) > $OUT/tree_check.log 2>&1
step "tree_check rc=$?"
