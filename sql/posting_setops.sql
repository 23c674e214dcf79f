--
-- posting_setops: the set type.  Union, difference, symmetric difference
-- and their counts (| - # and posting_*_count) for every pair of types;
-- containment of lists (@> <@); equality and the total order (= <> < <= >
-- >=, btree and hash operator classes: DISTINCT, GROUP BY, UNION, ORDER
-- BY, merge and hash joins, indexes, across the types); hashing; rank;
-- posting_add / posting_remove / + / -, appends; the union aggregates
-- (serial and parallel); the conjunctive posting_intersect(T, nterms);
-- the postings-maintenance SQL of the README; errors.  Results are checked
-- against int4[] references computed with contrib/intarray (| - & @>) and
-- PostgreSQL's own array order, on random lists; every check prints counts
-- of mismatches.
--
SET jit = off;
\i sql/regress_setup.psql
CREATE EXTENSION intarray;

-- ---------------------------------------------------------------------------
-- catalog
-- ---------------------------------------------------------------------------
-- every operator on lists, one row per name: how many pairs, the result
-- types, commutators and negators (of the pfor, qs pair)
SELECT o.oprname, count(*) AS pairs,
       string_agg(DISTINCT o.oprresult::regtype::text, ',') AS results,
       max(o.oprcom::regoperator::text) FILTER (
           WHERE o.oprleft = 'posting_pfor'::regtype
             AND o.oprright = 'posting_qs'::regtype) AS commutator_pfor_qs,
       max(o.oprnegate::regoperator::text) FILTER (
           WHERE o.oprleft = 'posting_pfor'::regtype
             AND o.oprright = 'posting_qs'::regtype) AS negator_pfor_qs,
       bool_and(o.oprcanhash) AS hashes, bool_and(o.oprcanmerge) AS merges
FROM pg_operator o
WHERE o.oprleft::regtype::text LIKE 'posting\_%'
  AND o.oprright::regtype::text LIKE 'posting\_%'
GROUP BY o.oprname ORDER BY o.oprname COLLATE "C";
-- the list op int4 operators
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
       o.oprcode
FROM pg_operator o
WHERE o.oprname IN ('+', '-') AND o.oprright = 'int4'::regtype
  AND o.oprleft::regtype::text LIKE 'posting\_%'
ORDER BY 1, 2::text COLLATE "C";
-- the operator families and classes
SELECT f.opfname, a.amname,
       (SELECT count(*) FROM pg_amop o WHERE o.amopfamily = f.oid) AS operators,
       (SELECT count(*) FROM pg_amproc p WHERE p.amprocfamily = f.oid) AS functions,
       (SELECT string_agg(c.opcname || ':' || c.opcintype::regtype::text
                          || CASE WHEN c.opcdefault THEN ' default' ELSE '' END,
                          ', ' ORDER BY c.opcname)
        FROM pg_opclass c WHERE c.opcfamily = f.oid) AS classes
FROM pg_opfamily f JOIN pg_am a ON a.oid = f.opfmethod
WHERE f.opfname = 'posting_ops' ORDER BY 2;
-- the new functions: immutable, strict (but the aggregate support),
-- parallel safe
SELECT p.proname, count(*) AS overloads,
       bool_and(p.provolatile = 'i') AS immutable,
       bool_and(p.proisstrict OR p.prokind = 'a') AS strict,
       bool_and(p.proparallel = 's') AS parallel_safe,
       string_agg(DISTINCT p.prosrc, ',') AS c_function
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                 AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'gpuidx'
WHERE (p.proname IN ('posting_or', 'posting_andnot', 'posting_xor',
                    'posting_or_count', 'posting_andnot_count',
                    'posting_xor_count', 'posting_eq', 'posting_ne',
                    'posting_lt', 'posting_le', 'posting_gt', 'posting_ge',
                    'posting_cmp', 'posting_hash', 'posting_hash_extended',
                    'rank', 'posting_add', 'posting_add_doc', 'posting_remove',
                    'posting_remove_doc', 'posting_union_agg',
                    'posting_union_count')
   OR (p.proname IN ('contains', 'contained_in')
       AND p.proargtypes[1] <> 'int4'::regtype
       AND p.proargtypes[0] <> 'int4'::regtype)
   OR (p.proname = 'posting_union' AND p.proargtypes[0] <> 'int4[]'::regtype))
GROUP BY p.proname ORDER BY p.proname;

-- ---------------------------------------------------------------------------
-- small lists by hand, one pair of types
-- ---------------------------------------------------------------------------
SELECT '{1,5,9}'::posting_pfor | '{2,5,10}'::posting_qs AS "or",
       '{1,5,9}'::posting_pfor - '{2,5,10}'::posting_qs AS andnot,
       '{1,5,9}'::posting_pfor # '{2,5,10}'::posting_qs AS "xor",
       pg_typeof('{1}'::posting_lrc | '{2}'::posting_qs) AS or_type,
       posting_or_count('{1,5,9}'::posting_pfor, '{2,5,10}'::posting_qs) AS n_or,
       posting_andnot_count('{1,5,9}'::posting_pfor, '{2,5,10}'::posting_qs) AS n_andnot,
       posting_xor_count('{1,5,9}'::posting_pfor, '{2,5,10}'::posting_qs) AS n_xor;
SELECT '{1,5,9}'::posting_lrc @> '{1,9}'::posting_pfor AS contains,
       '{1,9}'::posting_lrc <@ '{1,5,9}'::posting_qs AS contained,
       '{1,5,9}'::posting_lrc @> '{1,8}'::posting_pfor AS contains_not,
       '{}'::posting_qs <@ '{}'::posting_pfor AS empty_in_empty,
       rank('{1,5,9}'::posting_qs, 5) AS rank5, rank('{1,5,9}'::posting_qs, -1) AS rank_neg,
       rank('{1,5,9}'::posting_qs, 2147483647) AS rank_max,
       '{1,5,9}'::posting_pfor + 12 AS plus, '{1,5,9}'::posting_pfor - 5 AS minus,
       '{1,5,9}'::posting_pfor + 5 AS plus_present, '{1,5,9}'::posting_pfor - 6 AS minus_absent,
       posting_add('{1,5,9}'::posting_lrc, '{100,3,3,0}') AS added,
       posting_remove('{1,5,9}'::posting_lrc, '{9,1,7}') AS removed;
-- the documented order: {} < {1} < {1,2} < {1,3} < {2}, whatever the types
SELECT v, rank() OVER (ORDER BY v) AS position
FROM (VALUES ('{2}'::posting_pfor), ('{1,3}'::posting_qs::posting_pfor),
             ('{}'), ('{1,2}'::posting_lrc::posting_pfor), ('{1}')) t(v)
ORDER BY v;

-- ---------------------------------------------------------------------------
-- random pairs, every pair of types, against intarray
-- ---------------------------------------------------------------------------
-- 150 pairs: a is uniform, clustered or dense, 0 to 3000 docIDs anywhere in
-- [0, 2^31-1); b is derived from a (a subset, a superset, equal, a prefix,
-- a few docIDs changed) or independent, so that every relation occurs.
SELECT setseed(0.18);
CREATE TEMP TABLE pa AS
SELECT i, kind, base, span, n,
       CASE kind
       WHEN 0 THEN ARRAY(SELECT DISTINCT (base + floor(random() * span))::int4
                         FROM generate_series(1, n) ORDER BY 1)
       WHEN 1 THEN ARRAY(SELECT DISTINCT (base + (j / 50) * 997 + j % 50 * 2)::int4
                         FROM generate_series(1, n) j ORDER BY 1)
       ELSE ARRAY(SELECT (base + j)::int4 FROM generate_series(0, n - 1) j)
       END AS a
FROM (SELECT i, floor(random() * 3)::int AS kind,
             floor(random() * 2000000000)::bigint AS base,
             (CASE WHEN random() < 0.5 THEN 10000 ELSE 100000000 END)::bigint AS span,
             CASE WHEN i % 25 = 0 THEN 0 WHEN i % 25 = 1 THEN 1
                  ELSE floor(random() * 3000)::int END AS n
      FROM generate_series(1, 150) i) s;
CREATE TEMP TABLE pairs AS
SELECT i, a, rel,
       CASE rel
       WHEN 0 THEN ARRAY(SELECT x FROM unnest(a) x WHERE random() < 0.7 ORDER BY 1)
       WHEN 1 THEN sort(uniq(sort(a || ARRAY(SELECT (base + floor(random() * span))::int4
                                             FROM generate_series(1, 1 + n / 3)))))
       WHEN 2 THEN a
       WHEN 3 THEN a[1:floor(random() * (n + 1))::int]
       WHEN 4 THEN sort(uniq(sort(ARRAY(SELECT CASE WHEN random() < 0.01
                                                    THEN x # 64 ELSE x END
                                        FROM unnest(a) x))))
       ELSE ARRAY(SELECT DISTINCT (base + floor(random() * span))::int4
                  FROM generate_series(1, floor(random() * 3000)::int) ORDER BY 1)
       END AS b
FROM (SELECT pa.*, floor(random() * 6)::int AS rel FROM pa) s;
UPDATE pairs SET b = '{}' WHERE b IS NULL;
SELECT count(*) AS pairs, count(*) FILTER (WHERE a = b) AS equal,
       count(*) FILTER (WHERE a @> b AND a <> b) AS proper_superset,
       count(*) FILTER (WHERE a <@ b AND a <> b) AS proper_subset,
       count(*) FILTER (WHERE a && b AND NOT a @> b AND NOT a <@ b) AS overlapping,
       count(*) FILTER (WHERE cardinality(a) = 0 OR cardinality(b) = 0) AS with_empty,
       max(cardinality(a)) AS max_a
FROM pairs;

-- every operation for the nine pairs of types, results as int4[]
CREATE FUNCTION pg_temp.ops(a int4[], b int4[], OUT ta text, OUT tb text,
                            OUT res_type text, OUT u int4[], OUT d int4[],
                            OUT x int4[], OUT nu bigint, OUT nd bigint,
                            OUT nx bigint, OUT sup bool, OUT sub bool,
                            OUT eq bool, OUT ne bool, OUT lt bool, OUT le bool,
                            OUT gt bool, OUT ge bool, OUT cmp int)
RETURNS SETOF record LANGUAGE plpgsql AS $$
DECLARE
    t1 text;
    t2 text;
BEGIN
    FOREACH t1 IN ARRAY ARRAY['posting_pfor', 'posting_lrc', 'posting_qs'] LOOP
        FOREACH t2 IN ARRAY ARRAY['posting_pfor', 'posting_lrc', 'posting_qs'] LOOP
            EXECUTE format(
                'SELECT $3, $4, pg_typeof(a | b)::text, (a | b)::int4[],
                        (a - b)::int4[], (a # b)::int4[], posting_or_count(a, b),
                        posting_andnot_count(a, b), posting_xor_count(a, b),
                        a @> b, a <@ b, a = b, a <> b, a < b, a <= b, a > b,
                        a >= b, posting_cmp(a, b)
                 FROM (SELECT $1::%s AS a, $2::%s AS b) s', t1, t2)
            INTO ta, tb, res_type, u, d, x, nu, nd, nx, sup, sub, eq, ne, lt,
                 le, gt, ge, cmp
            USING a, b, t1, t2;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;
CREATE TEMP TABLE res AS
SELECT p.i, p.a, p.b, o.* FROM pairs p, pg_temp.ops(p.a, p.b) o;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE res_type <> ta) AS wrong_result_type,
       count(*) FILTER (WHERE u <> (a | b)) AS bad_or,
       count(*) FILTER (WHERE d <> (a - b)) AS bad_andnot,
       count(*) FILTER (WHERE x <> ((a - b) | (b - a))) AS bad_xor,
       count(*) FILTER (WHERE nu <> icount(a | b) OR nd <> icount(a - b)
                           OR nx <> icount((a - b) | (b - a))) AS bad_counts,
       count(*) FILTER (WHERE sup <> (a @> b) OR sub <> (a <@ b)) AS bad_containment,
       count(*) FILTER (WHERE eq <> (a = b) OR ne <> (a <> b)) AS bad_equality,
       count(*) FILTER (WHERE lt <> (a < b) OR le <> (a <= b) OR gt <> (a > b)
                           OR ge <> (a >= b)
                           OR cmp <> sign(btarraycmp(a, b))) AS bad_order
FROM res;
-- the results do not depend on the types: the nine rows of a pair agree
SELECT count(*) AS pairs_with_type_dependent_results
FROM (SELECT i FROM res GROUP BY i
      HAVING count(DISTINCT (u, d, x, nu, nd, nx, sup, sub, eq, lt, cmp)) <> 1) s;
-- swapped operands: | # = and the counts commute, @> turns into <@
SELECT count(*) AS bad_swapped
FROM pairs p, pg_temp.ops(p.b, p.a) o, pg_temp.ops(p.a, p.b) q
WHERE o.ta = q.tb AND o.tb = q.ta AND p.i % 10 = 0
  AND (o.u <> q.u OR o.x <> q.x OR o.sup <> q.sub OR o.eq <> q.eq
       OR o.cmp <> -q.cmp OR o.nu <> q.nu OR o.nx <> q.nx);

-- hashes: equal lists hash alike in every type, with any seed
SELECT count(*) AS lists,
       count(*) FILTER (WHERE posting_hash(a::posting_pfor) <> posting_hash(a::posting_lrc)
                           OR posting_hash(a::posting_pfor) <> posting_hash(a::posting_qs))
           AS type_dependent_hash,
       count(*) FILTER (WHERE posting_hash_extended(a::posting_pfor, 42)
                              <> posting_hash_extended(a::posting_qs, 42))
           AS type_dependent_hash_seeded,
       count(*) FILTER (WHERE posting_hash(a::posting_lrc)
                              <> posting_hash_extended(a::posting_lrc, 0)::bit(32)::int4)
           AS hash_not_low_bits_of_extended,
       count(DISTINCT posting_hash(a::posting_pfor)) AS distinct_hashes,
       count(DISTINCT a) AS distinct_lists
FROM pairs;

-- rank against counting, at edges and random points
SELECT count(*) AS probes,
       count(*) FILTER (WHERE rank(a::posting_pfor, x) <> ref OR rank(a::posting_lrc, x) <> ref
                           OR rank(a::posting_qs, x) <> ref) AS bad_rank
FROM (SELECT a, x, (SELECT count(*) FROM unnest(a) y WHERE y <= x) AS ref
      FROM pairs,
           LATERAL (SELECT unnest(ARRAY[0, -5, 2147483647, a[1], a[1] - 1,
                                        a[cardinality(a)], a[cardinality(a)] - 1,
                                        a[1 + cardinality(a) / 2],
                                        a[1 + cardinality(a) / 3] + 1]) AS x
                    UNION ALL
                    SELECT floor(random() * 2147483647)::int4) xs
      WHERE x IS NOT NULL) s;

-- ---------------------------------------------------------------------------
-- long lists: blocks of every list overlap, and lists far apart
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE longp AS
SELECT 1 AS id, ARRAY(SELECT generate_series(0, 400000, 3)) AS a,
       ARRAY(SELECT generate_series(1, 400000, 5)) AS b
UNION ALL
SELECT 2, ARRAY(SELECT generate_series(0, 300000)),
       ARRAY(SELECT generate_series(300001, 600000))
UNION ALL
SELECT 3, ARRAY(SELECT generate_series(1000000, 1200000, 2)),
       ARRAY(SELECT generate_series(0, 100000, 7));
SELECT l.id, count(*) AS pairs_of_types,
       count(*) FILTER (WHERE o.u <> (l.a | l.b) OR o.d <> (l.a - l.b)
                           OR o.x <> ((l.a - l.b) | (l.b - l.a))) AS bad_sets,
       count(*) FILTER (WHERE o.nu <> icount(l.a | l.b)
                           OR o.nd <> icount(l.a - l.b)
                           OR o.nx <> icount((l.a - l.b) | (l.b - l.a))) AS bad_counts,
       count(*) FILTER (WHERE o.sup <> (l.a @> l.b) OR o.eq OR NOT o.ne
                           OR o.cmp <> sign(btarraycmp(l.a, l.b))) AS bad_compare
FROM longp l, pg_temp.ops(l.a, l.b) o GROUP BY l.id ORDER BY l.id;

-- ---------------------------------------------------------------------------
-- equality and order at work: DISTINCT, GROUP BY, UNION, ORDER BY, joins,
-- indexes; the same lists stored in the three types
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE lists AS
SELECT i, a, a::posting_pfor AS pf, a::posting_lrc AS lr, a::posting_qs AS qs
FROM (SELECT i, a FROM pa UNION ALL SELECT 1000 + i, b FROM pairs) s;
ANALYZE lists;
SELECT (SELECT count(DISTINCT a) FROM lists) AS distinct_ref,
       (SELECT count(DISTINCT pf) FROM lists) AS distinct_pfor,
       (SELECT count(*) FROM (SELECT lr FROM lists GROUP BY lr) g) AS groups_lrc,
       (SELECT count(*) FROM (SELECT qs FROM lists UNION SELECT qs FROM lists) u) AS union_qs,
       (SELECT count(*) FROM (SELECT pf FROM lists UNION SELECT qs::posting_pfor FROM lists) u)
           AS union_across_types;
-- ORDER BY on the lists sorts as ORDER BY on the arrays
SELECT count(*) AS bad_sort
FROM (SELECT a, row_number() OVER (ORDER BY pf, i) AS r1,
             row_number() OVER (ORDER BY a, i) AS r2
      FROM lists) s
WHERE r1 <> r2;
-- hash and merge joins, also across the types, against the array join
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT pg_temp.plan_has('SELECT 1 FROM lists x JOIN lists y ON x.pf = y.qs',
                        'Hash Join') AS hash_join_across_types;
SELECT count(*) AS hash_join_rows FROM lists x JOIN lists y ON x.pf = y.qs;
SET enable_hashjoin = off;
SET enable_mergejoin = on;
SELECT pg_temp.plan_has('SELECT 1 FROM lists x JOIN lists y ON x.lr = y.pf',
                        'Merge Join') AS merge_join_across_types;
SELECT count(*) AS merge_join_rows FROM lists x JOIN lists y ON x.lr = y.pf;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET enable_hashjoin;
SELECT count(*) AS array_join_rows FROM lists x JOIN lists y ON x.a = y.a;
-- btree and hash indexes: index scans find what a sequential scan finds.
-- A btree key must fit in a third of a page (as for arrays): the btree
-- index takes the lists of up to 300 docIDs, the hash index takes all.
SELECT * FROM pg_temp.err($$CREATE INDEX ON lists (pf)$$);
CREATE INDEX lists_pf ON lists (pf) WHERE cardinality(a) <= 300;
CREATE INDEX lists_qs ON lists USING hash (qs);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.plan_has('SELECT i FROM lists WHERE pf = ''{1,2}''::posting_lrc AND cardinality(a) <= 300',
                        'Index') AS btree_index_used_across_types,
       pg_temp.plan_has('SELECT i FROM lists WHERE qs = ''{1,2}''', 'Index') AS hash_index_used;
SELECT count(*) FILTER (WHERE found_btree <> ref_btree) AS bad_btree_lookups,
       count(*) FILTER (WHERE found_hash <> ref) AS bad_hash_lookups,
       count(*) FILTER (WHERE found_range <> ref_range) AS bad_range_scans,
       count(*) AS lookups
FROM (SELECT l.i,
             (SELECT count(*) FROM lists m
              WHERE m.pf = l.qs AND cardinality(m.a) <= 300) AS found_btree,
             (SELECT count(*) FROM lists m WHERE m.qs = l.lr::posting_qs) AS found_hash,
             (SELECT count(*) FROM lists m
              WHERE m.pf > l.lr AND m.pf <= (l.qs | '{2147483647}'::posting_qs)
                AND cardinality(m.a) <= 300) AS found_range,
             (SELECT count(*) FROM lists m
              WHERE m.a = l.a AND cardinality(m.a) <= 300) AS ref_btree,
             (SELECT count(*) FROM lists m WHERE m.a = l.a) AS ref,
             (SELECT count(*) FROM lists m
              WHERE m.a > l.a AND m.a <= (l.a | 2147483647)
                AND cardinality(m.a) <= 300) AS ref_range
      FROM lists l WHERE l.i % 7 = 0) s;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- ---------------------------------------------------------------------------
-- updates: posting_add, posting_remove, + and -, against intarray
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE upd AS
SELECT i, a, b,
       ARRAY(SELECT floor(random() * 2147483647)::int4 FROM generate_series(1, i % 9)) AS r
FROM pairs;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE posting_add(a::posting_pfor, b)::int4[] <> (a | b)
                           OR posting_add(a::posting_lrc, b || r)::int4[] <> (a | b | r)
                           OR posting_add(a::posting_qs, b)::int4[] <> (a | b)) AS bad_add,
       count(*) FILTER (WHERE posting_remove(a::posting_pfor, b)::int4[] <> (a - b)
                           OR posting_remove(a::posting_lrc, b || r)::int4[] <> (a - b - r)
                           OR posting_remove(a::posting_qs, b)::int4[] <> (a - b)) AS bad_remove,
       count(*) FILTER (WHERE cardinality(b) > 0
                          AND ((a::posting_qs + b[1])::int4[] <> (a | b[1])
                               OR (a::posting_pfor - b[1])::int4[] <> (a - b[1]))) AS bad_one_doc
FROM upd;
-- appends (docIDs above the last one re-encode only the tail): the value is
-- byte for byte a fresh encoding of the whole list, in every type
SELECT count(*) AS appends,
       count(*) FILTER (WHERE posting_add(a::posting_pfor, t)::bytea <> (a || t)::posting_pfor::bytea
                           OR posting_add(a::posting_lrc, t)::bytea <> (a || t)::posting_lrc::bytea
                           OR posting_add(a::posting_qs, t)::bytea <> (a || t)::posting_qs::bytea)
           AS not_like_fresh
FROM (SELECT a, ARRAY(SELECT (coalesce(a[cardinality(a)], 0) + j * step)::int4
                      FROM generate_series(1, m) j) AS t
      FROM (SELECT a, 1 + i % 300 AS m,
                   CASE WHEN i % 3 = 0 THEN 1 WHEN i % 3 = 1 THEN 97 ELSE 100000 END AS step
            FROM pa WHERE coalesce(a[cardinality(a)], 0) < 2000000000) s) s;
-- a long list: one docID appended, and 1000
SELECT length(l + 2000001) AS n1, last_docid(l + 2000001) AS last1,
       (posting_add(l, ARRAY(SELECT generate_series(2000001, 2001000)))::int4[]
        = (ARRAY(SELECT generate_series(0, 2000000, 2)) || ARRAY(SELECT generate_series(2000001, 2001000))))
           AS long_append_ok
FROM (SELECT ARRAY(SELECT generate_series(0, 2000000, 2))::posting_qs AS l) s;
-- nothing to change returns the list as it is
SELECT posting_add('{1,5}'::posting_pfor, '{5,1}')::bytea = '{1,5}'::posting_pfor::bytea AS add_present,
       posting_remove('{1,5}'::posting_pfor, '{2,9}')::bytea = '{1,5}'::posting_pfor::bytea AS remove_absent,
       posting_add('{}'::posting_qs, '{}') AS add_nothing,
       posting_remove('{}'::posting_qs, '{1}') AS remove_from_empty,
       '{7}'::posting_lrc - 7 AS remove_last;

-- ---------------------------------------------------------------------------
-- the union aggregates, serial and parallel, against the union of arrays
-- ---------------------------------------------------------------------------
-- 30 groups of 1 to 40 lists (some NULL, some empty; group 0 has only
-- NULLs), rows spread over the table; a regular table, so that parallel
-- workers can read it
SELECT setseed(0.31);
CREATE TABLE ua AS
SELECT g, j,
       CASE WHEN g = 0 OR random() < 0.05 THEN NULL
            WHEN random() < 0.05 THEN '{}'::int4[]
            ELSE ARRAY(SELECT DISTINCT (g * 1000000 + floor(random() * (1000 + g * 50000)))::int4
                       FROM generate_series(1, floor(random() * 600)::int) ORDER BY 1)
       END AS a
FROM generate_series(0, 29) g,
     LATERAL generate_series(1, 1 + (g * 7) % 40) j
ORDER BY j, g;
ALTER TABLE ua ADD pf posting_pfor, ADD lr posting_lrc, ADD qs posting_qs;
UPDATE ua SET pf = a, lr = a, qs = a;
VACUUM ANALYZE ua;
CREATE TEMP TABLE ua_ref AS
SELECT g, CASE WHEN count(a) = 0 THEN NULL
               ELSE ARRAY(SELECT DISTINCT x FROM ua u2, unnest(u2.a) x
                          WHERE u2.g = ua.g ORDER BY 1) END AS ref
FROM ua GROUP BY g;
CREATE TEMP TABLE ua_res (plan text, g int, pf int4[], lr int4[], qs int4[],
                          arr int4[], n bigint, ty text);
INSERT INTO ua_res
SELECT 'serial', g, posting_union_agg(pf)::int4[], posting_union_agg(lr)::int4[],
       posting_union_agg(qs)::int4[], posting_union(lr), posting_union_count(pf),
       pg_typeof(posting_union_agg(qs))::text
FROM ua GROUP BY g;
ALTER TABLE ua SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT pg_temp.plan_has('SELECT g, posting_union_agg(pf) FROM ua GROUP BY g',
                        'Partial') AS parallel_plan;
INSERT INTO ua_res
SELECT 'parallel', g, posting_union_agg(pf)::int4[], posting_union_agg(lr)::int4[],
       posting_union_agg(qs)::int4[], posting_union(lr), posting_union_count(pf),
       pg_typeof(posting_union_agg(qs))::text
FROM ua GROUP BY g;
INSERT INTO ua_res
SELECT 'parallel all', -1, posting_union_agg(pf)::int4[], posting_union_agg(lr)::int4[],
       posting_union_agg(qs)::int4[], posting_union(qs), posting_union_count(lr), NULL
FROM ua;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
INSERT INTO ua_ref
SELECT -1, ARRAY(SELECT DISTINCT x FROM ua, unnest(a) x ORDER BY 1);
SELECT r.plan, count(*) AS groups,
       count(*) FILTER (WHERE f.ref IS NULL) AS null_groups,
       count(*) FILTER (WHERE r.pf IS DISTINCT FROM f.ref OR r.lr IS DISTINCT FROM f.ref
                           OR r.qs IS DISTINCT FROM f.ref OR r.arr IS DISTINCT FROM f.ref
                           OR r.n IS DISTINCT FROM cardinality(f.ref)::bigint) AS bad,
       count(*) FILTER (WHERE r.ty IS NOT NULL AND r.ty <> 'posting_qs') AS bad_type
FROM ua_res r JOIN ua_ref f USING (g) GROUP BY r.plan ORDER BY r.plan;
-- no rows: NULL; only empty lists: empty; one list: itself; many lists
-- (above the heap's limit) through the sort
SELECT posting_union_agg(pf) AS no_rows, posting_union(pf) AS no_rows_arr,
       posting_union_count(pf) AS no_rows_n
FROM ua WHERE false;
SELECT posting_union_agg(x) AS empties, posting_union_count(x) AS n
FROM (VALUES ('{}'::posting_lrc), ('{}')) v(x);
SELECT posting_union_agg(x) AS one FROM (VALUES ('{3,4}'::posting_pfor)) v(x);
SELECT count(*) AS inputs,
       posting_union_count(ARRAY[i, 10000 - i, 20000 + i % 10]::posting_qs) AS n,
       posting_union(ARRAY[i, 10000 - i]::posting_pfor)
           = ARRAY(SELECT generate_series(1, 9999)) AS union_ok
FROM generate_series(1, 5000) i;
DROP TABLE ua;

-- ---------------------------------------------------------------------------
-- the conjunctive query that cannot lie: posting_intersect(T, nterms)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE postings_q (term text PRIMARY KEY, pf posting_pfor,
                              lr posting_lrc, qs posting_qs);
INSERT INTO postings_q
SELECT t, a, a, a
FROM (VALUES ('index', ARRAY(SELECT generate_series(0, 3000, 3))),
             ('world', ARRAY(SELECT generate_series(0, 3000, 5))),
             ('cup', ARRAY(SELECT generate_series(0, 3000, 7))),
             ('empty', '{}'::int4[]),
             ('nulled', NULL)) v(t, a);
-- the one-argument form drops the missing term; the nterms form does not
SELECT cardinality(posting_intersect(pf)) AS one_arg_form,
       posting_intersect(pf, 2) AS stated_2,
       posting_intersect_count(qs, 2) AS stated_2_count
FROM postings_q WHERE term IN ('index', 'zzznotaword');
SELECT posting_intersect(lr, 3) = ARRAY(SELECT generate_series(0, 3000, 105)) AS all_present,
       posting_intersect_count(qs, 3) AS n
FROM postings_q WHERE term IN ('index', 'world', 'cup');
SELECT posting_intersect(pf, 2) AS none_present, posting_intersect_count(pf, 2) AS n
FROM postings_q WHERE term IN ('zzz', 'yyy');
SELECT posting_intersect(pf, 2) AS with_null_list, posting_intersect(pf, 2) IS NULL AS is_null
FROM postings_q WHERE term IN ('index', 'nulled');
SELECT posting_intersect(pf, 2) AS with_empty_list
FROM postings_q WHERE term IN ('index', 'empty');
-- many queries in one statement: nterms per query from the query table
CREATE TEMP TABLE q (qid int, term text);
INSERT INTO q VALUES (1, 'index'), (1, 'world'), (2, 'index'), (2, 'nope'),
                     (3, 'cup'), (4, 'index'), (4, 'world'), (4, 'cup'),
                     (5, 'nope'), (5, 'never');
SELECT q.qid, cardinality(posting_intersect(p.qs, n.k)) AS hits,
       posting_intersect_count(p.lr, n.k) AS n
FROM q JOIN (SELECT qid, count(*)::int AS k FROM q GROUP BY qid) n USING (qid)
LEFT JOIN postings_q p USING (term)
GROUP BY q.qid ORDER BY q.qid;
-- the same under a sorted plan
SET enable_hashagg = off;
SELECT q.qid, cardinality(posting_intersect(p.qs, n.k)) AS hits
FROM q JOIN (SELECT qid, count(*)::int AS k FROM q GROUP BY qid) n USING (qid)
LEFT JOIN postings_q p USING (term)
GROUP BY q.qid ORDER BY q.qid;
RESET enable_hashagg;
-- wrong use is an error
SELECT * FROM pg_temp.err($$SELECT posting_intersect(pf, 1) FROM postings_q
                            WHERE term IN ('index', 'world')$$);
SELECT * FROM pg_temp.err($$SELECT posting_intersect(pf, 0) FROM postings_q$$);
SELECT * FROM pg_temp.err($$SELECT posting_intersect(pf, NULL) FROM postings_q$$);
SELECT * FROM pg_temp.err($$SELECT posting_intersect(pf, CASE term WHEN 'index' THEN 2 ELSE 3 END)
                            FROM postings_q WHERE term IN ('index', 'world')$$);

-- ---------------------------------------------------------------------------
-- errors
-- ---------------------------------------------------------------------------
SELECT * FROM pg_temp.err($$SELECT posting_add('{1}'::posting_pfor, '{2,NULL}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_add('{1}'::posting_pfor, '{2,-3}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_remove('{1}'::posting_qs, '{-1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_add('{1}'::posting_lrc, '{{1,2},{3,4}}')$$);
SELECT * FROM pg_temp.err($$SELECT '{1}'::posting_lrc + (-1)$$);
SELECT * FROM pg_temp.err($$SELECT '{1}'::posting_lrc - (-1)$$);
SELECT * FROM pg_temp.err($$SELECT posting_add('{1}'::posting_pfor, 5)$$);
-- NULL operands of the strict functions give NULL
SELECT ('{1}'::posting_pfor | NULL::posting_qs) IS NULL AS or_null,
       posting_add(NULL::posting_pfor, '{1}') IS NULL AS add_null,
       posting_add('{1}'::posting_pfor, NULL) IS NULL AS add_null_array,
       ('{1}'::posting_qs = NULL::posting_qs) IS NULL AS eq_null,
       rank(NULL::posting_qs, 1) IS NULL AS rank_null;

-- ---------------------------------------------------------------------------
-- the README's postings maintenance, exactly as shown there
-- ---------------------------------------------------------------------------
\set readme `cat README.md`
\set example `cat sql/postings_sync.psql`
SELECT strpos(:'readme', :'example') > 0 AS readme_shows_this_sql;
-- its tables, as the README's SQL surface makes them
CREATE TABLE docs (id int PRIMARY KEY, body text);
CREATE TABLE postings (term text PRIMARY KEY, docs posting_pfor);
\i sql/postings_sync.psql
-- the reference: the postings rebuilt from scratch
CREATE FUNCTION pg_temp.postings_diff() RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*)
    FROM postings p
    FULL JOIN (SELECT w AS term, posting_pfor_agg(d.id) AS docs
               FROM docs d, unnest(tsvector_to_array(to_tsvector('simple', d.body))) w
               GROUP BY w) r USING (term)
    WHERE p.docs IS DISTINCT FROM r.docs
$$;
SELECT setseed(0.77);
CREATE TEMP TABLE words AS
SELECT 'w' || i AS w FROM generate_series(1, 60) i;
INSERT INTO docs
SELECT id, (SELECT string_agg(w, ' ') FROM (SELECT w FROM words
            ORDER BY random() + id * 0 LIMIT 3 + id % 9) s)
FROM generate_series(1, 400) id;
SELECT count(*) AS terms, pg_temp.postings_diff() AS diff_after_insert FROM postings;
-- new documents with new (larger) ids: appends
INSERT INTO docs
SELECT id, (SELECT string_agg(w, ' ') FROM (SELECT w FROM words
            ORDER BY random() + id * 0 LIMIT 2 + id % 5) s)
FROM generate_series(401, 450) id;
SELECT pg_temp.postings_diff() AS diff_after_append;
UPDATE docs SET body = body || ' w61 w62' WHERE id % 10 = 0;
UPDATE docs SET body = 'w1' WHERE id % 13 = 0;
UPDATE docs SET id = id + 1000 WHERE id % 17 = 0;
SELECT pg_temp.postings_diff() AS diff_after_update;
DELETE FROM docs WHERE id % 3 = 0;
DELETE FROM docs WHERE body LIKE '%w62%';
SELECT pg_temp.postings_diff() AS diff_after_delete,
       (SELECT count(*) FROM postings WHERE length(docs) = 0) AS empty_lists,
       (SELECT count(*) FROM postings WHERE term = 'w62') AS gone_term;
DELETE FROM docs;
SELECT count(*) AS terms_left FROM postings;
DROP TABLE docs;
DROP TABLE postings;
DROP FUNCTION postings_sync();
DROP EXTENSION intarray;
