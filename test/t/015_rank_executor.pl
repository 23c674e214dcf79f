# 015_rank_executor.pl - ranked retrieval through the executor (issue #19).
# posting_rank_and_batch / posting_rank_or_batch (one statement: one
# request) and the one-query forms, for the three types, k = 1, 7 and
# 10000 (beyond every match), on a collection with many tied scores,
# queries with one term, repeated terms, an empty list and NULL lists:
# the executor's answers (gpuidx.device = cpu; GPX_TEST_DEVICE=gpu adds
# gpuidx.device = gpu on the GPU machine) must equal the backend's
# (gpuidx.use_executor = off) exactly: docIDs, order, and scores as
# float8 text with extra_float_digits = 3.  gpuidx_stats must show that
# the batches went through the executor (and auto keeps them in the
# backend of an executor without a GPU).  Faults: the executor killed
# while a ranked request is queued (the backend answers, right), a cancel
# while queued and a statement_timeout while the executor runs it (slots
# and arena freed, the next answer right), executor_fallback = off.  On
# the GPU: long lists kept in its list cache by key and found there, and
# a ranked batch the GPU fails (fault gpu_oom) rerun on the CPU threads.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use GpxTap;

my $gpu = ($ENV{GPX_TEST_DEVICE} // '') eq 'gpu';
# gpuidx.rank_merge on: with a GPU, the ranked batches queued at the GPU
# thread run merged and a ranked request is due at once (off by default)
my $node = gpx_node('rankexec', conf => qq{
gpuidx.batch_max_wait = 1000
gpuidx.rank_merge = on
extra_float_digits = 3
});

# 4000 documents of lengths 1..4 (so that scores tie often); 40 terms of
# 1 .. 2000 random docIDs, the even ones with frequencies; term 0 has an
# empty list; per type a table.
# 60 queries of 1 .. 5 terms (repeats allowed), some with term 0 or -1
# (no list: NULL) among them.
$node->safe_psql('postgres', q{
SELECT setseed(0.19);
CREATE TABLE coll AS
  SELECT posting_doclen_agg(d, 1 + (random() * 3)::int) AS stats
  FROM generate_series(0, 3999) d;
CREATE TABLE terms AS
  SELECT t AS term, ARRAY(SELECT DISTINCT (random() * 3999)::int
                          FROM generate_series(1, 1 + (random() * random() * 2000)::int)
                          ORDER BY 1) AS arr
  FROM generate_series(1, 40) t;
INSERT INTO terms VALUES (0, '{}');
-- frequencies: mostly 1 (ties stay common), some up to 6; the even terms
-- carry them, the odd ones do not (tf = 1), so a query mixes both kinds
ALTER TABLE terms ADD COLUMN tfs int4[];
UPDATE terms SET tfs = ARRAY(SELECT CASE WHEN random() < 0.25 THEN 2 + (random() * 4)::int ELSE 1 END
                             FROM generate_series(1, cardinality(arr) + 0 * term));
CREATE TABLE l_pfor AS SELECT term, CASE WHEN term % 2 = 0 THEN posting_pfor(arr, tfs) ELSE posting_pfor(arr) END AS l FROM terms;
CREATE TABLE l_lrc AS SELECT term, CASE WHEN term % 2 = 0 THEN posting_lrc(arr, tfs) ELSE posting_lrc(arr) END AS l FROM terms;
CREATE TABLE l_qs AS SELECT term, CASE WHEN term % 2 = 0 THEN posting_qs(arr, tfs) ELSE posting_qs(arr) END AS l FROM terms;
CREATE TABLE queries AS
  SELECT q::bigint AS qid, ARRAY(SELECT CASE WHEN random() < 0.05 THEN 0
                                             WHEN random() < 0.05 THEN -1
                                             ELSE 1 + (random() * 39 + 0 * q)::int END
                                 FROM generate_series(1, 1 + (random() * 4 + 0 * q)::int)) AS terms
  FROM generate_series(1, 60) q;
-- a one-term query, and one with a repeated term
INSERT INTO queries VALUES (61, '{5}'), (62, '{7,7,3}'), (63, '{-1}'), (64, '{0,2}');
});

# The text of one batch call's rows, in their order.
sub batch_sql
{
	my ($typ, $mode, $k) = @_;
	return qq{
SELECT coalesce(string_agg(r.qid || ':' || r.docid || ':' || r.score::text, ' ' ORDER BY r.ord), '')
FROM (SELECT array_agg(q.qid ORDER BY q.qid, u.pos) AS qa,
             array_agg(l.l ORDER BY q.qid, u.pos) AS la
      FROM queries q CROSS JOIN unnest(q.terms) WITH ORDINALITY u(term, pos)
      LEFT JOIN l_$typ l ON l.term = u.term) s,
     coll c,
     LATERAL posting_rank_${mode}_batch(s.qa, s.la, c.stats, $k) WITH ORDINALITY r(qid, docid, score, ord)};
}

# The text of one-query calls (posting_rank_and / _or), query by query.
sub single_sql
{
	my ($typ, $mode, $k) = @_;
	return qq{
SELECT string_agg(x.t, ' | ' ORDER BY x.qid)
FROM (SELECT q.qid,
             (SELECT coalesce(string_agg(r.docid || ':' || r.score::text, ' ' ORDER BY r.ord), '')
              FROM posting_rank_$mode(ARRAY(SELECT l.l FROM unnest(q.terms) WITH ORDINALITY u(term, pos)
                                            LEFT JOIN l_$typ l ON l.term = u.term ORDER BY u.pos),
                                      c.stats, $k) WITH ORDINALITY r(docid, score, ord)) AS t
      FROM queries q, coll c WHERE q.qid % 8 = 0 OR q.qid > 60) x};
}

sub stats { return gpx_stats($node); }

# got eq want, else the first row that differs (answers are long)
sub same_rows
{
	my ($got, $want, $name) = @_;
	return pass($name) if $got eq $want;
	my @g = split / /, $got;
	my @w = split / /, $want;
	my $i = 0;
	$i++ while $i < @g && $i < @w && $g[$i] eq $w[$i];
	fail($name);
	diag("row $i: got " . ($g[$i] // '(none)') . ", want " . ($w[$i] // '(none)')
		  . " (" . scalar(@g) . " rows, want " . scalar(@w) . ")");
}

my @types = qw(pfor lrc qs);
my @modes = qw(and or);
my @ks = (1, 7, 10000);
my (%ref, %sref);

# the backend's answers
for my $t (@types)
{
	for my $m (@modes)
	{
		for my $k (@ks)
		{
			$ref{"$t/$m/$k"} = $node->safe_psql('postgres',
				"SET gpuidx.use_executor = off;" . batch_sql($t, $m, $k));
		}
		$sref{"$t/$m"} = $node->safe_psql('postgres',
			"SET gpuidx.use_executor = off;" . single_sql($t, $m, 7));
	}
}
# the data is what the test needs: matches, ties, empty answers
{
	my $a = $ref{'pfor/and/10000'};
	my $o = $ref{'pfor/or/10000'};
	my (%seen, $ties);
	for my $row (split / /, $o)
	{
		my ($q, $d, $s) = split /:/, $row;
		$ties++ if $seen{"$q/$s"}++;
	}
	ok(scalar(split / /, $a) > 50, 'ranked AND has matches');
	ok($ties > 100, "ranked OR has many tied scores ($ties)");
	ok($o !~ /(^| )63:/ && $a !~ /(^| )6[34]:/,
		'a query of no list, and AND with the empty list, have no rows');
	same_rows($ref{'pfor/or/10000'}, $ref{'qs/or/10000'}, 'the types agree (backend)');
	same_rows($ref{'pfor/and/7'}, $ref{'lrc/and/7'}, 'the types agree (backend, AND)');
	is($node->safe_psql('postgres', q{
		SELECT count(*) FILTER (WHERE has_tfs(l) AND (SELECT max(t) FROM unnest(tfs(l)) t) > 1)
		FROM l_pfor WHERE term > 0}), '20', 'half the lists carry frequencies');
}

# the executor, on its CPU threads (and the GPU when there is one)
my @devs = ('cpu');
push @devs, 'gpu' if $gpu;
for my $dev (@devs)
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	my $calls = 0;
	for my $t (@types)
	{
		for my $m (@modes)
		{
			for my $k (@ks)
			{
				my $got = $node->safe_psql('postgres',
					"SET gpuidx.device = $dev; SET gpuidx.executor_fallback = off;"
					  . batch_sql($t, $m, $k));
				same_rows($got, $ref{"$t/$m/$k"}, "$dev: $t ranked $m batch, k = $k: equals the backend");
				$calls++;
			}
			my $got = $node->safe_psql('postgres',
				"SET gpuidx.device = $dev; SET gpuidx.executor_fallback = off;"
				  . single_sql($t, $m, 7));
			same_rows($got, $sref{"$t/$m"}, "$dev: $t ranked $m, one query a call: equals the backend");
		}
	}
	my $st = stats();
	ok($st->{requests} >= $calls, "$dev: the batches went to the executor ($st->{requests} requests)");
	ok($st->{queries} >= 60 * $calls, "$dev: every query of them ($st->{queries})");
	is($st->{fallbacks}, 0, "$dev: no fallback");
	is($st->{backend_queries}, 0, "$dev: nothing kept in the backend");
	if ($dev eq 'gpu')
	{
		ok($st->{gpu_batches} >= $calls, "gpu: the batches ran on the gpu ($st->{gpu_batches})");
		is($st->{gpu_failures}, 0, 'gpu: no gpu failure');
	}
}

# several backends at once, each with a few ranked statements (one query a
# call, or a batch a call): every answer right, nothing falls back
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	my $dev1 = $gpu ? 'gpu' : 'cpu';
	my @jobs;
	for my $i (0 .. 7)
	{
		my ($t, $m) = ($types[$i % 3], $modes[$i % 2]);
		my $one = $i % 4 < 2;
		my $q = $one ? single_sql($t, $m, 7) : batch_sql($t, $m, 7);
		my $want = $one ? $sref{"$t/$m"} : $ref{"$t/$m/7"};
		my $n = $one ? 4 : 2;
		push @jobs, [ gpx_bg($node, "SET gpuidx.device = $dev1; SET gpuidx.executor_fallback = off;"
						. join('', map { "$q;\n" } 1 .. $n)),
					  join('', map { "$want\n" } 1 .. $n), "$t ranked $m" . ($one ? '' : ' batch') ];
	}
	for my $j (@jobs)
	{
		my ($rc, $out, $err) = gpx_bg_finish($j->[0]);
		is($rc, 0, "concurrent: $j->[2] ran") or diag($err);
		same_rows($out, $j->[1], "concurrent: $j->[2] equals the backend");
	}
	is(stats()->{fallbacks}, 0, 'concurrent: no fallback');
	ok(gpx_wait_slots_free($node), 'concurrent: nothing leaked');
}

