# 013_group_batch.pl - a GROUP BY of many intersection queries reaches the
# executor as one batch whatever plan PostgreSQL would have picked (the
# planner hook of src/exec_plan.c): groupings it would sort (queries read
# in qid order through an index; the finalize step of a parallel plan) are
# hashed, each statement one request and one batch, with the backend's
# answers; enable_hashagg = off keeps the sorted plan, one batch per group
# (the exception the README names), and a hash table that spills sends a
# batch per part; a session without the executor keeps the planner's
# choice; an aggregate with ORDER BY inside and grouping sets keep theirs
# and answer right.  Then the README's examples, taken out of README.md
# (sql/readme_examples.awk), run with the library preloaded, and its
# executor examples print what the README says, counters included.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

my $node = gpx_node('grp', conf => qq{
gpuidx.device = cpu
gpuidx.batch_threshold = 100000000
gpuidx.batch_max_wait = 5000
work_mem = 64MB
});
gpx_data($node, nterms => 120, maxlen => 20000, nqueries => 400, maxk => 4);
$node->safe_psql('postgres', q{
	CREATE INDEX ON queries (qid);
	CREATE INDEX ON p_pfor (term);
	ANALYZE});
# the queries whose every list is non-empty go to the executor
my $nsent = $node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT qid FROM queries JOIN lists USING (term)
	GROUP BY qid HAVING min(cardinality(arr)) > 0) s});

