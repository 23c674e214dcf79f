#!/bin/bash
# device, call 1: build and install this tree, then the ranked benchmark
# (#19) with the aggregate paths (posting_rank_*_agg in the backend reading
# in place, and through the GPU executor with the lists sent by key)
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
tail -3 /tmp/install.log >> $OUT/steps.log
RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_MIN_TIME=1 RANK_MAX_TIME=2 \
  RANK_OUT=$OUT timeout $(( 570 - ($(date +%s) - T0) )) test/bench/rank_bench.sh --label rank-bykey > /tmp/rank.log 2>&1
step "rank_bench rc=$?"
tail -4 /tmp/rank.log >> $OUT/steps.log
