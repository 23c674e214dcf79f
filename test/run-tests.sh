#!/usr/bin/env bash
# test/run-tests.sh - the whole test suite, from a fresh Debian 12 machine.
#
# Run as root (it installs the Debian packages it needs, then runs every
# PostgreSQL process as an unprivileged user, since PostgreSQL refuses to
# run as root) or as an ordinary user with the packages already installed.
#
#   test/run-tests.sh            everything: C unit tests, pg_regress, TAP
#   SKIP_APT=1 test/run-tests.sh don't touch packages
#
# The last line is "N passed, N failed"; the exit status is non-zero when
# anything failed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PGBIN=/usr/lib/postgresql/15/bin
PGUSER_NAME=${GPUIDX_TEST_USER:-gpuidxtest}
PORT=${GPUIDX_TEST_PORT:-54329}
export PATH="$PGBIN:$PATH"

total_pass=0
total_fail=0
# add_counts PASS FAIL: accumulate one suite's totals
add_counts() { total_pass=$((total_pass + $1)); total_fail=$((total_fail + $2)); }
log() { printf '== %s\n' "$*"; }

# ---------------------------------------------------------------- packages --
if [ "$(id -u)" = 0 ] && [ -z "${SKIP_APT:-}" ]; then
	log "installing Debian packages"
	need="postgresql-15 postgresql-client-15 postgresql-server-dev-15
	      postgresql-doc-15 gnuplot-nox make gcc libc6-dev libipc-run-perl clang-14 libclang-rt-14-dev"
	missing=""
	for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	if [ -n "$missing" ]; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null \
			|| { echo "apt-get install failed:$missing"; echo "0 passed, 1 failed"; exit 1; }
	fi
fi

# ------------------------------------------------------------------ build --
log "building"
cd "$ROOT"
if ! make -s -j2 >/tmp/gpuidx-build.log 2>&1; then
	tail -n 40 /tmp/gpuidx-build.log
	echo "0 passed, 1 failed"
	exit 1
fi
if grep -E 'warning:' /tmp/gpuidx-build.log; then
	echo "compiler warnings in the build (see above)"
	add_counts 0 1
fi

# ------------------------------------------------------------- unit tests --
log "C unit tests (src/codec)"
unit_out=$(make -s unittest 2>&1)
echo "$unit_out" | grep -vE '^  done ' | tail -n 40
line=$(echo "$unit_out" | grep -E '^unit: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
if [ -n "$line" ]; then
	add_counts "$(echo "$line" | sed -E 's/unit: ([0-9]+) passed.*/\1/')" \
		"$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')"
else
	add_counts 0 1
fi

# ----------------------------------------------------- install + cluster --
SUDO=""
if [ "$(id -u)" = 0 ]; then
	make -s install >/dev/null || { echo "make install failed"; echo "$total_pass passed, $((total_fail + 1)) failed"; exit 1; }
	id "$PGUSER_NAME" >/dev/null 2>&1 || useradd -m "$PGUSER_NAME"
	SUDO="runuser -u $PGUSER_NAME --"
else
	make -s install >/dev/null 2>&1 || echo "(make install as non-root failed; assuming it is installed)"
fi

WORK=$(mktemp -d /tmp/gpuidx-test.XXXXXX)
cp -a "$ROOT/." "$WORK/src"
chmod -R a+rwX "$WORK"
[ -n "$SUDO" ] && chown -R "$PGUSER_NAME" "$WORK"

cleanup() {
	$SUDO pg_ctl -D "$WORK/data" -m immediate stop >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT

log "starting a throwaway cluster on port $PORT"
$SUDO initdb -D "$WORK/data" -A trust -U postgres >/dev/null || { echo "initdb failed"; echo "$total_pass passed, $((total_fail + 1)) failed"; exit 1; }
cat >>"$WORK/data/postgresql.conf" <<EOF
port = $PORT
unix_socket_directories = '$WORK'
listen_addresses = ''
max_worker_processes = 16
EOF
if ! $SUDO pg_ctl -D "$WORK/data" -l "$WORK/server.log" -w start >/dev/null; then
	cat "$WORK/server.log"; echo "$total_pass passed, $((total_fail + 1)) failed"; exit 1
fi

# ------------------------------------------------------------- pg_regress --
log "pg_regress"
reg_out=$(cd "$WORK/src" && $SUDO make -s installcheck PGHOST="$WORK" PGPORT="$PORT" PGUSER=postgres 2>&1)
echo "$reg_out" | grep -E '^(test |ok |not ok |     )|tests? (passed|failed)|FAILED' | head -n 80
rp=$(echo "$reg_out" | grep -cE '\.\.\. ok|^ok ')
rf=$(echo "$reg_out" | grep -cE '\.\.\. FAILED|^not ok ')
if [ "$rp" -eq 0 ] && [ "$rf" -eq 0 ]; then rf=1; echo "$reg_out" | tail -n 30; fi
if [ "$rf" -gt 0 ] && [ -f "$WORK/src/regression.diffs" ]; then head -n 200 "$WORK/src/regression.diffs"; fi
add_counts "$rp" "$rf"

# ------------------------------------------------------------ extra suites --
for suite in "$ROOT"/test/*/run-suite.sh; do
	[ -x "$suite" ] || continue
	log "suite $(basename "$(dirname "$suite")")"
	s_out=$(GPUIDX_TEST_WORK="$WORK" GPUIDX_TEST_SUDO="$SUDO" "$suite" 2>&1)
	echo "$s_out" | tail -n 20
	line=$(echo "$s_out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ -n "$line" ]; then
		add_counts "$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')" \
			"$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')"
	else
		add_counts 0 1
	fi
done

# ------------------------------------------------------------------- TAP --
if ls "$ROOT"/test/t/*.pl >/dev/null 2>&1; then
	log "TAP tests"
	$SUDO pg_ctl -D "$WORK/data" -m fast stop >/dev/null
	tap_out=$(cd "$WORK/src" && $SUDO env PG_REGRESS="$(dirname "$(pg_config --pgxs)")/../../src/test/regress/pg_regress" \
		prove -v -I "$(dirname "$(pg_config --pgxs)")/../../src/test/perl" test/t/*.pl 2>&1)
	echo "$tap_out" | tail -n 40
	tp=$(echo "$tap_out" | grep -cE '^ok ')
	tf=$(echo "$tap_out" | grep -cE '^not ok ')
	# a script that died or planned more than it ran fails even with no "not ok"
	echo "$tap_out" | grep -q '^Result: PASS' || [ "$tf" -gt 0 ] || tf=1
	[ "$tf" -eq 0 ] || echo "$tap_out" | grep -E '^(not ok|#)' | head -n 60
	[ "$tf" -eq 0 ] || for f in "$WORK"/src/tmp_check/log/regress_log_*; do [ -f "$f" ] && tail -n 30 "$f"; done
	add_counts "$tp" "$tf"
fi

echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
