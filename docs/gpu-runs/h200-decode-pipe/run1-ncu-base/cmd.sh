#!/bin/bash
# device: ncu of the decode kernels at 10^8 (and qs at 10^6)
unset LD_LIBRARY_PATH
B=${B:-test/gpu/bin/bench_gpu}
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm --format=csv > $OUT/clocks.txt
$B --no-isect --decode-size 1000000,100000000 > $OUT/bench.log 2>&1
for c in qs pfor lrc; do for d in sparse dense; do
timeout 80 ncu --clock-control none --print-units base -k regex:decode_list --launch-skip 3 --launch-count 1 \
 --section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
 --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section InstructionStats \
 --metrics smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
 $B --no-isect --codecs $c --decode-size 100000000 --density $d > $OUT/ncu-$c-$d.log 2>&1
done; done
timeout 60 ncu --clock-control none --print-units base -k regex:decode_list --launch-skip 3 --launch-count 1 \
 --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section SourceCounters \
 --metrics smsp__inst_executed.sum $B --no-isect --codecs qs --decode-size 100000000 --density sparse > $OUT/ncu-qs-src.log 2>&1
echo finished
