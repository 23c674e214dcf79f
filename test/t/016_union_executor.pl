# 016_union_executor.pl - unions through the executor (issue #18).
# posting_union, posting_union_count and posting_union_agg, over a GROUP
# BY of many queries (one statement: the groups go as one set of union
# requests) and one query a statement, for the three types, with groups of
# one list, empty lists, NULL rows, repeated docIDs across lists and terms
# with no row: the executor's answers (gpuidx.device = cpu; GPX_TEST_DEVICE
# =gpu adds gpuidx.device = gpu on the GPU machine) must equal the
# backend's (gpuidx.use_executor = off), which must equal a naive SQL
# union of the plain arrays.  gpuidx_stats must count the union queries,
# no fallback; the planner hook hashes a sorted grouping of unions, one
# batch.  Faults, as 003_faults.pl for intersections: statement_timeout,
# cancel and backend exit while queued, the executor terminated while a
# union is queued and failing in a batch, a statement_timeout while the
# executor runs it (the slot abandoned), gpuidx.executor_timeout, a full
# arena, a request larger than the arena, executor_fallback = off, and
# the GPU: none (device = gpu on a machine without one) or out of memory.
# Every time the right answer or a clear error, and nothing leaked.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use GpxTap;

my $gpu = ($ENV{GPX_TEST_DEVICE} // '') eq 'gpu';
# an 8 MB arena: requests of 2 MB, a big union holds more than half of it
my $node = gpx_node('unionexec', conf => qq{
gpuidx.arena_size = 8MB
gpuidx.max_requests = 64
gpuidx.batch_threshold = 100000000
gpuidx.batch_max_wait = 2000
});
gpx_data($node, nterms => 60, maxlen => 5000, universe => 200000, nqueries => 150, maxk => 6);
$node->safe_psql('postgres', q{
	SELECT setseed(0.18);
	-- an empty list, a NULL row, and a list holding the extremes
	INSERT INTO lists VALUES (900, '{}'), (901, '{0,7,2147483647}');
	INSERT INTO p_pfor SELECT term, posting_pfor(arr) FROM lists WHERE term >= 900;
	INSERT INTO p_lrc SELECT term, posting_lrc(arr) FROM lists WHERE term >= 900;
	INSERT INTO p_qs SELECT term, posting_qs(arr) FROM lists WHERE term >= 900;
	INSERT INTO p_pfor VALUES (902, NULL);
	INSERT INTO p_lrc VALUES (902, NULL);
	INSERT INTO p_qs VALUES (902, NULL);
	INSERT INTO queries SELECT q, t FROM generate_series(1, 150, 7) q, (VALUES (900), (901), (902)) v(t)
	  ON CONFLICT DO NOTHING;
	-- a query of one list, one of only the empty list and the NULL row
	INSERT INTO queries VALUES (1001, 3), (1002, 900), (1002, 902), (1003, 901), (1003, 61);
	-- big lists for the arena: 500k docIDs (a request of more than half
	-- the arena), 1.5M (larger than the arena)
	INSERT INTO p_pfor SELECT 2000 + t, posting_pfor(ARRAY(
	  SELECT DISTINCT (random() * 9999999 + 0 * t)::int FROM generate_series(1, 520000)))
	FROM generate_series(1, 3) t;
	INSERT INTO p_pfor SELECT 3000 + t, posting_pfor(ARRAY(
	  SELECT DISTINCT (random() * 99999999 + 0 * t)::int FROM generate_series(1, 1500000)))
	FROM generate_series(1, 2) t;
	CREATE INDEX ON queries (qid);
	CREATE INDEX ON p_lrc (term);
	ANALYZE;
});

# the union queries that go to the executor: two non-empty lists or more
my $nsent = $node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT qid FROM queries JOIN lists USING (term)
	WHERE cardinality(arr) > 0 GROUP BY qid HAVING count(*) >= 2) s});
ok($nsent > 100, "most queries have two lists or more ($nsent)");

# the statements: (qid, res) for every type
sub grouped
{
	my ($typ, $what) = @_;
	my %res = (
		docs => 'posting_union(p.docs)',
		count => 'posting_union_count(p.docs)',
		agg => 'posting_union_agg(p.docs)::text',
		both => "posting_union(p.docs)::text || '/' || posting_union_count(p.docs)",
		mixed => "posting_union_count(p.docs) || '/' || md5(posting_union(p.docs::text::posting_$typ)::text)");
	return "SELECT q.qid, $res{$what} AS res FROM queries q JOIN p_$typ p USING (term) GROUP BY q.qid";
}