# ranked requests of several backends queued at once run as one batch
# (the executor held while they queue), each answer right
{
	my $dev1 = $gpu ? 'gpu' : 'cpu';
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	gpx_hold($node, 1);
	my @jobs;
	for my $i (0 .. 3)
	{
		my ($t, $m) = ($types[$i % 3], $modes[$i % 2]);
		push @jobs, [ gpx_bg($node, "SET gpuidx.device = $dev1; SET gpuidx.executor_fallback = off;"
						. single_sql($t, $m, 7) . ";\n"), $sref{"$t/$m"} . "\n", "$t ranked $m" ];
	}
	ok(gpx_wait_waiting($node, 4), 'four ranked requests of four backends wait in the queue');
	gpx_hold($node, 0);
	for my $j (@jobs)
	{
		my ($rc, $out, $err) = gpx_bg_finish($j->[0]);
		is($rc, 0, "held, then together: $j->[2] ran") or diag($err);
		same_rows($out, $j->[1], "held, then together: $j->[2] equals the backend");
	}
	my $st = stats();
	ok($st->{multi_backend_batches} >= 1 && $st->{max_batch_backends} >= 2,
		"held, then together: one batch held several backends' ranked requests "
		  . "($st->{multi_backend_batches} batches, at most $st->{max_batch_backends} backends)");
	is($st->{fallbacks}, 0, 'held, then together: no fallback');
	ok(gpx_wait_slots_free($node), 'held, then together: nothing leaked');
}

