#!/bin/bash
# device, call 2 (same machine, installed by call 1): GPU = CPU through SQL
# for this tree: the pg_regress suite through the GPU executor (sqlcheck),
# and the TAP files of ranked requests and stored lists sent by key with
# GPX_TEST_DEVICE=gpu (015: executor = backend on the GPU, lists kept on
# the device; 008: stored lists by key on the GPU; 014: read in place, the
# ranked aggregates by key)
source .gpubundle/device-env.sh
T0=$(date +%s)
step() { echo "$1 $(( $(date +%s) - T0 )) s $(date -u +%H:%M:%S)" | tee -a $OUT/steps2.log; }
[ -f /opt/pg/usr/lib/postgresql/15/lib/gpuidx.so ] || { make -j16 CUDA_ARCH=sm_90 PG_CONFIG=$PG_CONFIG install > /tmp/install.log 2>&1; step "install rc=$?"; }
timeout 200 test/gpu/sqlcheck.sh > $OUT/sqlcheck.log 2>&1; step "sqlcheck rc=$?"
tail -2 $OUT/sqlcheck.log >> $OUT/steps2.log
chmod -R a+rwX . 2>/dev/null
timeout 300 bash -c 'as-pgrun "PERL5LIB=$PWD/.gpubundle/perl5 GPX_TEST_DEVICE=gpu make PG_CONFIG=$PG_CONFIG prove_installcheck PROVE_TESTS=\"test/t/015_rank_executor.pl test/t/008_stored.pl test/t/014_shared_read.pl\""' > $OUT/tap-gpu.log 2>&1
step "tap rc=$?"
grep -E "^(ok|not ok)|^Result|Files=|Tests=" $OUT/tap-gpu.log | tail -4 >> $OUT/steps2.log
