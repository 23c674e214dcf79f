#!/bin/bash
# device call 4 (#19): gpuidx.spin_wait with 16 clients, A/B on one
# machine: rank_bench (pfor, AND and OR top-10, 16 clients, aggregate and
# array forms) at the default (spin_wait 0), then with spin_wait = 100
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT \
  RANK_MODES="AND OR" RANK_KS=10 RANK_CLIENTS=16 RANK_MIN_TIME=1 RANK_MAX_TIME=2
timeout 115 test/bench/rank_bench.sh --label rank-spin0-16 > /tmp/r0.log 2>&1; step "spin 0 rc=$?"
GPUIDX_PG_CONF="gpuidx.spin_wait = 100" timeout 115 test/bench/rank_bench.sh --label rank-spin100-16 > /tmp/r1.log 2>&1
step "spin 100 rc=$?"
