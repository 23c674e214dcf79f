#!/usr/bin/env bash
# test/bench/scaleout_bench.sh - document-partitioned postings across
# PostgreSQL servers (docs/SCALEOUT.md): query throughput and latency of
# one server holding everything, a coordinator with 1 shard (all docIDs on
# one postgres_fdw server) and with 2 shards (docIDs split in half), in one
# run on this machine.  All servers are local, connected over TCP loopback.
#
#   test/bench/scaleout_bench.sh      (root, or a user with pg_config on
#                                      PATH and the extension installed)
#
# Knobs (environment):
#   SCALEOUT_SCALE     collection scale, 1.0 = GOV2's 25.2M docs (0.1)
#   SCALEOUT_QUERIES   queries in the log (1000)
#   SCALEOUT_TIME      seconds per pgbench run (10)
#   SCALEOUT_CLIENTS   client counts ("1 4 8")
#   SCALEOUT_OUT       report file (docs/bench/scaleout.md, quoted by
#                      docs/BENCHMARKS.md)
#
# Every configuration's answers are checked against the generator's
# before anything is timed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
CMDLINE="$0 $*"
SCALE=${SCALEOUT_SCALE:-0.1}
QUERIES=${SCALEOUT_QUERIES:-1000}
SECS=${SCALEOUT_TIME:-10}
CLIENTS=${SCALEOUT_CLIENTS:-"1 4 8"}
OUT=${SCALEOUT_OUT:-docs/bench/scaleout.md}
NCPU=$(nproc)

# shellcheck source=pgcluster.sh
. test/bench/pgcluster.sh
BL_TAG=scaleout
# shellcheck source=benchlib.sh
. test/bench/benchlib.sh

bl_init scaleout "${SCALEOUT_INSTALL:-1}" || exit 1
NODES=""
# stop every server started here and remove the work directory
cleanup() {
	local d
	for d in $NODES; do
		pgc_as "$PGC_BIN/pg_ctl" -D "$d/data" -m immediate -w stop >/dev/null 2>&1
	done
	rm -rf "$BL_WORK"
}
trap cleanup EXIT
DB=bench_scaleout

# start_node NAME: a server with gpuidx preloaded listening on 127.0.0.1;
# sets NODE_PORT
start_node() {
	local dir=$BL_WORK/$1
	pgc_start "$dir" 1 >/dev/null || return 1
	[ "$PGC_PRELOADED" = 1 ] || { echo "$1 does not start with gpuidx preloaded"; return 1; }
	NODES="$NODES $dir"
	NODE_PORT=$PGPORT
	cat >>"$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
max_connections = 60
gpuidx.arena_size = 256MB
EOF
	pgc_as "$PGC_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 restart >/dev/null
}
# on PORT ARGS...: psql on a node's server
on() {
	local port=$1
	shift
	PGHOST=127.0.0.1 PGPORT=$port pgc_psql "$@"
}

bl_step "generating: scale $SCALE, $QUERIES queries"
bl_gen_synth "$BL_WORK/gen" "$SCALE" "$QUERIES" || exit 1
NDOCS=$(sed -n 's/^ndocs=\([0-9]*\).*/\1/p' "$BL_WORK/gen/stats.txt")
HALF=$((NDOCS / 2))

bl_step "starting the coordinator and two shards"
start_node coord && P0=$NODE_PORT || exit 1
start_node shard1 && P1=$NODE_PORT || exit 1
start_node shard2 && P2=$NODE_PORT || exit 1
export PGHOST=127.0.0.1 PGPORT=$P0

bl_step "loading the collection on the coordinator (the single-server reference)"
bl_load_synth "$DB" "$BL_WORK/gen" >/dev/null || exit 1
for p in $P1 $P2; do
	on "$p" -d postgres -c "CREATE DATABASE $DB" >/dev/null || exit 1
	on "$p" -d "$DB" -c "CREATE EXTENSION gpuidx" || exit 1
