--
-- posting_rank: ranked retrieval.  Collection statistics (posting_doclen:
-- text and array forms, the aggregate, updates, accessors, errors), and
-- BM25 top-k for ranked AND and ranked OR on every type, checked against
-- a naive BM25 written in plain SQL over the token rows: the same
-- documents, in the same order, with the same float8 scores (compared
-- with =, so bit for bit).  The collection has ties (short documents
-- repeating few terms), empty documents, and queries with one term,
-- repeated terms and terms no document holds; k from 1 to beyond the
-- number of matches; statistics that do not know some documents.
--
SET jit = off;

\i sql/regress_setup.psql

-- ---------------------------------------------------------------------------
-- posting_doclen
-- ---------------------------------------------------------------------------
SELECT '{}'::posting_doclen, ' { 3 : 10 , 1:5,3:2 } '::posting_doclen;
SELECT doc_count(d), total_length(d), avg_doclen(d), doclen(d, 3),
       doclen(d, 2), doclen(d, -1), doclen(d, 100000), size_bytes(d)
FROM (SELECT '{3:10,1:5,3:2,0:0}'::posting_doclen d) s;
SELECT doc_count(d), total_length(d), avg_doclen(d) FROM (SELECT '{}'::posting_doclen d) s;
SELECT * FROM unnest('{3:10,1:5,0:0}'::posting_doclen);
SELECT posting_doclen('{5,1,5}', '{1,2,3}');
SELECT posting_doclen_set('{3:10,1:5,7:1}', '{1,2,7,9,3,3}', '{NULL,4,NULL,0,1,1}');
SELECT posting_doclen_set('{3:10}', '{3}', '{NULL}'), posting_doclen_set('{}', '{}', '{}');
SELECT posting_doclen_agg(i, 1) FROM generate_series(1, 5) i, generate_series(1, i) j;
SELECT posting_doclen_agg(i, 1) FROM generate_series(1, 0) i;
SELECT posting_doclen_agg(CASE WHEN i = 2 THEN NULL ELSE i END, i) FROM generate_series(1, 3) i;
-- widths 1, 2 and 4 bytes per document, round trips through bytea
SELECT size_bytes(d), d::bytea = posting_doclen(d::bytea)::bytea, d::text = posting_doclen(d::bytea)::text
FROM (VALUES ('{0:1,1:254}'::posting_doclen), ('{0:1,1:255}'), ('{0:1,1:65534}'),
             ('{0:1,1:65535}'), ('{0:1,1:2147483647}')) v(d);
-- building from a table of documents and keeping the statistics current
CREATE TABLE dl_docs (id int PRIMARY KEY, body text);
INSERT INTO dl_docs VALUES (1, 'a b c'), (2, 'a a'), (4, '');
CREATE TABLE dl_stats (name text PRIMARY KEY, stats posting_doclen);
INSERT INTO dl_stats
SELECT 'docs', posting_doclen_agg(id, cardinality(regexp_split_to_array(body, '\s+'))
                                      - (body = '')::int) FROM dl_docs;
CREATE FUNCTION dl_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dl_stats SET stats = posting_doclen_set(stats,
        ARRAY(SELECT id FROM gone UNION ALL SELECT id FROM born),
        ARRAY(SELECT NULL::int FROM gone UNION ALL
              SELECT cardinality(regexp_split_to_array(body, '\s+')) - (body = '')::int FROM born))
    WHERE name = 'docs';
    RETURN NULL;
END $$;
CREATE FUNCTION dl_sync_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dl_stats SET stats = posting_doclen_set(stats, ARRAY(SELECT id FROM born),
        ARRAY(SELECT cardinality(regexp_split_to_array(body, '\s+')) - (body = '')::int FROM born))
    WHERE name = 'docs';
    RETURN NULL;
