-- posting_intersect under grouping sets, sorted and spilled hash
-- aggregation, correlated subqueries and several aggregates per group:
-- each query prints its group count and the groups that differ from a
-- naive reference (docIDs present in every list of the group).
\i sql/regress_setup.psql
SELECT setseed(0.42) IS NULL AS seeded;
CREATE TABLE p AS
  SELECT g1, g2, t, posting_pfor(array(SELECT (random()*2000)::int FROM generate_series(1, 300 + (random()*700)::int))) AS docs
  FROM generate_series(1,6) g1, generate_series(1,5) g2, generate_series(1,3) t;
-- reference: docids present in every list of the group
CREATE FUNCTION ref(lists posting_pfor[]) RETURNS int4[] LANGUAGE sql AS $$
  SELECT coalesce(array_agg(d ORDER BY d), '{}') FROM (
    SELECT d FROM unnest(lists) l, unnest(l) d GROUP BY d HAVING count(*) = cardinality(lists)) s $$;
SET enable_hashagg = off;
SELECT 'rollup sorted', count(*) AS groups, count(*) FILTER (WHERE coalesce(posting_intersect, '{}') <> ref) AS mismatches FROM (
  SELECT g1, g2, posting_intersect(docs), ref(array_agg(docs)) FROM p GROUP BY ROLLUP (g1, g2)) s;
RESET enable_hashagg;
SELECT 'grouping sets mixed', count(*), count(*) FILTER (WHERE coalesce(posting_intersect, '{}') <> ref) FROM (
  SELECT g1, g2, posting_intersect(docs), ref(array_agg(docs)) FROM p GROUP BY GROUPING SETS ((g1), (g2), (g1, g2), ())) s;
SELECT 'cube', count(*), count(*) FILTER (WHERE coalesce(posting_intersect, '{}') <> ref) FROM (
  SELECT g1, g2, posting_intersect(docs), ref(array_agg(docs)) FROM p GROUP BY CUBE (g1, g2)) s;
SELECT 'correlated', count(*), count(*) FILTER (WHERE x <> y) FROM (
  SELECT g1, (SELECT coalesce(posting_intersect(docs), '{}') FROM p p2 WHERE p2.g1 = o.g1 AND p2.t <= 2) x,
             (SELECT ref(array_agg(docs)) FROM p p2 WHERE p2.g1 = o.g1 AND p2.t <= 2) y
  FROM generate_series(1,6) o(g1)) s;
SELECT 'two aggs', count(*), count(*) FILTER (WHERE a <> ref OR b <> ref2) FROM (
  SELECT g1, coalesce(posting_intersect(docs), '{}') a, ref(array_agg(docs)) ref,
         coalesce(posting_intersect(docs) FILTER (WHERE t < 3), '{}') b, ref(array_agg(docs) FILTER (WHERE t < 3)) ref2
  FROM p GROUP BY g1) s;
SET work_mem = '64kB';
SELECT 'spilled hashagg', count(*), count(*) FILTER (WHERE coalesce(posting_intersect, '{}') <> ref) FROM (
  SELECT g1, g2, t, posting_intersect(docs), ref(array_agg(docs)) FROM p, generate_series(1,40) k GROUP BY g1, g2, t, k) s;
DROP TABLE p;
DROP FUNCTION ref(posting_pfor[]);
