#!/usr/bin/env bash
# test/run-tests.sh - the whole test suite, from a fresh Debian 12 machine.
#
#   test/run-tests.sh                everything (as root: installs the Debian
#                                    packages it needs first)
#   SKIP_APT=1 test/run-tests.sh     don't touch packages
#
# It installs what is needed, then runs the standard targets and the extra
# suites against a build with the extension's Asserts on (COPT=
# -DUSE_ASSERT_CHECKING; GPUIDX_TEST_ASSERTS=0 for a plain build):
#
#   make unittest              C unit tests (cases of each program)
#   make installcheck          pg_regress, against a throwaway cluster
#   test/*/run-suite.sh        fuzz (+ unit tests under ASan), gen, gpu emulator
#   make prove_installcheck    TAP tests, each starting its own servers
#   make GPX_EMU=1             gpu-exec: the executor's GPU path on the
#                              emulated GPU (pg_regress through it, and the
#                              TAP files that take GPX_TEST_DEVICE=gpu)
#
# Everything is private to the run, so that two checkouts (or users) can
# run it at the same time: the tree is copied to a folder from mktemp -d,
# built there and installed into a private relocatable copy of the
# PostgreSQL installation in that folder (never into the system's); the
# cluster listens on a port free at run time, with its socket in that
# folder.  As root, everything runs as a temporary unprivileged user
# (PostgreSQL refuses root).  The folder, the servers and the user are
# removed at exit, also after a failure or Ctrl-C.
#
# Every stage and every TAP file prints a line as it starts and as it ends,
# with its time; failures print in full as they happen.  The count is of
# test cases (a unit program's cases, a pg_regress test, a TAP assertion, a
# suite's check); the line before the last gives the unit tests' inner
# assertions.  The last line is "N passed, N failed"; the exit status is
# non-zero when anything failed.
#
# Knobs: GPUIDX_TEST_SKIP="fuzz tap ..." skips stages (unit, regress, fuzz,
# gen, gpu, tap, gpu-exec); PROVE_TESTS="test/t/001_executor.pl" picks TAP files;
# FUZZ_SECONDS (20) as in test/fuzz/run-suite.sh.
set -uo pipefail

HERE=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/pgcluster.sh
. "$HERE/test/bench/pgcluster.sh"

# ---------------------------------------------------------------- output --
T0=${GPX_TEST_T0:-$(date +%s)}
export GPX_TEST_T0=$T0
# The time since the start, m:ss.
el() { local s=$(($(date +%s) - T0)); printf '%d:%02d' $((s / 60)) $((s % 60)); }
# log MESSAGE: one progress line.
log() { printf '== [%s] %s\n' "$(el)" "$*"; }
# awk that passes each line on as it comes (mawk reads a pipe in blocks
# unless -W interactive)
AWK="awk"
awk -W version 2>/dev/null | grep -q '^mawk' && AWK="awk -W interactive"

# ================================================================ outside ==
# Runs as whoever started the script: packages, the work folder, the copy
# of the tree, the temporary user; then the stages (below) in a session of
# their own, so that a signal can end all of them.

# copy_tree SRC DST: the files of the checkout, without build products.
copy_tree() {
	local src=$1 dst=$2
	mkdir -p "$dst" || return 1
	if git -c safe.directory="$src" -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		# tracked and untracked-but-not-ignored files, as they are now
		(cd "$src" && git -c safe.directory="$src" ls-files -z --cached --others --exclude-standard |
			xargs -0 -r sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			xargs -0 -r cp -a --parents -t "$dst")
	else
		cp -a "$src/." "$dst" && make -s -C "$dst" clean >/dev/null 2>&1
	fi
}

# Stop every server still running from the work folder, as its owner.
stop_servers() {
	local pidf
	[ -d "${WORK:-}" ] || return 0
	while IFS= read -r pidf; do
		pgc_as "$SYS_PGBIN/pg_ctl" -D "$(dirname "$pidf")" -m immediate -w -t 20 stop >/dev/null 2>&1
	done < <(find "$WORK" -name postmaster.pid 2>/dev/null)
}

