#!/bin/bash
# device: final tree: install, decode A/B (base -DGPX_DEC_FAST=31, the
# kernels of 2026-11-27, against the default) + GPU tests, memcheck, gpucheck
source .gpubundle/device-env.sh
T0=$(date +%s)
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > $OUT/install.log 2>&1; echo "install rc=$? $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
BUDGET=200 VARIANTS="fin:-DGPX_DEC_FAST=63" CHOSEN=fin test/gpu/decode_ab.sh $OUT/ab > /dev/null 2>&1; echo "decode_ab done $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
( unset LD_LIBRARY_PATH; make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 test/gpu/bin/test_gpu test/gpu/bin/test_s8b test/gpu/bin/test_gpu_rank test/gpu/bin/test_gpu_union > $OUT/gpubuild.log 2>&1
  timeout 100 compute-sanitizer --tool memcheck test/gpu/bin/test_gpu --quick --format v2 > $OUT/memcheck.log 2>&1; echo "memcheck rc=$?" >> $OUT/memcheck.log )
echo "memcheck done $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
left=$(( 440 - ($(date +%s) - T0) ))
timeout $left test/gpu/sqlcheck.sh > $OUT/gpucheck.log 2>&1; echo "gpucheck-sql rc=$?" >> $OUT/gpucheck.log
left=$(( 490 - ($(date +%s) - T0) ))
( unset LD_LIBRARY_PATH; timeout $left make -f cuda/cuda.mk CUDA_ARCH=sm_90 gpucheck-lib GPU_TEST_ARGS=--quick >> $OUT/gpucheck.log 2>&1; echo "gpucheck-lib rc=$?" >> $OUT/gpucheck.log )
echo "gpucheck done $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log
rm -f $OUT/ab/build.log
