#!/bin/bash
# device: the final tree's GPU check: install, test_gpu under memcheck,
# test/gpu/sqlcheck.sh (SQL through the executor on the GPU = CPU), gpucheck-lib
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log; }
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > $OUT/install.log 2>&1; step "install rc=$?"
( unset LD_LIBRARY_PATH; make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 test/gpu/bin/test_gpu > /tmp/gpubuild.log 2>&1
  timeout 90 compute-sanitizer --tool memcheck test/gpu/bin/test_gpu --quick --format v2 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log )
step "memcheck"
timeout 200 test/gpu/sqlcheck.sh > $OUT/gpucheck.log 2>&1; echo "gpucheck-sql rc=$?" >> $OUT/gpucheck.log
( unset LD_LIBRARY_PATH; timeout 200 make -f cuda/cuda.mk CUDA_ARCH=sm_90 gpucheck-lib GPU_TEST_ARGS=--quick >> $OUT/gpucheck.log 2>&1; echo "gpucheck-lib rc=$?" >> $OUT/gpucheck.log )
step "gpucheck"
