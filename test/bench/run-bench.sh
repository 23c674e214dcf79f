#!/usr/bin/env bash
# test/bench/run-bench.sh - the benchmark: every speed and size figure of the
# project comes from here, all paths side by side in one run.
#
#   test/bench/run-bench.sh [--profile ci|cpu|gpu] [--label NAME]
#
# What it does, in one run:
#   1. builds the tools (and, as root, make && make install the extension);
#   2. starts a throwaway cluster (gpuidx preloaded when the library allows);
#   3. for each docID order (clustered = GOV-like crawl order, random =
#      GOVR-like): generates the GOV2-calibrated synthetic collection
#      (test/gen/gpx_gen), runs the library-level benchmark (sizes against
#      the Elias-Fano bound, decode speed, intersections; no PostgreSQL),
#      loads it, measures stored sizes and runs every SQL path over the same
#      queries with client-side latency (GIN, intarray, gpuidx in-backend,
#      executor CPU, executor GPU; a path that cannot run says why);
#   4. the same for real text corpora (PostgreSQL's HTML docs, the Linux
#      kernel source), indexed through to_tsvector;
#   5. writes docs/bench/LABEL.md and PNG plots (gnuplot), with the machine,
#      date and command.
#
# Profiles (each knob can be overridden from the environment):
#   ci   tiny: checks the harness end to end; most figures "too small"
#   cpu  `make bench` on a development machine
#   gpu  `make bench-gpu` on the GPU machine; fails unless a GPU path ran
# Knobs: BENCH_SCALE BENCH_QUERIES BENCH_EXTRA BENCH_SEED BENCH_ORDERS
#   BENCH_GIN (yes|no|auto) BENCH_CORPUS ("pgdocs linux" or none)
#   BENCH_LINUX_MAX_DOCS BENCH_CORPUS_QUERIES BENCH_MIN_TIME BENCH_MAX_TIME
#   BENCH_CLIENTS (every SQL path runs with one client, then with this many
#   concurrent clients when > 1: the executor batches across backends)
#   BENCH_OUT (default docs/bench; test/bench/out for ci)
#   BENCH_MIN_SHORTEST=N keeps only the synthetic queries whose shortest list
#   has >= N docIDs (the rest of the log is dropped, and so are the lists
#   only they use: the lists that remain, and the work per query, are
#   unchanged; the GIN documents table is the inversion of the lists kept);
#   the run's metadata and section titles say "queries with shortest list
#   >= N".  0 (default) keeps the whole log.
#   BENCH_EXEC (yes|no): no skips the executor paths (in-backend only)
#   BENCH_INSTALL (0 to skip make install)
#   BENCH_KEEP=1 keeps the work directory.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
profile=cpu
label=""
while [ $# -gt 0 ]; do
	case "$1" in
		--profile) profile=$2; shift 2 ;;
		--label) label=$2; shift 2 ;;
		*) echo "usage: $0 [--profile ci|cpu|gpu] [--label NAME]" >&2; exit 2 ;;
	esac
done
case "$profile" in
	ci)  d_scale=0.002 d_q=200  d_extra=50  d_gin=yes  d_corpus="pgdocs" d_linux=0    d_cq=200  d_min=0.5 d_max=20  d_cl=4 ;;
	cpu) d_scale=0.02  d_q=1000 d_extra=500 d_gin=yes  d_corpus="pgdocs linux" d_linux=4000 d_cq=1000 d_min=2 d_max=60 d_cl=8 ;;
	gpu) d_scale=0.1   d_q=2000 d_extra=1000 d_gin=auto d_corpus="pgdocs" d_linux=0 d_cq=2000 d_min=5 d_max=120 d_cl=32 ;;
	*) echo "unknown profile $profile" >&2; exit 2 ;;
esac
SCALE=${BENCH_SCALE:-$d_scale}
QUERIES=${BENCH_QUERIES:-$d_q}
EXTRA=${BENCH_EXTRA:-$d_extra}
SEED=${BENCH_SEED:-1}
ORDERS=${BENCH_ORDERS:-clustered random}
GIN=${BENCH_GIN:-$d_gin}
CORPORA=${BENCH_CORPUS:-$d_corpus}
[ "$CORPORA" = none ] && CORPORA=""
LINUX_MAX=${BENCH_LINUX_MAX_DOCS:-$d_linux}
CQ=${BENCH_CORPUS_QUERIES:-$d_cq}
MIN_TIME=${BENCH_MIN_TIME:-$d_min}
MAX_TIME=${BENCH_MAX_TIME:-$d_max}
CLIENTS=${BENCH_CLIENTS:-$d_cl}
MIN_SHORTEST=${BENCH_MIN_SHORTEST:-0}
EXEC=${BENCH_EXEC:-yes}
d_out=docs/bench
[ "$profile" = ci ] && d_out=test/bench/out	# a harness check, not figures to publish
OUT=${BENCH_OUT:-$d_out}
LABEL=${label:-$profile}

