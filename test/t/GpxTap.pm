# GpxTap.pm - helpers shared by the executor TAP tests (test/t/*.pl):
# a node with gpuidx preloaded, deterministic test data, reference
# answers computed in the backend, and background sessions.
package GpxTap;

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use Exporter 'import';
our @EXPORT = qw(gpx_node gpx_wait_executor gpx_data gpx_bg gpx_bg_finish
  gpx_info gpx_stats gpx_check_queries gpx_wait_slots_free);

# Start a node with gpuidx preloaded (unless preload => 0), extra
# postgresql.conf lines in conf, the extension created.
sub gpx_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	my $preload = defined $opt{preload} ? $opt{preload} : 1;
	$node->append_conf('postgresql.conf',
		($preload ? "shared_preload_libraries = 'gpuidx'\n" : '')
		  . "max_worker_processes = 16\n"
		  . "restart_after_crash = on\n"
		  . ($opt{conf} // ''));
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION gpuidx');
	gpx_wait_executor($node) if $preload;
	return $node;
}

# Wait until the executor is running; returns its pid.
sub gpx_wait_executor
{
	my ($node) = @_;
	$node->poll_query_until('postgres',
		"SELECT executor_state = 'running' FROM gpuidx_info()")
	  or die "executor did not start";
	return $node->safe_psql('postgres', 'SELECT executor_pid FROM gpuidx_info()');
}

# gpuidx_info() / gpuidx_stats as a hash.
sub _row_hash
{
	my ($node, $sql) = @_;
	my $out = $node->safe_psql('postgres',
		"SELECT row_to_json(s) FROM ($sql) s");
	my %h;
	while ($out =~ /"(\w+)":("(?:[^"\\]|\\.)*"|[^,}]*)/g)
	{
		my ($k, $v) = ($1, $2);
		$v =~ s/^"(.*)"$/$1/;
		$h{$k} = $v;
	}
	return \%h;
}
sub gpx_info { return _row_hash($_[0], 'SELECT * FROM gpuidx_info()'); }
sub gpx_stats { return _row_hash($_[0], 'SELECT * FROM gpuidx_stats'); }

# Test data: lists(term, arr int4[]) with nterms random lists whose
# lengths spread log-uniformly over [minlen, maxlen] in [0, universe),
# plus one table per type (p_pfor, p_lrc, p_qs) holding them encoded,
# and queries(qid, term): nq queries of 1..maxk distinct terms.
sub gpx_data
{
	my ($node, %o) = @_;
	my $nterms = $o{nterms} // 120;
	my $minlen = $o{minlen} // 20;
	my $maxlen = $o{maxlen} // 20000;
	my $universe = $o{universe} // 1000000;
	my $nq = $o{nqueries} // 1000;
	my $maxk = $o{maxk} // 4;
	$node->safe_psql('postgres', qq{
		SELECT setseed(0.4242);
		CREATE TABLE lists AS
		  SELECT t AS term,
		         ARRAY(SELECT DISTINCT (random() * ($universe - 1) + 0 * t)::int
		               FROM generate_series(1, ($minlen * power(${maxlen}::float8 / $minlen, random()) + 0 * t)::int)) AS arr
		  FROM generate_series(1, $nterms) t;
		-- a few dense lists sharing a range, so intersections are not empty
		INSERT INTO lists
		  SELECT $nterms + t, ARRAY(SELECT g FROM generate_series(0, 60000) g WHERE g % (t + 1) = 0)
		  FROM generate_series(1, 6) t;
		CREATE TABLE p_pfor AS SELECT term, posting_pfor(arr) AS docs FROM lists;
		CREATE TABLE p_lrc AS SELECT term, posting_lrc(arr) AS docs FROM lists;
		CREATE TABLE p_qs AS SELECT term, posting_qs(arr) AS docs FROM lists;
		CREATE TABLE queries AS
		  SELECT DISTINCT q AS qid, 1 + (random() * ($nterms + 5))::int AS term
		  FROM generate_series(1, $nq) q,
		       generate_series(1, 1 + (random() * ($maxk - 1) + 0 * q)::int) i;
		ANALYZE;
	});
	return;
}

# Compare the executor's answers with the backend's for a query shape:
# $sql must select (qid, result); runs it with the executor and with
# gpuidx.use_executor = off and returns the number of differing rows.
# $setup (optional) is run first (SET commands).
sub gpx_check_queries
{
	my ($node, $sql, $setup) = @_;
	$setup //= '';
	return $node->safe_psql('postgres', qq{
		$setup;
		CREATE TEMP TABLE _exec AS $sql;
		SET gpuidx.use_executor = off;
		CREATE TEMP TABLE _ref AS $sql;
		RESET gpuidx.use_executor;
		SELECT count(*) FROM _exec e FULL JOIN _ref r USING (qid)
		WHERE e.qid IS NULL OR r.qid IS NULL OR e.res IS DISTINCT FROM r.res;
	});
}

# Run SQL in a background psql; returns a handle for gpx_bg_finish.
sub gpx_bg
{
	my ($node, $sql) = @_;
	my %b = (in => "$sql\n", out => "", err => "");
	local %ENV = %ENV;
	$ENV{PGHOST} = $node->host;
	$ENV{PGPORT} = $node->port;
	$b{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', 'postgres', '-f', '-' ],
		'<', \$b{in}, '>', \$b{out}, '2>', \$b{err},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	# IPC::Run feeds stdin only while pumped: hand the SQL over now
	$b{h}->pump while length $b{in};
	return \%b;
}

# Wait for a background psql; returns (exit code, stdout, stderr).
sub gpx_bg_finish
{
	my ($b) = @_;
	eval { $b->{h}->finish; };
	my $rc = $b->{h}->result(0);
	return ($rc, $b->{out}, $b->{err});
}

# Wait until no request slot is in use (nothing leaked).
sub gpx_wait_slots_free
{
	my ($node) = @_;
	return $node->poll_query_until('postgres',
		"SELECT slots_used = 0 AND arena_used = 0 AND queued = 0 FROM gpuidx_info()");
}

1;
