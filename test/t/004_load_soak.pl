# 004_load_soak.pl - load and soak: 8 pgbench clients for
# GPUIDX_SOAK_SECS seconds (default 40) mix writes (a term's lists
# rewritten by UPDATE, new terms INSERTed) with reads that check every
# intersection they compute (posting_intersect, posting_intersect_count,
# &, &&, posting_intersect_batch; all three types; gpuidx.device auto, cpu
# and gpu, and gpuidx.use_executor off) against a plain SQL intersection of
# the stored arrays in the same snapshot (soak_check in GpxTap.pm).  The
# executor's memory (/proc/<pid>/status) and the arena are sampled every
# 2 s.  Asserted: no wrong answer, no pgbench error, every read checked,
# every committed insert present, no executor restart, the executor's
# private memory not growing from the first third of the run to the last,
# and the arena back to empty when the load stops.
#
#   GPUIDX_SOAK_SECS=300 prove -I ... test/t/004_load_soak.pl   (longer soak)
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);
use GpxTap;

my $secs = $ENV{GPUIDX_SOAK_SECS} // 40;
my $clients = $ENV{GPUIDX_SOAK_CLIENTS} // 8;
die "GPUIDX_SOAK_SECS must be at least 6" unless $secs =~ /^\d+$/ && $secs >= 6;

# a small list cache, so that caching, eviction and pins are exercised;
# a short batching delay, so that requests of several clients meet
my $node = gpx_node('soak', conf => qq{
gpuidx.device = auto
gpuidx.executor_threads = 2
gpuidx.cache_size = 4MB
gpuidx.batch_max_wait = 2000
max_connections = 40
});
my $s = gpx_soak_setup($node, nterms => 200);
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
my $info0 = gpx_info($node);
my $epid = $info0->{executor_pid};
note("executor pid $epid, device $info0->{device} ($info0->{device_active}), "
	  . "arena $info0->{arena_size} bytes, $info0->{slots} slots");

# --- the load, sampled every 2 s ----------------------------------------
my $t0 = time;
my $load = gpx_soak_load_start($node, $s, secs => $secs, clients => $clients,
	tag => 'soak');
my @samples;
while (time - $t0 < $secs - 1)
{
	sleep 2;
	my $m = gpx_proc_mem($epid) or last;
	my $i = gpx_info($node);
	push @samples, { t => time - $t0, %$m, arena_used => $i->{arena_used},
		arena_peak => $i->{arena_peak}, slots_used => $i->{slots_used},
		cache_bytes => $i->{cache_bytes} };
}
my $r = gpx_soak_load_finish($load);
my $wall = time - $t0;

for my $x (@samples)
{
	note(sprintf('t=%5.1fs executor VmRSS %6d kB VmHWM %6d kB RssAnon %6d kB RssShmem %6d kB'
		  . ' | arena used %8d peak %8d slots %2d cache %8d',
		  @$x{qw(t VmRSS VmHWM RssAnon RssShmem arena_used arena_peak slots_used cache_bytes)}));
}

# --- every answer right, nothing failed -----------------------------------
my $v = gpx_soak_verify($node, $s);
my $st = gpx_stats($node);
my $info = gpx_info($node);
diag(sprintf('load: %d clients, %.0f s, %d read + %d write transactions (%.1f tps), '
	  . '%d intersections checked, %d wrong',
	  $clients, $wall, $r->{reads}, $r->{writes}, $r->{processed} / ($wall || 1),
	  $v->{checks}, $v->{wrong}));
diag("checked by path: $v->{paths}; by type: $v->{types}");
diag("rows: $v->{rows} ($v->{logged} inserted by committed writes, $v->{missing} missing)");
diag("executor: $st->{queries} intersections in $st->{batches} batches "
	  . "($st->{requests} requests, $st->{multi_backend_batches} batches of several backends, "
	  . "up to $st->{max_batch_backends}; $st->{gpu_batches} on a GPU, $st->{gpu_failures} GPU failures), "
	  . "$st->{fallbacks} fallbacks, "
	  . "$st->{backend_queries} kept in the backend by auto, cache hits $st->{cache_hits}, "
	  . "evictions $st->{cache_evictions}");

