--
-- posting_binary: binary send / receive.  Send is the raw blob (the bytes
-- of the bytea cast); receive validates the blob in full, like the bytea
-- cast.  Receive is exercised through COPY (FORMAT binary): a binary COPY
-- of a bytea column writes the raw bytes, so crafted blobs can be fed to
-- a posting column's receive function.  Each failing load runs twice: with
-- VERBOSITY sqlstate to show the SQLSTATE, then with the default verbosity
-- to show the message.
--
\i sql/regress_setup.psql
CREATE TABLE bin_src (id int, pf posting_pfor, lr posting_lrc, qs posting_qs);
INSERT INTO bin_src
SELECT id, a, a, a
FROM (VALUES (1, '{}'::int4[]), (2, '{0}'), (3, '{1,5,9}'), (4, '{0,2147483647}'),
             (5, ARRAY(SELECT generate_series(0, 100000, 7))),
             (6, ARRAY(SELECT generate_series(1000, 60000)))) v(id, a);
INSERT INTO bin_src VALUES (7, NULL, NULL, NULL);

-- send is the blob itself
SELECT id, posting_pfor_send(pf) = pf::bytea AS pfor,
       posting_lrc_send(lr) = lr::bytea AS lrc, posting_qs_send(qs) = qs::bytea AS qs
FROM bin_src ORDER BY id;
SELECT posting_qs_send('{7}');

-- round trip through COPY (FORMAT binary)
\copy bin_src TO 'results/posting_binary_all.bin' WITH (FORMAT binary)
CREATE TABLE bin_dst (LIKE bin_src);
\copy bin_dst FROM 'results/posting_binary_all.bin' WITH (FORMAT binary)
SELECT s.id, length(d.pf) AS len,
       d.pf::bytea = s.pf::bytea AND d.lr::bytea = s.lr::bytea
       AND d.qs::bytea = s.qs::bytea AS same_bytes,
       d.qs::text = s.pf::text AS same_text
FROM bin_src s JOIN bin_dst d USING (id) ORDER BY id;

-- arrays of posting values: text and binary round trips
CREATE TABLE bin_arr (a posting_qs[], b posting_pfor[]);
INSERT INTO bin_arr
SELECT array_agg(qs ORDER BY id), array_agg(pf ORDER BY id) FROM bin_src WHERE id <= 4;
SELECT a, b[3] AS b3, cardinality(b) AS n FROM bin_arr;
\copy bin_arr TO 'results/posting_binary_arr.bin' WITH (FORMAT binary)
CREATE TABLE bin_arr2 (LIKE bin_arr);
\copy bin_arr2 FROM 'results/posting_binary_arr.bin' WITH (FORMAT binary)
SELECT x.a::text = y.a::text AND x.b::text = y.b::text AS same_binary,
       x.a::text::posting_qs[]::text = x.a::text AS same_text
FROM bin_arr x, bin_arr2 y;

-- a blob in a bytea column loads into a posting column of its codec
CREATE TABLE bin_pfor (p posting_pfor);
\copy (SELECT pf::bytea FROM bin_src WHERE id = 5) TO 'results/posting_binary_ok.bin' WITH (FORMAT binary)
\copy bin_pfor FROM 'results/posting_binary_ok.bin' WITH (FORMAT binary)
SELECT length(p), p::bytea = (SELECT pf::bytea FROM bin_src WHERE id = 5) AS same
FROM bin_pfor;

-- receive rejects a blob of another codec
\copy (SELECT qs FROM bin_src WHERE id = 3) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects an empty field
\copy (SELECT '\x'::bytea) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects a truncated blob
\copy (SELECT substring(pf::bytea FROM 1 FOR octet_length(pf::bytea) - 4) FROM bin_src WHERE id = 5) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects trailing bytes
\copy (SELECT pf::bytea || '\x00000000'::bytea FROM bin_src WHERE id = 5) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_pfor FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects an unknown format version
\copy (SELECT set_byte(lr::bytea, 0, 2) FROM bin_src WHERE id = 5) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
CREATE TABLE bin_lrc (p posting_lrc);
\set VERBOSITY sqlstate
\copy bin_lrc FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_lrc FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects a reserved header bit (format 2: info bit 6)
\copy (SELECT set_byte(qs::bytea, 1, get_byte(qs::bytea, 1) | 64) FROM bin_src WHERE id = 5) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
CREATE TABLE bin_qs (p posting_qs);
\set VERBOSITY sqlstate
\copy bin_qs FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_qs FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- receive rejects a corrupt payload (its last 64 bytes 0xff)
\copy (SELECT overlay(qs::bytea PLACING decode(repeat('ff', 64), 'hex') FROM octet_length(qs::bytea) - 63) FROM bin_src WHERE id = 5) TO 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY sqlstate
\copy bin_qs FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)
\set VERBOSITY default
\copy bin_qs FROM 'results/posting_binary_bad.bin' WITH (FORMAT binary)

-- nothing was loaded by the failed COPYs
SELECT (SELECT count(*) FROM bin_pfor) AS pfor_rows, (SELECT count(*) FROM bin_lrc) AS lrc_rows,
       (SELECT count(*) FROM bin_qs) AS qs_rows;

DROP TABLE bin_src, bin_dst, bin_arr, bin_arr2, bin_pfor, bin_lrc, bin_qs;
