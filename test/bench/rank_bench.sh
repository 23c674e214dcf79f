#!/usr/bin/env bash
# test/bench/rank_bench.sh - the ranked-retrieval benchmark (#19): gpuidx's
# BM25 top-k (posting_rank_and, posting_rank_or) against PostgreSQL's own
# ranked search, side by side in one run:
#   GIN   SELECT ... WHERE tsv @@ q ORDER BY ts_rank_cd(tsv, q) DESC LIMIT k
#   RUM   SELECT ... WHERE tsv @@ q ORDER BY tsv <=> q LIMIT k
#         (the rum extension, Debian package postgresql-15-rum)
#   gpuidx in the backend (gpuidx.use_executor = off)
#   gpuidx through the executor (gpuidx.device = gpu when the executor has
#         a GPU, its CPU otherwise; the path's name says which)
# each with one client and with RANK_CLIENTS concurrent clients (threads of
# bench_query, one connection each, like run-bench.sh's concurrent runs),
# for top-10 and top-1000, ranked AND (q = t1 & t2 ...) and ranked OR
# (t1 | t2 ...), on
#   - the GOV2-calibrated synthetic collection (test/gen/gpx_gen --tf: its
#     term frequencies and document lengths, gen_tf.h), keeping the queries
#     whose shortest list has >= RANK_MIN_SHORTEST docIDs; GIN and RUM
#     index documents made of the kept lists (each posting a lexeme "tN"
#     with tf positions, at most 256), so their documents hold only the
#     query terms: smaller tsvectors than real pages, to their advantage;
#   - the real corpora (PostgreSQL's HTML documentation, a Linux source
#     sample), indexed through to_tsvector, all their sampled queries.
# Every path of a group runs the same queries; a timed query returns the
# number of rows of its top k (ARRAY[count(*)]), so the whole ranked query
# runs, and every path's count of every query is checked against the first
# path's (the rankings themselves differ: BM25, cover density, RUM's
# ts_rank).  The page ends with #19's targets, measured on the synthetic
# collection (all of its queries have a shortest list >= 10^4 docIDs at the
# default RANK_MIN_SHORTEST).
#
#   test/bench/rank_bench.sh [--label NAME]        (make bench-rank)
#
# Knobs (environment): RANK_SCALE (0.2) RANK_QUERIES (8000: the log the
#   queries are taken from) RANK_SEED (1) RANK_ORDER (clustered)
#   RANK_MIN_SHORTEST (10000) RANK_KS ("10 1000") RANK_TYPES ("pfor": the
#   posting types ranked in the backend) RANK_EXEC_TYPES (the first of
#   RANK_TYPES: those ranked through the executor) RANK_EXEC (yes|no)
#   RANK_EXEC_AUTO (yes: with a GPU, also gpuidx.device = auto, where the
#   cost model sends each query to the GPU or keeps it in the backend)
#   RANK_AGG (yes: with the library preloaded (RANK_EXEC=yes), also
#   posting_rank_and_agg / _or_agg over the list rows, in the backend
#   (gpuidx.device = backend: large stored lists read in place from the
#   shared cache) for RANK_TYPES and through the executor (lists its cache
#   holds sent by key, unread) for RANK_EXEC_TYPES)
#   RANK_CLIENTS ("1 16") RANK_MODES ("AND OR") RANK_EXEC_DIAG (0; 1: after
#   each group, a note of the executor's batches, round trip and main-thread
#   profile in that group, the counters then reset, so the dataset's
#   counters cover its last group only) RANK_CORPUS ("pgdocs linux", or none)
#   RANK_LINUX_MAX_DOCS (4000) RANK_CORPUS_QUERIES (300) RANK_MIN_TIME (3)
#   RANK_MAX_TIME (15: a slower path runs what it can of one round in that
#   time, then times that subset for as long again) RANK_MIN_COUNT (10:
#   fewer timed executions are "too small to report")
#   RANK_ARENA (2GB: gpuidx.arena_size) RANK_OUT (docs/bench)
#   GPUIDX_PG_CONF (more postgresql.conf lines, e.g. 'gpuidx.spin_wait = 100';
#   the page's server line lists the settings)
#   RANK_INSTALL (1: as root, make install into a private copy of the
#   PostgreSQL installation under the work directory, RANK_PRIVATE_PG=0:
#   into pg_config's own) RANK_APT (1: as root, apt-get install the
#   packages below when missing) RANK_KEEP (1: keep the work directory).
# Packages (Debian): postgresql-15-rum, postgresql-doc-15, and linux-source
#   when the linux corpus is asked for.  Where there is no package registry
#   (the GPU machine), RANK_RUM_DEB=FILE installs rum.so, rum.control and
#   rum--*.sql from a postgresql-15-rum .deb (apt-get download
#   postgresql-15-rum) into pg_config's PostgreSQL, and RANK_DOC_DEB=FILE
#   takes the pgdocs corpus from a postgresql-doc-15 .deb.
# Writes RANK_OUT/LABEL.md (default label: rank) and LABEL.tsv.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
label=rank
while [ $# -gt 0 ]; do
	case "$1" in
		--label) label=$2; shift 2 ;;
		*) echo "usage: $0 [--label NAME]" >&2; exit 2 ;;
	esac
