#!/bin/bash
# device call 1 (#21): (1) the decode kernel's own time at 10^6 by Nsight
# Compute (test/gpu/decode_ncu_time.sh: gpu__time_duration, formats 2
# and 1, caches flushed and not), beside an empty kernel measured the
# same way; (2) decode A/B, format 2, 10^6 / 10^7 / 10^8: base = the
# default build, bm = GPX_DEC_BM_UNROLL=1 (the v2 qs bitmap loop with no
# bound test and two ones an iteration).
LIMIT=${1:-560}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log
timeout 240 test/gpu/decode_ncu_time.sh $OUT/ncutime > $OUT/ncutime.log 2>&1
step "decode_ncu_time rc=$?"
BASE_DEFS="" VARIANTS="bm:-DGPX_DEC_BM_UNROLL=1" CHOSEN=bm SIZES=1000000,10000000,100000000 \
  FORMATS=2 ROUNDS=2 BUDGET=$(( $(left) - 10 )) test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