END $$;
CREATE FUNCTION dl_sync_del() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE dl_stats SET stats = posting_doclen_set(stats, ARRAY(SELECT id FROM gone),
        ARRAY(SELECT NULL::int FROM gone))
    WHERE name = 'docs';
    RETURN NULL;
END $$;
CREATE TRIGGER dl_ins AFTER INSERT ON dl_docs REFERENCING NEW TABLE AS born
    FOR EACH STATEMENT EXECUTE FUNCTION dl_sync_ins();
CREATE TRIGGER dl_upd AFTER UPDATE ON dl_docs REFERENCING OLD TABLE AS gone NEW TABLE AS born
    FOR EACH STATEMENT EXECUTE FUNCTION dl_sync();
CREATE TRIGGER dl_del AFTER DELETE ON dl_docs REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION dl_sync_del();
INSERT INTO dl_docs VALUES (7, 'x y z w'), (9, 'q');
UPDATE dl_docs SET body = 'a b' WHERE id = 1;
DELETE FROM dl_docs WHERE id = 2;
SELECT stats FROM dl_stats;
SELECT stats::bytea = (SELECT posting_doclen_agg(id, cardinality(regexp_split_to_array(body, '\s+'))
                                                      - (body = '')::int) FROM dl_docs)::bytea AS current
