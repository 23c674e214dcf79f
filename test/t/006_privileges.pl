# 006_privileges.pl - what an unprivileged role may do (issue #7):
#
#  - every SQL-callable function, aggregate and view of the extension
#    (enumerated from the catalog, so new ones are covered) either works
#    for a plain role, with the superuser's answer, or is refused with
#    SQLSTATE 42501; only the expected admin functions are refused;
#  - the settings that size shared memory, pick the device or steer the
#    executor cannot be changed by it (42501 or 55P02), by SET, set_config,
#    ALTER ROLE or ALTER SYSTEM; the per-session ones can;
#  - two roles running intersections through the executor at the same
#    time, in shared batches, each get exactly their own answers from
#    their own private tables, while a third role keeps reading every
#    monitoring function and sees only counters and settings;
#  - one role cannot poison the executor's list cache for another with a
#    forged list (same content hash, length and ends as a public list),
#    and cache hits do not cross roles;
#  - with gpuidx.executor_timeout = 0 a session waiting for a held
#    executor is still cancelled at once.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use GpxTap;

# every intersection goes to the executor (device is a superuser setting)
my $node = gpx_node('priv', conf => qq{
gpuidx.device = cpu
gpuidx.executor_threads = 2
gpuidx.batch_threshold = 50000000
gpuidx.batch_max_wait = 5000
max_connections = 30
});

# Run SQL as a role; returns (SQLSTATE or '00000', stdout, stderr).
sub sql_as
{
	my ($user, $sql) = @_;
	my ($rc, $out, $err) = $node->psql('postgres', "\\set VERBOSITY verbose\n$sql",
		extra_params => [ '-U', $user ], on_error_stop => 1);
	my $state = $err =~ /ERROR:\s+([0-9A-Z]{5}):/ ? $1 : ($rc == 0 ? '00000' : "rc$rc");
	return ($state, $out, $err);
}

$node->safe_psql('postgres', q{
	CREATE ROLE alice LOGIN NOSUPERUSER;
	CREATE ROLE bob LOGIN NOSUPERUSER;
	CREATE ROLE carol LOGIN NOSUPERUSER;
	CREATE ROLE mallory LOGIN NOSUPERUSER;
	CREATE SCHEMA AUTHORIZATION alice;
	CREATE SCHEMA AUTHORIZATION bob;
	CREATE SCHEMA AUTHORIZATION mallory;
	-- _try(sql): the SQLSTATE of running sql ('00000': it worked)
	CREATE FUNCTION public._try(sql text) RETURNS text LANGUAGE plpgsql AS $$
	BEGIN
	  EXECUTE sql;
	  RETURN '00000';
	EXCEPTION WHEN OTHERS THEN
	  RETURN SQLSTATE;
	END $$;
});

# --- every function of the extension ------------------------------------
# Functions only a superuser (or whom it grants) may run.
my %admin = map { $_ => 1 } ('gpuidx_stats_reset()', 'gpuidx_inject_fault(text,integer)');

my @fns = map { [ split /\|/, $_, -1 ] } split /\n/, $node->safe_psql('postgres', q{
	SELECT p.oid, p.oid::regprocedure, p.prokind, p.proretset, p.provolatile,
	       p.proisstrict, p.prosecdef, p.proconfig IS NOT NULL,
	       p.prorettype::regtype,
	       coalesce((SELECT string_agg(t::regtype::text, ',' ORDER BY o)
	                 FROM unnest(p.proargtypes) WITH ORDINALITY a(t, o)), ''),
	       EXISTS (SELECT 1 FROM pg_aggregate g WHERE p.oid IN (g.aggtransfn,
	               g.aggfinalfn, g.aggcombinefn, g.aggserialfn, g.aggdeserialfn,
	               g.aggmtransfn, g.aggminvtransfn, g.aggmfinalfn))
	FROM pg_proc p
	JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
	 AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpuidx'
	ORDER BY 2::text});
cmp_ok(scalar(@fns), '>=', 100, 'the extension\'s functions are enumerated: ' . scalar(@fns));

