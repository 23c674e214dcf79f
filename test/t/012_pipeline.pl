# 012_pipeline.pl - several batches in flight.  The executor keeps up to
# gpuidx.pipeline_depth = 4 batches in flight (taken, built and handed to
# its device while the ones before run), on a small arena (1 MB, 24
# request slots) and a low batching threshold, under the soak mix of
# GpxTap.pm (10 pgbench clients whose reads check every intersection
# against a plain SQL intersection of the arrays in the same snapshot,
# while inserts and updates go on) and two clients sending batches of 24
# intersections, several requests in flight each.  Phase by phase, with batches in
# flight: no fault; the GPU runs out of memory (fault gpu_oom, batch after
# batch and for a while: each failed batch runs again on the CPU threads);
# the executor stalls while taking a batch; it fails with an error and
# exits with batches in flight; it is terminated (SIGTERM); sessions are
# cancelled, time out and are terminated while their requests are in
# batches in flight; the depth and gpuidx.gpu_thread change on reload
# under load (the batches in flight are finished first).  After every phase: no wrong answer, no
# committed insert lost, nobody left waiting, the executor runs, no
# request slot or arena byte in use, and batches were in flight together.
# The executor runs with gpuidx.device = gpu: on a machine without a GPU
# its CPU threads run the batches (the GPU faults then apply to them as
# they would to a GPU); with a GPU the same checks run on it.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use GpxTap;

my $secs = $ENV{GPUIDX_FAULT_SECS} // 5;
my $node = gpx_node('pipe', conf => qq{
gpuidx.device = gpu
gpuidx.pipeline_depth = 4
gpuidx.executor_threads = 3
gpuidx.arena_size = 1MB
gpuidx.max_requests = 24
gpuidx.cache_size = 4MB
gpuidx.batch_threshold = 30000
gpuidx.batch_max_wait = 300
max_connections = 40
});
my $s = gpx_soak_setup($node, nterms => 120);

# The heavy load beside the soak mix: pipe_check_big() intersects 24 pairs
# of lists of 12000 docIDs (stored, posting_pfor) in one
# posting_intersect_batch, which the backend sends as requests of a few
# queries each, several in flight; checked against answers computed once
# by plain SQL.  Two clients run it in a loop, so the executor has batches
# in flight while the soak's requests come.
$node->safe_psql('postgres', q{
SELECT setseed(0.57);
CREATE TABLE big AS SELECT i, soak_rand_list(12000, 1200000) AS a FROM generate_series(1, 24) i;
ALTER TABLE big ADD COLUMN p posting_pfor;
UPDATE big SET p = posting_pfor(a);
CREATE TABLE big_want AS
  SELECT md5(string_agg(x.i || '=' || ARRAY(SELECT unnest(x.a) INTERSECT SELECT unnest(y.a)
                                            ORDER BY 1)::text, ' ' ORDER BY x.i)) AS h
  FROM big x JOIN big y ON y.i = x.i % 24 + 1;
CREATE FUNCTION pipe_check_big() RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  got text;
  wrong int := 0;
BEGIN
  SELECT md5(string_agg(b.qid || '=' || b.docs::text, ' ' ORDER BY b.qid)) INTO got
  FROM (SELECT array_agg(x.i::bigint ORDER BY x.i, l.i) AS qs, array_agg(l.p ORDER BY x.i, l.i) AS ls
        FROM big x JOIN big l ON l.i IN (x.i, x.i % 24 + 1)) z,
       posting_intersect_batch(z.qs, z.ls) b;
  IF got IS DISTINCT FROM (SELECT h FROM big_want) THEN
    wrong := soak_note_wrong(current_setting('gpuidx.device'), 'pf', 'posting_intersect_batch (big)',
                             NULL, got, (SELECT h FROM big_want));
  END IF;
  INSERT INTO soak_checks VALUES (current_setting('gpuidx.device'), 'pf', 24, wrong);
  RETURN wrong;
END $$;
});
PostgreSQL::Test::Utils::append_to_file("$s->{dir}/big.sql", "SELECT pipe_check_big();\n");

# Poll $sql until it returns 't', at most $max seconds.
sub poll_for
{
	my ($sql, $max) = @_;
	return gpx_poll($node, $sql, $max);
}

# Signal up to $n soak sessions waiting for the executor with $fn.
sub signal_waiting
{
	my ($fn, $n) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE $fn(pid)) FROM (
		  SELECT pid FROM pg_stat_activity
		  WHERE application_name = 'gpx_soak' AND wait_event_type = 'Extension' LIMIT $n) x});
}

