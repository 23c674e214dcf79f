#!/bin/bash
# device, one short call (what was left of the device time after refused
# starts): build and install this tree; TAP 015 with GPX_TEST_DEVICE=gpu
# (the executor's ranked answers = the backend's on the GPU; keyed inline
# lists kept by the executor and sent by key after); then the ranked
# benchmark (#19) with the aggregate paths, cut at LIMIT s in all
LIMIT=${1:-450}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
timeout 130 bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=test/t/015_rank_executor.pl"' > $OUT/tap015-gpu.log 2>&1
step "tap015 rc=$?"
RANK_INSTALL=0 RANK_APT=0 RANK_RUM_DEB=test/bench/debs/postgresql-15-rum_1.3.13-1+deb12u1_amd64.deb \
  RANK_TYPES=pfor RANK_EXEC_AUTO=no RANK_EXEC_DIAG=1 RANK_CORPUS=none RANK_MIN_TIME=0.7 RANK_MAX_TIME=1.2 \
  RANK_OUT=$OUT timeout $(( LIMIT - ($(date +%s) - T0) )) test/bench/rank_bench.sh --label rank-bykey > /tmp/rank.log 2>&1
step "rank_bench rc=$?"
tail -3 /tmp/rank.log >> $OUT/steps.log
