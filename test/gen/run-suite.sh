#!/usr/bin/env bash
# test/gen/run-suite.sh - tests of the synthetic generator (test/gen) and of
# the loaders (test/bench/benchlib.sh): determinism, the stated proportions
# and averages, valid lists, and agreement between the postings built in SQL
# and what they were built from (generator files, the documents table).
#
#   test/gen/run-suite.sh          (root or a user with the packages installed)
#
# Under test/run-tests.sh it uses that script's cluster (GPUIDX_TEST_WORK is
# its socket directory, GPUIDX_TEST_PORT its port); run alone it starts its
# own throwaway cluster on a free port.  Calibration at CI scale:
# the mean shortest list is 8,415.7 * scale docIDs (Table 4's per-length
# means 8.6 / 8.7 / 8.4 / 8.0 / 8.0 K weighted by the query-length shares),
# so scale 0.01 targets 84.2; lengths scale linearly, which the test checks
# at two scales.  Last line: "N passed, N failed"; exit status 1 on failure.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
pass=0
fail=0
BL_TAG=gentest
export BL_T0=$(date +%s.%N)
. test/bench/pgcluster.sh
. test/bench/benchlib.sh

# ok NAME: record a pass.  no NAME [DETAIL]: record a failure.
ok() { pass=$((pass + 1)); echo "ok - $1"; }
no() { fail=$((fail + 1)); echo "not ok - $1${2:+: $2}"; }
# check NAME CMD...: pass if CMD succeeds
check() { local n=$1; shift; if "$@"; then ok "$n"; else no "$n"; fi; }
# stat FILE KEY: a key's value in a key=value file
stat() { sed -n "s/^$2=\([^\t]*\).*/\1/p" "$1" | head -n 1; }
# near A B TOL: |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= t) }'; }
# rel A B TOL: |A - B| <= TOL * |B|
rel() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; if (b < 0) b = -b; exit !(a != "" && d <= t * b) }'; }

BL_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-gentest.XXXXXX")
chmod 755 "$BL_WORK"
W=$BL_WORK
OWN_CLUSTER=0
cleanup() { trap '' PIPE; [ "$OWN_CLUSTER" = 1 ] && pgc_stop; rm -rf "$W"; }
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE

mk="make -s"
grep -q 'test/bench/bench.mk' Makefile || mk="make -s -f Makefile -f test/bench/bench.mk"
if ! $mk bench-tools >"$W/build.log" 2>&1; then
	cat "$W/build.log"
	echo "0 passed, 1 failed"
	exit 1
fi
GEN=test/gen/bin/gpx_gen
CHK=test/gen/bin/gpx_gencheck
S=0.01
Q=1000

# ---------------------------------------------------------- generator --
bl_step "generator"
$GEN --scale $S --queries $Q --seed 7 --extra 200 --docs --quiet --out "$W/a" >"$W/a.out" || no "gpx_gen runs"
$GEN --scale $S --queries $Q --seed 7 --extra 200 --docs --quiet --out "$W/b" >/dev/null
$GEN --scale $S --queries $Q --seed 8 --extra 200 --docs --quiet --out "$W/c" >/dev/null
$GEN --scale $S --queries $Q --seed 7 --extra 200 --docs --quiet --order random --out "$W/r" >/dev/null

same=1
for f in terms postings queries answers docs; do cmp -s "$W/a/$f.copy" "$W/b/$f.copy" || same=0; done
check "same seed, same bytes (all five files)" [ "$same" = 1 ]
check "same seed, same printed statistics" cmp -s "$W/a/stats.txt" "$W/b/stats.txt"
check "different seed, different postings and queries" \
	bash -c "! cmp -s '$W/a/postings.copy' '$W/c/postings.copy' && ! cmp -s '$W/a/queries.copy' '$W/c/queries.copy'"