# the collection statistics travel once: later requests of the same
# statistics name the executor's copy instead of copying them again; a
# changed value is copied afresh, once, and answers with its lengths
{
	my $dev1 = $gpu ? 'gpu' : 'cpu';
	my $one = "SET gpuidx.device = $dev1; SET gpuidx.executor_fallback = off;" . single_sql('pfor', 'or', 7);
	$node->safe_psql('postgres', q{
		CREATE TABLE coll2 AS SELECT posting_doclen_set(stats, ARRAY(SELECT d FROM generate_series(0, 3999, 3) d),
		                                                ARRAY(SELECT 7 FROM generate_series(0, 3999, 3) d)) AS stats FROM coll});
	(my $two = $one) =~ s/\bcoll c\b/coll2 c/g;
	my $size = $node->safe_psql('postgres', 'SELECT size_bytes(stats) FROM coll');
	is($node->safe_psql('postgres', 'SELECT size_bytes(stats) FROM coll2'), $size, 'other statistics of the same size');
	my $want2 = $node->safe_psql('postgres', "SET gpuidx.use_executor = off;" . $two);
	isnt($want2, $sref{'pfor/or'}, 'other statistics: other answers');

	# the same lists twice: with statistics held, then with new ones
	$node->safe_psql('postgres', $one);
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	same_rows($node->safe_psql('postgres', $one), $sref{'pfor/or'}, 'statistics held: right answers');
	my $st1 = stats();
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	same_rows($node->safe_psql('postgres', $two), $want2, 'new statistics through the executor: right answers');
	my $st2 = stats();
	ok($st1->{requests} >= 10 && $st2->{requests} == $st1->{requests},
		"the queries went to the executor ($st1->{requests}, $st2->{requests} requests)");
	my $d = $st2->{bytes_copied} - $st1->{bytes_copied};
	ok($d >= $size && $d < 2 * $size,
		"new statistics copied once ($d more bytes than with statistics held, statistics of $size bytes, $st2->{requests} requests)");
	same_rows($node->safe_psql('postgres', $one), $sref{'pfor/or'}, 'and back: right answers');
	same_rows($node->safe_psql('postgres', $two), $want2, 'and again: right answers');
	is(stats()->{fallbacks}, 0, 'statistics held or not: no fallback');
}

