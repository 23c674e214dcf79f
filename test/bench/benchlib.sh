# test/bench/benchlib.sh - shared shell functions of the benchmark, the
# generator/loader tests and the demo: progress lines, feature detection,
# the synthetic and real-text loaders, the size table, the query paths.
# Source it after pgcluster.sh; it expects PGHOST/PGPORT/PGUSER set.

BL_ROOT=${BL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BL_T0=${BL_T0:-$(date +%s.%N)}
BL_TAG=${BL_TAG:-gpuidx}

# Progress line with the elapsed time: bl_step MESSAGE...
bl_step() {
	printf '[%s %7.1fs] %s\n' "$BL_TAG" "$(awk -v a="$(date +%s.%N)" -v b="$BL_T0" 'BEGIN { print a - b }')" "$*"
}

# The single value a query returns: bl_val DB SQL
bl_val() {
	pgc_psql -d "$1" -At -c "$2"
}

# True if T (pfor, lrc, qs) exists with its int4[] -> T cast: bl_have_cast DB T
bl_have_cast() {
	[ "$(bl_val "$1" "SELECT count(*) FROM pg_cast WHERE castsource = 'int4[]'::regtype
		AND casttarget = to_regtype('posting_$2')")" = 1 ]
}

# True if the aggregate posting_intersect(posting_T) exists: bl_have_agg DB T
bl_have_agg() {
	[ "$(bl_val "$1" "SELECT to_regprocedure('posting_intersect(posting_$2)') IS NOT NULL")" = t ]
}

# True if the GUC exists in this server: bl_have_guc DB NAME
bl_have_guc() {
	[ -n "$(bl_val "$1" "SELECT current_setting('$2', true)")" ]
}

# Number of running gpuidx executor workers: bl_executors DB
bl_executors() {
	bl_val "$1" "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuidx executor'"
}

# (Re)create database $1 with the extensions the benchmark uses; prints
# "gpuidx" when CREATE EXTENSION gpuidx worked, "none" otherwise.
bl_create_db() {
	pgc_psql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" || return 1
	pgc_psql -d "$1" -c "CREATE EXTENSION intarray" \
		-c "CREATE AGGREGATE bench_int_and(int[]) (sfunc = _int_inter, stype = int[])" || return 1
	if pgc_psql -d "$1" -c "CREATE EXTENSION gpuidx" 2>"$BL_WORK/gpuidx-ext.err"; then
		echo gpuidx
	else
		echo none
	fi
}

# Build postings(term_id, [term,] df, docs_arr, docs_pfor, docs_lrc, docs_qs)
# from postings_raw(term_id, [term,] docs), with each typed column whose
# int4[] cast exists.  bl_build_postings DB; prints the codecs built.
bl_build_postings() {
	local db=$1 cols="term_id, cardinality(docs) AS df, docs AS docs_arr" built="" t
	[ "$(bl_val "$db" "SELECT count(*) FROM information_schema.columns
		WHERE table_name = 'postings_raw' AND column_name = 'term'")" = 1 ] && cols="$cols, term"
	for t in pfor lrc qs; do
		if bl_have_cast "$db" "$t"; then
			cols="$cols, docs::posting_$t AS docs_$t"
			built="$built $t"
		fi
	done
	pgc_psql -d "$db" -c "DROP TABLE IF EXISTS postings" \
		-c "CREATE TABLE postings AS SELECT $cols FROM postings_raw" \
		-c "ALTER TABLE postings ADD PRIMARY KEY (term_id)" \
		-c "DROP TABLE postings_raw" -c "ANALYZE postings" || return 1
	echo "${built# }"
}

# Store every query's answer once in answer_docs(term_ids, docs), computed
# by intarray (the floor paths return it instead of intersecting, to measure
# what a query costs besides its intersection; bench_query checks their
# results like any path's): bl_store_answers DB
bl_store_answers() {
	bl_step "  storing each query's answer for the floor paths"
	pgc_psql -d "$1" <<EOF
CREATE TABLE answer_docs (term_ids int[] PRIMARY KEY, docs int4[] NOT NULL);
ALTER TABLE answer_docs ALTER docs SET STORAGE EXTERNAL;
INSERT INTO answer_docs SELECT DISTINCT ON (q.term_ids) q.term_ids,
	coalesce((SELECT bench_int_and(p.docs_arr) FROM postings p WHERE p.term_id = ANY (q.term_ids)), '{}')
	FROM queries q;
EOF
}

# Load a gpx_gen directory into database DB: bl_load_synth DB DIR
# Tables: terms, queries, answers, postings, docs (+ GIN) when docs.copy exists.
bl_load_synth() {
	local db=$1 dir=$2 ext codecs
	ext=$(bl_create_db "$db") || return 1
	[ "$ext" = gpuidx ] || bl_step "  CREATE EXTENSION gpuidx failed ($(head -n 1 "$BL_WORK/gpuidx-ext.err")); posting types not measured"
	bl_step "  loading terms, queries, answers and $(grep -E '^postings=' "$dir/stats.txt" | cut -d= -f2) postings"
	pgc_psql -d "$db" <<EOF || return 1
CREATE TABLE terms (term_id int PRIMARY KEY, df int NOT NULL);
CREATE TABLE queries (qid int PRIMARY KEY, term_ids int[] NOT NULL);
CREATE TABLE answers (qid int PRIMARY KEY, n int NOT NULL, hash bigint NOT NULL);
CREATE TABLE postings_raw (term_id int, docs int4[]);
\copy terms FROM '$dir/terms.copy'
\copy queries FROM '$dir/queries.copy'
\copy answers FROM '$dir/answers.copy'
\copy postings_raw FROM '$dir/postings.copy'
EOF
	bl_step "  building postings (int4[] and the posting types)"
	codecs=$(bl_build_postings "$db") || return 1
	bl_step "  posting types built: ${codecs:-none}"
	bl_store_answers "$db" || return 1
	if [ -f "$dir/docs.copy" ]; then
		bl_step "  loading docs(doc_id, terms int[]) and building its GIN index"
		pgc_psql -d "$db" <<EOF || return 1
CREATE TABLE docs (doc_id int PRIMARY KEY, terms int[] NOT NULL);
\copy docs FROM '$dir/docs.copy'
CREATE INDEX docs_terms_gin ON docs USING gin (terms array_ops);
ANALYZE docs;
EOF
	fi
	pgc_psql -d "$db" -c "VACUUM ANALYZE" >/dev/null
}

# Load a real text corpus into database DB, one file one document.
# bl_load_corpus DB KIND CONFIG MAXDOCS NQUERIES
#   KIND: pgdocs (PostgreSQL's HTML docs), linux (Debian linux-source), or a
#   directory; CONFIG: a text search configuration; MAXDOCS: 0 for all, else
#   an evenly spread sample of that many files.
bl_load_corpus() {
	local db=$1 kind=$2 cfg=$3 maxdocs=$4 nq=$5 list="$BL_WORK/files.$1" html="" prefix ext codecs n
	case "$kind" in
		pgdocs)
			# BL_PGDOCS: the same pages from elsewhere (a postgresql-doc-15 .deb unpacked)
			prefix=${BL_PGDOCS:-/usr/share/doc/postgresql-doc-15/html}/
			[ -d "$prefix" ] || { echo "postgresql-doc-15 is not installed" >&2; return 1; }
			find "$prefix" -name '*.html' -type f | LC_ALL=C sort >"$list"
			html=--html ;;
		linux)
			prefix=$(bl_linux_tree) || return 1
			prefix="$prefix/"
			find "$prefix" -type f | LC_ALL=C sort >"$list" ;;
		*)
			prefix="${kind%/}/"
			find "$prefix" -type f | LC_ALL=C sort >"$list" ;;
	esac
	n=$(wc -l <"$list")
	if [ "$maxdocs" -gt 0 ] && [ "$n" -gt "$maxdocs" ]; then
		awk -v n="$n" -v m="$maxdocs" 'int((NR - 1) * m / n) != int(NR * m / n)' "$list" >"$list.s"
		mv "$list.s" "$list"
	fi
	bl_step "  reading $(wc -l <"$list") files of $kind"
	"$BL_ROOT/test/bench/bin/gpx_corpus" $html --strip-prefix "$prefix" <"$list" \
		>"$BL_WORK/corpus.$db.copy" 2>"$BL_WORK/corpus.$db.log" || { cat "$BL_WORK/corpus.$db.log"; return 1; }
	bl_step "  $(cat "$BL_WORK/corpus.$db.log")"
	ext=$(bl_create_db "$db") || return 1
	[ "$ext" = gpuidx ] || bl_step "  CREATE EXTENSION gpuidx failed ($(head -n 1 "$BL_WORK/gpuidx-ext.err")); posting types not measured"
	bl_step "  loading documents and computing to_tsvector('$cfg', body)"
	pgc_psql -d "$db" <<EOF || return 1