$CHK "$W/a" >"$W/a.chk"; rc=$?
check "checker: clustered lists strictly increasing in [0, ndocs), df = Zipf(rank), answers = recomputed intersections, docs.copy = inversion" \
	[ "$rc" = 0 -a "$(stat "$W/a.chk" docs_checked)" = 1 ]
[ "$rc" = 0 ] || grep FAIL "$W/a.chk" | head -n 5
$CHK "$W/r" >"$W/r.chk"; rc=$?
check "checker: random-order output valid too" [ "$rc" = 0 ]

check "random order relabels docIDs only: same terms, queries, answer counts" bash -c "
	cmp -s '$W/a/terms.copy' '$W/r/terms.copy' && cmp -s '$W/a/queries.copy' '$W/r/queries.copy' &&
	cmp -s <(cut -f1,2 '$W/a/answers.copy') <(cut -f1,2 '$W/r/answers.copy') &&
	! cmp -s '$W/a/postings.copy' '$W/r/postings.copy'"
check "clustered (crawl) order has smaller d-gaps than random ($(stat "$W/a.chk" mean_log2_gap) vs $(stat "$W/r.chk" mean_log2_gap) log2)" \
	awk -v a="$(stat "$W/a.chk" mean_log2_gap)" -v r="$(stat "$W/r.chk" mean_log2_gap)" 'BEGIN { exit !(a + 0.5 < r) }'

# proportions, measured by the checker from the files
tot=86.44
k=2
for pct in 16.1 24.5 22.8 14.8 8.24; do
	want=$(awk -v p=$pct -v t=$tot 'BEGIN { printf "%.2f", 100 * p / t }')
	got=$(stat "$W/a.chk" qlen_${k}_pct)
	check "share of $k-term queries $got% (Table 4: $pct of 86.44% -> $want%) within 0.5 points" near "$got" "$want" 0.5
	k=$((k + 1))
done
target=$(awk -v s=$S 'BEGIN { printf "%.1f", 8415.7 * s }')
got=$(stat "$W/a.chk" mean_shortest)
check "mean shortest list $got (target 8415.7 x $S = $target) within 3%" rel "$got" "$target" 0.03
for kk in 2 3 4 5 6; do
	g=$(stat "$W/a/stats.txt" mean_shortest_k$kk)
	t=$(sed -n "s/^mean_shortest_k$kk=.*target=//p" "$W/a/stats.txt")
	check "mean shortest list of $kk-term queries $g (target $t) within 8%" rel "$g" "$t" 0.08
done
check "the generator's own statistics match the checker's (shortest, shares, postings)" bash -c "
	[ '$(stat "$W/a/stats.txt" mean_shortest)' = '$(stat "$W/a.chk" mean_shortest)' ] &&
	[ '$(stat "$W/a/stats.txt" postings)' = '$(stat "$W/a.chk" postings)' ] &&
	[ '$(stat "$W/a/stats.txt" qlen_3_pct)' = '$(stat "$W/a.chk" qlen_3_pct)' ]"
for kk in 2 3 4 5 6; do
	g=$(stat "$W/a/stats.txt" R_k${kk}_x1_pct)
	t=$(sed -n "s/^R_k${kk}_x1_pct=.*target=//p" "$W/a/stats.txt")
	check "R at stage 1 of $kk-term queries $g% (Table 4: $t%) within 15%" rel "$g" "$t" 0.15
done
keep=$(stat "$W/a.chk" mean_keep2)
check "terms are correlated: |l1 ^ l2| / |l1| = $keep for 3+ terms (Table 4 implies 0.19-0.23)" \
	awk -v k="$keep" 'BEGIN { exit !(k > 0.12 && k < 0.35) }'
$GEN --scale 0.004 --queries $Q --seed 7 --quiet --out "$W/s2" >/dev/null
$CHK "$W/s2" >"$W/s2.chk"
g2=$(stat "$W/s2.chk" mean_shortest)
check "calibration scales linearly: scale 0.004 gives $g2 (target $(awk 'BEGIN { print 8415.7 * 0.004 }')) within 5%" \
	rel "$g2" "$(awk 'BEGIN { print 8415.7 * 0.004 }')" 0.05
