#!/usr/bin/env bash
# test/bench/rank_bench.sh - the ranked-retrieval benchmark: gpuidx's BM25
# top-k (posting_rank_and, posting_rank_or) against PostgreSQL's own ranked
# search, side by side in one run, one client, in the backend:
#   GIN   SELECT ... WHERE tsv @@ q ORDER BY ts_rank_cd(tsv, q) DESC LIMIT k
#   RUM   SELECT ... WHERE tsv @@ q ORDER BY tsv <=> q LIMIT k
#         (the rum extension, Debian package postgresql-15-rum)
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
# runs and every path's count is checked against the first path's (the
# rankings themselves differ: BM25, cover density, RUM's ts_rank).
#
#   test/bench/rank_bench.sh [--label NAME]
#
# Knobs (environment): RANK_SCALE (0.3) RANK_QUERIES (3000) RANK_SEED (1)
#   RANK_ORDER (clustered) RANK_MIN_SHORTEST (10000) RANK_KS ("10 1000")
#   RANK_TYPES ("pfor qs") RANK_CORPUS ("pgdocs linux", or none)
#   RANK_LINUX_MAX_DOCS (4000) RANK_CORPUS_QUERIES (500) RANK_MIN_TIME (3)
#   RANK_MAX_TIME (150: the slowest paths run every query once)
#   RANK_OUT (docs/bench) RANK_INSTALL (1: make install as root)
#   RANK_KEEP (1: keep the work directory).
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
SCALE=${RANK_SCALE:-0.3}
QUERIES=${RANK_QUERIES:-3000}
SEED=${RANK_SEED:-1}
ORDER=${RANK_ORDER:-clustered}
MIN_SHORTEST=${RANK_MIN_SHORTEST:-10000}
KS=${RANK_KS:-10 1000}
TYPES=${RANK_TYPES:-pfor qs}
CORPORA=${RANK_CORPUS:-pgdocs linux}
[ "$CORPORA" = none ] && CORPORA=""
LINUX_MAX=${RANK_LINUX_MAX_DOCS:-4000}
CQ=${RANK_CORPUS_QUERIES:-500}
MIN_TIME=${RANK_MIN_TIME:-3}
MAX_TIME=${RANK_MAX_TIME:-150}
OUT=${RANK_OUT:-docs/bench}

BL_TAG=rank
export BL_T0=$(date +%s.%N)
. "$ROOT/test/bench/pgcluster.sh"
. "$ROOT/test/bench/benchlib.sh"