# plan_of(SQL, SETUP): the EXPLAIN (COSTS OFF) text
sub plan_of
{
	my ($sql, $setup) = @_;
	return $node->safe_psql('postgres', ($setup // '') . ";\nEXPLAIN (COSTS OFF) $sql");
}

# batch_of(SQL, SETUP): run SQL after a reset; "requests batches queries"
sub batch_of
{
	my ($sql, $setup) = @_;
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	$node->safe_psql('postgres', ($setup // '') . ";\nCREATE TEMP TABLE _r AS $sql");
	my $st = gpx_stats($node);
	return "$st->{requests} $st->{batches} $st->{queries}";
}

# --- a grouping PostgreSQL sorts: queries in qid order by an index -------
my $sorted = q{SELECT q.qid, posting_intersect(p.docs) AS res
	FROM queries q JOIN p_pfor p USING (term) GROUP BY q.qid ORDER BY q.qid};
my $presorted = 'SET enable_seqscan = off';
like(plan_of($sorted, "$presorted; SET gpuidx.use_executor = off"), qr/^\s*GroupAggregate/m,
	'without the executor the planner sorts this grouping');
my $plan = plan_of($sorted, $presorted);
like($plan, qr/^\s*(->\s+)?HashAggregate/m, 'with the executor it is hashed');
unlike($plan, qr/GroupAggregate/, 'no sorted aggregate left');
is(batch_of($sorted, $presorted), "1 1 $nsent", "one request, one batch of $nsent queries");
is(gpx_check_queries($node, $sorted, $presorted), '0', 'hashed plan: the backend\'s answers');

# the nterms form and the count aggregate are planned the same way
my $nterms = q{SELECT q.qid, posting_intersect_count(p.docs, q.k) AS res
	FROM (SELECT qid, term, count(*) OVER (PARTITION BY qid)::int AS k FROM queries) q
	JOIN p_pfor p USING (term) GROUP BY q.qid ORDER BY q.qid};
like(plan_of($nterms, $presorted), qr/HashAggregate/, 'nterms count form: hashed');
is(batch_of($nterms, $presorted), "1 1 $nsent", 'nterms count form: one batch');
is(gpx_check_queries($node, $nterms, $presorted), '0', 'nterms count form: right answers');

# --- the finalize step of a parallel plan --------------------------------
# (5000 groups: at a small work_mem PostgreSQL expects a hash table to
# spill, and sorts)
$node->safe_psql('postgres', q{
	CREATE TABLE par AS SELECT g % 5000 AS grp,
	  posting_lrc(ARRAY[5, 1000 + g % 7, 3000 + g % 13, 4000]) AS docs
	FROM generate_series(1, 40000) g;
	ALTER TABLE par SET (parallel_workers = 2);
	ANALYZE par});
my $par = q{SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;
	SET work_mem = '64kB'};
my $pq = 'SELECT grp AS qid, posting_intersect(docs) AS res FROM par GROUP BY grp';
like(plan_of($pq, "$par; SET gpuidx.use_executor = off"), qr/Finalize GroupAggregate/,
	'without the executor the parallel plan finalizes sorted');
$plan = plan_of($pq, $par);
like($plan, qr/Finalize HashAggregate/, 'with the executor the finalize step is hashed');
unlike($plan, qr/Gather Merge/, '... gathered without merging');
# where the hash table outgrows work_mem, each part read back is a batch
my ($req) = split / /, batch_of($pq, $par);
ok($req > 1 && $req < 5000, "a hash table that spills: $req batches for 5000 groups");
# that plan, kept as a generic plan, run where the hash table fits
# (EXPLAIN EXECUTE makes it at 64kB)
my $prep = qq{$par; SET plan_cache_mode = force_generic_plan; PREPARE p AS $pq;
\\o /dev/null
EXPLAIN (COSTS OFF) EXECUTE p;
\\o
SET work_mem = '64MB'};
like(plan_of('EXECUTE p', $prep), qr/Finalize HashAggregate/, 'the plan kept is hashed');
is(batch_of('EXECUTE p', $prep), '1 1 5000', 'parallel: one batch of the 5000 groups');
is(gpx_check_queries($node, 'EXECUTE p', $prep), '0', 'parallel: the backend\'s answers');

# --- the exceptions: hashing disabled, and no executor -------------------
like(plan_of($sorted, 'SET enable_hashagg = off'), qr/^\s*GroupAggregate/m,
	'enable_hashagg = off: the sorted plan stays');
is(batch_of($sorted, 'SET enable_hashagg = off'), "$nsent $nsent $nsent",
	'enable_hashagg = off: one batch per group, as the README says');
is(plan_of($sorted, "$presorted; SET gpuidx.use_executor = off"),
	plan_of($sorted, "$presorted; SET gpuidx.use_executor = off; SET enable_hashagg = off"),
	'gpuidx.use_executor = off: the planner\'s own choice');
# an aggregate with ORDER BY inside cannot be hashed; grouping sets keep
# PostgreSQL's plan; both still answer right
my $ordered = q{SELECT q.qid, posting_intersect(p.docs ORDER BY p.term) AS res
	FROM queries q JOIN p_pfor p USING (term) GROUP BY q.qid};
like(plan_of($ordered), qr/GroupAggregate/, 'ORDER BY inside the aggregate: sorted plan');
is(gpx_check_queries($node, $ordered), '0', 'ORDER BY inside the aggregate: right answers');
my $sets = q{SELECT coalesce(q.qid, 0) AS qid, posting_intersect_count(p.docs) AS res
	FROM queries q JOIN p_pfor p USING (term) GROUP BY GROUPING SETS ((q.qid), ())};
is(gpx_check_queries($node, $sets, $presorted), '0', 'grouping sets: right answers');

# --- the README's examples, with the library preloaded --------------------
my $awk = "$FindBin::RealBin/../../sql/readme_examples.awk";
my $readme = "$FindBin::RealBin/../../README.md";
my $dir = PostgreSQL::Test::Utils::tempdir;
system("awk -v mode=all -f '$awk' '$readme' > '$dir/all.sql'") == 0 or die "awk failed";
system("awk -v mode=executor -f '$awk' '$readme' > '$dir/exec.sql'") == 0 or die "awk failed";
$node->safe_psql('postgres', 'CREATE DATABASE readme');
my ($rc, $out, $err) = $node->psql('readme', undef,
	extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', "$dir/all.sql" ]);
is($rc, 0, 'every README example runs, in order, in an empty database');
is($err, '', '... without an error or a warning');
($rc, $out, $err) = $node->psql('readme', undef,
	extra_params => [ '-v', 'ON_ERROR_STOP=1', '-f', "$dir/exec.sql" ]);
is($rc, 0, 'the README\'s executor examples run again');
like($out, qr/\At\|running\|cpu: \d+ threads?\|gpuidx\.device is cpu\n/,
	'README: gpuidx_info() shows the executor running');
like($out, qr/\n\n1\|\{1,3,5,6\}\n2\|\{1,3\}\n3\|\{\}\n1\|1\|2\z/,
	'README: the GROUP BY answers, and the counters 1 1 2 (one request, one batch)');

done_testing();