done
SCALE=${RANK_SCALE:-0.2}
QUERIES=${RANK_QUERIES:-8000}
SEED=${RANK_SEED:-1}
ORDER=${RANK_ORDER:-clustered}
MIN_SHORTEST=${RANK_MIN_SHORTEST:-10000}
KS=${RANK_KS:-10 1000}
TYPES=${RANK_TYPES:-pfor}
EXEC_TYPES=${RANK_EXEC_TYPES:-${TYPES%% *}}
EXEC=${RANK_EXEC:-yes}
AGG=${RANK_AGG:-yes}
EXEC_AUTO=${RANK_EXEC_AUTO:-yes}
CLIENTS=${RANK_CLIENTS:-1 16}
MODES=${RANK_MODES:-AND OR}
EXEC_DIAG=${RANK_EXEC_DIAG:-0}
CORPORA=${RANK_CORPUS:-pgdocs linux}
[ "$CORPORA" = none ] && CORPORA=""
LINUX_MAX=${RANK_LINUX_MAX_DOCS:-4000}
CQ=${RANK_CORPUS_QUERIES:-300}
MIN_TIME=${RANK_MIN_TIME:-3}
MAX_TIME=${RANK_MAX_TIME:-15}
MIN_COUNT=${RANK_MIN_COUNT:-10}
ARENA=${RANK_ARENA:-2GB}
OUT=${RANK_OUT:-docs/bench}
T1=${TYPES%% *}

BL_TAG=rank
export BL_T0=$(date +%s.%N)
. "$ROOT/test/bench/pgcluster.sh"
. "$ROOT/test/bench/benchlib.sh"

BL_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-rank.XXXXXX") || exit 1
chmod 755 "$BL_WORK"
export BL_WORK
RES="$BL_WORK/results"
mkdir -p "$RES"
TSV="$RES/results.tsv"
: >"$TSV"
: >"$RES/notes.txt"
cleanup() {
	trap '' PIPE
	if [ -s "$TSV" ] && [ ! -f "$RES/reported" ]; then
		echo "interrupted: $(date -u '+%Y-%m-%d %H:%M UTC'), the figures below are those measured until then" >>"$RES/meta.txt"
		rank_report
	fi
	pgc_stop
	if [ -n "${RANK_KEEP:-}" ]; then echo "work directory kept: $BL_WORK"; else rm -rf "$BL_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# note LINE: a line for the page's list of facts (and the progress log)
note() {
	echo "$*" >>"$RES/notes.txt"
	bl_step "  $*"
}

# -------------------------------------------------------------- report ---
# rank_report: write $OUT/$label.md and .tsv from what was measured (also
# when the run is cut short: the page then says so)
rank_report() {
	[ -f "$RES/reported" ] && return 0
	touch "$RES/reported"
	bl_step "writing $OUT/$label.md"
	mkdir -p "$OUT"
	{
		echo "# Ranked retrieval: gpuidx BM25 top-k vs GIN ts_rank_cd and RUM"
		echo
		sed 's/^/- /' "$RES/meta.txt"
		sed 's/^/- /' "$RES/notes.txt"
		echo
		echo "qps: queries per second over the group's queries (with N clients: all"
		echo "clients together); p50, p99: client-side latency (ms); x GIN, x RUM: the"
		echo "path's qps over theirs with as many clients.  Every path returned the same"
		echo "number of rows (min(k, matches)) for every query as the first path, or its"
		echo "status says how many differed.  A path that could not run one round of"
		echo "the queries in RANK_MAX_TIME timed the first ones it ran (status: \"time"
		echo "limit: N of the queries\"); the queries are in random order, so that is a"
		echo "random subset, and its qps is compared with the others' over all queries."
		echo "The floor path reads a query's lists as the gpuidx path does and returns"
		echo "the stored row count: what a query costs besides ranking.  The \"k rows\""
		echo "floor also makes as many (docid, score) rows as the top k has and counts"
		echo "them, as the ranked paths do: with N clients, the most the executor path"
		echo "could reach if its round trip took no time."
		awk -F'\t' -v ds="synth-$ORDER" -v t1="$T1" -v min_short="$MIN_SHORTEST" -v dev="$EXEC_DEV" '
		function base(p) { sub(/ \[[0-9]+ clients\]$/, "", p); return p }
		function ncl(p) { return match(p, /\[[0-9]+ clients\]$/) ? substr(p, RSTART + 1) + 0 : 1 }
		$1 == "query" {
			g = $2; p = $3
			if (!(g in seen)) { seen[g] = 1; order[++ng] = g }
			key = g SUBSEP p
			if (!(key in row)) { paths[g] = paths[g] SUBSEP p }
			row[key] = 1; qps[key] = $6; p50[key] = $7; p99[key] = $8; res[key] = $9; bad[key] = $10; st[key] = $11
			c = ncl(p)
			if (p ~ /^GIN/) gin[g, c] = $6
			if (p ~ /^RUM/) rum[g, c] = $6
		}
		function fmt(x) { return x < 0 ? "-" : (x >= 100 ? sprintf("%.0f", x) : (x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x))) }
		function ratio(a, b) { return (a > 0 && b > 0) ? a / b : -1 }
		END {
			for (i = 1; i <= ng; i++) {
				g = order[i]
				printf "\n## %s\n\n| path | qps | p50 ms | p99 ms | x GIN | x RUM | status |\n|---|---:|---:|---:|---:|---:|---|\n", g
				n = split(paths[g], ps, SUBSEP)
				for (j = 2; j <= n; j++) {
					key = g SUBSEP ps[j]; c = ncl(ps[j])
					printf "| %s | %s | %s | %s | %s | %s | %s |\n", ps[j], qps[key],
						(p50[key] < 0 ? "-" : p50[key]), (p99[key] < 0 ? "-" : p99[key]),
						fmt(ratio(qps[key], gin[g, c])), fmt(ratio(qps[key], rum[g, c])), st[key]
				}
			}
			# the targets of #19, on the synthetic collection
			printf "\n## #19 targets (%s: every query has a shortest list >= %d docIDs)\n\n", ds, min_short
			printf "gpuidx: posting_%s; the executor ran on the %s%s.\n\n", t1, (dev == "" ? "(not run)" : toupper(dev)),
				(dev == "cpu" ? " (no GPU here: the GPU targets are not measured by this run)" : "")
			printf "| group | target | measured | met |\n|---|---|---:|---|\n"
			for (i = 1; i <= ng; i++) {
				g = order[i]
				if (index(g, ds " ") != 1) continue
				# q/s by path name: one client (q1) and the most clients (qn)
				delete q1; delete qn; nc16 = 0
				for (key in row) {
					split(key, kk, SUBSEP)
					if (kk[1] != g) continue
					if (ncl(kk[2]) == 1) q1[base(kk[2])] = qps[key] + 0
					else { qn[base(kk[2])] = qps[key] + 0; nc16 = ncl(kk[2]) }
				}
				B = "gpuidx " t1 " backend"; BA = "gpuidx " t1 " aggregate, backend"
				E = "gpuidx " t1 " executor " toupper(dev); EA = "gpuidx " t1 " aggregate, executor " toupper(dev)
				F = "floor: read " t1 " lists, k rows"
				# the faster backend form with as many clients: what the executor must beat
				bn = qn[B] + 0; if (qn[BA] + 0 > bn) bn = qn[BA] + 0
				row_t(g, "backend >= 10x RUM, 1 client", ratio(q1[B], rum[g, 1]), 10)
				row_t(g, "backend >= 30x GIN, 1 client", ratio(q1[B], gin[g, 1]), 30)
				if (BA in q1) {
					row_t(g, "backend, aggregate >= 10x RUM, 1 client", ratio(q1[BA], rum[g, 1]), 10)
					row_t(g, "backend, aggregate >= 30x GIN, 1 client", ratio(q1[BA], gin[g, 1]), 30)
				}
				if (dev != "") {
					row_t(g, "executor (" toupper(dev) ") >= 100x GIN, 1 client", ratio(q1[E], gin[g, 1]), 100)
					if (EA in q1)
						row_t(g, "executor (" toupper(dev) "), aggregate >= 100x GIN, 1 client", ratio(q1[EA], gin[g, 1]), 100)
				}
				if (dev != "" && g ~ / OR / && nc16 > 0) {
					row_t(g, "executor (" toupper(dev) ") >= 10x the faster backend form, " nc16 " clients", ratio(qn[E], bn), 10)
					if (EA in qn)
						row_t(g, "executor (" toupper(dev) "), aggregate >= 10x the faster backend form, " nc16 " clients", ratio(qn[EA], bn), 10)
					# what no executor of the array form can pass: the k-rows floor
					if (qn[F] + 0 > 0)
						printf "| %s | (bound of the array form: k-rows floor, %d clients, over the faster backend form) | %sx | %s |\n", g, nc16,
							fmt(ratio(qn[F], bn)), (ratio(qn[F], bn) >= 10 ? "10x reachable" : "10x out of reach")
				}
			}
		}
		function row_t(g, what, x, want) {
			printf "| %s | %s | %s | %s |\n", g, what, (x < 0 ? "-" : fmt(x) "x"), (x < 0 ? "not measured" : (x >= want ? "yes" : "no"))
		}' "$TSV"
	} >"$OUT/$label.md"
	cp "$TSV" "$OUT/$label.tsv"
	bl_step "done: $OUT/$label.md"
}


