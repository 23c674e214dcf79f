--
-- Document partitioning helpers: posting_slice and posting_union, and the
-- partitionwise form of a query over a table partitioned by docID range
-- (the layout of docs/SCALEOUT.md, here with local partitions).
--
\i sql/regress_setup.psql
SELECT setseed(0.77);
CREATE TEMP TABLE sl AS
  SELECT i, ARRAY(SELECT DISTINCT (random() * 2000000 + 0 * i)::int
                  FROM generate_series(1, (power(10, 1 + random() * 4) + 0 * i)::int)
                  ORDER BY 1) AS arr
  FROM generate_series(1, 30) i;
INSERT INTO sl VALUES (31, '{}'), (32, '{0}'), (33, '{2147483647}'),
  (34, '{0,1,2,2147483646,2147483647}');
CREATE TEMP TABLE cuts (lo bigint, hi bigint);
INSERT INTO cuts VALUES (0, 1000000), (1000000, 2147483648), (-5, 3), (0, 0),
  (7, 3), (1, 2147483647), (2147483647, 2147483648), (123456, 123457),
  (0, 9223372036854775807), (-9223372036854775808, 500000);
-- posting_slice equals filtering the docIDs, for every codec and cut
SELECT count(*) AS checked,
       count(*) FILTER (WHERE docids(posting_slice(posting_pfor(arr), lo, hi)) <> ref
                           OR docids(posting_slice(posting_lrc(arr), lo, hi)) <> ref
                           OR docids(posting_slice(posting_qs(arr), lo, hi)) <> ref) AS wrong
FROM (SELECT arr, lo, hi,
             ARRAY(SELECT d FROM unnest(arr) d WHERE d >= lo AND d < hi ORDER BY d) AS ref
      FROM sl, cuts) s;
-- slices of one list at consecutive cuts add up to the list
SELECT count(*) FILTER (WHERE s1 + s2 + s3 <> n) AS wrong
FROM (SELECT length(p) AS n, length(posting_slice(p, 0, 300000)) AS s1,
             length(posting_slice(p, 300000, 1700000)) AS s2,
             length(posting_slice(p, 1700000, 2147483648)) AS s3
      FROM (SELECT posting_qs(arr) AS p FROM sl) t) u;
-- the type and codec are kept
SELECT pg_typeof(posting_slice('{1,5,9}'::int4[]::posting_lrc, 2, 10)),
       posting_slice('{1,5,9}'::int4[]::posting_lrc, 2, 10),
       codec(posting_slice('{1,5,9}'::int4[]::posting_qs, 0, 1)),
       posting_slice('{1,5,9}'::int4[]::posting_pfor, 9, 9);

-- posting_union: disjoint runs in any order concatenate in docID order
SELECT posting_union(a) FROM (VALUES ('{7,8,9}'::int4[]), ('{1,2}'), ('{}'), (NULL), ('{4}')) v(a);
-- overlapping runs: sorted union without duplicates
SELECT posting_union(a) FROM (VALUES ('{1,5,9}'::int4[]), ('{2,5,10}'), ('{9}')) v(a);
-- no rows, only NULLs -> NULL; only empty arrays -> empty
SELECT posting_union(a) IS NULL FROM (SELECT '{1}'::int4[] WHERE false) v(a);
SELECT posting_union(a) IS NULL FROM (VALUES (NULL::int4[]), (NULL)) v(a);
SELECT posting_union(a) FROM (VALUES ('{}'::int4[]), ('{}')) v(a);
-- equals a naive union on random arrays, grouped
SELECT count(*) FILTER (WHERE u <> ref) AS wrong, count(*) AS groups
FROM (SELECT i % 5 AS g, posting_union(arr) AS u FROM sl GROUP BY i % 5) t
JOIN (SELECT i % 5 AS g, array_agg(DISTINCT d ORDER BY d) AS ref
      FROM sl, unnest(arr) d GROUP BY i % 5) r USING (g);
-- bad inputs (with their SQLSTATE)
\set VERBOSITY sqlstate
SELECT posting_union(a) FROM (VALUES ('{3,2}'::int4[])) v(a);
SELECT posting_union(a) FROM (VALUES ('{1,1}'::int4[])) v(a);
SELECT posting_union(a) FROM (VALUES ('{-1,2}'::int4[])) v(a);
SELECT posting_union(a) FROM (VALUES ('{1,NULL}'::int4[])) v(a);
SELECT posting_union(a) FROM (VALUES ('{{1,2},{3,4}}'::int4[])) v(a);
\set VERBOSITY default

-- A table partitioned by docID range (shard 1: [0, 1000000), shard 2: the
-- rest); a query's answer is the union of each shard's intersection.
CREATE TABLE dp (term int NOT NULL, shard int NOT NULL, docs posting_pfor NOT NULL)
  PARTITION BY LIST (shard);
CREATE TABLE dp_1 PARTITION OF dp FOR VALUES IN (1);
CREATE TABLE dp_2 PARTITION OF dp FOR VALUES IN (2);
INSERT INTO dp
  SELECT i, r.shard, posting_slice(posting_pfor(arr), r.lo, r.hi)
  FROM sl, (VALUES (1, 0, 1000000), (2, 1000000, 2147483648)) r(shard, lo, hi)
  WHERE length(posting_slice(posting_pfor(arr), r.lo, r.hi)) > 0;
ANALYZE dp;
SET enable_partitionwise_aggregate = on;
-- every pair and triple of terms: the partitioned answer is the global one
SELECT count(*) AS queries, count(*) FILTER (WHERE d <> s) AS wrong,
       count(*) FILTER (WHERE cardinality(s) > 0) AS nonempty
FROM (SELECT t.terms,
             coalesce((SELECT posting_intersect(posting_pfor(arr)) FROM sl
                       WHERE i = ANY (t.terms) HAVING count(*) = cardinality(t.terms)), '{}') AS s,
             (SELECT coalesce(posting_union(r), '{}') FROM (
                SELECT posting_intersect(docs) AS r FROM dp WHERE term = ANY (t.terms)
                GROUP BY shard HAVING count(*) = cardinality(t.terms)) per_shard) AS d
      FROM (SELECT ARRAY[a, b] AS terms FROM generate_series(1, 34) a, generate_series(1, 34) b WHERE a < b
            UNION ALL
            SELECT ARRAY[a, a + 1, a + 2] FROM generate_series(1, 32) a) t) q;
RESET enable_partitionwise_aggregate;
DROP TABLE dp;
