--
-- posting_types: the SQL surface of posting_pfor, posting_lrc and
-- posting_qs on valid input: text and binary round trips, edge cases,
-- casts, accessors, aggregates, and randomized lists checked against an
-- int4[] reference.
--
\i sql/regress_setup.psql

-- ---------------------------------------------------------------------------
-- catalog: storage, alignment, casts
-- ---------------------------------------------------------------------------
SELECT typname, typlen, typalign, typstorage, typcategory
FROM pg_type WHERE typname LIKE 'posting\_%' AND typtype = 'b'
ORDER BY typname;

SELECT castsource::regtype AS source, casttarget::regtype AS target,
       CASE castcontext WHEN 'e' THEN 'explicit' WHEN 'a' THEN 'assignment'
                        ELSE 'implicit' END AS context,
       CASE castmethod WHEN 'b' THEN 'binary' ELSE castfunc::regprocedure::text
       END AS method
FROM pg_cast
WHERE castsource::regtype::text LIKE 'posting\_%'
   OR casttarget::regtype::text LIKE 'posting\_%'
ORDER BY castsource::regtype::text COLLATE "C", casttarget::regtype::text COLLATE "C";

-- the functions of the posting types are all parallel safe and, but for
-- the aggregate transition / combine / final functions, strict
SELECT p.oid::regprocedure AS function, p.proparallel, p.proisstrict
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                 AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpuidx'
WHERE (p.proname ~ '^posting_(pfor|lrc|qs)(_in|_out|_recv|_send|_agg|_agg_final)?$'
       OR p.proname ~ '^posting_agg_'
       OR p.proname IN ('docids', 'unnest', 'length', 'first_docid', 'last_docid',
                        'size_bytes', 'bits_per_docid', 'codec', 'contains',
                        'contained_in', 'nth'))
  AND (p.proparallel <> 's'
       OR (NOT p.proisstrict AND p.prokind = 'f'
           AND p.proname NOT IN ('posting_agg_trans', 'posting_agg_combine')
           AND p.proname NOT LIKE 'posting\_%\_agg\_final'))
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- the whole surface of one type
SELECT p.oid::regprocedure AS function, p.prorettype::regtype AS returns,
       p.prokind, p.provolatile, p.proretset
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                 AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpuidx'
WHERE (p.proargtypes::regtype[] @> ARRAY['posting_pfor'::regtype]
       OR p.prorettype = 'posting_pfor'::regtype
       OR p.proname ~ '^posting_agg_')
  -- intersection (aggregates, & and &&): see posting_intersect
  AND p.proname NOT LIKE 'posting\_intersect%' AND p.proname <> 'posting_overlaps'
  -- set algebra, order, updates, rank: see posting_setops
  AND p.proname NOT IN ('posting_or', 'posting_andnot', 'posting_xor',
                        'posting_or_count', 'posting_andnot_count',
                        'posting_xor_count', 'posting_eq', 'posting_ne',
                        'posting_lt', 'posting_le', 'posting_gt', 'posting_ge',
                        'posting_cmp', 'posting_hash', 'posting_hash_extended',
                        'rank', 'posting_add', 'posting_add_doc',
                        'posting_remove', 'posting_remove_doc',
                        'posting_union_agg', 'posting_union',
                        'posting_union_count', 'posting_unionagg_trans')
  AND p.proname NOT LIKE 'posting\_%\_union\_agg\_final'
  AND NOT (p.proname IN ('contains', 'contained_in')
           AND p.proargtypes[0] <> 'int4'::regtype
           AND p.proargtypes[1] <> 'int4'::regtype)
ORDER BY p.oid::regprocedure::text COLLATE "C";

SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
       o.oprcode, o.oprcom::regoperator AS commutator, o.oprrest, o.oprjoin
FROM pg_operator o
WHERE (o.oprleft::regtype::text LIKE 'posting\_%' OR o.oprright::regtype::text LIKE 'posting\_%')
  AND o.oprname NOT IN ('&', '&&')      -- see posting_intersect
  -- set algebra, order, updates: see posting_setops
  AND o.oprname NOT IN ('|', '-', '#', '+', '=', '<>', '<', '<=', '>', '>=')
  AND NOT (o.oprname IN ('@>', '<@') AND o.oprleft <> 'int4'::regtype
           AND o.oprright <> 'int4'::regtype)
