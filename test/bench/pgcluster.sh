# test/bench/pgcluster.sh - throwaway PostgreSQL clusters for the tests, the
# benchmark, the generator tests and the demo.  Source it, then:
#
#   pgc_private_pg DIR        a private relocatable copy of the PostgreSQL
#                             installation (server, client, PGXS, headers)
#                             under DIR, without any gpuidx in it; exports
#                             PG_CONFIG and puts its bindir first on PATH, so
#                             that `make install` installs there and the
#                             clusters below run its binaries (they find their
#                             share and lib folders relative to themselves)
#   pgc_temp_user             as root: a new unprivileged system user to run
#                             the servers (PGC_RUNAS); pgc_drop_temp_user ends
#                             its processes and deletes it
#   pgc_start DIR [PRELOAD]   initdb + start a cluster in DIR/data, sockets in
#                             DIR (under /tmp), on a free port; as root the
#                             server runs as an unprivileged user (PGC_RUNAS
#                             if set, else $GPUIDX_PG_USER, default
#                             gpuidxbench, created if missing).  PRELOAD=1
#                             tries shared_preload_libraries = 'gpuidx' first
#                             and falls back to none if the server will not
#                             start.  Exports PGHOST, PGPORT, PGUSER=postgres.
#   pgc_stop                  stop it (immediate) and remove DIR
#   pgc_psql ARGS...          psql -X -q -v ON_ERROR_STOP=1 with ARGS
#
# Sets PGC_PRELOADED=1 when the server runs with gpuidx preloaded.

