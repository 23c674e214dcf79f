#!/bin/bash
# device call 3 (#19): the whole ranked benchmark on this tree with its
# defaults (gpuidx.rank_streams = 2): pfor, ranked AND and OR, top-10 and
# top-1000, 1 and 16 clients, aggregate and array forms, the backend, the
# GPU executor, the floors, GIN, RUM
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
export RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_OUT=$OUT RANK_MIN_TIME=1 RANK_MAX_TIME=2
timeout ${1:-400} test/bench/rank_bench.sh --label rank-streams-final > /tmp/r.log 2>&1; step "rank_bench rc=$?"
tail -3 /tmp/r.log >> $OUT/steps.log
