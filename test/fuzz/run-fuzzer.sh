#!/bin/sh
# run-fuzzer.sh NAME BINARY CORPUS SECONDS MAX_LEN WORKDIR
# Run one libFuzzer harness for SECONDS on a temporary copy of CORPUS (the
# tree's corpus is never modified).  Prints "fuzz: NAME: ok, N execs ..." or
# "fuzz: NAME: FAILED ..." with the crash input and the command that
# reproduces it; exits non-zero on a crash.
name=$1 bin=$2 corpus=$3 secs=$4 maxlen=$5 work=$6
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
	exit 0
fi
crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n 1 | sed 's/Test unit written to //')
grep -E 'ERROR|FUZZ MISMATCH|runtime error|SUMMARY|^    #[0-9]' "$log" | head -n 30
echo "fuzz: $name: FAILED (exit $st after ${el}s, ${execs:-?} execs); log $log"
[ -n "$crash" ] && echo "fuzz: $name: crash input $crash; reproduce: $bin $crash"
exit 1
