--
-- posting_tf: term frequencies in the three types (format v2 tf section).
-- T(docids, tfs), T_agg(docid, tf) (serial and parallel), tfs(T),
-- has_tfs(T), unnest_tf(T); building from full-text search in one
-- statement; every existing function on lists with frequencies (docIDs
-- only; set algebra results carry none; casts keep them); errors.  Checked
-- against naive SQL over the (term, docid, tf) rows; every check prints
-- counts of mismatches.
--
SET jit = off;
\i sql/regress_setup.psql

-- small values, every type: order, repeats adding up, edges of the range
SELECT docids(posting_pfor('{5,1,3,1}', '{2,1,7,4}')), tfs(posting_pfor('{5,1,3,1}', '{2,1,7,4}'));
SELECT tfs(posting_lrc('{}', '{}')), has_tfs(posting_lrc('{}', '{}')), length(posting_lrc('{}', '{}'));
SELECT tfs(posting_qs('{0}', '{2147483647}')), docids(posting_qs('{2147483647}', '{1}'));
SELECT tfs(posting_qs('{7,9}', '{1,1}')), has_tfs(posting_qs('{7,9}', '{1,1}'));
SELECT tfs(posting_pfor('{1,2,3}')) AS without, has_tfs(posting_pfor('{1,2,3}')) AS has;
SELECT * FROM unnest_tf(posting_lrc('{10,3,10}', '{1,2,3}'));
SELECT * FROM unnest_tf(posting_lrc('{10,3}'));
SELECT * FROM unnest(posting_qs('{10,3}', '{4,5}'));
SELECT posting_pfor_agg(d, t) IS NULL AS no_rows FROM (VALUES (NULL::int, 3)) v(d, t);

-- the text form: docid:tf pairs, read back in any order, repeats adding up
SELECT posting_qs('{5,1,3,1}', '{2,1,7,4}')::text, ' { 3:2, 1:1 ,3 : 5}'::posting_pfor::text,
       tfs('{3:2,1:1,3:5}'::posting_lrc), posting_pfor('{1,2}')::text;
SELECT * FROM pg_temp.err($$SELECT '{1:2,3}'::posting_qs$$);
SELECT * FROM pg_temp.err($$SELECT '{1,3:1}'::posting_qs$$);
SELECT * FROM pg_temp.err($$SELECT '{1:0}'::posting_lrc$$);
SELECT * FROM pg_temp.err($$SELECT '{1:-2}'::posting_lrc$$);
SELECT * FROM pg_temp.err($$SELECT '{1:2147483648}'::posting_pfor$$);
SELECT * FROM pg_temp.err($$SELECT '{1:}'::posting_pfor$$);
SELECT * FROM pg_temp.err($$SELECT '{1:2147483647,1:1}'::posting_pfor$$);

