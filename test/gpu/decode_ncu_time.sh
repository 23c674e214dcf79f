#!/bin/bash
# test/gpu/decode_ncu_time.sh [OUTDIR] - the decode kernel's own time as
# Nsight Compute measures it (gpu__time_duration: from the kernel's start
# to its end on the GPU, without the events and the launch that
# bench_gpu's "kernel" column includes), for every codec and density at
# SIZE docIDs, beside an empty one-warp kernel measured the same way.
# bench_gpu --decode-launches N launches each case N times one at a time
# (and checks each output); ncu times every launch; the first WARM of each
# case are left out and the median of the rest is reported.  Each format
# is run with ncu's caches flushed before every launch (cold: the list
# read from HBM) and not flushed (warm: as bench_gpu's timed launches,
# which repeat on the same list).  Clocks are not locked
# (--clock-control none), as in the other ncu scripts.
#
# Logs in OUTDIR (default $OUT, else test/gpu/out/decode-ncu-time-UTCSTAMP):
# build.log, ncu-fFMT-CACHE.csv (ncu's raw CSV), bench-fFMT-CACHE.log
# (bench_gpu's output: the cases in launch order and their checks),
# summary.md (the table).
#
# Environment: SIZE (1000000), FORMATS ("2 1"), LAUNCHES (13), WARM (3),
# CACHES ("all none"), GPU_DEFS (build defines, default none) and NAME
# (the build's name, test/gpu/bin/bench_gpu_timeNAME: one per GPU_DEFS).  Run from
# the repository root after `source .gpubundle/device-env.sh`.
set -u
O=${1:-${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/test/gpu/out/decode-ncu-time-$(date -u +%Y%m%d-%H%M%S)}}
SIZE=${SIZE:-1000000}
FORMATS=${FORMATS:-2 1}
LAUNCHES=${LAUNCHES:-13}
WARM=${WARM:-3}
CACHES=${CACHES:-all none}
. "$(dirname "$0")/ncu_env.sh"
B=test/gpu/bin/bench_gpu_time${NAME:-}
make -j16 -f cuda/cuda.mk CUDA_ARCH=sm_90 GPU_NVCC="$NVCC" GPU_VARIANT="_time${NAME:-}" \
	GPU_DEFS="${GPU_DEFS:-}" "$B" > "$O/build.log" 2>&1 || { tail "$O/build.log"; exit 1; }
{
	echo "# Decode kernel time by Nsight Compute (gpu__time_duration), $SIZE docIDs"
	echo
	echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
	echo "- command: SIZE=$SIZE FORMATS=\"$FORMATS\" LAUNCHES=$LAUNCHES WARM=$WARM CACHES=\"$CACHES\" GPU_DEFS=\"${GPU_DEFS:-}\" NAME=${NAME:-} test/gpu/decode_ncu_time.sh"
	echo "- median of launches $((WARM + 1))..$LAUNCHES of each case; G docIDs/s = $SIZE / median duration"
	echo
	echo "| format | caches | codec | density | median us | min us | max us | G docIDs/s | check |"
	echo "|---|---|---|---|---|---|---|---|---|"
} > "$O/summary.md"
rc=0
for f in $FORMATS; do
	for c in $CACHES; do
		tag=f$f-$c
		timeout --signal=KILL 100 "$NCU" --clock-control none --cache-control "$c" \
			-k 'regex:decode_list|bench_empty' --metrics gpu__time_duration.sum --csv \
			"$B" --no-isect --decode-size "$SIZE" --format "$f" \
			--decode-launches "$LAUNCHES" > "$O/ncu-$tag.csv" 2>&1
		r=$?
		[ $r = 0 ] || { echo "ncu $tag: rc=$r"; rc=1; }
		# bench_gpu's lines and ncu's CSV rows share stdout: the case lines in
		# launch order name the kernels' groups of LAUNCHES rows (empty kernel first)
		python3 - "$O/ncu-$tag.csv" "$f" "$c" "$LAUNCHES" "$WARM" "$SIZE" >> "$O/summary.md" <<'EOF' || rc=1
import csv, statistics, sys
path, fmt, cache, nl, warm, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
cases, durs = [("empty kernel", "-", "-")], []
lines = open(path).read().splitlines()
for ln in lines:
    if ln.startswith("| ") and "launches" in ln:
        f = [x.strip() for x in ln.strip("|").split("|")]
        cases.append((f[0], f[2].split()[0], f[5]))
rows = [r for r in csv.reader(l for l in lines if l.startswith('"'))]
hdr = rows[0]
ik, iv, iu = hdr.index("Kernel Name"), hdr.index("Metric Value"), hdr.index("Metric Unit")
scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "ns": 1e-3, "us": 1.0, "ms": 1e3}
for r in rows[1:]:
    durs.append((r[ik], float(r[iv].replace(",", "")) * scale[r[iu]]))
if len(durs) != nl * len(cases):
    sys.exit(f"{path}: {len(durs)} timed launches for {len(cases)} cases of {nl}")
for k, (codec, dens, check) in enumerate(cases):
    d = [x for _, x in durs[k * nl + warm:(k + 1) * nl]]
    name = durs[k * nl][0]
    want = "bench_empty" if k == 0 else "decode_list"
    if want not in name:
        sys.exit(f"{path}: case {k} ({codec}) is kernel {name}")
    m = statistics.median(d)
    g = "-" if k == 0 else f"{size / (m * 1e-6) / 1e9:.1f}"
    print(f"| {fmt} | {cache} | {codec} | {dens} | {m:.2f} | {min(d):.2f} | {max(d):.2f} | {g} | {check} |")
EOF
	done
done
cat "$O/summary.md"
exit $rc
