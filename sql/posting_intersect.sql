--
-- posting_intersect: intersection of posting lists.  The aggregates
-- posting_intersect(T) / posting_intersect_count(T), the pairwise
-- operators T & T' (int4[]) and T && T' (boolean) for every pair of the
-- three types, @> against intersections, posting_intersect_batch, and
-- parallel aggregation.  Results are checked against references computed
-- in plain SQL from int4[] values and rows (a docID is in the result iff
-- it occurs in every list of the query: GROUP BY docid HAVING count(*) =
-- number of lists), and every check prints counts of mismatches.
--
SET jit = off;
SET work_mem = '64MB';       -- the references group millions of rows

\i sql/regress_setup.psql

-- a & b and a && b for all 9 type pairs, both argument orders (the
-- commuted forms must agree with the originals)
CREATE FUNCTION pg_temp.combos(pa posting_pfor, la posting_lrc, qa posting_qs,
                               pb posting_pfor, lb posting_lrc, qb posting_qs,
                               OUT ta text, OUT tb text, OUT isect int4[],
                               OUT ovl bool, OUT isect_c int4[], OUT ovl_c bool)
RETURNS SETOF record LANGUAGE sql AS $$
    VALUES ('pfor', 'pfor', pa & pb, pa && pb, pb & pa, pb && pa),
           ('pfor', 'lrc', pa & lb, pa && lb, lb & pa, lb && pa),
           ('pfor', 'qs', pa & qb, pa && qb, qb & pa, qb && pa),
           ('lrc', 'pfor', la & pb, la && pb, pb & la, pb && la),
           ('lrc', 'lrc', la & lb, la && lb, lb & la, lb && la),
           ('lrc', 'qs', la & qb, la && qb, qb & la, qb && la),
           ('qs', 'pfor', qa & pb, qa && pb, pb & qa, pb && qa),
           ('qs', 'lrc', qa & lb, qa && lb, lb & qa, lb && qa),
           ('qs', 'qs', qa & qb, qa && qb, qb & qa, qb && qa)
$$;

-- ---------------------------------------------------------------------------
-- catalog: & and && for every pair of types, with their commutators
-- ---------------------------------------------------------------------------
SELECT o.oprname, o.oprleft::regtype, o.oprright::regtype, o.oprresult::regtype,
       o.oprcode, o.oprcom::regoperator AS commutator, o.oprrest, o.oprjoin
FROM pg_operator o
WHERE o.oprname IN ('&', '&&') AND o.oprleft::regtype::text LIKE 'posting\_%'
ORDER BY o.oprname COLLATE "C", o.oprleft::regtype::text COLLATE "C",
         o.oprright::regtype::text COLLATE "C";

SELECT p.proname, count(*) AS overloads,
       bool_and(p.provolatile = 'i') AS immutable, bool_and(p.proisstrict) AS strict,
       bool_and(p.proparallel = 's') AS parallel_safe,
       string_agg(DISTINCT p.prosrc, ',') AS c_function
FROM pg_proc p
WHERE p.proname IN ('posting_intersection', 'posting_overlaps')
GROUP BY p.proname ORDER BY p.proname;

-- ---------------------------------------------------------------------------
-- operators on small lists, every pair of types
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE small (id int, a int4[], b int4[]);
INSERT INTO small VALUES
    (1, '{}', '{}'),
    (2, '{}', '{1,2,3}'),                       -- one empty
    (3, '{1,2,3}', '{1,2,3}'),                  -- identical
    (4, '{1,2,3}', '{4,5,6}'),                  -- disjoint ranges
    (5, '{1,3,5,7}', '{2,4,6,8}'),              -- interleaved, nothing common
    (6, '{0,2147483647}', '{0,5,2147483647}'),  -- the extremes
    (7, '{0}', '{0}'),
    (8, '{2147483647}', '{2147483646,2147483647}'),
    (9, '{5}', '{1,5,9}'),
    (10, '{1,2,3}', '{3,4}'),                   -- last of a = first of b
    (11, '{3,4}', '{1,2,3}'),                   -- first of a = last of b
    (12, '{1,5,9}', '{1,6,9}'),                 -- same ends
    (13, '{2,100}', '{1,50,101}'),              -- nested ranges, nothing common
    (14, ARRAY(SELECT generate_series(0, 999)), ARRAY(SELECT generate_series(0, 1998, 2))),
    (15, ARRAY(SELECT generate_series(0, 100000)), '{-0,50000,77777,100001}'),
    (16, ARRAY(SELECT generate_series(1000, 200000, 7)),
         ARRAY(SELECT generate_series(999, 200001, 11))),
    (17, ARRAY(SELECT generate_series(2147483647 - 5000, 2147483647)),
         ARRAY(SELECT 2147483647 - 3 * i FROM generate_series(0, 4000) i));
