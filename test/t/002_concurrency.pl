# 002_concurrency.pl - many clients at once: pgbench sessions issue random
# intersections (single queries of every type and batch calls) whose
# executor answers are checked against the in-backend answer inside the
# same transaction; the executor is seen batching requests of several
# backends; a configuration reload changes its thread count under load;
# the executor is terminated, fails and stalls again and again under load.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

# a large threshold and a 20 ms wait: requests of concurrent clients meet
my $node = gpx_node('conc', conf => qq{
gpuidx.device = cpu
gpuidx.executor_threads = 2
gpuidx.batch_threshold = 50000000
gpuidx.batch_max_wait = 20000
max_connections = 40
});
gpx_data($node, nterms => 120, maxlen => 20000, nqueries => 200, maxk => 4);

# check(t, a, b, c): executor answer = backend answer, or an error
$node->safe_psql('postgres', q{
CREATE FUNCTION gpx_check(t int, a int, b int, c int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  tab text := (ARRAY['p_pfor', 'p_lrc', 'p_qs'])[t + 1];
  sql text := format('SELECT posting_intersect(docs) FROM %I WHERE term IN ($1, $2, $3)', tab);
  r1 int4[];
  r2 int4[];
BEGIN
  EXECUTE sql INTO r1 USING a, b, c;
  PERFORM set_config('gpuidx.use_executor', 'off', true);
  EXECUTE sql INTO r2 USING a, b, c;
  PERFORM set_config('gpuidx.use_executor', 'on', true);
  IF r1 IS DISTINCT FROM r2 THEN
    RAISE EXCEPTION 'executor answer differs for % (%, %, %)', tab, a, b, c;
  END IF;
  RETURN coalesce(cardinality(r1), -1);
END $$;

-- batch(lo): the queries qid in [lo, lo + 40) through posting_intersect_batch
CREATE FUNCTION gpx_check_batch(lo int) RETURNS int
LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
  n1 int;
  n2 int;
BEGIN
  CREATE TEMP TABLE IF NOT EXISTS _b1 (qid bigint, docs int4[]);
  CREATE TEMP TABLE IF NOT EXISTS _b2 (qid bigint, docs int4[]);
  TRUNCATE _b1, _b2;
  INSERT INTO _b1 SELECT b.* FROM (SELECT array_agg(qid) q, array_agg(docs) l
    FROM queries JOIN p_qs USING (term) WHERE qid >= lo AND qid < lo + 40) s,
    posting_intersect_batch(s.q, s.l) b;
  PERFORM set_config('gpuidx.use_executor', 'off', true);
  INSERT INTO _b2 SELECT b.* FROM (SELECT array_agg(qid) q, array_agg(docs) l
    FROM queries JOIN p_qs USING (term) WHERE qid >= lo AND qid < lo + 40) s,
    posting_intersect_batch(s.q, s.l) b;
  PERFORM set_config('gpuidx.use_executor', 'on', true);
  SELECT count(*) INTO n1 FROM _b1 FULL JOIN _b2 USING (qid)
    WHERE _b1.docs IS DISTINCT FROM _b2.docs OR _b1.qid IS NULL OR _b2.qid IS NULL;
  IF n1 > 0 THEN
    RAISE EXCEPTION 'batch from % differs in % queries', lo, n1;
  END IF;
  SELECT count(*) INTO n2 FROM _b1;
  RETURN n2;
END $$;
SELECT gpuidx_stats_reset();
});

$node->pgbench(
	'--no-vacuum --client=8 --jobs=4 --transactions=40', 0,
	[qr/processed: 320\/320/], [qr/^$/],
	'8 clients, random single queries of every type',
	{
		'gpx_single' => q{
\set a random(1, 126)
\set b random(1, 126)
\set c random(1, 126)
\set t random(0, 2)
SELECT gpx_check(:t, :a, :b, :c);
}
	});

my $st = gpx_stats($node);
ok($st->{queries} >= 320, "executor computed the queries ($st->{queries})");
ok($st->{multi_backend_batches} > 0,
	"batches held requests of several backends ($st->{multi_backend_batches} such batches)");
ok($st->{max_batch_backends} >= 2, "up to $st->{max_batch_backends} backends in one batch");
ok($st->{mean_batch_requests} > 1, "mean batch of $st->{mean_batch_requests} requests");
is($st->{fallbacks}, 0, 'no fallbacks');

# a reload changes the executor's thread count while clients run
my $bg = gpx_bg($node, q{
	SELECT sum(gpx_check(g % 3, 1 + g % 126, 1 + (g * 7) % 126, 1 + (g * 13) % 126))
	FROM generate_series(1, 120) g;
});
$node->safe_psql('postgres', 'ALTER SYSTEM SET gpuidx.executor_threads = 1; SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', 'SELECT cpu_threads = 1 FROM gpuidx_info()'),
	'reload: executor now runs one thread');
