#!/bin/bash
# device call 4 (#19): call 2's A/B again in the other order on the same
# machine: rank_bench OR, 16 clients, the default (rank_streams = 2), then
# rank_streams = 1
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT \
  RANK_MODES=OR RANK_CLIENTS=16 RANK_MIN_TIME=1 RANK_MAX_TIME=2
timeout 170 test/bench/rank_bench.sh --label rank-streams2b > /tmp/r2.log 2>&1; step "rank_streams 2 rc=$?"
GPUIDX_PG_CONF="gpuidx.rank_streams = 1" timeout 170 test/bench/rank_bench.sh --label rank-streams1b > /tmp/r1.log 2>&1
step "rank_streams 1 rc=$?"
