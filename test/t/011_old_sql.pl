# 011_old_sql.pl - the library under a database whose extension is still
# at an older version: gpuidx_stats and gpuidx_info return the columns the
# installed SQL declares (0.1's gpuidx_stats has no gpu_unavailable), with
# live figures, with and without the executor; after ALTER EXTENSION
# UPDATE the new columns appear; SQL declaring a column the library does
# not return, or another type, is refused with a clear error.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

my $node = gpx_node('oldsql', conf => "gpuidx.device = cpu\ngpuidx.batch_max_wait = 1000\n");
$node->safe_psql('postgres', 'CREATE DATABASE old');
$node->safe_psql('old', "CREATE EXTENSION gpuidx VERSION '0.1'");
is($node->safe_psql('old', "SELECT extversion FROM pg_extension WHERE extname = 'gpuidx'"),
	'0.1', 'the extension is at 0.1 in database old');

# the columns a function's row type declares, in order
sub columns
{
	my ($db, $rel) = @_;
	return $node->safe_psql($db, qq{
		SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute
		WHERE attrelid = '$rel'::regclass AND attnum > 0 AND NOT attisdropped});
}

my $cols01 = columns('old', 'gpuidx_stats');
unlike($cols01, qr/gpu_unavailable/, '0.1 declares no gpu_unavailable');
like(columns('postgres', 'gpuidx_stats'), qr/gpu_unavailable/, 'the current version does');

# the executor computes something, seen from both databases
$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
$node->safe_psql('old', q{
	CREATE TABLE p (term int, docs posting_pfor);
	INSERT INTO p SELECT t, posting_pfor(ARRAY(SELECT g FROM generate_series(0, 50000) g
	                                        WHERE g % (t + 1) = 0)) FROM generate_series(1, 4) t;
});
is($node->safe_psql('old', "SET gpuidx.device = cpu; SELECT cardinality(posting_intersect(docs)) FROM p WHERE term IN (1, 2)"),
	'8334', 'an intersection through the executor in database old');

my ($rc, $out, $err) = $node->psql('old', 'SELECT * FROM gpuidx_stats');
is($rc, 0, 'gpuidx_stats works under 0.1') or diag($err);
my @vals = split /\|/, $out;
is(scalar(@vals), scalar(split /,/, $cols01), 'one value per column 0.1 declares');
is($node->safe_psql('old', 'SELECT queries > 0 AND requests > 0 AND stats_reset IS NOT NULL FROM gpuidx_stats'),
	't', 'with live counters');
is($node->safe_psql('old', 'SELECT queries FROM gpuidx_stats'),
	$node->safe_psql('postgres', 'SELECT queries FROM gpuidx_stats'),
	'the same counters as the current version shows');
($rc, $out, $err) = $node->psql('old', 'SELECT executor_state, cpu_threads > 0 FROM gpuidx_info()');
is("$rc $out", '0 running|t', 'gpuidx_info works under 0.1') or diag($err);

# SQL that asks for what the library does not return
$node->safe_psql('old', q{
	CREATE FUNCTION bogus_stats(OUT requests bigint, OUT nonsense int4) RETURNS record
	AS 'gpuidx', 'gpuidx_stats' LANGUAGE C;
	CREATE FUNCTION bogus_stats2(OUT requests int4, OUT queries bigint) RETURNS record
	AS 'gpuidx', 'gpuidx_stats' LANGUAGE C;
	CREATE FUNCTION bogus_info(OUT preloaded bool, OUT colour text) RETURNS record
	AS 'gpuidx', 'gpuidx_info' LANGUAGE C;
});
($rc, $out, $err) = $node->psql('old', 'SELECT * FROM bogus_stats()');
like($err, qr/column "nonsense" of the installed SQL is not one this gpuidx library returns/,
	'an unknown column: a clear error');
($rc, $out, $err) = $node->psql('old', 'SELECT * FROM bogus_stats2()');
like($err, qr/column "requests".*\n.*returns it as type bigint, the SQL declares integer/,
	'a column of another type: a clear error');
($rc, $out, $err) = $node->psql('old', 'SELECT * FROM bogus_info()');
like($err, qr/column "colour"/, 'gpuidx_info: an unknown column: a clear error');

# the update brings the new column
$node->safe_psql('old', 'DROP FUNCTION bogus_stats(), bogus_stats2(), bogus_info()');
$node->safe_psql('old', "ALTER EXTENSION gpuidx UPDATE TO '0.2'");
is(columns('old', 'gpuidx_stats'), columns('postgres', 'gpuidx_stats'),
	'after the update: the current columns');
is($node->safe_psql('old', 'SELECT gpu_unavailable = 0 AND queries > 0 FROM gpuidx_stats'), 't',
	'and their values');
$node->stop;

# without the executor (not preloaded): zeros, no reset time
my $bare = gpx_node('oldsql_bare', preload => 0);
$bare->safe_psql('postgres', 'DROP EXTENSION gpuidx');
$bare->safe_psql('postgres', "CREATE EXTENSION gpuidx VERSION '0.1'");
is($bare->safe_psql('postgres', 'SELECT requests, queries, stats_reset IS NULL FROM gpuidx_stats'),
	'0|0|t', 'not preloaded, 0.1: zeros');
is($bare->safe_psql('postgres', 'SELECT preloaded, executor_state, cpu_threads IS NULL FROM gpuidx_info()'),
	'f|not preloaded|t', 'not preloaded, 0.1: gpuidx_info says so');
$bare->stop;

done_testing();