# EXIT: servers, the stages' processes, the temporary user, the folder.
outside_cleanup() {
	trap '' INT TERM HUP PIPE
	stop_servers
	[ -z "${INNER:-}" ] || kill -KILL -- -"$INNER" 2>/dev/null
	pgc_drop_temp_user
	[ -z "${WORK:-}" ] || rm -rf "$WORK"
}

# INT/TERM/HUP: end the stages (they stop their servers), then clean up.
outside_signal() {
	trap '' INT TERM HUP
	echo "== [$(el)] interrupted: stopping the tests and removing what they created" >&2
	if [ -n "${INNER:-}" ]; then
		kill -TERM -- -"$INNER" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$INNER" 2>/dev/null || break; sleep 0.2; done
	fi
	exit 130
}

# fail_early WHAT: a failure before the stages ran.
fail_early() { echo "$1"; echo "0 passed, 1 failed"; exit 1; }

outside() {
	SYS_PGBIN=/usr/lib/postgresql/15/bin
	if [ "$(id -u)" = 0 ] && [ -z "${SKIP_APT:-}" ]; then
		local need missing="" p
		need="postgresql-15 postgresql-client-15 postgresql-server-dev-15 postgresql-doc-15
		      gnuplot-nox make gcc libc6-dev libipc-run-perl clang-14 libclang-rt-14-dev procps"
		for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
		if [ -n "$missing" ]; then
			log "installing Debian packages:$missing"
			export DEBIAN_FRONTEND=noninteractive
			apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null &&
				apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing >/dev/null ||
				fail_early "apt-get install failed:$missing"
		fi
	fi
	export PATH="$SYS_PGBIN:$PATH"
	command -v pg_config >/dev/null || fail_early "pg_config not found (Debian package postgresql-server-dev-15)"
	SYS_PGBIN=$(pg_config --bindir)

	WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-test.XXXXXX") || fail_early "mktemp failed"
	trap outside_cleanup EXIT
	trap outside_signal INT TERM HUP
	chmod 755 "$WORK"
	mkdir -p "$WORK/home" "$WORK/tmp"
	log "work folder $WORK"
	copy_tree "$HERE" "$WORK/src" || fail_early "copying the tree to $WORK/src failed"
	local run=()
	if [ "$(id -u)" = 0 ]; then
		pgc_temp_user || fail_early "could not create a temporary user (useradd)"
		chown -R "$PGC_RUNAS" "$WORK"
		run=(runuser -u "$PGC_RUNAS" --)
		log "running as the temporary user $PGC_RUNAS"
	fi
	# the stages, in a session (and process group) of their own
	setsid "${run[@]}" env HOME="$WORK/home" TMPDIR="$WORK/tmp" PATH="$PATH" \
		GPX_TEST_WORK="$WORK" GPX_TEST_T0="$T0" bash "$WORK/src/test/run-tests.sh" </dev/null &
	INNER=$!
	wait "$INNER"
	local rc=$?
	if [ ! -f "$WORK/totals.done" ]; then
		# the stages ended without their closing lines: report what they had
		local p=0 f=0
		[ -f "$WORK/totals" ] && read -r p f _ _ <"$WORK/totals"
		echo "== [$(el)] the stages ended early (exit status $rc)"
		echo "$p passed, $((f + 1)) failed"
		[ "$rc" != 0 ] || rc=1
	fi
	exit "$rc"
}

# ================================================================= stages ==
# Run in $WORK/src as the unprivileged user (or the caller, when not root).

pass=0 fail=0 apass=0 afail=0
# count P F [AP AF]: add a stage's cases (and inner assertions) to the totals.
count() {
	pass=$((pass + $1)) fail=$((fail + $2))
	apass=$((apass + ${3:-0})) afail=$((afail + ${4:-0}))
	echo "$pass $fail $apass $afail" >"$WORK/totals"
}

STAGE_T0=0
# stage_start NAME: its opening line.
stage_start() { STAGE_T0=$SECONDS; log "$1: start"; }
# stage_end NAME P F: its closing line, and the counts added.
stage_end() {
	log "$1: $2 passed, $3 failed ($((SECONDS - STAGE_T0)) s)"
	count "$2" "$3" "${4:-0}" "${5:-0}"
}
# skipped NAME: true when GPUIDX_TEST_SKIP names the stage.
skipped() { case " ${GPUIDX_TEST_SKIP:-} " in *" $1 "*) log "$1: skipped (GPUIDX_TEST_SKIP)"; return 0 ;; esac; return 1; }

