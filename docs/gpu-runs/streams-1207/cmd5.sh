#!/bin/bash
# device call 5 (#19, #21): GPU = CPU for the rest of the back end on this
# tree (every call into it now ends the ranked runs in flight first):
# test_gpu and its memcheck, `make gpucheck`'s SQL half (sqlcheck.sh),
# TAP 008 and 014 with GPX_TEST_DEVICE=gpu; each step cut to what is left
# of LIMIT s
LIMIT=${1:-300}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
nvidia-smi -L >> $OUT/steps.log
env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh $OUT/dev 130 info build test memcheck > $OUT/run_device.log 2>&1
step "run_device rc=$?"
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
timeout 80 test/gpu/sqlcheck.sh > $OUT/sqlcheck.log 2>&1; step "sqlcheck rc=$?"; tail -1 $OUT/sqlcheck.log >> $OUT/steps.log
timeout $(( $(left) - 5 )) bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/008_stored.pl test/t/014_shared_read.pl\""' > $OUT/tap-gpu.log 2>&1
step "tap rc=$?"; tail -4 $OUT/tap-gpu.log >> $OUT/steps.log
cd $OUT && tar czf dev.tgz dev && rm -rf dev
