#!/bin/bash
# device call 1 (#19): build and install this tree; the ranked benchmark
# with the aggregate paths (pfor, synthetic collection, 1 and 16 clients,
# timings of 1.5-3 s, defaults); then two runs with one executor setting
# changed each: gpuidx.rank_merge = on (OR, 16 clients) and
# gpuidx.spin_wait = 100 (AND, one client); cut at LIMIT s in all
LIMIT=${1:-570}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT
RANK_MIN_TIME=1.5 RANK_MAX_TIME=3 timeout $(( $(left) - 150 )) test/bench/rank_bench.sh --label rank-final1 > /tmp/rank1.log 2>&1
step "rank_bench defaults rc=$?"; tail -2 /tmp/rank1.log >> $OUT/steps.log
GPUIDX_PG_CONF="gpuidx.rank_merge = on" RANK_MODES=OR RANK_CLIENTS=16 RANK_MIN_TIME=1.5 RANK_MAX_TIME=2 \
  timeout $(( $(left) - 70 )) test/bench/rank_bench.sh --label rank-final1-merge > /tmp/rank2.log 2>&1
step "rank_bench rank_merge=on rc=$?"; tail -2 /tmp/rank2.log >> $OUT/steps.log
GPUIDX_PG_CONF="gpuidx.spin_wait = 100" RANK_MODES=AND RANK_CLIENTS=1 RANK_MIN_TIME=1.5 RANK_MAX_TIME=2 \
  timeout $(left) test/bench/rank_bench.sh --label rank-final1-spin > /tmp/rank3.log 2>&1
step "rank_bench spin_wait=100 rc=$?"; tail -2 /tmp/rank3.log >> $OUT/steps.log
