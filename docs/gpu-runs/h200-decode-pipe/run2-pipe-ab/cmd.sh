#!/bin/bash
# device: decode A/B of the pipelined loop; correctness of the pipe build on the GPU
unset LD_LIBRARY_PATH
cd test/gpu/bin
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv > $OUT/clocks.txt
timeout 120 ./test_gpu_pipe --quick --format all > $OUT/test_gpu_pipe.log 2>&1; echo "rc=$?" >> $OUT/test_gpu_pipe.log
for r in 1 2; do for v in orig base pipe pipe8 pipe32 pipem5 basem6; do
  b=./bench_gpu_$v; [ $v = orig ] && b=./bench_gpu
  echo "### round $r variant $v" >> $OUT/ab.log
  timeout 60 $b --no-isect --decode-size 1000000,100000000 >> $OUT/ab.log 2>&1
done; done
for c in "pfor sparse" "qs dense" "lrc sparse"; do set -- $c
timeout 80 ncu --clock-control none --print-units base -k regex:decode_list --launch-skip 3 --launch-count 1 \
 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
 --metrics smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio \
 ./bench_gpu_pipe --no-isect --codecs $1 --decode-size 100000000 --density $2 > $OUT/ncu-pipe-$1-$2.log 2>&1
done
timeout 150 compute-sanitizer --tool racecheck ./test_gpu_pipe --quick --format v2 > $OUT/racecheck.log 2>&1; echo "rc=$?" >> $OUT/racecheck.log
echo finished