SET client_min_messages = warning;
CREATE TABLE documents (
	doc_id int PRIMARY KEY,
	path text NOT NULL,
	body text NOT NULL,
	tsv tsvector GENERATED ALWAYS AS (to_tsvector('$cfg'::regconfig, body)) STORED
);
\copy documents (doc_id, path, body) FROM '$BL_WORK/corpus.$db.copy'
EOF
	rm -f "$BL_WORK/corpus.$db.copy"
	bl_step "  building the GIN index on tsv"
	pgc_psql -d "$db" -c "CREATE INDEX documents_tsv_gin ON documents USING gin (tsv)" || return 1
	bl_step "  inverting the documents into posting lists"
	pgc_psql -d "$db" <<EOF || return 1
CREATE TABLE postings_raw AS
SELECT (row_number() OVER (ORDER BY term))::int AS term_id, term, docs
FROM (SELECT t.term, array_agg(d.doc_id ORDER BY d.doc_id) AS docs
      FROM documents d, unnest(tsvector_to_array(d.tsv)) AS t(term)
      GROUP BY t.term) s;
EOF
	codecs=$(bl_build_postings "$db") || return 1
	pgc_psql -d "$db" -c "CREATE UNIQUE INDEX postings_term ON postings (term)" || return 1
	bl_step "  posting types built: ${codecs:-none}"
	bl_corpus_queries "$db" "$nq" || return 1
	bl_store_answers "$db" || return 1
	pgc_psql -d "$db" -c "VACUUM ANALYZE" >/dev/null
}

