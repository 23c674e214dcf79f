# 008_stored.pl - stored lists sent by key, never read.  Large values
# stored out of line are kept unread by posting_intersect while the
# executor caches lists; once the executor holds one, only its key goes
# (lists_not_read counts them) and the backend never detoasts it.  Shown
# here: the answers equal the backend's for all three types, compressed
# and uncompressed TOAST storage, after an UPDATE gives a term new
# content, after the key epoch changes (fault oid_gap), with the cache
# off or too small to keep a call's lists until its last request, when
# the executor restarts with requests sent by key in its queue (they are
# computed here, reading the lists), and with gpuidx.spin_wait.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

# GPX_TEST_DEVICE=gpu runs it through the GPU (on the GPU machine)
my $device = $ENV{GPX_TEST_DEVICE} // 'cpu';
my $node = gpx_node('stored', conf => qq{
gpuidx.device = $device
gpuidx.batch_max_wait = 1000
});

# 8 terms of 40K..330K docIDs below 10^6 (blobs of 60 kB and more), in
# each type; p_qs is stored uncompressed (STORAGE EXTERNAL)
$node->safe_psql('postgres', q{
	SELECT setseed(0.31);
	CREATE TABLE big(term int, arr int4[]);
	INSERT INTO big SELECT t, ARRAY(SELECT g FROM generate_series(0, 999999) g
	  WHERE (hashint4(g) # t) % (t + 2) = 0 OR g % 97 = t)
	  FROM generate_series(1, 8) t;
	CREATE TABLE s_pfor(term int, docs posting_pfor);
	CREATE TABLE s_lrc(term int, docs posting_lrc);
	CREATE TABLE s_qs(term int, docs posting_qs);
	ALTER TABLE s_qs ALTER docs SET STORAGE EXTERNAL;
	INSERT INTO s_pfor SELECT term, arr::posting_pfor FROM big;
	INSERT INTO s_lrc SELECT term, arr::posting_lrc FROM big;
	INSERT INTO s_qs SELECT term, arr::posting_qs FROM big;
	-- 28 pairs and 8 triples of terms
	CREATE TABLE sq(qid int, term int);
	INSERT INTO sq SELECT a * 10 + b, a FROM generate_series(1, 8) a, generate_series(1, 8) b WHERE a < b;
	INSERT INTO sq SELECT a * 10 + b, b FROM generate_series(1, 8) a, generate_series(1, 8) b WHERE a < b;
	INSERT INTO sq SELECT 1000 + a, a FROM generate_series(1, 8) a;
	INSERT INTO sq SELECT 1000 + a, a % 8 + 1 FROM generate_series(1, 8) a;
	INSERT INTO sq SELECT 1000 + a, (a + 2) % 8 + 1 FROM generate_series(1, 8) a;
	ANALYZE;
});
is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM pg_class c JOIN pg_class t ON t.oid = c.reltoastrelid
		WHERE c.relname IN ('s_pfor', 's_lrc', 's_qs') AND pg_relation_size(t.oid) > 0}),
	'3', 'the lists are stored out of line');

# $type's queries as (qid, result) rows
sub q_sql
{
	my ($type) = @_;
	return "SELECT qid, posting_intersect(docs) AS res FROM sq JOIN s_$type USING (term) GROUP BY qid";
}

# run every type's queries 3 times (kept the second time, by key the third)
sub run_all
{
	my ($label, $setup) = @_;
	for my $type (qw(pfor lrc qs))
	{
		for my $round (1 .. 3)
		{
			is(gpx_check_queries($node, q_sql($type), $setup), '0',
				"$label: $type round $round = backend");
		}
	}
}

# the reference really is not empty: pairs share the g % 97 docIDs at least
ok( $node->safe_psql('postgres', q{
		SET gpuidx.use_executor = off;
		SELECT min(cardinality(r)) FROM (SELECT posting_intersect(docs) r
		FROM sq JOIN s_pfor USING (term) GROUP BY qid) s}) > 100,
	'every query has a sizeable answer');

