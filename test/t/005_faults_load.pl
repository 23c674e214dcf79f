# 005_faults_load.pl - faults under load.  Six pgbench clients run the soak
# mix of GpxTap.pm (writes, and reads checking every intersection against
# a plain SQL intersection in the same snapshot) while, phase by phase:
# queries are cancelled, hit statement_timeout, sessions are terminated,
# the executor is terminated and fails, the arena runs out, the GPU runs
# out of memory (fault gpu_oom), the executor is killed with SIGKILL (the
# whole server restarts) and the server is restarted (pg_ctl restart,
# fast).  A client whose session is cancelled or killed, or who cannot
# connect, is started again until the phase ends.  Errors are allowed
# where a fault explains them (and only messages of those kinds); wrong
# answers never.  After every phase: no wrong answer, every insert whose
# COMMIT pgbench saw succeed is in the table, every stored list equals its
# array, nobody is left waiting for the executor, the executor runs, and
# no request slot or arena byte is in use.
#
#   GPUIDX_FAULT_SECS=20 prove -I ... test/t/005_faults_load.pl  (longer phases)
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use GpxTap;

my $secs = $ENV{GPUIDX_FAULT_SECS} // 6;
die "GPUIDX_FAULT_SECS must be at least 5" unless $secs =~ /^\d+$/ && $secs >= 5;
my $procs = 6;

# a 1 MB arena and 16 request slots, so that they can run out
my $node = gpx_node('fload', conf => qq{
gpuidx.device = auto
gpuidx.executor_threads = 2
gpuidx.arena_size = 1MB
gpuidx.max_requests = 16
gpuidx.cache_size = 4MB
gpuidx.batch_max_wait = 2000
max_connections = 40
});
my $s = gpx_soak_setup($node, nterms => 160);

# soak_check_big(): 15 queries of two fresh lists of 50000 docIDs each
# (about 60 kB, never cached; each query needs 200 kB for its result) through
# the executor as one posting_intersect_batch, checked like soak_check
$node->safe_psql('postgres', q{
CREATE FUNCTION soak_check_big() RETURNS int
LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
  got text;
  want text;
  wrong int := 0;
BEGIN
  PERFORM set_config('gpuidx.device', 'cpu', true);
  CREATE TEMP TABLE IF NOT EXISTS big (i int, a int4[]);
  TRUNCATE big;
  INSERT INTO big SELECT i, soak_rand_list(50000, 10000000) FROM generate_series(1, 16) i;
  SELECT string_agg(b.qid || '=' || b.docs::text, ' ' ORDER BY b.qid) INTO got
  FROM (SELECT array_agg(q.i::bigint ORDER BY q.i, l.i) AS qs,
               array_agg(posting_pfor(l.a) ORDER BY q.i, l.i) AS ls
        FROM generate_series(1, 15) q(i) JOIN big l ON l.i IN (q.i, q.i + 1)) z,
       posting_intersect_batch(z.qs, z.ls) b;
  SELECT string_agg(q.i || '=' || ARRAY(SELECT unnest(x.a) INTERSECT SELECT unnest(y.a) ORDER BY 1)::text,
                    ' ' ORDER BY q.i) INTO want
  FROM generate_series(1, 15) q(i) JOIN big x ON x.i = q.i JOIN big y ON y.i = q.i + 1;
  IF got IS DISTINCT FROM want THEN
    wrong := soak_note_wrong('cpu', 'pf', 'posting_intersect_batch (big)', NULL, md5(got), md5(want));
  END IF;
  INSERT INTO soak_checks VALUES ('cpu', 'pf', 15, wrong);
  RETURN wrong;
END $$;
});

# --- helpers ------------------------------------------------------------------

# Poll $sql until it returns 't', at most $max seconds.
sub poll_for
{
	my ($sql, $max) = @_;
	return gpx_poll($node, $sql, $max);
}

# Wait (up to 5 s) until a pgbench session waits for the executor.
sub wait_waiters
{
	return poll_for(q{SELECT count(*) > 0 FROM pg_stat_activity
		WHERE application_name = 'gpx_soak' AND wait_event_type = 'Extension'}, 5);
}