FROM dl_stats;
-- errors
SELECT * FROM pg_temp.err($$SELECT '{1:2'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT '{1}'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT '{-1:2}'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT '{1:2147483648}'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT '{1:2} x'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT '{1:2147483647,1:1}'::posting_doclen$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{1,2}', '{1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{1,-2}', '{1,1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{1,2}', '{1,-1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{1,NULL}', '{1,1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{{1}}', '{{1}}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('{2147483647}', '{1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen_agg(1, NULL)$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen('\x0101'::bytea)$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen(set_byte('{1:2}'::posting_doclen::bytea, 40, 9))$$);
SELECT * FROM pg_temp.err($$SELECT posting_doclen(set_byte('{1:2}'::posting_doclen::bytea, 1, 3))$$);

-- ---------------------------------------------------------------------------
-- a collection: 2,000 documents of 1 to 25 tokens over 40 terms (term t
-- with probability about (2t + 1) / 1600), 10 empty documents
-- ---------------------------------------------------------------------------
CREATE TABLE rk_tokens AS
SELECT d AS docid, p AS pos, floor(sqrt(abs(hashint4(d * 1000 + p)) % 1600))::int AS term
FROM generate_series(0, 1999) d, generate_series(1, 1 + abs(hashint4(d)) % 25) p;
CREATE TABLE rk_docs AS
SELECT d AS docid, count(t.pos)::int AS len
FROM generate_series(0, 2009) d LEFT JOIN rk_tokens t ON t.docid = d GROUP BY d;
-- the reference postings: (term, docid, tf)
CREATE TABLE rk_post AS
SELECT term, docid, count(*)::int AS tf FROM rk_tokens GROUP BY term, docid;
-- one list per term and type, with its frequencies
CREATE TABLE rk_lists AS
SELECT term, posting_pfor_agg(docid, tf) AS pfor, posting_lrc_agg(docid, tf) AS lrc,
       posting_qs_agg(docid, tf) AS qs
FROM rk_post GROUP BY term;
SELECT count(*) FILTER (WHERE has_tfs(pfor) AND has_tfs(lrc) AND has_tfs(qs)) AS with_tfs,
       max((SELECT max(t) FROM unnest(tfs(pfor)) t)) AS largest_tf
FROM rk_lists;
CREATE TABLE rk_stats AS
SELECT posting_doclen_agg(docid, len) AS full_stats,
       posting_doclen_agg(docid, len) FILTER (WHERE docid % 7 <> 3) AS partial_stats
FROM rk_docs;
SELECT count(*) AS terms, min(length(pfor)) AS shortest, max(length(pfor)) AS longest
FROM rk_lists;
SELECT doc_count(full_stats), total_length(full_stats), doc_count(partial_stats)
FROM rk_stats;

-- queries: 1 to 5 terms, some repeated, some with no list (term 99)
CREATE TABLE rk_queries AS
SELECT q AS qid,
       ARRAY(SELECT CASE WHEN abs(hashint4(q * 7 + i)) % 23 = 0 THEN 99
                         WHEN i > 1 AND abs(hashint4(q * 11 + i)) % 6 = 0 THEN 17
                         ELSE floor(sqrt(abs(hashint4(q * 31 + i)) % 1600))::int END
             FROM generate_series(1, 1 + abs(hashint4(q)) % 5) i) AS terms
FROM generate_series(1, 40) q
UNION ALL VALUES (41, '{39}'::int[]), (42, '{3,3,3}'), (43, '{99}'), (44, '{0}'),
                 (45, '{39,38,37,36,35,34}'), (46, '{17,99,17}');

-- The naive BM25: per query term (in order) and posting, the formula as
-- written; summed per document in query-term order; an unknown document
-- has the average length; best first, ties by docid.
CREATE FUNCTION pg_temp.naive(terms int[], is_and bool, k int, partial bool,
                              k1 float8 DEFAULT 0.9, b float8 DEFAULT 0.4)
RETURNS TABLE (docid int, score float8) LANGUAGE sql STABLE AS $$
WITH d AS (SELECT * FROM rk_docs WHERE NOT partial OR docid % 7 <> 3),
st AS (SELECT count(*)::float8 AS n, sum(len)::float8 / count(*)::float8 AS avgdl FROM d),
q AS (SELECT t.term, t.pos FROM unnest(terms) WITH ORDINALITY t(term, pos)),
df AS (SELECT term, count(*)::float8 AS df FROM rk_post GROUP BY term),
w AS (SELECT q.pos, p.docid,
             ln(1::float8 + ((st.n - df.df) + 0.5::float8) / (df.df + 0.5::float8)) AS idf,
             p.tf::float8 AS tf,
             coalesce(d.len::float8, st.avgdl) AS dl, st.avgdl
      FROM q JOIN rk_post p USING (term) JOIN df USING (term)
      LEFT JOIN d USING (docid) CROSS JOIN st),
s AS (SELECT docid, count(*) AS nt,
             sum(idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)) ORDER BY pos) AS score
      FROM w GROUP BY docid)
SELECT docid, score FROM s WHERE NOT is_and OR nt = cardinality(terms)
ORDER BY score DESC, docid LIMIT k
$$;

-- one result row, for comparing answers as arrays
CREATE TYPE rk_hit AS (docid int, score float8);

-- the lists of a query in order (NULL for a term without one)
CREATE FUNCTION pg_temp.lists_pfor(terms int[]) RETURNS posting_pfor[] LANGUAGE sql STABLE AS $$
    SELECT array_agg(l.pfor ORDER BY u.pos) FROM unnest(terms) WITH ORDINALITY u(term, pos)
    LEFT JOIN rk_lists l USING (term) $$;
CREATE FUNCTION pg_temp.lists_lrc(terms int[]) RETURNS posting_lrc[] LANGUAGE sql STABLE AS $$
    SELECT array_agg(l.lrc ORDER BY u.pos) FROM unnest(terms) WITH ORDINALITY u(term, pos)
    LEFT JOIN rk_lists l USING (term) $$;
CREATE FUNCTION pg_temp.lists_qs(terms int[]) RETURNS posting_qs[] LANGUAGE sql STABLE AS $$
    SELECT array_agg(l.qs ORDER BY u.pos) FROM unnest(terms) WITH ORDINALITY u(term, pos)
    LEFT JOIN rk_lists l USING (term) $$;

-- every query x k x AND/OR x full/partial statistics: the naive answer
CREATE TABLE rk_want AS
SELECT q.qid, k.k, m.is_and, s.partial,
       ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, m.is_and, k.k, s.partial) n) AS want
FROM rk_queries q, (VALUES (1), (7), (10000)) k(k), (VALUES (false), (true)) m(is_and),
     (VALUES (false), (true)) s(partial);
SELECT is_and, k, sum(cardinality(want)) AS results, count(*) FILTER (WHERE cardinality(want) = 0) AS empty,
       count(*) FILTER (WHERE cardinality(want) < k) AS fewer_than_k
FROM rk_want WHERE NOT partial GROUP BY 1, 2 ORDER BY 1, 2;
-- ties: results holding equal scores
SELECT count(*) AS results_with_ties FROM rk_want
WHERE (SELECT count(DISTINCT w.score) FROM unnest(want) w) < cardinality(want);

-- the functions, every type: mismatches against the naive answer
SELECT t.typ, w.is_and, count(*) AS checks,
       count(*) FILTER (WHERE got IS DISTINCT FROM w.want) AS mismatches
FROM rk_want w JOIN rk_queries q USING (qid) CROSS JOIN rk_stats st
CROSS JOIN (VALUES ('pfor'), ('lrc'), ('qs')) t(typ)
CROSS JOIN LATERAL (
    SELECT CASE WHEN w.partial THEN st.partial_stats ELSE st.full_stats END AS stats) s
CROSS JOIN LATERAL (
    SELECT ARRAY(
        SELECT (r.docid, r.score)::rk_hit FROM (
            SELECT * FROM posting_rank_and(pg_temp.lists_pfor(q.terms), s.stats, w.k)
                WHERE t.typ = 'pfor' AND w.is_and
            UNION ALL
            SELECT * FROM posting_rank_or(pg_temp.lists_pfor(q.terms), s.stats, w.k)
                WHERE t.typ = 'pfor' AND NOT w.is_and
            UNION ALL
            SELECT * FROM posting_rank_and(pg_temp.lists_lrc(q.terms), s.stats, w.k)
                WHERE t.typ = 'lrc' AND w.is_and
            UNION ALL
            SELECT * FROM posting_rank_or(pg_temp.lists_lrc(q.terms), s.stats, w.k)
                WHERE t.typ = 'lrc' AND NOT w.is_and
            UNION ALL
            SELECT * FROM posting_rank_and(pg_temp.lists_qs(q.terms), s.stats, w.k)
                WHERE t.typ = 'qs' AND w.is_and
            UNION ALL
            SELECT * FROM posting_rank_or(pg_temp.lists_qs(q.terms), s.stats, w.k)
                WHERE t.typ = 'qs' AND NOT w.is_and) r) AS got) g
GROUP BY 1, 2 ORDER BY 1, 2;

-- other k1 and b
SELECT count(*) AS checks, count(*) FILTER (WHERE
       ARRAY(SELECT (r.docid, r.score)::rk_hit FROM posting_rank_or(pg_temp.lists_qs(q.terms),
             st.full_stats, 20, p.k1, p.b) r)
       IS DISTINCT FROM
       ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, false, 20, false, p.k1, p.b) n)
       OR
       ARRAY(SELECT (r.docid, r.score)::rk_hit FROM posting_rank_and(pg_temp.lists_pfor(q.terms),
             st.full_stats, 20, p.k1, p.b) r)
       IS DISTINCT FROM
       ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, true, 20, false, p.k1, p.b) n))
       AS mismatches
