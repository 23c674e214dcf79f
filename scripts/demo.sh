#!/usr/bin/env bash
# scripts/demo.sh - what gpuidx is for, in about two minutes, on a fresh
# Debian 12 machine (no GPU needed; one shows up when there is one).
#
#   sudo scripts/demo.sh
#
# Installs what it needs from Debian (PostgreSQL 15, its server headers and
# HTML documentation, a C compiler, gnuplot), builds the extension and
# installs it into a private copy of the PostgreSQL installation in a
# temporary folder (never into the system's), and starts a throwaway
# cluster from that copy (as root: as a temporary unprivileged user; in the
# temporary folder, on a port free at run time, with gpuidx preloaded so
# that its executor runs).  Then:
#
#   1. real text: PostgreSQL's own HTML documentation, indexed through
#      to_tsvector into posting lists of every type, int4[] and a GIN index;
#      sizes, and example queries whose every answer is checked against GIN;
#   2. long lists: the GOV2-calibrated synthetic collection (test/gen,
#      DEMO_SCALE of GOV2's 25 million documents) and its query log, where
#      the same queries run through GIN, intarray and gpuidx (in the backend
#      and through the executor, on its CPU threads, and on the GPU when the
#      executor has one), first one query at a time, then all of them in one
#      statement (the executor takes them as one batch; gpuidx_stats shows
#      it); every answer is checked (against the generator's, and across
#      the paths);
#   3. a summary table (sizes against int4[] and the Elias-Fano bound;
#      latency and throughput per path) and a PNG plot of latency per path,
#      written to DEMO_OUT (its path is printed).
#
# The query paths and their timing are the benchmark's (test/bench:
# benchlib.sh, bench_query, which reads every result at the client).  It
# removes everything it created (cluster, folder, user) when it ends,
# however it ends, except the summary and the plot.
#
# Environment: DEMO_SKIP_APT=1 (packages already there), DEMO_SKIP_BUILD=1
# (use the extension installed for the pg_config on PATH instead of building
# it), DEMO_QUERIES='q1;q2;...' (your own queries on the documentation),
# DEMO_SCALE (0.1), DEMO_NQ (300 queries), DEMO_SECONDS (1: timed seconds
# per path and mode), DEMO_OUT (test/bench/out/demo), DEMO_KEEP=1 (keep the
# cluster running and print how to connect, and how to remove it after).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
BL_TAG=demo
BL_T0=$(date +%s.%N)
export BL_T0
. test/bench/pgcluster.sh
. test/bench/benchlib.sh
QUERIES=${DEMO_QUERIES:-index scan;vacuum freeze;foreign key constraint;write-ahead log archive;logical replication slot;full text search ranking}
SCALE=${DEMO_SCALE:-0.1}
NQ=${DEMO_NQ:-300}
SECS=${DEMO_SECONDS:-1}
OUT=${DEMO_OUT:-$ROOT/test/bench/out/demo}

# Print a progress line (the same format as the benchmark's).
step() { bl_step "$@"; }
# Stop with a message.
die() { echo "demo: $*" >&2; exit 1; }
# A section title.
section() { echo; echo "=== $* ==="; }

# ---------------------------------------------------------------- packages --
if [ -z "${DEMO_SKIP_APT:-}" ]; then
	[ "$(id -u)" = 0 ] || die "run as root (it installs Debian packages and the extension), or set DEMO_SKIP_APT=1 DEMO_SKIP_BUILD=1"
	need="postgresql-15 postgresql-client-15 postgresql-server-dev-15 postgresql-doc-15 make gcc libc6-dev gnuplot-nox"
	missing=""
	for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	if [ -n "$missing" ]; then
		step "installing Debian packages:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null \
			|| die "apt-get install failed:$missing"
	fi
