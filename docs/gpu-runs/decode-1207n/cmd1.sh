#!/bin/bash
# device call 1 (#21), by priority: (1) the GPU suites of the final tree
# (test_gpu, its memcheck, test_gpu_rank and test_gpu_union with memcheck
# and racecheck), install, `make gpucheck`'s SQL half, the executor's TAP
# files 008, 014, 015 with GPX_TEST_DEVICE=gpu; (2) decode A/B, format 2,
# 10^6 .. 10^8: base = the kernels before this session (GPX_DEC_DIRR=0),
# dirr = the default build (the qs pair kernel hands its directory words
# to the one-by-one decoders), single = every v2 qs list one block a warp
# (GPX_DEC_E2_MIN's crossover: 2 and 4 x 10^6), dirr2 = also every
# other block decoded one by one and the pfor pairs read their directory
# words once (GPX_DEC_DIRR=2); (3) Nsight Compute on the dense qs
# format-2 decode at 10^8 with the default build.
LIMIT=${1:-570}
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
BASE_DEFS="-DGPX_DEC_DIRR=0" VARIANTS="dirr: dirr2:-DGPX_DEC_DIRR=2 single:-DGPX_DEC_E2_MIN=1000000000" \
  CHOSEN=dirr SIZES=1000000,2000000,4000000,10000000,100000000 FORMATS=2 ROUNDS=2 \
  BUDGET=$(( $(left) - 50 )) test/gpu/decode_ab.sh $OUT/ab > $OUT/decode_ab.log 2>&1
step "decode_ab rc=$?"
timeout $(( $(left) - 5 )) env -u LD_LIBRARY_PATH ncu --clock-control none --print-units base -k regex:decode_list \
  --launch-skip 3 --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
  --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  test/gpu/bin/bench_gpu_dirr --no-isect --codecs qs --decode-size 100000000 --density dense --format 2 > $OUT/ncu-qs-dense-f2.log 2>&1
step "ncu rc=$?"
cd $OUT && tar czf dev.tgz dev && rm -rf dev