# A valid argument of each type (position-dependent where it matters).
sub sample_arg
{
	my ($type, $pos, $ret) = @_;
	return "'{1:5,5:9,9:3,1000:2}'::posting_doclen" if $type eq 'posting_doclen';
	return "'{1,5,9,1000}'::$type" if $type =~ /^posting_\w+$/;
	return "ARRAY['{1,5,9}'::$1, '{5,9,12}'::$1]" if $type =~ /^(posting_\w+)\[\]$/;
	# (positions 2 and 3: k of the ranked queries and their batches)
	return $pos == 0 ? '5' : $pos >= 2 ? '10' : '0' if $type eq 'integer';
	return $pos == 4 ? '0.4' : '0.9' if $type eq 'double precision';	# k1, b
	return $pos <= 1 ? '1' : '1000' if $type eq 'bigint';
	return 'ARRAY[9,1,5]' if $type eq 'integer[]';
	return "ARRAY[1,1]::bigint[]" if $type eq 'bigint[]';
	return "'{9:1,1:5}'::cstring" if $type eq 'cstring' && $ret eq 'posting_doclen';
	return "'{9,1,5}'::cstring" if $type eq 'cstring';
	return 'NULL' if $type eq 'internal';	# no SQL value has type internal
	return "'none'" if $type eq 'text';
	return "('{1:5,5:9}'::$ret)::bytea" if $type eq 'bytea' && $ret eq 'posting_doclen';
	return "('{1,5,9}'::$ret)::bytea" if $type eq 'bytea' && $ret =~ /^posting_/;
	return "NULL::bytea" if $type eq 'bytea';
	return undef;
}

# Two rows of values of a type, for aggregates.
sub sample_rows
{
	my ($type) = @_;
	return "('{1,5,9}'::$type), ('{5,9,12}'::$type), (NULL)" if $type =~ /^posting_/;
	return '(5), (3), (NULL), (5)' if $type eq 'integer';
	return '(ARRAY[1,3]), (ARRAY[2,3])' if $type eq 'integer[]';
	return undef;
}