CREATE TEMP TABLE small_ref AS
SELECT id, a::posting_pfor AS pa, a::posting_lrc AS la, a::posting_qs AS qa,
       b::posting_pfor AS pb, b::posting_lrc AS lb, b::posting_qs AS qb,
       ARRAY(SELECT x FROM unnest(a) x INTERSECT SELECT x FROM unnest(b) x
             ORDER BY 1) AS ref
FROM small;

-- the intersection as computed by posting_pfor & posting_qs, and how many
-- of the 9 type pairs (and their commuted forms) disagree with the reference
SELECT s.id, CASE WHEN cardinality(s.ref) <= 8 THEN (s.pa & s.qb)::text
                  ELSE cardinality(s.pa & s.qb) || ' docIDs' END AS pfor_and_qs,
       s.pa && s.qb AS overlaps, k.isect_bad, k.ovl_bad
FROM small_ref s,
     LATERAL (SELECT count(*) FILTER (WHERE c.isect IS DISTINCT FROM s.ref
                                        OR c.isect_c IS DISTINCT FROM s.ref) AS isect_bad,
                     count(*) FILTER (WHERE c.ovl IS DISTINCT FROM (cardinality(s.ref) > 0)
                                        OR c.ovl_c IS DISTINCT FROM (cardinality(s.ref) > 0))
                         AS ovl_bad
              FROM pg_temp.combos(s.pa, s.la, s.qa, s.pb, s.lb, s.qb) c) k
ORDER BY s.id;

-- STRICT: NULL in, NULL out
SELECT NULL::posting_pfor & '{1}'::posting_qs AS i1, '{1}'::posting_lrc & NULL::posting_lrc AS i2,
       NULL::posting_qs && '{1}'::posting_pfor AS o1, '{1}'::posting_qs && NULL::posting_qs AS o2;

-- the result is a plain int4[]: array functions and operators apply
SELECT cardinality(x) AS n, x[1] AS first, x @> ARRAY[9] AS has9, array_lower(x, 1) AS lb
FROM (SELECT '{1,5,9,12}'::posting_lrc & '{0,5,9,13}'::posting_pfor AS x) s;

-- no implicit casts: & and && on int4[] still resolve to the array operators
SELECT ARRAY[1, 2] && ARRAY[2, 3] AS array_overlap, 6 & 3 AS int_and;

-- ---------------------------------------------------------------------------
-- the aggregates on small inputs, all three types
-- ---------------------------------------------------------------------------
-- case 1: no list (one NULL row from the outer join); 2: only NULLs; 3: NULLs mixed in are ignored; 4: one
-- list; 5: one empty list; 6: an empty list among others; 7: identical
-- lists; 8: disjoint ranges; 9: the extremes 0 and 2147483647; 10: a list
-- repeated many times
CREATE TEMP TABLE agg_in (c int, pos int, l int4[]);
INSERT INTO agg_in VALUES
    (2, 1, NULL), (2, 2, NULL),
    (3, 1, NULL), (3, 2, '{1,2,3,4}'), (3, 3, NULL), (3, 4, '{2,3,4,5}'), (3, 5, '{0,3,4}'),
    (4, 1, '{7,3,5}'),
    (5, 1, '{}'),
    (6, 1, '{1,2}'), (6, 2, '{}'), (6, 3, '{1,2}'),
    (7, 1, '{10,20,30}'), (7, 2, '{10,20,30}'), (7, 3, '{10,20,30}'),
    (8, 1, '{1,2,3}'), (8, 2, '{100,200}'),
    (9, 1, '{0,1,2147483647}'), (9, 2, '{0,2147483646,2147483647}'), (9, 3, '{0,2147483647}');
INSERT INTO agg_in SELECT 10, i, '{3,1,4,1,5,9,2,6}' FROM generate_series(1, 300) i;
SELECT c.c, posting_intersect(l::posting_pfor) AS pfor,
       posting_intersect(l::posting_lrc) AS lrc, posting_intersect(l::posting_qs) AS qs,
       posting_intersect_count(l::posting_pfor) AS n_pfor,
       posting_intersect_count(l::posting_lrc) AS n_lrc,
       posting_intersect_count(l::posting_qs) AS n_qs
FROM generate_series(1, 10) c(c) LEFT JOIN agg_in a ON a.c = c.c AND c.c > 1
GROUP BY c.c ORDER BY c.c;
-- no rows at all, without GROUP BY: one row of NULLs
SELECT posting_intersect(l::posting_qs) AS isect, posting_intersect_count(l::posting_pfor) AS n
FROM agg_in WHERE false;

-- FILTER, and as a window function (a running intersection: the state
-- keeps growing after each final call)
SELECT posting_intersect(l::posting_lrc) FILTER (WHERE pos <> 5) AS without_5
FROM agg_in WHERE c = 3;
SELECT pos, l, posting_intersect(l::posting_pfor) OVER (ORDER BY pos) AS running,
       posting_intersect_count(l::posting_qs) OVER (ORDER BY pos) AS running_n
