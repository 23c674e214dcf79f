#!/usr/bin/env bash
# test/gpu/run-suite.sh - the GPU kernels' suites without a GPU: every CUDA
# kernel and the host driver run on the host emulator (test/gpu/gpx_emu.h)
# against the CPU codecs.  test/run-tests.sh runs it; the real-GPU runs are
# `make gpucheck` on a GPU machine.  Last line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=$(mktemp "${TMPDIR:-/tmp}/gpuidx-emucheck.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
# the output as it comes (a copy is kept for the count)
make -s -f cuda/cuda.mk emucheck 2>&1 | tee "$out"; rc=${PIPESTATUS[0]}
# every program of emucheck prints its own closing lines: sum them
grep -E '^assertions: [0-9]+ passed, [0-9]+ failed' "$out" |
	awk '{ p += $2; f += $4 } END { if (NR) print "assertions: " p " passed, " f " failed" }'
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" |
	awk '{ p += $1; f += $3 } END { if (NR) print p " passed, " f " failed" }')
[ -n "$line" ] || { echo "0 passed, 1 failed"; exit 1; }
p=$(echo "$line" | sed -E 's/ passed.*//'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
# a non-zero exit is a failure even if the counts say otherwise
[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || f=1
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
