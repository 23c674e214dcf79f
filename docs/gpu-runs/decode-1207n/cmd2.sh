#!/bin/bash
# device call 2 (#21): the GPU suites of the final tree (GPX_DEC_DIRR
# dropped: the kernels of 2ade152), install, `make gpucheck`'s SQL half,
# the executor's TAP files 008, 014, 015 with GPX_TEST_DEVICE=gpu; then
# Nsight Compute's source counters of the dense qs format-2 decode at 10^8.
LIMIT=${1:-400}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log
env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh $OUT/dev 200 info build test memcheck rank union > $OUT/run_device.log 2>&1
step "run_device rc=$?"
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
timeout 100 test/gpu/sqlcheck.sh > $OUT/sqlcheck.log 2>&1; step "sqlcheck rc=$?"
timeout 100 bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/008_stored.pl test/t/014_shared_read.pl test/t/015_rank_executor.pl\""' > $OUT/tap-gpu.log 2>&1
step "tap rc=$?"
tail -5 $OUT/tap-gpu.log >> $OUT/steps.log
CASES="qs:dense:2" timeout $(( $(left) - 5 )) test/gpu/decode_src_ncu.sh $OUT/src > $OUT/src.out 2>&1; step "decode_src_ncu rc=$?"
cd $OUT && tar czf dev.tgz dev && rm -rf dev
