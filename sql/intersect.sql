-- posting_intersect / posting_intersect_count / posting_intersect_batch:
-- semantics, every type, errors.  The answers are the same whether the
-- executor (shared_preload_libraries = 'gpuidx') or the backend computes them.
CREATE TEMP TABLE il (g int, t text, arr int4[]);
INSERT INTO il VALUES
  (1, 'a', '{1,2,3,4,5,6,7,8,9,10}'), (1, 'b', '{2,4,6,8,10,12}'), (1, 'c', '{4,8,12,16}'),
  (2, 'a', '{0,2147483647}'), (2, 'b', '{0,5,2147483647}'),
  (3, 'a', '{1,3,5}'), (3, 'b', '{2,4,6}'),
  (4, 'a', '{7,9,11}'),
  (5, 'a', NULL), (5, 'b', '{1,2}'),
  (6, 'a', NULL),
  (7, 'a', '{}'), (7, 'b', '{1}');
-- every type gives the same answers
SELECT g, posting_intersect(arr::posting_pfor) AS pfor,
       posting_intersect(arr::posting_lrc) IS NOT DISTINCT FROM posting_intersect(arr::posting_pfor) AS lrc_same,
       posting_intersect(arr::posting_qs) IS NOT DISTINCT FROM posting_intersect(arr::posting_pfor) AS qs_same,
       posting_intersect_count(arr::posting_qs) AS n
FROM il GROUP BY g ORDER BY g;
-- no rows, NULL only
SELECT posting_intersect(arr::posting_pfor) FROM il WHERE false;
SELECT posting_intersect_count(NULL::posting_lrc);
-- longer lists: multiples of 6 and 10 below 100000 share the multiples of 30
SELECT cardinality(posting_intersect(d)), (posting_intersect(d))[1:3]
FROM (VALUES (posting_qs(ARRAY(SELECT g FROM generate_series(0, 99999, 6) g))),
             (posting_qs(ARRAY(SELECT g FROM generate_series(0, 99999, 10) g)))) v(d);
-- window use
SELECT g, posting_intersect(arr::posting_lrc) OVER (ORDER BY g, t ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM il WHERE g <= 3 ORDER BY g, t;
-- the batch function: rows paired by position, one row per query id
SELECT * FROM posting_intersect_batch(ARRAY[3, 1, 3, 1, 2, 9]::bigint[],
  ARRAY['{1,2,3}', '{5,6}', '{2,3,4}', '{6,7}', '{}', NULL]::posting_pfor[]);
SELECT * FROM posting_intersect_batch('{}'::bigint[], '{}'::posting_qs[]);
SELECT count(*) FROM posting_intersect_batch(NULL, '{}'::posting_lrc[]);
SELECT * FROM posting_intersect_batch(ARRAY[1, 2]::bigint[], ARRAY['{1}']::posting_lrc[]);
SELECT * FROM posting_intersect_batch(ARRAY[NULL]::bigint[], ARRAY['{1}']::posting_lrc[]);
-- parallel-safe aggregates with combine, serialize and deserialize
SELECT aggfnoid::regprocedure, aggcombinefn, aggserialfn, aggdeserialfn, p.proparallel
FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
WHERE p.proname LIKE 'posting_intersect%' ORDER BY 1::text;
-- fault injection is for superusers; unknown faults are rejected
SELECT gpuidx_inject_fault('explode');
