# 014_shared_read.pl - stored lists read in place from the shared cache.
# With the library preloaded and no GPU, a query that the cost model keeps
# in the backend (one query a statement) takes the large stored lists the
# shared cache holds straight from shared memory: no detoasting, no round
# trip to the executor (gpuidx_stats.lists_read_shared counts them; the
# executor computes nothing).  The backend keeps stored lists it had to
# read, so the cache fills without the executor.  Shown here: answers
# equal the backend's (use_executor = off) for all three types, every
# list of a warm round read in place; with a cache too small for the
# lists, three sessions that read in place while they take each other's
# room, then rounds in one session that must evict; the executor
# terminated under that load; cancelled queries; sessions that exit; the
# cache off; gpuidx.device = backend (nothing sent, lists read in place).
# The ranked aggregates over the same rows: in place in the backend, and
# through the executor with every list sent by key, unread, also when the
# executor restarts with such requests queued (they come back as cache
# misses and go again inline).  No read pin is left behind
# (gpuidx_info().cache_read_pins).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use GpxTap;

# the executor on its cpu threads: sessions with device = auto then keep
# a lone query in the backend (docs/EXECUTOR.md, the cost model)
my $node = gpx_node('shread', conf => qq{
gpuidx.device = cpu
gpuidx.batch_max_wait = 1000
});

# 8 terms of 40K..330K docIDs below 10^6 (blobs of 60 kB and more), in
# each type; s_qs is stored uncompressed (STORAGE EXTERNAL); 28 pairs and
# 8 triples of terms as queries
$node->safe_psql('postgres', q{
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
	CREATE TABLE qt(qid int, terms int[]);
	INSERT INTO qt SELECT a * 10 + b, ARRAY[a, b]
	  FROM generate_series(1, 8) a, generate_series(1, 8) b WHERE a < b;
	INSERT INTO qt SELECT 1000 + a, ARRAY[a, a % 8 + 1, (a + 2) % 8 + 1]
	  FROM generate_series(1, 8) a;
	ANALYZE;
});

# $type's queries as (qid, res) rows, each a statement of its own: the
# subquery's aggregate computes one query per execution
sub q_sql
{
	my ($type) = @_;
	return "SELECT q.qid, (SELECT posting_intersect(p.docs) FROM s_$type p "
	  . "WHERE p.term = ANY (q.terms)) AS res FROM qt q";
}

# reference answers, computed in the backend reading every list
for my $type (qw(pfor lrc qs))
{
	$node->safe_psql('postgres',
		"SET gpuidx.use_executor = off; CREATE TABLE ref_$type AS " . q_sql($type));
}
ok( $node->safe_psql('postgres',
		'SELECT min(cardinality(res)) > 100 AND count(*) = 36 FROM ref_pfor'),
	'36 queries, each with a sizeable answer');

# check_rounds(type, n): n rounds of type's queries, rows differing from
# the reference (a loop in one session, so its lists stay keyed alike)
$node->safe_psql('postgres', q{
CREATE FUNCTION check_rounds(t text, n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	bad bigint := 0;
	b bigint;
BEGIN
	FOR i IN 1 .. n LOOP
		EXECUTE format('SELECT count(*) FROM (SELECT q.qid, (SELECT posting_intersect(p.docs) '
			'FROM s_%s p WHERE p.term = ANY (q.terms)) AS res FROM qt q) e '
			'FULL JOIN ref_%s r USING (qid) '
			'WHERE e.qid IS NULL OR r.qid IS NULL OR e.res IS DISTINCT FROM r.res', t, t)
			INTO b;
		bad := bad + b;
	END LOOP;
	RETURN bad;
END $$;
});

my $auto = 'SET gpuidx.device = auto';

# rounds 1 and 2 read the lists and keep them (the second time each
# comes), round 3 reads every list in place
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
for my $type (qw(pfor lrc qs))
{
	for my $round (1 .. 3)
	{
		is(gpx_check_queries($node, q_sql($type), $auto), '0',
			"$type round $round = backend");
	}
}
my $st = gpx_stats($node);
ok($st->{lists_read_shared} > 0, "lists read in place ($st->{lists_read_shared})");
is($st->{queries}, '0', 'the executor computed nothing');
is($st->{lists_not_read}, '0', 'nothing was sent to it');
is(gpx_info($node)->{cache_entries}, '24', 'the backends cached all 24 lists');

# warm: every one of the 80 list references of a round is read in place
for my $type (qw(pfor lrc qs))
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	is($node->safe_psql('postgres', "$auto; SELECT check_rounds('$type', 1)"), '0',
		"$type warm round = reference");
	is(gpx_stats($node)->{lists_read_shared}, '80', "$type: all 80 lists read in place");
}
is(gpx_info($node)->{cache_read_pins}, '0', 'no read pin left');

