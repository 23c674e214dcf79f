--
-- posting_v1values: values written by gpuidx 0.1 (format version 1) stay
-- readable by every function, and mix with the version 2 values that
-- every constructor writes now.  The fixture (test/fixtures/format_v1.sql,
-- produced by the 0.1 encoder) holds ten lists in each of the three types:
-- empty, 0, 2^31-1, {0, 2^31-1}, small, one and several blocks, dense,
-- clustered, spread over the whole range.
--
\set ECHO none
\i test/fixtures/format_v1.sql
\set ECHO all

SELECT count(*) AS lists, sum(cardinality(docs)) AS docids FROM fixture_v1_lists;

-- one row per list and type: the version 1 value (through the bytea cast,
-- which validates it) and the same list written now
CREATE TEMP TABLE v1 AS
SELECT v.name, v.codec, l.docs, v.blob,
       CASE v.codec WHEN 'pfor' THEN v.blob::posting_pfor END AS pf,
       CASE v.codec WHEN 'lrc' THEN v.blob::posting_lrc END AS lr,
       CASE v.codec WHEN 'qs' THEN v.blob::posting_qs END AS qs,
       CASE v.codec WHEN 'pfor' THEN l.docs::posting_pfor END AS pf2,
       CASE v.codec WHEN 'lrc' THEN l.docs::posting_lrc END AS lr2,
       CASE v.codec WHEN 'qs' THEN l.docs::posting_qs END AS qs2
FROM fixture_v1_values v JOIN fixture_v1_lists l USING (name);

-- every fixture value is version 1 and is stored as it is; every value
-- written now is version 2 (first byte >= 128)
SELECT codec, count(*) AS lists,
       count(*) FILTER (WHERE get_byte(blob, 0) = 1) AS v1_bytes,
       count(*) FILTER (WHERE coalesce(pf::bytea, lr::bytea, qs::bytea) = blob) AS stored_as_is,
       count(*) FILTER (WHERE get_byte(coalesce(pf2::bytea, lr2::bytea, qs2::bytea), 0) >= 128) AS new_v2
FROM v1 GROUP BY codec ORDER BY codec;

-- text output, docids, the int4[] cast, unnest, and the accessors, against
-- the fixture's lists and against the version 2 values
SELECT codec,
       count(*) FILTER (WHERE coalesce(pf::text, lr::text, qs::text)
                              IS DISTINCT FROM coalesce(pf2::text, lr2::text, qs2::text)) AS text_bad,
       count(*) FILTER (WHERE coalesce(docids(pf), docids(lr), docids(qs)) <> docs) AS docids_bad,
       count(*) FILTER (WHERE coalesce(pf::int4[], lr::int4[], qs::int4[]) <> docs) AS cast_bad,
       count(*) FILTER (WHERE CASE codec WHEN 'pfor' THEN ARRAY(SELECT unnest(pf))
                                         WHEN 'lrc' THEN ARRAY(SELECT unnest(lr))
                                         ELSE ARRAY(SELECT unnest(qs)) END <> docs) AS unnest_bad,
       count(*) FILTER (WHERE coalesce(length(pf), length(lr), length(qs)) <> cardinality(docs)) AS length_bad,
       count(*) FILTER (WHERE coalesce(first_docid(pf), first_docid(lr), first_docid(qs))
                                  IS DISTINCT FROM docs[1]
                           OR coalesce(last_docid(pf), last_docid(lr), last_docid(qs))
                                  IS DISTINCT FROM docs[cardinality(docs)]) AS ends_bad,
       count(*) FILTER (WHERE coalesce(size_bytes(pf), size_bytes(lr), size_bytes(qs)) <> octet_length(blob)) AS size_bad,
       count(*) FILTER (WHERE coalesce(bits_per_docid(pf), bits_per_docid(lr), bits_per_docid(qs))
                                  IS DISTINCT FROM 8.0::float8 * octet_length(blob) / nullif(cardinality(docs), 0)) AS bits_bad,
       count(*) FILTER (WHERE coalesce(codec(pf), codec(lr), codec(qs)) <> codec) AS codec_bad,
       count(*) FILTER (WHERE coalesce(posting_pfor_send(pf), posting_lrc_send(lr), posting_qs_send(qs)) <> blob) AS send_bad
