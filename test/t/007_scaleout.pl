# Scale-out (docs/SCALEOUT.md): a coordinator and two shards on loopback,
# postings partitioned by docID range into postgres_fdw foreign tables.
# Distributed answers must equal single-server answers for all three
# types; the aggregate must run on the shards (EXPLAIN VERBOSE shows it in
# the remote SQL, asynchronously); a shard that is down must give an
# error, not a partial answer.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use GpxTap;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $split = 500000;    # shard 1 holds docIDs [0, split), shard 2 the rest
my $tcp = "listen_addresses = '127.0.0.1'\n";

# Shards route every intersection through their executor, so the test
# also shows each shard's executor doing the work.
my @shards = map {
	gpx_node("shard$_", conf => $tcp . "gpuidx.device = cpu\n")
} (1, 2);
my $coord = gpx_node('coord', conf => $tcp);

my @range = ([ 0, $split ], [ $split, 2147483648 ]);
for my $i (0, 1)
{
	my ($s, $lo, $hi) = ($i + 1, @{ $range[$i] });
	# the shard's table: its docID range enforced by constraints
	$shards[$i]->safe_psql('postgres', qq{
		CREATE TABLE postings (
			term text NOT NULL,
			shard int NOT NULL CHECK (shard = $s),
			docs_pfor posting_pfor NOT NULL
				CHECK (first_docid(docs_pfor) >= $lo AND last_docid(docs_pfor) < $hi),
			docs_lrc posting_lrc NOT NULL,
			docs_qs posting_qs NOT NULL,
			PRIMARY KEY (term, shard));
	});
}

# The coordinator: the same collection on one server (the reference), and
# the partitioned table whose partitions are the shards.
$coord->safe_psql('postgres', q{
	CREATE EXTENSION postgres_fdw;
	SELECT setseed(0.2718);
	CREATE TABLE lists AS
	  SELECT 't' || t AS term,
	         ARRAY(SELECT DISTINCT (random() * 999999 + 0 * t)::int
	               FROM generate_series(1, (20 * power(2000.0, random()) + 0 * t)::int)) AS arr
	  FROM generate_series(1, 80) t;
	-- dense lists so that intersections are not empty, one list that only
	-- shard 1 holds, one touching both ends of the docID space
	INSERT INTO lists
	  SELECT 'd' || t, ARRAY(SELECT g FROM generate_series(0, 999999, t + 1) g)
	  FROM generate_series(1, 6) t;
	INSERT INTO lists VALUES
	  ('low', ARRAY(SELECT g FROM generate_series(0, 400000, 2) g)),
	  ('ends', ARRAY[0, 1, 499999, 500000, 2147483646, 2147483647]);
	CREATE TABLE postings AS
	  SELECT term, posting_pfor(arr) AS docs_pfor, posting_lrc(arr) AS docs_lrc,
	         posting_qs(arr) AS docs_qs
	  FROM lists;
	CREATE TABLE queries AS
	  SELECT q AS qid, array_agg(DISTINCT term) AS terms
	  FROM generate_series(1, 300) q,
	       LATERAL (SELECT term FROM lists
	                ORDER BY random() + 0 * q LIMIT 1 + (random() * 4)::int) t
	  GROUP BY q;
	INSERT INTO queries VALUES (301, '{d1,low}'), (302, '{d1,ends}'),
	  (303, '{ends}'), (304, '{low,t1,d2}'), (305, '{nosuchterm,d1}');
	-- the number of (distinct) terms of each query, for posting_intersect
	ALTER TABLE queries ADD nterms int;
	UPDATE queries SET nterms = cardinality(terms);
	CREATE TABLE dpostings (
		term text NOT NULL, shard int NOT NULL,
		docs_pfor posting_pfor NOT NULL, docs_lrc posting_lrc NOT NULL,
		docs_qs posting_qs NOT NULL)
	  PARTITION BY LIST (shard);
});
for my $i (0, 1)
{
	my ($s, $port) = ($i + 1, $shards[$i]->port);
	$coord->safe_psql('postgres', qq{
		CREATE SERVER shard$s FOREIGN DATA WRAPPER postgres_fdw
		  OPTIONS (host '127.0.0.1', port '$port', dbname 'postgres',
		           extensions 'gpuidx', async_capable 'true', fdw_tuple_cost '1');
		CREATE USER MAPPING FOR CURRENT_USER SERVER shard$s;
		CREATE FOREIGN TABLE dpostings_$s PARTITION OF dpostings
		  FOR VALUES IN ($s) SERVER shard$s OPTIONS (table_name 'postings');
	});
}

