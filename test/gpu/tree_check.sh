#!/bin/bash
# test/gpu/tree_check.sh OUTDIR [BUDGET_SECONDS] - what "GPU = CPU on this
# tree" means for #21's "Done when", in one command on a GPU machine:
# the GPU suites (test/gpu/run_device.sh: build, test_gpu and its
# memcheck, test_gpu_rank and test_gpu_union with memcheck and
# racecheck), `make install`, `make gpucheck`'s SQL half
# (test/gpu/sqlcheck.sh: every pg_regress test through the GPU
# executor), and the executor's TAP files 008, 014 and 015 with
# GPX_TEST_DEVICE=gpu.  Logs in OUTDIR: run_device.log (and dev/),
# sqlcheck.log, tap-gpu.log, steps.log (each step's exit status and
# time).  Exit status: 0 when every step passed.
#
# Run from the repository root after `source .gpubundle/device-env.sh`
# (PG_CONFIG, as-pgrun; IPC::Run in .gpubundle/perl5).
set -u
O=${1:?usage: test/gpu/tree_check.sh OUTDIR [BUDGET_SECONDS]}
BUDGET=${2:-320}
mkdir -p "$O" && O=$(cd "$O" && pwd) || exit 1
cd "$(dirname "$0")/../.." || exit 1
T0=$(date +%s)
fail=0
# step NAME RC: log a step's status and time
step() {
	echo "$1 rc=$2 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a "$O/steps.log"
	[ "$2" = 0 ] || fail=1
}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
env -u LD_LIBRARY_PATH CUDA_ARCH=sm_90 test/gpu/run_device.sh "$O/dev" $(( BUDGET / 2 )) \
	info build test memcheck rank union > "$O/run_device.log" 2>&1
step run_device $?
make -j16 CUDA_ARCH=sm_90 PG_CONFIG="$PG_CONFIG" install > "$O/install.log" 2>&1
step install $?
chmod -R a+rwX . 2>/dev/null
timeout $(( $(left) / 2 )) test/gpu/sqlcheck.sh > "$O/sqlcheck.log" 2>&1
step sqlcheck $?
timeout $(( $(left) - 2 )) bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/008_stored.pl test/t/014_shared_read.pl test/t/015_rank_executor.pl\""' > "$O/tap-gpu.log" 2>&1
step tap $?
tail -3 "$O/tap-gpu.log" >> "$O/steps.log"
exit $fail
