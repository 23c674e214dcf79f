#!/bin/bash
# device: decode A/B of prefetch distances; the p2 build's tests on the GPU
unset LD_LIBRARY_PATH
cd test/gpu/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/clocks.txt
timeout 120 ./test_gpu_p2 --quick --format all > $OUT/test_gpu_p2.log 2>&1; echo "rc=$?" >> $OUT/test_gpu_p2.log
for r in 1 2; do for v in base p1 p2 p3 p2g8; do
  echo "### round $r variant $v" >> $OUT/ab.log
  timeout 60 ./bench_gpu_$v --no-isect --decode-size 1000000,100000000 >> $OUT/ab.log 2>&1
done; done
for c in "pfor sparse" "qs dense"; do set -- $c
timeout 80 ncu --clock-control none --print-units base -k regex:decode_list --launch-skip 3 --launch-count 1 \
 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
 --metrics smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio \
 ./bench_gpu_p2 --no-isect --codecs $1 --decode-size 100000000 --density $2 > $OUT/ncu-p2-$1-$2.log 2>&1
done
timeout 200 compute-sanitizer --tool memcheck ./test_gpu_p2 --quick --format v2 > $OUT/memcheck.log 2>&1; echo "rc=$?" >> $OUT/memcheck.log
echo finished