check "ndocs = round(25,205,179 x scale)" [ "$(stat "$W/a/stats.txt" ndocs)" = 252052 ]
$GEN --scale 0.00001 --out "$W/x" >/dev/null 2>&1
check "a scale below 1000 documents is refused" [ $? = 2 ]
cp -r "$W/a" "$W/bad"
awk -F'\t' 'NR == 3 { n = split(substr($2, 2, length($2) - 2), d, ","); if (n > 1) { t = d[1]; d[1] = d[2]; d[2] = t }
	s = d[1]; for (i = 2; i <= n; i++) s = s "," d[i]; print $1 "\t{" s "}"; next } { print }' \
	"$W/a/postings.copy" >"$W/bad/postings.copy"
$CHK "$W/bad" >/dev/null 2>&1
check "the checker notices an unsorted list" [ $? = 1 ]

# ------------------------------------------- frequencies (--tf) --------
bl_step "frequencies and document lengths (--tf)"
$GEN --scale $S --queries $Q --seed 7 --extra 200 --docs --quiet --tf --out "$W/t" >/dev/null || no "gpx_gen --tf runs"
$GEN --scale $S --queries $Q --seed 7 --extra 200 --docs --quiet --tf --order random --out "$W/tr" >/dev/null
same=1
for f in terms postings queries answers docs; do cmp -s "$W/a/$f.copy" "$W/t/$f.copy" || same=0; done
check "--tf leaves the other five files byte for byte" [ "$same" = 1 ]
check "without --tf no frequency files are written" [ ! -e "$W/a/tfs.copy" -a ! -e "$W/a/doclens.copy" ]
$CHK "$W/t" >"$W/t.chk"; rc=$?
check "checker: one tf in [1, 2^31-1] per posting, one length per document, never below its tfs" \
	[ "$rc" = 0 -a "$(stat "$W/t.chk" tf_checked)" = 1 ]
[ "$rc" = 0 ] || grep FAIL "$W/t.chk" | head -n 5
$CHK "$W/tr" >"$W/tr.chk"; rc=$?
check "checker: random-order frequencies valid too" [ "$rc" = 0 -a "$(stat "$W/tr.chk" tf_checked)" = 1 ]
check "the generator's tf statistics match the checker's" bash -c "
	[ '$(stat "$W/t/stats.txt" tf_one_pct)' = '$(stat "$W/t.chk" tf_one_pct)' ] &&
	[ '$(stat "$W/t/stats.txt" tf_mean)' = '$(stat "$W/t.chk" tf_mean)' ] &&
	[ '$(stat "$W/t/stats.txt" avgdl)' = '$(stat "$W/t.chk" avgdl)' ]"
# per term, the multiset of frequencies; the multiset of document lengths
tfsets() { awk -F'\t' '{ gsub(/[{}]/, "", $2); n = split($2, v, ","); for (i = 1; i <= n; i++) print $1, v[i] }' "$1" | LC_ALL=C sort; }
if cmp -s <(tfsets "$W/t/tfs.copy") <(tfsets "$W/tr/tfs.copy") &&
	cmp -s <(cut -f2 "$W/t/doclens.copy" | LC_ALL=C sort) <(cut -f2 "$W/tr/doclens.copy" | LC_ALL=C sort) &&
	! cmp -s "$W/t/tfs.copy" "$W/tr/tfs.copy"; then
	ok "random order relabels documents only: same frequencies per term, same lengths"
else
	no "random order relabels documents only: same frequencies per term, same lengths"
fi
g=$(stat "$W/t.chk" avgdl)
check "average document length $g within 3% of the model's 1457.4 (TREC .GOV, gen_tf.h)" rel "$g" 1457.4 0.03
g=$(stat "$W/t.chk" tf_mean)
check "mean tf $g within GOV2's tokens per distinct term per document, 4.8-6.2 (gen_tf.h), +-0.5" \
	awk -v m="$g" 'BEGIN { exit !(m >= 4.3 && m <= 6.7) }'