# ------------------------------------------------------------ packages ---
if [ "$(id -u)" = 0 ] && [ "${RANK_APT:-1}" = 1 ] && command -v apt-get >/dev/null && command -v dpkg >/dev/null; then
	need="postgresql-15-rum postgresql-doc-15"
	case " $CORPORA " in *" linux "*) need="$need linux-source" ;; esac
	missing=""
	for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	if [ -n "$missing" ]; then
		bl_step "installing Debian packages:$missing"
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq $missing \
			>"$BL_WORK/apt.log" 2>&1 || note "apt-get install$missing failed: $(tail -n 1 "$BL_WORK/apt.log")"
	fi
fi

# rank_deb_extract DEB DIR: unpack a .deb's files under DIR (dpkg-deb, or
# ar and tar where there is no dpkg)
rank_deb_extract() {
	local deb=$1 dir=$2 data
	mkdir -p "$dir" || return 1
	if command -v dpkg-deb >/dev/null; then
		dpkg-deb -x "$deb" "$dir"
		return
	fi
	(cd "$dir" && ar x "$(readlink -f "$deb")") || return 1
	data=$(ls "$dir"/data.tar.* 2>/dev/null | head -n 1)
	[ -n "$data" ] || { echo "no data.tar.* in $deb" >&2; return 1; }
	tar -C "$dir" -xf "$data" && rm -f "$dir"/data.tar.* "$dir"/control.tar.* "$dir"/debian-binary
}