FROM v1 GROUP BY codec ORDER BY codec;

-- nth of every element, contains / @> / <@ of every element, of its
-- neighbours and of 0 and 2^31-1
SELECT v.codec,
       count(*) FILTER (WHERE coalesce(nth(pf, i), nth(lr, i), nth(qs, i)) <> docs[i]) AS nth_bad,
       count(*) FILTER (WHERE NOT coalesce(contains(pf, docs[i]), contains(lr, docs[i]), contains(qs, docs[i]))
                           OR NOT coalesce(pf @> docs[i], lr @> docs[i], qs @> docs[i])
                           OR NOT coalesce(docs[i] <@ pf, docs[i] <@ lr, docs[i] <@ qs)) AS member_bad
FROM v1 v, generate_subscripts(v.docs, 1) i
GROUP BY v.codec ORDER BY v.codec;
SELECT v.codec, count(*) AS probes,
       count(*) FILTER (WHERE coalesce(pf @> x, lr @> x, qs @> x) <> (x = ANY (docs))) AS bad
FROM v1 v, LATERAL (SELECT (d::bigint + k)::int4 FROM unnest(v.docs) d, (VALUES (-1), (1)) o(k)
                    WHERE d::bigint + k BETWEEN 0 AND 2147483647
                    UNION SELECT 0 UNION SELECT 2147483647) p(x)
GROUP BY v.codec ORDER BY v.codec;

-- casts between the types decode version 1 and write version 2
SELECT codec,
       count(*) FILTER (WHERE coalesce(pf::posting_lrc::int4[], lr::posting_qs::int4[],
                                       qs::posting_pfor::int4[]) <> docs) AS recode_bad,
       count(*) FILTER (WHERE get_byte(coalesce(pf::posting_lrc::bytea, lr::posting_qs::bytea,
                                                qs::posting_pfor::bytea), 0) < 128) AS recode_not_v2
FROM v1 GROUP BY codec ORDER BY codec;

-- slices: the same docIDs as the version 2 value's slice
SELECT v.codec, count(*) AS slices,
       count(*) FILTER (WHERE coalesce(docids(posting_slice(pf, lo, hi)), docids(posting_slice(lr, lo, hi)),
                                       docids(posting_slice(qs, lo, hi)))
                              <> coalesce(docids(posting_slice(pf2, lo, hi)), docids(posting_slice(lr2, lo, hi)),
                                          docids(posting_slice(qs2, lo, hi)))) AS bad
FROM v1 v, (VALUES (0, 1), (0, 2147483648), (1000, 2000), (5000, 1100000),
                   (1, 2147483647), (2147483647, 2147483648)) s(lo, hi)
GROUP BY v.codec ORDER BY v.codec;

-- pairwise intersections and overlaps, version 1 with version 1 and with
-- version 2, against the intersection of the arrays
CREATE FUNCTION pg_temp.isect(a int4[], b int4[]) RETURNS int4[] LANGUAGE sql AS $$
    SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM (SELECT unnest(a) INTERSECT SELECT unnest(b)) s(x)