done
# shard tables: shard 1 has "whole" (1-shard layout) and "lower"; shard 2 "upper"
on "$P1" -d "$DB" <<EOF || exit 1
CREATE TABLE whole (term_id int, shard int, docs posting_pfor, PRIMARY KEY (term_id, shard));
CREATE TABLE lower (term_id int, shard int, docs posting_pfor, PRIMARY KEY (term_id, shard));
EOF
on "$P2" -d "$DB" -c "CREATE TABLE upper (term_id int, shard int, docs posting_pfor, PRIMARY KEY (term_id, shard))" || exit 1

bl_step "partitioning: 1 shard (all docIDs), 2 shards (split at docID $HALF)"
on "$P0" -d "$DB" <<EOF || exit 1
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$P1',
  dbname '$DB', extensions 'gpuidx', async_capable 'true', fdw_tuple_cost '1');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$P2',
  dbname '$DB', extensions 'gpuidx', async_capable 'true', fdw_tuple_cost '1');
CREATE SERVER shard1s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$P1',
  dbname '$DB', extensions 'gpuidx', async_capable 'false', fdw_tuple_cost '1');
CREATE SERVER shard2s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '127.0.0.1', port '$P2',
  dbname '$DB', extensions 'gpuidx', async_capable 'false', fdw_tuple_cost '1');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1s;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2s;
CREATE TABLE d1 (term_id int, shard int, docs posting_pfor) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE d1_1 PARTITION OF d1 FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name 'whole');
CREATE TABLE d2 (term_id int, shard int, docs posting_pfor) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE d2_1 PARTITION OF d2 FOR VALUES IN (1) SERVER shard1 OPTIONS (table_name 'lower');
CREATE FOREIGN TABLE d2_2 PARTITION OF d2 FOR VALUES IN (2) SERVER shard2 OPTIONS (table_name 'upper');
-- the same two shards reached one after the other (async_capable off)
CREATE TABLE d2s (term_id int, shard int, docs posting_pfor) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE d2s_1 PARTITION OF d2s FOR VALUES IN (1) SERVER shard1s OPTIONS (table_name 'lower');
CREATE FOREIGN TABLE d2s_2 PARTITION OF d2s FOR VALUES IN (2) SERVER shard2s OPTIONS (table_name 'upper');
INSERT INTO d1 SELECT term_id, 1, docs_pfor FROM postings;
INSERT INTO d2
  SELECT term_id, r.shard, posting_slice(docs_pfor, r.lo, r.hi)
  FROM postings, (VALUES (1, 0, $HALF), (2, $HALF, 2147483648)) r(shard, lo, hi)
  WHERE length(posting_slice(docs_pfor, r.lo, r.hi)) > 0;
ALTER DATABASE $DB SET enable_partitionwise_aggregate = on;
EOF
for p in $P1 $P2; do on "$p" -d "$DB" -c "VACUUM ANALYZE" >/dev/null; done
on "$P0" -d "$DB" -c "ANALYZE" >/dev/null

# The query of each configuration, terms as parameter $1 (int[]) and the
# term count as $2; pgbench runs them prepared (generic plans after five
# executions, which still push the aggregate to the shards).
declare -A QSQL
QSQL[single]="SELECT coalesce((SELECT posting_intersect(docs_pfor) FROM postings WHERE term_id = ANY (\$1) HAVING count(*) = \$2), '{}')"
for c in d1 d2 d2s; do
	QSQL[$c]="SELECT coalesce(posting_union(r), '{}') FROM (SELECT posting_intersect(docs) AS r FROM $c WHERE term_id = ANY (\$1) GROUP BY shard HAVING count(*) = \$2) s"
done
CONFIGS="single d1 d2 d2s"
declare -A LABEL=([single]="1 server" [d1]="coordinator + 1 shard" [d2]="coordinator + 2 shards" [d2s]="coordinator + 2 shards, async off")