# The linux-source tree, unpacked once under $GPUIDX_CACHE (default /var/tmp).
bl_linux_tree() {
	local tarball cache=${GPUIDX_CACHE:-/var/tmp/gpuidx-cache} dir
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$tarball" ] || { echo "no /usr/src/linux-source-*.tar.xz (apt-get install linux-source)" >&2; return 1; }
	dir="$cache/$(basename "$tarball" .tar.xz)"
	if [ ! -f "$dir/.unpacked" ]; then
		bl_step "  unpacking $tarball (once, into $cache)" >&2
		mkdir -p "$cache" && rm -rf "$dir" && tar -C "$cache" -xJf "$tarball" && touch "$dir/.unpacked" || return 1
	fi
	echo "$dir"
}

# Sample NQ queries of 2-5 terms, each from one document's own terms of
# df >= 2 (deterministic: hashes, not random()), with the tsquery for GIN.
# bl_corpus_queries DB NQ
bl_corpus_queries() {
	pgc_psql -d "$1" <<EOF
DROP TABLE IF EXISTS queries;
CREATE TABLE queries AS
WITH cand AS (
	SELECT g AS q0, 2 + (hashint4(g) & 3) AS k,
	       1 + (hashint4(g + 1000003) & 2147483647) % (SELECT max(doc_id) FROM documents) AS doc_id
	FROM generate_series(1, 2 * $2) g),
picked AS (
	SELECT c.q0, c.k, p.term_id, p.term,
	       row_number() OVER (PARTITION BY c.q0 ORDER BY md5(c.q0 || '/' || p.term)) AS rn
	FROM cand c
	JOIN documents d USING (doc_id)
	CROSS JOIN LATERAL unnest(tsvector_to_array(d.tsv)) AS t(term)
	JOIN postings p ON p.term = t.term
	WHERE p.df >= 2),
full_q AS (
	SELECT q0, array_agg(term_id ORDER BY rn) AS term_ids, array_agg(term ORDER BY rn) AS terms
	FROM picked WHERE rn <= k GROUP BY q0, k HAVING count(*) = k)
SELECT (row_number() OVER (ORDER BY q0))::int AS qid, term_ids, terms,
       array_to_string(ARRAY(SELECT '''' || replace(replace(t, '\\', '\\\\'), '''', '''''') || ''''
                             FROM unnest(terms) WITH ORDINALITY u(t, i) ORDER BY i), ' & ')::tsquery AS tsq
FROM full_q ORDER BY q0 LIMIT $2;
ALTER TABLE queries ADD PRIMARY KEY (qid);
EOF
}