is_deeply($r->{exit}, [0], 'pgbench exited normally') or diag($r->{out});
is($r->{aborted}, 0, 'no pgbench client aborted');
is_deeply($r->{err}, {}, 'no errors') or diag(explain($r->{err}));
is_deeply($r->{unexpected}, [], 'no unexpected messages') or diag(join("\n", @{ $r->{unexpected} }));
is(scalar @{ $r->{wrong} }, 0, 'no wrong-answer warnings');
is($v->{wrong}, 0, 'no wrong answers recorded');
ok($r->{reads} > 0 && $r->{writes} > 0, 'reads and writes ran');
# (when the time is up pgbench may drop a client whose COMMIT is already
# on its way: such a transaction can commit without being counted, at most
# one per client)
ok($v->{txns} >= $r->{reads} && $v->{txns} <= $r->{reads} + $clients,
	"every read transaction pgbench counted ($r->{reads}) left its check row ($v->{txns})");
is($v->{checks}, 7 * $v->{txns}, 'each checked its 7 intersections');
like($v->{paths}, qr/^auto:\d+ backend:\d+ cpu:\d+ gpu:\d+$/, 'every path was checked');
like($v->{types}, qr/^lr:\d+ pf:\d+ qs:\d+$/, 'every type was checked');
ok($v->{logged} >= $r->{writes} && $v->{logged} <= $r->{writes} + $clients,
	"every write transaction pgbench counted ($r->{writes}) logged its new term ($v->{logged})");
is($v->{missing}, 0, 'every insert whose COMMIT pgbench saw succeed is in the table');
my $extra = $v->{rows} - $s->{nterms} - $v->{logged};
ok($extra >= 0 && $extra <= $clients,
	"the table holds the initial and the inserted terms ($extra committed as the time ran out)");
is($v->{corrupt}, 0, 'every stored list equals its array');
ok($st->{queries} > 0, 'the executor computed intersections');
is($info->{executor_starts}, $info0->{executor_starts}, 'the executor never restarted');
is($info->{executor_pid}, $epid, 'same executor process');

# --- memory: no growth from the first third to the last -------------------
my $n = scalar @samples;
ok($n >= 3, "$n memory samples");
SKIP:
{
	skip 'too few samples', 2 if $n < 3;
	my $third = int($n / 3);
	my @first = @samples[ 0 .. $third - 1 ];
	my @last = @samples[ $n - $third .. $n - 1 ];
	my $max = sub { my $k = shift; my $m = 0; $m = $_->{$k} > $m ? $_->{$k} : $m for @_; $m };
	my $min = sub { my $k = shift; my $m = $_[0]{$k}; $m = $_->{$k} < $m ? $_->{$k} : $m for @_; $m };
	diag(sprintf('executor VmRSS %d..%d kB (first third max %d, last third max %d), '
		  . 'VmHWM %d kB, RssAnon %d..%d kB (first third max %d, last third max %d), '
		  . 'arena used max %d bytes, peak %d bytes',
		  $min->('VmRSS', @samples), $max->('VmRSS', @samples),
		  $max->('VmRSS', @first), $max->('VmRSS', @last), $max->('VmHWM', @samples),
		  $min->('RssAnon', @samples), $max->('RssAnon', @samples),
		  $max->('RssAnon', @first), $max->('RssAnon', @last),
		  $max->('arena_used', @samples), $max->('arena_peak', @samples)));
	# private memory: at most 1.5 x plus 8 MB (allocator noise, a cache
	# of 4 MB filling); shared pages touched grow with the arena's
	# high-water mark, so VmRSS also gets the arena's size as slack
	ok($max->('RssAnon', @last) <= 1.5 * $max->('RssAnon', @first) + 8192,
		'executor private memory (RssAnon) does not grow');
	ok($max->('VmRSS', @last) <= 1.5 * $max->('VmRSS', @first) + 8192
		  + $info->{arena_size} / 1024,
		'executor VmRSS does not grow beyond the arena');
}

ok(gpx_wait_slots_free($node), 'idle: arena use back to 0, every slot free');

# the checker itself: a list that differs from its array is reported
is( $node->safe_psql('postgres', q{
		UPDATE soak SET pf = posting_pfor(arr[2:]) WHERE term = 8;
		SELECT soak_check(1, 0, 8, 8, 8)}),
	'4', 'soak_check reports a planted wrong list (&, the aggregates and the batch differ)');
is($node->safe_psql('postgres', 'SELECT string_agg(op, \' \' ORDER BY op) FROM soak_wrong'),
	'& posting_intersect posting_intersect_batch posting_intersect_count',
	'... and records each difference');

is( $node->safe_psql('postgres', q{
		SELECT count(*) FROM pg_stat_activity
		WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'}),
	'0', 'nobody waits for the executor');

my $log = slurp_file($node->logfile);
unlike($log, qr/terminated by signal|\b(?:PANIC|TRAP):/, 'no crash in the server log');

$node->stop;
done_testing();