nq=$(bl_val "$DB" "SELECT count(*) FROM queries")
for c in $CONFIGS; do
	sql=${QSQL[$c]//\$1/q.term_ids}
	sql=${sql//\$2/cardinality(q.term_ids)}
	bad=$(bl_val "$DB" "SELECT count(*) FROM queries q JOIN answers a USING (qid) WHERE cardinality(($sql)) <> a.n")
	[ "$bad" = 0 ] || { echo "$c: $bad answers differ from the generator's"; exit 1; }
done
bl_step "answers of every configuration equal the generator's ($nq queries)"
# the generic plan of each distributed query (what pgbench runs after
# five executions) must push the aggregate to the shards
declare -A PLAN
for c in d1 d2 d2s; do
	PLAN[$c]=$(bl_val "$DB" "SET plan_cache_mode = force_generic_plan; PREPARE p(int[], bigint) AS ${QSQL[$c]}; EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p('{1,2}', 2)")
	n=$(echo "${PLAN[$c]}" | grep -c 'Remote SQL: SELECT public.posting_intersect')
	[ "$n" -ge 1 ] || { echo "$c: the aggregate is not pushed to the shards:"; echo "${PLAN[$c]}"; exit 1; }
done

# run_pgbench CONFIG CLIENTS -> "tps p50 p95 p99" (ms)
run_pgbench() {
	local f=q_$1.sql
	printf '\\set q random(1, %s)\nSELECT term_ids AS t, cardinality(term_ids) AS k FROM queries WHERE qid = :q \\gset\n%s;\n' \
		"$nq" "$(echo "${QSQL[$1]}" | sed 's/\$1/:t/; s/\$2/:k/')" >"$BL_WORK/$f"
	bl_pgbench "$DB" "$f" "$2" "$SECS" "$BL_WORK/$1-$2.out"
}

TSV=$BL_WORK/scaleout.tsv
: >"$TSV"
bl_step "pgbench: $SECS s per run, clients: $CLIENTS"
for n in $CLIENTS; do
	for c in $CONFIGS; do
		r=$(run_pgbench "$c" "$n") || exit 1
		echo -e "$c\t$n\t$r" >>"$TSV"
		bl_step "  ${LABEL[$c]}, $n clients: $r"
	done
done

mkdir -p "$(dirname "$OUT")"
{
	echo "# Scale-out: 1 server, 1 shard, 2 shards"
	echo
	echo "- **date**: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- **command**: \`SCALEOUT_SCALE=$SCALE SCALEOUT_QUERIES=$QUERIES SCALEOUT_TIME=$SECS SCALEOUT_CLIENTS=\"$CLIENTS\" $CMDLINE\`"
	echo "- **gpuidx**: ${GPUIDX_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
	echo "- **machine**: $(lscpu | sed -n 's/^Model name: *//p' | head -n 1), $NCPU CPUs, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM; $(pg_config --version); all servers on this machine, shards reached over TCP loopback"
	echo "- **collection**: $(grep -E '^(ndocs|postings|queries|mean_shortest)=' "$BL_WORK/gen/stats.txt" | sed 's/\t.*//' | tr '\n' ' ')"
	echo "- **query**: one random query of the log per transaction (pgbench -M prepared, a lookup of its terms then the intersection); codec posting_pfor; every configuration's answers checked against the generator's first"
	echo
	echo "| clients | configuration | q/s | p50 ms | p95 ms | p99 ms | q/s vs 1 server |"
	echo "|---:|---|---:|---:|---:|---:|---:|"
	awk -F'\t' -v l1="${LABEL[single]}" -v l2="${LABEL[d1]}" -v l3="${LABEL[d2]}" -v l4="${LABEL[d2s]}" '
		BEGIN { lab["single"] = l1; lab["d1"] = l2; lab["d2"] = l3; lab["d2s"] = l4 }
		{ split($3, r, " ") }
		$1 == "single" { base[$2] = r[1] }
		{ printf "| %s | %s | %s | %s | %s | %s | %.2f |\n", $2, lab[$1], r[1], r[2], r[3], r[4], r[1] / base[$2] }' "$TSV"
	echo
	echo "Generic plan of the 2-shard query (what the prepared statements run):"
	echo
	echo '```'
	echo "${PLAN[d2]}"
	echo '```'
} >"$OUT"
bl_step "wrote $OUT"
cat "$OUT"