FROM agg_in WHERE c = 3 ORDER BY pos;

-- ---------------------------------------------------------------------------
-- 2000 groups against the reference
-- ---------------------------------------------------------------------------
-- Each group has 1 to 6 lists over a small universe (20 to 600 docIDs),
-- each list uniform (density 30% to 95%), in runs, or nearly full; about
-- 4% of the lists are NULL.  Special groups: all lists NULL (g % 211 = 0),
-- an empty first list (g % 97 = 0), disjoint ranges (g % 59 = 0), lists
-- ending at 2147483647 (g % 61 = 0), 0 and 2147483647 in every list
-- (g % 67 = 0), all lists identical (g % 53 = 0).
SELECT setseed(0.2024);
CREATE TEMP TABLE grp_spec AS
SELECT g, 1 + floor(random() * 6)::int AS k, 20 + floor(random() * 581)::int AS u
FROM generate_series(1, 2000) g;
CREATE TEMP TABLE grp_raw AS
SELECT s.g, p.pos,
       CASE WHEN s.g % 211 = 0 OR random() < 0.04 THEN NULL
            WHEN s.g % 97 = 0 AND p.pos = 1 THEN '{}'::int4[]
            ELSE ARRAY(SELECT (x + CASE WHEN s.g % 59 = 0 THEN p.pos * 100000
                                        WHEN s.g % 61 = 0 THEN 2147483647 - (s.u - 1)
                                        ELSE 0 END)::int4
                       FROM generate_series(0, s.u - 1) x
                       WHERE CASE (s.g + p.pos) % 3
                             WHEN 0 THEN random() < p.d
                             WHEN 1 THEN ((x + p.off) / p.rl) % 3 <> 0
                             ELSE random() < 0.97 END
                       UNION SELECT 0 WHERE s.g % 67 = 0
                       UNION SELECT 2147483647 WHERE s.g % 67 = 0)
       END AS ref
FROM grp_spec s,
     LATERAL (SELECT pos, 0.3 + random() * 0.65 AS d, floor(random() * 100)::int AS off,
                     1 + floor(random() * 40)::int AS rl
              FROM generate_series(1, s.k) pos) p;
UPDATE grp_raw r SET ref = f.ref
FROM grp_raw f WHERE f.g = r.g AND f.pos = 1 AND r.g % 53 = 0 AND r.pos > 1;
CREATE TEMP TABLE grp AS
SELECT g, pos, ref, ref::posting_pfor AS pf, ref::posting_lrc AS lr, ref::posting_qs AS qs
FROM grp_raw;
ANALYZE grp;

-- reference: per group, the docIDs found in as many lists as the group
-- has non-NULL lists; NULL when it has none
CREATE TEMP TABLE grp_ref AS
WITH nl AS (SELECT g, count(ref) AS k FROM grp GROUP BY g),
     hit AS (SELECT r.g, x FROM grp r JOIN nl USING (g), unnest(r.ref) x
             GROUP BY r.g, nl.k, x HAVING count(*) = nl.k)
SELECT nl.g, nl.k,
       CASE WHEN nl.k > 0 THEN coalesce(array_agg(hit.x ORDER BY hit.x)
                                        FILTER (WHERE hit.x IS NOT NULL), '{}') END AS docs
FROM nl LEFT JOIN hit USING (g) GROUP BY nl.g, nl.k;

SELECT count(*) AS groups, sum(k) AS lists,
       (SELECT count(*) FROM grp WHERE ref IS NULL) AS null_lists,
       count(*) FILTER (WHERE docs IS NULL) AS null_groups,
       count(*) FILTER (WHERE cardinality(docs) = 0) AS empty_groups,
       count(*) FILTER (WHERE k = 1) AS one_list_groups,
       sum(cardinality(docs)) AS result_docids,
       (SELECT sum(cardinality(ref)) FROM grp) AS input_docids
FROM grp_ref;

-- the aggregates under HashAggregate (all groups computed as one batch)
-- and under a sorted GroupAggregate (one group at a time)
CREATE TEMP TABLE grp_res (plan text, g int, pf int4[], lr int4[], qs int4[],
                           n_pf bigint, n_lr bigint, n_qs bigint);
SET enable_hashagg = on;
SET enable_sort = off;
SELECT pg_temp.plan_has('SELECT g, posting_intersect(pf) FROM grp GROUP BY g',
                        '^\s*HashAggregate') AS hash_plan;
INSERT INTO grp_res
SELECT 'hash', g, posting_intersect(pf), posting_intersect(lr), posting_intersect(qs),
       posting_intersect_count(pf), posting_intersect_count(lr), posting_intersect_count(qs)
FROM grp GROUP BY g;
SET enable_hashagg = off;
RESET enable_sort;
SELECT pg_temp.plan_has('SELECT g, posting_intersect(pf) FROM grp GROUP BY g',
                        '^\s*GroupAggregate') AS sorted_plan;
