# 010_no_gpu.pl - gpuidx.device = gpu while the executor has no usable GPU
# (issue #22): with gpuidx.executor_fallback = off every request is refused
# with 55000 and a detail saying what runs batches and why not a GPU; with
# it on, the queries run on the executor's CPU threads with one WARNING per
# session, counted in gpuidx_stats.gpu_unavailable, and the answers are
# right.  The executor first runs with its own gpuidx.device = cpu (it
# opens no GPU on any machine); then, where the machine has no GPU, with
# gpuidx.device = gpu (it tried, and says why it found none).  Last, a
# server without the library preloaded: gpuidx.device = gpu or cpu there
# is refused, or warned about once per session.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

my $node = gpx_node('nogpu', conf => "gpuidx.device = cpu\ngpuidx.batch_max_wait = 1000\n");
gpx_data($node, nterms => 40, nqueries => 80, maxlen => 5000);

my $q = 'SELECT qid, posting_intersect(docs) AS res FROM queries JOIN p_lrc USING (term) GROUP BY qid';
my $md5 = "SELECT md5(string_agg(res::text, ';' ORDER BY qid)) FROM ($q) s";
my $batch = q{SELECT md5(string_agg(b.qid || '=' || b.docs::text, ';' ORDER BY b.qid))
	FROM (SELECT array_agg(qid::bigint) AS qids, array_agg(docs) AS ls
	      FROM queries JOIN p_qs USING (term)) z, posting_intersect_batch(z.qids, z.ls) b};
my $ref = $node->safe_psql('postgres', "SET gpuidx.use_executor = off; $md5");
my $ref_batch = $node->safe_psql('postgres', "SET gpuidx.use_executor = off; $batch");
my $warning = qr/WARNING:  01000: gpuidx\.device is gpu, but the executor has no usable gpu: intersections run on its cpu threads/;

# psql with verbose errors (SQLSTATE shown); returns (rc, stdout, stderr)
sub run
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql",
		stdout => \$out, stderr => \$err);
	return ($rc, $out, $err);
}

# number of no-gpu WARNINGs in a session's stderr
sub warnings
{
	my ($err) = @_;
	my $n = () = $err =~ /$warning/g;
	return $n;
}

