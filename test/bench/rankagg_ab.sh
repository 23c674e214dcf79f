#!/bin/bash
# test/bench/rankagg_ab.sh - A/B of what a ranked aggregate costs besides
# ranking (its posting_hit[] result, made rows), between two trees of
# gpuidx on one machine and one cluster: one stored list of 1000 docIDs in
# a collection of 10^5 documents, posting_rank_or_agg top-1000 (ranking a
# single short list is cheap; the 1000 hits are the figure), counted
# through unnest, N calls in one PL/pgSQL loop (every answer consumed).
# The old tree and this one are installed in turn into pg_config's
# PostgreSQL (root: `make install`) and the server restarted after each;
# each round times every tree twice after a warm-up.
#
#   test/bench/rankagg_ab.sh OLD_TREE OUTDIR [ROUNDS] [CALLS]
#
# OLD_TREE: a checkout with the ranked aggregates, e.g.
#   mkdir /tmp/old && git archive 8aafce2 | tar -x -C /tmp/old
# Writes OUTDIR/rankagg-ab.txt ("old|new ROUND ms|ms per call").
old=$1 out=$2 rounds=${3:-4} calls=${4:-3000}
[ -d "$old" ] && [ -n "$out" ] || { sed -n '2,17p' "$0" >&2; exit 2; }
old=$(cd "$old" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 1
export BL_ROOT=$PWD
source test/bench/pgcluster.sh
PGC_BIN=$(pg_config --bindir)
(cd "$old" && make -s -j2 >"$out/build-old.log" 2>&1 && make -s install >>"$out/build-old.log" 2>&1) ||
	{ echo "the old tree did not build" >&2; exit 1; }
make -s -j2 >"$out/build-new.log" 2>&1 || { echo "this tree did not build" >&2; exit 1; }
dir=$(mktemp -d /tmp/gpuidx-rankagg-ab.XXXXXX)
chmod 755 "$dir"
pgc_start "$dir/c" 1 >/dev/null || exit 1
pgc_psql <<'SQL' || exit 1
CREATE EXTENSION gpuidx;
CREATE TABLE st AS SELECT posting_doclen_agg(g, 50 + g % 97) AS stats FROM generate_series(0, 99999) g;
CREATE TABLE l AS SELECT ARRAY(SELECT g * 7 FROM generate_series(0, 999) g)::posting_pfor AS docs;
CREATE FUNCTION hits_time(n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; c bigint; tot bigint := 0;
BEGIN
	t0 := clock_timestamp();
	FOR i IN 1..n LOOP
		SELECT count(*) INTO c FROM unnest((SELECT posting_rank_or_agg(l.docs, s.stats, 1000) FROM l, st s));
		tot := tot + c;
	END LOOP;
	IF tot <> 1000::bigint * n THEN
		RAISE EXCEPTION 'expected % hits, got %', 1000::bigint * n, tot;
	END IF;
	RETURN 1000.0 * extract(epoch FROM clock_timestamp() - t0) / n;
END $$;
SQL
for round in $(seq 1 "$rounds"); do
	for v in old new; do
		if [ $v = old ]; then (cd "$old" && make -s install >/dev/null 2>&1); else make -s install >/dev/null 2>&1; fi
		pgc_as "$PGC_BIN/pg_ctl" -D "$dir/c/data" -l "$dir/c/server.log" -w -m fast restart >>"$out/restart.log" 2>&1 ||
			{ echo "restart failed: $(tail -n 3 "$dir/c/server.log")" >&2; exit 1; }
		pgc_psql -At -c "SELECT hits_time(300)" -c "SELECT 'ms', hits_time($calls)" \
			-c "SELECT 'ms', hits_time($calls)" | grep '^ms' | sed "s/^/$v $round /"
	done
done | tee "$out/rankagg-ab.txt"
pgc_stop
rm -rf "$dir"