$$;
SELECT a.codec AS a, b.codec AS b, count(*) AS pairs,
       count(*) FILTER (WHERE coalesce((a.pf & b.pf), (a.pf & b.lr), (a.pf & b.qs),
                                       (a.lr & b.pf), (a.lr & b.lr), (a.lr & b.qs),
                                       (a.qs & b.pf), (a.qs & b.lr), (a.qs & b.qs))
                              <> pg_temp.isect(a.docs, b.docs)) AS v1_v1_bad,
       count(*) FILTER (WHERE coalesce((a.pf & b.pf2), (a.pf & b.lr2), (a.pf & b.qs2),
                                       (a.lr & b.pf2), (a.lr & b.lr2), (a.lr & b.qs2),
                                       (a.qs & b.pf2), (a.qs & b.lr2), (a.qs & b.qs2))
                              <> pg_temp.isect(a.docs, b.docs)) AS v1_v2_bad,
       count(*) FILTER (WHERE coalesce(a.pf && b.pf2, a.pf && b.lr2, a.pf && b.qs2,
                                       a.lr && b.pf2, a.lr && b.lr2, a.lr && b.qs2,
                                       a.qs && b.pf2, a.qs && b.lr2, a.qs && b.qs2)
                              <> (cardinality(pg_temp.isect(a.docs, b.docs)) > 0)) AS overlap_bad
FROM v1 a, v1 b GROUP BY a.codec, b.codec ORDER BY a.codec, b.codec;

-- the intersection aggregates over version 1 and version 2 values at once:
-- for every pair of lists, the pfor column of one and the qs of the other
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE r.docs IS DISTINCT FROM pg_temp.isect(a.docs, b.docs)) AS agg_bad,
       count(*) FILTER (WHERE r.cnt <> cardinality(pg_temp.isect(a.docs, b.docs))) AS count_bad
FROM fixture_v1_lists a, fixture_v1_lists b,
     LATERAL (SELECT posting_intersect(p) AS docs, posting_intersect_count(p) AS cnt
              FROM (SELECT pf FROM v1 WHERE name = a.name AND codec = 'pfor'
                    UNION ALL SELECT pf2 FROM v1 WHERE name = b.name AND codec = 'pfor') s(p)) r;
SELECT count(*) AS pairs, count(*) FILTER (WHERE r.docs IS DISTINCT FROM pg_temp.isect(a.docs, b.docs)) AS bad
FROM fixture_v1_lists a, fixture_v1_lists b,
     LATERAL (SELECT posting_intersect(p) AS docs
              FROM (SELECT qs FROM v1 WHERE name = a.name AND codec = 'qs'
                    UNION ALL SELECT b.docs::posting_qs) s(p)) r;

-- posting_intersect_batch over version 1 lists of every pair
WITH p AS (SELECT row_number() OVER (ORDER BY a.name, b.name) AS q, a.name AS an, b.name AS bn,
                  a.docs AS ad, b.docs AS bd
           FROM fixture_v1_lists a, fixture_v1_lists b),
     args AS (SELECT array_agg(p.q ORDER BY p.q, k.k) AS qids,
                     array_agg(CASE k.k WHEN 1 THEN x.lr ELSE y.lr END ORDER BY p.q, k.k) AS lists
              FROM p, (VALUES (1), (2)) k(k), v1 x, v1 y
              WHERE x.name = p.an AND x.codec = 'lrc' AND y.name = p.bn AND y.codec = 'lrc')
SELECT count(*) AS queries,
       count(*) FILTER (WHERE coalesce(r.docs, '{}') <> pg_temp.isect(p.ad, p.bd)) AS bad
FROM p LEFT JOIN (SELECT b.* FROM args, posting_intersect_batch(args.qids, args.lists) b) r
     ON r.qid = p.q;

-- binary COPY round trip keeps version 1 bytes
CREATE TEMP TABLE v1_copy (name text, pf posting_pfor, lr posting_lrc, qs posting_qs);
\copy (SELECT name, pf, lr, qs FROM v1) TO 'results/posting_v1values.bin' WITH (FORMAT binary)
\copy v1_copy FROM 'results/posting_v1values.bin' WITH (FORMAT binary)
SELECT count(*) AS rows,
       count(*) FILTER (WHERE c.pf::bytea IS DISTINCT FROM v.pf::bytea OR c.lr::bytea IS DISTINCT FROM v.lr::bytea
                           OR c.qs::bytea IS DISTINCT FROM v.qs::bytea) AS changed
