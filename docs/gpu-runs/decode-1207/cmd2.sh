#!/bin/bash
# device call 2 (#19, #21), by priority: (1) the GPU suites on the
# default build: test_gpu, its memcheck, test_gpu_rank (+ memcheck,
# racecheck), test_gpu_union (+ memcheck, racecheck); install; `make
# gpucheck`'s SQL half (test/gpu/sqlcheck.sh); the executor's TAP files
# 008, 014 and 015 with GPX_TEST_DEVICE=gpu.  (2) decode A/B, format 2:
# base = every v2 qs list in pairs (GPX_DEC_E2_MIN=0, the kernels before
# this session), e2 = the default build (lists under GPX_DEC_E2_MIN
# blocks one block a warp), single = every v2 qs list one block a warp;
# sizes 10^6 .. 10^7 for the crossover (10^8: call 1).
LIMIT=${1:-330}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh $OUT/dev 200 info build test memcheck rank union > $OUT/run_device.log 2>&1
step "run_device rc=$?"
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
timeout 100 test/gpu/sqlcheck.sh > $OUT/sqlcheck.log 2>&1; step "sqlcheck rc=$?"
timeout 90 bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/008_stored.pl test/t/014_shared_read.pl test/t/015_rank_executor.pl\""' > $OUT/tap-gpu.log 2>&1
step "tap rc=$?"
tail -5 $OUT/tap-gpu.log >> $OUT/steps.log
BASE_DEFS="-DGPX_DEC_E2_MIN=0" VARIANTS="e2: single:-DGPX_DEC_E2_MIN=1000000000" \
  CHOSEN=e2 SIZES=1000000,2000000,4000000,10000000 FORMATS=2 ROUNDS=2 \
  BUDGET=$(( $(left) - 10 )) test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
cd $OUT && tar czf dev.tgz dev && rm -rf dev