# Append size rows (TSV) for database DB: bl_sizes DB DATASET NDOCS KIND TSV
#   KIND: synth (GIN on docs.terms) or corpus (GIN on documents.tsv)
bl_sizes() {
	local db=$1 ds=$2 ndocs=$3 kind=$4 tsv=$5 col t gin
	local docids
	docids=$(bl_val "$db" "SELECT coalesce(sum(df), 0) FROM postings")
	# size_row NAME BYTES: one TSV row (bits/docID, or too small)
	size_row() {
		awk -v ds="$ds" -v n="$docids" -v name="$1" -v b="$2" -v terms="$3" 'BEGIN {
			st = (n < 10000 || terms < 20) ? "too small to report" : "ok";
			printf "size\t%s\t%s\t%d\t%.0f\t%.4f\t%s\n", ds, name, n, b, (n > 0 ? 8 * b / n : 0), st }' >>"$tsv"
	}
	local nterms
	nterms=$(bl_val "$db" "SELECT count(*) FROM postings")
	for col in docs_arr docs_pfor docs_lrc docs_qs; do
		[ "$(bl_val "$db" "SELECT count(*) FROM information_schema.columns
			WHERE table_name = 'postings' AND column_name = '$col'")" = 1 ] || continue
		case $col in
			docs_arr) t="int4[] column (as stored)" ;;
			*) t="posting_${col#docs_} column" ;;
		esac
		size_row "SQL $t" "$(bl_val "$db" "SELECT sum(pg_column_size($col)) FROM postings")" "$nterms"
	done
	if [ "$kind" = synth ]; then
		gin=$(bl_val "$db" "SELECT coalesce(pg_relation_size(to_regclass('docs_terms_gin')), -1)")
		[ "$gin" -ge 0 ] && size_row "SQL GIN index (docs.terms, array_ops)" "$gin" "$nterms"
	else
		size_row "SQL GIN index (documents.tsv)" \
			"$(bl_val "$db" "SELECT pg_relation_size('documents_tsv_gin')")" "$nterms"
	fi
	size_row "Elias-Fano bound" "$(bl_val "$db" "SELECT sum(df * (2 + greatest(0, ceil(log(2, $ndocs::numeric / df))))) / 8 FROM postings")" "$nterms"
}

# Switch the executor to DEVICE (cpu or gpu) through ALTER SYSTEM and a
# reload, and wait until gpuidx_info() says it runs there.  Prints nothing
# when it does, else the reason it does not.  bl_exec_device DB DEVICE
bl_exec_device() {
	local db=$1 want=$2 act note before i
	if [ "$(bl_executors "$db")" = 0 ]; then
		echo "no gpuidx executor running (shared_preload_libraries = 'gpuidx')"
		return
	fi
	if [ "$(bl_val "$db" "SELECT to_regprocedure('gpuidx_info()') IS NOT NULL")" != t ]; then
		# cannot ask the executor: trust the machine
		if [ "$want" = gpu ] && ! nvidia-smi -L >/dev/null 2>&1; then echo "no GPU on this machine"; fi
		return
	fi
	before=$(bl_val "$db" "SELECT coalesce(device_note, '') FROM gpuidx_info()")
	pgc_psql -d "$db" -c "ALTER SYSTEM SET gpuidx.device = '$want'" -c "SELECT pg_reload_conf()" >/dev/null || return
	for i in $(seq 1 100); do
		act=$(bl_val "$db" "SELECT device_active FROM gpuidx_info()")
		note=$(bl_val "$db" "SELECT coalesce(device_note, '') FROM gpuidx_info()")
		case "$act" in "$want"*) return ;; esac
		[ "$i" -gt 5 ] && [ "$note" != "$before" ] && break
		sleep 0.1
	done
	echo "the executor runs batches on ${act:-nothing}${note:+ ($note)}"
}

