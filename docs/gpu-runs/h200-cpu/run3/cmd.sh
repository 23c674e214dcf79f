#!/bin/bash
# device: A/B in one run: the executor before the queue lock (76d5613,
# from .devrun/old-76d5613.tar.xz) and after it (this tree), 1 / 16 / 64
# clients, pfor, what the processes wait on (PIPE_WAITS)
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log; }
tar -C /tmp -xJf .devrun/old-76d5613.tar.xz
pipe() {  # NAME SETTINGS
  PIPE_WAITS=1 PIPE_CLIENTS="1 16 64" PIPE_TYPES=pfor PIPE_TIME=3 PIPE_SETTINGS="$2" \
    timeout 250 test/bench/pipeline_bench.sh /tmp/pipe-$1 > /tmp/pipe-$1.log 2>&1
  step "pipeline $1 rc=$?"
  mkdir -p $OUT/$1; cp /tmp/pipe-$1/pipeline.md /tmp/pipe-$1/stats.txt /tmp/pipe-$1/waits.txt $OUT/$1/ 2>/dev/null
  tail -20 /tmp/pipe-$1.log > $OUT/$1/pipe-tail.log
}
(cd /tmp/old && make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install-old.log 2>&1); step "install old rc=$?"
pipe before "gpuidx.pipeline_depth=2"
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install new rc=$?"
pipe after "gpuidx.pipeline_depth=2|gpuidx.batch_max_wait=0"