my ($rc, $out, $err) = gpx_bg_finish($bg);
is($rc, 0, 'queries across the reload are right') or diag($err);
$node->safe_psql('postgres', 'ALTER SYSTEM RESET gpuidx.executor_threads; SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', 'SELECT cpu_threads = 2 FROM gpuidx_info()'),
	'reload: back to two threads');

# several sessions sending whole batches
$node->pgbench(
	'--no-vacuum --client=4 --jobs=2 --transactions=8', 0,
	[qr/processed: 32\/32/], [qr/^$/],
	'4 clients, batch calls of 40 queries',
	{
		'gpx_batch' => q{
\set lo random(1, 160)
SELECT gpx_check_batch(:lo);
}
	});

$st = gpx_stats($node);
is($st->{fallbacks}, 0, 'still no fallbacks');
ok(gpx_wait_slots_free($node), 'every request slot free again');
is(gpx_info($node)->{executor_starts}, 1, 'the executor never restarted');

# --- the executor fails again and again under load -----------------------
# 8 clients check every answer while the executor is terminated, fails
# with an error and stalls, in turn: every answer stays right, no client
# hangs, nothing leaks.
my $script = $node->basedir . '/gpx_stress.sql';
PostgreSQL::Test::Utils::append_to_file($script, q{
\set a random(1, 126)
\set b random(1, 126)
\set c random(1, 126)
\set t random(0, 2)
SELECT gpx_check(:t, :a, :b, :c);
});
my ($pout, $perr) = ('', '');
my $pgb = IPC::Run::start(
	[ 'pgbench', '--no-vacuum', '--client=8', '--jobs=4', '--time=12',
	  '-f', $script, '-h', $node->host, '-p', $node->port, 'postgres' ],
	'>', \$pout, '2>', \$perr);
my $starts = gpx_info($node)->{executor_starts};
for my $round (1 .. 6)
{
	sleep 1;
	my $pid = $node->safe_psql('postgres', 'SELECT coalesce(executor_pid, 0) FROM gpuidx_info()');
	if ($round % 3 == 1) { kill 'TERM', $pid if $pid; }
	elsif ($round % 3 == 2) { $node->safe_psql('postgres', "SELECT gpuidx_inject_fault('error')"); }
	else { $node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 300)"); }
	$node->poll_query_until('postgres', "SELECT executor_state = 'running' FROM gpuidx_info()");
}
$pgb->finish;
is($pgb->result(0), 0, 'pgbench under executor failures: every answer right')
  or diag("stdout: $pout\nstderr: $perr");
like($pout, qr/number of failed transactions: 0|processed: \d+/, 'pgbench processed transactions');
ok(gpx_info($node)->{executor_starts} >= $starts + 2, 'the executor restarted after each failure');
ok(gpx_wait_slots_free($node), 'no request slot leaked through the failures');

$node->stop;
done_testing();