fi
export PATH="/usr/lib/postgresql/15/bin:$PATH"
command -v pg_config >/dev/null || die "pg_config not found (postgresql-server-dev-15)"
PGC_BIN=$(pg_config --bindir)
[ -d /usr/share/doc/postgresql-doc-15/html ] || die "postgresql-doc-15 is not installed"

# ------------------------------------------------------------ work folder --
BL_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-demo.XXXXXX") || die "mktemp failed"
chmod 755 "$BL_WORK"
export BL_WORK
cleanup() {
	trap '' PIPE			# stdout may be a closed pipe: still clean up
	if [ -n "${DEMO_KEEP:-}" ] && [ -n "$PGC_DIR" ]; then
		echo "cluster kept: psql -h $PGHOST -p $PGPORT -U postgres gpuidx_demo   (real text; demo_long: long lists)"
		echo "  remove it after: ${PGC_RUNAS:+runuser -u $PGC_RUNAS -- }$PGC_BIN/pg_ctl -D $PGC_DIR/data stop; rm -rf $BL_WORK${PGC_TEMP_USER:+; userdel $PGC_TEMP_USER}"
		return
	fi
	step "stopping and removing the throwaway cluster"
	pgc_stop
	pgc_drop_temp_user
	rm -rf "$BL_WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

# ------------------------------------------------------------------ build --
if [ -z "${DEMO_SKIP_BUILD:-}" ]; then
	step "a private copy of PostgreSQL to install into ($BL_WORK/pg)"
	pgc_private_pg "$BL_WORK/pg" || die "copying the PostgreSQL installation failed"
	step "building the extension (make)"
	make -s -j"$(nproc)" >"$BL_WORK/build.log" 2>&1 || { cat "$BL_WORK/build.log"; die "make failed"; }
	step "installing it into the private copy (make install)"
	make -s install >>"$BL_WORK/build.log" 2>&1 || { cat "$BL_WORK/build.log"; die "make install failed"; }
fi
step "building the benchmark's corpus reader and query driver"
mk="make -s"
grep -q 'test/bench/bench.mk' Makefile || mk="make -s -f Makefile -f test/bench/bench.mk"
$mk test/bench/bin/gpx_corpus test/bench/bin/bench_query test/bench/bin/bench_codec >"$BL_WORK/build.log" 2>&1 \
	|| { cat "$BL_WORK/build.log"; die "building the benchmark tools failed"; }

# ---------------------------------------------------------------- cluster --
if [ "$(id -u)" = 0 ]; then
	pgc_temp_user || die "could not create a temporary user (useradd)"
fi
step "starting a throwaway PostgreSQL 15 cluster"
pgc_start "$BL_WORK/pg-cluster" 1 >"$BL_WORK/start.log" 2>&1 || { cat "$BL_WORK/start.log"; die "could not start PostgreSQL"; }
step "  running as user ${PGC_RUNAS:-$(id -un)}, socket $PGHOST, port $PGPORT, shared_preload_libraries = '$(bl_val postgres "SHOW shared_preload_libraries")'"
TSV=$BL_WORK/results.tsv
: >"$TSV"
mismatches=0

# ======================================================= part 1: real text ==
section "1. real text: PostgreSQL's HTML documentation"
step "loading PostgreSQL's HTML documentation as documents"
bl_load_corpus gpuidx_demo pgdocs english 0 0 || die "loading the documents failed"
DB=gpuidx_demo
have=""
for t in pfor lrc qs; do bl_have_cast $DB $t && have="$have $t"; done
[ -n "$have" ] || die "the posting types are missing: did CREATE EXTENSION gpuidx work? ($(cat "$BL_WORK/gpuidx-ext.err" 2>/dev/null))"
bl_sizes $DB pgdocs "$(($(bl_val $DB "SELECT count(*) FROM documents") + 1))" corpus "$TSV"

step "sizes"
pgc_psql -d $DB <<'EOF'
\pset footer off
SELECT count(*) AS documents, pg_size_pretty(sum(octet_length(body))) AS text,
       (SELECT count(*) FROM postings) AS terms, (SELECT sum(df) FROM postings) AS postings
FROM documents;
EOF
echo "(most terms occur in a few pages: format 2 stores such a list in a few bytes)"
step "the same lists in gpuidx 0.1's format (1) beside today's (2), from the codec library"
pgc_psql -d $DB -c "\\copy (SELECT term_id, docs_arr FROM postings ORDER BY term_id) TO '$BL_WORK/demo.postings'" >/dev/null \
	&& test/bench/bin/bench_codec --postings "$BL_WORK/demo.postings" --sizes-only 1 --dataset pgdocs \
		--ndocs "$(($(bl_val $DB "SELECT max(doc_id) FROM documents") + 1))" \
	| sed -n '/^| representation/,/^$/p;/^### Fixed overhead/,/^$/p;/^| n | lists/,/^$/p' \
	|| echo "(the library-level size table could not be made)"

step "example queries, each checked against the GIN index"
if [ "$(bl_val $DB "SELECT to_regprocedure('gpuidx_info()') IS NOT NULL")" = t ]; then
	echo "executor: $(bl_val $DB "SELECT executor_state || coalesce(', batches on ' || device_active, '') || coalesce(' (' || device_note || ')', '') || ', gpuidx.device = ' || device FROM gpuidx_info()")"
fi
pgc_psql -d $DB <<'EOF'
-- Median server-side milliseconds of a statement over n runs (after one
-- warm-up), each run's answer read into r.
CREATE FUNCTION demo_ms(stmt text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r int4[]; ms float8[] := '{}';
BEGIN
	EXECUTE stmt INTO r;
	FOR i IN 1..n LOOP
		t0 := clock_timestamp();
		EXECUTE stmt INTO r;
		ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x);
END $$;
-- One demo query: every path's answer, its time, and whether it equals GIN's.
CREATE FUNCTION demo_query(q text) RETURNS TABLE (path text, documents int, ms numeric, check_vs_gin text)
LANGUAGE plpgsql AS $$
DECLARE
	lex text[] := tsvector_to_array(to_tsvector('english', q));
	gin_sql text := format('SELECT coalesce(array_agg(doc_id ORDER BY doc_id), ''{}'') FROM documents WHERE tsv @@ plainto_tsquery(''english'', %L)', q);
	gin int4[];
	r int4[];
	s text;
	t text;
BEGIN
	EXECUTE gin_sql INTO gin;
	path := 'GIN: tsv @@ plainto_tsquery'; documents := cardinality(gin);
	ms := round(demo_ms(gin_sql, 20)::numeric, 3); check_vs_gin := '(reference)';
	RETURN NEXT;
	FOREACH t IN ARRAY ARRAY['pfor', 'lrc', 'qs'] LOOP
		-- the number of terms makes a term without a list give '{}'
		path := format('posting_intersect(posting_%s, nterms)', t);
		s := format('SELECT posting_intersect(docs_%s, %s) FROM postings WHERE term = ANY (%L::text[])',
					t, cardinality(lex), lex);
		EXECUTE s INTO r;
		documents := cardinality(r); ms := round(demo_ms(s, 20)::numeric, 3);
		check_vs_gin := CASE WHEN r = gin THEN 'same as GIN' ELSE 'MISMATCH' END;
		RETURN NEXT;
	END LOOP;
	s := format('SELECT CASE WHEN count(*) = %s THEN coalesce(bench_int_and(docs_arr), ''{}'') ELSE ''{}'' END FROM postings WHERE term = ANY (%L::text[])',
				cardinality(lex), lex);
	EXECUTE s INTO r;
	path := 'int4[] with intarray &'; documents := cardinality(r); ms := round(demo_ms(s, 20)::numeric, 3);
	check_vs_gin := CASE WHEN r = gin THEN 'same as GIN' ELSE 'MISMATCH' END;
	RETURN NEXT;
END $$;
EOF
nreal=0
IFS=';'
for q in $QUERIES; do
	unset IFS
	echo
	echo "query: '$q'  ->  $(bl_val $DB "SELECT plainto_tsquery('english', \$\$$q\$\$)")"
	out=$(pgc_psql -d $DB -c "\\pset footer off" -c "SELECT * FROM demo_query(\$\$$q\$\$)") || die "query failed"
	echo "$out"
	echo "$out" | grep -q MISMATCH && mismatches=$((mismatches + 1))
	nreal=$((nreal + 1))
	echo "  first matches: $(bl_val $DB "SELECT string_agg(path, ', ') FROM (SELECT path FROM documents
		WHERE tsv @@ plainto_tsquery('english', \$\$$q\$\$) ORDER BY ts_rank(tsv, plainto_tsquery('english', \$\$$q\$\$)) DESC, doc_id LIMIT 4) s")"
	IFS=';'
done
unset IFS
echo
echo "(times: server-side milliseconds, median of 20 runs after a warm-up, one backend)"

# ====================================================== part 2: long lists ==
section "2. long lists: the GOV2-calibrated synthetic collection"
DB=demo_long
step "generating it: scale $SCALE of GOV2 ($(awk -v s="$SCALE" 'BEGIN { printf "%d", 25205179 * s + 0.5 }') documents), $NQ queries of its log"
bl_gen_synth "$BL_WORK/gen" "$SCALE" "$NQ" --docs || die "the generator failed"
cp "$BL_WORK/gen/stats.txt" "$BL_WORK/gen.stats"
gen_stat() { sed -n "s/^$1=\([^\t]*\).*/\1/p" "$BL_WORK/gen.stats"; }
ndocs=$(gen_stat ndocs)
step "  $(gen_stat postings) postings in $(gen_stat terms) lists of up to $(gen_stat max_df) docIDs; a query's shortest list has $(gen_stat mean_shortest) on average"
step "loading it (postings as int4[] and the three types; documents with a GIN index)"
bl_load_synth $DB "$BL_WORK/gen" || die "loading the synthetic collection failed"
rm -rf "$BL_WORK/gen"
bl_sizes $DB synth "$ndocs" synth "$TSV"

# the executor's device: the GPU paths run when it has a GPU
gpu_note=""
groups="base exec-cpu"
if [ "$PGC_PRELOADED" != 1 ]; then
	groups=base
	gpu_note="the server runs without gpuidx preloaded: no executor"
elif [ "$(bl_val $DB "SELECT device_active LIKE 'gpu%' FROM gpuidx_info()")" = t ]; then
	groups="base exec-cpu exec-gpu"
else
	gpu_note="the executor has no GPU: $(bl_val $DB "SELECT regexp_replace(coalesce(device_note, device_active), '^no gpu: ', '') FROM gpuidx_info()")"
fi
[ -z "$gpu_note" ] || echo "GPU paths not run ($gpu_note)"

# run_paths MODE: bench_query over every group's paths; MODE one (one query
# per statement, answers from the generator) or all (every query in one
# statement, answers compared with the first path's)
run_paths() {
	local mode=$1 group reason p args
	for group in $groups; do
		args=()
		reason=""
		[ "$group" = exec-gpu ] && reason=$(bl_exec_device $DB gpu)
		if [ "$mode" = one ]; then
			while IFS= read -r p; do
				case "$p" in floor:*) continue ;; esac
				args+=(--path "$p")
			done < <(bl_paths $DB synth "$group" "$reason")
			PGDATABASE=$DB test/bench/bin/bench_query --dataset synth --header "$([ "$group" = base ] && echo 1 || echo 0)" \
				--queries-sql "SELECT qid, term_ids::text, NULL FROM queries ORDER BY qid" \
				--answers-sql "SELECT qid, n, hash FROM answers" \
				--min-time "$SECS" --max-time 20 --tsv "$TSV" "${args[@]}"
		else
			while IFS= read -r p; do args+=(--path "$p"); done < <(bl_batch_paths $DB "$group" "$reason")
			if [ "$group" = base ]; then
				echo
				echo "### One statement answering all $NQ queries (client-side latency of the statement)"
				echo
				echo "| path | statements | seconds | statements/s | median ms | p99 ms | answers per statement |"
				echo "|---|---|---|---|---|---|---|"
			fi
			PGDATABASE=$DB test/bench/bin/bench_query --dataset synth-all --header 0 \
				--queries-sql "SELECT 1, NULL, NULL" --min-count 3 \
				${first_answers:+--answers-file "$first_answers"} --save-answers "$BL_WORK/all.answers" \
				--min-time "$SECS" --max-time 20 --tsv "$TSV" "${args[@]}"
			first_answers=$BL_WORK/all.answers
		fi
		[ "$group" = exec-gpu ] && bl_exec_reset $DB
	done
}
step "the same $NQ queries through every path, one query at a time (client-side latency; every answer checked against the generator's)"
run_paths one
step "all $NQ queries in one statement, through every path (GIN: one index scan per query; intarray and gpuidx: one GROUP BY), answers compared across the paths"
pgc_psql -d $DB -c "SELECT gpuidx_stats_reset()" >/dev/null 2>&1
first_answers=""
run_paths all
if [ "$PGC_PRELOADED" = 1 ]; then
	step "gpuidx_stats after those statements: one request and one batch of $NQ queries per statement"
	pgc_psql -d $DB -c "\\pset footer off" -c "SELECT requests, batches, queries, mean_batch_queries AS queries_per_batch,
		gpu_batches, fallbacks, round(executor_time_ms::numeric, 1) AS executor_ms FROM gpuidx_stats"