BL_TAG=bench
export BL_T0=$(date +%s.%N)
. "$ROOT/test/bench/pgcluster.sh"
. "$ROOT/test/bench/benchlib.sh"

BL_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-bench.XXXXXX")
chmod 755 "$BL_WORK"
RES="$BL_WORK/results"
mkdir -p "$RES"
TSV="$RES/results.tsv"
: >"$TSV"
cleanup() {
	trap '' PIPE			# stdout may be a closed pipe: still clean up
	pgc_stop
	if [ -n "${BENCH_KEEP:-}" ]; then echo "work directory kept: $BL_WORK"; else rm -rf "$BL_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# ------------------------------------------------------------------ tools --
bl_step "building the benchmark tools"
mk="make -s"
grep -q 'test/bench/bench.mk' Makefile || mk="make -s -f Makefile -f test/bench/bench.mk"
$mk bench-tools >"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }
EXT_NOTE="installed from this tree"
if [ "$(id -u)" = 0 ] && [ "${BENCH_INSTALL:-1}" != 0 ]; then
	bl_step "building and installing the extension (make && make install)"
	llvm=""
	if ! make -s -j"$(nproc)" >"$BL_WORK/install.log" 2>&1 && grep -q '\.bc\] Error 127' "$BL_WORK/install.log"; then
		# PGXS wants clang for JIT bitcode and this machine has none
		llvm=with_llvm=no
		bl_step "  no clang for PostgreSQL's JIT bitcode: building with with_llvm=no"
	fi
	if ! { make -s -j"$(nproc)" $llvm && make -s install $llvm; } >"$BL_WORK/install.log" 2>&1; then
		EXT_NOTE="make install FAILED (posting types measured only if an older build is installed): $(grep -m1 -iE 'error' "$BL_WORK/install.log")"
		bl_step "  $EXT_NOTE"
	fi
else
	EXT_NOTE="not rebuilt (BENCH_INSTALL=0 or not root): whatever is installed"
fi
command -v gnuplot >/dev/null || {
	if [ "$(id -u)" = 0 ]; then
		bl_step "installing gnuplot-nox for the plots"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null 2>&1 \
			|| bl_step "  (gnuplot-nox could not be installed: no plots)"
	fi
}

# ------------------------------------------------------------ machine ----
{
	echo "label: $LABEL"
	echo "profile: $profile"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $CMDLINE"
	echo "knobs: BENCH_SCALE=$SCALE BENCH_QUERIES=$QUERIES BENCH_EXTRA=$EXTRA BENCH_SEED=$SEED BENCH_ORDERS='$ORDERS' BENCH_GIN=$GIN BENCH_CORPUS='${CORPORA:-none}' BENCH_LINUX_MAX_DOCS=$LINUX_MAX BENCH_CORPUS_QUERIES=$CQ BENCH_MIN_TIME=$MIN_TIME BENCH_MAX_TIME=$MAX_TIME BENCH_CLIENTS=$CLIENTS BENCH_MIN_SHORTEST=$MIN_SHORTEST BENCH_EXEC=$EXEC"
	[ "$MIN_SHORTEST" -gt 0 ] && echo "query subset: queries with shortest list >= $MIN_SHORTEST docIDs (BENCH_MIN_SHORTEST=$MIN_SHORTEST); synthetic data only, the other queries of the generated log and the lists only they use are not loaded"
	[ "$EXEC" = no ] && echo "paths: in-backend only (BENCH_EXEC=no: executor paths not run)"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online"
	echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		echo "gpu: $(nvidia-smi -L | sed 's/ (UUID.*//' | paste -sd ';' -)"
	else
		echo "gpu: none"
	fi
	echo "os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown}")"
	echo "postgresql: $(pg_config --version)"
	echo "gpuidx: $(git rev-parse --short HEAD 2>/dev/null || echo 'no commit')$(git status --porcelain 2>/dev/null | grep -q . && echo ' + uncommitted changes'); $EXT_NOTE"
	env | grep -E '^(LD_PRELOAD|LD_LIBRARY_PATH|GPUIDX_[A-Z_]*|PGOPTIONS)=' | sed 's/^/environment: /'
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$RES/meta.txt"

# ------------------------------------------------------------- cluster ---
bl_step "starting a throwaway cluster"
pgc_start "$BL_WORK/pg" 1 || exit 1
if [ "$PGC_PRELOADED" = 1 ]; then
	for i in $(seq 1 20); do [ "$(bl_executors postgres)" -gt 0 ] && break; sleep 0.5; done
fi
echo "server: port $PGPORT, shared_preload_libraries = '$(bl_val postgres "SHOW shared_preload_libraries")', gpuidx executors running: $(bl_executors postgres); shared_buffers $(bl_val postgres 'SHOW shared_buffers'), fsync off${GPUIDX_PG_CONF:+; also: $(echo "$GPUIDX_PG_CONF" | tr '\n' ';')}" >>"$RES/meta.txt"
bl_step "  $(tail -n 1 "$RES/meta.txt")"

# run_queries DB DATASET KIND QSQL [ASQL]: every SQL path over the same
# queries: GIN, intarray and gpuidx in the backend, then gpuidx through the
# executor on its CPU threads, then on the GPU (the executor's device is
# switched between the groups).  Without ASQL the first path's results are
# the answers the other paths must give.
run_queries() {
	local db=$1 ds=$2 kind=$3 qsql=$4 asql=${5:-} group reason p hdr=1 nc
	local ans=(--save-answers "$BL_WORK/answers.$ds")
	[ -n "$asql" ] && ans=(--answers-sql "$asql")
	local groups="base exec-cpu exec-gpu"
	[ "$EXEC" = no ] && groups=base
	for group in $groups; do
		local args=()
		reason=""
		[ "$group" = base ] || reason=$(bl_exec_device "$db" "${group#exec-}")
		while IFS= read -r p; do args+=(--path "$p"); done < <(bl_paths "$db" "$kind" "$group" "$reason")
		for nc in 1 $([ "$CLIENTS" -gt 1 ] && [ -z "$reason" ] && echo "$CLIENTS"); do
			PGDATABASE=$db test/bench/bin/bench_query --dataset "$ds" --queries-sql "$qsql" \
				--min-time "$MIN_TIME" --max-time "$MAX_TIME" --clients "$nc" --tsv "$TSV" \
				--header $hdr "${ans[@]}" "${args[@]}"
			hdr=0
			[ -n "$asql" ] || ans=(--answers-file "$BL_WORK/answers.$ds")
		done
	done
	bl_exec_reset "$db"
}

# ----------------------------------------------------------- synthetic ---
for order in $ORDERS; do
	ds="synth-$order"
	db="bench_synth_$order"
	gdir="$BL_WORK/gen-$order"
	docs_flag=""
	case "$GIN" in
		yes) docs_flag=--docs ;;
		auto) awk -v s="$SCALE" -v q="$QUERIES" 'BEGIN { exit !(s * q <= 500) }' && docs_flag=--docs ;;
	esac
	bl_step "generating $ds: scale $SCALE ($(awk -v s="$SCALE" 'BEGIN {printf "%d", 25205179 * s + 0.5}') docs), $QUERIES queries, $EXTRA extra terms"
	gen_docs=$docs_flag
	[ "$MIN_SHORTEST" -gt 0 ] && gen_docs=""
	test/gen/bin/gpx_gen --scale "$SCALE" --queries "$QUERIES" --extra "$EXTRA" --seed "$SEED" \
		--order "$order" $gen_docs --quiet --out "$gdir" >"$RES/gen-$order.stats" || exit 1
	cp "$gdir/stats.txt" "$RES/gen-$order.stats"
	ndocs=$(sed -n 's/^ndocs=//p' "$gdir/stats.txt")
	bl_step "  $(grep -E '^(postings|terms|mean_shortest)=' "$gdir/stats.txt" | tr '\n\t' '  ')"
	if [ "$MIN_SHORTEST" -gt 0 ]; then
		bl_step "  keeping the queries whose shortest list has >= $MIN_SHORTEST docIDs"
		npost_gen=$(sed -n 's/^postings=//p' "$gdir/stats.txt")
		bl_prune_min_shortest "$gdir" "$MIN_SHORTEST" >"$BL_WORK/prune.$order" || exit 1
		read -r nq_kept nterms_kept npost_kept <"$BL_WORK/prune.$order"
		echo "note: $ds: $nq_kept of $QUERIES generated queries have shortest list >= $MIN_SHORTEST docIDs and are run; loaded: their $nterms_kept lists, $npost_kept postings (of $npost_gen generated)" >>"$RES/meta.txt"
		bl_step "  $(tail -n 1 "$RES/meta.txt")"
		[ "$nq_kept" -gt 0 ] || { echo "no query qualifies: raise BENCH_SCALE or BENCH_QUERIES" >&2; exit 1; }
	fi
	bl_step "library-level benchmark on $ds (sizes, decode, intersections)"
	env -u LD_LIBRARY_PATH test/bench/bin/bench_codec --postings "$gdir/postings.copy" --ndocs "$ndocs" \
		--queries "$gdir/queries.copy" --answers "$gdir/answers.copy" --dataset "$ds" \
		--min-time "$MIN_TIME" --tsv "$TSV"
	bl_step "loading $ds into PostgreSQL"
	bl_load_synth "$db" "$gdir" || exit 1
	if [ "$MIN_SHORTEST" -gt 0 ] && [ -n "$docs_flag" ]; then
		bl_step "  building docs(doc_id, terms int[]) from the lists kept, and its GIN index"
		pgc_psql -d "$db" <<EOF || exit 1