# one query a statement, for a few qids
sub single
{
	my ($typ, $qid) = @_;
	return "SELECT $qid AS qid, posting_union(docs) AS res FROM p_$typ WHERE term IN "
	  . "(SELECT term FROM queries WHERE qid = $qid)";
}

# the naive union of the plain arrays (term 902 has a NULL list only, no array)
my $naive = q{
	SELECT q.qid, coalesce((SELECT array_agg(d ORDER BY d) FROM (SELECT DISTINCT unnest(l2.arr) d
	    FROM queries q2 JOIN lists l2 USING (term) WHERE q2.qid = q.qid) s), '{}') AS res
	FROM queries q JOIN lists l USING (term) GROUP BY q.qid};

sub digest
{
	my ($sql, $setup) = @_;
	return $node->safe_psql('postgres', ($setup // '') . ";\n"
		  . "SELECT md5(string_agg(qid || ':' || coalesce(res::text, 'null'), ' ' ORDER BY qid)) FROM ($sql) x");
}

sub stats { return gpx_stats($node); }

# --- the backend equals a naive union ----------------------------------------
my $want = digest($naive);
for my $t (qw(pfor lrc qs))
{
	is(digest(grouped($t, 'docs'), 'SET gpuidx.use_executor = off'), $want,
		"$t: posting_union in the backend equals the naive union of the arrays");
}
is($node->safe_psql('postgres', 'SET gpuidx.use_executor = off; '
		  . 'SELECT posting_union(docs)::text FROM p_qs WHERE term IN (900, 902, 901)'),
	'{0,7,2147483647}', 'the extremes, an empty list and a NULL row');

# --- the executor equals the backend -----------------------------------------
my @devs = ('cpu');
push @devs, 'gpu' if $gpu;
for my $dev (@devs)
{
	my $set = "SET gpuidx.device = $dev; SET gpuidx.executor_fallback = off";
	my $calls = 0;
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	for my $t (qw(pfor lrc qs))
	{
		for my $w (qw(docs count agg both mixed))
		{
			is(gpx_check_queries($node, grouped($t, $w), $set), '0',
				"$dev: $t GROUP BY of $w unions: the executor equals the backend");
			$calls++;
		}
		for my $qid (1, 8, 1001, 1002, 1003)
		{
			is(gpx_check_queries($node, single($t, $qid), $set), '0',
				"$dev: $t union of query $qid alone: the executor equals the backend");
		}
	}
	my $st = stats();
	ok($st->{union_queries} >= $calls * $nsent,
		"$dev: the grouped unions went to the executor ($st->{union_queries} union queries)");
	is($st->{union_queries}, $st->{queries}, "$dev: every query it computed was a union");
	is($st->{fallbacks}, 0, "$dev: no fallback");
	is($st->{backend_queries}, 0, "$dev: nothing kept in the backend");
	if ($dev eq 'gpu')
	{
		is($st->{gpu_batches}, $st->{batches}, "gpu: every batch ran on the gpu ($st->{gpu_batches})");
		is($st->{gpu_failures}, 0, 'gpu: no gpu failure');
	}
}

# --- one statement, one batch; a sorted grouping is hashed -------------------
{
	my $dev = $gpu ? 'gpu' : 'cpu';
	my $sorted = grouped('lrc', 'count') . ' ORDER BY q.qid';
	my $presorted = "SET gpuidx.device = $dev; SET enable_seqscan = off";
	like($node->safe_psql('postgres', "$presorted; SET gpuidx.use_executor = off;\n"
			  . "EXPLAIN (COSTS OFF) $sorted"), qr/GroupAggregate/,
		'without the executor the planner sorts this union grouping');
	my $plan = $node->safe_psql('postgres', "$presorted;\nEXPLAIN (COSTS OFF) $sorted");
	like($plan, qr/HashAggregate/, 'with the executor it is hashed');
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	$node->safe_psql('postgres', "$presorted;\nCREATE TEMP TABLE _g AS $sorted");
	my $st = stats();
	is("$st->{batches} $st->{union_queries}", "1 $nsent",
		"a GROUP BY of $nsent union counts: one batch of them all");
}

# --- auto: whatever it routes, the answers are the backend's ------------------
is(gpx_check_queries($node, grouped('pfor', 'both'), 'SET gpuidx.device = auto'), '0',
	'auto: the answers equal the backend');

# --- the GPU: none, or out of memory -----------------------------------------
if (!$gpu)
{
	my ($rc, $out, $err) = $node->psql('postgres',
		'SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off; ' . grouped('qs', 'count'));
	like($err, qr/gpuidx\.device is gpu, but the executor has no usable gpu/,
		'no gpu, device = gpu, executor_fallback = off: a clear error');
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	is(gpx_check_queries($node, grouped('qs', 'docs'), 'SET gpuidx.device = gpu'), '0',
		'no gpu, device = gpu: the cpu threads answer right');
	ok(stats()->{gpu_unavailable} >= $nsent, 'no gpu: counted in gpu_unavailable');
}
else
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('gpu_oom')");
	is(gpx_check_queries($node, grouped('pfor', 'docs'),
			'SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off'), '0',
		'gpu out of memory: the rerun on the cpu threads equals the backend');
	ok(stats()->{gpu_failures} >= 1, 'gpu out of memory: counted');
}