my (@calls, $nosample);
for my $f (@fns)
{
	my ($oid, $sig, $kind, $retset, $vol, $strict, $secdef, $config, $ret, $args, $aggsupport) = @$f;
	my @at = $args eq '' ? () : split /,/, $args;
	(my $name = $sig) =~ s/\(.*//;
	my $sql;
	if ($kind eq 'a')
	{
		my $rows = sample_rows($at[0]);
		$sql = "SELECT $name(x) AS x FROM (VALUES $rows) v(x)" if @at == 1 && defined $rows;
		# posting_intersect(T, nterms): the two non-NULL rows are the terms
		$sql = "SELECT $name(x, 2) AS x FROM (VALUES $rows) v(x)"
		  if @at == 2 && $at[1] eq 'integer' && defined $rows;
		# the ranked aggregates (list, stats, k [, k1, b]): the rows are the terms
		if (@at >= 3 && $at[1] eq 'posting_doclen' && defined $rows)
		{
			my @a = map { sample_arg($at[$_], $_, $ret) } 1 .. $#at;
			$sql = "SELECT $name(x, " . join(', ', @a) . ") AS x FROM (VALUES $rows) v(x)";
		}
	}
	else
	{
		my @a = map { sample_arg($at[$_], $_, $ret) } 0 .. $#at;
		$sql = "SELECT $name(" . join(', ', @a) . ') AS x' unless grep { !defined } @a;
	}
	if (!defined $sql)
	{
		$nosample .= " $sig";
		next;
	}
	# internal results cannot be shown: only whether there was one
	$sql = $ret eq 'internal'
	  ? "SELECT (x IS NULL)::text FROM ($sql) s"
	  : "SELECT md5(string_agg(coalesce(x::text, 'NULL'), ',')) FROM ($sql) s";
	push @calls, { oid => $oid, sig => $sig, sql => $sql, vol => $vol,
		strict => $strict, secdef => $secdef, config => $config,
		internal => ($args =~ /internal/ ? 1 : 0), aggsupport => $aggsupport,
		kind => $kind };
}
is($nosample, undef, 'every function has sample arguments in this test');

is(join(' ', map { $_->{sig} } grep { $_->{secdef} eq 't' || $_->{config} eq 't' } @calls),
	'', 'no SECURITY DEFINER function, none with SET options');
# non-strict functions: aggregate support (internal state) or known ones
is( join(' ', map { $_->{sig} } grep {
			$_->{strict} eq 'f' && $_->{kind} eq 'f' && $_->{aggsupport} ne 't'
			  && $_->{sig} !~ /^posting_(intersect_batch|rank_(and|or)(_batch)?)\(/ } @calls),
	'', 'only aggregate support functions, posting_intersect_batch and the ranked queries take NULLs');

# the privilege the catalog grants matches the admin list exactly
my $privs = $node->safe_psql('postgres', join(' UNION ALL ', map {
	"SELECT '$_->{sig}', has_function_privilege('alice', $_->{oid}, 'EXECUTE')" } @calls));
my @wrong = grep { my ($s, $p) = split /\|/; ($p eq 't' ? 1 : 0) == (exists $admin{$s} ? 1 : 0) }
  split /\n/, $privs;
is(join(' ', @wrong), '', 'PUBLIC may execute every function but the admin ones');

# call everything, as the superuser and as alice
$node->safe_psql('postgres', 'CREATE TABLE public._calls (id int, sql text); GRANT SELECT ON public._calls TO PUBLIC');
$node->safe_psql('postgres', 'INSERT INTO public._calls VALUES ' . join(', ',
		map { "($_, '" . ($calls[$_]{sql} =~ s/'/''/gr) . "')" } 0 .. $#calls));
$node->safe_psql('postgres', q{
	CREATE FUNCTION public._run_calls() RETURNS TABLE (id int, state text, res text)
	LANGUAGE plpgsql AS $$
	DECLARE c record;
	BEGIN
	  FOR c IN SELECT * FROM public._calls ORDER BY 1 LOOP
	    id := c.id;
	    BEGIN
	      EXECUTE c.sql INTO res;
	      state := '00000';
	    EXCEPTION WHEN OTHERS THEN
	      state := SQLSTATE;
	      res := SQLERRM;
	    END;
	    RETURN NEXT;
	  END LOOP;
	END $$;
});
my %as;
my $su = $node->safe_psql('postgres', 'SELECT current_user');
for my $who ($su, 'alice')
{
	for (split /\n/, $node->safe_psql('postgres', 'SELECT * FROM public._run_calls()',
		extra_params => [ '-U', $who ]))
	{
		my ($id, $state, $res) = split /\|/, $_, 3;
		$as{$who}[$id] = [ $state, $res ];
	}
}
my @bad;
my ($nok, $nrefused, $nsupport) = (0, 0, 0);
for my $i (0 .. $#calls)
{
	my $c = $calls[$i];
	my ($st, $res) = @{ $as{alice}[$i] // [ 'missing', '' ] };
	my ($sst, $sres) = @{ $as{$su}[$i] // [ 'missing', '' ] };
	if (exists $admin{ $c->{sig} })
	{
		push @bad, "$c->{sig}: $st (want 42501)" unless $st eq '42501';
		$nrefused++;
	}
	elsif ($c->{internal})
	{
		# functions of internal values: SQL cannot pass one (42883); if it
		# ever could, NULL or a clean error outside an aggregate
		push @bad, "$c->{sig}: $st $res"
		  unless $st eq '42883' || $st eq '00000'
		  || ($st eq 'XX000' && $res =~ /non-aggregate context/);
		$nsupport++;
	}
	elsif ($st ne '00000')
	{
		push @bad, "$c->{sig}: $st $res";
	}
	elsif ($c->{vol} ne 'v' || $c->{sig} =~ /^posting_/)
	{
		push @bad, "$c->{sig}: alice got $res, the superuser $sst $sres"
		  unless $sst eq '00000' && $res eq $sres;
		$nok++;
	}
	else
	{
		$nok++;
	}
}
is(join("\n", @bad), '', "as a plain role: $nok functions work (same answers as the superuser), "
	  . "$nrefused refused with 42501, $nsupport of internal values not callable");
is($nrefused, scalar(keys %admin), 'both admin functions were called');

# the admin functions, by name: refused even when granted (fault injection)
is((sql_as('alice', "SELECT gpuidx_inject_fault('error')"))[0], '42501', 'gpuidx_inject_fault: 42501');
is((sql_as('alice', 'SELECT gpuidx_stats_reset()'))[0], '42501', 'gpuidx_stats_reset: 42501');
$node->safe_psql('postgres', q{
	GRANT EXECUTE ON FUNCTION gpuidx_stats_reset() TO alice;
	GRANT EXECUTE ON FUNCTION gpuidx_inject_fault(text, int) TO alice});
is((sql_as('alice', 'SELECT gpuidx_stats_reset()'))[0], '00000', 'stats reset can be granted');
is((sql_as('alice', "SELECT gpuidx_inject_fault('error')"))[0], '42501',
	'fault injection stays superuser-only even when granted');
$node->safe_psql('postgres', q{
	REVOKE EXECUTE ON FUNCTION gpuidx_stats_reset() FROM alice;
	REVOKE EXECUTE ON FUNCTION gpuidx_inject_fault(text, int) FROM alice});
is((sql_as('alice', 'SELECT count(*) FROM gpuidx_stats'))[0], '00000', 'the view gpuidx_stats is readable');

# --- settings -----------------------------------------------------------
my %want_ctx = (
	'gpuidx.arena_size' => 'postmaster', 'gpuidx.max_requests' => 'postmaster',
	'gpuidx.cache_size' => 'postmaster', 'gpuidx.gpus' => 'postmaster',
	'gpuidx.device' => 'superuser', 'gpuidx.batch_threshold' => 'sighup',
	'gpuidx.batch_max_wait' => 'sighup', 'gpuidx.executor_threads' => 'sighup',
	'gpuidx.spin_wait' => 'sighup', 'gpuidx.pipeline_depth' => 'sighup',
	'gpuidx.gpu_graphs' => 'sighup', 'gpuidx.gpu_thread' => 'sighup',
	'gpuidx.rank_merge' => 'sighup',
	'gpuidx.rank_streams' => 'sighup',
	'gpuidx.use_executor' => 'user', 'gpuidx.executor_fallback' => 'user',
	'gpuidx.executor_timeout' => 'user');
my %ctx = map { split /\|/ } split /\n/, $node->safe_psql('postgres',
	"SELECT name, context FROM pg_settings WHERE name LIKE 'gpuidx.%'");
is_deeply(\%ctx, \%want_ctx, 'every gpuidx setting has the reviewed context');
my $gucsql = join(' UNION ALL ', map {
	my ($g, $v) = ($_, $node->safe_psql('postgres', "SHOW $_"));
	map { "SELECT '$g', '$_->[0]', public._try(\$s\$$_->[1]\$s\$)" }
	  ([ 'SET', "SET $g = '$v'" ], [ 'set_config', "SELECT set_config('$g', '$v', false)" ],
	   [ 'SET LOCAL', "SET LOCAL $g = '$v'" ], [ 'ALTER ROLE', "ALTER ROLE alice SET $g = '$v'" ])
} sort keys %ctx);
my @gbad;
my ($grefused, $gallowed) = (0, 0);
for (split /\n/, $node->safe_psql('postgres', $gucsql, extra_params => [ '-U', 'alice' ]))
{
	my ($g, $how, $st) = split /\|/;
	if ($ctx{$g} eq 'user')
	{
		push @gbad, "$how $g: $st" unless $st eq '00000';
		$gallowed++;
	}
	else
	{
		push @gbad, "$how $g: $st" unless $st eq '42501' || $st eq '55P02';
		$grefused++;
	}
}
is(join(', ', @gbad), '', "as a plain role: $grefused changes of server settings refused (42501/55P02), "
	  . "$gallowed of per-session ones allowed");
is((sql_as('alice', 'ALTER SYSTEM SET gpuidx.device = gpu'))[0], '42501', 'ALTER SYSTEM: 42501');
is((sql_as('alice', 'SET gpuidx.no_such_setting = 1'))[0], '42602', 'no made-up gpuidx.* placeholders');
$node->safe_psql('postgres', 'ALTER ROLE alice RESET ALL');

# --- private data, concurrent executors, an observer ---------------------
# alice's docIDs lie in [0, 10^6), bob's in [3 * 10^6, 4 * 10^6); each owns
# lists(term, docs), queries(qid, term) and the in-backend answers ref(qid, res)
my %base = (alice => 0, bob => 3000000);
for my $who ('alice', 'bob')
{
	my $b = $base{$who};
	my $out = $node->safe_psql('postgres', qq{
		SELECT setseed(@{[ $who eq 'alice' ? 0.11 : 0.22 ]});
		CREATE TABLE lists AS
		  SELECT t AS term, posting_qs(ARRAY(
		           SELECT DISTINCT ($b + random() * 999999 + 0 * t)::int
		           FROM generate_series(1, (40 * power(1500.0, random()) + 0 * t)::int))) AS docs
		  FROM generate_series(1, 40) t;
		INSERT INTO lists SELECT 40 + t, posting_qs(ARRAY(
		    SELECT $b + g FROM generate_series(0, 240000) g WHERE g % (t + 1) = 0))
		  FROM generate_series(1, 4) t;
		CREATE TABLE queries AS
		  SELECT DISTINCT q AS qid, 1 + (random() * 43)::int AS term
		  FROM generate_series(1, 60) q, generate_series(1, 1 + (random() * 2 + 0 * q)::int) i;
		SET gpuidx.use_executor = off;
		CREATE TABLE ref AS SELECT qid, posting_intersect(docs) AS res
		  FROM queries JOIN lists USING (term) GROUP BY qid;
		SELECT count(*) FROM ref, unnest(res) d WHERE d < $b OR d > $b + 999999
	}, extra_params => [ '-U', $who ]);
	is((split /\n/, $out)[-1], '0', "$who owns its lists, queries and answers (all in its docID range)");
}
is((sql_as('bob', 'SELECT count(*) FROM alice.lists'))[0], '42501', 'bob cannot read alice\'s lists');
is((sql_as('carol', 'SELECT count(*) FROM bob.ref'))[0], '42501', 'carol cannot read bob\'s answers');

# the loop each role runs: every shape, answers against its reference
my $loop = q{
DO $$
DECLARE
  bad int;
  n int := 0;
BEGIN
  FOR i IN 1..25 LOOP
    SELECT count(*) INTO bad FROM (SELECT qid, posting_intersect(docs) AS res
      FROM queries JOIN lists USING (term) GROUP BY qid) e FULL JOIN ref r USING (qid)
      WHERE e.res IS DISTINCT FROM r.res;
    IF bad > 0 THEN RAISE EXCEPTION 'GROUP BY: % wrong answers in round %', bad, i; END IF;
    SELECT count(*) INTO bad FROM (SELECT b.qid, b.docs AS res
      FROM (SELECT array_agg(qid::bigint) q, array_agg(docs) l FROM queries JOIN lists USING (term)) s,
           posting_intersect_batch(s.q, s.l) b) e FULL JOIN ref r USING (qid)
      WHERE e.res IS DISTINCT FROM r.res;
    IF bad > 0 THEN RAISE EXCEPTION 'batch: % wrong answers in round %', bad, i; END IF;
    SELECT count(*) INTO bad FROM ref r WHERE r.qid % 10 = i % 10 AND r.res IS DISTINCT FROM
      (SELECT posting_intersect(docs) FROM queries JOIN lists USING (term) WHERE qid = r.qid);
    IF bad > 0 THEN RAISE EXCEPTION 'single: % wrong answers in round %', bad, i; END IF;
    n := n + 1;
  END LOOP;
  RAISE NOTICE 'rounds %', n;
END $$;
SELECT 'done';
};
# the observer: every monitoring function, again and again, kept as text
my $watch = q{
CREATE TEMP TABLE seen (src text, row text);
DO $$
BEGIN
  FOR i IN 1..300 LOOP
    INSERT INTO seen SELECT 'info', row_to_json(f)::text FROM gpuidx_info() f;
    INSERT INTO seen SELECT 'view', row_to_json(s)::text FROM gpuidx_stats s;
    INSERT INTO seen SELECT 'stats', row_to_json(s)::text FROM gpuidx_stats() s;
    INSERT INTO seen SELECT 'profile', row_to_json(p)::text FROM gpuidx_executor_profile() p;
    PERFORM pg_sleep(0.01);
  END LOOP;
END $$;
-- anything but numbers, booleans, timestamps and the known texts
SELECT count(*), count(*) FILTER (WHERE j.value::text !~ '^(-?[0-9.e+-]+|true|false|null|"[0-9T: .+-]+")$'
   AND NOT (j.key = 'executor_state' AND j.value #>> '{}' IN ('stopped', 'starting', 'running'))
   AND NOT (j.key = 'phase' AND j.value #>> '{}' IN ('other', 'take', 'build', 'submit', 'rank', 'union', 'poll', 'finish', 'cpu', 'wait'))
   AND NOT (j.key = 'device' AND j.value #>> '{}' IN ('auto', 'gpu', 'cpu'))
   AND NOT (j.key = 'device_active' AND j.value #>> '{}' ~ '^(cpu: [0-9]+ threads?|gpu: .*|none)$')
   AND NOT (j.key = 'device_note' AND j.value #>> '{}' ~ '^(gpuidx.device is cpu|no gpu: .*)$'))
FROM seen, json_each(row::json) j;
};
my $before = gpx_stats($node);
# hold the executor until both roles wait for it: their first requests
# meet in one batch (and again later on, while they run)
gpx_hold($node, 1);
my %bg;
{
	local $ENV{PGUSER};
	for my $who ('alice', 'bob', 'carol')
	{
		$ENV{PGUSER} = $who;
		$bg{$who} = gpx_bg($node, $who eq 'carol' ? $watch : $loop);
	}
}
ok(gpx_wait_waiting($node, 2), 'alice and bob both wait for the held executor');
gpx_hold($node, 0);
for (1 .. 2)
{
	sleep 2;
	$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('hold', 300)");
}
my %res;
for my $who ('alice', 'bob', 'carol')
{
	my ($rc, $out, $err) = gpx_bg_finish($bg{$who});
	$res{$who} = [ $rc, $out, $err ];
}
for my $who ('alice', 'bob')
{
	my ($rc, $out, $err) = @{ $res{$who} };
	ok($rc == 0 && $out =~ /done/ && $err =~ /rounds 25/,
		"$who: 25 rounds of GROUP BY, batch and single queries, every answer right and from its own data")
	  or diag("rc $rc\n$out\n$err");
}
my ($crc, $cout, $cerr) = @{ $res{carol} };
my ($nseen, $odd) = split /\|/, ($cout =~ /(\d+\|\d+)/ ? $1 : '0|-1');
ok($crc == 0 && $nseen > 0 && $odd == 0,
	"carol read the monitoring functions 300 times each: $nseen values, all counters or known settings")
  or diag("rc $crc\n$cout\n$cerr");
my $after = gpx_stats($node);
cmp_ok($after->{queries} - $before->{queries}, '>', 1000, 'the executor computed the answers');
cmp_ok($after->{multi_backend_batches} - $before->{multi_backend_batches}, '>', 0,
	'batches held both roles\' requests');
is($after->{fallbacks} - $before->{fallbacks}, 0, 'nothing fell back to the backend');
ok(gpx_wait_slots_free($node), 'no request slot left in use');

# --- a forged list must not poison another role's cache entry -------------
# V and W are public; mallory builds C with V's old unkeyed hash (test/unit/old_hash64.h), length and ends
# (two bit flips 64 bytes apart in the Elias-Fano low bits cancel out in
# the hash) whose intersection with W differs, and sends it until the
# executor caches it.  alice's query over V and W must still be right.
$node->safe_psql('postgres', q{
	SELECT setseed(0.33);
	CREATE TABLE public.pub AS
	  WITH v AS (SELECT ARRAY(SELECT DISTINCT (random() * 2e9)::int FROM generate_series(1, 20000)) a)
	  SELECT 1 AS id, posting_qs(a) AS docs FROM v
	  UNION ALL
	  SELECT 2, posting_qs(ARRAY(SELECT x FROM unnest(a) x WHERE x % 2 = 0)
	                       || ARRAY(SELECT (random() * 2e9)::int FROM generate_series(1, 5000))) FROM v;
	GRANT SELECT ON public.pub TO PUBLIC;
});
my $forged = $node->safe_psql('postgres', q{
	CREATE TABLE crafted (id int, docs posting_qs);
	DO $$
	DECLARE b bytea; c bytea; p posting_qs; v posting_qs; w posting_qs;
	BEGIN
	  SELECT docs INTO v FROM pub WHERE id = 1;
	  SELECT docs INTO w FROM pub WHERE id = 2;
	  b := v::bytea;
	  FOR o IN 256 .. (octet_length(b) / 64) * 64 - 80 BY 8 LOOP
	    c := set_bit(b, (o + 7) * 8 + 7, 1 - get_bit(b, (o + 7) * 8 + 7));
	    c := set_bit(c, (o + 67) * 8 + 4, 1 - get_bit(c, (o + 67) * 8 + 4));
	    BEGIN
	      p := c::posting_qs;
	    EXCEPTION WHEN OTHERS THEN
	      CONTINUE;
	    END;
	    IF (p & w) <> (v & w) AND length(p) = length(v) AND size_bytes(p) = size_bytes(v)
	       AND first_docid(p) = first_docid(v) AND last_docid(p) = last_docid(v) THEN
	      INSERT INTO crafted VALUES (1, p);
	      EXIT;
	    END IF;
	  END LOOP;
	  INSERT INTO crafted VALUES (2, w);
	END $$;
	SELECT count(*) FROM crafted;
	SELECT posting_intersect_count(docs) FROM crafted;
	SELECT posting_intersect_count(docs) FROM crafted;
	SELECT posting_intersect_count(docs) FROM crafted;
}, extra_params => [ '-U', 'mallory' ]);
like($forged, qr/^2\n/, 'mallory forged a list colliding with a public one');
my $s0 = gpx_stats($node);
cmp_ok($s0->{cache_hits}, '>', 0, 'the executor cached mallory\'s lists (hits by his own later queries)');
my $check = q{
	SELECT md5(posting_intersect(docs)::text) FROM pub;
	SET gpuidx.use_executor = off;
	SELECT md5(posting_intersect(docs)::text) FROM pub;
};
my ($e1, $r1) = split /\n/, $node->safe_psql('postgres', $check, extra_params => [ '-U', 'alice' ]);
is($e1, $r1, 'alice\'s answer over the public lists is right after mallory\'s forgery');
my $s1 = gpx_stats($node);
is($s1->{cache_hits} - $s0->{cache_hits}, 0, 'alice got no cache hit on mallory\'s entries');
$node->safe_psql('postgres', $check, extra_params => [ '-U', 'alice' ]);
my ($e3, $r3) = split /\n/, $node->safe_psql('postgres', $check, extra_params => [ '-U', 'alice' ]);
my $s2 = gpx_stats($node);
cmp_ok($s2->{cache_hits} - $s1->{cache_hits}, '>', 0, 'alice\'s own lists are cached for her');
is($e3, $r3, 'and her answers from her cache entries are right');

# --- executor_timeout = 0: waiting forever, yet cancellable ----------------
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('hold', 60000)");
my $wait;
{
	local $ENV{PGUSER} = 'alice';
	$wait = gpx_bg($node, q{
		SET gpuidx.executor_timeout = 0;
		SELECT posting_intersect(docs) FROM alice.lists WHERE term IN (41, 42);
	});
}
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) = 1 FROM pg_stat_activity
		WHERE usename = 'alice' AND state = 'active' AND wait_event_type = 'Extension'}),
	'alice waits for the held executor');
my $t0 = time;
$node->safe_psql('postgres', q{
	SELECT pg_cancel_backend(pid) FROM pg_stat_activity
	WHERE usename = 'alice' AND wait_event_type = 'Extension'}, extra_params => [ '-U', 'alice' ]);
my ($wrc, $wout, $werr) = gpx_bg_finish($wait);
ok($wrc != 0 && $werr =~ /canceling statement due to user request/ && time - $t0 < 10,
	'her own cancel ends the wait at once') or diag("rc $wrc\n$wout\n$werr");
$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('hold', 0)");
ok(gpx_wait_slots_free($node), 'the cancelled request left no slot behind');

$node->stop;
done_testing();
