#!/bin/bash
# device: the final tree: the waker thread off / on (1 / 16 / 64 clients,
# pfor, PIPE_WAITS), then test_gpu under memcheck and make gpucheck
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log; }
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
PIPE_WAITS=1 PIPE_CLIENTS="1 16 64" PIPE_TYPES=pfor PIPE_TIME=3 \
  PIPE_SETTINGS="gpuidx.wake_thread=off|gpuidx.wake_thread=on" \
  timeout 260 test/bench/pipeline_bench.sh /tmp/pipe > /tmp/pipe.log 2>&1
step "pipeline rc=$?"; tail -2 /tmp/pipe.log >> $OUT/steps.log
cp /tmp/pipe/pipeline.md /tmp/pipe/stats.txt /tmp/pipe/waits.txt $OUT/ 2>/dev/null
( unset LD_LIBRARY_PATH; make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 test/gpu/bin/test_gpu > /tmp/gpubuild.log 2>&1
  timeout 90 compute-sanitizer --tool memcheck test/gpu/bin/test_gpu --quick --format v2 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log )
step "memcheck"
left=$(( 520 - ($(date +%s) - T0) ))
timeout $left test/gpu/sqlcheck.sh > $OUT/gpucheck.log 2>&1; echo "gpucheck-sql rc=$?" >> $OUT/gpucheck.log
left=$(( 585 - ($(date +%s) - T0) ))
( unset LD_LIBRARY_PATH; timeout $left make -f cuda/cuda.mk CUDA_ARCH=sm_90 gpucheck-lib GPU_TEST_ARGS=--quick >> $OUT/gpucheck.log 2>&1; echo "gpucheck-lib rc=$?" >> $OUT/gpucheck.log )
step "gpucheck"