-- errors
SELECT * FROM pg_temp.err($$SELECT posting_pfor('{1,2}', '{1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_pfor('{1,2}', '{1,0}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_lrc('{1,-2}', '{1,1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_qs('{1,NULL}', '{1,1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_qs('{1,2}', '{1,NULL}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_qs('{{1}}', '{{1}}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_qs('{4,4}', '{2147483647,1}')$$);
SELECT * FROM pg_temp.err($$SELECT posting_pfor_agg(d, t) FROM (VALUES (1, NULL::int)) v(d, t)$$);
SELECT * FROM pg_temp.err($$SELECT posting_pfor_agg(d, t) FROM (VALUES (1, -3)) v(d, t)$$);

-- random postings: (term, docid, tf), lists of 1 to a few thousand docIDs
CREATE TABLE tf_post AS
SELECT term, docid,
       CASE WHEN abs(hashint4(term * 7919 + docid)) % 1000 = 0 THEN 2147483647 - abs(hashint4(docid)) % 3
            ELSE 1 + (abs(hashint4(term * 31 + docid)) % 5) * (abs(hashint4(docid)) % 3) END AS tf
FROM generate_series(1, 30) term,
     LATERAL (SELECT d AS docid FROM generate_series(0, 200000) d
              WHERE abs(hashint4(d * 131 + term)) % (1 + term * term * 3) = 0) s;
SELECT count(*) AS terms, min(n) AS shortest, max(n) AS longest, max(mx) AS largest_tf
FROM (SELECT term, count(*) AS n, max(tf) AS mx FROM tf_post GROUP BY term) t;
CREATE TABLE tf_ref AS
SELECT term, array_agg(docid ORDER BY docid) AS docs, array_agg(tf ORDER BY docid) AS tfs
FROM tf_post GROUP BY term;
-- the aggregates (rows in random order, some rows split in two) and the
-- array constructors, against the reference arrays
CREATE TABLE tf_lists AS
SELECT term, posting_pfor_agg(docid, tf) AS pfor, posting_lrc_agg(docid, tf) AS lrc,
       posting_qs_agg(docid, tf) AS qs
FROM (SELECT * FROM (
          SELECT term, docid, tf FROM tf_post WHERE tf = 1 OR docid % 2 = 0
          UNION ALL SELECT term, docid, 1 FROM tf_post WHERE tf > 1 AND docid % 2 = 1
          UNION ALL SELECT term, docid, tf - 1 FROM tf_post WHERE tf > 1 AND docid % 2 = 1) u
      ORDER BY hashint4(docid * 17 + term)) r
GROUP BY term;
SELECT count(*) AS checks,
       count(*) FILTER (WHERE docids(l.pfor) <> r.docs OR docids(l.lrc) <> r.docs OR docids(l.qs) <> r.docs) AS docid_mismatches,
       count(*) FILTER (WHERE tfs(l.pfor) <> r.tfs OR tfs(l.lrc) <> r.tfs OR tfs(l.qs) <> r.tfs) AS tf_mismatches,
       count(*) FILTER (WHERE NOT (has_tfs(l.pfor) AND has_tfs(l.lrc) AND has_tfs(l.qs))) AS without_tfs,
       count(*) FILTER (WHERE posting_pfor(r.docs, r.tfs)::bytea <> l.pfor::bytea
                           OR posting_lrc(r.docs, r.tfs)::bytea <> l.lrc::bytea
                           OR posting_qs(r.docs, r.tfs)::bytea <> l.qs::bytea) AS constructor_mismatches
FROM tf_lists l JOIN tf_ref r USING (term);
-- text round trips keep docIDs and frequencies, byte for byte
SELECT count(*) FILTER (WHERE l.pfor::text::posting_pfor::bytea <> l.pfor::bytea
                           OR l.lrc::text::posting_lrc::bytea <> l.lrc::bytea
                           OR l.qs::text::posting_qs::bytea <> l.qs::bytea) AS text_mismatches
FROM tf_lists l;
-- unnest_tf against the rows
SELECT count(*) AS mismatches FROM (
    (SELECT l.term, u.docid, u.tf FROM tf_lists l, unnest_tf(l.qs) u
     EXCEPT ALL SELECT term, docid, tf FROM tf_post)
    UNION ALL
    (SELECT term, docid, tf FROM tf_post
     EXCEPT ALL SELECT l.term, u.docid, u.tf FROM tf_lists l, unnest_tf(l.lrc) u)) x;
-- parallel aggregation gives the same values
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT pg_temp.plan_has($$SELECT term, posting_qs_agg(docid, tf) FROM tf_post GROUP BY term$$, 'Partial') AS parallel_plan;
SELECT count(*) FILTER (WHERE p.l::bytea <> t.qs::bytea) AS parallel_mismatches
FROM (SELECT term, posting_qs_agg(docid, tf) AS l FROM tf_post GROUP BY term) p JOIN tf_lists t USING (term);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the other functions read the docIDs: the same answers as lists without
-- frequencies built from the same docIDs
CREATE TABLE tf_plain AS
SELECT term, posting_pfor(docs) AS pfor, posting_lrc(docs) AS lrc, posting_qs(docs) AS qs FROM tf_ref;
SELECT count(*) AS checks,
       count(*) FILTER (WHERE length(a.pfor) <> length(b.pfor) OR first_docid(a.lrc) <> first_docid(b.lrc)
                           OR last_docid(a.qs) <> last_docid(b.qs)
                           OR nth(a.pfor, 3) IS DISTINCT FROM nth(b.pfor, 3)
                           OR contains(a.lrc, 777) <> contains(b.lrc, 777)
                           OR a.qs <> b.qs OR a.pfor <> b.lrc
                           OR rank(a.qs, 100000) <> rank(b.qs, 100000)
                           OR ARRAY(SELECT unnest(a.pfor)) <> docids(b.pfor)) AS mismatches,
       count(*) FILTER (WHERE size_bytes(a.pfor) <= size_bytes(b.pfor)) AS not_larger
FROM tf_lists a JOIN tf_plain b USING (term);
-- pairwise operators, set algebra (results without frequencies), casts
-- (which keep them)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE (a.pfor & b.qs) <> (a2.pfor & b2.qs)
                           OR (a.lrc && b.lrc) <> (a2.lrc && b2.lrc)
                           OR (a.qs | b.pfor)::int4[] <> (a2.qs | b2.pfor)::int4[]
                           OR (a.pfor - b.lrc)::int4[] <> (a2.pfor - b2.lrc)::int4[]) AS mismatches,
       count(*) FILTER (WHERE has_tfs(a.qs | b.pfor) OR has_tfs(a.pfor - b.lrc)) AS results_with_tfs
FROM tf_lists a JOIN tf_plain a2 USING (term), tf_lists b JOIN tf_plain b2 USING (term)
WHERE a.term < b.term AND (a.term + b.term) % 5 = 0;
SELECT count(*) FILTER (WHERE tfs(l.pfor::posting_qs) <> r.tfs OR tfs(l.qs::posting_lrc) <> r.tfs
                           OR tfs(l.lrc::posting_pfor) <> r.tfs) AS cast_mismatches
FROM tf_lists l JOIN tf_ref r USING (term);
-- posting_slice keeps the frequencies of its postings
SELECT count(*) FILTER (WHERE tfs(posting_slice(l.qs, 1000, 150000)) IS DISTINCT FROM
                              ARRAY(SELECT tf FROM tf_post p WHERE p.term = l.term AND p.docid >= 1000
                                    AND p.docid < 150000 ORDER BY docid)
                           OR docids(posting_slice(l.pfor, 0, 2147483647)) <> docids(l.pfor)
                           OR tfs(posting_slice(l.pfor, 0, 2147483647)) <> tfs(l.pfor)) AS slice_mismatches
FROM tf_lists l;
SELECT has_tfs(posting_add(posting_qs('{1,5}', '{2,3}'), '{9}')) AS after_add,
       docids(posting_add(posting_qs('{1,5}', '{2,3}'), '{9}'));
-- the AND aggregate ignores frequencies
SELECT posting_intersect(pfor, 2) = (SELECT posting_intersect(pfor, 2) FROM tf_plain WHERE term IN (1, 2)) AS same
FROM tf_lists WHERE term IN (1, 2);

-- from full-text search, one statement: tf = the number of positions
CREATE TABLE tf_docs (id int PRIMARY KEY, body text, tsv tsvector);
INSERT INTO tf_docs
SELECT i, b, to_tsvector('english', b) FROM (
    SELECT i, string_agg(w, ' ') AS b
    FROM generate_series(1, 300) i,
         LATERAL (SELECT (ARRAY['graph', 'index', 'posting', 'query', 'block', 'score',
                                'token', 'device', 'kernel', 'frequency'])[1 + abs(hashint4(i * 100 + j)) % (1 + i % 10)] AS w
                  FROM generate_series(1, 1 + i % 17) j) x
    GROUP BY i) d;
CREATE TABLE tf_fts AS
SELECT u.lexeme, posting_pfor_agg(d.id, cardinality(u.positions)) AS postings
FROM tf_docs d, unnest(d.tsv) u GROUP BY u.lexeme;
SELECT count(*) AS lexemes, sum(length(postings)) AS postings FROM tf_fts;
SELECT count(*) AS mismatches FROM (
    (SELECT f.lexeme, t.docid, t.tf FROM tf_fts f, unnest_tf(f.postings) t
     EXCEPT ALL
     SELECT w.word, d.id, w.nentry FROM tf_docs d, ts_stat(format('SELECT tsv FROM tf_docs WHERE id = %s', d.id)) w)
    UNION ALL
    (SELECT w.word, d.id, w.nentry FROM tf_docs d, ts_stat(format('SELECT tsv FROM tf_docs WHERE id = %s', d.id)) w
     EXCEPT ALL
     SELECT f.lexeme, t.docid, t.tf FROM tf_fts f, unnest_tf(f.postings) t)) x;

DROP TABLE tf_post, tf_ref, tf_lists, tf_plain, tf_docs, tf_fts;
