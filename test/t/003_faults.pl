# 003_faults.pl - faults are ordinary events.  With requests held in the
# executor's queue or stalled in a batch: statement_timeout, query cancel,
# backend termination, gpuidx.executor_timeout; the executor terminated
# (SIGTERM), failing with an error, and killed with SIGKILL (the whole
# server restarts); a full arena and a request larger than the arena.
# Every time: the right answer or a clear error, no leaked slot or arena
# byte, nobody waiting forever, and the executor back afterwards.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use GpxTap;

# a 1 MB arena so that two big requests do not fit at once
my $node = gpx_node('faults', conf => qq{
gpuidx.device = cpu
gpuidx.arena_size = 1MB
gpuidx.max_requests = 16
gpuidx.batch_threshold = 2000000000
gpuidx.batch_max_wait = 1000
});
gpx_data($node, nterms => 40, maxlen => 5000, nqueries => 50);
$node->safe_psql('postgres', q{
	SELECT setseed(0.77);
	-- big: ~500 kB requests (100K candidates); huge: larger than the arena
	INSERT INTO p_pfor SELECT 1000 + t, posting_pfor(ARRAY(
	  SELECT DISTINCT (random() * 999999 + 0 * t)::int FROM generate_series(1, 110000)))
	FROM generate_series(1, 3) t;
	INSERT INTO p_pfor SELECT 2000 + t, posting_pfor(ARRAY(
	  SELECT DISTINCT (random() * 1999999 + 0 * t)::int FROM generate_series(1, 400000)))
	FROM generate_series(1, 2) t;
});

# multiples of 2, 3 and 5 below 60000 (see gpx_data): 2001 docIDs
my $q_small = "SELECT posting_intersect(docs)::text FROM p_pfor WHERE term IN (41, 42, 44, 3)";
my $q_big = "SELECT md5(posting_intersect(docs)::text) FROM p_pfor WHERE term IN (1001, 1002)";
my $q_big2 = "SELECT md5(posting_intersect(docs)::text) FROM p_pfor WHERE term IN (1002, 1003)";
my $q_huge = "SELECT md5(posting_intersect(docs)::text) FROM p_pfor WHERE term IN (2001, 2002)";
my %ref;
for my $q ($q_small, $q_big, $q_big2, $q_huge)
{
	$ref{$q} = $node->safe_psql('postgres', "SET gpuidx.use_executor = off; $q");
}
ok(length($ref{$q_small}) > 2, 'the small query has a non-empty answer');

sub stat_of { return gpx_stats($node)->{ $_[0] }; }

my ($rc, $out, $err, $bg, $t0);

# --- statement_timeout while queued --------------------------------------
gpx_hold($node, 1);
$t0 = time;
($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '300ms'; $q_small");
like($err, qr/canceling statement due to statement timeout/, 'statement_timeout while queued');
ok(time - $t0 < 5, 'the timeout was not delayed by the executor');
ok(gpx_wait_slots_free($node), 'statement_timeout: slot and arena freed');

# --- query cancel while queued -------------------------------------------
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a backend waits for the executor');
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
($rc, $out, $err) = gpx_bg_finish($bg);
like($err, qr/canceling statement due to user request/, 'pg_cancel_backend while queued');
ok(gpx_wait_slots_free($node), 'cancel: slot and arena freed');

# --- backend exit with a request in flight -------------------------------
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a backend waits again');
$node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM pg_stat_activity
	WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
($rc, $out, $err) = gpx_bg_finish($bg);
like($err, qr/terminating connection/, 'pg_terminate_backend while queued');
ok(gpx_wait_slots_free($node), 'backend exit: slot and arena freed');

# --- the executor terminated (SIGTERM) with a request queued -------------
gpx_hold($node, 1);
my $pid = gpx_executor_pid($node);
my $fb = stat_of('fallback_executor_down');
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a backend waits for the executor');
$t0 = time;
kill 'TERM', $pid;
($rc, $out, $err) = gpx_bg_finish($bg);
is($rc, 0, 'SIGTERM to the executor: the waiting query succeeds') or diag($err);
is($out, "$ref{$q_small}\n", 'SIGTERM: the backend computed the right answer');
ok(time - $t0 < 8, 'SIGTERM: the backend did not wait for the hold to end');
ok(stat_of('fallback_executor_down') > $fb, 'SIGTERM: counted as a fallback');
ok($node->poll_query_until('postgres',
	"SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()"),
	'SIGTERM: the executor came back with a new pid');
ok(gpx_wait_slots_free($node), 'SIGTERM: nothing leaked');
gpx_hold($node, 0);
is($node->safe_psql('postgres', $q_small), $ref{$q_small}, 'new executor answers right');

# --- the executor exits on an error in the middle of a batch -------------
$pid = gpx_executor_pid($node);
my $starts = gpx_info($node)->{executor_starts};
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('error')");
is($node->safe_psql('postgres', $q_small), $ref{$q_small},
	'executor error during the batch: right answer (computed in the backend)');
ok($node->poll_query_until('postgres',
	"SELECT executor_state = 'running' AND executor_pid <> $pid FROM gpuidx_info()"),
	'executor error: the executor restarted');
ok(gpx_info($node)->{executor_starts} > $starts, 'executor error: counted as a start');
ok($node->log_contains('gpuidx executor: injected fault'), 'executor error: logged');
ok(gpx_wait_slots_free($node), 'executor error: nothing leaked');
is($node->safe_psql('postgres', $q_small), $ref{$q_small}, 'and the next query runs there');

# --- cancel while the executor runs the request (slot ABANDONED) --------
# (the stall outlasts the statement by far: the slot is looked at while
# the executor still runs it)
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 6000)");
($rc, $out, $err) = $node->psql('postgres', "SET statement_timeout = '500ms'; $q_small");
like($err, qr/statement timeout/, 'statement_timeout while the batch runs');
is(gpx_info($node)->{slots_used}, 1, 'the running request stays with the executor');
ok(gpx_wait_slots_free($node), 'the executor frees the abandoned request when done');
is($node->safe_psql('postgres', $q_small), $ref{$q_small}, 'right answer after an abandoned batch');