# --- faults ------------------------------------------------------------------
my $dev = $gpu ? 'gpu' : 'cpu';
my $q_small = "SET gpuidx.device = $dev; SELECT posting_union(docs)::text FROM p_lrc WHERE term IN (3, 5, 901)";
my $q_group = "SET gpuidx.device = $dev; SELECT md5(string_agg(res::text, ',' ORDER BY qid)) FROM ("
  . grouped('pfor', 'docs') . ") x";
my $q_big = "SET gpuidx.device = $dev; SELECT md5(posting_union(docs)::text) FROM p_pfor WHERE term IN (2001, 2002)";
my $q_big2 = "SET gpuidx.device = $dev; SELECT md5(posting_union(docs)::text) FROM p_pfor WHERE term IN (2002, 2003)";
my $q_huge = "SET gpuidx.device = $dev; SELECT md5(posting_union(docs)::text) FROM p_pfor WHERE term IN (3001, 3002)";
my %ref;
for my $q ($q_small, $q_group, $q_big, $q_big2, $q_huge)
{
	$ref{$q} = $node->safe_psql('postgres', "SET gpuidx.use_executor = off; $q");
}
like($ref{$q_small}, qr/^\{0,7,.*,2147483647\}$/, 'the small union has its docIDs');

my ($rc, $out, $err, $bg, $t0, $pid, $fb);

# statement_timeout while queued
gpx_hold($node, 1);
$t0 = time;
($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '300ms'; $q_group");
like($err, qr/canceling statement due to statement timeout/, 'statement_timeout while the unions are queued');
ok(time - $t0 < 5, 'the timeout was not delayed by the executor');
ok(gpx_wait_slots_free($node), 'statement_timeout: slots and arena freed');

# cancel while queued
gpx_hold($node, 1);
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a union waits for the executor');
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
($rc, $out, $err) = gpx_bg_finish($bg);
like($err, qr/canceling statement due to user request/, 'cancel of a queued union');
ok(gpx_wait_slots_free($node), 'cancel: slot and arena freed');

# backend exit while queued
gpx_hold($node, 1);
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a union waits again');
$node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
($rc, $out, $err) = gpx_bg_finish($bg);
like($err, qr/terminating connection/, 'pg_terminate_backend while a union is queued');
ok(gpx_wait_slots_free($node), 'backend exit: slot and arena freed');

# the executor terminated while unions are queued: the backend answers
gpx_hold($node, 1);
$pid = gpx_executor_pid($node);
$fb = stats()->{fallback_executor_down};
$bg = gpx_bg($node, "$q_group;");
ok(gpx_wait_waiting($node, 1), 'a GROUP BY of unions waits for the executor');
$t0 = time;
kill 'TERM', $pid;
($rc, $out, $err) = gpx_bg_finish($bg);
is($rc, 0, 'executor terminated: the unions succeed') or diag($err);
is($out, "$ref{$q_group}\n", 'executor terminated: the backend computed the right answers');
ok(time - $t0 < 8, 'executor terminated: no wait for the hold to end');
ok(stats()->{fallback_executor_down} > $fb, 'executor terminated: counted as a fallback');
ok($node->poll_query_until('postgres',
	"SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()"),
	'the executor came back');
ok(gpx_wait_slots_free($node), 'executor terminated: nothing leaked');
gpx_hold($node, 0);
is($node->safe_psql('postgres', $q_group), $ref{$q_group}, 'the new executor answers right');

# the executor fails inside the batch
$pid = gpx_executor_pid($node);
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('error')");
is($node->safe_psql('postgres', $q_small), $ref{$q_small},
	'executor error during a union batch: right answer (from the backend)');
ok($node->poll_query_until('postgres',
	"SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()"),
	'executor error: the executor restarted');
ok(gpx_wait_slots_free($node), 'executor error: nothing leaked');

# statement_timeout while the executor runs the batch (the slot is ABANDONED)
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 2500)");
($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '400ms'; $q_group");
like($err, qr/statement timeout/, 'statement_timeout while the union batch runs');
ok(gpx_wait_slots_free($node), 'the executor frees the abandoned union requests');
is($node->safe_psql('postgres', $q_group), $ref{$q_group}, 'after the abandoned batch: right answers');

# gpuidx.executor_timeout
$fb = stats()->{fallback_timeout};
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 2500)");
$t0 = time;
is($node->safe_psql('postgres', "SET gpuidx.executor_timeout = 300; $q_small"), $ref{$q_small},
	'executor_timeout: the right union from the backend');
