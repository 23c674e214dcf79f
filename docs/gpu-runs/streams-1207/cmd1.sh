#!/bin/bash
# device call 1 (#19): ranked runs side by side (gpuidx.rank_streams), the
# library and the executor's answers: build; test_gpu_rank (GPU top-k =
# CPU, side by side on three streams included) with memcheck and
# racecheck; bench_gpu_rank's small batches one at a time against two and
# three side by side (--streams "1 2 3", lists keyed and pinned, as the
# executor sends them); install; TAP 015 on the GPU (its last part runs
# ranked batches side by side with a gpu_oom among them)
LIMIT=${1:-560}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
RANK_ARGS="--queries 400 --batches 1,4,16 --streams 1,2,3 --runs 3 --keyed --pin" \
  env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh $OUT/dev 330 info build rank rankbench > $OUT/run_device.log 2>&1
step "run_device rc=$?"
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
chmod -R a+rwX . 2>/dev/null
timeout $(( LIMIT - ($(date +%s) - T0) )) bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/015_rank_executor.pl\""' > $OUT/tap-gpu.log 2>&1
step "tap rc=$?"
tail -5 $OUT/tap-gpu.log >> $OUT/steps.log
cp tmp_check/log/regress_log_015_rank_executor $OUT/ 2>/dev/null
cd $OUT && tar czf dev.tgz dev && rm -rf dev