# Apply pg_cancel_backend or pg_terminate_backend to up to $n running
# pgbench sessions (only those waiting for the executor with $waiting);
# returns how many were signalled.
sub signal_sessions
{
	my ($fn, $n, $waiting) = @_;
	my $w = $waiting ? "AND wait_event_type = 'Extension'" : '';
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FILTER (WHERE $fn(pid)) FROM (
		  SELECT pid FROM pg_stat_activity
		  WHERE application_name = 'gpx_soak' AND state = 'active' $w LIMIT $n) x});
}

my (%total, @report);
my $prev = gpx_soak_verify($node, $s);

# Run one phase: the load for $secs seconds, $inject called 1.5 s in (it
# returns a description of what it did); then the checks every phase must
# pass.  allow: the kinds of client errors the fault explains (see
# gpx_soak_load_finish).  Returns the load summary.
sub phase
{
	my ($name, $inject, %o) = @_;
	my $load = gpx_soak_load_start($node, $s, secs => $secs, procs => $procs,
		clients => 1, restart => 1, tag => $name, env => $o{env});
	sleep 1.5;
	my $did = $inject->();
	my $r = gpx_soak_load_finish($load);

	# (exit 1: could not connect, 2: a client aborted; both end a run early)
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
	my %allow = map { $_ => 1 } @{ $o{allow} };
	is_deeply([ grep { !$allow{$_} } sort keys %{ $r->{err} } ], [],
		"$name: errors only of the kinds this fault explains (" . (join(', ', @{ $o{allow} }) || 'none') . ')')
	  or diag(explain($r->{err}));
	is($v->{missing}, 0, "$name: every committed insert is in the table ($v->{logged} so far)");
	is($v->{corrupt}, 0, "$name: every stored list equals its array");
	my $checks = $v->{checks} - $prev->{checks};
	ok($checks > 0 && $r->{reads} > 0, "$name: reads were checked ($checks intersections)");

	my $errs = join(', ', map { "$_ $r->{err}{$_}" } sort keys %{ $r->{err} }) || 'none';
	my $line = sprintf('%-17s %4.1f s, %2d pgbench runs, %4d reads (%5d intersections checked), '
		  . '%3d writes, %d wrong; error messages: %s; fault: %s',
		  $name, $r->{wall}, $r->{runs}, $r->{reads}, $checks, $r->{writes},
		  $v->{wrong} - $prev->{wrong}, $errs, $did);
	diag($line);
	push @report, $line;
	$total{checks} += $checks;
	$total{reads} += $r->{reads};
	$total{writes} += $r->{writes};
	$total{wall} += $r->{wall};
	$total{errors} += $_ for values %{ $r->{err} };
	$prev = $v;
	return $r;
}

my ($r, $st, $st2, $starts, $pid);

# Signal two sessions queued in the executor (hold), two in a running batch
# (stall) and two anywhere with FN; returns the three counts.
sub signal_three
{
	my ($fn) = @_;
	my @n;
	gpx_fault($node, 'hold', 1000);
	wait_waiters();
	push @n, signal_sessions($fn, 2, 1);
	sleep 1;
	gpx_fault($node, 'stall', 1500);
	wait_waiters();
	push @n, signal_sessions($fn, 2, 1);
	sleep 1;
	push @n, signal_sessions($fn, 2, 0);
	gpx_fault($node, 'none');
	return @n;
}