# the ranked aggregates over the same rows: warm, every list read in
# place in the backend (auto, no GPU), the hits equal the array form's
# computed in the backend; with device = cpu the executor ranks them (the
# lists read first), equal too
$node->safe_psql('postgres', q{
	CREATE TABLE st AS SELECT posting_doclen_agg(g, 50 + g % 97) AS stats
	  FROM generate_series(0, 999999) g;
});
for my $type (qw(pfor lrc qs))
{
	for my $mode (qw(and or))
	{
		my $lists = "FROM unnest(q.terms) WITH ORDINALITY u(t, pos) JOIN s_$type p ON p.term = u.t";
		$node->safe_psql('postgres',
			"SET gpuidx.use_executor = off; CREATE TABLE rref AS SELECT q.qid, "
			  . "(SELECT coalesce(array_agg(ROW(r.docid, r.score)::posting_hit ORDER BY r.o), '{}') "
			  . "FROM posting_rank_$mode(ARRAY(SELECT p.docs $lists ORDER BY u.pos), "
			  . "(SELECT stats FROM st), 50) WITH ORDINALITY r(docid, score, o)) AS res FROM qt q");
		my $agg = "SELECT count(*) FROM (SELECT q.qid, (SELECT posting_rank_${mode}_agg("
		  . "p.docs, s.stats, 50 ORDER BY u.pos) $lists CROSS JOIN st s) AS res FROM qt q) e "
		  . "JOIN rref r USING (qid) WHERE e.res IS DISTINCT FROM r.res";
		$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
		is($node->safe_psql('postgres', "$auto; $agg"), '0',
			"$type ranked $mode aggregate, in place = backend");
		my $rs = gpx_stats($node);
		is($rs->{lists_read_shared}, '80', "$type ranked $mode: all 80 lists read in place");
		is($rs->{requests}, '0', "$type ranked $mode: nothing sent to the executor");
		# gpuidx.device = backend: the same without the cost model
		$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
		is($node->safe_psql('postgres', "SET gpuidx.device = backend; $agg"), '0',
			"$type ranked $mode aggregate, device = backend");
		$rs = gpx_stats($node);
		is($rs->{lists_read_shared} . ' ' . $rs->{requests}, '80 0',
			"$type ranked $mode, device = backend: 80 lists read in place, nothing sent");
		$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
		is($node->safe_psql('postgres', "SET gpuidx.device = cpu; $agg"), '0',
			"$type ranked $mode aggregate, executor = backend");
		$rs = gpx_stats($node);
		ok($rs->{requests} > 0, "$type ranked $mode: the executor ranked them");
		is($rs->{lists_not_read}, '80', "$type ranked $mode: all 80 lists sent by key, unread");
		is($rs->{cache_hits}, '80', "$type ranked $mode: each one a cache hit");
		is($rs->{fallbacks}, '0', "$type ranked $mode: no fallback");
		$node->safe_psql('postgres', "CREATE TABLE rref_$type$mode AS TABLE rref")
		  if $type eq 'lrc';
		$node->safe_psql('postgres', 'DROP TABLE rref');
	}
}
is(gpx_info($node)->{cache_read_pins}, '0', 'no read pin left after the ranked aggregates');
ok(gpx_wait_slots_free($node), 'no request slot left after the ranked aggregates');