fi

# ================================================================ summary ==
section "summary"
awk -F'\t' '$1 == "query" && $NF ~ /^error/ { bad++ } END { exit !bad }' "$TSV" && mismatches=$((mismatches + 1))
{
	echo "sizes: bits per docID, and how many times smaller than int4[]"
	awk -F'\t' '
	function kind(n) {
		if (n ~ /int4/) return "int4[] (array of docIDs)"
		if (n ~ /posting_pfor/) return "posting_pfor (PFor)"
		if (n ~ /posting_lrc/) return "posting_lrc (SegLRC)"
		if (n ~ /posting_qs/) return "posting_qs (Elias-Fano)"
		if (n ~ /GIN/) return "GIN index"
		return "Elias-Fano bound"
	}
	$1 == "size" {
		k = kind($3)
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		bits[k, $2] = $6; if (k ~ /^int4/) arr[$2] = $6
	}
	END {
		printf "  %-26s %22s %22s\n", "", "PostgreSQL docs", "long lists"
		for (i = 1; i <= nk; i++) {
			k = order[i]
			printf "  %-26s", k
			n = split("pgdocs synth", ds, " ")
			for (j = 1; j <= n; j++)
				if ((k, ds[j]) in bits)
					printf " %12.2f (%5.2fx)", bits[k, ds[j]], arr[ds[j]] / bits[k, ds[j]]
				else
					printf " %22s", "-"
			printf "\n"
		}
	}' "$TSV"
	echo
	echo "queries: $NQ of 2-6 terms over lists of up to $(gen_stat max_df) docIDs (a query's shortest: $(gen_stat mean_shortest) on average)"
	awk -F'\t' -v nq="$NQ" '
	$1 == "query" && $2 == "synth" { if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
		one[$3] = $NF; p50[$3] = $7; p99[$3] = $8; qps[$3] = $6 }
	$1 == "query" && $2 == "synth-all" { if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
		all[$3] = $NF; ams[$3] = $7 }
	function fig(st, v, f) { return st ~ /^ok/ && v >= 0 ? sprintf(f, v) : (st ~ /^not available/ ? "n/a" : (st == "" ? "-" : "?")) }
	END {
		printf "  %-27s  %-32s |  %-21s | %s\n", "", "one query at a time", "all " nq " in one statement", ""
		printf "  %-27s %10s %10s %10s  |%10s %10s  | %s\n", "path", "p50 ms", "p99 ms", "queries/s", "ms", "queries/s", "answers"
		for (i = 1; i <= n; i++) {
			p = order[i]
			ans = (one[p] ~ /^error/ || all[p] ~ /^error/) ? "WRONG" : \
				(one[p] ~ /^not available/ ? substr(one[p], 1, 60) : "checked, all equal")
			printf "  %-27s %10s %10s %10s  |%10s %10s  | %s\n", p,
				fig(one[p], p50[p], "%.3f"), fig(one[p], p99[p], "%.3f"), fig(one[p], qps[p], "%.0f"),
				fig(all[p], ams[p], "%.1f"), fig(all[p], (ams[p] > 0 ? nq * 1000 / ams[p] : -1), "%.0f"), ans
		}
	}' "$TSV"
	echo "  (one query at a time: client-side latency of each query, one connection;"
	echo "   all in one statement: median time of the statement answering all $NQ)"
	echo "real text: $nreal example queries on PostgreSQL's documentation, $([ "$mismatches" = 0 ] && echo "every answer equal to GIN's" || echo "SOME ANSWERS DIFFER")"
	[ -z "$gpu_note" ] || echo "GPU paths: not run ($gpu_note)"
} | tee "$BL_WORK/summary.txt"