ORDER BY o.oprleft::regtype::text COLLATE "C", o.oprright::regtype::text COLLATE "C",
         o.oprname COLLATE "C";

-- ---------------------------------------------------------------------------
-- text input / output
-- ---------------------------------------------------------------------------
SELECT t AS input, t::posting_pfor AS pfor, t::posting_lrc AS lrc,
       t::posting_qs AS qs
FROM (VALUES ('{}'), ('  {  }  '), ('{0}'), ('{2147483647}'),
             ('{0,2147483647}'), ('{5,1,9,1,5}'), ('  { 3 ,1,  2 }  '),
             ('{+7,007,-0}'), (E'{\t1,\n2\r,\f3 }'), ('{9,8,7,6,5,4,3,2,1,0}'),
             ('{2147483647,2147483647,0,0}')) v(t);

-- text round trip of the output
SELECT count(*) AS bad
FROM (VALUES ('{}'), ('{0}'), ('{1,5,9}'), ('{0,2147483647}')) v(t)
WHERE t::posting_pfor::text::posting_pfor::text <> t
   OR t::posting_lrc::text::posting_lrc::text <> t
   OR t::posting_qs::text::posting_qs::text <> t;

-- a function call spelled with the type name and a literal is a cast
SELECT posting_pfor('{3,2,1}'), posting_lrc('{3,2,1}'), posting_qs('{3,2,1}');

-- ---------------------------------------------------------------------------
-- edge cases through every accessor
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE edge (id int, ref int4[], pf posting_pfor,
                        lr posting_lrc, qs posting_qs);
INSERT INTO edge
SELECT id, r, r, r, r            -- int4[] -> T is an assignment cast
FROM (VALUES (1, '{}'::int4[]), (2, '{0}'), (3, '{2147483647}'),
             (4, '{0,2147483647}'), (5, '{7,8,9,10}'),
             (6, '{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20}'),
             (7, '{1,1000,1000000,1000000000}'), (8, '{2147483646,2147483647}'))
     v(id, r);

-- the accessors of one value, whatever its type (a polymorphic SQL
-- function resolves the calls for each argument type)
CREATE FUNCTION pg_temp.accessors(p anyelement,
    OUT val text, OUT len bigint, OUT first int4, OUT last int4, OUT codec text,
    OUT nth1 int4, OUT nth2 int4, OUT nthn int4, OUT nth0 int4, OUT nthn1 int4,
    OUT has0 bool, OUT hasmax bool, OUT has8 bool, OUT hasneg bool,
    OUT docids int4[], OUT size int4, OUT octets int4, OUT bits float8)
LANGUAGE sql AS $$
    SELECT p::text, length(p), first_docid(p), last_docid(p), codec(p),
           nth(p, 1), nth(p, 2), nth(p, length(p)), nth(p, 0),
           nth(p, length(p) + 1), p @> 0, 2147483647 <@ p, contains(p, 8),
           p @> -1, docids(p), size_bytes(p), octet_length(p::bytea),
           bits_per_docid(p)
$$;
CREATE TEMP VIEW edge_acc AS
SELECT id, 'pfor' AS typ, a.* FROM edge, pg_temp.accessors(pf) a
UNION ALL SELECT id, 'lrc', a.* FROM edge, pg_temp.accessors(lr) a
UNION ALL SELECT id, 'qs', a.* FROM edge, pg_temp.accessors(qs) a;

SELECT id, typ, val, len, first, last, codec, nth1, nth2, nthn, nth0, nthn1,
       has0, hasmax, has8, hasneg
FROM edge_acc ORDER BY id, typ;

-- docids agrees with the reference; size_bytes is the bytea length;
-- bits_per_docid is 8 * size / n (NULL when empty); the empty list is
-- just the 2-byte header
SELECT e.id, a.typ, a.docids = e.ref AS docids_ok, a.size = a.octets AS size_ok,
       a.bits IS NOT DISTINCT FROM 8.0 * a.size / nullif(a.len, 0) AS bits_ok,
       CASE WHEN a.len = 0 THEN a.size END AS empty_size