# ------------------------------------------------------------- install ---
EXT_NOTE="not rebuilt (RANK_INSTALL=0 or not root): whatever is installed"
if [ "$(id -u)" = 0 ] && [ "${RANK_INSTALL:-1}" = 1 ]; then
	if [ "${RANK_PRIVATE_PG:-1}" = 1 ]; then
		bl_step "a private copy of the PostgreSQL installation under $BL_WORK/pgi"
		pgc_private_pg "$BL_WORK/pgi" || { echo "copying the PostgreSQL installation failed" >&2; exit 1; }
	fi
	bl_step "make && make install (into $(pg_config --pkglibdir))"
	llvm=""
	if ! make -s -j"$(nproc)" >"$BL_WORK/install.log" 2>&1 && grep -q '\.bc\] Error 127' "$BL_WORK/install.log"; then
		llvm=with_llvm=no	# PGXS wants clang for JIT bitcode and there is none
	fi
	{ make -s -j"$(nproc)" $llvm && make -s install $llvm; } >"$BL_WORK/install.log" 2>&1 \
		|| { cat "$BL_WORK/install.log"; exit 1; }
	EXT_NOTE="built from this tree, installed into $(pg_config --pkglibdir)"
fi
if [ -n "${RANK_RUM_DEB:-}" ]; then
	bl_step "installing rum from $RANK_RUM_DEB into $(pg_config --pkglibdir)"
	rank_deb_extract "$RANK_RUM_DEB" "$BL_WORK/rumdeb" || exit 1
	pgmaj=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
	so="$BL_WORK/rumdeb/usr/lib/postgresql/$pgmaj/lib/rum.so"
	[ -f "$so" ] || { echo "$RANK_RUM_DEB has no rum.so for PostgreSQL $pgmaj" >&2; exit 1; }
	install -m 755 "$so" "$(pg_config --pkglibdir)/" &&
		install -m 644 "$BL_WORK/rumdeb/usr/share/postgresql/$pgmaj/extension/"rum* "$(pg_config --sharedir)/extension/" \
		|| exit 1
	note "rum: installed from $(basename "$RANK_RUM_DEB")"
fi
PGDOCS_NOTE=""
if [ -n "${RANK_DOC_DEB:-}" ]; then
	rank_deb_extract "$RANK_DOC_DEB" "$BL_WORK/docdeb" || exit 1
	export BL_PGDOCS="$BL_WORK/docdeb/usr/share/doc/postgresql-doc-15/html"
	chmod -R a+rX "$BL_WORK/docdeb"
	PGDOCS_NOTE="pgdocs read from $(basename "$RANK_DOC_DEB")"
fi

bl_step "building the benchmark tools"
make -s test/gen/bin/gpx_gen test/bench/bin/bench_query test/bench/bin/gpx_corpus \
	>"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }

{
	echo "label: $label"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $CMDLINE"
	echo "knobs: RANK_SCALE=$SCALE RANK_QUERIES=$QUERIES RANK_SEED=$SEED RANK_ORDER=$ORDER RANK_MIN_SHORTEST=$MIN_SHORTEST RANK_KS='$KS' RANK_TYPES='$TYPES' RANK_EXEC_TYPES='$EXEC_TYPES' RANK_EXEC=$EXEC RANK_AGG=$AGG RANK_EXEC_AUTO=$EXEC_AUTO RANK_CLIENTS='$CLIENTS' RANK_MODES='$MODES' RANK_EXEC_DIAG=$EXEC_DIAG RANK_CORPUS='${CORPORA:-none}' RANK_LINUX_MAX_DOCS=$LINUX_MAX RANK_CORPUS_QUERIES=$CQ RANK_MIN_TIME=$MIN_TIME RANK_MAX_TIME=$MAX_TIME RANK_MIN_COUNT=$MIN_COUNT RANK_ARENA=$ARENA"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online"
	echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		echo "gpu: $(nvidia-smi -L | sed 's/ (UUID.*//' | paste -sd ';' -)"
	else
		echo "gpu: none"
	fi
	echo "os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown}")"
	echo "postgresql: $(pg_config --version)"
	echo "gpuidx: $(git rev-parse --short HEAD 2>/dev/null || echo 'no commit')$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo ' + uncommitted changes'); $EXT_NOTE"
	[ -n "$PGDOCS_NOTE" ] && echo "$PGDOCS_NOTE"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$RES/meta.txt"

bl_step "starting a throwaway cluster$([ "$EXEC" = yes ] && echo " with gpuidx preloaded")"
export GPUIDX_PG_CONF="gpuidx.arena_size = '$ARENA'
max_connections = 100${GPUIDX_PG_CONF:+
$GPUIDX_PG_CONF}"
pgc_start "$BL_WORK/pg" "$([ "$EXEC" = yes ] && echo 1 || echo 0)" || exit 1
if [ "$PGC_PRELOADED" = 1 ]; then
	for i in $(seq 1 40); do [ "$(bl_executors postgres)" -gt 0 ] && break; sleep 0.5; done
fi
echo "server: shared_preload_libraries = '$(bl_val postgres 'SHOW shared_preload_libraries')', gpuidx executors running: $(bl_executors postgres), shared_buffers $(bl_val postgres 'SHOW shared_buffers'), max_parallel_workers_per_gather $(bl_val postgres 'SHOW max_parallel_workers_per_gather') (GIN and RUM may use parallel workers; gpuidx in the backend runs on one core), jit off, fsync off; settings: $(echo "$GPUIDX_PG_CONF" | tr '\n' ';' | sed 's/;/; /g')" >>"$RES/meta.txt"