INSERT INTO grp_res
SELECT 'sorted', g, posting_intersect(pf), posting_intersect(lr), posting_intersect(qs),
       posting_intersect_count(pf), posting_intersect_count(lr), posting_intersect_count(qs)
FROM grp GROUP BY g;
RESET enable_hashagg;

SELECT p.plan, count(r.g) AS groups, count(*) FILTER (WHERE a.g IS NULL) AS missing,
       count(*) FILTER (WHERE a.pf IS DISTINCT FROM r.docs) AS pfor_bad,
       count(*) FILTER (WHERE a.lr IS DISTINCT FROM r.docs) AS lrc_bad,
       count(*) FILTER (WHERE a.qs IS DISTINCT FROM r.docs) AS qs_bad,
       count(*) FILTER (WHERE a.n_pf IS DISTINCT FROM cardinality(r.docs)::bigint
                          OR a.n_lr IS DISTINCT FROM cardinality(r.docs)::bigint
                          OR a.n_qs IS DISTINCT FROM cardinality(r.docs)::bigint) AS count_bad
FROM (VALUES ('hash'), ('sorted')) p(plan)
CROSS JOIN grp_ref r
LEFT JOIN grp_res a ON a.plan = p.plan AND a.g = r.g
GROUP BY p.plan ORDER BY p.plan;
SELECT count(*) AS extra_rows FROM grp_res a WHERE NOT EXISTS (SELECT 1 FROM grp_ref r WHERE r.g = a.g);

-- & and && on the first two non-NULL lists of each group, every pair of
-- types, against the same kind of reference computed for the pair
CREATE TEMP TABLE grp_pairs AS
SELECT a.g, a.ref AS ra, b.ref AS rb, a.pf AS pa, a.lr AS la, a.qs AS qa,
       b.pf AS pb, b.lr AS lb, b.qs AS qb
FROM (SELECT *, row_number() OVER (PARTITION BY g ORDER BY pos) AS i
      FROM grp WHERE ref IS NOT NULL) a
JOIN (SELECT *, row_number() OVER (PARTITION BY g ORDER BY pos) AS i
      FROM grp WHERE ref IS NOT NULL) b ON b.g = a.g AND a.i = 1 AND b.i = 2;
CREATE TEMP TABLE grp_pair_ref AS
SELECT p.g, coalesce(h.docs, '{}') AS docs
FROM grp_pairs p
LEFT JOIN (SELECT g, array_agg(x ORDER BY x) AS docs
           FROM (SELECT g, x FROM (SELECT g, x FROM grp_pairs, unnest(ra) x
                                   UNION ALL
                                   SELECT g, x FROM grp_pairs, unnest(rb) x) u
                 GROUP BY g, x HAVING count(*) = 2) h
           GROUP BY g) h USING (g);
SELECT c.ta, c.tb, count(*) AS pairs,
       count(*) FILTER (WHERE cardinality(r.docs) > 0) AS overlapping,
       count(*) FILTER (WHERE c.isect IS DISTINCT FROM r.docs) AS isect_bad,
       count(*) FILTER (WHERE c.isect_c IS DISTINCT FROM r.docs) AS commuted_bad,
       count(*) FILTER (WHERE c.ovl IS DISTINCT FROM (cardinality(r.docs) > 0)
                          OR c.ovl_c IS DISTINCT FROM (cardinality(r.docs) > 0)) AS ovl_bad
FROM grp_pairs p JOIN grp_pair_ref r USING (g), pg_temp.combos(pa, la, qa, pb, lb, qb) c
GROUP BY c.ta, c.tb ORDER BY c.ta, c.tb;

-- @>: a docID of a group's first list is in the intersection iff every
-- list of the group contains it (each list probed through another type,
-- by position)
CREATE TEMP TABLE grp_cand AS
SELECT f.g, x
FROM (SELECT DISTINCT ON (g) g, ref FROM grp WHERE ref IS NOT NULL ORDER BY g, pos) f,
     unnest(f.ref) x
WHERE f.g % 4 = 0;
SELECT count(*) AS candidates, count(*) FILTER (WHERE in_ref) AS members,
       count(*) FILTER (WHERE all_contain IS DISTINCT FROM in_ref) AS bad
FROM (SELECT c.g, c.x, m.x IS NOT NULL AS in_ref,
             bool_and(CASE l.pos % 3 WHEN 0 THEN l.pf @> c.x
                                     WHEN 1 THEN l.lr @> c.x
                                     ELSE c.x <@ l.qs END) AS all_contain
      FROM grp_cand c
      JOIN grp l ON l.g = c.g AND l.ref IS NOT NULL
      LEFT JOIN (SELECT g, unnest(docs) AS x FROM grp_ref) m ON m.g = c.g AND m.x = c.x
      GROUP BY c.g, c.x, m.x) s;