# counted NAME CMD...: run CMD, its output shown as it comes, and close the
# stage with the counts of its last "[word: ]N passed, N failed" line (and
# of an "[word: ]assertions: N passed, N failed" line); a missing count
# line or a non-zero exit status with no failure counted is one failure.
counted() {
	local name=$1 res="$WORK/tmp/counted.$$" st p f ap af seen
	shift
	stage_start "$name"
	"$@" 2>&1 | $AWK -v res="$res" '
		{ print; fflush() }
		/^([a-z-]+: )?assertions: [0-9]+ passed, [0-9]+ failed$/ {
			sub(/^[a-z-]+: assertions: |^assertions: /, ""); ap = $1; af = $3; next }
		/^([a-z-]+: )?[0-9]+ passed, [0-9]+ failed$/ { sub(/^[a-z-]+: /, ""); p = $1; f = $3; seen = 1 }
		END { print p + 0, f + 0, ap + 0, af + 0, seen + 0 > res }'
	st=${PIPESTATUS[0]}
	p=0 f=0 ap=0 af=0 seen=0
	read -r p f ap af seen 2>/dev/null <"$res"
	rm -f "$res"
	if [ "$seen" != 1 ]; then
		echo "$name: no closing \"N passed, N failed\" line (exit status $st)"; f=$((f + 1))
	elif [ "$st" != 0 ] && [ "$f" = 0 ]; then
		echo "$name: exit status $st"; f=1
	fi
	stage_end "$name" "$p" "$f" "$ap" "$af"
}

# regress: make installcheck, each test's line as it ends and, for a
# failed one, its part of regression.diffs at once.
regress() {
	local res="$WORK/tmp/regress.$$" st p f
	stage_start "pg_regress"
	rm -f regression.diffs
	make -s installcheck PG_CONFIG="$PG_CONFIG" PGHOST="$SOCK" PGPORT="$PORT" PGUSER=postgres 2>&1 | $AWK -v res="$res" '
		function diffs(   cmd, line, n) {
			cmd = "tail -c +" (off + 1) " regression.diffs 2>/dev/null"
			while ((cmd | getline line) > 0) { print "    " line; n += length(line) + 1 }
			close(cmd); off += n
		}
		# pg_regress set-up chatter
		/^(SET|DROP DATABASE|CREATE DATABASE|ALTER DATABASE|CREATE EXTENSION|\+\+\+ regress.*|=+ [a-z].*=+)$/ { next }
		{ print; fflush() }
		/ \.\.\. ok|^ok [0-9]+ / { p++ }
		/ \.\.\. FAILED|^not ok [0-9]+ / { f++; diffs(); fflush() }
		END { print p + 0, f + 0 > res }'
	st=${PIPESTATUS[0]}
	p=0 f=0
	read -r p f 2>/dev/null <"$res"
	rm -f "$res"
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then echo "pg_regress: no test ran (exit status $st)"; f=1; fi
	if [ "$st" != 0 ] && [ "$f" = 0 ]; then echo "pg_regress: exit status $st"; f=1; fi
	stage_end "pg_regress" "$p" "$f"
}