FROM edge e JOIN edge_acc a USING (id) ORDER BY e.id, a.typ;

-- unnest
SELECT 'pfor' AS typ, x FROM edge, unnest(pf) x WHERE id = 7
UNION ALL SELECT 'lrc', x FROM edge, unnest(lr) x WHERE id = 7
UNION ALL SELECT 'qs', x FROM edge, unnest(qs) x WHERE id = 7;
SELECT count(*) AS rows_of_empty
FROM edge, unnest(pf) a, unnest(lr) b, unnest(qs) c WHERE id = 1;
SELECT x, o FROM unnest('{30,10,20}'::posting_qs) WITH ORDINALITY AS u(x, o);

-- nth with an int4 index resolves to nth(T, bigint); out of range is NULL
SELECT nth('{10,20,30}'::posting_pfor, 3::int4) AS n3,
       nth('{10,20,30}'::posting_lrc, -5) AS nneg,
       nth('{10,20,30}'::posting_qs, 9223372036854775807) AS nbig;

-- STRICT: NULL in, NULL out
SELECT length(NULL::posting_pfor) AS len, contains(NULL::posting_lrc, 1) AS c,
       NULL::posting_qs @> 1 AS op, '{1}'::posting_qs @> NULL AS op2,
       nth('{1}'::posting_pfor, NULL) AS nth, docids(NULL::posting_qs) AS d;

-- ---------------------------------------------------------------------------
-- casts
-- ---------------------------------------------------------------------------
-- int4[] -> T (explicit, function, assignment) and T -> int4[]
SELECT ARRAY[5, 3, 5, 1]::posting_pfor AS c1, posting_lrc(ARRAY[5, 3, 5, 1]) AS c2,
       '{5,3,5,1}'::int4[]::posting_qs::int4[] AS c3,
       ARRAY[]::int4[]::posting_pfor AS c4;
CREATE TEMP TABLE arr_target (a int4[]);
INSERT INTO arr_target SELECT pf FROM edge WHERE id = 5;   -- assignment
INSERT INTO arr_target SELECT qs FROM edge WHERE id = 7;
SELECT a FROM arr_target;

-- between the types (decode + re-encode), explicit and assignment
SELECT '{4,2,9}'::posting_pfor::posting_lrc AS pfor_lrc,
       '{4,2,9}'::posting_pfor::posting_qs AS pfor_qs,
       '{4,2,9}'::posting_lrc::posting_pfor AS lrc_pfor,
       '{4,2,9}'::posting_lrc::posting_qs AS lrc_qs,
       '{4,2,9}'::posting_qs::posting_pfor AS qs_pfor,
       '{4,2,9}'::posting_qs::posting_lrc AS qs_lrc,
       codec(posting_qs('{4,2,9}'::posting_lrc)) AS codec;
UPDATE edge SET qs = pf WHERE id = 5;   -- assignment cast pfor -> qs
SELECT qs, codec(qs) FROM edge WHERE id = 5;

-- bytea: T -> bytea is the blob itself; bytea -> T validates it
SELECT count(*) AS bad FROM edge
WHERE pf::bytea::posting_pfor::text <> pf::text
   OR posting_lrc(lr::bytea)::text <> lr::text
   OR qs::bytea::posting_qs::text <> qs::text;
SELECT '{}'::posting_pfor::bytea AS empty_pfor, '{}'::posting_lrc::bytea AS empty_lrc,
       '{}'::posting_qs::bytea AS empty_qs;

-- no implicit casts: operators and functions on int4[] are unaffected
SELECT length('abc') AS text_length, array_length(ARRAY[1, 2], 1) AS arr_len;
SELECT unnest(ARRAY[2, 1]) AS array_unnest;
SELECT ARRAY[1, 2] @> ARRAY[1] AS array_contains;
SELECT contains(ARRAY[1, 2], 1);