FROM v1 v JOIN v1_copy c ON c.name = v.name
     AND coalesce(c.pf::bytea, c.lr::bytea, c.qs::bytea) = coalesce(v.pf::bytea, v.lr::bytea, v.qs::bytea);

-- a table of version 1 values keeps working: updates write version 2
CREATE TEMP TABLE postings AS SELECT name, qs FROM v1 WHERE codec = 'qs';
UPDATE postings SET qs = qs::int4[]::posting_qs WHERE name IN ('small7', 'runs257');
SELECT name, get_byte(qs::bytea, 0) >= 128 AS v2, length(qs), first_docid(qs), last_docid(qs)
FROM postings ORDER BY name;

-- constructors and aggregates write version 2; short values are stored
-- with a 1-byte header (at most 126 bytes of value)
CREATE TEMP TABLE short (pf posting_pfor, lr posting_lrc, qs posting_qs);
INSERT INTO short SELECT a, a, a FROM (VALUES ('{}'::int4[]), ('{5}'), ('{0,2147483647}'),
                                              ('{7,9,100,1000}'), (ARRAY(SELECT generate_series(10, 25))),
                                              (ARRAY(SELECT x * 997 FROM generate_series(1, 20) x))) v(a);
INSERT INTO short SELECT posting_pfor_agg(x), posting_lrc_agg(x), posting_qs_agg(x)
FROM generate_series(3, 300, 7) x;
SELECT length(pf) AS n, octet_length(pf::bytea) AS pfor_bytes, octet_length(lr::bytea) AS lrc_bytes,
       octet_length(qs::bytea) AS qs_bytes,
       pg_column_size(pf) - octet_length(pf::bytea) AS pfor_header,
       pg_column_size(qs) - octet_length(qs::bytea) AS qs_header,
       get_byte(pf::bytea, 0) >= 128 AND get_byte(lr::bytea, 0) >= 128
           AND get_byte(qs::bytea, 0) >= 128 AS v2
FROM short ORDER BY 1, 2;

-- values stored out of line (toast_tuple_target 128): the header accessors
-- read a slice of the value, or all of a one-block version 2 value, which
-- keeps its last docID at its end; the one-block list of 200 docIDs is
-- 600-odd bytes, the others have several blocks
CREATE TEMP TABLE toasted (name text, ver int, docs int4[], qs posting_qs, pf posting_pfor)
    WITH (toast_tuple_target = 128);
INSERT INTO toasted
SELECT 'spread200', 2, a, a::posting_qs, a::posting_pfor
FROM (SELECT ARRAY(SELECT (i * 5368709)::int4 FROM generate_series(1, 200) i) AS a) s;
INSERT INTO toasted
SELECT name, 1, docs, blob::posting_qs, NULL FROM v1 WHERE codec = 'qs' AND cardinality(docs) > 100;
INSERT INTO toasted
SELECT name, 2, docs, docs::posting_qs, docs::posting_pfor FROM v1 WHERE codec = 'qs' AND cardinality(docs) > 100;
SELECT name, ver, pg_column_size(qs) = size_bytes(qs) AS out_of_line,
       length(qs) = cardinality(docs) AND first_docid(qs) = docs[1]
           AND last_docid(qs) = docs[cardinality(docs)] AS qs_header_ok,
       pf IS NULL OR (length(pf) = cardinality(docs) AND first_docid(pf) = docs[1]
                      AND last_docid(pf) = docs[cardinality(docs)]) AS pfor_header_ok,
       docids(qs) = docs AS qs_docids_ok, posting_slice(qs, 0, 2147483648)::int4[] = docs AS slice_ok
FROM toasted ORDER BY name, ver;