# Undo bl_exec_device: bl_exec_reset DB
bl_exec_reset() {
	[ "$(bl_executors "$1")" = 0 ] && return 0
	pgc_psql -d "$1" -c "ALTER SYSTEM RESET gpuidx.device" -c "SELECT pg_reload_conf()" >/dev/null
}

# Print the bench_query --path specs of one group for database DB:
#   bl_paths DB KIND GROUP [REASON]
#   KIND: synth or corpus; GROUP: base (GIN, intarray, gpuidx in the
#   backend), exec-cpu or exec-gpu (gpuidx through the executor, whose
#   device the caller has set with bl_exec_device; REASON, when not empty,
#   is why that device is not available).  Paths that cannot run come out
#   as "NAME|!reason|" so that the driver reports them "not available".
bl_paths() {
	local db=$1 kind=$2 group=$3 reason=${4:-} t why setup q
	if [ "$group" = base ]; then
		if [ "$kind" = corpus ]; then
			echo "GIN tsvector @@ tsquery|SET enable_seqscan = off|SELECT array_agg(doc_id ORDER BY doc_id) FROM documents WHERE tsv @@ \$2::tsquery"
		elif [ "$(bl_val "$db" "SELECT to_regclass('docs_terms_gin') IS NOT NULL")" = t ]; then
			echo "GIN int[] @> (array_ops)|SET enable_seqscan = off|SELECT array_agg(doc_id ORDER BY doc_id) FROM docs WHERE terms OPERATOR(pg_catalog.@>) \$1::int[]"
		else
			echo "GIN int[] @> (array_ops)|!no documents table at this scale (BENCH_GIN=yes builds it)|"
		fi
		echo "intarray & over int4[]||SELECT bench_int_and(docs_arr) FROM postings WHERE term_id = ANY (\$1::int[])"
	fi
	for t in pfor lrc qs; do
		q="SELECT posting_intersect(docs_$t) FROM postings WHERE term_id = ANY (\$1::int[])"
		why=""
		if [ "$(bl_val "$db" "SELECT count(*) FROM pg_extension WHERE extname = 'gpuidx'")" = 0 ]; then
			why="CREATE EXTENSION gpuidx failed$([ -s "$BL_WORK/gpuidx-ext.err" ] && echo ": $(head -n 1 "$BL_WORK/gpuidx-ext.err")")"
		elif ! bl_have_cast "$db" "$t"; then
			why="type posting_$t or its int4[] cast is missing"
		elif ! bl_have_agg "$db" "$t"; then
			why="aggregate posting_intersect(posting_$t) does not exist yet"
		fi
		case "$group" in
			base)
				setup=""
				bl_have_guc "$db" gpuidx.use_executor && setup="SET gpuidx.use_executor = off"
				setup=${GPUIDX_BENCH_SETUP_BACKEND:-$setup}
				[ -n "$why" ] && setup="!$why"
				echo "gpuidx $t in-backend|$setup|$q" ;;
			exec-cpu|exec-gpu)
				local dev=${group#exec-}
				setup="SET gpuidx.use_executor = on; SET gpuidx.executor_fallback = off; SET gpuidx.device = '$dev'"
				[ -n "$reason" ] && setup="!$reason"
				[ -n "$why" ] && setup="!$why"
				echo "gpuidx $t executor ${dev^^}|$setup|$q" ;;
		esac
	done
	if [ "$group" = base ]; then bl_floor_paths "$db"; fi
}