-- ---------------------------------------------------------------------------
-- aggregates
-- ---------------------------------------------------------------------------
-- NULL rows are skipped; duplicates and order do not matter
SELECT posting_pfor_agg(x) AS pfor, posting_lrc_agg(x) AS lrc,
       posting_qs_agg(x) AS qs
FROM (VALUES (5), (NULL), (3), (5), (2147483647), (0), (NULL), (3)) v(x);
-- no rows, or only NULL rows: NULL
SELECT posting_pfor_agg(x) IS NULL AS pfor, posting_lrc_agg(x) IS NULL AS lrc,
       posting_qs_agg(x) IS NULL AS qs
FROM (VALUES (1)) v(x) WHERE false;
SELECT posting_pfor_agg(x) IS NULL AS pfor, posting_lrc_agg(x) IS NULL AS lrc,
       posting_qs_agg(x) IS NULL AS qs
FROM (VALUES (NULL::int4), (NULL)) v(x);
-- grouped
SELECT g, posting_qs_agg(x) FROM (VALUES (1, 10), (2, 20), (1, 5), (2, NULL),
                                         (3, NULL), (1, 10)) v(g, x)
GROUP BY g ORDER BY g;
-- as a window function (the final function runs repeatedly on one state)
SELECT x, posting_pfor_agg(x) OVER (ORDER BY o) AS running
FROM (VALUES (1, 3), (2, 1), (3, NULL), (4, 3), (5, 2)) v(o, x) ORDER BY o;
-- FILTER and ORDER BY inside the aggregate
SELECT posting_lrc_agg(x ORDER BY x DESC) FILTER (WHERE x % 2 = 0) AS evens
FROM generate_series(1, 10) x;

-- ---------------------------------------------------------------------------
-- dense runs and block boundaries
-- ---------------------------------------------------------------------------
SELECT lo, hi, length(pf) AS len,
       docids(pf) = ref AND docids(lr) = ref AND docids(qs) = ref AS docids_ok,
       first_docid(qs) = lo AND last_docid(lr) = hi AS ends_ok,
       nth(pf, hi - lo + 1) = hi AND nth(lr, 1) = lo AND nth(qs, (hi - lo) / 2 + 1) = lo + (hi - lo) / 2 AS nth_ok
FROM (SELECT lo, hi, ref, ref::posting_pfor AS pf, ref::posting_lrc AS lr,
             ref::posting_qs AS qs
      FROM (SELECT lo, hi, ARRAY(SELECT generate_series(lo, hi)) AS ref
            FROM (VALUES (0, 0), (0, 126), (0, 127), (0, 128), (0, 255),
                         (0, 256), (0, 511), (1, 512), (0, 99999),
                         (2147383648, 2147483647), (2147483391, 2147483647))
                 v(lo, hi)) s) t
ORDER BY lo, hi;

-- ---------------------------------------------------------------------------
-- randomized lists checked against an int4[] reference
-- ---------------------------------------------------------------------------
SELECT setseed(0.4242);
CREATE TEMP TABLE spec AS
SELECT (row_number() OVER (ORDER BY k.ord, s.n))::int AS id, k.kind, s.n,
       floor(random() * 1000000)::bigint AS base
FROM (VALUES (1, 'dense'), (2, 'small'), (3, 'mixed'), (4, 'huge'),
             (5, 'top')) k(ord, kind),
     (VALUES (1), (2), (3), (127), (128), (129), (255), (256), (257), (1000),
             (4097), (20000)) s(n)
ORDER BY k.ord, s.n;

-- gaps per kind: dense runs; small gaps; small gaps with 2% large jumps
-- (PFor exceptions); uniform over the whole range; a dense run ending at
-- 2147483647
CREATE TEMP TABLE vals AS
SELECT id, i,
       (CASE kind
        WHEN 'dense' THEN base + i
        WHEN 'top' THEN 2147483647 - n + i
        ELSE base + sum(gap) OVER (PARTITION BY id ORDER BY i)
        END)::int4 AS v
