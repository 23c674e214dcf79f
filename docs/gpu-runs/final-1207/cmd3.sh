#!/bin/bash
# device call 3 (#21): auto under load on this tree, whose model compares
# CPU time when the median wake-up delay says no core is free (first
# measured here): pipeline_bench on the acceptance queries, gpuidx.device
# = gpu and auto (PIPE_AUTO), pfor, 16 / 64 clients; then routing_bench's
# mixed log, backend / gpu / auto at 16 / 64 clients (h200-auto/run2's
# command with one client left out)
LIMIT=${1:-540}
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps.log; }
nvidia-smi -L >> $OUT/steps.log; git log --oneline -1 >> $OUT/steps.log
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
PIPE_AUTO=1 PIPE_CLIENTS="16 64" PIPE_TYPES=pfor PIPE_TIME=3 PIPE_SETTINGS="gpuidx.pipeline_depth=2" \
  timeout 260 test/bench/pipeline_bench.sh /tmp/pipe > /tmp/pipe.log 2>&1
step "pipeline rc=$?"
cp /tmp/pipe/pipeline.md /tmp/pipe/stats.txt $OUT/ 2>/dev/null; tail -3 /tmp/pipe.log >> $OUT/steps.log
ROUTING_INSTALL=0 ROUTING_SCALE=0.2 ROUTING_CLIENTS="16 64" ROUTING_TIME=4 ROUTING_MODES="backend gpu auto" \
  ROUTING_OUT=$OUT/routing.md timeout $(( LIMIT - ($(date +%s) - T0) )) test/bench/routing_bench.sh > /tmp/routing.log 2>&1
step "routing rc=$?"
tail -5 /tmp/routing.log >> $OUT/steps.log
