--
-- posting_limits: a list too large for the in-memory paths.  A valid
-- posting_pfor blob of 2^28 docIDs (0 .. 2^28-1: every block is one
-- all-zero header word, so the blob is 24 MB, mostly the directory) is
-- crafted byte by byte.  Header-only and random-access functions work on
-- it; docids, text output and casts to another type need more than the
-- 134217727 docIDs PostgreSQL allows in any array (MaxArraySize) and fail
-- with 54000 program_limit_exceeded before allocating anything.
--
\i sql/regress_setup.psql
CREATE FUNCTION pg_temp.le32hex(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT lpad(to_hex(((v & 255) << 24) | (((v >> 8) & 255) << 16)
                       | (((v >> 16) & 255) << 8) | ((v >> 24) & 255)), 8, '0')
$$;

-- header: version 1, codec 1 (pfor), log2_block 7, param 0, n = 2^28,
-- first 0, last 2^28 - 1, nblocks 2^21, payload_bytes 4 * 2^21, flags 0,
-- reserved 0; directory entry k = (128 k, word k); payload: 2^21 zero words
CREATE TEMP TABLE big (p posting_pfor);
INSERT INTO big
SELECT decode('01010700' || pg_temp.le32hex(268435456) || pg_temp.le32hex(0)
              || pg_temp.le32hex(268435455) || pg_temp.le32hex(2097152)
              || pg_temp.le32hex(8388608) || pg_temp.le32hex(0) || pg_temp.le32hex(0)
              || (SELECT string_agg(pg_temp.le32hex(128 * k) || pg_temp.le32hex(k), ''
                                    ORDER BY k)
                  FROM generate_series(0, 2097151) k)
              || repeat('00000000', 2097152), 'hex')::posting_pfor;

SELECT length(p), first_docid(p), last_docid(p), size_bytes(p),
       round(bits_per_docid(p)::numeric, 4) AS bits, codec(p),
       nth(p, 1) AS nth_first, nth(p, 200000001) AS nth_mid,
       nth(p, 268435456) AS nth_last, nth(p, 268435457) AS nth_beyond,
       p @> 123456789 AS has_mid, p @> 268435456 AS has_beyond
FROM big;
SELECT unnest(p) AS head FROM big LIMIT 3;
SELECT posting_pfor_send(p) = p::bytea AS send_is_blob FROM big;

SELECT q, e.code, e.message, e.detail
FROM (VALUES (1, 'SELECT docids(p) FROM big'),
             (2, 'SELECT p::int4[] FROM big'),
             (3, 'SELECT p::text FROM big'),
             (4, 'SELECT p::posting_qs FROM big'),
             (5, 'SELECT posting_lrc(p) FROM big')) v(k, q),
     LATERAL pg_temp.err(v.q) e
ORDER BY v.k;

-- its first half, 2^27 docIDs: one more than an array may hold, found
-- from the header before anything is decoded; counting an intersection
-- this large builds no array, so it works
CREATE TEMP TABLE edge (p posting_pfor);
INSERT INTO edge
SELECT (decode('01010700' || pg_temp.le32hex(134217728) || pg_temp.le32hex(0)
               || pg_temp.le32hex(134217727) || pg_temp.le32hex(1048576)
               || pg_temp.le32hex(4194304) || pg_temp.le32hex(0) || pg_temp.le32hex(0), 'hex')
        || substring(p::bytea FROM 33 FOR 8388608)
        || substring(p::bytea FROM 33 + 16777216 FOR 4194304))::posting_pfor
FROM big;
SELECT length(p), last_docid(p) FROM edge;
SELECT q, e.code, e.message, e.detail
FROM (VALUES (1, 'SELECT docids(p) FROM edge'),
             (2, 'SELECT p::posting_lrc FROM edge'),
             (3, 'SELECT posting_intersect(p) FROM (SELECT p FROM edge UNION ALL SELECT p FROM edge) s')) v(k, q),
     LATERAL pg_temp.err(v.q) e
ORDER BY v.k;
SELECT posting_intersect_count(p) FROM (SELECT p FROM edge UNION ALL SELECT p FROM edge) s;
SELECT posting_intersect_count(p) FROM big;
SELECT q, posting_intersect_count(p)
FROM (SELECT 1 AS q, p FROM edge UNION ALL SELECT 1, '{5,7,134217727,134217728}'::posting_pfor
      UNION ALL SELECT 2, p FROM big UNION ALL SELECT 2, p FROM edge) s
GROUP BY q ORDER BY q;

-- the same blob with n one larger no longer matches its directory
SELECT e.code, e.message, e.detail
FROM pg_temp.err('SELECT overlay(p::bytea PLACING decode(pg_temp.le32hex(268435457), ''hex'')
                                  FROM 5)::posting_pfor FROM big') e;

-- the pairwise operators (src/posting_ops.c) on the large list: & counts
-- an intersection this large first and fails with 54000 before allocating
-- anything; && answers from the headers; & and && with a short list skip
-- through the long one
SELECT e.code, e.message, e.detail FROM pg_temp.err('SELECT p & p FROM big') e;
SELECT p && p AS self, p & '{5,7,268435455,268435456}'::posting_qs AS isect_qs,
       '{0,200000001,268435456}'::posting_lrc & p AS isect_lrc,
       p && '{268435456}'::posting_qs AS beyond, '{3,268435456}'::posting_lrc && p AS inside
FROM big;
