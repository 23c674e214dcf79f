# GpxTap.pm - helpers shared by the executor TAP tests (test/t/*.pl):
# a node with gpuidx preloaded, deterministic test data, reference
# answers computed in the backend, and background sessions.
package GpxTap;

use strict;
use warnings;

use Cwd ();
use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use Exporter 'import';
our @EXPORT = qw(gpx_node gpx_wait_executor gpx_poll gpx_data gpx_bg gpx_bg_finish
  gpx_info gpx_stats gpx_check_queries gpx_wait_slots_free
  gpx_soak_setup gpx_soak_load_start gpx_soak_load_finish gpx_soak_verify
  gpx_proc_mem gpx_fault gpx_hold gpx_wait_waiting gpx_executor_pid);

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
		  . ($opt{conf} // '') . "\n"
		  # run-tests.sh's gpu-exec stage: the emulated GPU is slow
		  . ($ENV{GPX_TEST_EXTRA_CONF} // ''));
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

# Poll until $sql (one value) returns 't', at most $secs seconds (default
# PostgreSQL::Test::Utils::timeout_default); 1 if it did.  Safe while the
# server refuses connections (crash recovery, restart): psql gets the SQL
# by -c and nothing on stdin.  $node->psql and poll_query_until write the
# SQL to psql's stdin, and a psql that has already exited on a refused
# connection breaks that pipe: IPC::Run dies with "ack Broken pipe".
sub gpx_poll
{
	my ($node, $sql, $secs) = @_;
	$secs //= $PostgreSQL::Test::Utils::timeout_default;
	my $t0 = time;
	while (1)
	{
		my ($out, $err) = ('', '');
		eval {
			IPC::Run::run(
				[ $node->installed_command('psql'), '-XAtq', '-d',
					$node->connstr('postgres'), '-c', $sql ],
				'<', '/dev/null', '>', \$out, '2>', \$err,
				IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
		};
		chomp $out;
		return 1 if $out eq 't';
		return 0 if time - $t0 >= $secs;
		select(undef, undef, undef, 0.1);
	}
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

# --- load and soak (004, 005) ---------------------------------------------
#
# soak(term, arr int4[], pf, lr, qs): every term's docIDs as a plain array
# and in each of the three types, written together so that they always
# agree.  Terms divisible by 4 are "wide" (20000..50000 docIDs out of
# 2M: lists of 22-65 kB, most above the 32 kB from which the executor
# hashes and caches lists), the others narrow (20..20000 out of 50000).
# pgbench scripts read and write it:
#
#   read:  a REPEATABLE READ transaction calling soak_check(path, type,
#          a, b, c), which computes 7 intersections through one path
#          (gpuidx.device auto, cpu or gpu, or gpuidx.use_executor off)
#          and compares each with a plain SQL intersection of the arrays
#          (soak_ref) in the same snapshot; a difference goes to
#          soak_wrong and raises a WARNING, never an error; every call
#          adds a row (n = 7 checked) to soak_checks;
#   write: a transaction rewriting a random existing term's lists
#          (UPDATE) and inserting a new term (INSERT); after COMMIT
#          succeeded, pgbench appends the new term to ids.log.

# Create the soak schema and nterms terms; writes the pgbench scripts and
# returns a hash describing them (dir, read, write, ids, nterms, maxterm).
sub gpx_soak_setup
{
	my ($node, %o) = @_;
	my $nterms = $o{nterms} // 200;
	my $maxterm = $o{maxterm} // 3 * $nterms;
	my $dir = Cwd::abs_path($node->basedir) . '/soak';
	mkdir $dir;
	my $sql = q{
CREATE TABLE soak (term int PRIMARY KEY, arr int4[] NOT NULL,
  pf posting_pfor NOT NULL, lr posting_lrc NOT NULL, qs posting_qs NOT NULL);
CREATE SEQUENCE soak_term_seq START @NEXT@;
CREATE TABLE soak_checks (path text, typ text, n int, wrong int);
CREATE TABLE soak_wrong (at timestamptz DEFAULT clock_timestamp(), path text,
  typ text, op text, terms int[], got text, want text);

-- n random distinct docIDs in [0, universe), sorted
CREATE FUNCTION soak_rand_list(n int, universe int) RETURNS int4[]
LANGUAGE sql VOLATILE AS $$
  SELECT ARRAY(SELECT DISTINCT (random() * (universe - 1))::int
               FROM generate_series(1, n) ORDER BY 1) $$;

-- a new list for term t: wide (t % 4 = 0) or narrow
CREATE FUNCTION soak_new_list(t int) RETURNS int4[]
LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN t % 4 = 0
    THEN soak_rand_list((20000 * power(2.5, random()))::int, 2000000)
    ELSE soak_rand_list((20 * power(1000, random()))::int, 50000) END $$;

-- the reference: the docIDs in the arrays of every existing term of ts
-- (NULL when none exists), by SQL INTERSECT of the unnested arrays,
-- shortest first, without any gpuidx code
CREATE FUNCTION soak_ref(ts int[]) RETURNS int4[]
LANGUAGE plpgsql STABLE AS $$
DECLARE
  acc int4[];
  a int4[];
BEGIN
  FOR a IN SELECT arr FROM soak WHERE term = ANY (ts) ORDER BY cardinality(arr) LOOP
    IF acc IS NULL THEN
      acc := a;
    ELSE
      acc := ARRAY(SELECT unnest(acc) INTERSECT SELECT unnest(a) ORDER BY 1);
    END IF;
  END LOOP;
  RETURN acc;
END $$;

-- record a wrong answer (a row and a WARNING; never an error, so it is
-- kept whatever happens to the session afterwards); returns 1
CREATE FUNCTION soak_note_wrong(path text, typ text, op text, ts int[],
  got text, want text) RETURNS int
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO soak_wrong (path, typ, op, terms, got, want)
    VALUES (path, typ, op, ts, got, want);
  RAISE WARNING 'gpuidx soak: wrong answer: % % % %', path, typ, op, ts;
  RETURN 1;
END $$;

-- 7 intersections of terms a, b, c through one path, each against soak_ref:
-- posting_intersect(a,b,c), posting_intersect_count(a,b,c), a & b, a && b,
-- posting_intersect_batch of {a,b}, {b,c}, {a,b,c}.  Returns wrong answers.
CREATE FUNCTION soak_check(path int, typ int, a int, b int, c int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  pname text := (ARRAY['auto', 'cpu', 'gpu', 'backend'])[path + 1];
  col text := (ARRAY['pf', 'lr', 'qs'])[typ + 1];
  r_abc int4[] := soak_ref(ARRAY[a, b, c]);
  r_ab int4[] := soak_ref(ARRAY[a, b]);
  r_bc int4[] := soak_ref(ARRAY[b, c]);
  r_pair int4[];
  got int4[];
  gotn bigint;
  gotb bool;
  gott text;
  reft text;
  wrong int := 0;
BEGIN
  IF path = 3 THEN
    PERFORM set_config('gpuidx.use_executor', 'off', true);
  ELSE
    PERFORM set_config('gpuidx.use_executor', 'on', true);
    PERFORM set_config('gpuidx.device', pname, true);
  END IF;

  EXECUTE format('SELECT posting_intersect(%I) FROM soak WHERE term IN ($1, $2, $3)', col)
    INTO got USING a, b, c;
  IF got IS DISTINCT FROM r_abc THEN
    wrong := wrong + soak_note_wrong(pname, col, 'posting_intersect', ARRAY[a, b, c], got::text, r_abc::text);
  END IF;

  EXECUTE format('SELECT posting_intersect_count(%I) FROM soak WHERE term IN ($1, $2, $3)', col)
    INTO gotn USING a, b, c;
  IF gotn IS DISTINCT FROM cardinality(r_abc)::bigint THEN
    wrong := wrong + soak_note_wrong(pname, col, 'posting_intersect_count', ARRAY[a, b, c], gotn::text, cardinality(r_abc)::text);
  END IF;

  EXECUTE format('SELECT x.%1$I & y.%1$I, x.%1$I && y.%1$I FROM soak x, soak y WHERE x.term = $1 AND y.term = $2', col)
    INTO got, gotb USING a, b;
  IF (SELECT count(*) FROM soak WHERE term IN (a, b)) = (CASE WHEN a = b THEN 1 ELSE 2 END) THEN
    r_pair := r_ab;
  END IF;
  IF got IS DISTINCT FROM r_pair THEN
    wrong := wrong + soak_note_wrong(pname, col, '&', ARRAY[a, b], got::text, r_pair::text);
  END IF;
  IF gotb IS DISTINCT FROM (cardinality(r_pair) > 0) THEN
    wrong := wrong + soak_note_wrong(pname, col, '&&', ARRAY[a, b], gotb::text, (cardinality(r_pair) > 0)::text);
  END IF;

  EXECUTE format($q$
    SELECT string_agg(b.qid || '=' || b.docs::text, ' ' ORDER BY b.qid)
    FROM (SELECT array_agg(v.q ORDER BY v.q, v.t) AS qs, array_agg(s.%I ORDER BY v.q, v.t) AS ls
          FROM (VALUES (1::bigint, $1), (1, $2), (2, $2), (2, $3), (3, $1), (3, $2), (3, $3)) v(q, t)
          JOIN soak s ON s.term = v.t) z,
         posting_intersect_batch(z.qs, z.ls) b
    $q$, col)
    INTO gott USING a, b, c;
  SELECT string_agg(q || '=' || r::text, ' ' ORDER BY q) INTO reft
    FROM (VALUES (1, r_ab), (2, r_bc), (3, r_abc)) v(q, r) WHERE r IS NOT NULL;
  IF gott IS DISTINCT FROM reft THEN
    wrong := wrong + soak_note_wrong(pname, col, 'posting_intersect_batch', ARRAY[a, b, c], md5(gott), md5(reft));
  END IF;

  INSERT INTO soak_checks VALUES (pname, col, 7, wrong);
  RETURN wrong;
END $$;

-- rewrite term t's lists and insert a new term; returns the new term
CREATE FUNCTION soak_write(t int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  a int4[] := soak_new_list(t);
  id int := nextval('soak_term_seq');
BEGIN
  UPDATE soak SET arr = a, pf = posting_pfor(a), lr = posting_lrc(a), qs = posting_qs(a)
    WHERE term = t;
  a := soak_new_list(id);
  INSERT INTO soak VALUES (id, a, posting_pfor(a), posting_lrc(a), posting_qs(a));
  RETURN id;
END $$;

SELECT setseed(0.31);
INSERT INTO soak SELECT t, a, posting_pfor(a), posting_lrc(a), posting_qs(a)
  FROM (SELECT t, soak_new_list(t) AS a FROM generate_series(1, @NTERMS@) t) s;
ANALYZE soak;
};
	$sql =~ s/\@NTERMS\@/$nterms/g;
	$sql =~ s/\@NEXT\@/$nterms + 1/ge;
	$node->safe_psql('postgres', $sql);

	my %s = (dir => $dir, nterms => $nterms, maxterm => $maxterm,
		read => "$dir/read.sql", write => "$dir/write.sql", ids => "$dir/ids.log");
	PostgreSQL::Test::Utils::append_to_file($s{ids}, '');
	open(my $f, '>', $s{read}) or die "$s{read}: $!";
	print $f qq{\\set p random(0, 3)
\\set t random(0, 2)
\\set a random(1, $nterms)
\\set b random(1, $nterms)
\\set c random(1, $maxterm)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT soak_check(:p, :t, :a, :b, :c);
COMMIT;
};
	close $f;
	open($f, '>', $s{write}) or die "$s{write}: $!";
	print $f qq{\\set t random(1, $nterms)
BEGIN;
SELECT soak_write(:t) AS id \\gset
COMMIT;
\\shell echo :id >> $s{ids}
};
	close $f;
	return \%s;
}

# Start pgbench load on the soak scripts: procs pgbench processes of
# clients clients each for secs seconds, read:write weights rw (default
# '8:2').  With restart => 1 each process is started again (after 0.3 s)
# whenever it ends early, e.g. because its client was cancelled, killed
# or the server restarted, until the time is up.  env: extra environment
# (e.g. PGOPTIONS).  The sessions' application_name is gpx_soak.  Returns
# a handle for gpx_soak_load_finish.
sub gpx_soak_load_start
{
	my ($node, $s, %o) = @_;
	my $secs = $o{secs} // 10;
	my $procs = $o{procs} // 1;
	my $clients = $o{clients} // 8;
	my $jobs = $o{jobs} // ($clients < 2 ? 1 : 2);
	my ($rw, $ww) = split /:/, ($o{rw} // '8:2');
	my $restart = $o{restart} ? 1 : 0;
	my $tag = $o{tag} // 'load';
	my $host = $node->host;
	my $port = $node->port;
	my %l = (tag => $tag, dir => $s->{dir}, h => [], t0 => time, secs => $secs);
	# application_name gpx_soak tells the load's sessions apart
	local %ENV = (%ENV, PGAPPNAME => 'gpx_soak', %{ $o{env} // {} });
	for my $k (1 .. $procs)
	{
		my $sh = qq{
end=\$((SECONDS + $secs)); i=0
while :; do
  rem=\$((end - SECONDS)); [ \$rem -ge 1 ] || break
  i=\$((i + 1)); out='$s->{dir}/pgb.$tag.$k.'\$i.out
  pgbench -n -c $clients -j $jobs -T \$rem -f '$s->{read}\@$rw' -f '$s->{write}\@$ww' \\
    -h '$host' -p $port postgres > "\$out" 2>&1
  echo "pgbench exit status \$?" >> "\$out"
  [ $restart = 1 ] || break
  sleep 0.3
done
};
		push @{ $l{h} }, IPC::Run::start([ 'bash', '-c', $sh ],
			'>', \my $o1, '2>', \my $e1,
			IPC::Run::timeout($secs + $PostgreSQL::Test::Utils::timeout_default));
	}
	return \%l;
}

# Error lines pgbench may print when a fault hits its session, by kind
# (anything else is unexpected).
my @gpx_allowed = (
	[ cancel => qr/canceling statement due to user request/ ],
	[ statement_timeout => qr/canceling statement due to statement timeout/ ],
	[ terminated => qr/terminating connection due to administrator command/ ],
	[ connection_lost => qr/terminating connection because of crash of another server process|the database system is (?:in recovery mode|not yet accepting connections|starting up|shutting down)|server closed the connection unexpectedly|perhaps the backend died|connection to server .* failed|could not connect to server|could not create connection|no connection to the server|Connection refused|No such file or directory|terminating connection due to unexpected postmaster exit/ ],
	[ run_aborted => qr/Run was aborted|aborted in command \d+ \(SQL\) of script/ ],
);

# Warnings that are no error: the soak's gpu path on a machine whose
# executor has no usable GPU (it runs on the executor's cpu threads).
my @gpx_notices = (
	[ no_gpu => qr/gpuidx\.device is gpu, but the executor has no usable gpu/ ],
);

# Wait for the load to end; returns a summary: runs (pgbench processes
# run), exit (their exit codes), processed, reads, writes (transactions
# pgbench counted), aborted (client abort lines), err (hash kind ->
# count), notices (hash kind -> count, of @gpx_notices), unexpected
# (error lines of no allowed kind, or a pgbench that did not end in
# time), wrong (wrong-answer warnings), wall (seconds).
sub gpx_soak_load_finish
{
	my ($l) = @_;
	my %r = (runs => 0, processed => 0, reads => 0, writes => 0, aborted => 0,
		err => {}, notices => {}, unexpected => [], wrong => [], exit => [], out => '');
	for my $h (@{ $l->{h} })
	{
		eval { $h->finish; };
		next unless $@;
		# a pgbench that did not end: a session hangs (never expected)
		push @{ $r{unexpected} }, "pgbench did not end in time: $@";
		eval { $h->kill_kill; };
	}
	$r{wall} = time - $l->{t0};
	for my $f (sort glob("$l->{dir}/pgb.$l->{tag}.*.out"))
	{
		my $t = PostgreSQL::Test::Utils::slurp_file($f);
		$r{runs}++;
		$r{out} .= "--- $f\n$t";
		$r{processed} += $1 while $t =~ /number of transactions actually processed: (\d+)/g;
		push @{ $r{exit} }, $1 while $t =~ /^pgbench exit status (\d+)$/mg;
		while ($t =~ /SQL script \d+: (\S+)\n - weight: .*\n - (\d+) transactions/g)
		{
			my ($script, $n) = ($1, $2);
			$r{ $script =~ /read\.sql$/ ? 'reads' : 'writes' } += $n;
		}
		for my $line (split /\n/, $t)
		{
			if ($line =~ /gpuidx soak: wrong answer/)
			{
				push @{ $r{wrong} }, $line;
				next;
			}
			next unless $line =~ /\b(?:ERROR|FATAL|PANIC|WARNING):|pgbench: (?:error|fatal):/;
			my ($notice) = map { $_->[0] } grep { $line =~ $_->[1] } @gpx_notices;
			if ($notice)
			{
				$r{notices}{$notice}++;
				next;
			}
			$r{aborted}++ if $line =~ /aborted in command/;
			my ($kind) = map { $_->[0] } grep { $line =~ $_->[1] } @gpx_allowed;
			if ($kind) { $r{err}{$kind}++; }
			else { push @{ $r{unexpected} }, $line; }
		}
	}
	return \%r;
}

# The state of the soak tables: checks (intersections checked), txns
# (read transactions committed), wrong (wrong answers recorded), rows,
# logged (new terms whose COMMIT pgbench saw succeed), missing (of those,
# not in the table), corrupt (rows whose lists differ from their array),
# paths ("path:checks ..."), types.
sub gpx_soak_verify
{
	my ($node, $s) = @_;
	my $out = $node->safe_psql('postgres', qq{
		CREATE TEMP TABLE ids (id int);
		COPY ids FROM '$s->{ids}';
		SELECT (SELECT coalesce(sum(n), 0) FROM soak_checks),
		       (SELECT count(*) FROM soak_checks),
		       (SELECT count(*) FROM soak_wrong),
		       (SELECT count(*) FROM soak),
		       (SELECT count(DISTINCT id) FROM ids),
		       (SELECT count(DISTINCT id) FROM ids WHERE id NOT IN (SELECT term FROM soak)),
		       (SELECT count(*) FROM soak WHERE docids(pf) IS DISTINCT FROM arr
		          OR docids(lr) IS DISTINCT FROM arr OR docids(qs) IS DISTINCT FROM arr),
		       (SELECT string_agg(path || ':' || n, ' ' ORDER BY path)
		          FROM (SELECT path, sum(n) n FROM soak_checks GROUP BY path) x),
		       (SELECT string_agg(typ || ':' || n, ' ' ORDER BY typ)
		          FROM (SELECT typ, sum(n) n FROM soak_checks GROUP BY typ) x)});
	my @v = split /\|/, $out;
	my %r;
	@r{qw(checks txns wrong rows logged missing corrupt paths types)} = @v;
	$r{$_} //= '' for qw(paths types);
	return \%r;
}

# Memory of a process from /proc/<pid>/status, in kB: VmRSS, VmHWM,
# RssAnon (its private memory, where a leak would show), RssShmem.
sub gpx_proc_mem
{
	my ($pid) = @_;
	my %m;
	open(my $f, '<', "/proc/$pid/status") or return undef;
	while (<$f>)
	{
		$m{$1} = $2 if /^(VmRSS|VmHWM|RssAnon|RssShmem):\s+(\d+) kB/;
	}
	close $f;
	return \%m;
}


# Inject executor fault $f for $ms ms (0 or none: until changed).
sub gpx_fault
{
	my ($node, $f, $ms) = @_;
	$node->safe_psql('postgres', "SELECT gpuidx_inject_fault('$f', " . ($ms // 0) . ')');
}

# hold: the executor takes no batch (requests stay queued) until released.
sub gpx_hold
{
	my ($node, $on) = @_;
	gpx_fault($node, 'hold', $on ? 30000 : 0);
}

# Wait until $n client backends wait for the executor; 1 if they did.
sub gpx_wait_waiting
{
	my ($node, $n) = @_;
	return $node->poll_query_until('postgres', qq{
		SELECT count(*) = $n FROM pg_stat_activity
		WHERE backend_type = 'client backend' AND wait_event_type = 'Extension'});
}

# The executor's pid, 0 when none runs.
sub gpx_executor_pid
{
	my ($node) = @_;
	return $node->safe_psql('postgres', 'SELECT coalesce(executor_pid, 0) FROM gpuidx_info()');
}

1;