SET work_mem = '2GB';
CREATE TABLE docs AS SELECT d AS doc_id, array_agg(term_id ORDER BY term_id) AS terms
	FROM postings, unnest(docs_arr) AS d GROUP BY d;
ALTER TABLE docs ADD PRIMARY KEY (doc_id);
CREATE INDEX docs_terms_gin ON docs USING gin (terms array_ops);
VACUUM ANALYZE docs;
EOF
	fi
	[ -z "$docs_flag" ] && echo "note: $ds: no GIN documents table (BENCH_GIN=$GIN at scale $SCALE x $QUERIES queries)" >>"$RES/meta.txt"
	bl_sizes "$db" "$ds" "$ndocs" synth "$TSV"
	bl_step "SQL paths on $ds"
	run_queries "$db" "$ds" synth "SELECT qid, term_ids::text, NULL FROM queries ORDER BY qid" \
		"SELECT qid, n, hash FROM answers"
	rm -rf "$gdir"
done

# ---------------------------------------------------------- real text ----
for corpus in $CORPORA; do
	db="bench_$corpus"
	max=0
	cfg=english
	case "$corpus" in
		pgdocs) ds=pgdocs ;;
		linux) ds=linux; cfg=simple; max=$LINUX_MAX ;;
		*) echo "unknown corpus $corpus" >&2; continue ;;
	esac
	bl_step "loading the $corpus corpus (to_tsvector '$cfg'$([ "$max" -gt 0 ] && echo ", at most $max files"))"
	if ! bl_load_corpus "$db" "$corpus" "$cfg" "$max" "$CQ"; then
		echo "note: corpus $corpus could not be loaded (see the log above)" >>"$RES/meta.txt"
		continue
	fi
	ndocs=$(bl_val "$db" "SELECT count(*) FROM documents")
	echo "note: $ds: $ndocs documents, $(bl_val "$db" "SELECT count(*) FROM postings") terms, $(bl_val "$db" "SELECT sum(df) FROM postings") postings, $(bl_val "$db" "SELECT count(*) FROM queries") queries of 2-5 terms sampled from single documents (df >= 2); to_tsvector('$cfg')" >>"$RES/meta.txt"
	pgc_psql -d "$db" -c "\\copy (SELECT term_id, docs_arr FROM postings ORDER BY term_id) TO '$BL_WORK/$ds.postings'" \
		-c "\\copy (SELECT qid, term_ids FROM queries ORDER BY qid) TO '$BL_WORK/$ds.queries'" || exit 1
	bl_step "library-level benchmark on $ds"
	env -u LD_LIBRARY_PATH test/bench/bin/bench_codec --postings "$BL_WORK/$ds.postings" --ndocs "$((ndocs + 1))" \
		--queries "$BL_WORK/$ds.queries" --dataset "$ds" --min-time "$MIN_TIME" --tsv "$TSV"
	rm -f "$BL_WORK/$ds.postings" "$BL_WORK/$ds.queries"
	bl_sizes "$db" "$ds" "$((ndocs + 1))" corpus "$TSV"
	bl_step "SQL paths on $ds"
	run_queries "$db" "$ds" corpus "SELECT qid, term_ids::text, tsq::text FROM queries ORDER BY qid"
done

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RES/meta.txt"

# -------------------------------------------------------------- report ---
bl_step "writing $OUT/$LABEL.md and plots"
test/bench/mkreport.sh "$RES" "$OUT" "$LABEL" || exit 1
cp "$TSV" "$OUT/$LABEL.tsv"
cp "$RES/meta.txt" "$OUT/$LABEL.meta.txt"	# with the .tsv, mkreport.sh can redo the page
bl_step "done: $OUT/$LABEL.md"
if [ "$profile" = gpu ] && ! awk -F'\t' '$1 == "query" && $3 ~ /GPU/ && $11 ~ /^ok/ { f = 1 } END { exit !f }' "$TSV"; then
	echo "bench-gpu: no GPU path produced a figure (see 'not available' lines above)"
	exit 1
fi
exit 0