$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
run_all('first');
my $st = gpx_stats($node);
ok($st->{lists_not_read} > 0, "stored lists sent unread ($st->{lists_not_read})");
ok($st->{cache_hits} >= $st->{lists_not_read}, 'every unread list was a cache hit');
is($st->{fallbacks}, '0', 'no fallback');
ok($st->{gpu_batches} > 0, "batches ran on the gpu ($st->{gpu_batches})")
  if $device eq 'gpu';

# an UPDATE gives term 3 new content (a new TOAST value): no stale answer
$node->safe_psql('postgres', q{
	UPDATE big SET arr = ARRAY(SELECT g FROM generate_series(0, 999999) g WHERE g % 5 = 0) WHERE term = 3;
	UPDATE s_pfor SET docs = b.arr::posting_pfor FROM big b WHERE b.term = 3 AND s_pfor.term = 3;
	UPDATE s_lrc SET docs = b.arr::posting_lrc FROM big b WHERE b.term = 3 AND s_lrc.term = 3;
	UPDATE s_qs SET docs = b.arr::posting_qs FROM big b WHERE b.term = 3 AND s_qs.term = 3;
});
run_all('after update');

# a new key epoch: the old keys match nothing, the lists go again
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('oid_gap')");
is(gpx_check_queries($node, q_sql('pfor')), '0', 'new epoch: pfor = backend');
$st = gpx_stats($node);
is($st->{lists_not_read}, '0', 'new epoch: nothing sent by an old key');
ok($st->{cache_misses} > 0, "new epoch: the lists were copied ($st->{cache_misses})");

# spinning instead of sleeping on latches: same answers
$node->safe_psql('postgres', "ALTER SYSTEM SET gpuidx.spin_wait = 200; SELECT pg_reload_conf()");
run_all('spin_wait');
$node->safe_psql('postgres', "ALTER SYSTEM RESET gpuidx.spin_wait; SELECT pg_reload_conf()");

# requests sent by key, in the queue of an executor that goes away: the
# next one no longer holds the lists, the backend reads and computes them
my $ref = $node->safe_psql('postgres',
	"SET gpuidx.use_executor = off; SELECT md5(string_agg(res::text, ';' ORDER BY qid)) FROM ("
	  . q_sql('lrc') . ") s");
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('hold', 60000)");
my $bg = gpx_bg($node,
	"SELECT md5(string_agg(res::text, ';' ORDER BY qid)) FROM (" . q_sql('lrc') . ") s;");
ok( $node->poll_query_until('postgres', 'SELECT queued > 0 FROM gpuidx_info()'),
	'a request waits in the queue');
my $pid = $node->safe_psql('postgres', 'SELECT executor_pid FROM gpuidx_info()');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
my ($rc, $out, $err) = gpx_bg_finish($bg);
is($rc, 0, 'the query survives the executor going away');
chomp $out;
is($out, $ref, 'and its answer is right');
$st = gpx_stats($node);
ok($st->{lists_not_read} > 0, 'it had sent stored lists unread');
gpx_wait_executor($node);
run_all('after restart');

# a cache of a few lists and a small arena: a call's later requests find
# lists evicted that were cached when it looked them up, and read them
$node->append_conf('postgresql.conf', "gpuidx.cache_size = 400kB\ngpuidx.arena_size = 1MB\n");
$node->restart;
gpx_wait_executor($node);
run_all('small cache');

# the cache off: stored lists are read as before
$node->append_conf('postgresql.conf', "gpuidx.cache_size = 0\n");
$node->restart;
gpx_wait_executor($node);
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
is(gpx_check_queries($node, q_sql('qs')), '0', 'cache off: qs = backend');
is(gpx_stats($node)->{lists_not_read}, '0', 'cache off: every list is read');
ok(gpx_wait_slots_free($node), 'no request slot left in use');

$node->stop;
done_testing();