# the checks of one executor set-up; $why: its device note
sub check_no_gpu
{
	my ($label, $why) = @_;
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');

	# fallback off: refused, nothing computed, nothing left behind
	my ($rc, $out, $err) = run("SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off; $md5;");
	isnt($rc, 0, "$label: fallback off: the aggregate is refused");
	like($err, qr/ERROR:  55000: gpuidx\.device is gpu, but the executor has no usable gpu/,
		"$label: fallback off: 55000, the reason named");
	like($err, qr/DETAIL:  The executor runs batches on cpu: \d+ threads? \(\Q$why\E/,
		"$label: fallback off: the detail says what runs batches and why not a gpu");
	($rc, $out, $err) = run("SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off; $batch;");
	like($err, qr/ERROR:  55000: gpuidx\.device is gpu/, "$label: fallback off: the batch is refused");
	my $st = gpx_stats($node);
	is("$st->{queries} $st->{gpu_unavailable}", '0 0', "$label: fallback off: nothing ran, nothing counted");
	ok(gpx_wait_slots_free($node), "$label: fallback off: no slot left in use");

	# fallback on: the executor's cpu threads, one warning per session
	($rc, $out, $err) = run("SET gpuidx.device = gpu; $md5; $md5; $batch;");
	is($rc, 0, "$label: fallback on: the session succeeds");
	is($out, "$ref\n$ref\n$ref_batch", "$label: fallback on: every answer right");
	is(warnings($err), 1, "$label: fallback on: one warning in a session of three statements");
	like($err, qr/DETAIL:  The executor runs batches on cpu: \d+ threads? \(\Q$why\E/,
		"$label: fallback on: the warning's detail names the reason");
	$st = gpx_stats($node);
	ok($st->{queries} > 0, "$label: fallback on: the executor computed them ($st->{queries})");
	is($st->{gpu_unavailable}, $st->{queries},
		"$label: fallback on: gpu_unavailable counts every query sent");
	is("$st->{fallbacks} $st->{gpu_batches}", '0 0', "$label: fallback on: no fallback, no gpu batch");

	# a new session is told again; device = cpu or auto sessions never
	($rc, $out, $err) = run("SET gpuidx.device = gpu; $md5;");
	is(warnings($err), 1, "$label: a new session is warned again");
	my $before = gpx_stats($node)->{gpu_unavailable};
	($rc, $out, $err) = run("SET gpuidx.device = cpu; $md5; SET gpuidx.device = auto; $md5;");
	is("$out|" . warnings($err), "$ref\n$ref|0", "$label: device cpu and auto: right, no warning");
	is(gpx_stats($node)->{gpu_unavailable}, $before, "$label: device cpu and auto: not counted");

	# without the executor the setting asks nothing of it
	($rc, $out, $err) = run("SET gpuidx.device = gpu; SET gpuidx.executor_fallback = off;"
		  . " SET gpuidx.use_executor = off; $md5;");
	is("$rc|$out|" . warnings($err), "0|$ref|0", "$label: use_executor off: the backend, no error");
	return;
}

is(gpx_info($node)->{device_note}, 'gpuidx.device is cpu', 'the executor opened no gpu');
check_no_gpu('executor on cpu', 'gpuidx.device is cpu');

# the executor asked for a gpu and found none (skipped where there is one)
$node->safe_psql('postgres', 'ALTER SYSTEM SET gpuidx.device = gpu; SELECT pg_reload_conf()');
ok( $node->poll_query_until('postgres',
		"SELECT device_note LIKE 'no gpu: %' OR device_active LIKE 'gpu:%' FROM gpuidx_info()"),
	'the executor tried to open a gpu');
SKIP:
{
	skip 'this machine has a gpu', 17 if gpx_info($node)->{device_active} =~ /^gpu/;
	check_no_gpu('executor without a gpu', 'no gpu: ');
}

# --- without preloading there is no executor at all ----------------------
# gpuidx.device = gpu or cpu asks for one: refused with fallback off, else a
# WARNING once per session and the backend's answer; auto says nothing
my $plain = gpx_node('nogpu_plain', preload => 0);
my $one = q{SELECT posting_intersect(d)::text FROM (VALUES ('{1,2,3}'::posting_pfor), ('{2,3}')) v(d)};
# psql on the plain node with verbose errors; returns (rc, stdout, stderr)
sub run_plain
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $rc = $plain->psql('postgres', "\\set VERBOSITY verbose\n$sql",
		stdout => \$out, stderr => \$err);
	return ($rc, $out, $err);
}
for my $dev (qw(gpu cpu))
{
	my ($rc, $out, $err) = run_plain("SET gpuidx.device = $dev; SET gpuidx.executor_fallback = off; $one");
	like($err, qr/ERROR:  55000: gpuidx\.device is $dev, but there is no executor: gpuidx is not preloaded/,
		"not preloaded, device = $dev, fallback off: 55000, the reason named");
	($rc, $out, $err) = run_plain("SET gpuidx.device = $dev; $one; $one");
	is("$rc|$out", "0|{2,3}\n{2,3}", "not preloaded, device = $dev, fallback on: the backend's answers");
	my $n = () = $err =~ /WARNING:  01000: gpuidx\.device is $dev, but there is no executor: intersections are computed in the backend/g;
	is($n, 1, "not preloaded, device = $dev, fallback on: one warning per session");
}
my ($prc, $pout, $perr) = run_plain("SET gpuidx.executor_fallback = off; $one");
is("$prc|$pout|$perr", "0|{2,3}|", 'not preloaded, device = auto: the backend, nothing said');

done_testing();
