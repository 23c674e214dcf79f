# 001_executor.pl - the executor path with gpuidx preloaded: the worker
# runs, random queries of every type give the in-backend answer (and an
# independent pure-SQL answer), a GROUP BY of 1000 groups and the batch
# function each reach the executor as one batch, parallel and window
# aggregation, device = auto, the list cache, permissions, and the
# extension working without preloading.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

my $node = gpx_node('exec', conf => qq{
gpuidx.device = cpu
gpuidx.executor_threads = 2
gpuidx.batch_threshold = 100000000
gpuidx.batch_max_wait = 5000
});

# --- the worker --------------------------------------------------------
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuidx executor'"),
	'1', 'executor visible in pg_stat_activity');
my $info = gpx_info($node);
is($info->{executor_state}, 'running', 'executor running');
like($info->{device_active}, qr/^cpu: \d+ threads?$/, 'batches run on cpu threads');
is($info->{device_note}, 'gpuidx.device is cpu', 'device note says why');
ok($info->{arena_size} > 0 && $info->{slots} > 0, 'arena and slots reserved');

gpx_data($node, nterms => 120, maxlen => 40000, nqueries => 1000, maxk => 5);
my $ngroups = $node->safe_psql('postgres', 'SELECT count(DISTINCT qid) FROM queries');
# queries whose every list is non-empty go to the executor
my $nsent = $node->safe_psql('postgres', qq{
	SELECT count(*) FROM (SELECT qid FROM queries JOIN lists USING (term)
	GROUP BY qid HAVING min(cardinality(arr)) > 0) s});

# --- random queries, every type, against the backend ---------------------
for my $t (qw(pfor lrc qs))
{
	is( gpx_check_queries($node, qq{
			SELECT qid, posting_intersect(docs) AS res
			FROM queries JOIN p_$t USING (term) GROUP BY qid}),
		'0', "posting_intersect(posting_$t): executor = backend on $ngroups queries");
	is( gpx_check_queries($node, qq{
			SELECT qid, posting_intersect_count(docs) AS res
			FROM queries JOIN p_$t USING (term) GROUP BY qid}),
		'0', "posting_intersect_count(posting_$t): executor = backend");
}

# --- an independent answer: intersection of plain arrays in SQL ----------
is( $node->safe_psql('postgres', q{
		WITH q AS (SELECT qid, count(*) AS k FROM queries JOIN lists USING (term)
		           WHERE qid <= 150 GROUP BY qid),
		     naive AS (SELECT q.qid, ARRAY(
		         SELECT x FROM queries q2 JOIN lists l USING (term), unnest(l.arr) x
		         WHERE q2.qid = q.qid GROUP BY x HAVING count(*) = q.k ORDER BY x) AS res
		       FROM q),
		     got AS (SELECT qid, posting_intersect(docs) AS res
		       FROM queries JOIN p_qs USING (term) WHERE qid <= 150 GROUP BY qid)
		SELECT count(*) FROM naive FULL JOIN got USING (qid)
		WHERE naive.res IS DISTINCT FROM got.res}),
	'0', 'executor answers equal a pure-SQL intersection of the arrays');

# --- one statement, one batch -------------------------------------------
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
like( $node->safe_psql('postgres', q{
		EXPLAIN (COSTS OFF) SELECT qid, posting_intersect(docs)
		FROM queries JOIN p_pfor USING (term) GROUP BY qid}),
	qr/HashAggregate/, 'GROUP BY over the queries is hashed');
# (enough work_mem that the hash table does not spill: each spilled pass
# would be a batch of its own)
$node->safe_psql('postgres', q{
	SET work_mem = '64MB';
	CREATE TEMP TABLE r AS SELECT qid, posting_intersect(docs) FROM queries
	JOIN p_pfor USING (term) GROUP BY qid});
my $st = gpx_stats($node);
is($st->{requests}, 1, "GROUP BY of $ngroups groups: one request");
is($st->{batches}, 1, 'GROUP BY of many groups: one batch');
is($st->{queries}, $nsent, "GROUP BY: $nsent intersections in that batch");

$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
is( gpx_check_queries($node, q{
		SELECT b.qid, b.docs AS res
		FROM (SELECT array_agg(qid) AS q, array_agg(docs) AS l
		      FROM queries JOIN p_lrc USING (term)) s,
		     posting_intersect_batch(s.q, s.l) b}),
	'0', 'posting_intersect_batch = backend');
$st = gpx_stats($node);
is($st->{requests}, 1, 'posting_intersect_batch: one request');
is($st->{batches}, 1, 'posting_intersect_batch: one batch');

# --- the executor loop's time by phase ----------------------------------------
my %prof = map { my @f = split /\|/; ($f[0] => { calls => $f[1], ms => $f[2] }) }
	split /\n/, $node->safe_psql('postgres',
		'SELECT phase, calls, time_ms FROM gpuidx_executor_profile()');