-- ---------------------------------------------------------------------------
-- parallel aggregation: Partial / Finalize with serialized states
-- ---------------------------------------------------------------------------
-- 40 groups of 100 lists (a regular table: parallel workers cannot read
-- temporary ones), rows of a group spread over the whole table.  Every
-- list of group g holds the group's core (10 to 80 docIDs), 0 and
-- 2147483647, and 50 to 250 random docIDs; about 3% of the lists are
-- NULL; group 40 has an empty list.
SELECT setseed(0.5);
CREATE TEMP TABLE par_core AS
SELECT g, ARRAY(SELECT floor(random() * 20000)::int4
                FROM generate_series(1, 10 + (random() * 70)::int) WHERE g > 0) AS core
FROM generate_series(1, 40) g;
CREATE TABLE pi_par AS
SELECT c.g, i,
       CASE WHEN random() < 0.03 THEN NULL
            WHEN c.g = 40 AND i = 50 THEN '{}'::int4[]
            ELSE ARRAY(SELECT DISTINCT x
                       FROM (SELECT unnest(c.core || '{0,2147483647}'::int4[]) AS x
                             UNION ALL
                             SELECT floor(random() * 20000)::int4
                             FROM generate_series(1, 50 + (random() * 200)::int)
                             WHERE i > 0) u)
       END AS ref
FROM par_core c, generate_series(1, 100) i ORDER BY i, c.g;
ALTER TABLE pi_par ADD pf posting_pfor, ADD lr posting_lrc, ADD qs posting_qs;
UPDATE pi_par SET pf = ref, lr = ref, qs = ref;
VACUUM ANALYZE pi_par;
CREATE TEMP TABLE par_ref AS
WITH nl AS (SELECT g, count(ref) AS k FROM pi_par GROUP BY g),
     hit AS (SELECT r.g, x FROM pi_par r JOIN nl USING (g), unnest(r.ref) x
             GROUP BY r.g, nl.k, x HAVING count(*) = nl.k)
SELECT nl.g, coalesce(array_agg(hit.x ORDER BY hit.x)
                      FILTER (WHERE hit.x IS NOT NULL), '{}') AS docs
FROM nl LEFT JOIN hit USING (g) GROUP BY nl.g;

CREATE TEMP TABLE par_res (plan text, g int, pf int4[], lr int4[], qs int4[], n bigint);
ALTER TABLE pi_par SET (parallel_workers = 2);
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;     -- the workers see every row
-- partial aggregation hashed; the finalize step is sorted, or hashed where
-- the library is preloaded (the planner hook of exec_plan.c)
SELECT pg_temp.plan_has(q, 'Partial HashAggregate') AS partial_hashed,
       pg_temp.plan_has(q, 'Finalize (Group|Hash)Aggregate') AS finalized