ok(time - $t0 < 2.4, 'executor_timeout: no wait for the stalled batch');
ok(stats()->{fallback_timeout} > $fb, 'executor_timeout: counted');
ok(gpx_wait_slots_free($node), 'executor_timeout: nothing leaked');

# executor_fallback = off: a clear error
gpx_hold($node, 1);
($rc, $out, $err) = $node->psql('postgres',
	"SET gpuidx.executor_fallback = off; SET gpuidx.executor_timeout = 300; $q_small");
like($err, qr/could not serve the union/, 'executor_fallback = off: a clear error');
like($err, qr/did not answer within gpuidx.executor_timeout/, 'executor_fallback = off: the reason');
gpx_hold($node, 0);
ok(gpx_wait_slots_free($node), 'executor_fallback = off: nothing leaked');

# a full arena: a big union stalled in the executor holds most of it (the
# stall outlasts the checks below by far, on a slow machine too; the big
# union waits for it)
$fb = stats()->{fallback_arena_full};
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 10000)");
$bg = gpx_bg($node, "SET gpuidx.executor_timeout = 0; $q_big;");
ok($node->poll_query_until('postgres', 'SELECT slots_used = 1 AND queued = 0 FROM gpuidx_info()'),
	'a big union runs (stalled)');
ok(gpx_info($node)->{arena_used} > 4 * 1024 * 1024, 'it holds more than half the arena');
is($node->safe_psql('postgres', $q_big2), $ref{$q_big2}, 'arena full: the right union from the backend');
ok(stats()->{fallback_arena_full} > $fb, 'arena full: counted');
($rc, $out, $err) = $node->psql('postgres', "SET gpuidx.executor_fallback = off; $q_big2");
like($err, qr/could not serve the union.*\n.*arena has no room/,
	'arena full with executor_fallback = off: a clear error');
($rc, $out, $err) = gpx_bg_finish($bg);
is($out, "$ref{$q_big}\n", 'the stalled big union completes right');
ok(gpx_wait_slots_free($node), 'arena full: nothing leaked');

# a request larger than the arena
$fb = stats()->{fallback_too_large};
is($node->safe_psql('postgres', $q_huge), $ref{$q_huge}, 'a union larger than the arena: the right answer');
ok(stats()->{fallback_too_large} > $fb, 'too large: counted');
($rc, $out, $err) = $node->psql('postgres', "SET gpuidx.executor_fallback = off; $q_huge");
like($err, qr/could not serve the union.*\n.*larger than the shared arena/,
	'too large with executor_fallback = off: a clear error');
ok(gpx_wait_slots_free($node), 'too large: nothing leaked');

# and the right answers after all of it
is(gpx_check_queries($node, grouped('qs', 'both'), "SET gpuidx.device = $dev"), '0',
	'after the faults: the executor still equals the backend');

$node->stop;
done_testing();