# Move the postings: each term's slice of each range, through the
# partitioned table (tuple routing inserts into the foreign partitions).
$coord->safe_psql('postgres', q{
	INSERT INTO dpostings
	  SELECT p.term, r.shard, posting_slice(p.docs_pfor, r.lo, r.hi),
	         posting_slice(p.docs_lrc, r.lo, r.hi), posting_slice(p.docs_qs, r.lo, r.hi)
	  FROM postings p,
	       (VALUES (1, 0, 500000), (2, 500000, 2147483648)) r(shard, lo, hi)
	  WHERE posting_slice(p.docs_pfor, r.lo, r.hi) && p.docs_pfor;
});
is( $coord->safe_psql('postgres', q{
		SELECT (SELECT sum(length(docs_pfor)) FROM dpostings)
		     = (SELECT sum(length(docs_pfor)) FROM postings)}),
	't', 'every docID moved to exactly one shard');
cmp_ok($shards[0]->safe_psql('postgres', 'SELECT count(*) FROM postings'),
	'>', $shards[1]->safe_psql('postgres', 'SELECT count(*) FROM postings'),
	'the list held by shard 1 only is not on shard 2');

# The query users write: each shard intersects its slices with the
# number of terms stated (a shard lacking a term answers '{}'), the
# coordinator takes the union of the disjoint per-shard answers.
# The number of terms is a constant or a parameter of its own: postgres_fdw
# ships an aggregate whose arguments hold parameters, but not a function of
# a text[] parameter (its collation does not come from a remote column).
sub dist_sql
{
	my ($col, $terms, $agg, $nterms) = @_;
	$agg //= 'posting_intersect';
	$nterms //= "cardinality($terms)";
	my $outer = $agg eq 'posting_intersect'
	  ? "coalesce(posting_union(r), '{}')" : 'coalesce(sum(r), 0)';
	return "SELECT $outer FROM (SELECT $agg($col, $nterms) AS r"
	  . " FROM dpostings WHERE term = ANY ($terms) GROUP BY shard) per_shard";
}

# The same question on one server, written independently of the nterms
# form (the reference): '{}' when a term is missing.
sub single_sql
{
	my ($col, $terms) = @_;
	return "SELECT coalesce((SELECT posting_intersect($col) FROM postings"
	  . " WHERE term = ANY ($terms) HAVING count(*) = cardinality($terms)), '{}')";
}

# The nterms form on one server.
sub single_nterms_sql
{
	my ($col, $terms) = @_;
	return "SELECT posting_intersect($col, cardinality($terms)) FROM postings"
	  . " WHERE term = ANY ($terms)";
}

$coord->safe_psql('postgres', 'ANALYZE');
for my $col (qw(docs_pfor docs_lrc docs_qs))
{
	my $bad = $coord->safe_psql('postgres', qq{
		SET enable_partitionwise_aggregate = on;
		SELECT count(*) FILTER (WHERE d IS DISTINCT FROM s OR dc <> cardinality(s)),
		       count(*), sum(cardinality(s)), count(*) FILTER (WHERE cardinality(s) > 0),
		       count(*) FILTER (WHERE n IS DISTINCT FROM s)
		FROM (SELECT (@{[single_sql($col, 'q.terms')]}) AS s,
		             (@{[dist_sql($col, 'q.terms', undef, 'q.nterms')]}) AS d,
		             (@{[dist_sql($col, 'q.terms', 'posting_intersect_count', 'q.nterms')]}) AS dc,
		             (@{[single_nterms_sql($col, 'q.terms')]}) AS n
		      FROM queries q) r});
	my ($nbad, $n, $found, $nonempty, $nbad_single) = split /\|/, $bad;
	is($nbad_single, 0, "$col: posting_intersect(docs, nterms) on one server = the reference");
	is($nbad, 0, "$col: $n queries, distributed = single server"
		  . " ($nonempty non-empty answers, $found docIDs)");
	cmp_ok($nonempty, '>', 20, "$col: many answers are not empty");
}