g=$(stat "$W/t.chk" tf_one_pct)
check "most frequencies are 1 ($g%)" awk -v m="$g" 'BEGIN { exit !(m > 50 && m < 90) }'
cp -r "$W/t" "$W/tbad"
awk -F'\t' 'NR == 2 { sub(/\{[0-9]+/, "{0", $2); print $1 "\t" $2; next } { print }' "$W/t/tfs.copy" >"$W/tbad/tfs.copy"
$CHK "$W/tbad" >/dev/null 2>&1
check "the checker notices a frequency of 0" [ $? = 1 ]

# ---------------------------------------------------- gpx_corpus --------
bl_step "corpus reader"
mkdir -p "$W/corpus"
printf '<html><head><style>p{x:1}</style><script>var hidden=1;</script></head><body><p>Index&nbsp;scan &amp; <b>vacuum</b>&#33; caf\xc3\xa9 bad\xff byte</p></body></html>' >"$W/corpus/a.html"
printf 'binary\0file' >"$W/corpus/b.bin"
printf 'tab\there\\back\nslash' >"$W/corpus/c.txt"
printf '%s\n' "$W/corpus/a.html" "$W/corpus/b.bin" | test/bench/bin/gpx_corpus --html --strip-prefix "$W/corpus/" >"$W/corpus.out" 2>"$W/corpus.err"
check "gpx_corpus strips tags, script and style, decodes entities, fixes bad UTF-8, skips binary files" \
	[ "$(cat "$W/corpus.out")" = "$(printf '1\ta.html\tIndex scan & vacuum ! café bad? byte')" ]
check "gpx_corpus reports the skipped binary file" grep -q '1 documents, 1 skipped' "$W/corpus.err"
echo "$W/corpus/c.txt" | test/bench/bin/gpx_corpus >"$W/corpus2.out" 2>/dev/null
check "gpx_corpus escapes backslashes for COPY and collapses white space" \
	[ "$(cat "$W/corpus2.out")" = "$(printf '1\t%s\ttab here\\\\back slash' "$W/corpus/c.txt")" ]

# ------------------------------------------------------------- loaders --
if [ -n "${GPUIDX_TEST_WORK:-}" ] && [ -n "${GPUIDX_TEST_PORT:-}" ]; then
	export PGHOST=$GPUIDX_TEST_WORK PGPORT=$GPUIDX_TEST_PORT PGUSER=postgres PGDATABASE=postgres
else
	bl_step "starting a throwaway cluster"
	if pgc_start "$W/pg" 0 >"$W/pg.log" 2>&1; then OWN_CLUSTER=1; else cat "$W/pg.log"; fi
fi
if ! pgc_psql -d postgres -c "SELECT 1" >/dev/null 2>&1; then
	no "a PostgreSQL server to test the loaders against"
	echo "$pass passed, $fail failed"
	exit 1
fi

bl_step "synthetic loader"
$GEN --scale 0.002 --queries 300 --seed 3 --extra 50 --docs --quiet --out "$W/l" >/dev/null
if bl_load_synth gentest_synth "$W/l" >"$W/load.log" 2>&1; then
	ok "synthetic collection loads (terms, queries, answers, postings, docs + GIN)"
else
	no "synthetic collection loads" "$(tail -n 3 "$W/load.log")"
fi
if [ -f "$(pg_config --sharedir)/extension/gpuidx.control" ]; then
	check "CREATE EXTENSION gpuidx works (without shared_preload_libraries)" \
		[ "$(bl_val gentest_synth "SELECT count(*) FROM pg_extension WHERE extname = 'gpuidx'")" = 1 ]
else
	echo "skip - gpuidx is not installed: typed postings not tested"
