#!/bin/bash
# device, one call (#19, #21), by priority, each step cut to what is left
# of LIMIT s: build and install this tree; the ranked benchmark with the
# aggregate paths (pfor, synthetic collection, 1 and 16 clients, timings
# of 1-2 s, defaults); the GPU suites (test_gpu, its memcheck,
# test_gpu_rank with memcheck and racecheck) and `make gpucheck`'s SQL
# half (test/gpu/sqlcheck.sh); then the ranked benchmark with one executor
# setting changed each: gpuidx.rank_merge = on (OR, 16 clients) and
# gpuidx.spin_wait = 100 (AND, one client)
LIMIT=${1:-560}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT
RANK_MIN_TIME=1 RANK_MAX_TIME=2 timeout $(( $(left) - 250 )) test/bench/rank_bench.sh --label rank-final1 > /tmp/rank1.log 2>&1
step "rank_bench defaults rc=$?"; tail -2 /tmp/rank1.log >> $OUT/steps.log
env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh $OUT/dev 110 info build test memcheck rank > $OUT/run_device.log 2>&1
step "run_device rc=$?"
timeout 90 test/gpu/sqlcheck.sh > $OUT/sqlcheck.log 2>&1; step "sqlcheck rc=$?"; tail -1 $OUT/sqlcheck.log >> $OUT/steps.log
[ $(left) -gt 60 ] && GPUIDX_PG_CONF="gpuidx.rank_merge = on" RANK_MODES=OR RANK_CLIENTS=16 RANK_MIN_TIME=1 RANK_MAX_TIME=2 \
  timeout $(( $(left) - 45 )) test/bench/rank_bench.sh --label rank-final1-merge > /tmp/rank2.log 2>&1
step "rank_bench rank_merge=on rc=$?"; tail -2 /tmp/rank2.log >> $OUT/steps.log
[ $(left) -gt 30 ] && GPUIDX_PG_CONF="gpuidx.spin_wait = 100" RANK_MODES=AND RANK_CLIENTS=1 RANK_MIN_TIME=1 RANK_MAX_TIME=2 \
  timeout $(left) test/bench/rank_bench.sh --label rank-final1-spin > /tmp/rank3.log 2>&1
step "rank_bench spin_wait=100 rc=$?"; tail -2 /tmp/rank3.log >> $OUT/steps.log