-- across versions (equality compares docIDs, not bytes): a version 1 value
-- and the same docIDs written as version 2, of the same type or another,
-- are =, not <>, compare 0 and hash alike, though their bytes differ
SELECT a.codec AS v1, b.codec AS v2, count(*) AS lists,
       count(*) FILTER (WHERE coalesce(a.pf = b.pf2, a.pf = b.lr2, a.pf = b.qs2,
                                       a.lr = b.pf2, a.lr = b.lr2, a.lr = b.qs2,
                                       a.qs = b.pf2, a.qs = b.lr2, a.qs = b.qs2)) AS eq,
       count(*) FILTER (WHERE coalesce(a.pf <> b.pf2, a.pf <> b.lr2, a.pf <> b.qs2,
                                       a.lr <> b.pf2, a.lr <> b.lr2, a.lr <> b.qs2,
                                       a.qs <> b.pf2, a.qs <> b.lr2, a.qs <> b.qs2)) AS ne,
       count(*) FILTER (WHERE coalesce(posting_cmp(a.pf, b.pf2), posting_cmp(a.pf, b.lr2),
                                       posting_cmp(a.pf, b.qs2), posting_cmp(a.lr, b.pf2),
                                       posting_cmp(a.lr, b.lr2), posting_cmp(a.lr, b.qs2),
                                       posting_cmp(a.qs, b.pf2), posting_cmp(a.qs, b.lr2),
                                       posting_cmp(a.qs, b.qs2)) = 0) AS cmp0,
       count(*) FILTER (WHERE coalesce(posting_hash(a.pf), posting_hash(a.lr), posting_hash(a.qs)) =
                              coalesce(posting_hash(b.pf2), posting_hash(b.lr2), posting_hash(b.qs2))
                          AND coalesce(posting_hash_extended(a.pf, 42), posting_hash_extended(a.lr, 42), posting_hash_extended(a.qs, 42)) =
                              coalesce(posting_hash_extended(b.pf2, 42), posting_hash_extended(b.lr2, 42), posting_hash_extended(b.qs2, 42))) AS hash_eq,
       count(*) FILTER (WHERE coalesce(a.pf::bytea, a.lr::bytea, a.qs::bytea)
                              <> coalesce(b.pf2::bytea, b.lr2::bytea, b.qs2::bytea)) AS bytes_differ
FROM v1 a JOIN v1 b USING (name) GROUP BY a.codec, b.codec ORDER BY 1, 2;

-- the btree order (of the docID sequences, as int4[] sorts) is one for
-- version 1 and version 2 values; in a column holding both, every version 1
-- value sorts beside its version 2 twin, and an index finds either by
-- the other
SELECT codec,
       array_agg(name ORDER BY pf, lr, qs, name) = array_agg(name ORDER BY docs, name) AS v1_order,
       array_agg(name ORDER BY pf2, lr2, qs2, name) = array_agg(name ORDER BY docs, name) AS v2_order
FROM v1 GROUP BY codec ORDER BY codec;
SELECT string_agg(name, ' ' ORDER BY docs, name) AS order_by_docids FROM v1 WHERE codec = 'qs';
CREATE TEMP TABLE mixed AS
SELECT name, 1 AS ver, qs FROM v1 WHERE codec = 'qs'
UNION ALL SELECT name, 2, qs2 FROM v1 WHERE codec = 'qs';
SELECT count(*) AS pairs, count(*) FILTER (WHERE m.name = n.name) AS twins_adjacent
FROM (SELECT name, row_number() OVER (ORDER BY qs, ver) AS r FROM mixed) m
JOIN (SELECT name, row_number() OVER (ORDER BY qs, ver) AS r FROM mixed) n ON n.r = m.r + 1
WHERE m.r % 2 = 1;
SELECT count(DISTINCT qs) AS distinct_lists, count(*) AS rows FROM mixed;
SET enable_sort = off;
SELECT count(*) AS groups, count(*) FILTER (WHERE c = 2) AS both_versions
FROM (SELECT qs, count(*) AS c FROM mixed GROUP BY qs) g;
RESET enable_sort;
CREATE INDEX mixed_btree ON mixed USING btree (qs);
CREATE INDEX mixed_hash ON mixed USING hash (qs);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT v.name, count(*) FILTER (WHERE m.ver = 1) AS found_v1, count(*) FILTER (WHERE m.ver = 2) AS found_v2
FROM v1 v JOIN LATERAL (SELECT ver FROM mixed WHERE mixed.qs = v.qs) m ON true
WHERE v.codec = 'qs' GROUP BY v.name ORDER BY v.name;
DROP INDEX mixed_btree;
SELECT count(*) AS lookups, count(*) FILTER (WHERE c = 2) AS found_both
FROM (SELECT (SELECT count(*) FROM mixed WHERE mixed.qs = v.qs2) AS c FROM v1 v WHERE v.codec = 'qs') s;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- set algebra, containment and rank over a version 1 and a version 2
-- operand (every pair of lists, every pair of types), against the arrays
CREATE FUNCTION pg_temp.setop(op text, a int4[], b int4[]) RETURNS int4[] LANGUAGE sql AS $$
    SELECT coalesce(array_agg(x ORDER BY x), '{}') FROM (
        SELECT unnest(a) WHERE op = 'or' UNION SELECT unnest(b) WHERE op = 'or'
        UNION (SELECT unnest(a) WHERE op IN ('andnot', 'xor') EXCEPT SELECT unnest(b))
        UNION (SELECT unnest(b) WHERE op = 'xor' EXCEPT SELECT unnest(a))) s(x)