# --- query cancel ---------------------------------------------------------------
# while queued (hold), while the executor runs the request (stall), anywhere
$r = phase('cancel', sub {
	my @n = signal_three('pg_cancel_backend');
	return "sessions cancelled: $n[0] queued in the executor, $n[1] in a running batch, $n[2] anywhere";
}, allow => [qw(cancel run_aborted)]);
ok(($r->{err}{cancel} // 0) > 0, 'cancel: clients saw their statements cancelled');

# --- statement_timeout ----------------------------------------------------------
# clients run with statement_timeout = 500ms; the executor stalls batches
$r = phase('statement_timeout', sub {
	for (1 .. 3) { gpx_fault($node, 'stall', 2000); sleep 1.2; }
	return 'statement_timeout = 500ms, three batches stalled 2 s';
}, env => { PGOPTIONS => '-c statement_timeout=500' },
	allow => [qw(statement_timeout run_aborted)]);
ok(($r->{err}{statement_timeout} // 0) > 0, 'statement_timeout: clients saw timeouts');

# --- backend termination ----------------------------------------------------------
$r = phase('terminate', sub {
	my @n = signal_three('pg_terminate_backend');
	return "sessions terminated: $n[0] queued in the executor, $n[1] in a running batch, $n[2] anywhere";
}, allow => [qw(terminated connection_lost run_aborted)]);
ok(($r->{err}{terminated} // 0) + ($r->{err}{connection_lost} // 0) > 0,
	'terminate: clients lost their sessions');

# --- the executor terminated (SIGTERM) and failing --------------------------------
# backends whose requests it held compute them themselves: no client error
$starts = gpx_info($node)->{executor_starts};
$st = gpx_stats($node);
$r = phase('executor_term', sub {
	for my $round (1 .. 3)
	{
		my $p = gpx_executor_pid($node);
		if ($round == 2)
		{
			# taken with the next batch: this session's own checks send
			# one, should the load have ended meanwhile (answers right)
			gpx_fault($node, 'error');
			is($node->safe_psql('postgres', 'SELECT soak_check(1, 0, 1, 2, 3)'), '0',
				'executor_term: right answers while the error fault is armed');
		}
		else { kill 'TERM', $p; }
		poll_for("SELECT executor_state = 'running' AND executor_pid <> $p FROM gpuidx_info()", 20);
		sleep 0.5;
	}
	return 'executor SIGTERM, error fault, SIGTERM';
}, allow => []);
ok(gpx_info($node)->{executor_starts} >= $starts + 3, 'executor_term: the executor restarted each time');
$st2 = gpx_stats($node);
diag('executor_term: fallbacks executor down ' . ($st2->{fallback_executor_down} - $st->{fallback_executor_down})
	  . ', failed ' . ($st2->{fallback_failed} - $st->{fallback_failed})
	  . ', timeout ' . ($st2->{fallback_timeout} - $st->{fallback_timeout}));

# --- arena exhaustion -------------------------------------------------------------
# the executor holds its queue while two sessions send batches of 15 big
# queries (each needs a third of the arena) until the arena has run out
# (at most 25 s: however long the sessions take to start), then lets go;
# the rest is computed in the backends
$st = gpx_stats($node);
my @big;
$r = phase('arena_full', sub {
	gpx_hold($node, 1);
	for (1 .. 2)
	{
		push @big, gpx_bg($node, q{
			BEGIN ISOLATION LEVEL REPEATABLE READ;
			SELECT soak_check_big();
			COMMIT;});
	}
	my $full = poll_for('SELECT fallback_arena_full > ' . $st->{fallback_arena_full}
		  . ' FROM gpuidx_stats', 25);
	gpx_hold($node, 0);
	my @res = map { [ gpx_bg_finish($_) ] } @big;
	my $ok = grep { $_->[0] == 0 && $_->[1] =~ /^0$/m } @res;
	is($ok, 2, 'arena_full: both big batches right') or diag(explain(\@res));
	return 'hold until the arena is full (' . ($full ? 'it was' : 'it was not, in 25 s')
	  . ') + 2 sessions with 15 queries of about 320 kB each (1 MB arena, 16 slots)';
}, allow => []);
$st2 = gpx_stats($node);
ok($st2->{fallback_arena_full} > $st->{fallback_arena_full},
	'arena_full: requests found the arena full ('
	  . ($st2->{fallback_arena_full} - $st->{fallback_arena_full}) . ' fallbacks)');

# --- GPU out of memory ------------------------------------------------------------
# gpuidx.device = gpu for the executor; without a GPU its batches run on
# cpu threads and gpu_failures stays 0 until gpu_oom is armed; armed for
# 2.5 s, every batch counts as a GPU batch that ran out of memory and is
# redone on the cpu threads
my $logpos = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM SET gpuidx.device = gpu; SELECT pg_reload_conf()');
ok(poll_for("SELECT device = 'gpu' FROM gpuidx_info()", 20), 'gpu_oom: gpuidx.device = gpu');
# the executor reopens its device after the reload (and says so when no GPU)
my $has_gpu = gpx_info($node)->{device_active} =~ /^gpu/;
$node->wait_for_log(qr/gpuidx executor runs batches on cpu threads/, $logpos) unless $has_gpu;
$st = gpx_stats($node);
my ($g_before, $g_armed);
$r = phase('gpu_oom', sub {
	$g_before = gpx_stats($node)->{gpu_failures};
	gpx_fault($node, 'gpu_oom', 2500);
	sleep 3;
	$g_armed = gpx_stats($node)->{gpu_failures};
	return 'gpuidx.device = gpu, gpu_oom armed 2.5 s: ' . ($g_armed - $g_before)
	  . ' batches failed as out of memory and ran on cpu threads';
}, allow => []);
$st2 = gpx_stats($node);
is($g_before, $st->{gpu_failures}, 'gpu_oom: no GPU failure before the fault was armed');
ok($g_armed > $g_before, 'gpu_oom: GPU failures counted while armed (' . ($g_armed - $g_before) . ')');
is($st2->{gpu_failures}, $g_armed, 'gpu_oom: none after it expired');
diag("gpu_oom: GPU batches $st->{gpu_batches} -> $st2->{gpu_batches}, "
	  . "GPU failures $st->{gpu_failures} -> $g_before (before arming) -> $g_armed (armed) -> $st2->{gpu_failures}");
# (a full arena may still send a request back; a GPU failure must not)
is( $st2->{fallback_failed} + $st2->{fallback_executor_down} + $st2->{fallback_timeout},
	$st->{fallback_failed} + $st->{fallback_executor_down} + $st->{fallback_timeout},
	'gpu_oom: the executor served every request it took');
ok($node->log_contains('injected fault gpu_oom: out of gpu or pinned memory'),
	'gpu_oom: logged as out of memory');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET gpuidx.device; SELECT pg_reload_conf()');
ok(poll_for("SELECT device = 'auto' FROM gpuidx_info()", 20), 'gpu_oom: back to auto');

# --- the executor killed (SIGKILL): PostgreSQL restarts every process ----------------
$pid = gpx_executor_pid($node);
$r = phase('executor_kill9', sub {
	kill 'KILL', $pid;
	poll_for("SELECT executor_state = 'running' FROM gpuidx_info()", 60);
	return "executor (pid $pid) SIGKILL, server restarted by the postmaster";
}, allow => [qw(terminated connection_lost run_aborted)]);
ok($node->log_contains(qr/\(PID $pid\) was terminated by signal 9/),
	'executor_kill9: the postmaster saw the crash and restarted');
ok(gpx_executor_pid($node) != $pid, 'executor_kill9: a new executor');

# --- server restart (pg_ctl restart, fast) ------------------------------------------
$pid = gpx_executor_pid($node);
$r = phase('server_restart', sub {
	$node->restart;
	return 'pg_ctl restart (mode fast)';
}, allow => [qw(terminated connection_lost run_aborted)]);
ok(gpx_executor_pid($node) != $pid, 'server_restart: a new executor');

# --- all together -----------------------------------------------------------------
my $v = gpx_soak_verify($node, $s);
diag(sprintf('faults under load: %d phases, %d clients restarting, %.0f s of load, '
	  . '%d read transactions (%d intersections checked), %d writes, '
	  . '%d client error messages (all of kinds the faults explain), %d wrong answers, '
	  . '%d committed inserts all present, %d rows, %d corrupt',
	  scalar @report, $procs, $total{wall}, $total{reads}, $v->{checks}, $total{writes},
	  $total{errors}, $v->{wrong}, $v->{logged}, $v->{rows}, $v->{corrupt}));
is($v->{wrong}, 0, 'no wrong answer in any phase');
my $log = slurp_file($node->logfile);
my @sig = $log =~ /(was terminated by signal \d+)/g;
is_deeply(\@sig, ['was terminated by signal 9'], 'no process crashed but the one killed');
unlike($log, qr/\b(?:PANIC|TRAP):/, 'no PANIC or assertion failure in the server log');
is($node->safe_psql('postgres', 'SELECT count(*) FROM soak_checks WHERE wrong > 0'), '0',
	'no check with a difference');

$node->stop;
done_testing();
