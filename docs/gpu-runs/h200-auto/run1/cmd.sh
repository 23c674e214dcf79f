#!/bin/bash
# device: auto under load (#21): pipeline_bench on the acceptance queries
# with gpuidx.device = gpu and auto (PIPE_AUTO), default settings and
# batch_max_wait = 0, 1 / 16 / 64 clients, pfor; then routing_bench's mixed
# log, backend / gpu / auto at 1 / 16 / 64 clients
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log; }
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
PIPE_AUTO=1 PIPE_CLIENTS="1 16 64" PIPE_TYPES=pfor PIPE_TIME=3 \
  PIPE_SETTINGS="gpuidx.pipeline_depth=2|gpuidx.batch_max_wait=0" \
  timeout 320 test/bench/pipeline_bench.sh /tmp/pipe > /tmp/pipe.log 2>&1
step "pipeline rc=$?"
cp /tmp/pipe/pipeline.md /tmp/pipe/stats.txt $OUT/ 2>/dev/null; tail -3 /tmp/pipe.log >> $OUT/steps.log
ROUTING_INSTALL=0 ROUTING_SCALE=0.2 ROUTING_CLIENTS="1 16 64" ROUTING_TIME=4 ROUTING_MODES="backend gpu auto" \
  ROUTING_OUT=$OUT/routing.md timeout $(( 585 - ($(date +%s) - T0) )) test/bench/routing_bench.sh > /tmp/routing.log 2>&1
step "routing rc=$?"
tail -5 /tmp/routing.log >> $OUT/steps.log