# long lists (at least 32 KB) go to the executor with their content's key:
# the GPU keeps them in its device list cache, and the next requests find
# them there instead of copying them in; a query naming one list twice
# finds its own copy; every answer equals the backend's
if ($gpu)
{
	$node->safe_psql('postgres', q{
SELECT setseed(0.23);
CREATE TABLE big_coll AS
  SELECT posting_doclen_agg(d, 1 + (random() * 40)::int) AS stats FROM generate_series(0, 2999999) d;
CREATE TABLE big AS
  SELECT t AS term, ARRAY(SELECT DISTINCT (random() * 2999999 + 0 * t)::int
                          FROM generate_series(1, 50000) ORDER BY 1) AS arr
  FROM generate_series(1, 3) t;
ALTER TABLE big ADD COLUMN l posting_pfor;
UPDATE big SET l = posting_pfor(arr, ARRAY(SELECT 1 + (random() * 3 + 0 * term)::int
                                           FROM generate_series(1, cardinality(arr))));
});
	is($node->safe_psql('postgres', 'SELECT count(*) FROM big WHERE size_bytes(l) >= 32768'), '3',
		'long lists: three of at least 32 KB');
	my $q = q{
SELECT coalesce(string_agg(r.docid || ':' || r.score::text, ' ' ORDER BY r.ord), '')
FROM big_coll c,
     LATERAL posting_rank_or(ARRAY(SELECT b.l FROM unnest('{1,2,1,3}'::int[]) WITH ORDINALITY u(t, pos)
                                   JOIN big b ON b.term = u.t ORDER BY u.pos), c.stats, 1000)
       WITH ORDINALITY r(docid, score, ord)};
	my $want = $node->safe_psql('postgres', "SET gpuidx.use_executor = off;" . $q);
	ok(scalar(split / /, $want) == 1000, 'long lists: the backend ranks 1000');
	# the device's description (lists cached, hit rate), which the executor
	# refreshes at most once a second while idle: polled until it shows
	# what $done accepts, for up to 10 s
	my $cache = sub {
		my ($done) = @_;
		my ($lists, $hits);
		for my $try (1 .. 100)
		{
			($lists, $hits) = gpx_info($node)->{device_active} =~ /list cache [\d.]+ of [\d.]+ MiB, (\d+) lists, ([\d.]+)% hits/;
			($lists, $hits) = ($lists // -1, $hits // -1);
			last if !$done || $done->($lists, $hits);
			usleep(100_000);
		}
		return ($lists, $hits);
	};
	my ($l0, $h0) = $cache->();
	my $run = "SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off;" . $q;
	same_rows($node->safe_psql('postgres', $run), $want, 'long lists, first request: equals the backend');
	my ($l1, $h1) = $cache->(sub { $_[0] >= $l0 + 3 });
	ok($l1 >= $l0 + 3, "long lists: the gpu keeps the three ($l0 -> $l1 lists cached)");
	same_rows($node->safe_psql('postgres', $run), $want, 'long lists, again: equals the backend');
	my ($l2, $h2) = $cache->(sub { $_[1] > $h1 });
	ok($l2 == $l1 && $h2 > $h1, "long lists, again: found in the gpu's cache ($l1 -> $l2 lists, $h1% -> $h2% hits)");
	is(stats()->{fallbacks}, 0, 'long lists: no fallback');

	# the gpu fails a ranked batch (fault gpu_oom, the next batch): its runs
	# go to the cpu threads, the backend sees nothing
	my $f0 = stats()->{gpu_failures};
	gpx_fault($node, 'gpu_oom', 0);
	same_rows($node->safe_psql('postgres', $run), $want, 'gpu_oom: the ranked batch rerun on cpu threads, right');
	my $st = stats();
	ok($st->{gpu_failures} > $f0, "gpu_oom: counted as a gpu failure ($f0 -> $st->{gpu_failures})");
	is($st->{fallbacks}, 0, 'gpu_oom: no fallback to the backend');
	same_rows($node->safe_psql('postgres', $run), $want, 'gpu_oom spent: on the gpu again, right');
	ok(gpx_wait_slots_free($node), 'long lists: nothing leaked');
}

# auto: an executor without a GPU ranks on one thread, as the backend
# does, so the batches stay in the backend; with a GPU either is right
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	my $got = $node->safe_psql('postgres', "SET gpuidx.device = auto;" . batch_sql('qs', 'or', 7));
	same_rows($got, $ref{'qs/or/7'}, 'auto: ranked OR equals the backend');
	my $st = stats();
	is($st->{backend_queries}, 64, 'auto, no gpu: the batch stayed in the backend') unless $gpu;
}