# ranked aggregates whose lists went by key, queued at an executor that
# goes away: the next one holds none of them (a new cache epoch), so it
# answers "cache miss" and the backend sends everything inline
for my $mode (qw(and or))
{
	my $agg = "SELECT count(*) FROM (SELECT q.qid, (SELECT posting_rank_${mode}_agg("
	  . "p.docs, s.stats, 50 ORDER BY u.pos) FROM unnest(q.terms) WITH ORDINALITY u(t, pos) "
	  . "JOIN s_lrc p ON p.term = u.t CROSS JOIN st s) AS res FROM qt q) e "
	  . "JOIN rref_lrc$mode r USING (qid) WHERE e.res IS DISTINCT FROM r.res";
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('hold', 60000)");
	my $bg = gpx_bg($node, "SET gpuidx.device = cpu; $agg;");
	ok( $node->poll_query_until('postgres', 'SELECT queued > 0 FROM gpuidx_info()'),
		"ranked $mode: a request sent by key waits in the queue");
	my $pid = $node->safe_psql('postgres', 'SELECT executor_pid FROM gpuidx_info()');
	$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
	my ($rc, $out, $err) = gpx_bg_finish($bg);
	chomp $out;
	is("$rc $out", '0 0', "ranked $mode: the query survives the executor going away, right")
	  or diag($err);
	ok(gpx_stats($node)->{lists_not_read} > 0, "ranked $mode: it had sent lists unread");
	gpx_wait_executor($node);
	# the restarted executor: cold, then by key again
	for my $round (1 .. 3)
	{
		is($node->safe_psql('postgres', "SET gpuidx.device = cpu; $agg"), '0',
			"ranked $mode after the restart, round $round = backend");
	}
}
ok(gpx_wait_slots_free($node), 'no request slot left after the restarts');

# gpuidx.device = backend keeps intersections in the backend too, even a
# GROUP BY of many queries, reading in place (the restart above emptied
# the cache: the first rounds read the lists and keep them)
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
for my $round (1 .. 3)
{
	is(gpx_check_queries($node,
			'SELECT qid, posting_intersect(docs) AS res FROM qt q JOIN s_qs s '
			  . 'ON s.term = ANY (q.terms) GROUP BY qid', 'SET gpuidx.device = backend'),
		'0', "device = backend: GROUP BY = backend, round $round");
}
$st = gpx_stats($node);
is($st->{requests}, '0', 'device = backend: nothing sent to the executor');
ok($st->{lists_read_shared} > 0, "device = backend: lists read in place ($st->{lists_read_shared})");

# the executor path still finds what backends cached: sent by key, unread
is(gpx_check_queries($node,
		'SELECT qid, posting_intersect(docs) AS res FROM qt q JOIN s_lrc s '
		  . 'ON s.term = ANY (q.terms) GROUP BY qid', 'SET gpuidx.device = cpu'),
	'0', 'executor GROUP BY = backend');
ok(gpx_stats($node)->{lists_not_read} > 0, 'the executor got the cached lists by key');

# a cache of about five lists: three sessions read in place while they
# evict each other's lists, and one sends GROUP BYs to the executor,
# whose copies evict too
$node->append_conf('postgresql.conf', "gpuidx.cache_size = 400kB\n");
$node->restart;
gpx_wait_executor($node);

# start the three readers and the executor client; returns their handles
sub load_start
{
	my ($rounds) = @_;
	my @bg;
	for my $type (qw(pfor lrc qs))
	{
		push @bg, gpx_bg($node, "$auto; SELECT check_rounds('$type', $rounds);");
	}
	push @bg, gpx_bg($node,
		"SET gpuidx.device = cpu; SELECT count(*) FROM generate_series(1, $rounds) g, "
		  . "LATERAL (SELECT qid, posting_intersect(docs) AS res FROM qt q JOIN s_pfor s "
		  . "ON s.term = ANY (q.terms) WHERE g > 0 GROUP BY qid) e "
		  . "JOIN ref_pfor r USING (qid) WHERE e.res IS DISTINCT FROM r.res;");
	return @bg;
}