FROM rk_queries q, rk_stats st, (VALUES (0.0, 0.0), (1.2, 0.75), (2.0, 1.0), (0.5, 0.0)) p(k1, b);

-- the batch forms equal one call per query
SELECT w.is_and, count(*) AS checks, count(*) FILTER (WHERE b.got IS DISTINCT FROM w.want) AS mismatches
FROM rk_want w
LEFT JOIN (
    SELECT false AS is_and, qid, array_agg((docid, score)::rk_hit ORDER BY ord) AS got
    FROM (SELECT r.*, row_number() OVER () AS ord
          FROM rk_stats st, posting_rank_or_batch(
              ARRAY(SELECT q.qid::bigint FROM rk_queries q, unnest(q.terms) WITH ORDINALITY u(term, pos) ORDER BY q.qid, u.pos),
              ARRAY(SELECT l.lrc FROM rk_queries q, unnest(q.terms) WITH ORDINALITY u(term, pos)
                    LEFT JOIN rk_lists l USING (term) ORDER BY q.qid, u.pos),
              st.full_stats, 7) r) x
    GROUP BY qid
    UNION ALL
    SELECT true, qid, array_agg((docid, score)::rk_hit ORDER BY ord)
    FROM (SELECT r.*, row_number() OVER () AS ord
          FROM rk_stats st, posting_rank_and_batch(
              ARRAY(SELECT q.qid::bigint FROM rk_queries q, unnest(q.terms) WITH ORDINALITY u(term, pos) ORDER BY q.qid, u.pos),
              ARRAY(SELECT l.qs FROM rk_queries q, unnest(q.terms) WITH ORDINALITY u(term, pos)
                    LEFT JOIN rk_lists l USING (term) ORDER BY q.qid, u.pos),
              st.full_stats, 7) r) x
    GROUP BY qid) b ON b.qid = w.qid AND b.is_and = w.is_and
