#!/bin/bash
# device call 2 (#19): gpuidx.rank_streams A/B on one machine: rank_bench
# (pfor, ranked OR top-10 and top-1000, 16 clients, aggregate and array
# forms through the GPU executor, the backend, the floors, GIN, RUM) with
# rank_streams = 1 (one ranked run at a time, as before), then the default
# (2), then 3
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT \
  RANK_MODES=OR RANK_CLIENTS=16 RANK_MIN_TIME=1 RANK_MAX_TIME=2
GPUIDX_PG_CONF="gpuidx.rank_streams = 1" timeout 170 test/bench/rank_bench.sh --label rank-streams1 > /tmp/r1.log 2>&1
step "rank_streams 1 rc=$?"
timeout 170 test/bench/rank_bench.sh --label rank-streams2 > /tmp/r2.log 2>&1; step "rank_streams 2 rc=$?"
GPUIDX_PG_CONF="gpuidx.rank_streams = 3" timeout 170 test/bench/rank_bench.sh --label rank-streams3 > /tmp/r3.log 2>&1
step "rank_streams 3 rc=$?"
for f in /tmp/r1.log /tmp/r2.log /tmp/r3.log; do tail -n 3 $f; done >> $OUT/steps.log
