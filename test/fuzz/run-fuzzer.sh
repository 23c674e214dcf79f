#!/bin/sh
# run-fuzzer.sh NAME BINARY CORPUS SECONDS MAX_LEN [WORKDIR]
# Run one libFuzzer harness for SECONDS on a temporary copy of CORPUS (the
# tree's corpus is never modified).  Prints "fuzz: NAME: ok, N execs ..." or
# "fuzz: NAME: FAILED ..." with the error, the crash input (path and
# base64) and the command that reproduces it; exits non-zero on a crash.
# Without WORKDIR the log and crash inputs go to a new folder from mktemp,
# removed when the run passes and kept (and named) when it fails.
name=$1 bin=$2 corpus=$3 secs=$4 maxlen=$5 work=${6:-}
own=0
if [ -z "$work" ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-fuzz.XXXXXX") || exit 1
	own=1
fi
mkdir -p "$work/artifacts" || exit 1
tmp=$(mktemp -d "$work/corpus-$name.XXXXXX") || exit 1
[ -d "$corpus" ] && cp "$corpus"/* "$tmp"/ 2>/dev/null
log="$work/$name.log"
start=$(date +%s)
"$bin" -max_total_time="$secs" -max_len="$maxlen" -timeout=25 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/$name-" "$tmp" >"$log" 2>&1
st=$?
el=$(( $(date +%s) - start ))
execs=$(grep -E '^stat::number_of_executed_units:' "$log" | tail -n 1 | awk '{print $2}')
cov=$(grep -E '#[0-9]+.*(DONE|pulse|NEW|REDUCE).*cov:' "$log" | tail -n 1 | sed -E 's/.*cov: ([0-9]+).*/\1/')
ncorp=$(ls "$tmp" | wc -l)
rm -rf "$tmp"
if [ $st -eq 0 ]; then
	echo "fuzz: $name: ok, ${execs:-?} execs in ${el}s, cov ${cov:-?}, corpus $(ls "$corpus" 2>/dev/null | wc -l) -> $ncorp"
	[ $own = 1 ] && rm -rf "$work"
	exit 0
fi
crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n 1 | sed 's/Test unit written to //')
grep -E 'ERROR|FUZZ MISMATCH|runtime error|SUMMARY|^    #[0-9]' "$log" | head -n 30
echo "fuzz: $name: FAILED (exit $st after ${el}s, ${execs:-?} execs); log $log"
if [ -n "$crash" ] && [ -f "$crash" ]; then
	echo "fuzz: $name: crash input $crash ($(wc -c <"$crash") bytes), base64:"
	base64 "$crash"
	echo "fuzz: $name: reproduce: save those lines as crash.b64, then base64 -d crash.b64 >crash.bin && $bin crash.bin"
fi
exit 1
