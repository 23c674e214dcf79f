--
-- posting_errors: every way to feed a posting type bad input, with the
-- SQLSTATE, message and detail of each error.  Text input, int4[] input,
-- the aggregates, and bytea blobs corrupted field by field (the bytea
-- casts share their validation with binary receive; posting_binary tests
-- receive itself).
--
\i sql/regress_setup.psql

-- ---------------------------------------------------------------------------
-- text input: 22P02 invalid_text_representation
-- ---------------------------------------------------------------------------
SELECT v.input, e.code, e.message, e.detail
FROM (VALUES (1, '{1,'), (2, '{a}'), (3, '{-1}'), (4, '{2147483648}'),
             (5, '{-2147483648}'), (6, '{99999999999999999999999999999}'),
             (7, '{1,NULL}'), (8, '{NULL}'), (9, '{ null }'), (10, '{NULLx}'),
             (11, '1,2'), (12, ''), (13, '   '), (14, '{{1}}'), (15, '{1,{2}}'),
             (16, '{1}}'), (17, '{1} x'), (18, '{1 2}'), (19, '{,}'),
             (20, '{1,,2}'), (21, '{'), (22, '{1,2,}'), (23, '{-}'), (24, '{+}'),
             (25, '{1.5}'), (26, '{1e3}'), (27, '{0x10}'), (28, '[1,2]'),
             (29, '{1;2}'), (30, '{"1"}'), (31, '{}{}'), (32, '{ 1 , 2 , }'),
             (33, '{' || repeat('12345,', 20) || 'x}'))
     v(k, input),
     LATERAL pg_temp.err(format('SELECT %L::posting_pfor', v.input)) e
ORDER BY v.k;

-- the same parser serves every type; the type is named in the message
SELECT t.typ, v.input, e.code, e.message, e.detail
FROM (VALUES ('posting_lrc'), ('posting_qs')) t(typ),
     (VALUES (1, '{1,'), (2, '{a}'), (3, '{-1}'), (4, '{2147483648}'),
             (5, '{1,NULL}'), (6, '1,2'), (7, '{{1}}'), (8, '{1}x')) v(k, input),
     LATERAL pg_temp.err(format('SELECT %L::%s', v.input, t.typ)) e
ORDER BY t.typ, v.k;

-- a malformed literal in a column of a table
CREATE TEMP TABLE t_pfor (p posting_pfor);
INSERT INTO t_pfor VALUES ('{1,2,three}');