FROM (VALUES ('SELECT g, posting_intersect(pf), posting_intersect(lr), posting_intersect(qs),
                      posting_intersect_count(qs)
               FROM pi_par GROUP BY g')) v(q);
INSERT INTO par_res
SELECT 'parallel hash', g, posting_intersect(pf), posting_intersect(lr),
       posting_intersect(qs), posting_intersect_count(qs)
FROM pi_par GROUP BY g;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT g, posting_intersect(pf), posting_intersect_count(qs) FROM pi_par GROUP BY g;
INSERT INTO par_res
SELECT 'parallel sorted', g, posting_intersect(pf), posting_intersect(lr),
       posting_intersect(qs), posting_intersect_count(qs)
FROM pi_par GROUP BY g;
RESET enable_hashagg;
-- one group over the whole table: only 0 and 2147483647 are in every list
EXPLAIN (COSTS OFF)
SELECT posting_intersect(pf), posting_intersect_count(lr) FROM pi_par WHERE g <> 40;
INSERT INTO par_res
SELECT 'parallel all', 0, posting_intersect(pf), posting_intersect(lr),
       posting_intersect(qs), posting_intersect_count(lr)
FROM pi_par WHERE g <> 40;
SET max_parallel_workers_per_gather = 0;
SELECT pg_temp.plan_has('SELECT g, posting_intersect(pf) FROM pi_par GROUP BY g',
                        'Gather|Partial') AS serial_plan_is_parallel;
INSERT INTO par_res
SELECT 'serial', g, posting_intersect(pf), posting_intersect(lr),
       posting_intersect(qs), posting_intersect_count(qs)
FROM pi_par GROUP BY g;
INSERT INTO par_res
SELECT 'serial all', 0, posting_intersect(pf), posting_intersect(lr),
       posting_intersect(qs), posting_intersect_count(lr)
FROM pi_par WHERE g <> 40;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

SELECT (SELECT count(*) FROM pi_par) AS lists,
       (SELECT count(*) FROM pi_par WHERE ref IS NULL) AS null_lists,
       count(*) AS groups, sum(cardinality(docs)) AS result_docids,
       count(*) FILTER (WHERE cardinality(docs) = 0) AS empty_groups
FROM par_ref;
SELECT p.plan, count(r.g) AS groups, count(*) FILTER (WHERE a.g IS NULL) AS missing,
       count(*) FILTER (WHERE a.pf IS DISTINCT FROM r.docs OR a.lr IS DISTINCT FROM r.docs
                          OR a.qs IS DISTINCT FROM r.docs) AS bad,
       count(*) FILTER (WHERE a.n IS DISTINCT FROM cardinality(r.docs)::bigint) AS count_bad
FROM (VALUES ('parallel hash'), ('parallel sorted'), ('serial')) p(plan)
CROSS JOIN par_ref r
LEFT JOIN par_res a ON a.plan = p.plan AND a.g = r.g
GROUP BY p.plan ORDER BY p.plan;
SELECT plan, pf, n, pf = lr AND lr = qs AS codecs_agree
FROM par_res WHERE plan LIKE '% all' ORDER BY plan;

-- ---------------------------------------------------------------------------
-- posting_intersect_batch
-- ---------------------------------------------------------------------------
-- small: qids in any order, NULL lists skipped, a qid with only NULLs
SELECT * FROM posting_intersect_batch(ARRAY[7, 3, 7, 3, 5, 9, 9]::bigint[],
                                      ARRAY['{1,2,3}', '{2}', '{2,3,4}', '{1,2}',
                                            NULL, '{8}', NULL]::posting_qs[]);
SELECT count(*) AS rows FROM posting_intersect_batch('{}'::bigint[], '{}'::posting_pfor[]);
-- errors: only the SQLSTATEs here (the messages are the executor tests')
SELECT v.k, e.code
FROM (VALUES (1, 'SELECT * FROM posting_intersect_batch(ARRAY[1, 2]::bigint[], ARRAY[''{1}'']::posting_lrc[])'),
             (2, 'SELECT * FROM posting_intersect_batch(ARRAY[1, NULL]::bigint[], ARRAY[''{1}'', ''{2}'']::posting_lrc[])'),
             (3, 'SELECT * FROM posting_intersect_batch(ARRAY[[1], [2]]::bigint[], ARRAY[''{1}'', ''{2}'']::posting_pfor[])')) v(k, q),
     LATERAL pg_temp.err(v.q) e
ORDER BY v.k;
-- all 2000 groups in one call per type
SELECT t.typ, count(r.g) AS groups, count(*) FILTER (WHERE b.qid IS NULL) AS missing,
       count(*) FILTER (WHERE b.docs IS DISTINCT FROM r.docs) AS bad
FROM (VALUES ('pfor'), ('lrc'), ('qs')) t(typ)
CROSS JOIN grp_ref r
LEFT JOIN (SELECT 'pfor' AS typ, * FROM posting_intersect_batch(
               (SELECT array_agg(g::bigint ORDER BY g DESC, pos) FROM grp),
               (SELECT array_agg(pf ORDER BY g DESC, pos) FROM grp))
           UNION ALL
           SELECT 'lrc', * FROM posting_intersect_batch(
               (SELECT array_agg(g::bigint ORDER BY pos, g) FROM grp),
               (SELECT array_agg(lr ORDER BY pos, g) FROM grp))
           UNION ALL
           SELECT 'qs', * FROM posting_intersect_batch(
               (SELECT array_agg(g::bigint ORDER BY g, pos) FROM grp),
               (SELECT array_agg(qs ORDER BY g, pos) FROM grp))) b
       ON b.typ = t.typ AND b.qid = r.g
GROUP BY t.typ ORDER BY t.typ;

-- ---------------------------------------------------------------------------
-- random queries of 2 to 8 terms with skewed lengths
-- ---------------------------------------------------------------------------
-- 40 terms over the universe [0, 2^17) unless said otherwise: uniform
-- (log-uniform lengths between 1 and 10^5), edge (the same, plus 0 and
-- 2147483647), runs of 1 to 32 consecutive docIDs, dense (each docID
-- with probability 30% to 95%; term 1: 80%, about 10^5 docIDs), wide
-- (uniform over all of int4) and high (over [2^30, 2^30 + 2^17): disjoint
-- from the others).  So that queries of many terms are not all empty, the
-- uniform, edge and runs terms also hold each of 256 planted docIDs
-- (multiples of 509) with probability 90% (less for terms shorter than
-- 500).  200 queries of 2 to 8 distinct terms, plus 30 repeating a term
-- (identical lists), plus the first two terms of each of the 200 as
-- 2-term queries.
SELECT setseed(0.777);
CREATE TEMP TABLE term_spec AS
SELECT t, CASE WHEN t = 1 THEN 'dense' WHEN t = 2 THEN 'runs'
               ELSE (ARRAY['uniform', 'runs', 'edge', 'dense', 'uniform', 'runs',
                           'uniform', 'wide', 'uniform', 'runs', 'edge', 'dense',
                           'uniform', 'runs', 'edge', 'high'])[1 + t % 16] END AS kind,
       CASE WHEN t = 2 THEN 100000
            ELSE greatest(1, floor(exp(random() * ln(100000))))::int END AS n,
       CASE WHEN t = 1 THEN 0.8 ELSE 0.3 + 0.65 * random() END AS d
FROM generate_series(1, 40) t;
CREATE TEMP TABLE postings AS
SELECT DISTINCT term, doc FROM (
    SELECT t AS term,
           (CASE kind WHEN 'wide' THEN floor(random() * 2147483648)
                      WHEN 'high' THEN 1073741824 + floor(random() * 131072)
                      ELSE floor(random() * 131072) END)::int4 AS doc
    FROM term_spec, generate_series(1, n)
    WHERE kind IN ('uniform', 'edge', 'wide', 'high')
    UNION ALL
    SELECT t, x FROM term_spec,
         LATERAL (SELECT x FROM generate_series(0, 131071) x
                  WHERE random() < d OFFSET 0) x        -- per docID, not per term
    WHERE kind = 'dense'
    UNION ALL
    SELECT t, least(r.start + j, 131071)
    FROM (SELECT t, floor(random() * 131072)::int AS start,
                 floor(random() * 32)::int AS rl
          FROM term_spec, generate_series(1, ceil(n / 16.0)::int)
          WHERE kind = 'runs') r,
         generate_series(0, r.rl) j
    UNION ALL
    SELECT t, e FROM term_spec, unnest(ARRAY[0, 2147483647]) e WHERE kind = 'edge'
    UNION ALL                           -- planted: shared by many terms
    SELECT t, h * 509 FROM term_spec,
         LATERAL (SELECT h FROM generate_series(0, 255) h
                  WHERE random() < 0.9 * least(1, n / 500.0) OFFSET 0) h
    WHERE kind IN ('uniform', 'edge', 'runs')) s;
CREATE INDEX ON postings (term, doc);
VACUUM ANALYZE postings;     -- index-only scans for the reference
CREATE TEMP TABLE pi_terms AS
SELECT term, kind, count(*) AS n, posting_pfor_agg(doc) AS pf,
       posting_lrc_agg(doc) AS lr, posting_qs_agg(doc) AS qs
FROM postings JOIN term_spec ON t = term GROUP BY term, kind ORDER BY term;
ANALYZE pi_terms;
SELECT kind, count(*) AS terms, sum(n) AS docids, min(n) AS shortest, max(n) AS longest,
       bool_and(length(pf) = n AND length(lr) = n AND length(qs) = n) AS lengths_ok
FROM pi_terms GROUP BY kind ORDER BY kind;

CREATE TEMP TABLE pq AS
SELECT q, row_number() OVER (PARTITION BY q ORDER BY r) AS pos, term
FROM (SELECT qq.q, t.term, random() AS r
      FROM (SELECT q, 2 + floor(random() * 7)::int AS k FROM generate_series(1, 200) q) qq,
           LATERAL (SELECT term FROM pi_terms WHERE qq.q > 0 ORDER BY random()
                    LIMIT qq.k) t) s;
INSERT INTO pq                        -- term repeated: identical lists
SELECT q + 200, pos, term FROM pq WHERE q <= 30
UNION ALL SELECT q + 200, 9, term FROM pq WHERE q <= 30 AND pos = 1;
INSERT INTO pq                        -- 2-term queries for the operators
SELECT q + 1000, pos, term FROM pq WHERE pos <= 2 AND q <= 200;
ANALYZE pq;

-- reference: candidates from each query's shortest list, kept iff found
-- in as many of the query's lists as it has (through the postings rows)
CREATE TEMP TABLE pq_k AS
SELECT q, count(*) AS k, (array_agg(term ORDER BY n, term))[1] AS shortest,
       min(n) AS shortest_n, max(n) AS longest_n
FROM pq JOIN pi_terms USING (term) GROUP BY q;
ANALYZE pq_k;
CREATE TEMP TABLE pq_ref AS
SELECT k.q, k.k, k.shortest_n, k.longest_n, coalesce(h.docs, '{}') AS docs
FROM pq_k k
LEFT JOIN (SELECT c.q, array_agg(c.doc ORDER BY c.doc) AS docs
           FROM (SELECT c.q, c.doc
                 FROM (SELECT k.q, k.k, p.doc FROM pq_k k
                       JOIN postings p ON p.term = k.shortest) c
                 JOIN pq t ON t.q = c.q
                 JOIN postings p2 ON p2.term = t.term AND p2.doc = c.doc
                 GROUP BY c.q, c.doc, c.k HAVING count(*) = c.k) c
           GROUP BY c.q) h USING (q);
SELECT CASE WHEN q > 1000 THEN '2 terms' WHEN q > 200 THEN 'repeated term'
            ELSE 'random' END AS queries,
       count(*) AS n, min(k) AS min_k, max(k) AS max_k,
       count(*) FILTER (WHERE longest_n >= 100 * shortest_n) AS skewed_100x,
       count(*) FILTER (WHERE cardinality(docs) = 0) AS empty,
       sum(cardinality(docs)) AS result_docids
FROM pq_ref GROUP BY 1 ORDER BY 1;

-- the aggregates, stored (toasted) lists joined in per query
CREATE TEMP TABLE pq_res AS
SELECT q, posting_intersect(pf) AS pf, posting_intersect(lr) AS lr,
       posting_intersect(qs) AS qs, posting_intersect_count(pf) AS n_pf,
       posting_intersect_count(lr) AS n_lr, posting_intersect_count(qs) AS n_qs
FROM pq JOIN pi_terms USING (term) GROUP BY q;
SELECT count(r.q) AS queries, count(*) FILTER (WHERE a.q IS NULL) AS missing,
       count(*) FILTER (WHERE a.pf IS DISTINCT FROM r.docs) AS pfor_bad,
       count(*) FILTER (WHERE a.lr IS DISTINCT FROM r.docs) AS lrc_bad,
       count(*) FILTER (WHERE a.qs IS DISTINCT FROM r.docs) AS qs_bad,
       count(*) FILTER (WHERE a.n_pf IS DISTINCT FROM cardinality(r.docs)::bigint
                          OR a.n_lr IS DISTINCT FROM cardinality(r.docs)::bigint
                          OR a.n_qs IS DISTINCT FROM cardinality(r.docs)::bigint) AS count_bad
FROM pq_ref r LEFT JOIN pq_res a USING (q);

-- the same queries through posting_intersect_batch, one call per type
SELECT t.typ, count(r.q) AS queries, count(*) FILTER (WHERE b.docs IS DISTINCT FROM r.docs) AS bad
FROM (VALUES ('pfor'), ('lrc'), ('qs')) t(typ)
CROSS JOIN pq_ref r
LEFT JOIN (SELECT 'pfor' AS typ, * FROM posting_intersect_batch(
               (SELECT array_agg(q::bigint ORDER BY pos, q) FROM pq JOIN pi_terms USING (term)),
               (SELECT array_agg(pf ORDER BY pos, q) FROM pq JOIN pi_terms USING (term)))
           UNION ALL
           SELECT 'lrc', * FROM posting_intersect_batch(
               (SELECT array_agg(q::bigint ORDER BY q, pos) FROM pq JOIN pi_terms USING (term)),
               (SELECT array_agg(lr ORDER BY q, pos) FROM pq JOIN pi_terms USING (term)))
           UNION ALL
           SELECT 'qs', * FROM posting_intersect_batch(
               (SELECT array_agg(q::bigint ORDER BY q DESC, pos) FROM pq JOIN pi_terms USING (term)),
               (SELECT array_agg(qs ORDER BY q DESC, pos) FROM pq JOIN pi_terms USING (term)))) b
       ON b.typ = t.typ AND b.qid = r.q
GROUP BY t.typ ORDER BY t.typ;

-- & and && on the 2-term queries, every pair of types
SELECT c.ta, c.tb, count(*) AS pairs,
       count(*) FILTER (WHERE cardinality(r.docs) > 0) AS overlapping,
       count(*) FILTER (WHERE c.isect IS DISTINCT FROM r.docs) AS isect_bad,
       count(*) FILTER (WHERE c.isect_c IS DISTINCT FROM r.docs) AS commuted_bad,
       count(*) FILTER (WHERE c.ovl IS DISTINCT FROM (cardinality(r.docs) > 0)
                          OR c.ovl_c IS DISTINCT FROM (cardinality(r.docs) > 0)) AS ovl_bad
FROM pq_ref r
JOIN pq x ON x.q = r.q AND x.pos = 1 JOIN pi_terms a ON a.term = x.term
JOIN pq y ON y.q = r.q AND y.pos = 2 JOIN pi_terms b ON b.term = y.term,
     pg_temp.combos(a.pf, a.lr, a.qs, b.pf, b.lr, b.qs) c
WHERE r.q > 1000
GROUP BY c.ta, c.tb ORDER BY c.ta, c.tb;

-- every term against itself and the two long lists against each other
SELECT count(*) FILTER (WHERE (pf & qs) IS DISTINCT FROM docids(lr)
                          OR (lr & lr) IS DISTINCT FROM docids(pf)
                          OR NOT (qs && pf)) AS self_bad
FROM pi_terms;
SELECT cardinality(a.pf & b.lr) AS n,
       (a.pf & b.lr) = ARRAY(SELECT doc FROM postings WHERE term = 1
                             INTERSECT SELECT doc FROM postings WHERE term = 2
                             ORDER BY 1) AS ok,
       a.qs && b.pf AS overlaps
FROM pi_terms a, pi_terms b WHERE a.term = 1 AND b.term = 2;

DROP TABLE pi_par;