is( join(',', sort keys %prof), 'build,cpu,finish,other,poll,rank,submit,take,union,wait',
	'gpuidx_executor_profile: one row per phase');
ok($prof{$_}{calls} >= 1, "profile: the batch entered phase $_")
	for qw(take build submit finish);
ok($prof{build}{ms} > 0 && $prof{submit}{ms} > 0, 'profile: build and submit took time');
is( $node->safe_psql('postgres',
		'SELECT round(sum(share)::numeric, 6) FROM gpuidx_executor_profile()'),
	'1.000000', 'profile: the shares add up to the whole');
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
is( $node->safe_psql('postgres',
		"SELECT calls FROM gpuidx_executor_profile() WHERE phase = 'build'"),
	'0', 'gpuidx_stats_reset zeroes the profile');

# batch function semantics: grouping by qid, NULL lists, errors
is( $node->safe_psql('postgres', q{
		SELECT string_agg(qid || ':' || coalesce(docs::text, 'null'), ' ' ORDER BY qid)
		FROM posting_intersect_batch(ARRAY[7, 3, 7, 3, 9, 5]::bigint[],
		     ARRAY['{1,2,3}', '{4,5}', '{2,3,4}', '{5,6}', NULL, '{}']::posting_pfor[])}),
	'3:{5} 5:{} 7:{2,3} 9:null', 'posting_intersect_batch groups by qid');
my ($rc, $out, $err) = $node->psql('postgres',
	q{SELECT * FROM posting_intersect_batch(ARRAY[1]::bigint[], ARRAY['{1}', '{2}']::posting_qs[])});
like($err, qr/needs as many query ids as lists/, 'batch: mismatched arrays rejected');
($rc, $out, $err) = $node->psql('postgres',
	q{SELECT * FROM posting_intersect_batch(ARRAY[NULL]::bigint[], ARRAY['{1}']::posting_qs[])});
like($err, qr/must not be null/, 'batch: NULL query id rejected');

# --- aggregate edge cases through the executor ---------------------------
is( $node->safe_psql('postgres', q{
		SELECT concat_ws(' ',
		  (SELECT coalesce(posting_intersect(docs)::text, 'null') FROM p_pfor WHERE false),
		  (SELECT coalesce(posting_intersect(NULL::posting_pfor)::text, 'null')),
		  (SELECT posting_intersect(d)::text FROM (VALUES ('{1,5,9}'::posting_lrc), (NULL)) v(d)),
		  (SELECT posting_intersect(d)::text FROM (VALUES ('{1,5,9}'::posting_qs), ('{}')) v(d)),
		  (SELECT posting_intersect_count(d)::text FROM (VALUES ('{1,5,9}'::posting_qs), ('{5,9,10}')) v(d)),
		  (SELECT posting_intersect(d)::text FROM (VALUES ('{0,2147483647}'::posting_pfor), ('{0,7,2147483647}')) v(d)))}),
	'null null {1,5,9} {} 2 {0,2147483647}', 'NULL, no rows, one list, empty list, extremes');
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM (SELECT term, posting_intersect(docs) AS r FROM p_pfor GROUP BY term) x
		JOIN p_pfor p USING (term) WHERE x.r IS DISTINCT FROM docids(p.docs)}),
	'0', 'one list per group gives its docIDs');

# --- parallel aggregation ------------------------------------------------
$node->safe_psql('postgres', q{
	CREATE TABLE par AS SELECT g AS id,
	  posting_lrc(ARRAY[5, 1000, 7 + g % 11, 3000 + g % 13]) AS docs
	FROM generate_series(1, 20000) g;
	ANALYZE par});
my $par = q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0.1;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
};
like( $node->safe_psql('postgres', $par . q{
		EXPLAIN (COSTS OFF) SELECT posting_intersect(docs) FROM par}),
	qr/Partial Aggregate/, 'parallel plan with partial aggregation');
is( gpx_check_queries($node, q{
		SELECT 1 AS qid, posting_intersect(docs) AS res FROM par}, $par),
	'0', 'parallel aggregation (combine, serialize) = backend');
is( $node->safe_psql('postgres', $par . q{
		SELECT posting_intersect(docs)::text || posting_intersect_count(docs) FROM par}),
	'{5,1000}2', 'parallel aggregation answer');

