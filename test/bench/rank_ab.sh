#!/bin/bash
# test/bench/rank_ab.sh - A/B of ranked AND in the backend between two
# trees of gpuidx on one machine, one cluster, one data set: the old tree
# and this one are built, then installed in turn into pg_config's
# PostgreSQL (root: `make install`), the server restarted after each, and
# each round times, in one PL/pgSQL loop per figure (every answer counted,
# so consumed), posting_rank_and top-10 and top-1000 and the floor (the
# same lists read, no ranking) over the GOV2-calibrated queries whose
# shortest list has >= 10^4 docIDs (gpx_gen --scale 0.2 --seed 1 --tf, as
# rank_bench.sh).  Each figure is ms per query over 5 passes; a round runs
# every figure twice (the first in a fresh backend also reads the
# statistics into its cache).
#
#   test/bench/rank_ab.sh OLD_TREE OUTDIR [JOBS] [ROUNDS] [FIGURES]
#
# FIGURES (default "and10 and1000 floor"): also agg10 and agg1000, ranked
# AND through posting_rank_and_agg in the backend (gpuidx.device = backend:
# the lists read in place from the shared cache), and hits1000, what the
# aggregate's result costs: posting_rank_or_agg top-1000 over one stored
# list of 1000 docIDs (ranking it is cheap), made rows and counted, ms per
# call over 3000 calls after 300 (both trees must have the aggregates).
#
# OLD_TREE: a checkout of the old version, e.g.
#   mkdir /tmp/old && git archive eb6be61 | tar -x -C /tmp/old
# Writes OUTDIR/rank-ab.txt ("old|new round R: figure|ms per query").
old=$1 out=$2 jobs=${3:-2} rounds=${4:-4} figures=${5:-and10 and1000 floor}
[ -d "$old" ] && [ -n "$out" ] || { sed -n '2,25p' "$0" >&2; exit 2; }
old=$(cd "$old" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 1
export BL_ROOT=$PWD
source test/bench/pgcluster.sh
source test/bench/benchlib.sh
PGC_BIN=$(pg_config --bindir)
bl_ab_build "$old" "$out" "$jobs" || exit 1
make -s test/gen/bin/gpx_gen >/dev/null 2>&1 || exit 1
dir=$(mktemp -d /tmp/gpuidx-rank-ab.XXXXXX)
chmod 755 "$dir"
pgc_start "$dir/c" 1 || exit 1
g=$dir/gen
mkdir -p "$g"
test/gen/bin/gpx_gen --scale 0.2 --queries 8000 --extra 0 --seed 1 --order clustered \
	--tf --quiet --out "$g" >/dev/null || exit 1
bl_prune_min_shortest "$g" 10000 >/dev/null || exit 1
chmod -R a+rX "$g"
pgc_psql <<SQL || exit 1
SET work_mem = '1GB';
CREATE EXTENSION IF NOT EXISTS gpuidx;
$(bl_rank_raw_sql "$g")
CREATE TABLE rank_lists AS
	SELECT term_id, posting_pfor(p.docs, t.tfs) AS docs_pfor
	FROM postings_raw p JOIN tfs_raw t USING (term_id);
ALTER TABLE rank_lists ADD PRIMARY KEY (term_id);
DROP TABLE postings_raw, tfs_raw, doclens;
-- the hits figure: one stored list of 1000 docIDs in 10^5 documents
CREATE TABLE hits_stats AS SELECT posting_doclen_agg(g, 50 + g % 97) AS stats FROM generate_series(0, 99999) g;
CREATE TABLE hits_list AS SELECT ARRAY(SELECT g * 7 FROM generate_series(0, 999) g)::posting_pfor AS docs;
-- ms per call of posting_rank_or_agg top-1000 on it, made rows: what the
-- aggregate's result costs (ranking one short list is cheap)
CREATE FUNCTION hits_time(n int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; c bigint; tot bigint := 0;
BEGIN
	t0 := clock_timestamp();
	FOR i IN 1..n LOOP
		SELECT count(*) INTO c FROM unnest((SELECT posting_rank_or_agg(l.docs, s.stats, 1000)
			FROM hits_list l, hits_stats s));
		tot := tot + c;
	END LOOP;
	IF tot <> 1000::bigint * n THEN
		RAISE EXCEPTION 'expected % hits, got %', 1000::bigint * n, tot;
	END IF;
	RETURN 1000.0 * extract(epoch FROM clock_timestamp() - t0) / n;
END \$\$;
-- ms per query of one figure over the queries, rounds passes
CREATE FUNCTION ab_time(k int, rounds int, mode text) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE r record; t0 timestamptz; n bigint; tot bigint := 0;
BEGIN
	t0 := clock_timestamp();
	FOR i IN 1..rounds LOOP
		FOR r IN SELECT term_ids FROM queries ORDER BY qid LOOP
			IF mode = 'agg' THEN
				SELECT count(*) INTO n FROM unnest((SELECT posting_rank_and_agg(l.docs_pfor, c.stats, k ORDER BY u.pos)
					FROM unnest(r.term_ids) WITH ORDINALITY u(t, pos)
					LEFT JOIN rank_lists l ON l.term_id = u.t CROSS JOIN collection c));
			ELSIF mode = 'and' THEN
				SELECT count(*) INTO n FROM posting_rank_and(ARRAY(
					SELECT l.docs_pfor FROM unnest(r.term_ids) WITH ORDINALITY u(t, pos)
					LEFT JOIN rank_lists l ON l.term_id = u.t ORDER BY u.pos),
					(SELECT stats FROM collection), k);
			ELSE
				SELECT cardinality(ARRAY(
					SELECT l.docs_pfor FROM unnest(r.term_ids) WITH ORDINALITY u(t, pos)
					LEFT JOIN rank_lists l ON l.term_id = u.t ORDER BY u.pos)) INTO n;
			END IF;
			tot := tot + n;
		END LOOP;
	END LOOP;
	RETURN 1000.0 * extract(epoch FROM clock_timestamp() - t0) /
		(rounds * (SELECT count(*) FROM queries));
END \$\$;
VACUUM ANALYZE;
SQL
for round in $(seq 1 "$rounds"); do
	for v in old new; do
		bl_ab_switch $v "$old" "$dir" "$out" || exit 1
		# each figure twice; the aggregate in the backend reading in place
		args=()
		for pass in 1 2; do
			for f in $figures; do
				case $f in
					and10) args+=(-c "SET gpuidx.use_executor = off" -c "SELECT 'and10', ab_time(10, 5, 'and')") ;;
					and1000) args+=(-c "SET gpuidx.use_executor = off" -c "SELECT 'and1000', ab_time(1000, 5, 'and')") ;;
					floor) args+=(-c "SET gpuidx.use_executor = off" -c "SELECT 'floor', ab_time(10, 5, 'floor')") ;;
					agg10) args+=(-c "SET gpuidx.use_executor = on" -c "SET gpuidx.device = backend" -c "SELECT 'agg10', ab_time(10, 5, 'agg')") ;;
					agg1000) args+=(-c "SET gpuidx.use_executor = on" -c "SET gpuidx.device = backend" -c "SELECT 'agg1000', ab_time(1000, 5, 'agg')") ;;
					hits1000) args+=(-c "SET gpuidx.use_executor = on" -c "SET gpuidx.device = backend" -c "SELECT hits_time(300)" -c "SELECT 'hits1000', hits_time(3000)") ;;
				esac
			done
		done
		pgc_psql -At "${args[@]}" | grep '|' | sed "s/^/$v round $round: /"
	done
done | tee "$out/rank-ab.txt"
pgc_stop
rm -rf "$dir"