# auto's model of ranked batches (exec_cost.c) learns from what ran: the
# backend's ranking time per candidate from the batches the backend ranked
# above (first guesses 30 and 20 ns), the GPU's line only from GPU runs
# (first guesses 0.5 ns a candidate, 150 us a batch)
{
	my $m = $node->safe_psql('postgres', q{
		SELECT rank_and_backend_ns > 0, rank_or_backend_ns > 0 AND rank_or_backend_ns <> 20,
			rank_or_gpu_ns <> 0.5 OR rank_or_gpu_batch_us <> 150,
			rank_and_gpu_ns = 0.5 AND rank_and_gpu_batch_us = 150 AND
			rank_or_gpu_ns = 0.5 AND rank_or_gpu_batch_us = 150
		FROM gpuidx_info()});
	my ($and_ok, $or_moved, $gpu_moved, $gpu_first) = split /\|/, $m;
	is($and_ok, 't', 'auto model: backend cost of ranked AND known');
	is($or_moved, 't', 'auto model: backend cost of ranked OR measured');
	if ($gpu)
	{
		is($gpu_moved, 't', 'auto model: the GPU\'s ranked OR runs measured');
	}
	else
	{
		is($gpu_first, 't', 'auto model, no gpu: no GPU line learned from CPU runs');
	}
}