# Print bench_query --path specs that answer every query of a synthetic
# database DB (bl_load_synth) in one statement, for the groups of bl_paths
# (base, exec-cpu, exec-gpu; REASON as there): GIN runs one index scan per
# query, intarray and gpuidx one GROUP BY over the (query, list) rows, which
# the executor takes as one batch.  Each statement returns one int4[]: the
# hash_array of every query's answer, in qid order, so that every answer is
# read and the paths' results can be compared.  Path names are bl_paths'.
#   bl_batch_paths DB GROUP [REASON]
bl_batch_paths() {
	local db=$1 group=$2 reason=${3:-} line name setup t
	# wrap SUBQUERY: the statement over a subquery of (qid, r)
	wrap() {
		echo "SELECT array_agg(hash_array(coalesce(s.r, '{}')) & 2147483647 ORDER BY s.qid) FROM ($1) s"
	}
	# grouped AGG COL: the GROUP BY of aggregate AGG over the lists of column COL
	grouped() {
		echo "SELECT q.qid, $1(p.$2) AS r FROM queries q JOIN postings p ON p.term_id = ANY (q.term_ids) GROUP BY q.qid"
	}
	# the same names, setups and availability as the one-query paths
	while IFS= read -r line; do
		name=${line%%|*}
		setup=${line#*|}
		setup=${setup%%|*}
		case "$name" in
			GIN*)
				[ "${setup#!}" = "$setup" ] || { echo "$name|$setup|"; continue; }
				echo "$name|$setup|$(wrap "SELECT q.qid, (SELECT array_agg(d.doc_id ORDER BY d.doc_id) FROM docs d WHERE d.terms OPERATOR(pg_catalog.@>) q.term_ids) AS r FROM queries q")" ;;
			intarray*) echo "$name|$setup|$(wrap "$(grouped bench_int_and docs_arr)")" ;;
			gpuidx*)
				t=${name#gpuidx }
				t=${t%% *}
				echo "$name|$setup|$(wrap "$(grouped posting_intersect "docs_$t")")" ;;
		esac
	done < <(bl_paths "$db" synth "$group" "$reason")
}

# Print the floor paths of database DB (base group): each returns the
# query's stored answer (answer_docs) without intersecting, after reading
# and detoasting the query's lists of one representation as the real path
# does, or (first path) without reading them, or (last) reading only their
# headers.  The gap between a path and its floor is what its intersection
# costs; a path's speed-up over another cannot exceed that other's time
# over this floor.
bl_floor_paths() {
	local db=$1 ans="(SELECT a.docs FROM answer_docs a WHERE a.term_ids = \$1::int[])" t
	[ "$(bl_val "$db" "SELECT to_regclass('answer_docs') IS NOT NULL")" = t ] || return 0
	# read_lists EXPR: the floor query whose lists are detoasted by EXPR
	read_lists() {
		echo "SELECT CASE WHEN f.s >= 0 THEN $ans END FROM (SELECT sum($1) AS s FROM postings WHERE term_id = ANY (\$1::int[])) f"
	}
	echo "floor: stored answer only||SELECT $ans"
	echo "floor: read int4[] lists + stored answer||$(read_lists "array_length(docs_arr, 1)")"
	for t in pfor lrc qs; do
		bl_have_cast "$db" "$t" || continue
		echo "floor: read $t lists + stored answer||$(read_lists "length(posting_${t}_send(docs_$t))")"
	done
	# the header alone (a 32-byte TOAST slice, length(T)): what a query
	# would cost if the lists themselves were not fetched
	t=pfor
	bl_have_cast "$db" "$t" &&
		echo "floor: read $t headers + stored answer||$(read_lists "length(docs_$t)")"
	return 0
}

# bl_rank_raw_sql DIR: the SQL that loads a gpx_gen --tf directory into the
# raw tables terms, queries, postings_raw, tfs_raw and doclens, and builds
# the collection's statistics (rank_bench.sh, rank_ab.sh).
bl_rank_raw_sql() {
	cat <<EOF
CREATE TABLE terms (term_id int PRIMARY KEY, df int NOT NULL);
CREATE TABLE queries (qid int PRIMARY KEY, term_ids int[] NOT NULL);
CREATE TABLE postings_raw (term_id int, docs int4[]);
CREATE TABLE tfs_raw (term_id int, tfs int4[]);
CREATE TABLE doclens (doc_id int, len int);
\copy terms FROM '$1/terms.copy'
\copy queries FROM '$1/queries.copy'
\copy postings_raw FROM '$1/postings.copy'
\copy tfs_raw FROM '$1/tfs.copy'
\copy doclens FROM '$1/doclens.copy'
-- the collection statistics: every document of the collection
CREATE TABLE collection AS SELECT posting_doclen_agg(doc_id, len) AS stats FROM doclens;
EOF
}