WHERE w.k = 7 AND NOT w.partial AND (cardinality(w.want) > 0 OR b.got IS NOT NULL)
GROUP BY 1 ORDER BY 1;

-- statistics stored out of line: read through the backend's cache, then
-- changed in place (same row) and read again, then after the change is
-- rolled back
CREATE TABLE rk_stored (id int PRIMARY KEY, stats posting_doclen);
INSERT INTO rk_stored SELECT 1, full_stats FROM rk_stats;
SELECT pg_relation_size(reltoastrelid) > 0 AS out_of_line FROM pg_class WHERE relname = 'rk_stored';
CREATE FUNCTION pg_temp.stored_mismatches(partial bool) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FILTER (WHERE
        ARRAY(SELECT (r.docid, r.score)::rk_hit FROM posting_rank_or(pg_temp.lists_pfor(q.terms),
              (SELECT stats FROM rk_stored WHERE id = 1), 7) r)
        IS DISTINCT FROM
        ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, false, 7, partial) n))
    FROM rk_queries q $$;
-- (the partial statistics change the answers of most queries)
SELECT count(*) FILTER (WHERE a.want IS DISTINCT FROM b.want) AS answers_differ
FROM rk_want a JOIN rk_want b USING (qid, k, is_and)
WHERE a.k = 7 AND NOT a.is_and AND NOT a.partial AND b.partial;
SELECT pg_temp.stored_mismatches(false), pg_temp.stored_mismatches(false);
UPDATE rk_stored SET stats = posting_doclen_set(stats,
    ARRAY(SELECT docid FROM rk_docs WHERE docid % 7 = 3), ARRAY(SELECT NULL::int FROM rk_docs WHERE docid % 7 = 3));
SELECT pg_temp.stored_mismatches(true);
BEGIN;
UPDATE rk_stored SET stats = (SELECT full_stats FROM rk_stats);
SELECT pg_temp.stored_mismatches(false);
ROLLBACK;
SELECT pg_temp.stored_mismatches(true);

-- ranked AND with a large k returns the intersection
SELECT count(*) AS checks, count(*) FILTER (WHERE
       ARRAY(SELECT r.docid FROM posting_rank_and(pg_temp.lists_pfor(q.terms), st.full_stats, 10000) r ORDER BY 1)
       IS DISTINCT FROM
       coalesce((SELECT posting_intersect(l.pfor) FROM unnest(q.terms) u(term) JOIN rk_lists l USING (term)
                 HAVING count(*) = cardinality(q.terms)), '{}')) AS mismatches