# Where the executor paths run: EXEC_DEV (gpu, cpu, or empty with
# EXEC_WHY saying why there is none); set once, on the first database.
EXEC_DEV=""
EXEC_WHY="RANK_EXEC=$EXEC"
rank_exec_device() {
	local db=$1 why
	[ "$EXEC" = yes ] || return 0
	if [ "$PGC_PRELOADED" != 1 ]; then
		EXEC_WHY="the server would not start with gpuidx preloaded"
		return 0
	fi
	why=$(bl_exec_device "$db" gpu)
	if [ -z "$why" ]; then
		EXEC_DEV=gpu
		note "executor paths: gpuidx.device = gpu ($(bl_val "$db" "SELECT device_active FROM gpuidx_info()"))"
		return 0
	fi
	EXEC_WHY=$(bl_exec_device "$db" cpu)
	if [ -z "$EXEC_WHY" ]; then
		EXEC_DEV=cpu
		note "executor paths: gpuidx.device = cpu, the executor's CPU ($(bl_val "$db" "SELECT cpu_threads FROM gpuidx_info()") threads), because there is no GPU: $why"
	else
		note "executor paths not run: $EXEC_WHY"
	fi
}

# rank_setup DB: CREATE EXTENSION rum (or a note), and whether the posting
# types take frequencies; prints "tf" or "notf".
rank_setup() {
	local db=$1
	pgc_psql -d "$db" -c "CREATE EXTENSION IF NOT EXISTS gpuidx" || return 1
	if ! pgc_psql -d "$db" -c "CREATE EXTENSION IF NOT EXISTS rum" 2>"$BL_WORK/rum.err"; then
		echo "RUM not measured: $(head -n 1 "$BL_WORK/rum.err") (apt-get install postgresql-15-rum, or RANK_RUM_DEB)" >>"$RES/notes.txt"
	fi
	if [ "$(bl_val "$db" "SELECT to_regprocedure('posting_pfor(int4[], int4[])') IS NOT NULL")" = t ]; then
		echo tf
	else
		echo notf
	fi
}