# bl_prune_min_shortest DIR N: rewrite a gpx_gen directory in place, keeping
# the queries (and their answers) whose shortest list has >= N docIDs, and
# only the terms those queries use (their postings, and frequencies where
# gpx_gen --tf wrote them; --extra terms are dropped too).  Prints
# "queries terms postings" kept.
bl_prune_min_shortest() {
	local dir=$1 n=$2
	awk -v n="$n" -v dir="$dir" '
	FILENAME ~ /terms.copy$/ { df[$1] = $2; next }
	{
		s = $2; gsub(/[{}]/, "", s); k = split(s, a, ",")
		m = -1
		for (i = 1; i <= k; i++) if (m < 0 || df[a[i]] < m) m = df[a[i]]
		if (m >= n) {
			print > (dir "/queries.keep"); q[$1] = 1; nq++
			for (i = 1; i <= k; i++) if (!(a[i] in keep)) { keep[a[i]] = 1; nt++; np += df[a[i]] }
		}
	}
	END {
		for (t in keep) print t "\t" df[t] > (dir "/terms.keep")
		for (t in q) print t > (dir "/qids.keep")
		printf "%d %d %.0f\n", nq, nt, np
	}' "$dir/terms.copy" "$dir/queries.copy" || return 1
	touch "$dir/queries.keep" "$dir/terms.keep" "$dir/qids.keep"
	sort -n "$dir/terms.keep" >"$dir/terms.copy"
	mv "$dir/queries.keep" "$dir/queries.copy"
	awk 'NR == FNR { k[$1] = 1; next } $1 in k' "$dir/qids.keep" "$dir/answers.copy" >"$dir/answers.keep" \
		&& mv "$dir/answers.keep" "$dir/answers.copy" || return 1
	awk 'NR == FNR { k[$1] = 1; next } $1 in k' "$dir/terms.copy" "$dir/postings.copy" >"$dir/postings.keep" \
		&& mv "$dir/postings.keep" "$dir/postings.copy" || return 1
	# gpx_gen --tf's frequencies, one row per term like the postings
	if [ -f "$dir/tfs.copy" ]; then
		awk 'NR == FNR { k[$1] = 1; next } $1 in k' "$dir/terms.copy" "$dir/tfs.copy" >"$dir/tfs.keep" \
			&& mv "$dir/tfs.keep" "$dir/tfs.copy" || return 1
	fi
	rm -f "$dir/terms.keep" "$dir/qids.keep"
	# what is loaded from now on (run-bench.sh keeps the generator's own
	# figures in its results directory)
	sed -i "s/^postings=.*/postings=$(awk '{ s += $2 } END { printf "%.0f", s }' "$dir/terms.copy")/" "$dir/stats.txt"
}

# Build test/gen/gpx_gen into $BL_WORK and write the clustered synthetic
# collection to DIR, with the generator options FLAGS (--docs for the
# documents table of the GIN paths, say): bl_gen_synth DIR SCALE QUERIES [FLAGS...]
bl_gen_synth() {
	local dir=$1 scale=$2 nq=$3
	shift 3
	cc -O2 -I"$BL_ROOT/test/ref" -o "$BL_WORK/gpx_gen" "$BL_ROOT/test/gen/gpx_gen.c" \
		"$BL_ROOT/test/ref/gpx_ref.c" -lm || return 1
	"$BL_WORK/gpx_gen" --scale "$scale" --queries "$nq" --extra 0 --seed 1 \
		--order clustered --quiet "$@" --out "$dir" >/dev/null || return 1
	chmod -R a+rX "$dir"
}