# wait for them: every session ends well, with no wrong answer
sub load_finish
{
	my ($label, @bg) = @_;
	my $n = 0;
	for my $b (@bg)
	{
		my ($rc, $out, $err) = gpx_bg_finish($b);
		chomp $out;
		is("$rc $out", '0 0', "$label: session $n ends, no wrong answer")
		  or diag($err);
		$n++;
	}
}

$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
load_finish('small cache', load_start(6));
$st = gpx_stats($node);
ok($st->{lists_read_shared} > 0, "small cache: lists read in place ($st->{lists_read_shared})");
# under the load, lists are evicted when one is free of readers and pins
# as another comes, which the timing decides (on a busy machine there may
# be none); rounds of pfor and then of qs in one session need more room
# than the cache has, with nothing else in use, so they must evict
my $ev_load = $st->{cache_evictions};
is($node->safe_psql('postgres', "$auto; SELECT check_rounds('pfor', 2)"), '0',
	'small cache: pfor rounds alone = reference');
is($node->safe_psql('postgres', "$auto; SELECT check_rounds('qs', 2)"), '0',
	'small cache: qs rounds alone = reference');
$st = gpx_stats($node);
ok($st->{cache_evictions} > $ev_load,
	"small cache: lists evicted ($ev_load under the load, $st->{cache_evictions} in all)");
is(gpx_info($node)->{cache_read_pins}, '0', 'small cache: no read pin left');

# the executor terminated while they run: its cache is dropped (lists
# being read stay until their readers are done), sessions go on
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
my @bg = load_start(10);
ok($node->poll_query_until('postgres', 'SELECT lists_read_shared > 0 FROM gpuidx_stats'),
	'the readers are reading in place');
my $pid = $node->safe_psql('postgres', 'SELECT executor_pid FROM gpuidx_info()');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($pid)");
load_finish('executor terminated', @bg);
isnt(gpx_wait_executor($node), $pid, 'a new executor runs');
is(gpx_info($node)->{cache_read_pins}, '0', 'executor terminated: no read pin left');

# cancelled queries (statement_timeout) and sessions that end mid-round
for my $ms (30, 70, 150)
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"$auto; SET statement_timeout = '${ms}ms'; SELECT check_rounds('qs', 50)");
	like($err, qr/canceling statement due to statement timeout/, "cancelled after $ms ms");
}
my @quit;
for my $type (qw(pfor lrc qs))
{
	push @quit, gpx_bg($node, "$auto; SELECT check_rounds('$type', 50);");
}
# all three running their rounds (a session still starting would be
# missed and run to the end), then terminated
my $running = q{SELECT count(*) FROM pg_stat_activity
	WHERE query LIKE '%check_rounds(%50)%' AND state = 'active' AND pid <> pg_backend_pid()};
ok($node->poll_query_until('postgres', "SELECT ($running) = 3"),
	'three sessions run their rounds');
sleep 0.3;
$node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE query LIKE '%check_rounds(%50)%' AND pid <> pg_backend_pid()});
for my $b (@quit)
{
	my ($rc) = gpx_bg_finish($b);
	isnt($rc, 0, 'a terminated session ends with an error');
}
ok($node->poll_query_until('postgres', 'SELECT cache_read_pins = 0 FROM gpuidx_info()'),
	'cancelled and terminated: no read pin left');
is($node->safe_psql('postgres', "$auto; SELECT check_rounds('lrc', 3)"), '0',
	'afterwards: lrc = reference');

# the cache off: nothing to read in place, every list read from its table
$node->append_conf('postgresql.conf', "gpuidx.cache_size = 0\n");
$node->restart;
gpx_wait_executor($node);
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
for my $type (qw(pfor lrc qs))
{
	is($node->safe_psql('postgres', "$auto; SELECT check_rounds('$type', 2)"), '0',
		"cache off: $type = reference");
}
is(gpx_stats($node)->{lists_read_shared}, '0', 'cache off: nothing read in place');
ok(gpx_wait_slots_free($node), 'no request slot left in use');

$node->stop;
done_testing();