# rank_paths DB MODE K LISTSQL NCLIENTS: bench_query's --path arguments
# (one per line) for one group.  LISTSQL: the query's lists in term order
# from QTERMS (a term_id array, $1 here), with the column TYPECOL.
rank_paths() {
	local db=$1 mode=$2 k=$3 listsql=${4//QTERMS/\$1::int[]} nc=$5 t fn tsq q aggq
	fn=posting_rank_or; tsq='$2::tsquery'
	[ "$mode" = AND ] && fn=posting_rank_and
	for t in $TYPES; do
		echo "gpuidx $t backend|SET gpuidx.use_executor = off|SELECT ARRAY[count(*)::int] FROM $fn(ARRAY(${listsql//TYPECOL/docs_$t}), (SELECT stats FROM collection), $k)"
	done
	# the aggregate form over the list rows: with the library preloaded,
	# large stored lists kept unread; in the backend (gpuidx.device =
	# backend) read in place from the shared cache, through the executor
	# sent by key where its cache holds them; the hits made rows
	if [ "$AGG" = yes ] && [ "$PGC_PRELOADED" = 1 ]; then
		aggq="SELECT ARRAY[count(*)::int] FROM unnest((SELECT ${fn}_agg(l.docs_TYPECOL, c.stats, $k ORDER BY u.pos) FROM unnest(\$1::int[]) WITH ORDINALITY u(t, pos) LEFT JOIN rank_lists l ON l.term_id = u.t CROSS JOIN collection c))"
		for t in $TYPES; do
			echo "gpuidx $t aggregate, backend|SET gpuidx.use_executor = on; SET gpuidx.device = 'backend'|${aggq//TYPECOL/$t}"
		done
		if [ -n "$EXEC_DEV" ]; then
			for t in $EXEC_TYPES; do
				echo "gpuidx $t aggregate, executor ${EXEC_DEV^^}|SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = '$EXEC_DEV'|${aggq//TYPECOL/$t}"
			done
		fi
	fi
	if [ "$EXEC" = yes ]; then
		for t in $EXEC_TYPES; do
			q="SELECT ARRAY[count(*)::int] FROM $fn(ARRAY(${listsql//TYPECOL/docs_$t}), (SELECT stats FROM collection), $k)"
			if [ -n "$EXEC_DEV" ]; then
				echo "gpuidx $t executor ${EXEC_DEV^^}|SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = '$EXEC_DEV'|$q"
				# auto: the cost model picks the executor's GPU or the backend
				[ "$EXEC_DEV" = gpu ] && [ "$EXEC_AUTO" = yes ] &&
					echo "gpuidx $t executor AUTO|SET gpuidx.use_executor = on; SET gpuidx.device = 'auto'|$q"
			else
				echo "gpuidx $t executor|!$EXEC_WHY|"
			fi
		done
	fi
	# what a query costs besides ranking: read its lists (first type) and
	# return the stored number of rows; then also make that many
	# (docid, score) rows and count them, as the ranked paths do -- with
	# several clients, what the executor would reach with no round trip
	echo "floor: read $T1 lists||SELECT ARRAY[e.n] FROM rank_expect e WHERE e.term_ids = \$1::int[] AND e.mode = '$mode' AND e.k = $k AND cardinality(ARRAY(${listsql//TYPECOL/docs_$T1})) >= 0"
	echo "floor: read $T1 lists, k rows||SELECT ARRAY[count(*)::int] FROM rank_expect e, LATERAL (SELECT g AS docid, g::float8 AS score FROM generate_series(1, e.n) g) r WHERE e.term_ids = \$1::int[] AND e.mode = '$mode' AND e.k = $k AND cardinality(ARRAY(${listsql//TYPECOL/docs_$T1})) >= 0"
	echo "GIN ts_rank_cd||SELECT ARRAY[count(*)::int] FROM (SELECT doc_id FROM docs_gin WHERE tsv @@ $tsq ORDER BY ts_rank_cd(tsv, $tsq) DESC LIMIT $k) s"
	if [ "$(bl_val "$db" "SELECT count(*) FROM pg_extension WHERE extname = 'rum'")" = 1 ]; then
		echo "RUM <=>||SELECT ARRAY[count(*)::int] FROM (SELECT doc_id FROM docs_rum WHERE tsv @@ $tsq ORDER BY tsv <=> $tsq LIMIT $k) s"
	else
		echo "RUM <=>|!the rum extension is not installed|"
	fi
}

# rank_expect DB LISTSQL: rank_expect(term_ids, mode, k, n), the number of
# rows of each query's top k (from the first type), for the floor path.
rank_expect() {
	local db=$1 listsql=${2//QTERMS/q.term_ids} k sql=""
	for k in $KS; do
		sql="$sql INSERT INTO rank_expect SELECT q.term_ids, 'AND', $k, (SELECT count(*) FROM posting_rank_and(ARRAY(${listsql//TYPECOL/docs_$T1}), (SELECT stats FROM collection), $k)) FROM (SELECT DISTINCT term_ids FROM queries) q;"
		sql="$sql INSERT INTO rank_expect SELECT q.term_ids, 'OR', $k, (SELECT count(*) FROM posting_rank_or(ARRAY(${listsql//TYPECOL/docs_$T1}), (SELECT stats FROM collection), $k)) FROM (SELECT DISTINCT term_ids FROM queries) q;"
	done
	pgc_psql -d "$db" -c "SET gpuidx.use_executor = off" -c "CREATE TABLE rank_expect (term_ids int[], mode text, k int, n int)" -c "$sql" \
		-c "CREATE INDEX ON rank_expect (term_ids, mode, k)" -c "ANALYZE rank_expect"
}

# rank_run DB DATASET QSQL_AND QSQL_OR LISTSQL: every group (mode x k),
# each with every client count.
rank_run() {
	local db=$1 ds=$2 qand=$3 qor=$4 listsql=$5 mode k q p nc
	rank_expect "$db" "$listsql" || return 1
	note "$ds: rows per query, min(k, matches): $(bl_val "$db" "SELECT string_agg(format('%s top-%s %s', mode, k, round(a)), ', ' ORDER BY mode, k) FROM (SELECT mode, k, avg(n) a FROM rank_expect GROUP BY mode, k) x")"
	for mode in $MODES; do
		q=$qor
		[ "$mode" = AND ] && q=$qand
		for k in $KS; do
			for nc in $CLIENTS; do
				local args=()
				while IFS= read -r p; do args+=(--path "$p"); done < <(rank_paths "$db" "$mode" "$k" "$listsql" "$nc")
				bl_step "  $ds: ranked $mode, top-$k, $nc client(s)"
				PGDATABASE=$db test/bench/bin/bench_query --dataset "$ds $mode top-$k" --queries-sql "$q" \
					--min-time "$MIN_TIME" --max-time "$MAX_TIME" --min-count "$MIN_COUNT" --clients "$nc" \
					--tsv "$TSV" --header 0 "${args[@]}"
				[ "$EXEC_DIAG" = 1 ] && rank_exec_diag "$db" "$ds $mode top-$k, $nc client(s)"
			done
		done
	done
}

# rank_gpu_runs DB: "; GPU so far: N ranked runs of M queries" (the
# device's counts since the executor started, as its description gives
# them: queued ranked batches run merged, so M / N can pass the requests a
# batch), or nothing without a GPU
rank_gpu_runs() {
	local r
	sleep 1.2	# the executor refreshes its description at most once a second, when idle
	r=$(bl_val "$1" "SELECT coalesce(substring(device_active from '[0-9]+ ranked runs of [0-9]+ queries(?:, at most [0-9]+ side by side)?'), '') FROM gpuidx_info()")
	[ -z "$r" ] || printf '; GPU so far: %s' "$r"
}

# rank_exec_diag DB GROUP: (RANK_EXEC_DIAG=1) what the executor did in the
# group just run -- requests a batch, round trip, the main thread's time
# by phase -- then the counters reset for the next group
rank_exec_diag() {
	local db=$1 grp=$2
	[ -n "$EXEC_DEV" ] || return 0
	note "$grp: executor: $(bl_val "$db" "SELECT format('%s requests, %s queries in %s batches (%s requests, %s queries a batch), mean round trip %s ms, executor time %s ms', requests, queries, batches, round(mean_batch_requests::numeric, 2), round(mean_batch_queries::numeric, 2), round(mean_roundtrip_ms::numeric, 3), round(executor_time_ms::numeric, 1)) FROM gpuidx_stats()"); main thread: $(bl_val "$db" "SELECT string_agg(format('%s %s%% (%s calls, %s ms)', phase, round((100 * share)::numeric, 1), calls, round(time_ms::numeric, 1)), ', ' ORDER BY time_ms DESC) FROM gpuidx_executor_profile() WHERE time_ms > 0")$(rank_gpu_runs "$db")"
	bl_val "$db" "SELECT gpuidx_stats_reset()" >/dev/null
}

# rank_build_lists DB FROM TF: CREATE TABLE rank_lists(term_id, docs_T...)
# from FROM, a relation of (term_id, docs int4[], tfs int4[]).
rank_build_lists() {
	local db=$1 from=$2 tf=$3 cols="" t
	for t in $TYPES; do
		if [ "$tf" = tf ]; then
			cols="$cols, posting_$t(docs, tfs) AS docs_$t"
		else
			cols="$cols, docs::posting_$t AS docs_$t"
		fi
	done
	pgc_psql -d "$db" -c "CREATE TABLE rank_lists AS SELECT term_id$cols FROM $from" \
		-c "ALTER TABLE rank_lists ADD PRIMARY KEY (term_id)" -c "VACUUM ANALYZE rank_lists"
}

# rank_exec_stats DB DATASET: the executor's counters for the dataset's
# runs (then reset), to show where its paths ran
rank_exec_stats() {
	local db=$1 ds=$2
	[ -n "$EXEC_DEV" ] || return 0
	note "$ds: executor counters: $(bl_val "$db" "SELECT format('%s requests in %s batches (%s with >= 2 backends), %s on a GPU, %s GPU failures rerun on its CPU, %s sent to gpu without one, %s fallbacks to the backend, mean round trip %s ms; %s queries kept in the backend by auto', requests, batches, multi_backend_batches, gpu_batches, gpu_failures, gpu_unavailable, fallbacks, round(mean_roundtrip_ms::numeric, 2), backend_queries) FROM gpuidx_stats()")"
	note "$ds: auto's model of ranked batches at the end: $(bl_val "$db" "SELECT format('AND: backend %s ns a candidate, GPU %s ns a candidate and %s us a batch; OR: backend %s ns, GPU %s ns and %s us', round(rank_and_backend_ns::numeric, 2), round(rank_and_gpu_ns::numeric, 3), round(rank_and_gpu_batch_us::numeric, 1), round(rank_or_backend_ns::numeric, 2), round(rank_or_gpu_ns::numeric, 3), round(rank_or_gpu_batch_us::numeric, 1)) FROM gpuidx_info()")"
	bl_val "$db" "SELECT gpuidx_stats_reset()" >/dev/null
}

LISTSQL='SELECT l.TYPECOL FROM unnest(QTERMS) WITH ORDINALITY u(t, pos) LEFT JOIN rank_lists l ON l.term_id = u.t ORDER BY u.pos'

# ----------------------------------------------------------- synthetic ---
ds="synth-$ORDER"
db=rank_synth
gdir="$BL_WORK/gen"
bl_step "generating $ds: scale $SCALE ($(awk -v s="$SCALE" 'BEGIN {printf "%d", 25205179 * s + 0.5}') docs), $QUERIES queries, frequencies and document lengths (--tf)"
test/gen/bin/gpx_gen --scale "$SCALE" --queries "$QUERIES" --extra 0 --seed "$SEED" \
	--order "$ORDER" --tf --quiet --out "$gdir" >/dev/null || exit 1
cp "$gdir/stats.txt" "$RES/gen.stats"
chmod -R a+rX "$gdir"
npost_gen=$(sed -n 's/^postings=//p' "$gdir/stats.txt")
bl_prune_min_shortest "$gdir" "$MIN_SHORTEST" >"$BL_WORK/prune" || exit 1
read -r nq_kept nterms_kept npost_kept <"$BL_WORK/prune"
shortest_stats=$(awk 'FILENAME ~ /terms.copy$/ { df[$1] = $2; next } {
	s = $2; gsub(/[{}]/, "", s); k = split(s, a, ","); m = -1; t = 0
	for (i = 1; i <= k; i++) { if (m < 0 || df[a[i]] < m) m = df[a[i]]; t += df[a[i]] }
	n++; sm += m; st += t } END { if (n) printf "mean shortest list %.0f docIDs, mean sum of the lists %.0f", sm / n, st / n }' \
	"$gdir/terms.copy" "$gdir/queries.copy")
note "$ds: $nq_kept of $QUERIES generated queries have a shortest list >= $MIN_SHORTEST docIDs and are run ($shortest_stats); loaded: their $nterms_kept lists, $npost_kept postings (of $npost_gen generated); $(grep -E '^(ndocs|avgdl|tf_mean|tf_one_pct)=' "$gdir/stats.txt" | cut -f1 | tr '\n' ' ')"
[ "$nq_kept" -gt 0 ] || { echo "no query qualifies: raise RANK_SCALE or RANK_QUERIES" >&2; exit 1; }

bl_step "loading $ds"
pgc_psql -d postgres -c "CREATE DATABASE $db" || exit 1
tf=$(rank_setup "$db") || exit 1
[ "$tf" = tf ] || note "the posting types take no frequencies in this build: gpuidx ranks with tf = 1 for every posting"
rank_exec_device "$db"
pgc_psql -d "$db" <<EOF || exit 1
SET work_mem = '1GB';
SET maintenance_work_mem = '2GB';
$(bl_rank_raw_sql "$gdir")
CREATE TABLE lists_raw AS SELECT term_id, p.docs, t.tfs FROM postings_raw p JOIN tfs_raw t USING (term_id);
-- GIN and RUM documents: each posting a lexeme with tf positions (<= 256)
CREATE TABLE pos_str AS SELECT n, string_agg(i::text, ',' ORDER BY i) AS s
	FROM generate_series(1, 256) n, generate_series(1, n) i GROUP BY n;
CREATE TABLE docs_gin AS
SELECT u.d AS doc_id, string_agg('t' || l.term_id || ':' || ps.s, ' ')::tsvector AS tsv
FROM lists_raw l, unnest(l.docs, l.tfs) u(d, tf) JOIN pos_str ps ON ps.n = least(u.tf, 256)
GROUP BY u.d;
CREATE TABLE docs_rum AS SELECT * FROM docs_gin;
ALTER TABLE queries ADD COLUMN tsq_and tsquery, ADD COLUMN tsq_or tsquery;
UPDATE queries SET
	tsq_and = array_to_string(ARRAY(SELECT 't' || t FROM unnest(term_ids) t), ' & ')::tsquery,
	tsq_or = array_to_string(ARRAY(SELECT 't' || t FROM unnest(term_ids) t), ' | ')::tsquery;
DROP TABLE postings_raw, tfs_raw, pos_str;
EOF
rank_build_lists "$db" lists_raw "$tf" || exit 1
bl_step "  building the GIN and RUM indexes"
pgc_psql -d "$db" -c "SET maintenance_work_mem = '2GB'" \
	-c "CREATE INDEX ON docs_gin USING gin (tsv)" \
	-c "$( [ "$(bl_val "$db" "SELECT count(*) FROM pg_extension WHERE extname = 'rum'")" = 1 ] \
		&& echo "CREATE INDEX ON docs_rum USING rum (tsv rum_tsvector_ops)" || echo "SELECT 1")" \
	-c "DROP TABLE lists_raw, doclens" -c "VACUUM ANALYZE" || exit 1
note "$ds: sizes: gpuidx lists $(bl_val "$db" "SELECT string_agg(format('%s %s MB', t, round(s / 1048576.0, 1)), ', ') FROM (SELECT '$T1' t, sum(size_bytes(docs_$T1)) s FROM rank_lists) x"), statistics $(bl_val "$db" "SELECT round(size_bytes(stats) / 1048576.0, 1) FROM collection") MB; GIN index $(bl_val "$db" "SELECT pg_size_pretty(pg_relation_size('docs_gin_tsv_idx'))"), RUM index $(bl_val "$db" "SELECT coalesce(pg_size_pretty(pg_relation_size(to_regclass('docs_rum_tsv_idx'))), 'none')"), documents $(bl_val "$db" "SELECT count(*) FROM docs_gin")"
[ -z "$EXEC_DEV" ] || bl_val "$db" "SELECT gpuidx_stats_reset()" >/dev/null
rank_run "$db" "$ds" "SELECT qid, term_ids::text, tsq_and::text FROM queries ORDER BY qid" \
	"SELECT qid, term_ids::text, tsq_or::text FROM queries ORDER BY qid" "$LISTSQL"
rank_exec_stats "$db" "$ds"
rm -rf "$gdir"

# ---------------------------------------------------------- real text ----
for corpus in $CORPORA; do
	db="rank_$corpus"
	max=0
	cfg=english
	case "$corpus" in
		pgdocs) ds=pgdocs ;;
		linux) ds=linux; cfg=simple; max=$LINUX_MAX ;;
		*) echo "unknown corpus $corpus" >&2; continue ;;
	esac
	bl_step "loading the $corpus corpus (to_tsvector '$cfg')"
	if ! bl_load_corpus "$db" "$corpus" "$cfg" "$max" "$CQ" >"$BL_WORK/corpus.$corpus.log" 2>&1; then
		note "corpus $corpus not measured: $(grep -v '^\[' "$BL_WORK/corpus.$corpus.log" | tail -n 1)"
		continue
	fi
	tf=$(rank_setup "$db") || exit 1
	pgc_psql -d "$db" <<EOF || exit 1