PGC_BIN=${PGC_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
PGC_DIR=""
PGC_RUNAS=""
PGC_TEMP_USER=""
PGC_PRELOADED=0

# Copy the PostgreSQL installation of pg_config (on PATH) under $1.
pgc_private_pg() {
	local d=$1 bindir sharedir incdir srvinc h
	bindir=$(pg_config --bindir) && sharedir=$(pg_config --sharedir) &&
		incdir=$(pg_config --includedir) && srvinc=$(pg_config --includedir-server) || return 1
	# the folders that hold bin/, lib/, share/ and the server headers,
	# copied to the same paths below $d so that relative lookups still work
	for h in "$(dirname "$bindir")" "$sharedir" "$(dirname "$srvinc")"; do
		mkdir -p "$d$(dirname "$h")" && cp -a "$h" "$d$(dirname "$h")/" || return 1
	done
	for h in "$incdir"/*.h; do cp -a "$h" "$d$incdir/" || return 1; done
	rm -rf "$d$(pg_config --pkglibdir)"/gpuidx.so "$d$(pg_config --pkglibdir)"/bitcode/gpuidx* \
		"$d$sharedir"/extension/gpuidx*
	chmod -R a+rX "$d"
	export PG_CONFIG=$d$bindir/pg_config PATH=$d$bindir:$PATH
	PGC_BIN=$d$bindir
}

# As root: create a temporary unprivileged user to run the servers.
pgc_temp_user() {
	local u
	u=gpx$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
	useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$u" || return 1
	PGC_TEMP_USER=$u
	PGC_RUNAS=$u
}

# Delete the temporary user, ending what it still runs (stop its servers
# with pgc_stop or pg_ctl first).
pgc_drop_temp_user() {
	local u=$PGC_TEMP_USER i
	[ -n "$u" ] || return 0
	# what is still ending gets 3 s, the rest is killed
	for i in $(seq 30); do
		pgrep -u "$u" >/dev/null 2>&1 || break
		[ "$i" -gt 15 ] && pkill -KILL -u "$u" 2>/dev/null
		sleep 0.2
	done
	userdel "$u" >/dev/null 2>&1 || { sleep 1; userdel "$u" >/dev/null 2>&1; } \
		|| echo "pgcluster: could not delete the temporary user $u" >&2
	PGC_TEMP_USER=""
}

# Run a command as the cluster owner.
pgc_as() {
	if [ -z "$PGC_RUNAS" ]; then
		"$@"
	elif command -v runuser >/dev/null 2>&1; then
		runuser -u "$PGC_RUNAS" -- "$@"
	else
		su -s /bin/sh "$PGC_RUNAS" -c "$(printf '%q ' "$@")"
	fi
}

# Print a port with no socket lock file in /tmp or DIR and nothing
# listening on it, from $1 (default: a random one in 49152-60999) upwards.
pgc_free_port() {
	local p=${1:-$((49152 + RANDOM % 11848))}
	while [ -e "/tmp/.s.PGSQL.$p" ] || [ -e "/tmp/.s.PGSQL.$p.lock" ] \
		|| (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || [ -e "$PGC_DIR/.s.PGSQL.$p" ]; do
		p=$((p + 1))
	done
	echo "$p"
}

# initdb and start a cluster in $1; optional $2=1 to try preloading gpuidx.
pgc_start() {
	PGC_DIR=$1
	local preload=${2:-0} port
	mkdir -p "$PGC_DIR"
	if [ "$(id -u)" = 0 ]; then
		[ -n "$PGC_RUNAS" ] || PGC_RUNAS=${GPUIDX_PG_USER:-gpuidxbench}
		id "$PGC_RUNAS" >/dev/null 2>&1 || useradd -m "$PGC_RUNAS" || return 1
		chown -R "$PGC_RUNAS" "$PGC_DIR"
	fi
	chmod 755 "$PGC_DIR"
	pgc_as "$PGC_BIN/initdb" -D "$PGC_DIR/data" -A trust -U postgres -E UTF8 --locale=C \
		>"$PGC_DIR/initdb.log" 2>&1 || { cat "$PGC_DIR/initdb.log"; return 1; }
	port=$(pgc_free_port ${GPUIDX_PG_PORT:-})
	cat >>"$PGC_DIR/data/postgresql.conf" <<EOF
port = $port
unix_socket_directories = '$PGC_DIR'
listen_addresses = ''
max_worker_processes = 16
shared_buffers = ${GPUIDX_PG_SHARED_BUFFERS:-512MB}
work_mem = 64MB
maintenance_work_mem = 512MB
max_wal_size = 8GB
checkpoint_timeout = 30min
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
log_min_messages = warning
EOF
	# extra settings, one per line (e.g. GPUIDX_PG_CONF='gpuidx.spin_wait = 100')
	[ -z "${GPUIDX_PG_CONF:-}" ] || printf '%s\n' "$GPUIDX_PG_CONF" >>"$PGC_DIR/data/postgresql.conf"
	PGC_PRELOADED=0
	if [ "$preload" = 1 ] && [ -f "$(pg_config --pkglibdir)/gpuidx.so" ]; then
		echo "shared_preload_libraries = 'gpuidx'" >>"$PGC_DIR/data/postgresql.conf"
		if pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -l "$PGC_DIR/server.log" -w -t 60 start >/dev/null 2>&1; then
			PGC_PRELOADED=1
		else
			echo "(the server would not start with gpuidx preloaded; starting without: $(tail -n 1 "$PGC_DIR/server.log"))" >&2
			sed -i "/^shared_preload_libraries = 'gpuidx'/d" "$PGC_DIR/data/postgresql.conf"
		fi
	fi
	if [ "$PGC_PRELOADED" = 0 ]; then
		pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -l "$PGC_DIR/server.log" -w -t 60 start >/dev/null \
			|| { cat "$PGC_DIR/server.log"; return 1; }
	fi
	export PGHOST=$PGC_DIR PGPORT=$port PGUSER=postgres PGDATABASE=postgres
	export PGC_PRELOADED
}

# Stop the cluster and remove its directory.
pgc_stop() {
	[ -n "$PGC_DIR" ] || return 0
	if [ -f "$PGC_DIR/data/postmaster.pid" ]; then
		pgc_as "$PGC_BIN/pg_ctl" -D "$PGC_DIR/data" -m immediate -w stop >/dev/null 2>&1
	fi
	rm -rf "$PGC_DIR"
	PGC_DIR=""
}

# psql with the harness's settings (no NOTICEs).
pgc_psql() {
	PGOPTIONS="-c client_min_messages=warning ${PGOPTIONS:-}" "$PGC_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"
}
