#!/bin/bash
# test/gpu/run-ncu-decode.sh [OUTDIR]: Nsight Compute durations of the decode kernel
# on lists of 10^6 docIDs, every codec and density, caches warm and flushed
# (OUTDIR by default test/gpu/out/ncu-decode-UTCSTAMP, ignored by git)
# (the bundle's LD_LIBRARY_PATH holds an older libstdc++ than nvcc's programs need)
unset LD_LIBRARY_PATH
O=${1:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/ncu-decode-$(date -u +%Y%m%d-%H%M%S)}
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
echo "logs in $O"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
cd "$(dirname "$0")/../.." || exit 1
make -j16 -f cuda/cuda.mk gpu-build > $O/build.log 2>&1 || { tail $O/build.log; exit 1; }
for c in pfor lrc qs; do for d in sparse dense; do for cc in none all; do
timeout 100 "$NCU" --clock-control none --cache-control $cc -k regex:decode_list --launch-skip 3 --launch-count 15 --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second test/gpu/bin/bench_gpu --no-isect --codecs $c --decode-size 1000000 --density $d > $O/ncu-$c-$d-cache-$cc.log 2>&1
echo "$c $d cache-$cc: $(grep -E 'gpu__time_duration' $O/ncu-$c-$d-cache-$cc.log | awk '{print $NF}' | sort -n | paste -sd' ')"
done; done; done