FROM rk_queries q, rk_stats st;

-- small cases by hand: a NULL list, an empty list, no lists
SELECT * FROM posting_rank_or(ARRAY['{1,3}'::posting_pfor, NULL, '{}'], '{1:5,3:12,5:7}');
SELECT * FROM posting_rank_and(ARRAY['{1,3}'::posting_pfor, NULL], '{1:5,3:12,5:7}');
SELECT * FROM posting_rank_and(ARRAY['{1,3}'::posting_pfor, '{}'], '{1:5,3:12,5:7}');
SELECT * FROM posting_rank_or('{}'::posting_qs[], '{1:5}');
SELECT * FROM posting_rank_or(NULL::posting_qs[], '{1:5}');
SELECT * FROM posting_rank_or_batch('{}', '{}'::posting_lrc[], '{1:5}');

-- errors
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{1:5}', 0)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{1:5}', 10001)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{1:5}', 10, -0.5)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{1:5}', 10, 'infinity')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_and(ARRAY['{1}'::posting_pfor], '{1:5}', 10, 0.9, 1.5)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_and(ARRAY['{1}'::posting_pfor], '{1:5}', 10, 0.9, 'nan')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_and(ARRAY['{1}'::posting_pfor], NULL)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_and(ARRAY['{1}'::posting_pfor], '{1:5}', NULL)$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1}'::posting_pfor], '{1:0,2:0}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY['{1,2,3}'::posting_pfor], '{1:5,2:5}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY(SELECT '{1}'::posting_lrc FROM generate_series(1, 1025)), '{1:5}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or(ARRAY[['{1}'::posting_lrc]], '{1:5}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or_batch('{1,2}', ARRAY['{1}'::posting_qs], '{1:5}')$$);
SELECT * FROM pg_temp.err($$SELECT * FROM posting_rank_or_batch('{1,NULL}', ARRAY['{1}'::posting_qs, '{1}'], '{1:5}')$$);

-- ---------------------------------------------------------------------------
-- the aggregates over list rows (posting_rank_and_agg, posting_rank_or_agg):
-- every type, all queries in one GROUP BY, against the naive answer
-- ---------------------------------------------------------------------------
CREATE FUNCTION pg_temp.hits(h posting_hit[]) RETURNS rk_hit[] LANGUAGE sql IMMUTABLE AS $$
    SELECT ARRAY(SELECT (x.docid, x.score)::rk_hit FROM unnest(h) WITH ORDINALITY x(docid, score, o) ORDER BY x.o) $$;
WITH got AS (
    SELECT w.qid, w.k, w.is_and, w.partial, t.typ,
           CASE WHEN w.is_and THEN
               CASE t.typ WHEN 'pfor' THEN posting_rank_and_agg(l.pfor, s.stats, w.k ORDER BY u.pos)
                          WHEN 'lrc' THEN posting_rank_and_agg(l.lrc, s.stats, w.k ORDER BY u.pos)
                          ELSE posting_rank_and_agg(l.qs, s.stats, w.k ORDER BY u.pos) END
           ELSE
               CASE t.typ WHEN 'pfor' THEN posting_rank_or_agg(l.pfor, s.stats, w.k ORDER BY u.pos)
                          WHEN 'lrc' THEN posting_rank_or_agg(l.lrc, s.stats, w.k ORDER BY u.pos)
                          ELSE posting_rank_or_agg(l.qs, s.stats, w.k ORDER BY u.pos) END
           END AS h
    FROM rk_want w JOIN rk_queries q USING (qid) CROSS JOIN rk_stats st
    CROSS JOIN (VALUES ('pfor'), ('lrc'), ('qs')) t(typ)
    CROSS JOIN LATERAL (
        SELECT CASE WHEN w.partial THEN st.partial_stats ELSE st.full_stats END AS stats) s
    CROSS JOIN LATERAL unnest(q.terms) WITH ORDINALITY u(term, pos)
    LEFT JOIN rk_lists l ON l.term = u.term
    GROUP BY w.qid, w.k, w.is_and, w.partial, t.typ)
SELECT g.typ, g.is_and, count(*) AS checks,
       count(*) FILTER (WHERE pg_temp.hits(g.h) IS DISTINCT FROM w.want) AS mismatches
FROM got g JOIN rk_want w USING (qid, k, is_and, partial)
GROUP BY 1, 2 ORDER BY 1, 2;

-- other k1 and b
SELECT count(*) AS checks, count(*) FILTER (WHERE
       pg_temp.hits((SELECT posting_rank_or_agg(l.qs, st.full_stats, 20, p.k1, p.b ORDER BY u.pos)
                     FROM unnest(q.terms) WITH ORDINALITY u(term, pos) LEFT JOIN rk_lists l USING (term)))
       IS DISTINCT FROM
       ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, false, 20, false, p.k1, p.b) n)
       OR
       pg_temp.hits((SELECT posting_rank_and_agg(l.lrc, st.full_stats, 20, p.k1, p.b ORDER BY u.pos)
                     FROM unnest(q.terms) WITH ORDINALITY u(term, pos) LEFT JOIN rk_lists l USING (term)))
       IS DISTINCT FROM
       ARRAY(SELECT (n.docid, n.score)::rk_hit FROM pg_temp.naive(q.terms, true, 20, false, p.k1, p.b) n))
       AS mismatches