# Query 305 names a term nobody holds: no docID, as on one server.
is($coord->safe_psql('postgres', dist_sql('docs_pfor', "'{nosuchterm,d1}'::text[]")),
	'{}', 'a query with an unknown term has an empty answer');

# The plan: the aggregate is pushed to both shards, run asynchronously.
my $plan = $coord->safe_psql('postgres',
	"SET enable_partitionwise_aggregate = on; EXPLAIN (VERBOSE, COSTS OFF) "
	  . dist_sql('docs_pfor', "'{d1,d2,t3}'::text[]"));
note $plan;
# The same pushdown for a generic plan of a prepared statement (terms as
# a parameter) and for the correlated form the checks above used.
my %forms = (
	'generic plan' => "SET plan_cache_mode = force_generic_plan; PREPARE q(text[], int) AS "
	  . dist_sql('docs_pfor', '$1', undef, '$2')
	  . "; EXPLAIN (VERBOSE, COSTS OFF) EXECUTE q('{d1,d2}', 2)",
	'correlated' => "EXPLAIN (VERBOSE, COSTS OFF) SELECT ("
	  . dist_sql('docs_lrc', 'q.terms', undef, 'q.nterms')
	  . ") FROM queries q");
for my $form (sort keys %forms)
{
	my $p = $coord->safe_psql('postgres',
		"SET enable_partitionwise_aggregate = on; $forms{$form}");
	is(scalar(() = $p =~ /Remote SQL: SELECT public\.posting_intersect\(docs_\w+, .*GROUP BY/g),
		2, "$form: the aggregate runs on both shards");
}
my @remote = ($plan =~ /Remote SQL: (SELECT .*public\.posting_intersect\(docs_pfor, 3\).*GROUP BY.*)/g);
is(scalar @remote, 2, 'posting_intersect(docs, nterms) is in the remote SQL of both shards');
is(scalar(() = $plan =~ /Async Foreign Scan/g), 2, 'the shards are scanned asynchronously');
like($plan, qr/Output: COALESCE\(posting_union\(/, 'the coordinator only takes the union');
unlike($plan, qr/Output: posting_intersect\(dpostings/, 'no intersection on the coordinator');

# Without partitionwise aggregation the same query is still right (the
# coordinator fetches the slices and intersects per shard itself).
is( $coord->safe_psql('postgres', qq{
		SET enable_partitionwise_aggregate = off;
		SELECT count(*) FROM queries q
		WHERE (@{[dist_sql('docs_qs', 'q.terms')]})
		      IS DISTINCT FROM (@{[single_sql('docs_qs', 'q.terms')]})}),
	0, 'without partitionwise aggregation the answers are the same');

# Each shard's executor did the work.
for my $i (0, 1)
{
	cmp_ok($shards[$i]->safe_psql('postgres', 'SELECT requests FROM gpuidx_stats'),
		'>', 0, "shard " . ($i + 1) . "'s executor served intersections");
}

# A shard that is down gives an error naming the connection, no answer.
$shards[1]->stop('fast');
my ($ret, $out, $err) = $coord->psql('postgres',
	dist_sql('docs_pfor', "'{d1,d2}'::text[]"),
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'query fails while shard 2 is down');
is($out, '', 'no partial answer');
like($err, qr/08001|08006/, 'SQLSTATE is a connection exception');
like($err, qr/could not connect|connection to server/, 'the error names the connection');
$shards[1]->start;
gpx_wait_executor($shards[1]);
is( $coord->safe_psql('postgres', qq{
		SELECT (@{[dist_sql('docs_pfor', "'{d1,d2}'::text[]")]})
		     = (@{[single_sql('docs_pfor', "'{d1,d2}'::text[]")]})}),
	't', 'after the shard is back the answer is right again');

$coord->stop;
$_->stop for @shards;
done_testing();