-- ---------------------------------------------------------------------------
-- int4[] input: NULL elements 22004, negative docIDs 22003, more than one
-- dimension 2202E
-- ---------------------------------------------------------------------------
SELECT v.expr, e.code, e.message, e.detail
FROM (VALUES (1, 'ARRAY[1, NULL]::posting_pfor'),
             (2, 'posting_lrc(ARRAY[NULL]::int4[])'),
             (3, 'ARRAY[NULL, 2, NULL]::int4[]::posting_qs'),
             (4, 'ARRAY[3, -1]::posting_pfor'),
             (5, 'posting_lrc(ARRAY[-2147483648])'),
             (6, 'ARRAY[0, 5, -7, 9]::posting_qs'),
             (7, 'ARRAY[[1, 2], [3, 4]]::posting_pfor'),
             (8, '''{{{1}}}''::int4[]::posting_lrc'),
             (9, 'posting_qs(ARRAY[[1], [2]])'),
             (10, 'ARRAY[[1, NULL]]::posting_pfor')) v(k, expr),
     LATERAL pg_temp.err('SELECT ' || v.expr) e
ORDER BY v.k;

-- through the assignment cast
INSERT INTO t_pfor VALUES (ARRAY[4, NULL]);
INSERT INTO t_pfor VALUES (ARRAY[4, -4]);

-- ---------------------------------------------------------------------------
-- aggregates: NULL rows are skipped, negative docIDs are errors
-- ---------------------------------------------------------------------------
SELECT f, e.code, e.message, e.detail
FROM (VALUES ('posting_pfor_agg'), ('posting_lrc_agg'), ('posting_qs_agg')) a(f),
     LATERAL pg_temp.err(format('SELECT %s(x) FROM (VALUES (1), (NULL), (-7)) v(x)', a.f)) e;
SELECT posting_pfor_agg(x) FROM (VALUES (1), (NULL), (-7)) v(x);

-- ---------------------------------------------------------------------------
-- bytea -> T: 22P03 invalid_binary_representation
-- ---------------------------------------------------------------------------
-- little-endian 32-bit fields of a blob
CREATE FUNCTION pg_temp.le32(v bigint) RETURNS bytea LANGUAGE sql AS $$
    SELECT set_byte(set_byte(set_byte(set_byte('\x00000000'::bytea,
           0, (v & 255)::int), 1, ((v >> 8) & 255)::int),
           2, ((v >> 16) & 255)::int), 3, ((v >> 24) & 255)::int)
$$;
CREATE FUNCTION pg_temp.get32(b bytea, off int) RETURNS bigint LANGUAGE sql AS $$
    SELECT get_byte(b, off)::bigint + (get_byte(b, off + 1)::bigint << 8)
         + (get_byte(b, off + 2)::bigint << 16) + (get_byte(b, off + 3)::bigint << 24)
$$;
CREATE FUNCTION pg_temp.set32(b bytea, off int, v bigint) RETURNS bytea
LANGUAGE sql AS $$
    SELECT overlay(b PLACING pg_temp.le32(v) FROM off + 1 FOR 4)
$$;

-- valid blobs: a one-block list and a multi-block one (667 docIDs), in
-- format version 2 (what the types write) and version 1 (what gpuidx 0.1
-- wrote: these bytes, from its encoder, stay valid)
CREATE TEMP TABLE good (typ text, codec int, list text, ver int, b bytea);
INSERT INTO good
SELECT t.typ, t.codec, l.list, 2,
       CASE t.typ WHEN 'posting_pfor' THEN l.a::posting_pfor::bytea
                  WHEN 'posting_lrc' THEN l.a::posting_lrc::bytea
                  ELSE l.a::posting_qs::bytea END
FROM (VALUES ('posting_pfor', 1), ('posting_lrc', 2), ('posting_qs', 3)) t(typ, codec),
     (VALUES ('small', '{1,5,9}'::int4[]),
             ('multi', ARRAY(SELECT generate_series(0, 2000, 3)))) l(list, a);
INSERT INTO good
SELECT typ, codec, list, 1, b FROM (VALUES
  ('posting_pfor', 1, 'small', '\x0101070003000000010000000900000001000000040000000000000000000000010000000000000002007800'::bytea),
  ('posting_lrc', 2, 'small', '\x01020800030000000100000009000000010000000c00000000000000000000000100000000000000010000000004000000000000'::bytea),
  ('posting_qs', 3, 'small', '\x010308010300000001000000090000000100000008000000000000000000000001000000000000000700000049000000'::bytea),
  ('posting_pfor', 1, 'multi', '\x010107009b02000000000000ce07000006000000c00000000000000000000000000000000000000080010000090000000003000012000000800400001b0000000006000024000000800700002d000000020050555555555555555555555555555555555555555555555555555555555555550100020050555555555555555555555555555555555555555555555555555555555555550100020050555555555555555555555555555555555555555555555555555555555555550100020050555555555555555555555555555555555555555555555555555555555555550100020050555555555555555555555555555555555555555555555555555555555555550100020050555555555555000000'::bytea),
  ('posting_lrc', 2, 'multi', '\x010208009b02000000000000ce07000003000000240000000000000000000000000000000000000000030000030000000006000006000000000000000003000000000000000300000003000000000000000600000003000000000000'::bytea),
  ('posting_qs', 3, 'multi', '\x010308019b02000000000000ce07000003000000280100000000000000000000000000000000000000030000800200000006000000050000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa02a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a594524a29a5945202000000'::bytea)
) v(typ, codec, list, b);

-- every valid blob passes as is, and both versions hold the same lists
SELECT g.typ, g.list, g.ver, count(e.*) AS errors
FROM good g LEFT JOIN LATERAL pg_temp.err(format('SELECT %L::bytea::%s', g.b, g.typ)) e ON true
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
SELECT g1.typ, g1.list,
       CASE g1.typ WHEN 'posting_pfor' THEN docids(g1.b::posting_pfor) = docids(g2.b::posting_pfor)
                   WHEN 'posting_lrc' THEN docids(g1.b::posting_lrc) = docids(g2.b::posting_lrc)
                   ELSE docids(g1.b::posting_qs) = docids(g2.b::posting_qs) END AS same_list
FROM good g1 JOIN good g2 ON g1.typ = g2.typ AND g1.list = g2.list AND g1.ver = 1 AND g2.ver = 2
ORDER BY 1, 2;

-- version 1 header layout: 0 version, 1 codec, 2 log2_block, 3 param, 4 n,
-- 8 first, 12 last, 16 nblocks, 20 payload_bytes, 24 flags, 28 reserved;
-- then the directory (first docID, offset) per block, then the payload
CREATE TEMP TABLE bad AS
SELECT g.typ, g.list, c.k, c.what, c.b
FROM (SELECT * FROM good WHERE ver = 1) g,
     LATERAL (SELECT pg_temp.get32(g.b, 4) AS n, pg_temp.get32(g.b, 16) AS nblocks,
                     pg_temp.get32(g.b, 20) AS plen,
                     32 + 8 * pg_temp.get32(g.b, 16)::int AS poff) h,
     LATERAL (VALUES
        (1, 'empty value', '\x'::bytea),
        (2, 'one byte', '\x01'::bytea),
        (3, 'header cut at 31 bytes', substring(g.b FROM 1 FOR 31)),
        (4, 'last 4 bytes cut', substring(g.b FROM 1 FOR length(g.b) - 4)),
        (5, 'last byte cut', substring(g.b FROM 1 FOR length(g.b) - 1)),
        (6, '4 trailing bytes', g.b || '\x00000000'::bytea),
        (7, '1 trailing byte', g.b || '\x00'::bytea),
        (8, 'version 0', set_byte(g.b, 0, 0)),
        (9, 'version 2', set_byte(g.b, 0, 2)),
        (10, 'version 127', set_byte(g.b, 0, 127)),
        (11, 'codec of the next type', set_byte(g.b, 1, g.codec % 3 + 1)),
        (12, 'codec 0', set_byte(g.b, 1, 0)),
        (13, 'codec 9', set_byte(g.b, 1, 9)),
        (14, 'log2_block + 1', set_byte(g.b, 2, get_byte(g.b, 2) + 1)),
        (15, 'log2_block 0', set_byte(g.b, 2, 0)),
        (16, 'param + 1', set_byte(g.b, 3, get_byte(g.b, 3) + 1)),
        (17, 'param 255', set_byte(g.b, 3, 255)),
        (18, 'n + 1', pg_temp.set32(g.b, 4, h.n + 1)),
        (19, 'n - 1', pg_temp.set32(g.b, 4, h.n - 1)),
        (20, 'n 0', pg_temp.set32(g.b, 4, 0)),
        (21, 'n 2^31 + 1', pg_temp.set32(g.b, 4, 2147483649)),
        (22, 'n 2^32 - 1', pg_temp.set32(g.b, 4, 4294967295)),
        (23, 'first + 1', pg_temp.set32(g.b, 8, pg_temp.get32(g.b, 8) + 1)),
        (24, 'first 2^31', pg_temp.set32(g.b, 8, 2147483648)),
        (25, 'last + 1', pg_temp.set32(g.b, 12, pg_temp.get32(g.b, 12) + 1)),
        (26, 'last - 1', pg_temp.set32(g.b, 12, pg_temp.get32(g.b, 12) - 1)),
        (27, 'last 0 (below first)', pg_temp.set32(g.b, 12, 0)),
        (28, 'last 2^31', pg_temp.set32(g.b, 12, 2147483648)),
        (29, 'nblocks + 1', pg_temp.set32(g.b, 16, h.nblocks + 1)),
        (30, 'nblocks 0', pg_temp.set32(g.b, 16, 0)),
        (31, 'payload_bytes + 4', pg_temp.set32(g.b, 20, h.plen + 4)),
        (32, 'payload_bytes - 4', pg_temp.set32(g.b, 20, h.plen - 4)),
        (33, 'payload_bytes + 1', pg_temp.set32(g.b, 20, h.plen + 1)),
        (34, 'payload_bytes 2^32 - 4', pg_temp.set32(g.b, 20, 4294967292)),
        (35, 'flags 1', set_byte(g.b, 24, 1)),
        (36, 'flags 2^31', set_byte(g.b, 27, 128)),
        (37, 'reserved 1', set_byte(g.b, 28, 1)),
        (38, 'reserved 2^31', set_byte(g.b, 31, 128)),
        (39, 'dir[0].first + 1', pg_temp.set32(g.b, 32, pg_temp.get32(g.b, 32) + 1)),
        (40, 'dir[last].first 0', pg_temp.set32(g.b, h.poff - 8, 0)),
        (41, 'dir[last].first = last + 1',
             pg_temp.set32(g.b, h.poff - 8, pg_temp.get32(g.b, 12) + 1)),
        (42, 'dir[last].offset + 1',
             pg_temp.set32(g.b, h.poff - 4, pg_temp.get32(g.b, h.poff - 4) + 1)),
        (43, 'dir[last].offset 2^32 - 1', pg_temp.set32(g.b, h.poff - 4, 4294967295)),
        (44, 'payload all 0xff',
             overlay(g.b PLACING decode(repeat('ff', h.plen::int), 'hex') FROM h.poff + 1)),
        (45, 'payload all zero',
             overlay(g.b PLACING decode(repeat('00', h.plen::int), 'hex') FROM h.poff + 1)),
        (46, 'empty list with a payload word',
             pg_temp.set32(pg_temp.set32(pg_temp.set32(pg_temp.set32(pg_temp.set32(
                 substring(g.b FROM 1 FOR 32), 4, 0), 8, 0), 12, 0), 16, 0), 20, 4)
             || '\x00000000'::bytea),
        (47, 'empty list with first 5',
             pg_temp.set32(pg_temp.set32(pg_temp.set32(pg_temp.set32(pg_temp.set32(
                 substring(g.b FROM 1 FOR 32), 4, 0), 8, 5), 12, 0), 16, 0), 20, 0))
     ) c(k, what, b);

SELECT b.typ, b.list, b.k, b.what, e.code, e.message, e.detail
FROM bad b LEFT JOIN LATERAL pg_temp.err(format('SELECT %L::bytea::%s', b.b, b.typ)) e ON true
ORDER BY b.typ, b.list DESC, b.k;

-- version 2 (src/codec/gpx_codec.h): tag (bit 7 set, codec in bits 5-6,
-- a small list's block kind in bit 4 and n in bits 0-3), varints; the
-- small list is [tag][first][Elias-Fano block], the multi-block one
-- [tag][info 2][n 667: 9b 05][first 0][last - first 1998: ce 0f][pad 1]
-- [directory: nblocks * 8 bytes at 8][payload]
CREATE TEMP TABLE bad2 AS
SELECT g.typ, g.list, c.k, c.what, c.b
FROM (SELECT *, CASE WHEN list = 'small' THEN 2
                     ELSE 8 + 8 * CASE typ WHEN 'posting_pfor' THEN 6 ELSE 3 END END AS poff
      FROM good WHERE ver = 2) g,
     LATERAL (VALUES
        (1, 'empty value', '\x'::bytea),
        (2, 'the tag alone', substring(g.b FROM 1 FOR 1)),
        (3, 'last byte cut', substring(g.b FROM 1 FOR length(g.b) - 1)),
        (4, 'last 4 bytes cut', substring(g.b FROM 1 FOR greatest(length(g.b) - 4, 0))),
        (5, '1 trailing byte', g.b || '\x00'::bytea),
        (6, '4 trailing bytes', g.b || '\x00000000'::bytea),
        (7, 'first byte 0', set_byte(g.b, 0, 0)),
        (8, 'first byte 2 (version 2 as a number)', set_byte(g.b, 0, 2)),
        (9, 'first byte 127', set_byte(g.b, 0, 127)),
        (10, 'codec of the next type', set_byte(g.b, 0, (get_byte(g.b, 0) & 159) | ((g.codec % 3 + 1) << 5))),
        (11, 'codec 0', set_byte(g.b, 0, get_byte(g.b, 0) & 159)),
        (12, 'small: n + 1; multi: shape 3',
             CASE g.list WHEN 'small' THEN set_byte(g.b, 0, get_byte(g.b, 0) + 1)
                         ELSE set_byte(g.b, 1, 3) END),
        (13, 'small: n 1 with block bytes; multi: info bit 6',
             CASE g.list WHEN 'small' THEN set_byte(g.b, 0, (get_byte(g.b, 0) & 240) | 1)
                         ELSE set_byte(g.b, 1, get_byte(g.b, 1) | 64) END),
        (14, 'small: first 2^31 - 2; multi: n + 1',
             CASE g.list WHEN 'small' THEN overlay(g.b PLACING '\xfeffffff07'::bytea FROM 2 FOR 1)
                         ELSE set_byte(g.b, 2, get_byte(g.b, 2) + 1) END),
        (15, 'small: first 2^31; multi: last - first + 1',
             CASE g.list WHEN 'small' THEN overlay(g.b PLACING '\x8080808008'::bytea FROM 2 FOR 1)
                         ELSE set_byte(g.b, 5, get_byte(g.b, 5) + 1) END),
        (16, 'first as a redundant 2-byte varint',
             CASE g.list WHEN 'small' THEN overlay(g.b PLACING '\x8100'::bytea FROM 2 FOR 1)
                         ELSE overlay(g.b PLACING '\x8000'::bytea FROM 5 FOR 1) END),
        (17, 'term-frequency flag without its section',
             CASE g.list WHEN 'small' THEN set_byte(set_byte('\x0011030100'::bytea, 0, get_byte(g.b, 0) & 224),
                                                    1, 17 | (((get_byte(g.b, 0) >> 4) & 1) << 2))
                                           || substring(g.b FROM 3)
                         ELSE set_byte(g.b, 1, get_byte(g.b, 1) | 16) END),
        (18, 'payload all 0xff',
             overlay(g.b PLACING decode(repeat('ff', length(g.b) - g.poff), 'hex') FROM g.poff + 1)),
        (19, 'payload all zero',
             overlay(g.b PLACING decode(repeat('00', length(g.b) - g.poff), 'hex') FROM g.poff + 1)),
        (20, 'multi: dir[0].first + 1',
             CASE g.list WHEN 'multi' THEN pg_temp.set32(g.b, 8, pg_temp.get32(g.b, 8) + 1) END),
        (21, 'multi: dir[last].first = last + 1',
             CASE g.list WHEN 'multi' THEN pg_temp.set32(g.b, g.poff - 8, 2001) END),
        (22, 'multi: dir[last] kind 3',
             CASE g.list WHEN 'multi' THEN pg_temp.set32(g.b, g.poff - 4, pg_temp.get32(g.b, g.poff - 4) | 3) END),
        (23, 'multi: dir[last] offset + 4',
             CASE g.list WHEN 'multi' THEN pg_temp.set32(g.b, g.poff - 4, pg_temp.get32(g.b, g.poff - 4) + 16) END),
        (24, 'multi: padding byte 1',
             CASE g.list WHEN 'multi' THEN set_byte(g.b, 7, 1) END),
        (25, 'empty list with a trailing byte',
             set_byte('\x000000'::bytea, 0, (get_byte(g.b, 0) & 224)))
     ) c(k, what, b)
WHERE c.b IS NOT NULL;

SELECT b.typ, b.list, b.k, b.what, e.code, e.message, e.detail
FROM bad2 b LEFT JOIN LATERAL pg_temp.err(format('SELECT %L::bytea::%s', b.b, b.typ)) e ON true
ORDER BY b.typ, b.list DESC, b.k;

-- the bytea cast as a function call, and NULL
SELECT posting_qs('\x01'::bytea);
SELECT posting_pfor(NULL::bytea) IS NULL AS null_in_null_out;

-- ---------------------------------------------------------------------------
-- single-byte corruption of every byte and truncation at every length of
-- the multi-block blobs: never a crash, every rejection is 22P03, and
-- whatever is accepted is a consistent list (decode, unnest, nth,
-- contains and the header agree)
-- ---------------------------------------------------------------------------
CREATE TEMP TABLE fuzz AS
SELECT g.typ, g.ver, m.how, p.pos,
       CASE m.how WHEN 'zero' THEN set_byte(g.b, p.pos, 0)
                  WHEN 'flip' THEN set_byte(g.b, p.pos, 255 - get_byte(g.b, p.pos))
                  WHEN 'incr' THEN set_byte(g.b, p.pos, (get_byte(g.b, p.pos) + 1) % 256)
                  ELSE substring(g.b FROM 1 FOR p.pos) END AS b
FROM good g, generate_series(0, length(g.b) - 1) p(pos),
     (VALUES ('zero'), ('flip'), ('incr'), ('cut')) m(how)
WHERE g.list = 'multi';
-- the cast of a blob to a type: 'accepted' or the SQLSTATE of the error
CREATE FUNCTION pg_temp.try_cast(typ text, b bytea) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM CASE typ WHEN 'posting_pfor' THEN length(b::posting_pfor)
                     WHEN 'posting_lrc' THEN length(b::posting_lrc)
                     WHEN 'posting_qs' THEN length(b::posting_qs) END;
    RETURN 'accepted';
EXCEPTION WHEN others THEN
    RETURN SQLSTATE;
END $$;
ALTER TABLE fuzz ADD sqlstate text;
UPDATE fuzz SET sqlstate = pg_temp.try_cast(typ, b);

SELECT typ, ver, count(*) > 0 AS tried,
       count(*) FILTER (WHERE sqlstate NOT IN ('22P03', 'accepted')) AS other_errors,
       count(*) FILTER (WHERE how = 'cut' AND sqlstate <> '22P03') AS cut_accepted,
       count(*) FILTER (WHERE how = 'zero' AND sqlstate = '22P03') > 0 AS some_rejected
FROM fuzz GROUP BY typ, ver ORDER BY typ, ver;

-- accepted mutations must be internally consistent
CREATE FUNCTION pg_temp.consistent(d int4[], len bigint, f int4, l int4,
                                   via_unnest int4[], via_nth int4[], all_in bool)
RETURNS bool LANGUAGE sql AS $$
    SELECT d = ARRAY(SELECT DISTINCT x FROM unnest(d) x ORDER BY x)
       AND len = cardinality(d) AND f IS NOT DISTINCT FROM d[1]
       AND l IS NOT DISTINCT FROM d[cardinality(d)]
       AND via_unnest = d AND via_nth = d AND all_in
$$;
-- the same for a value of any of the types
CREATE FUNCTION pg_temp.consistent_list(p anyelement) RETURNS bool
LANGUAGE sql AS $$
    SELECT pg_temp.consistent(docids(p), length(p), first_docid(p), last_docid(p),
               ARRAY(SELECT unnest(p)),
               ARRAY(SELECT nth(p, i) FROM generate_series(1, length(p)) i),
               (SELECT bool_and(p @> x) FROM unnest(docids(p)) x))
$$;
SELECT t.typ, count(r.ok) > 0 AS some_accepted,
       count(*) FILTER (WHERE NOT r.ok) AS inconsistent
FROM (VALUES ('posting_pfor'), ('posting_lrc'), ('posting_qs')) t(typ)
LEFT JOIN (SELECT typ, pg_temp.consistent_list(b::posting_pfor) AS ok
           FROM fuzz WHERE typ = 'posting_pfor' AND sqlstate = 'accepted'
           UNION ALL
           SELECT typ, pg_temp.consistent_list(b::posting_lrc)
           FROM fuzz WHERE typ = 'posting_lrc' AND sqlstate = 'accepted'
           UNION ALL
           SELECT typ, pg_temp.consistent_list(b::posting_qs)
           FROM fuzz WHERE typ = 'posting_qs' AND sqlstate = 'accepted') r USING (typ)
GROUP BY t.typ ORDER BY t.typ;