# --- window use: the state grows after final calls -----------------------
is( gpx_check_queries($node, q{
		SELECT term AS qid, posting_intersect(docs) OVER (ORDER BY term
		  ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS res FROM p_lrc WHERE term > 110}),
	'0', 'window aggregate = backend');

# --- the list cache ------------------------------------------------------
# a list is kept the second time it comes, and sent by hash from then on
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
for (1 .. 3)
{
	$node->safe_psql('postgres', q{
		SELECT count(*) FROM (SELECT qid, posting_intersect(docs) FROM queries
		JOIN p_qs USING (term) GROUP BY qid) s WHERE posting_intersect IS NOT NULL});
}
$st = gpx_stats($node);
ok($st->{cache_hits} > 0, "big lists sent by hash the third time ($st->{cache_hits} hits)");
ok(gpx_info($node)->{cache_entries} > 0, 'executor caches lists');

# --- gpuidx.device = auto ------------------------------------------------
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
is( $node->safe_psql('postgres', q{
		SET gpuidx.device = auto;
		SELECT posting_intersect(d)::text FROM (VALUES ('{1,5,9}'::posting_pfor), ('{5,9,10}')) v(d)}),
	'{5,9}', 'auto: small query answered');
$st = gpx_stats($node);
is($st->{backend_queries}, 1, 'auto: small query kept in the backend');
is($st->{queries}, 0, 'auto: nothing sent to the executor');

# auto sends a big set of queries to the executor's threads
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
$node->safe_psql('postgres', q{
	SET gpuidx.device = auto; SET work_mem = '64MB';
	CREATE TEMP TABLE r2 AS SELECT qid, posting_intersect(docs) FROM queries
	JOIN p_pfor USING (term) GROUP BY qid});
$st = gpx_stats($node);
is($st->{queries}, $nsent, 'auto: a GROUP BY of many queries goes to the executor');

# --- gpuidx.device = gpu without a GPU: the executor says why, runs on cpu
$node->safe_psql('postgres', "ALTER SYSTEM SET gpuidx.device = gpu; SELECT pg_reload_conf()");
ok($node->poll_query_until('postgres',
	"SELECT device_note LIKE 'no gpu: %' FROM gpuidx_info()"),
	'device = gpu on a machine without one: the reason is recorded');
like(gpx_info($node)->{device_active}, qr/^cpu: /, 'device = gpu without one: cpu threads run batches');
SKIP:
{
	# no kernel driver and no libcuda: the note must say so in those words
	skip 'an NVIDIA driver is installed', 1
	  if -e '/proc/driver/nvidia/version' || `ldconfig -p 2>/dev/null` =~ /\blibcuda\.so\.1\b/;
	like(gpx_info($node)->{device_note},
		qr/^no gpu: (no NVIDIA driver found|gpuidx was built without nvcc)$/,
		'device = gpu without a driver: the note says so plainly');
}
is( gpx_check_queries($node, q{
		SELECT qid, posting_intersect(docs) AS res
		FROM queries JOIN p_qs USING (term) WHERE qid < 100 GROUP BY qid},
		'SET gpuidx.device = gpu'),
	'0', 'device = gpu without one: right answers');
$node->safe_psql('postgres', "ALTER SYSTEM RESET gpuidx.device; SELECT pg_reload_conf()");
ok($node->poll_query_until('postgres',
	"SELECT device_note = 'gpuidx.device is cpu' FROM gpuidx_info()"), 'back to device = cpu');

# --- permissions -----------------------------------------------------------
$node->safe_psql('postgres', 'CREATE ROLE plain LOGIN');
($rc, $out, $err) = $node->psql('postgres', "SELECT gpuidx_inject_fault('error')",
	extra_params => [ '-U', 'plain' ]);
like($err, qr/permission denied/, 'fault injection is not for everybody');
($rc, $out, $err) = $node->psql('postgres', "SET gpuidx.device = gpu",
	extra_params => [ '-U', 'plain' ]);
like($err, qr/permission denied/, 'gpuidx.device is superuser-only');
($rc, $out, $err) = $node->psql('postgres', "SELECT gpuidx_stats_reset()",
	extra_params => [ '-U', 'plain' ]);
like($err, qr/permission denied/, 'stats reset is not for everybody');
is( $node->safe_psql('postgres', "SELECT count(*) FROM gpuidx_stats",
		extra_params => [ '-U', 'plain' ]), '1', 'everybody may read the stats');
ok(gpx_wait_slots_free($node), 'no request slot left in use');

$node->stop;

# --- without preloading ------------------------------------------------------
my $plain = gpx_node('plain', preload => 0);
is( $plain->safe_psql('postgres', q{
		SELECT posting_intersect(d)::text FROM (VALUES ('{1,5,9}'::posting_pfor), ('{5,9,10}')) v(d)}),
	'{5,9}', 'without preloading posting_intersect is computed in the backend');
is( $plain->safe_psql('postgres', 'SELECT preloaded::text || executor_state FROM gpuidx_info()'),
	'falsenot preloaded', 'gpuidx_info says it is not preloaded');
is($plain->safe_psql('postgres', 'SELECT queries FROM gpuidx_stats'), '0', 'stats are zero');
is($plain->safe_psql('postgres', 'SELECT count(*) FROM gpuidx_executor_profile()'), '0',
	'no executor profile without preloading');
is( $plain->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'gpuidx executor'"),
	'0', 'no executor without preloading');
$plain->stop;

done_testing();