# ------------------------------------------------------------------- plot --
mkdir -p "$OUT" 2>/dev/null && cp "$BL_WORK/summary.txt" "$OUT/summary.txt" 2>/dev/null && cp "$TSV" "$OUT/results.tsv" \
	|| echo "(could not write to $OUT: set DEMO_OUT)"
if command -v gnuplot >/dev/null 2>&1 && [ -w "$OUT" ]; then
	awk -F'\t' -v nq="$NQ" '
	$1 == "query" && ($2 == "synth" || $2 == "synth-all") {
		if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 }
		if ($NF ~ /^ok/) {
			if ($2 == "synth") { if ($7 > 0) p50[$3] = $7; if ($8 > 0) p99[$3] = $8 }
			else if ($7 > 0) per[$3] = $7 / nq
		}
	}
	function v(a, k) { return (k in a) ? a[k] : "?" }
	END {
		printf "path\tp50, one query at a time\tp99, one query at a time\tall %d in one statement, per query\n", nq
		for (i = 1; i <= n; i++) {
			p = order[i]
			if (!(p in p50) && !(p in per)) continue
			printf "%s\t%s\t%s\t%s\n", p, v(p50, p), v(p99, p), v(per, p)
		}
	}' "$TSV" >"$BL_WORK/latency.dat"
	rm -f "$OUT/demo-latency.png"
	bl_bar_plot "$BL_WORK/latency.dat" "$OUT/demo-latency.png" \
		"gpuidx demo: latency per path, $NQ queries over long lists (GOV2-calibrated, scale $SCALE), $(date -u '+%Y-%m-%d')" \
		"milliseconds per query (log scale)" log 2>"$BL_WORK/gnuplot.log"
	if [ -s "$OUT/demo-latency.png" ]; then
		echo "plot: $OUT/demo-latency.png"
	else
		echo "(no plot: $(head -n 3 "$BL_WORK/gnuplot.log"))"
	fi
else
	echo "(no plot: gnuplot is not installed, or $OUT is not writable)"
fi
[ -w "$OUT" ] && echo "summary: $OUT/summary.txt"

echo
if [ "$mismatches" -gt 0 ]; then
	step "FAILED: some answers differ between the paths (see MISMATCH, WRONG or error above)"
	exit 1
fi
step "every answer checked and equal across the paths"
exit 0