# a GPU that fails (injected out of memory): the batch reruns on the CPU
if ($gpu)
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('gpu_oom')");
	my $got = $node->safe_psql('postgres',
		"SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off;" . batch_sql('pfor', 'or', 1000));
	my $want = $node->safe_psql('postgres',
		"SET gpuidx.use_executor = off;" . batch_sql('pfor', 'or', 1000));
	same_rows($got, $want, 'gpu out of memory: the rerun on the cpu equals the backend');
	ok(stats()->{gpu_failures} >= 1, 'gpu out of memory: counted');
}

# --- faults -----------------------------------------------------------------
my $dev = $gpu ? 'gpu' : 'cpu';
my $q_and = "SET gpuidx.device = $dev;" . batch_sql('lrc', 'and', 7) . ';';
my $q_or = "SET gpuidx.device = $dev;" . batch_sql('pfor', 'or', 10000) . ';';

my ($rc, $out, $err, $bg);

# the executor killed while a ranked request is queued
gpx_hold($node, 1);
my $pid = gpx_info($node)->{executor_pid};
my $fb = stats()->{fallback_executor_down};
$bg = gpx_bg($node, $q_or);
ok(gpx_wait_waiting($node, 1), 'a ranked request waits in the queue');
is(gpx_info($node)->{queued}, 1, 'it is queued');
my $t0 = time;
kill 'TERM', $pid;
($rc, $out, $err) = gpx_bg_finish($bg);
is($rc, 0, 'executor killed: the ranked batch succeeds') or diag($err);
same_rows($out, "$ref{'pfor/or/10000'}\n", 'executor killed: the backend computed the right answer');
ok(time - $t0 < 8, 'executor killed: no wait for the hold to end');
ok(stats()->{fallback_executor_down} > $fb, 'executor killed: counted as a fallback');
ok($node->poll_query_until('postgres',
	"SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()"),
	'the executor came back');
ok(gpx_wait_slots_free($node), 'executor killed: nothing leaked');

# cancel while queued
gpx_hold($node, 1);
$bg = gpx_bg($node, $q_and);
ok(gpx_wait_waiting($node, 1), 'a ranked request waits again');
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
($rc, $out, $err) = gpx_bg_finish($bg);
like($err, qr/canceling statement due to user request/, 'cancel of a queued ranked request');
ok(gpx_wait_slots_free($node), 'cancel: slot and arena freed');
gpx_hold($node, 0);
same_rows($node->safe_psql('postgres', $q_and), $ref{'lrc/and/7'}, 'after the cancel: right answer');