fi
pgc_psql -d gentest_synth -c "\\copy (SELECT term_id, docs_arr FROM postings ORDER BY term_id) TO '$W/l.back'"
check "postings.docs_arr equals the generator's lists byte for byte" cmp -s "$W/l.back" "$W/l/postings.copy"
check "postings.df equals terms.df" [ "$(bl_val gentest_synth "SELECT count(*) FROM postings p JOIN terms t USING (term_id) WHERE p.df = t.df")" = "$(wc -l <"$W/l/terms.copy")" ]
check "docs(doc_id, terms) holds exactly the postings" \
	[ "$(bl_val gentest_synth "SELECT count(*) FROM docs, unnest(terms)")" = "$(stat "$W/l/stats.txt" postings)" ]
for t in pfor lrc qs; do
	if bl_have_cast gentest_synth $t; then
		check "posting_$t column decodes to docs_arr for every term" \
			[ "$(bl_val gentest_synth "SELECT count(*) FROM postings WHERE docs_$t::int4[] IS DISTINCT FROM docs_arr")" = 0 ]
	else
		echo "skip - posting_$t: type or cast not installed"
	fi
done
paths=()
while IFS= read -r p; do paths+=(--path "$p"); done < <(bl_paths gentest_synth synth base)
PGDATABASE=gentest_synth test/bench/bin/bench_query --dataset t --min-time 0 --tsv "$W/q.tsv" \
	--queries-sql "SELECT qid, term_ids::text, NULL FROM queries ORDER BY qid" \
	--answers-sql "SELECT qid, n, hash FROM answers" "${paths[@]}" >"$W/q.out" 2>&1
while IFS=$'\t' read -r _ _ path n _ _ _ _ _ bad st; do
	case "$st" in
		"not available"*) echo "skip - $path: $st" ;;
		*) check "SQL path '$path' answers all $n queries as the generator says" \
			[ "$bad" = 0 -a "$n" -gt 0 -a "${st#error}" = "$st" ] ;;
	esac
done <"$W/q.tsv"