FROM rk_queries q, rk_stats st, (VALUES (0.0, 0.0), (1.2, 0.75), (2.0, 1.0), (0.5, 0.0)) p(k1, b);

-- as rows: unnest gives (docid, score)
SELECT h.* FROM unnest((SELECT posting_rank_or_agg(l.pfor, st.full_stats, 3 ORDER BY u.pos)
                        FROM unnest('{3,17}'::int[]) WITH ORDINALITY u(term, pos)
                        JOIN rk_lists l USING (term), rk_stats st)) h
WHERE h.score > 0 ORDER BY h.score DESC, h.docid;

-- small cases: a NULL list, an empty list, no rows
SELECT posting_rank_or_agg(x, '{1:5,3:12,5:7}', 10) FROM (VALUES ('{1,3}'::posting_pfor), (NULL), ('{}')) v(x);
SELECT posting_rank_and_agg(x, '{1:5,3:12,5:7}', 10) FROM (VALUES ('{1,3}'::posting_pfor), (NULL)) v(x);
SELECT posting_rank_and_agg(x, '{1:5,3:12,5:7}', 10) FROM (VALUES ('{1,3}'::posting_qs), ('{}')) v(x);
SELECT posting_rank_and_agg(x, '{1:5,3:12,5:7}', 10) FROM (VALUES ('{1,3}'::posting_lrc)) v(x) WHERE false;

-- errors
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{1:5}', 0) FROM (VALUES ('{1}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{1:5}', 10, 0.9, 1.5) FROM (VALUES ('{1}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, NULL, 10) FROM (VALUES ('{1}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{1:5}', NULL) FROM (VALUES ('{1}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{1:5}', k) FROM (VALUES ('{1}'::posting_qs, 5), ('{1}', 6)) v(x, k)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_and_agg(x, s::posting_doclen, 5) FROM (VALUES ('{1}'::posting_lrc, '{1:5}'), ('{1}', '{1:6}')) v(x, s)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{}', 10) FROM (VALUES ('{1}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg(x, '{1:5,2:5}', 10) FROM (VALUES ('{1,2,3}'::posting_pfor)) v(x)$$);
SELECT * FROM pg_temp.err($$SELECT posting_rank_or_agg('{1}'::posting_qs, '{1:5}', 10) FROM generate_series(1, 1025)$$);