# --- gpuidx.executor_timeout ------------------------------------------------
$fb = stat_of('fallback_timeout');
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 2500)");
$t0 = time;
is($node->safe_psql('postgres', "SET gpuidx.executor_timeout = 300; $q_small"),
	$ref{$q_small}, 'executor_timeout: right answer from the backend');
ok(time - $t0 < 2.4, 'executor_timeout: no wait for the stalled batch');
ok(stat_of('fallback_timeout') > $fb, 'executor_timeout: counted');
ok(gpx_wait_slots_free($node), 'executor_timeout: nothing leaked');

# --- a full arena -----------------------------------------------------------
$fb = stat_of('fallback_arena_full');
# (the stall outlasts the checks below by far, on a slow machine too;
# the big request waits for it)
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('stall', 10000)");
$bg = gpx_bg($node, "SET gpuidx.executor_timeout = 0; $q_big;");
ok($node->poll_query_until('postgres', 'SELECT slots_used = 1 AND queued = 0 FROM gpuidx_info()'),
	'a big request runs (stalled)');
ok(gpx_info($node)->{arena_used} > 512 * 1024, 'it holds more than half the arena');
is($node->safe_psql('postgres', $q_big2), $ref{$q_big2}, 'arena full: right answer from the backend');
ok(stat_of('fallback_arena_full') > $fb, 'arena full: counted');
($rc, $out, $err) = $node->psql('postgres', "SET gpuidx.executor_fallback = off; $q_big2");
like($err, qr/could not serve the intersection.*\n.*arena has no room/,
	'arena full with executor_fallback = off: clear error');
($rc, $out, $err) = gpx_bg_finish($bg);
is($out, "$ref{$q_big}\n", 'the stalled big request completes right');
ok(gpx_wait_slots_free($node), 'arena full: nothing leaked');

# --- a request larger than the arena ----------------------------------------
$fb = stat_of('fallback_too_large');
is($node->safe_psql('postgres', $q_huge), $ref{$q_huge}, 'request larger than the arena: right answer');
ok(stat_of('fallback_too_large') > $fb, 'too large: counted');
($rc, $out, $err) = $node->psql('postgres', "SET gpuidx.executor_fallback = off; $q_huge");
like($err, qr/could not serve the intersection.*\n.*larger than the shared arena/,
	'too large with executor_fallback = off: clear error');
ok(gpx_wait_slots_free($node), 'too large: nothing leaked');

# --- SIGKILL: PostgreSQL restarts every process ----------------------------
gpx_hold($node, 1);
$bg = gpx_bg($node, "$q_small;");
ok(gpx_wait_waiting($node, 1), 'a backend waits before the kill');
$pid = gpx_executor_pid($node);
kill 'KILL', $pid;
($rc, $out, $err) = gpx_bg_finish($bg);
isnt($rc, 0, 'SIGKILL: the waiting session was ended by the crash restart, not left waiting');
ok(gpx_poll($node, "SELECT executor_state = 'running' FROM gpuidx_info()"),
	'SIGKILL: server and executor are back');
ok($node->log_contains('terminated by signal 9'), 'SIGKILL: the postmaster saw the crash');
gpx_hold($node, 0);
is($node->safe_psql('postgres', $q_small), $ref{$q_small}, 'SIGKILL: right answers afterwards');
is($node->safe_psql('postgres', $q_big), $ref{$q_big}, 'SIGKILL: big request afterwards');
ok(gpx_wait_slots_free($node), 'SIGKILL: fresh shared memory, nothing in use');

$node->stop;
done_testing();
