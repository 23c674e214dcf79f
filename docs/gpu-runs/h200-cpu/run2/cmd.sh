#!/bin/bash
# device: the queue lock (take and finish off the LWLock, no lock in a
# backend's wait): 1 / 16 / 64 clients, four executor settings, CPU use,
# perf of the last (the defaults)
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s" | tee -a $OUT/steps.log; }
mkdir -p /tmp/perfpk && tar -C /tmp -xJf .devrun/perfpk.tar.xz
printf '#!/bin/bash\nLD_LIBRARY_PATH=/tmp/perfpk/lib exec /tmp/perfpk/perf "$@"\n' > /tmp/perf && chmod 755 /tmp/perf
make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"
PIPE_PERF=/tmp/perf PIPE_CLIENTS="1 16 64" PIPE_TYPES=pfor PIPE_TIME=3 \
  PIPE_SETTINGS="gpuidx.batch_max_wait=0|gpuidx.batch_max_wait=0;gpuidx.pipeline_depth=4|gpuidx.spin_wait=50|gpuidx.pipeline_depth=2" \
  timeout 540 test/bench/pipeline_bench.sh /tmp/pipe > /tmp/pipe.log 2>&1
step "pipeline rc=$?"
cp /tmp/pipe/pipeline.md /tmp/pipe/stats.txt $OUT/ 2>/dev/null; tail -40 /tmp/pipe.log > $OUT/pipe-tail.log
for f in /tmp/pipe/perf-*.data; do
  [ -f "$f" ] || continue
  { echo "=== $(basename $f)"; /tmp/perf report -i $f --no-children --sort pid --stdio 2>/dev/null | grep -v "^#" | grep . | head -25
    /tmp/perf report -i $f --no-children --sort pid,dso,sym --stdio --percent-limit 0.25 2>/dev/null | grep -v "^#" | grep . | head -120; } >> $OUT/perf-report.txt
done
step "perf reports"
