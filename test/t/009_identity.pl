# 009_identity.pl - no list may stand in for another (issue #15).  For
# each type, a forged pair of valid lists A != B of one size, length,
# first and last docID, built as an attacker with an ordinary role could:
# bit 63 of one 8-byte word and bit 28 of the word 64 bytes later flipped,
# which the old unkeyed hash of list identity could not tell apart.  Every
# path must return the true intersections of A, B and a third list C:
# the backend, the executor's CPU threads (gpuidx.device = cpu), auto,
# posting_intersect_batch of 400 queries, and the executor's list cache
# across sessions of one role (B asked after another session had A
# cached).  GPX_TEST_DEVICE=gpu adds the GPU (on the GPU machine).
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

my $gpu = ($ENV{GPX_TEST_DEVICE} // '') eq 'gpu';
my $node = gpx_node('identity', conf => "gpuidx.batch_max_wait = 1000\n");
my @types = qw(pfor lrc qs);

# forge(x): the first twin of x (flipped bits 8o+63 and 8o+540 of its
# bytes, o = 32, 40, ...) that is a valid list with other docIDs
$node->safe_psql('postgres', q{
CREATE FUNCTION forge(x anyelement) RETURNS anyelement LANGUAGE plpgsql AS $$
DECLARE
  raw bytea := x::bytea;
  last_o int := length(raw) / 64 * 64 - 72;
  twin bytea;
  r x%TYPE;
BEGIN
  FOR o IN 32 .. last_o BY 8 LOOP
    twin := set_bit(raw, 8 * o + 63, 1 - get_bit(raw, 8 * o + 63));
    twin := set_bit(twin, 8 * o + 540, 1 - get_bit(twin, 8 * o + 540));
    BEGIN
      EXECUTE format('SELECT $1::%s', pg_typeof(x)) INTO r USING twin;
    EXCEPTION WHEN invalid_binary_representation THEN
      CONTINUE;                 -- not a valid list: the next offset
    END;
    IF docids(r) IS DISTINCT FROM docids(x) THEN
      RETURN r;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;

SELECT setseed(0.15);
-- A: about 70000 random docIDs below 2^20 (blobs over 32 kB, so the
-- executor caches them); C: 8000 (blobs under 32 kB, never cached), to
-- which each type's pair adds where A and B differ
CREATE TABLE base AS
  SELECT ARRAY(SELECT DISTINCT (random() * 1048575)::int
               FROM generate_series(1, 72000) ORDER BY 1) AS a,
         ARRAY(SELECT DISTINCT (random() * 1048575)::int
               FROM generate_series(1, 8000) ORDER BY 1) AS c;
-- the lists as bytea, so that every query below casts them into fresh
-- values in memory (keyed by content, not by a TOAST pointer)
CREATE TABLE pairs (typ text PRIMARY KEY, a bytea, b bytea, c bytea);
-- the reference: plain SQL intersections of the decoded lists
CREATE TABLE refs (typ text, x text, y text, r int4[]);
CREATE ROLE tenant LOGIN;
GRANT SELECT ON pairs, refs TO tenant;
});
for my $t (@types)
{
	$node->safe_psql('postgres', qq{
		INSERT INTO pairs SELECT '$t', x::bytea, forge(x)::bytea
		  FROM (SELECT a::posting_$t AS x FROM base) s;
		-- C holds every docID of A or B that the other lacks
		UPDATE pairs p SET c = ARRAY(SELECT unnest(base.c) UNION
		    ((SELECT unnest(docids(p.a::posting_$t)) UNION SELECT unnest(docids(p.b::posting_$t)))
		     EXCEPT (SELECT unnest(docids(p.a::posting_$t)) INTERSECT SELECT unnest(docids(p.b::posting_$t))))
		    ORDER BY 1)::posting_${t}::bytea
		  FROM base WHERE p.typ = '$t';
		INSERT INTO refs SELECT '$t', p.x, p.y,
		    ARRAY(SELECT unnest(p.d1) INTERSECT SELECT unnest(p.d2) ORDER BY 1)
		  FROM (SELECT docids(a::posting_$t) AS da, docids(b::posting_$t) AS db,
		               docids(c::posting_$t) AS dc FROM pairs WHERE typ = '$t') l,
		       LATERAL (VALUES ('a', 'b', l.da, l.db), ('a', 'c', l.da, l.dc),
		                       ('b', 'c', l.db, l.dc)) p(x, y, d1, d2)});
}

for my $t (@types)
{
	my $r = $node->safe_psql('postgres', qq{
		SELECT b IS NOT NULL, a <> b, length(a) = length(b),
		       length(a::posting_$t) = length(b::posting_$t),
		       first_docid(a::posting_$t) = first_docid(b::posting_$t),
		       last_docid(a::posting_$t) = last_docid(b::posting_$t),
		       length(a) >= 32768, length(c) < 32768,
		       cardinality((SELECT r FROM refs WHERE typ = '$t' AND x = 'a' AND y = 'b'))
		         < length(a::posting_$t)
		FROM pairs WHERE typ = '$t'});
	is($r, 't|t|t|t|t|t|t|t|t',
		"$t: a forged pair of valid lists, one size, length and ends, other docIDs");
}

# SQL giving md5 of posting_intersect over columns @c of type $t's pair
sub isect_sql
{
	my ($t, @c) = @_;
	my $vals = join(', ', map { "((SELECT $_ FROM pairs WHERE typ = '$t')::posting_$t)" } @c);
	return "SELECT md5(posting_intersect(v.x)::text) FROM (VALUES $vals) v(x)";
}

# md5 of the reference intersection of columns x and y of type $t
sub ref_md5
{
	my ($t, $x, $y) = @_;
	return $node->safe_psql('postgres',
		"SELECT md5(r::text) FROM refs WHERE typ = '$t' AND x = '$x' AND y = '$y'");
}

# posting_intersect_batch: 400 queries a&b, b&a, a&c, b&c of $t's pair;
# returns the number of results that differ from the reference
sub batch_wrong
{
	my ($t, $setup) = @_;
	return $node->safe_psql('postgres', qq{
		$setup;
		WITH q AS (
		  SELECT g AS qid, (ARRAY[['a','b'],['b','a'],['a','c'],['b','c']])[g % 4 + 1][i] AS col
		  FROM generate_series(1, 400) g, generate_series(1, 2) i),
		l AS (
		  SELECT q.qid, (CASE q.col WHEN 'a' THEN p.a WHEN 'b' THEN p.b ELSE p.c END)::posting_$t AS x
		  FROM q, pairs p WHERE p.typ = '$t'),
		res AS (
		  SELECT b.* FROM (SELECT array_agg(qid) AS qids, array_agg(x) AS xs FROM l) z,
		         posting_intersect_batch(z.qids, z.xs) b)
		SELECT count(*) FROM generate_series(1, 400) g
		  LEFT JOIN res ON res.qid = g
		  LEFT JOIN refs ON refs.typ = '$t'
		    AND refs.x = (ARRAY['a','a','a','b'])[g % 4 + 1]
		    AND refs.y = (ARRAY['b','b','c','c'])[g % 4 + 1]
		WHERE res.docs IS DISTINCT FROM refs.r});
}

my %paths = (
	backend => 'SET gpuidx.use_executor = off',
	cpu => 'SET gpuidx.device = cpu',
	auto => 'SET gpuidx.device = auto');
$paths{gpu} = 'SET gpuidx.device = gpu' if $gpu;
for my $p (sort keys %paths)
{
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	for my $t (@types)
	{
		for my $pair (['a', 'b'], ['b', 'a'], ['a', 'c'], ['b', 'c'])
		{
			my ($x, $y) = @$pair;
			my ($rx, $ry) = $x lt $y ? ($x, $y) : ($y, $x);
			my $sql = isect_sql($t, $x, $y);
			is($node->safe_psql('postgres', "$paths{$p}; $sql"),
				ref_md5($t, $rx, $ry), "$p: $t: posting_intersect($x, $y)");
		}
		is( $node->safe_psql('postgres', qq{$paths{$p};
				SELECT posting_intersect_count(v.x) FROM (VALUES
				  ((SELECT a FROM pairs WHERE typ = '$t')::posting_$t),
				  ((SELECT b FROM pairs WHERE typ = '$t')::posting_$t)) v(x)}),
			$node->safe_psql('postgres',
				"SELECT cardinality(r) FROM refs WHERE typ = '$t' AND x = 'a' AND y = 'b'"),
			"$p: $t: posting_intersect_count(a, b)");
		is(batch_wrong($t, $paths{$p}), '0',
			"$p: $t: posting_intersect_batch of 400 queries");
	}
	my $st = gpx_stats($node);
	ok($st->{queries} >= 3 * 405, "$p: the executor computed them ($st->{queries})")
	  if $p eq 'cpu' || $p eq 'gpu';
	is($st->{queries}, '0', 'backend: the executor computed nothing')
	  if $p eq 'backend';
	ok($st->{gpu_batches} > 0, "gpu: batches ran on the gpu ($st->{gpu_batches})")
	  if $p eq 'gpu';
	is($st->{fallbacks}, '0', "$p: no fallback");
}

# the cache across sessions of one role: one session has A cached (it
# is kept the second time it is copied; C is too small to be cached, so
# every cache hit is A), a later one asks for B
my $dev = $gpu ? 'gpu' : 'cpu';
$node->safe_psql('postgres', "ALTER ROLE tenant SET gpuidx.device = $dev");
for my $t (@types)
{
	my @as_tenant = (extra_params => [ '-U', 'tenant' ]);
	my $ac = ref_md5($t, 'a', 'c');
	$node->safe_psql('postgres', 'SELECT gpuidx_stats_reset()');
	for my $i (1 .. 3)
	{
		is($node->safe_psql('postgres', isect_sql($t, 'a', 'c'), @as_tenant),
			$ac, "cache: $t: session $i: a & c");
	}
	my $hits = gpx_stats($node)->{cache_hits};
	ok($hits >= 1, "cache: $t: a was cached and sent by key ($hits)");
	is($node->safe_psql('postgres', isect_sql($t, 'b', 'c'), @as_tenant),
		ref_md5($t, 'b', 'c'), "cache: $t: a later session: b & c");
	is($node->safe_psql('postgres', isect_sql($t, 'c', 'b'), @as_tenant),
		ref_md5($t, 'b', 'c'), "cache: $t: a later session: c & b");
	is($node->safe_psql('postgres', isect_sql($t, 'a', 'c'), @as_tenant),
		$ac, "cache: $t: a & c once more");
	my $st = gpx_stats($node);
	ok($st->{cache_hits} > $hits, "cache: $t: a still sent by key ($st->{cache_hits})");
	is($st->{fallbacks}, '0', "cache: $t: no fallback");
	ok($st->{gpu_batches} > 0, "cache: $t: batches ran on the gpu ($st->{gpu_batches})")
	  if $gpu;
}

done_testing();