SET work_mem = '1GB';
-- statistics and lists with frequencies, each one statement over the tsvectors
CREATE TABLE collection AS
SELECT posting_doclen_agg(d.doc_id, (SELECT coalesce(sum(cardinality(u.positions)), 0)::int
                                     FROM unnest(d.tsv) u)) AS stats
FROM documents d;
CREATE TABLE lists_raw AS
SELECT p.term_id, array_agg(d.doc_id ORDER BY d.doc_id) AS docs,
       array_agg(cardinality(u.positions) ORDER BY d.doc_id) AS tfs
FROM documents d, unnest(d.tsv) u JOIN postings p ON p.term = u.lexeme
GROUP BY p.term_id;
ALTER TABLE documents RENAME TO docs_gin;
CREATE TABLE docs_rum AS SELECT doc_id, tsv FROM docs_gin;
ALTER TABLE queries ADD COLUMN tsq_or tsquery;
UPDATE queries SET tsq_or = replace(tsq::text, ' & ', ' | ')::tsquery;
EOF
	rank_build_lists "$db" lists_raw "$tf" || exit 1
	pgc_psql -d "$db" -c "$( [ "$(bl_val "$db" "SELECT count(*) FROM pg_extension WHERE extname = 'rum'")" = 1 ] \
		&& echo "CREATE INDEX ON docs_rum USING rum (tsv rum_tsvector_ops)" || echo "SELECT 1")" \
		-c "DROP TABLE lists_raw" -c "VACUUM ANALYZE" || exit 1
	note "$ds: $(bl_val "$db" "SELECT count(*) FROM docs_gin") documents, $(bl_val "$db" "SELECT count(*) FROM rank_lists") terms, $(bl_val "$db" "SELECT count(*) FROM queries") queries of 2-5 terms sampled from single documents (df >= 2), longest list $(bl_val "$db" "SELECT max(df) FROM postings") docIDs; to_tsvector('$cfg'); tf = positions of the lexeme, document length = all positions"
	[ -z "$EXEC_DEV" ] || bl_val "$db" "SELECT gpuidx_stats_reset()" >/dev/null
	rank_run "$db" "$ds" "SELECT qid, term_ids::text, tsq::text FROM queries ORDER BY qid" \
		"SELECT qid, term_ids::text, tsq_or::text FROM queries ORDER BY qid" "$LISTSQL"
	rank_exec_stats "$db" "$ds"
	pgc_psql -d postgres -c "DROP DATABASE $db" >/dev/null 2>&1
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RES/meta.txt"
echo "duration: $(awk -v a="$(date +%s.%N)" -v b="$BL_T0" 'BEGIN { printf "%.0f s", a - b }')" >>"$RES/meta.txt"

rank_report