bl_init rank "${RANK_INSTALL:-1}" || exit 1
RES="$BL_WORK/results"
mkdir -p "$RES"
TSV="$RES/results.tsv"
: >"$TSV"
cleanup() {
	trap '' PIPE
	pgc_stop
	if [ -n "${RANK_KEEP:-}" ]; then echo "work directory kept: $BL_WORK"; else rm -rf "$BL_WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

bl_step "building the benchmark tools"
make -s test/gen/bin/gpx_gen test/bench/bin/bench_query test/bench/bin/gpx_corpus \
	>"$BL_WORK/tools.log" 2>&1 || { cat "$BL_WORK/tools.log"; exit 1; }

{
	echo "label: $label"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command: $CMDLINE"
	echo "knobs: RANK_SCALE=$SCALE RANK_QUERIES=$QUERIES RANK_SEED=$SEED RANK_ORDER=$ORDER RANK_MIN_SHORTEST=$MIN_SHORTEST RANK_KS='$KS' RANK_TYPES='$TYPES' RANK_CORPUS='${CORPORA:-none}' RANK_LINUX_MAX_DOCS=$LINUX_MAX RANK_CORPUS_QUERIES=$CQ RANK_MIN_TIME=$MIN_TIME RANK_MAX_TIME=$MAX_TIME"
	echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores online"
	echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
	echo "os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-unknown}")"
	echo "postgresql: $(pg_config --version)"
	echo "gpuidx: $(git rev-parse --short HEAD 2>/dev/null || echo 'no commit')$(git status --porcelain 2>/dev/null | grep -q . && echo ' + uncommitted changes')"
	echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$RES/meta.txt"

bl_step "starting a throwaway cluster (in-backend: gpuidx not preloaded)"
pgc_start "$BL_WORK/pg" 0 || exit 1
echo "server: shared_buffers $(bl_val postgres 'SHOW shared_buffers'), max_parallel_workers_per_gather $(bl_val postgres 'SHOW max_parallel_workers_per_gather') (GIN and RUM may use parallel workers; gpuidx runs on one core), jit off, fsync off" >>"$RES/meta.txt"

# rank_setup DB: CREATE EXTENSION rum (or a note), and whether the posting
# types take frequencies; prints "tf" or "notf".
rank_setup() {
	local db=$1
	pgc_psql -d "$db" -c "CREATE EXTENSION IF NOT EXISTS gpuidx" || return 1
	if ! pgc_psql -d "$db" -c "CREATE EXTENSION IF NOT EXISTS rum" 2>"$BL_WORK/rum.err"; then
		echo "note: RUM not measured: $(head -n 1 "$BL_WORK/rum.err") (apt-get install postgresql-15-rum)" >>"$RES/meta.txt"
	fi
	if [ "$(bl_val "$db" "SELECT to_regprocedure('posting_pfor(int4[], int4[])') IS NOT NULL")" = t ]; then
		echo tf
	else
		echo notf
	fi
}

# rank_paths DB DATASET MODE K LISTSQL: bench_query's --path arguments
# (one per line) for one group.  LISTSQL: the query's lists in term
# order from QTERMS (a term_id array, $1 here), with the column TYPECOL.
rank_paths() {
	local db=$1 mode=$2 k=$3 listsql=${4//QTERMS/\$1::int[]} t fn tsq
	fn=posting_rank_or; tsq='$2::tsquery'
	[ "$mode" = AND ] && fn=posting_rank_and
	for t in $TYPES; do
		echo "gpuidx $t||SELECT ARRAY[count(*)::int] FROM $fn(ARRAY(${listsql//TYPECOL/docs_$t}), (SELECT stats FROM collection), $k)"
	done
	# what a query costs besides ranking: read its lists (first type) and
	# return the stored number of rows
	t=${TYPES%% *}
	echo "floor: read $t lists||SELECT ARRAY[e.n] FROM rank_expect e WHERE e.term_ids = \$1::int[] AND e.mode = '$mode' AND e.k = $k AND cardinality(ARRAY(${listsql//TYPECOL/docs_$t})) >= 0"
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
	local db=$1 listsql=${2//QTERMS/q.term_ids} t=${TYPES%% *} k sql=""
	for k in $KS; do
		sql="$sql INSERT INTO rank_expect SELECT q.term_ids, 'AND', $k, (SELECT count(*) FROM posting_rank_and(ARRAY(${listsql//TYPECOL/docs_$t}), (SELECT stats FROM collection), $k)) FROM (SELECT DISTINCT term_ids FROM queries) q;"
		sql="$sql INSERT INTO rank_expect SELECT q.term_ids, 'OR', $k, (SELECT count(*) FROM posting_rank_or(ARRAY(${listsql//TYPECOL/docs_$t}), (SELECT stats FROM collection), $k)) FROM (SELECT DISTINCT term_ids FROM queries) q;"
	done
	pgc_psql -d "$db" -c "CREATE TABLE rank_expect (term_ids int[], mode text, k int, n int)" -c "$sql" \
		-c "CREATE INDEX ON rank_expect (term_ids, mode, k)" -c "ANALYZE rank_expect"
}

# rank_run DB DATASET QSQL_AND QSQL_OR LISTSQL: every group (mode x k).
rank_run() {
	local db=$1 ds=$2 qand=$3 qor=$4 listsql=$5 mode k q p
	rank_expect "$db" "$listsql" || return 1
	for mode in AND OR; do
		q=$qor
		[ "$mode" = AND ] && q=$qand
		for k in $KS; do
			local args=()
			while IFS= read -r p; do args+=(--path "$p"); done < <(rank_paths "$db" "$mode" "$k" "$listsql")
			bl_step "  $ds: ranked $mode, top-$k"
			PGDATABASE=$db test/bench/bin/bench_query --dataset "$ds $mode top-$k" --queries-sql "$q" \
				--min-time "$MIN_TIME" --max-time "$MAX_TIME" --tsv "$TSV" --header 0 "${args[@]}"
		done
	done
}

# rank_lists_types DB FROM: CREATE TABLE rank_lists(term_id, docs_T...)
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
awk 'NR == FNR { k[$1] = 1; next } $1 in k' "$gdir/terms.copy" "$gdir/tfs.copy" >"$gdir/tfs.keep" \
	&& mv "$gdir/tfs.keep" "$gdir/tfs.copy" || exit 1
echo "note: $ds: $nq_kept of $QUERIES generated queries have shortest list >= $MIN_SHORTEST docIDs and are run; loaded: their $nterms_kept lists, $npost_kept postings (of $npost_gen generated); $(grep -E '^(ndocs|avgdl|tf_mean|tf_one_pct)=' "$gdir/stats.txt" | cut -f1 | tr '\n' ' ')" >>"$RES/meta.txt"
bl_step "  $(tail -n 1 "$RES/meta.txt")"
[ "$nq_kept" -gt 0 ] || { echo "no query qualifies: raise RANK_SCALE or RANK_QUERIES" >&2; exit 1; }

bl_step "loading $ds"
pgc_psql -d postgres -c "CREATE DATABASE $db" || exit 1
tf=$(rank_setup "$db") || exit 1
[ "$tf" = tf ] || echo "note: the posting types take no frequencies in this build: gpuidx ranks with tf = 1 for every posting" >>"$RES/meta.txt"
pgc_psql -d "$db" <<EOF || exit 1
SET work_mem = '1GB';
SET maintenance_work_mem = '2GB';
CREATE TABLE terms (term_id int PRIMARY KEY, df int NOT NULL);
CREATE TABLE queries (qid int PRIMARY KEY, term_ids int[] NOT NULL);
CREATE TABLE postings_raw (term_id int, docs int4[]);
CREATE TABLE tfs_raw (term_id int, tfs int4[]);
CREATE TABLE doclens (doc_id int, len int);
\copy terms FROM '$gdir/terms.copy'
\copy queries FROM '$gdir/queries.copy'
\copy postings_raw FROM '$gdir/postings.copy'
\copy tfs_raw FROM '$gdir/tfs.copy'
\copy doclens FROM '$gdir/doclens.copy'
-- the collection statistics: every document of the collection
CREATE TABLE collection AS SELECT posting_doclen_agg(doc_id, len) AS stats FROM doclens;
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
echo "note: $ds: sizes: gpuidx lists $(bl_val "$db" "SELECT string_agg(format('%s %s MB', t, round(s / 1048576.0, 1)), ', ') FROM (SELECT 'pfor' t, sum(size_bytes(docs_pfor)) s FROM rank_lists) x"), statistics $(bl_val "$db" "SELECT round(size_bytes(stats) / 1048576.0, 1) FROM collection") MB; GIN index $(bl_val "$db" "SELECT pg_size_pretty(pg_relation_size('docs_gin_tsv_idx'))"), RUM index $(bl_val "$db" "SELECT coalesce(pg_size_pretty(pg_relation_size(to_regclass('docs_rum_tsv_idx'))), 'none')"), documents $(bl_val "$db" "SELECT count(*) FROM docs_gin")" >>"$RES/meta.txt"
bl_step "  $(tail -n 1 "$RES/meta.txt")"
rank_run "$db" "$ds" "SELECT qid, term_ids::text, tsq_and::text FROM queries ORDER BY qid" \
	"SELECT qid, term_ids::text, tsq_or::text FROM queries ORDER BY qid" "$LISTSQL"
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
	if ! bl_load_corpus "$db" "$corpus" "$cfg" "$max" "$CQ" >/dev/null; then
		echo "note: corpus $corpus could not be loaded" >>"$RES/meta.txt"
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
	echo "note: $ds: $(bl_val "$db" "SELECT count(*) FROM docs_gin") documents, $(bl_val "$db" "SELECT count(*) FROM rank_lists") terms, $(bl_val "$db" "SELECT count(*) FROM queries") queries of 2-5 terms sampled from single documents (df >= 2); to_tsvector('$cfg'); tf = positions of the lexeme, document length = all positions" >>"$RES/meta.txt"
	rank_run "$db" "$ds" "SELECT qid, term_ids::text, tsq::text FROM queries ORDER BY qid" \
		"SELECT qid, term_ids::text, tsq_or::text FROM queries ORDER BY qid" "$LISTSQL"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RES/meta.txt"

# -------------------------------------------------------------- report ---
bl_step "writing $OUT/$label.md"
mkdir -p "$OUT"
{
	echo "# Ranked retrieval: gpuidx BM25 top-k vs GIN ts_rank_cd and RUM"
	echo
	sed 's/^/- /' "$RES/meta.txt"
	echo
	echo "One client, in the backend.  qps: queries per second over the group's"
	echo "queries; p50, p99: client-side latency (ms); x GIN, x RUM: the qps of"
	echo "the path over theirs.  Every path returned the same number of rows"
	echo "(min(k, matches)) for every query, or its status says how many differed."
	echo "The floor path reads a query's lists as the gpuidx path does and returns"
	echo "the stored row count: what a query costs besides ranking."
	awk -F'\t' '
	$1 == "query" {
		g = $2; p = $3
		if (!(g in seen)) { seen[g] = 1; order[++ng] = g }
		key = g SUBSEP p
		if (!(key in row)) { paths[g] = paths[g] SUBSEP p }
		row[key] = 1; qps[key] = $6; p50[key] = $7; p99[key] = $8; res[key] = $9; bad[key] = $10; st[key] = $11
		if (p ~ /^GIN/) gin[g] = $6
		if (p ~ /^RUM/) rum[g] = $6
	}
	END {
		for (i = 1; i <= ng; i++) {
			g = order[i]
			printf "\n## %s\n\n| path | qps | p50 ms | p99 ms | x GIN | x RUM | status |\n|---|---:|---:|---:|---:|---:|---|\n", g
			n = split(paths[g], ps, SUBSEP)
			for (j = 2; j <= n; j++) {
				key = g SUBSEP ps[j]
				xg = (gin[g] > 0 && qps[key] > 0) ? sprintf("%.1f", qps[key] / gin[g]) : "-"
				xr = (rum[g] > 0 && qps[key] > 0) ? sprintf("%.1f", qps[key] / rum[g]) : "-"
				printf "| %s | %s | %s | %s | %s | %s | %s |\n", ps[j], qps[key], p50[key], p99[key], xg, xr, st[key]
			}
		}
	}' "$TSV"
} >"$OUT/$label.md"
cp "$TSV" "$OUT/$label.tsv"
bl_step "done: $OUT/$label.md"