# tap: make prove_installcheck; a line as each file starts and ends, each
# failed assertion with its diagnostics at once, and for a failed file the
# end of its log.
tap() {
	local res="$WORK/tmp/tap.$$" st p f result name=${1:-TAP}
	stage_start "$name"
	# prove writes to a pipe here: the console formatter shows each line as
	# it comes (the file formatter holds a test's output until it ends), and
	# PERL5OPT makes perl flush them
	PERL5OPT='-MIO::Handle;STDOUT->autoflush(1)' \
		make -s prove_installcheck PG_CONFIG="$PG_CONFIG" \
		PROVE_FLAGS="--verbose --merge --formatter TAP::Formatter::Console" 2>&1 | $AWK -v res="$res" '
		function now(   t) { "date +%s" | getline t; close("date +%s"); return t }
		function finish(ok,   cmd, line) {
			if (file == "") return
			if (!ok && ff == 0) { ff = 1; print "  " file ": did not finish its plan (see above)" }
			printf "-- %s: %d passed, %d failed (%d s)\n", file, fp, ff, now() - t0
			if (ff > 0) {
				base = file; sub(/\.pl$/, "", base)
				lf = "tmp_check/log/regress_log_" base
				cmd = "test -f " lf " && echo \"  the end of " lf ":\" && tail -n 40 " lf " | sed \"s/^/    /\""
				while ((cmd | getline line) > 0) print line
				close(cmd)
			}
			p += fp; f += ff; file = ""; fflush()
		}
		/^(\[[0-9:]+\] )?test\/t\/[^ ]+\.pl \.+ ?/ {
			finish(0)
			file = $0; sub(/^(\[[0-9:]+\] )?test\/t\//, "", file); sub(/ .*/, "", file)
			fp = 0; ff = 0; diag = 0; t0 = now()
			print "-- " file ": start"; fflush(); next
		}
		file != "" && /^ok [0-9]+/ { fp++; diag = 0; next }
		file != "" && /^not ok [0-9]+/ { ff++; diag = 1; print "  " $0; fflush(); next }
		file != "" && /^#/ { if (diag) { print "  " $0; fflush() } next }
		file != "" && /^1\.\.[0-9]+/ { next }
		file != "" && /^ok( |$)/ { finish(1); next }
		file != "" && /^skipped: / { print "  " $0; finish(1); next }
		file != "" && /^Dubious, / { print "  " $0; fflush(); next }
		file != "" && /^(Failed [0-9]+\/[0-9]+ subtests|All [0-9]+ subtests passed|No subtests run)/ {
			print "  " $0; finish(0); next }
		/^Result: / { result = $2 }
		/^(All tests successful|Files=|Result:|\+\+\+ tap|make: \*\*\* )/ || /^[ \t]*$/ { next }
		{ print "  " $0; fflush() }
		END { finish(0); print p + 0, f + 0, (result == "PASS") > res }'
	st=${PIPESTATUS[0]}
	p=0 f=0 result=0
	read -r p f result 2>/dev/null <"$res"
	rm -f "$res"
	if [ "$result" != 1 ] && [ "$f" = 0 ]; then echo "$name: prove did not report PASS (exit status $st)"; f=1; fi
	stage_end "$name" "$p" "$f"
}

# The TAP files run with GPX_TEST_DEVICE=gpu on the emulated GPU: those
# whose checks are answers and counts.  The ones that time faults or hold
# 10^6-docID lists (008, 009, 012) need a real GPU: the emulation runs a
# batch in seconds on a loaded 2-CPU machine, so their executor times out
# or their fault windows pass with no batch; 016 passes on it but takes
# 11 minutes (its unions reach the emulated GPU through sqlcheck here;
# all four run on the GPU machine, docs/gpu-runs/).
GPU_EXEC_TAP="test/t/015_rank_executor.pl"

# gpu-exec: the executor's GPU path without a GPU: the extension rebuilt
# with its CUDA back end on the host emulation (make GPX_EMU=1,
# test/gpu/gpx_emu.h), then the pg_regress suite through the "GPU"
# executor (test/gpu/sqlcheck.sh: every batch on the GPU, answers = the
# CPU's expected outputs; posting_rank and posting_shard left out) and the TAP files of GPU_EXEC_TAP with
# GPX_TEST_DEVICE=gpu.  Last, since it replaces the installed library.
gpu_exec() {
	local copt=$1
	stage_start "gpu-exec build"
	if ! { make -s -j2 PG_CONFIG="$PG_CONFIG" ${copt:+COPT="$copt"} GPX_EMU=1 &&
		make -s install PG_CONFIG="$PG_CONFIG" ${copt:+COPT="$copt"} GPX_EMU=1; } >"$WORK/build-emu.log" 2>&1; then
		cat "$WORK/build-emu.log"
		stage_end "gpu-exec build" 0 1
		return
	fi
	stage_end "gpu-exec build" 1 0
	# the emulation answers a batch in up to seconds: a long executor
	# timeout, so that what is checked is the GPU path's answers, not its
	# speed (ranked batches through the emulated GPU: 015 below; the
	# sharding test's thousands of small statements take too long)
	GPUIDX_GPU_PORT=$(pgc_free_port) SQLCHECK_SKIP="posting_rank posting_shard" \
		SQLCHECK_OPTS="-c gpuidx.executor_timeout=300s" \
		counted "gpu-exec sqlcheck" test/gpu/sqlcheck.sh
	GPX_TEST_DEVICE=gpu GPX_TEST_EXTRA_CONF="gpuidx.executor_timeout = 300s" \
		PROVE_TESTS="$GPU_EXEC_TAP" tap "gpu-exec TAP"
}

# The throwaway cluster of pg_regress and the suites.
cluster_start() {
	SOCK=$WORK/regress
	mkdir -p "$SOCK"
	PORT=$(pgc_free_port)
	initdb -D "$SOCK/data" -A trust -U postgres >"$SOCK/initdb.log" 2>&1 || { cat "$SOCK/initdb.log"; return 1; }
	cat >>"$SOCK/data/postgresql.conf" <<EOF
port = $PORT
unix_socket_directories = '$SOCK'
listen_addresses = ''
max_worker_processes = 16
EOF
	pg_ctl -D "$SOCK/data" -l "$SOCK/server.log" -w start >/dev/null || { cat "$SOCK/server.log"; return 1; }
}
cluster_stop() { [ -f "$SOCK/data/postmaster.pid" ] && pg_ctl -D "$SOCK/data" -m fast -w stop >/dev/null 2>&1; }

stages() {
	WORK=$GPX_TEST_WORK
	SOCK=$WORK/regress
	cd "$WORK/src" || exit 1
	trap 'cluster_stop' EXIT
	trap 'exit 130' INT TERM HUP

	# ---- a private PostgreSQL, the build, the install
	stage_start "build"
	pgc_private_pg "$WORK/pg" || { echo "copying the PostgreSQL installation failed"; stage_end build 0 1; exit 1; }
	echo "private PostgreSQL: $PG_CONFIG"
	local copt="-DUSE_ASSERT_CHECKING" bf=0
	[ "${GPUIDX_TEST_ASSERTS:-1}" = 0 ] && copt=""
	echo "make -j2 COPT=$copt && make install (log: $WORK/build.log)"
	if ! { make -s -j2 PG_CONFIG="$PG_CONFIG" ${copt:+COPT="$copt"} &&
		make -s install PG_CONFIG="$PG_CONFIG" ${copt:+COPT="$copt"}; } >"$WORK/build.log" 2>&1; then
		cat "$WORK/build.log"
		stage_end build 0 1
		echo "$pass passed, $fail failed"; touch "$WORK/totals.done"; exit 1
	fi
	if grep -q 'warning:' "$WORK/build.log"; then
		echo "compiler warnings:"; cat "$WORK/build.log"; bf=1
	fi
	stage_end build $((1 - bf)) "$bf"

	# ---- C unit tests
	skipped unit || UNIT_QUIET=1 counted "unit tests" make -s unittest PG_CONFIG="$PG_CONFIG"

	# ---- pg_regress and the suites, against one throwaway cluster
	export GPUIDX_TEST_WORK=$SOCK GPUIDX_TEST_PORT
	if cluster_start; then
		GPUIDX_TEST_PORT=$PORT
		log "cluster: port $PORT, socket $SOCK"
		skipped regress || regress
		for suite in test/*/run-suite.sh; do
			[ -x "$suite" ] || continue
			name=$(basename "$(dirname "$suite")")
			skipped "$name" || counted "suite $name" "$suite"
		done
		cluster_stop
	else
		echo "the throwaway cluster did not start"; count 0 1
	fi

	# ---- TAP (each test starts its own servers)
	skipped tap || tap

	# ---- the executor's GPU path on the emulated GPU
	skipped gpu-exec || gpu_exec "$copt"

	log "done"
	echo "assertions: $apass passed, $afail failed"
	echo "$pass passed, $fail failed"
	touch "$WORK/totals.done"
	[ "$fail" -eq 0 ]
}

if [ -n "${GPX_TEST_WORK:-}" ]; then stages; else outside; fi