FROM (SELECT s.id, s.kind, s.n, s.base, i,
             CASE s.kind
             WHEN 'small' THEN 1 + floor(random() * 8)
             WHEN 'mixed' THEN CASE WHEN random() < 0.02
                                    THEN 1 + floor(random() * 1048576)
                                    ELSE 1 + floor(random() * 16) END
             WHEN 'huge' THEN 1 + floor(random() * ((2147483647 - s.base) / s.n))
             ELSE 1 END::bigint AS gap
      FROM spec s, generate_series(1, s.n) i) g;
CREATE UNIQUE INDEX ON vals (id, v);
CREATE UNIQUE INDEX ON vals (id, i);
ANALYZE vals;

-- raw input: shuffled, about 10% duplicated
CREATE TEMP TABLE lists AS
SELECT s.id, s.kind, s.n,
       (SELECT array_agg(v ORDER BY random())
        FROM (SELECT v FROM vals WHERE vals.id = s.id
              UNION ALL
              SELECT v FROM vals WHERE vals.id = s.id AND random() < 0.1) d) AS raw,
       (SELECT array_agg(v ORDER BY v) FROM vals WHERE vals.id = s.id) AS ref
FROM spec s;
ALTER TABLE lists ADD pf posting_pfor, ADD lr posting_lrc, ADD qs posting_qs;
UPDATE lists SET pf = raw, lr = raw, qs = raw;

SELECT kind, count(*) AS lists, sum(cardinality(ref)) AS docids,
       sum(cardinality(raw)) AS raw_values, min(ref[1]) AS min_docid,
       max(ref[cardinality(ref)]) AS max_docid
FROM lists GROUP BY kind ORDER BY min(id);

-- decode (cast and docids) equals the sorted, deduplicated reference
SELECT count(*) FILTER (WHERE pf::int4[] IS DISTINCT FROM ref) AS pfor_bad,
       count(*) FILTER (WHERE docids(lr) IS DISTINCT FROM ref) AS lrc_bad,
       count(*) FILTER (WHERE qs::int4[] IS DISTINCT FROM ref) AS qs_bad
FROM lists;

-- encoding is canonical: same set, same bytes, whatever the input order
SELECT count(*) FILTER (WHERE pf::bytea <> ref::posting_pfor::bytea) AS pfor_bad,
       count(*) FILTER (WHERE lr::bytea <> ref::posting_lrc::bytea) AS lrc_bad,
       count(*) FILTER (WHERE qs::bytea <> ref::posting_qs::bytea) AS qs_bad
FROM lists;

-- header accessors
SELECT count(*) FILTER (WHERE length(pf) <> n OR first_docid(pf) <> ref[1]
                          OR last_docid(pf) <> ref[n]) AS pfor_bad,
       count(*) FILTER (WHERE length(lr) <> n OR first_docid(lr) <> ref[1]
                          OR last_docid(lr) <> ref[n]) AS lrc_bad,
       count(*) FILTER (WHERE length(qs) <> n OR first_docid(qs) <> ref[1]
                          OR last_docid(qs) <> ref[n]) AS qs_bad,
       count(*) FILTER (WHERE size_bytes(pf) <> octet_length(pf::bytea)
                          OR size_bytes(lr) <> octet_length(lr::bytea)
                          OR size_bytes(qs) <> octet_length(qs::bytea)) AS size_bad,
       count(*) FILTER (WHERE bits_per_docid(pf) <> 8.0::float8 * size_bytes(pf) / n
                          OR bits_per_docid(lr) <> 8.0::float8 * size_bytes(lr) / n
                          OR bits_per_docid(qs) <> 8.0::float8 * size_bytes(qs) / n) AS bits_bad,
       count(*) FILTER (WHERE codec(pf) <> 'pfor' OR codec(lr) <> 'lrc'
                          OR codec(qs) <> 'qs') AS codec_bad
FROM lists;

-- values are stored uncompressed (STORAGE external): the column size is
-- the blob plus at most the 4-byte varlena header
SELECT count(*) FILTER (WHERE pg_column_size(pf) < size_bytes(pf)
                          OR pg_column_size(lr) < size_bytes(lr)
                          OR pg_column_size(qs) < size_bytes(qs)) AS compressed
FROM lists;