# A clustered bar chart of a gnuplot data file (tab-separated: a header
# row naming the columns, then one row per cluster: its name and a value
# per column, "?" where there is none): bl_bar_plot DAT PNG TITLE YLABEL lin|log
# Does nothing when DAT has no rows; gnuplot's complaints go to stderr.
bl_bar_plot() {
	local rows cols
	rows=$(($(wc -l <"$1") - 1))
	[ "$rows" -gt 0 ] || return 0
	cols=$(($(head -n 1 "$1" | awk -F'\t' '{ print NF }') - 1))
	gnuplot <<EOF
set terminal pngcairo noenhanced size $((300 + rows * (24 + 16 * cols))),560 font ",9"
set output "$2"
set title "$3"
set ylabel "$4"
set datafile separator "\t"
set datafile missing "?"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
set grid ytics
set xtics rotate by -35 nomirror
set bmargin 11
set rmargin 14
$([ "$5" = log ] && echo "set logscale y")
plot for [i=2:$((cols + 1))] "$1" using i:xtic(1) title columnheader(i)
EOF
}

# One pgbench run of SCRIPT against DB with CLIENTS clients for SECS
# seconds (prepared statements, per-transaction log); prints
# "tps p50 p95 p99" (ms) and keeps pgbench's output in OUT.
#   bl_pgbench DB SCRIPT CLIENTS SECS OUT [PGOPTIONS]
bl_pgbench() {
	local db=$1 script=$2 c=$3 secs=$4 out=$5 opts=${6:-} j tps ncpu
	ncpu=$(nproc)
	j=$(( c < ncpu * 2 ? c : ncpu * 2 ))
	rm -f "$BL_WORK"/pgbench_log.*
	(cd "$BL_WORK" && PGOPTIONS="$opts" "$PGC_BIN/pgbench" -n -M prepared -T "$secs" -c "$c" -j "$j" \
		-f "$script" -l --log-prefix=pgbench_log "$db" >"$out" 2>&1) || { tail -n 5 "$out" >&2; return 1; }
	tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$out" | head -n 1)
	cat "$BL_WORK"/pgbench_log.* | awk '{ print $3 / 1000.0 }' | sort -n | awk -v tps="$tps" '
		{ v[NR] = $1 } END {
			printf "%.1f %.2f %.2f %.2f\n", tps, v[int(NR * 0.50) + 1], v[int(NR * 0.95) + 1], v[int(NR * 0.99) + 1] }'
}

# A work directory for a benchmark script (BL_WORK, exported) and, as root
# with INSTALL = 1, the extension built and installed from this tree.
#   bl_init NAME INSTALL
bl_init() {
	BL_WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpuidx-$1.XXXXXX")
	chmod 755 "$BL_WORK"
	export BL_WORK
	if [ "$(id -u)" = 0 ] && [ "$2" = 1 ]; then
		bl_step "make install"
		make -s -C "$BL_ROOT" -j"$(nproc)" >/dev/null && make -s -C "$BL_ROOT" install >/dev/null || return 1
	fi
}

# A/B of two trees on one cluster (rank_ab.sh, rankagg_ab.sh).
# bl_ab_build OLD OUT JOBS: build the old tree (at OLD) and this one side by
# side (logs in OUT), then install this one into pg_config's PostgreSQL.
bl_ab_build() {
	local old=$1 out=$2 jobs=$3
	(cd "$old" && make -s -j"$jobs" >"$out/build-old.log" 2>&1) &
	make -s -j"$jobs" >"$out/build-new.log" 2>&1
	wait
	make -s install >/dev/null 2>&1 || { echo "make install failed" >&2; return 1; }
}

# bl_ab_switch V OLD DIR OUT: install tree V (old: the one at OLD, new: this
# one) and restart the cluster of DIR (pgc_start DIR/c) on it.
bl_ab_switch() {
	local v=$1 old=$2 dir=$3 out=$4
	if [ "$v" = old ]; then (cd "$old" && make -s install >/dev/null 2>&1); else make -s install >/dev/null 2>&1; fi
	pgc_as "$PGC_BIN/pg_ctl" -D "$dir/c/data" -l "$dir/c/server.log" -w -m fast restart >>"$out/restart.log" 2>&1 ||
		{ echo "restart failed: $(tail -n 3 "$dir/c/server.log")" >&2; return 1; }
}