# statement_timeout while the executor runs it (the slot is ABANDONED)
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 2000)");
($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '400ms'; $q_and");
like($err, qr/statement timeout/, 'statement_timeout while the ranked batch runs');
ok(gpx_wait_slots_free($node), 'the executor frees the abandoned ranked request');
same_rows($node->safe_psql('postgres', $q_or), $ref{'pfor/or/10000'}, 'after the abandoned batch: right answer');

# executor_fallback = off: the executor is held past executor_timeout
gpx_hold($node, 1);
($rc, $out, $err) = $node->psql('postgres',
	"SET gpuidx.executor_fallback = off; SET gpuidx.executor_timeout = 300; $q_and");
like($err, qr/could not serve the ranked query/, 'executor_fallback = off: a clear error');
like($err, qr/did not answer within gpuidx.executor_timeout/, 'executor_fallback = off: the reason');
same_rows($node->safe_psql('postgres', "SET gpuidx.executor_timeout = 300; $q_and"), $ref{'lrc/and/7'},
	'executor_timeout with fallback: the backend answers');
gpx_hold($node, 0);
ok(gpx_wait_slots_free($node), 'timeouts: nothing leaked');

# ranked batches side by side on the GPU's rank streams (gpuidx.rank_merge
# off, gpuidx.rank_streams = 3: the GPU thread starts a ranked batch while
# others run): several backends at once, every answer right, nothing falls
# back; on the GPU, a ranked batch the GPU fails among them is rerun on the
# CPU threads
{
	$node->append_conf('postgresql.conf', "gpuidx.rank_merge = off\ngpuidx.rank_streams = 3\n");
	$node->reload;
	ok(gpx_poll($node, "SELECT current_setting('gpuidx.rank_streams') = '3'"),
		'side by side: the setting is in force');
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	my $dev1 = $gpu ? 'gpu' : 'cpu';
	for my $round (0 .. 1)
	{
		my $f0 = stats()->{gpu_failures};
		my @jobs;
		gpx_fault($node, 'gpu_oom', 0) if $gpu && $round == 1;
		for my $i (0 .. 11)
		{
			my ($t, $m) = ($types[$i % 3], $modes[$i % 2]);
			my $one = $i % 4 < 2;
			my $q = $one ? single_sql($t, $m, 7) : batch_sql($t, $m, 7);
			my $want = $one ? $sref{"$t/$m"} : $ref{"$t/$m/7"};
			push @jobs, [ gpx_bg($node, "SET gpuidx.device = $dev1; SET gpuidx.executor_fallback = off;"
							. join('', map { "$q;\n" } 1 .. 3)),
						  join('', map { "$want\n" } 1 .. 3), "$t ranked $m" . ($one ? '' : ' batch') ];
		}
		for my $j (@jobs)
		{
			my ($rc, $out, $err) = gpx_bg_finish($j->[0]);
			is($rc, 0, "side by side, round $round: $j->[2] ran") or diag($err);
			same_rows($out, $j->[1], "side by side, round $round: $j->[2] equals the backend");
		}
		my $st = stats();
		is($st->{fallbacks}, 0, "side by side, round $round: no fallback");
		if ($gpu && $round == 1)
		{
			ok($st->{gpu_failures} > $f0, "side by side, gpu_oom: counted as a gpu failure ($f0 -> $st->{gpu_failures})");
		}
		elsif ($gpu)
		{
			is($st->{gpu_failures}, 0, 'side by side: no gpu failure');
		}
	}
	if ($gpu)
	{
		my $d = $node->safe_psql('postgres', 'SELECT device_active FROM gpuidx_info()');
		like($d, qr/ranked runs of \d+ queries, at most \d+ side by side/,
			'side by side: the device counts its ranked runs in flight');
		diag("side by side: $1") if $d =~ /(at most \d+ side by side)/;
	}
	ok(gpx_wait_slots_free($node), 'side by side: nothing leaked');
}

$node->stop;
done_testing();