$$;
SELECT a.codec AS v1, b.codec AS v2, count(*) AS pairs,
       count(*) FILTER (WHERE coalesce((a.pf | b.pf2)::int4[], (a.pf | b.lr2)::int4[], (a.pf | b.qs2)::int4[],
                                       (a.lr | b.pf2)::int4[], (a.lr | b.lr2)::int4[], (a.lr | b.qs2)::int4[],
                                       (a.qs | b.pf2)::int4[], (a.qs | b.lr2)::int4[], (a.qs | b.qs2)::int4[])
                              <> pg_temp.setop('or', a.docs, b.docs)) AS or_bad,
       count(*) FILTER (WHERE coalesce((a.pf - b.pf2)::int4[], (a.pf - b.lr2)::int4[], (a.pf - b.qs2)::int4[],
                                       (a.lr - b.pf2)::int4[], (a.lr - b.lr2)::int4[], (a.lr - b.qs2)::int4[],
                                       (a.qs - b.pf2)::int4[], (a.qs - b.lr2)::int4[], (a.qs - b.qs2)::int4[])
                              <> pg_temp.setop('andnot', a.docs, b.docs)) AS andnot_bad,
       count(*) FILTER (WHERE coalesce((b.pf2 - a.pf)::int4[], (b.lr2 - a.pf)::int4[], (b.qs2 - a.pf)::int4[],
                                       (b.pf2 - a.lr)::int4[], (b.lr2 - a.lr)::int4[], (b.qs2 - a.lr)::int4[],
                                       (b.pf2 - a.qs)::int4[], (b.lr2 - a.qs)::int4[], (b.qs2 - a.qs)::int4[])
                              <> pg_temp.setop('andnot', b.docs, a.docs)) AS v2_andnot_v1_bad,
       count(*) FILTER (WHERE coalesce((a.pf # b.pf2)::int4[], (a.pf # b.lr2)::int4[], (a.pf # b.qs2)::int4[],
                                       (a.lr # b.pf2)::int4[], (a.lr # b.lr2)::int4[], (a.lr # b.qs2)::int4[],
                                       (a.qs # b.pf2)::int4[], (a.qs # b.lr2)::int4[], (a.qs # b.qs2)::int4[])
                              <> pg_temp.setop('xor', a.docs, b.docs)) AS xor_bad,
       count(*) FILTER (WHERE coalesce(posting_or_count(a.pf, b.pf2), posting_or_count(a.pf, b.lr2),
                                       posting_or_count(a.pf, b.qs2), posting_or_count(a.lr, b.pf2),
                                       posting_or_count(a.lr, b.lr2), posting_or_count(a.lr, b.qs2),
                                       posting_or_count(a.qs, b.pf2), posting_or_count(a.qs, b.lr2),
                                       posting_or_count(a.qs, b.qs2))
                              <> cardinality(pg_temp.setop('or', a.docs, b.docs))
                          OR coalesce(posting_andnot_count(a.pf, b.pf2), posting_andnot_count(a.pf, b.lr2),
                                       posting_andnot_count(a.pf, b.qs2), posting_andnot_count(a.lr, b.pf2),
                                       posting_andnot_count(a.lr, b.lr2), posting_andnot_count(a.lr, b.qs2),
                                       posting_andnot_count(a.qs, b.pf2), posting_andnot_count(a.qs, b.lr2),
                                       posting_andnot_count(a.qs, b.qs2))
                              <> cardinality(pg_temp.setop('andnot', a.docs, b.docs))
                          OR coalesce(posting_xor_count(a.pf, b.pf2), posting_xor_count(a.pf, b.lr2),
                                       posting_xor_count(a.pf, b.qs2), posting_xor_count(a.lr, b.pf2),
                                       posting_xor_count(a.lr, b.lr2), posting_xor_count(a.lr, b.qs2),
                                       posting_xor_count(a.qs, b.pf2), posting_xor_count(a.qs, b.lr2),
                                       posting_xor_count(a.qs, b.qs2))
                              <> cardinality(pg_temp.setop('xor', a.docs, b.docs))) AS counts_bad,
       count(*) FILTER (WHERE coalesce(a.pf @> b.pf2, a.pf @> b.lr2, a.pf @> b.qs2,
                                       a.lr @> b.pf2, a.lr @> b.lr2, a.lr @> b.qs2,
                                       a.qs @> b.pf2, a.qs @> b.lr2, a.qs @> b.qs2)
                              <> (b.docs <@ a.docs)
                          OR coalesce(a.pf <@ b.pf2, a.pf <@ b.lr2, a.pf <@ b.qs2,
                                       a.lr <@ b.pf2, a.lr <@ b.lr2, a.lr <@ b.qs2,
                                       a.qs <@ b.pf2, a.qs <@ b.lr2, a.qs <@ b.qs2)
                              <> (a.docs <@ b.docs)) AS containment_bad,
       count(*) FILTER (WHERE b.docs <@ a.docs) AS contained
FROM v1 a, v1 b GROUP BY a.codec, b.codec ORDER BY 1, 2;
SELECT v.codec, count(*) AS probes,
       count(*) FILTER (WHERE coalesce(rank(v.pf, x), rank(v.lr, x), rank(v.qs, x))
                              <> (SELECT count(*) FROM unnest(v.docs) d WHERE d <= x)
                          OR coalesce(rank(v.pf, x), rank(v.lr, x), rank(v.qs, x))
                              <> coalesce(rank(v.pf2, x), rank(v.lr2, x), rank(v.qs2, x))) AS rank_bad
FROM v1 v, LATERAL (SELECT (d + o)::int4 FROM unnest(v.docs) d, unnest('{-1,0,1}'::int8[]) o
                    WHERE d + o BETWEEN -1 AND 2147483647
                    UNION SELECT unnest('{-1,0,2147483647}'::int4[])) p(x)
GROUP BY v.codec ORDER BY v.codec;

-- appending to a version 1 value writes version 2, with every docID (the
-- lists that do not hold 2^31-1 yet)
SELECT codec, count(*) AS lists,
       count(*) FILTER (WHERE coalesce((pf + 2147483647)::int4[], (lr + 2147483647)::int4[], (qs + 2147483647)::int4[])
                              = (SELECT array_agg(DISTINCT d ORDER BY d)
                                 FROM unnest(docs || 2147483647) d)) AS append_ok,
       count(*) FILTER (WHERE get_byte(coalesce((pf + 2147483647)::bytea, (lr + 2147483647)::bytea, (qs + 2147483647)::bytea), 0) >= 128) AS written_v2
FROM v1 WHERE NOT 2147483647 = ANY (docs) GROUP BY codec ORDER BY codec;