-- unnest, in order
SELECT count(*) FILTER (WHERE ARRAY(SELECT unnest(pf)) IS DISTINCT FROM ref) AS pfor_bad,
       count(*) FILTER (WHERE ARRAY(SELECT unnest(lr)) IS DISTINCT FROM ref) AS lrc_bad,
       count(*) FILTER (WHERE ARRAY(SELECT unnest(qs)) IS DISTINCT FROM ref) AS qs_bad
FROM lists;
SELECT count(*) AS rows, count(*) FILTER (WHERE u.x IS DISTINCT FROM v.v) AS bad
FROM lists l CROSS JOIN LATERAL unnest(l.lr) WITH ORDINALITY u(x, o)
FULL JOIN vals v ON v.id = l.id AND v.i = u.o;

-- The random-access checks below probe each list many times.  Stored
-- values this large are toasted, and every call would fetch the whole
-- value again; a materialized CTE holds them detoasted (the bytea cast
-- round trip yields an in-memory copy).
CREATE TEMP VIEW mem AS
SELECT id, n, pf::bytea::posting_pfor AS pf, lr::bytea::posting_lrc AS lr,
       qs::bytea::posting_qs AS qs
FROM lists;

-- nth at every position, plus out of range
WITH m AS MATERIALIZED (SELECT * FROM mem),
     r AS MATERIALIZED (SELECT id, i, nth(pf, i) AS a, nth(lr, i) AS b,
                               nth(qs, i) AS c
                        FROM m, generate_series(0, m.n + 1) i)
SELECT count(*) AS probes,
       count(*) FILTER (WHERE a IS DISTINCT FROM v) AS pfor_bad,
       count(*) FILTER (WHERE b IS DISTINCT FROM v) AS lrc_bad,
       count(*) FILTER (WHERE c IS DISTINCT FROM v) AS qs_bad
FROM r LEFT JOIN vals USING (id, i);

-- nth and contains on the stored (toasted) values, a few probes per list
SELECT count(*) FILTER (WHERE nth(pf, n / 2 + 1) <> ref[n / 2 + 1]
                          OR nth(lr, n / 3 + 1) <> ref[n / 3 + 1]
                          OR nth(qs, n - 1) IS DISTINCT FROM ref[n - 1]) AS nth_bad,
       count(*) FILTER (WHERE NOT pf @> ref[n / 2 + 1] OR NOT lr @> ref[n / 3 + 1]
                          OR NOT qs @> ref[(n + 1) / 2]
                          OR pf @> ref[1] - 1 OR lr @> ref[1] - 1
                          OR qs @> ref[1] - 1) AS contains_bad
FROM lists;

-- contains / @> / <@ on members, their neighbours, random values, the ends
CREATE TEMP TABLE probes AS
SELECT id, x, EXISTS (SELECT 1 FROM vals v WHERE v.id = p.id AND v.v = p.x) AS expect
FROM (
    SELECT id, v AS x FROM vals WHERE i % 5 = 0
    UNION SELECT id, v - 1 FROM vals WHERE i % 3 = 0
    UNION SELECT id, v + 1 FROM vals WHERE i % 3 = 1 AND v < 2147483647
    UNION SELECT id, (random() * 2147483647)::int4 FROM vals WHERE i % 4 = 0
    UNION SELECT id, (SELECT max(v) FROM vals w WHERE w.id = s.id) - (random() * 1000)::int4
          FROM spec s, generate_series(1, 50)
    UNION SELECT id, e FROM spec, unnest(ARRAY[-2147483648, -1, 0, 2147483647]) e
) p;
WITH m AS MATERIALIZED (SELECT * FROM mem)
SELECT count(*) AS probes, count(*) FILTER (WHERE expect) AS members,
       count(*) FILTER (WHERE (pf @> x) IS DISTINCT FROM expect) AS pfor_bad,
       count(*) FILTER (WHERE contains(lr, x) IS DISTINCT FROM expect) AS lrc_bad,
       count(*) FILTER (WHERE (x <@ qs) IS DISTINCT FROM expect) AS qs_bad,
       count(*) FILTER (WHERE (x <@ pf) IS DISTINCT FROM expect
                          OR (lr @> x) IS DISTINCT FROM expect
                          OR contains(qs, x) IS DISTINCT FROM expect
                          OR contained_in(x, lr) IS DISTINCT FROM expect) AS other_bad