bl_step "real-text loader (PostgreSQL HTML docs)"
if [ ! -d /usr/share/doc/postgresql-doc-15/html ] && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-doc-15 >/dev/null 2>&1
fi
if bl_load_corpus gentest_docs pgdocs english 300 200 >"$W/corpus-load.log" 2>&1; then
	ok "PostgreSQL docs load as documents, postings and queries"
	D=gentest_docs
	check "every document's lexemes are in the postings (sum(df) = sum(length(tsv)))" \
		[ "$(bl_val $D "SELECT sum(df) FROM postings")" = "$(bl_val $D "SELECT sum(length(tsv)) FROM documents")" ]
	check "a term's quoted form parses back to exactly that lexeme (for all terms)" \
		[ "$(bl_val $D "SELECT count(*) FROM postings WHERE ('''' || replace(replace(term, '\\', '\\\\'), '''', '''''') || '''')::tsquery::text
			<> '''' || replace(replace(term, '\\', '\\\\'), '''', '''''') || ''''")" = 0 ]
	check "sampled terms: the posting list equals the documents matching the term (GIN, 200 terms)" \
		[ "$(bl_val $D "SET enable_seqscan = off; SELECT count(*) FROM (SELECT term, docs_arr FROM postings ORDER BY md5(term) LIMIT 200) p
			WHERE docs_arr IS DISTINCT FROM (SELECT array_agg(doc_id ORDER BY doc_id) FROM documents
			WHERE tsv @@ ('''' || replace(replace(p.term, '\\', '\\\\'), '''', '''''') || '''')::tsquery)" | tail -n 1)" = 0 ]
	for t in pfor lrc qs; do
		if bl_have_cast $D $t; then
			check "real text: posting_$t decodes to docs_arr for every term" \
				[ "$(bl_val $D "SELECT count(*) FROM postings WHERE docs_$t::int4[] IS DISTINCT FROM docs_arr")" = 0 ]
		fi
	done
	check "200 queries of 2-5 distinct terms" \
		[ "$(bl_val $D "SELECT count(*) FROM queries WHERE cardinality(term_ids) BETWEEN 2 AND 5
			AND cardinality(term_ids) = (SELECT count(DISTINCT x) FROM unnest(term_ids) x)")" = 200 ]
	nonempty=$(bl_val $D "SELECT count(*) FROM queries q WHERE cardinality((SELECT bench_int_and(docs_arr) FROM postings WHERE term_id = ANY (q.term_ids))) > 0")
	check "queries have non-empty results most of the time ($nonempty of 200)" [ "$nonempty" -ge 180 ]
	check "the tsquery of each query names its terms" \
		[ "$(bl_val $D "SELECT count(*) FROM queries WHERE numnode(tsq) <> 2 * cardinality(terms) - 1")" = 0 ]
	paths=()
	while IFS= read -r p; do paths+=(--path "$p"); done < <(bl_paths $D corpus base)
	PGDATABASE=$D test/bench/bin/bench_query --dataset t --min-time 0 --tsv "$W/c.tsv" \
		--queries-sql "SELECT qid, term_ids::text, tsq::text FROM queries ORDER BY qid" "${paths[@]}" >"$W/c.out" 2>&1
	while IFS=$'\t' read -r _ _ path n _ _ _ _ _ bad st; do
		case "$st" in
			"not available"*) echo "skip - $path: $st" ;;
			*) check "real text: '$path' agrees with GIN on all $n queries" \
				[ "$bad" = 0 -a "$n" -gt 0 -a "${st#error}" = "$st" ] ;;
		esac
	done <"$W/c.tsv"
else
	no "PostgreSQL docs load" "$(tail -n 3 "$W/corpus-load.log")"
fi
pgc_psql -d postgres -c "DROP DATABASE IF EXISTS gentest_synth" -c "DROP DATABASE IF EXISTS gentest_docs" >/dev/null 2>&1

bl_step "benchmark harness smoke run (tiny on purpose)"
BENCH_INSTALL=0 BENCH_ORDERS=clustered BENCH_CORPUS=none BENCH_SCALE=0.001 BENCH_QUERIES=60 \
	BENCH_EXTRA=0 BENCH_MIN_TIME=0.2 BENCH_MAX_TIME=5 BENCH_CLIENTS=2 BENCH_OUT="$W/benchout" \
	test/bench/run-bench.sh --profile ci --label smoke >"$W/bench.log" 2>&1
rc=$?
check "run-bench.sh completes and writes its report" [ "$rc" = 0 -a -s "$W/benchout/smoke.md" -a -s "$W/benchout/smoke.tsv" ]
[ "$rc" = 0 ] || tail -n 20 "$W/bench.log"
check "the report has the size, decode and query sections with the machine and command" \
	bash -c "grep -q '^## Sizes' '$W/benchout/smoke.md' && grep -q '^## Decode speed' '$W/benchout/smoke.md' &&
		grep -q '^### synth-clustered' '$W/benchout/smoke.md' && grep -q '^- \*\*cpu\*\*: ' '$W/benchout/smoke.md' &&
		grep -q '^- \*\*command\*\*: ' '$W/benchout/smoke.md'"
check "no path of the smoke run gave wrong results or failed" \
	bash -c "! awk -F'\t' '\$1 == \"query\" && \$NF ~ /^error/' '$W/benchout/smoke.tsv' | grep -q ."
check "a run too small to mean anything prints 'too small to report', never a timing" \
	bash -c "awk -F'\t' '(\$1 == \"query\" || \$1 == \"decode\") && \$NF == \"ok\" { bad = 1 } \$NF == \"too small to report\" { small++ }
		END { exit bad || small < 5 }' '$W/benchout/smoke.tsv' && grep -q 'too small to report' '$W/benchout/smoke.md'"
check "unavailable paths are listed with a reason" grep -q 'not available: ' "$W/benchout/smoke.md"

bl_step "done"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