# Start two clients running pipe_check_big() in a loop for the phase
# (restarted when a fault ends them early), like gpx_soak_load_start.
sub heavy_start
{
	my ($tag, $env) = @_;
	my ($host, $port) = ($node->host, $node->port);
	local %ENV = (%ENV, PGAPPNAME => 'gpx_soak', %{ $env // {} });
	my $sh = qq{
end=\$((SECONDS + $secs)); i=0
while :; do
  rem=\$((end - SECONDS)); [ \$rem -ge 1 ] || break
  i=\$((i + 1)); out='$s->{dir}/big.$tag.'\$i.out
  pgbench -n -c 2 -j 2 -T \$rem -f '$s->{dir}/big.sql' -h '$host' -p $port postgres > "\$out" 2>&1
  echo "pgbench exit status \$?" >> "\$out"
  sleep 0.3
done
};
	return IPC::Run::start([ 'bash', '-c', $sh ], '>', \my $o1, '2>', \my $e1,
		IPC::Run::timeout($secs + $PostgreSQL::Test::Utils::timeout_default));
}

# Wait for the heavy clients; their wrong answers and error lines join $r.
sub heavy_finish
{
	my ($h, $r) = @_;
	eval { $h->finish; };
	push @{ $r->{unexpected} }, "heavy pgbench did not end in time: $@" if $@;
	for my $f (sort glob("$s->{dir}/big.*.out"))
	{
		my $t = slurp_file($f);
		unlink $f;
		push @{ $r->{exit} }, $1 while $t =~ /^pgbench exit status (\d+)$/mg;
		for my $line (split /\n/, $t)
		{
			push @{ $r->{wrong} }, $line if $line =~ /gpuidx soak: wrong answer/;
			next unless $line =~ /\b(?:ERROR|FATAL|PANIC):|pgbench: (?:error|fatal):/;
			if ($line =~ /canceling statement due to user request/) { $r->{err}{cancel}++; }
			elsif ($line =~ /canceling statement due to statement timeout/) { $r->{err}{statement_timeout}++; }
			elsif ($line =~ /terminating connection due to administrator command/) { $r->{err}{terminated}++; }
			elsif ($line =~ /Run was aborted|aborted in command/) { $r->{err}{run_aborted}++; }
			else { push @{ $r->{unexpected} }, $line; }
		}
	}
	return;
}

my $prev = gpx_soak_verify($node, $s);

# One phase: the load for $secs seconds with $inject called 1 s in (it
# returns what it did), then the checks every phase must pass; allow: the
# client error kinds the fault explains.  Returns the gpuidx_stats of the
# phase (reset when it starts).
sub phase
{
	my ($name, $inject, %o) = @_;
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	my $load = gpx_soak_load_start($node, $s, secs => $secs, procs => 2,
		clients => 5, restart => 1, tag => $name, env => $o{env});
	my $big = heavy_start($name, $o{env});
	sleep 1;
	my $did = $inject->();
	my $r = gpx_soak_load_finish($load);
	heavy_finish($big, $r);
	my $st = gpx_stats($node);

	is(scalar(grep { !/^[012]$/ } @{ $r->{exit} }), 0, "$name: every pgbench ended")
	  or diag(explain($r->{exit}));
	ok(poll_for("SELECT executor_state = 'running' FROM gpuidx_info()", 60),
		"$name: the executor runs");
	ok(poll_for(q{SELECT count(*) = 0 FROM pg_stat_activity
			WHERE application_name = 'gpx_soak' OR (backend_type = 'client backend'
			  AND wait_event_type = 'Extension')}, 30),
		"$name: no session left behind or waiting for the executor");
	ok(poll_for('SELECT slots_used = 0 AND arena_used = 0 AND queued = 0 FROM gpuidx_info()', 30),
		"$name: every request slot and arena byte free");
	my $v = gpx_soak_verify($node, $s);
	is(scalar @{ $r->{wrong} }, 0, "$name: no wrong-answer warning")
	  or diag(join("\n", @{ $r->{wrong} }));
	is($v->{wrong}, 0, "$name: no wrong answer recorded");
	is_deeply($r->{unexpected}, [], "$name: every error message is of a known kind")
	  or diag(join("\n", @{ $r->{unexpected} }));
	my %allow = map { $_ => 1 } @{ $o{allow} // [] };
	is_deeply([ grep { !$allow{$_} } sort keys %{ $r->{err} } ], [],
		"$name: errors only of the kinds this fault explains")
	  or diag(explain($r->{err}));
	is($v->{missing}, 0, "$name: every committed insert is in the table");
	is($v->{corrupt}, 0, "$name: every stored list equals its array");
	my $checks = $v->{checks} - $prev->{checks};
	ok($checks > 0, "$name: reads were checked ($checks intersections)");
	ok($st->{max_batches_in_flight} >= 2 && $st->{batches_overlapped} > 0,
		"$name: batches were in flight together (at most $st->{max_batches_in_flight}, "
		  . "$st->{batches_overlapped} of $st->{batches} taken beside another)");
	diag(sprintf('%-14s %4.1f s, %4d reads (%5d intersections checked), %3d writes; '
		  . 'batches %d (%d beside another, at most %d in flight, %.1f requests each), '
		  . 'gpu failures %d, fallbacks %d; errors: %s; fault: %s',
		  $name, $r->{wall}, $r->{reads}, $checks, $r->{writes}, $st->{batches},
		  $st->{batches_overlapped}, $st->{max_batches_in_flight},
		  $st->{mean_batch_requests}, $st->{gpu_failures}, $st->{fallbacks},
		  join(', ', map { "$_ $r->{err}{$_}" } sort keys %{ $r->{err} }) || 'none', $did));
	$prev = $v;
	return $st;
}

my ($st, $pid, $starts);

$st = phase('plain', sub { return 'none' });
is($st->{gpu_failures}, 0, 'plain: no gpu failure');

$st = phase('gpu_oom', sub {
	# one batch at a time, then a whole second: each fails while others run
	for (1 .. 20)
	{
		gpx_fault($node, 'gpu_oom', 0);
		sleep 0.05;
	}
	gpx_fault($node, 'gpu_oom', 1000);
	sleep 1.2;
	return 'gpu_oom for 20 single batches, then for 1 s';
});
ok($st->{gpu_failures} > 0, "gpu_oom: batches failed on the gpu and ran on cpu threads ($st->{gpu_failures})");
is($st->{fallback_failed} + $st->{fallback_executor_down}, 0,
	'gpu_oom: the backends saw nothing of it');
ok($node->log_contains('injected fault gpu_oom: out of gpu or pinned memory'),
	'gpu_oom: logged');

$st = phase('stall', sub {
	for (1 .. 3)
	{
		gpx_fault($node, 'stall', 300);
		sleep 0.5;
	}
	return 'three stalls of 300 ms while taking a batch';
});

$pid = gpx_executor_pid($node);
$starts = gpx_info($node)->{executor_starts};
$st = phase('error', sub {
	gpx_fault($node, 'error');
	poll_for("SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()", 30);
	return 'executor error while taking a batch, batches in flight';
});
ok(gpx_info($node)->{executor_starts} > $starts, 'error: the executor restarted');
ok($node->log_contains('gpuidx executor: injected fault'), 'error: logged');

$pid = gpx_executor_pid($node);
$st = phase('sigterm', sub {
	kill 'TERM', $pid;
	poll_for("SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()", 30);
	return "executor (pid $pid) SIGTERM with batches in flight";
});

$st = phase('cancel', sub {
	my $n = 0;
	for (1 .. 10)
	{
		$n += signal_waiting('pg_cancel_backend', 2);
		sleep 0.1;
	}
	for (1 .. 4)
	{
		$n += signal_waiting('pg_terminate_backend', 1);
		sleep 0.2;
	}
	return "$n sessions cancelled or terminated while waiting";
}, allow => [qw(cancel terminated run_aborted)]);

$st = phase('timeout', sub { return 'statement_timeout = 15ms in every session' },
	env => { PGOPTIONS => '-c statement_timeout=15ms' },
	allow => [qw(statement_timeout run_aborted)]);

$st = phase('reload', sub {
	for my $d ([1, 'off'], [3, 'on'], [2, 'off'], [4, 'on'])
	{
		$node->safe_psql('postgres',
			"ALTER SYSTEM SET gpuidx.pipeline_depth = $d->[0];"
			  . " ALTER SYSTEM SET gpuidx.gpu_thread = $d->[1]; SELECT pg_reload_conf()");
		sleep 0.6;
	}
	return 'gpuidx.pipeline_depth 1, 3, 2, 4 and gpuidx.gpu_thread off, on, off, on on reload';
});
is(gpx_info($node)->{pipeline_depth}, 4, 'reload: the depth is the last one set');

my $log = slurp_file($node->logfile);
unlike($log, qr/\b(?:PANIC|TRAP):/, 'no PANIC or assertion failure in the server log');
my @sig = $log =~ /(was terminated by signal \d+)/g;
is_deeply(\@sig, [], 'no process crashed');
$node->stop;
done_testing();