FROM probes p JOIN m USING (id);

-- casts between the types, all six directions
SELECT count(*) FILTER (WHERE posting_lrc(pf)::int4[] IS DISTINCT FROM ref
                          OR codec(posting_lrc(pf)) <> 'lrc') AS pfor_lrc,
       count(*) FILTER (WHERE posting_qs(pf)::int4[] IS DISTINCT FROM ref
                          OR posting_qs(pf)::bytea <> qs::bytea) AS pfor_qs,
       count(*) FILTER (WHERE lr::posting_pfor::bytea <> pf::bytea) AS lrc_pfor,
       count(*) FILTER (WHERE lr::posting_qs::bytea <> qs::bytea) AS lrc_qs,
       count(*) FILTER (WHERE qs::posting_pfor::bytea <> pf::bytea) AS qs_pfor,
       count(*) FILTER (WHERE qs::posting_lrc::bytea <> lr::bytea) AS qs_lrc
FROM lists;

-- binary and text round trips
SELECT count(*) FILTER (WHERE pf::bytea::posting_pfor::bytea <> pf::bytea
                          OR lr::bytea::posting_lrc::bytea <> lr::bytea
                          OR qs::bytea::posting_qs::bytea <> qs::bytea) AS bytea_bad,
       count(*) FILTER (WHERE pf::text::posting_pfor::bytea <> pf::bytea
                          OR lr::text::posting_lrc::bytea <> lr::bytea
                          OR qs::text::posting_qs::bytea <> qs::bytea) AS text_bad,
       count(*) FILTER (WHERE pf::text <> ref::text OR lr::text <> ref::text
                          OR qs::text <> ref::text) AS text_form_bad
FROM lists;

-- aggregates over the shuffled input with NULLs mixed in
SELECT count(*) FILTER (WHERE a.pf::bytea <> l.pf::bytea) AS pfor_bad,
       count(*) FILTER (WHERE a.lr::bytea <> l.lr::bytea) AS lrc_bad,
       count(*) FILTER (WHERE a.qs::bytea <> l.qs::bytea) AS qs_bad
FROM lists l,
     LATERAL (SELECT posting_pfor_agg(x) AS pf, posting_lrc_agg(x) AS lr,
                     posting_qs_agg(x) AS qs
              FROM (SELECT x FROM unnest(l.raw) x
                    UNION ALL SELECT NULL FROM generate_series(1, 3)) u) a;

-- ---------------------------------------------------------------------------
-- parallel aggregation (combine, serialize, deserialize)
-- ---------------------------------------------------------------------------
CREATE TABLE posting_par (g int, x int4);
INSERT INTO posting_par
SELECT i % 3, CASE WHEN i % 101 = 0 THEN NULL ELSE (i * 7919) % 1000003 END
FROM generate_series(1, 200000) i;
ANALYZE posting_par;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT pg_temp.plan_has(q, 'Partial .*Aggregate') AS partial_aggregate,
       pg_temp.plan_has(q, 'Finalize .*Aggregate') AS finalize_aggregate,
       pg_temp.plan_has(q, 'Gather') AS gather
FROM (VALUES ('SELECT g, posting_pfor_agg(x), posting_lrc_agg(x), posting_qs_agg(x)
               FROM posting_par GROUP BY g')) v(q);
CREATE TEMP TABLE par_result AS
SELECT g, posting_pfor_agg(x) AS pf, posting_lrc_agg(x) AS lr,
       posting_qs_agg(x) AS qs
FROM posting_par GROUP BY g;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT p.g, length(p.pf) AS len,
       p.pf::int4[] = r.ref AND p.lr::int4[] = r.ref AND p.qs::int4[] = r.ref AS ok
FROM par_result p
JOIN (SELECT g, array_agg(DISTINCT x ORDER BY x) FILTER (WHERE x IS NOT NULL) AS ref
      FROM posting_par GROUP BY g) r USING (g)
ORDER BY g;
DROP TABLE posting_par;
