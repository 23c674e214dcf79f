#!/bin/bash
# device call 2 (#21): test/gpu/tree_check.sh on the tree (the GPU
# suites with memcheck and racecheck, install, sqlcheck, the executor's
# GPU TAP files 008, 014, 015).
LIMIT=${1:-420}
source .gpubundle/device-env.sh
nvidia-smi -L > $OUT/steps.log
test/gpu/tree_check.sh $OUT/tree $(( LIMIT - 10 )) > $OUT/tree_check.log 2>&1
echo "tree_check rc=$?" >> $OUT/steps.log
cd $OUT/tree && tar czf dev.tgz dev && rm -rf dev
