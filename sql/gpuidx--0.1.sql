/*
 * gpuidx--0.1.sql - compressed posting-list types.
 *
 * Three types hold a sorted set of docIDs in [0, 2147483647] (SQL int4),
 * each with its own codec; the SQL surface is the same for all three:
 *
 *   posting_pfor   Parallel PForDelta over d-gaps, blocks of 128
 *   posting_lrc    SegLRC (linear-regression deviations), segments of 256
 *   posting_qs     Elias-Fano (quasi-succinct), samples every 256
 *
 * Values are built from int4[] or from rows (T_agg), sorted and
 * deduplicated on the way in; NULL elements and negative docIDs are
 * errors.  Text form: '{1,5,9}' (input in any order, with duplicates and
 * whitespace; output sorted).  Binary form (send/recv, bytea casts): the
 * raw codec blob, validated in full whenever it comes from outside.
 *
 * Casts:
 *   int4[] -> T           assignment (sort + dedup; NULL/negative -> error)
 *   T -> int4[]           assignment (decode)
 *   T -> T'               assignment (decode + re-encode)
 *   bytea -> T            explicit (validates the blob)
 *   T -> bytea            explicit (binary coercible: the blob itself)
 * No implicit casts, so operator resolution on int4[] is unaffected.
 *
 * Functions taking T exist once per type (overloads sharing one C
 * function, which reads the codec from the value):
 *   docids(T) int4[]          the list as a sorted array
 *   unnest(T) setof int4      the list as rows, decoded block by block
 *   length(T) bigint          number of docIDs (header only)
 *   first_docid(T) int4       smallest docID, NULL if empty (header only)
 *   last_docid(T) int4        largest docID, NULL if empty (header only)
 *   size_bytes(T) int4        bytes of the encoded blob (no detoasting)
 *   bits_per_docid(T) float8  8 * size_bytes / length, NULL if empty
 *   codec(T) text             'pfor', 'lrc' or 'qs'
 *   contains(T, int4) bool    membership (random access), also T @> int4
 *   contained_in(int4, T)     the same, also int4 <@ T
 *   nth(T, bigint) int4       the i-th docID, 1-based like SQL arrays;
 *                             NULL outside [1, length]
 *   T(int4[]), T(T'), T(bytea)   the cast functions
 *   T_agg(int4)               aggregate; NULL rows are skipped, no
 *                             non-NULL row -> NULL; parallel safe
 *
 * In-memory limit: building (text input, int4[], aggregate, casts between
 * types) and docids() handle at most 268435449 docIDs (the largest int4[]
 * below 1 GB); larger lists, possible through bytea, still work with
 * unnest, the accessors, contains and nth.
 */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION gpuidx" to load this file. \quit

-- Aggregate support shared by posting_pfor_agg, posting_lrc_agg, posting_qs_agg:
-- the state (internal) collects the non-NULL int4 inputs.

-- Transition: append a docID; NULL skipped, negative -> error.
CREATE FUNCTION posting_agg_trans(internal, int4)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_agg_trans'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

-- Combine two partial states (parallel aggregation).
CREATE FUNCTION posting_agg_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_agg_combine'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

-- Serialize a partial state for a parallel worker.
CREATE FUNCTION posting_agg_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'posting_agg_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Deserialize a partial state.
CREATE FUNCTION posting_agg_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_agg_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ===========================================================================
-- posting_pfor (codec pfor)
-- ===========================================================================

CREATE TYPE posting_pfor;

-- Text input: '{1,5,9}', any order, duplicates removed.
CREATE FUNCTION posting_pfor_in(cstring)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Text output: the sorted list as '{1,5,9}'.
CREATE FUNCTION posting_pfor_out(posting_pfor)
RETURNS cstring
AS 'MODULE_PATHNAME', 'posting_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary input: the raw blob, validated.
CREATE FUNCTION posting_pfor_recv(internal)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary output: the raw blob.
CREATE FUNCTION posting_pfor_send(posting_pfor)
RETURNS bytea
AS 'MODULE_PATHNAME', 'posting_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE posting_pfor (
	INPUT = posting_pfor_in,
	OUTPUT = posting_pfor_out,
	RECEIVE = posting_pfor_recv,
	SEND = posting_pfor_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);
COMMENT ON TYPE posting_pfor IS 'posting list, Parallel PForDelta codec';

-- Build from int4[]: sorts, removes duplicates; NULL or negative -> error.
CREATE FUNCTION posting_pfor(int4[])
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_from_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From a blob in a bytea (validated in full).
CREATE FUNCTION posting_pfor(bytea)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as a sorted int4[].
CREATE FUNCTION docids(posting_pfor)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_docids'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as rows, in increasing order.
CREATE FUNCTION unnest(posting_pfor)
RETURNS SETOF int4
AS 'MODULE_PATHNAME', 'posting_unnest'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Number of docIDs.
CREATE FUNCTION length(posting_pfor)
RETURNS bigint
AS 'MODULE_PATHNAME', 'posting_length'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Smallest docID, NULL for the empty list.
CREATE FUNCTION first_docid(posting_pfor)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_first'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Largest docID, NULL for the empty list.
CREATE FUNCTION last_docid(posting_pfor)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_last'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Size of the encoded blob in bytes (octet_length of the bytea cast).
CREATE FUNCTION size_bytes(posting_pfor)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_size_bytes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Compression: 8 * size_bytes / length; NULL for the empty list.
CREATE FUNCTION bits_per_docid(posting_pfor)
RETURNS float8
AS 'MODULE_PATHNAME', 'posting_bits_per_docid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Codec name: 'pfor'.
CREATE FUNCTION codec(posting_pfor)
RETURNS text
AS 'MODULE_PATHNAME', 'posting_codec'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the list holds the docID (a negative one: false).
CREATE FUNCTION contains(posting_pfor, int4)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the docID is in the list (contains with swapped arguments).
CREATE FUNCTION contained_in(int4, posting_pfor)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contained_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The i-th docID, 1-based like SQL arrays; NULL when i is outside [1, length].
CREATE FUNCTION nth(posting_pfor, bigint)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_nth'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- list @> docID
CREATE OPERATOR @> (
	LEFTARG = posting_pfor,
	RIGHTARG = int4,
	FUNCTION = contains,
	COMMUTATOR = <@,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- docID <@ list
CREATE OPERATOR <@ (
	LEFTARG = int4,
	RIGHTARG = posting_pfor,
	FUNCTION = contained_in,
	COMMUTATOR = @>,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- Final function of posting_pfor_agg: sort, deduplicate, encode.
CREATE FUNCTION posting_pfor_agg_final(internal)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Build a list from rows: NULL rows are skipped, negative docIDs are an
-- error, duplicates are removed; no non-NULL row gives NULL.
CREATE AGGREGATE posting_pfor_agg(int4) (
	SFUNC = posting_agg_trans,
	STYPE = internal,
	FINALFUNC = posting_pfor_agg_final,
	COMBINEFUNC = posting_agg_combine,
	SERIALFUNC = posting_agg_serialize,
	DESERIALFUNC = posting_agg_deserialize,
	PARALLEL = SAFE
);

CREATE CAST (int4[] AS posting_pfor) WITH FUNCTION posting_pfor(int4[]) AS ASSIGNMENT;
CREATE CAST (posting_pfor AS int4[]) WITH FUNCTION docids(posting_pfor) AS ASSIGNMENT;
CREATE CAST (bytea AS posting_pfor) WITH FUNCTION posting_pfor(bytea);
CREATE CAST (posting_pfor AS bytea) WITHOUT FUNCTION;

-- ===========================================================================
-- posting_lrc (codec lrc)
-- ===========================================================================

CREATE TYPE posting_lrc;

-- Text input: '{1,5,9}', any order, duplicates removed.
CREATE FUNCTION posting_lrc_in(cstring)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Text output: the sorted list as '{1,5,9}'.
CREATE FUNCTION posting_lrc_out(posting_lrc)
RETURNS cstring
AS 'MODULE_PATHNAME', 'posting_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary input: the raw blob, validated.
CREATE FUNCTION posting_lrc_recv(internal)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary output: the raw blob.
CREATE FUNCTION posting_lrc_send(posting_lrc)
RETURNS bytea
AS 'MODULE_PATHNAME', 'posting_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE posting_lrc (
	INPUT = posting_lrc_in,
	OUTPUT = posting_lrc_out,
	RECEIVE = posting_lrc_recv,
	SEND = posting_lrc_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);
COMMENT ON TYPE posting_lrc IS 'posting list, SegLRC (linear regression) codec';

-- Build from int4[]: sorts, removes duplicates; NULL or negative -> error.
CREATE FUNCTION posting_lrc(int4[])
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_from_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From a blob in a bytea (validated in full).
CREATE FUNCTION posting_lrc(bytea)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as a sorted int4[].
CREATE FUNCTION docids(posting_lrc)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_docids'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as rows, in increasing order.
CREATE FUNCTION unnest(posting_lrc)
RETURNS SETOF int4
AS 'MODULE_PATHNAME', 'posting_unnest'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Number of docIDs.
CREATE FUNCTION length(posting_lrc)
RETURNS bigint
AS 'MODULE_PATHNAME', 'posting_length'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Smallest docID, NULL for the empty list.
CREATE FUNCTION first_docid(posting_lrc)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_first'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Largest docID, NULL for the empty list.
CREATE FUNCTION last_docid(posting_lrc)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_last'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Size of the encoded blob in bytes (octet_length of the bytea cast).
CREATE FUNCTION size_bytes(posting_lrc)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_size_bytes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Compression: 8 * size_bytes / length; NULL for the empty list.
CREATE FUNCTION bits_per_docid(posting_lrc)
RETURNS float8
AS 'MODULE_PATHNAME', 'posting_bits_per_docid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Codec name: 'lrc'.
CREATE FUNCTION codec(posting_lrc)
RETURNS text
AS 'MODULE_PATHNAME', 'posting_codec'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the list holds the docID (a negative one: false).
CREATE FUNCTION contains(posting_lrc, int4)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the docID is in the list (contains with swapped arguments).
CREATE FUNCTION contained_in(int4, posting_lrc)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contained_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The i-th docID, 1-based like SQL arrays; NULL when i is outside [1, length].
CREATE FUNCTION nth(posting_lrc, bigint)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_nth'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- list @> docID
CREATE OPERATOR @> (
	LEFTARG = posting_lrc,
	RIGHTARG = int4,
	FUNCTION = contains,
	COMMUTATOR = <@,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- docID <@ list
CREATE OPERATOR <@ (
	LEFTARG = int4,
	RIGHTARG = posting_lrc,
	FUNCTION = contained_in,
	COMMUTATOR = @>,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- Final function of posting_lrc_agg: sort, deduplicate, encode.
CREATE FUNCTION posting_lrc_agg_final(internal)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Build a list from rows: NULL rows are skipped, negative docIDs are an
-- error, duplicates are removed; no non-NULL row gives NULL.
CREATE AGGREGATE posting_lrc_agg(int4) (
	SFUNC = posting_agg_trans,
	STYPE = internal,
	FINALFUNC = posting_lrc_agg_final,
	COMBINEFUNC = posting_agg_combine,
	SERIALFUNC = posting_agg_serialize,
	DESERIALFUNC = posting_agg_deserialize,
	PARALLEL = SAFE
);

CREATE CAST (int4[] AS posting_lrc) WITH FUNCTION posting_lrc(int4[]) AS ASSIGNMENT;
CREATE CAST (posting_lrc AS int4[]) WITH FUNCTION docids(posting_lrc) AS ASSIGNMENT;
CREATE CAST (bytea AS posting_lrc) WITH FUNCTION posting_lrc(bytea);
CREATE CAST (posting_lrc AS bytea) WITHOUT FUNCTION;

-- ===========================================================================
-- posting_qs (codec qs)
-- ===========================================================================

CREATE TYPE posting_qs;

-- Text input: '{1,5,9}', any order, duplicates removed.
CREATE FUNCTION posting_qs_in(cstring)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Text output: the sorted list as '{1,5,9}'.
CREATE FUNCTION posting_qs_out(posting_qs)
RETURNS cstring
AS 'MODULE_PATHNAME', 'posting_out'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary input: the raw blob, validated.
CREATE FUNCTION posting_qs_recv(internal)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_recv'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Binary output: the raw blob.
CREATE FUNCTION posting_qs_send(posting_qs)
RETURNS bytea
AS 'MODULE_PATHNAME', 'posting_send'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE posting_qs (
	INPUT = posting_qs_in,
	OUTPUT = posting_qs_out,
	RECEIVE = posting_qs_recv,
	SEND = posting_qs_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = int4,
	STORAGE = external
);
COMMENT ON TYPE posting_qs IS 'posting list, Elias-Fano (quasi-succinct) codec';

-- Build from int4[]: sorts, removes duplicates; NULL or negative -> error.
CREATE FUNCTION posting_qs(int4[])
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_from_array'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From a blob in a bytea (validated in full).
CREATE FUNCTION posting_qs(bytea)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_from_bytea'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as a sorted int4[].
CREATE FUNCTION docids(posting_qs)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_docids'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The list as rows, in increasing order.
CREATE FUNCTION unnest(posting_qs)
RETURNS SETOF int4
AS 'MODULE_PATHNAME', 'posting_unnest'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Number of docIDs.
CREATE FUNCTION length(posting_qs)
RETURNS bigint
AS 'MODULE_PATHNAME', 'posting_length'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Smallest docID, NULL for the empty list.
CREATE FUNCTION first_docid(posting_qs)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_first'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Largest docID, NULL for the empty list.
CREATE FUNCTION last_docid(posting_qs)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_last'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Size of the encoded blob in bytes (octet_length of the bytea cast).
CREATE FUNCTION size_bytes(posting_qs)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_size_bytes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Compression: 8 * size_bytes / length; NULL for the empty list.
CREATE FUNCTION bits_per_docid(posting_qs)
RETURNS float8
AS 'MODULE_PATHNAME', 'posting_bits_per_docid'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Codec name: 'qs'.
CREATE FUNCTION codec(posting_qs)
RETURNS text
AS 'MODULE_PATHNAME', 'posting_codec'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the list holds the docID (a negative one: false).
CREATE FUNCTION contains(posting_qs, int4)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contains'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Whether the docID is in the list (contains with swapped arguments).
CREATE FUNCTION contained_in(int4, posting_qs)
RETURNS bool
AS 'MODULE_PATHNAME', 'posting_contained_in'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The i-th docID, 1-based like SQL arrays; NULL when i is outside [1, length].
CREATE FUNCTION nth(posting_qs, bigint)
RETURNS int4
AS 'MODULE_PATHNAME', 'posting_nth'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- list @> docID
CREATE OPERATOR @> (
	LEFTARG = posting_qs,
	RIGHTARG = int4,
	FUNCTION = contains,
	COMMUTATOR = <@,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- docID <@ list
CREATE OPERATOR <@ (
	LEFTARG = int4,
	RIGHTARG = posting_qs,
	FUNCTION = contained_in,
	COMMUTATOR = @>,
	RESTRICT = contsel,
	JOIN = contjoinsel
);

-- Final function of posting_qs_agg: sort, deduplicate, encode.
CREATE FUNCTION posting_qs_agg_final(internal)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_agg_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Build a list from rows: NULL rows are skipped, negative docIDs are an
-- error, duplicates are removed; no non-NULL row gives NULL.
CREATE AGGREGATE posting_qs_agg(int4) (
	SFUNC = posting_agg_trans,
	STYPE = internal,
	FINALFUNC = posting_qs_agg_final,
	COMBINEFUNC = posting_agg_combine,
	SERIALFUNC = posting_agg_serialize,
	DESERIALFUNC = posting_agg_deserialize,
	PARALLEL = SAFE
);

CREATE CAST (int4[] AS posting_qs) WITH FUNCTION posting_qs(int4[]) AS ASSIGNMENT;
CREATE CAST (posting_qs AS int4[]) WITH FUNCTION docids(posting_qs) AS ASSIGNMENT;
CREATE CAST (bytea AS posting_qs) WITH FUNCTION posting_qs(bytea);
CREATE CAST (posting_qs AS bytea) WITHOUT FUNCTION;

-- ===========================================================================
-- Casts between the types (decode + re-encode), assignment
-- ===========================================================================

-- From posting_lrc: decode and re-encode.
CREATE FUNCTION posting_pfor(posting_lrc)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From posting_qs: decode and re-encode.
CREATE FUNCTION posting_pfor(posting_qs)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_pfor_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From posting_pfor: decode and re-encode.
CREATE FUNCTION posting_lrc(posting_pfor)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From posting_qs: decode and re-encode.
CREATE FUNCTION posting_lrc(posting_qs)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_lrc_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From posting_pfor: decode and re-encode.
CREATE FUNCTION posting_qs(posting_pfor)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- From posting_lrc: decode and re-encode.
CREATE FUNCTION posting_qs(posting_lrc)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_qs_recode'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (posting_lrc AS posting_pfor) WITH FUNCTION posting_pfor(posting_lrc) AS ASSIGNMENT;
CREATE CAST (posting_qs AS posting_pfor) WITH FUNCTION posting_pfor(posting_qs) AS ASSIGNMENT;
CREATE CAST (posting_pfor AS posting_lrc) WITH FUNCTION posting_lrc(posting_pfor) AS ASSIGNMENT;
CREATE CAST (posting_qs AS posting_lrc) WITH FUNCTION posting_lrc(posting_qs) AS ASSIGNMENT;
CREATE CAST (posting_pfor AS posting_qs) WITH FUNCTION posting_qs(posting_pfor) AS ASSIGNMENT;
CREATE CAST (posting_lrc AS posting_qs) WITH FUNCTION posting_qs(posting_lrc) AS ASSIGNMENT;

-- ===========================================================================
-- BEGIN pairwise operators (src/posting_ops.c)
--
--   a & b    int4[]   the sorted intersection of two lists
--   a && b   boolean  whether two lists share a docID (stops at the first)
--
-- Defined for every pair of the three types, mixed ones included (one C
-- function each; the codec is read from the value).  Both skip through
-- the longer list's block directory instead of decoding it, and answer
-- from the headers alone when a list is empty or the docID ranges are
-- disjoint.  Membership of one docID stays T @> int4 / int4 <@ T.
-- ===========================================================================

-- posting_pfor & posting_pfor: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_pfor, posting_pfor)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_pfor, RIGHTARG = posting_pfor,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_pfor && posting_pfor: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_pfor, posting_pfor)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_pfor, RIGHTARG = posting_pfor,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_pfor & posting_lrc: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_pfor, posting_lrc)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_pfor, RIGHTARG = posting_lrc,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_pfor && posting_lrc: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_pfor, posting_lrc)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_pfor, RIGHTARG = posting_lrc,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_pfor & posting_qs: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_pfor, posting_qs)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_pfor, RIGHTARG = posting_qs,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_pfor && posting_qs: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_pfor, posting_qs)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_pfor, RIGHTARG = posting_qs,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_lrc & posting_pfor: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_lrc, posting_pfor)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_lrc, RIGHTARG = posting_pfor,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_lrc && posting_pfor: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_lrc, posting_pfor)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_lrc, RIGHTARG = posting_pfor,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_lrc & posting_lrc: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_lrc, posting_lrc)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_lrc, RIGHTARG = posting_lrc,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_lrc && posting_lrc: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_lrc, posting_lrc)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_lrc, RIGHTARG = posting_lrc,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_lrc & posting_qs: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_lrc, posting_qs)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_lrc, RIGHTARG = posting_qs,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_lrc && posting_qs: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_lrc, posting_qs)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_lrc, RIGHTARG = posting_qs,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_qs & posting_pfor: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_qs, posting_pfor)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_qs, RIGHTARG = posting_pfor,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_qs && posting_pfor: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_qs, posting_pfor)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_qs, RIGHTARG = posting_pfor,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_qs & posting_lrc: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_qs, posting_lrc)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_qs, RIGHTARG = posting_lrc,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_qs && posting_lrc: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_qs, posting_lrc)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_qs, RIGHTARG = posting_lrc,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- posting_qs & posting_qs: the sorted docIDs in both lists.
CREATE FUNCTION posting_intersection(posting_qs, posting_qs)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersection'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR & (
	LEFTARG = posting_qs, RIGHTARG = posting_qs,
	FUNCTION = posting_intersection,
	COMMUTATOR = &
);

-- posting_qs && posting_qs: whether the lists share a docID.
CREATE FUNCTION posting_overlaps(posting_qs, posting_qs)
RETURNS boolean
AS 'MODULE_PATHNAME', 'posting_overlaps'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR && (
	LEFTARG = posting_qs, RIGHTARG = posting_qs,
	FUNCTION = posting_overlaps,
	COMMUTATOR = &&,
	RESTRICT = areasel,
	JOIN = areajoinsel
);

-- END pairwise operators
-- ===========================================================================
-- BEGIN document partitioning (src/posting_shard.c, docs/SCALEOUT.md)
--
--   posting_slice(T, lo, hi)  T        the docIDs d with lo <= d < hi
--   posting_union(int4[])     int4[]   aggregate: sorted union of sorted
--                                      docID arrays (concatenation when
--                                      their ranges are disjoint)

CREATE FUNCTION posting_slice(posting_pfor, lo bigint, hi bigint)
RETURNS posting_pfor
AS 'MODULE_PATHNAME', 'posting_slice'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION posting_slice(posting_lrc, lo bigint, hi bigint)
RETURNS posting_lrc
AS 'MODULE_PATHNAME', 'posting_slice'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION posting_slice(posting_qs, lo bigint, hi bigint)
RETURNS posting_qs
AS 'MODULE_PATHNAME', 'posting_slice'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION posting_union_trans(internal, int4[])
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_union_trans'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION posting_union_final(internal)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_union_final'
LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE posting_union(int4[]) (
	SFUNC = posting_union_trans,
	STYPE = internal,
	FINALFUNC = posting_union_final,
	PARALLEL = SAFE
);

-- END document partitioning
-- ===========================================================================

-- ===========================================================================
-- BEGIN executor block (src/posting_intersect.c, src/exec_*.c)
--
-- posting_intersect(T) int4[]        aggregate: sorted intersection of the
-- posting_intersect_count(T) bigint  non-NULL inputs of a group (no rows or
--                                    only NULLs: NULL; one list: its docIDs);
--                                    parallel safe.  Under HashAggregate all
--                                    groups of a statement reach the executor
--                                    as one batch.
-- posting_intersect_batch(qids bigint[], lists T[])
--                                    setof (qid, docs): the lists paired with
--                                    qids by position, one row per distinct
--                                    qid (in qid order), all queries sent as
--                                    one batch whatever the plan.
-- gpuidx_stats (view), gpuidx_stats(), gpuidx_stats_reset(), gpuidx_info(),
-- gpuidx_inject_fault(text, int): observe (and, superuser only, break) the
-- executor background worker.
-- ===========================================================================

-- Transition of posting_intersect*: keep a copy of the (compressed) input.
CREATE FUNCTION posting_intersect_trans(internal, posting_pfor)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_intersect_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION posting_intersect_trans(internal, posting_lrc)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_intersect_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION posting_intersect_trans(internal, posting_qs)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_intersect_trans'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Combine two partial states (parallel aggregation).
CREATE FUNCTION posting_intersect_combine(internal, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_intersect_combine'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Serialize a partial state for a parallel worker.
CREATE FUNCTION posting_intersect_serialize(internal)
RETURNS bytea
AS 'MODULE_PATHNAME', 'posting_intersect_serialize'
LANGUAGE C STRICT PARALLEL SAFE;

-- Deserialize a partial state.
CREATE FUNCTION posting_intersect_deserialize(bytea, internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'posting_intersect_deserialize'
LANGUAGE C STRICT PARALLEL SAFE;

-- Final of posting_intersect: the intersection as a sorted int4[].
CREATE FUNCTION posting_intersect_final(internal)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'posting_intersect_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

-- Final of posting_intersect_count: the size of the intersection.
CREATE FUNCTION posting_intersect_count_final(internal)
RETURNS bigint
AS 'MODULE_PATHNAME', 'posting_intersect_count_final'
LANGUAGE C CALLED ON NULL INPUT PARALLEL SAFE;

CREATE AGGREGATE posting_intersect(posting_pfor) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

CREATE AGGREGATE posting_intersect(posting_lrc) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

CREATE AGGREGATE posting_intersect(posting_qs) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

CREATE AGGREGATE posting_intersect_count(posting_pfor) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_count_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

CREATE AGGREGATE posting_intersect_count(posting_lrc) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_count_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

CREATE AGGREGATE posting_intersect_count(posting_qs) (
	SFUNC = posting_intersect_trans, STYPE = internal, SSPACE = 64,
	FINALFUNC = posting_intersect_count_final,
	COMBINEFUNC = posting_intersect_combine,
	SERIALFUNC = posting_intersect_serialize,
	DESERIALFUNC = posting_intersect_deserialize,
	PARALLEL = SAFE);

-- Many intersection queries in one call, one batch for the executor:
-- lists[i] belongs to query qids[i]; NULL lists are skipped.
CREATE FUNCTION posting_intersect_batch(qids bigint[], lists posting_pfor[],
										OUT qid bigint, OUT docs int4[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'posting_intersect_batch'
LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION posting_intersect_batch(qids bigint[], lists posting_lrc[],
										OUT qid bigint, OUT docs int4[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'posting_intersect_batch'
LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1000;

CREATE FUNCTION posting_intersect_batch(qids bigint[], lists posting_qs[],
										OUT qid bigint, OUT docs int4[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'posting_intersect_batch'
LANGUAGE C VOLATILE PARALLEL SAFE ROWS 1000;

-- Executor counters since the last reset.
CREATE FUNCTION gpuidx_stats(
	OUT requests bigint,			-- requests (arena slots) served
	OUT queries bigint,				-- intersections computed by the executor
	OUT batches bigint,
	OUT mean_batch_postings float8,	-- shortest-list postings per batch
	OUT mean_batch_requests float8,
	OUT mean_batch_queries float8,
	OUT multi_backend_batches bigint,	-- batches holding >= 2 backends' requests
	OUT max_batch_backends bigint,
	OUT executor_time_ms float8,	-- time spent computing batches
	OUT gpu_batches bigint,			-- batches computed on a GPU
	OUT gpu_failures bigint,		-- GPU batches that failed and ran on cpu threads
	OUT gpu_unavailable bigint,		-- sent with device = gpu while the executor had
									-- no usable GPU: ran on its cpu threads
	OUT mean_roundtrip_ms float8,	-- backend-side wait per request
	OUT backend_queries bigint,		-- kept in the backend by device = auto
	OUT fallbacks bigint,			-- routed to the executor, computed here
	OUT fallback_executor_down bigint,
	OUT fallback_arena_full bigint,
	OUT fallback_too_large bigint,
	OUT fallback_timeout bigint,
	OUT fallback_failed bigint,
	OUT cache_hits bigint,			-- lists sent by content hash
	OUT cache_misses bigint,		-- cacheable lists that had to be copied
	OUT lists_not_read bigint,		-- stored lists sent by key, never detoasted
	OUT cache_evictions bigint,
	OUT bytes_copied bigint,		-- list bytes copied into the arena
	OUT stats_reset timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuidx_stats'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

CREATE VIEW gpuidx_stats AS SELECT * FROM gpuidx_stats();
GRANT SELECT ON gpuidx_stats TO PUBLIC;

-- Zero the executor counters.  Superusers only unless granted (like
-- pg_stat_statements_reset: no check in C, so GRANT EXECUTE delegates it).
CREATE FUNCTION gpuidx_stats_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'gpuidx_stats_reset'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
REVOKE ALL ON FUNCTION gpuidx_stats_reset() FROM PUBLIC;

-- Executor state, device, arena and cache use, batching and cost model.
CREATE FUNCTION gpuidx_info(
	OUT preloaded bool,				-- shared_preload_libraries has gpuidx
	OUT executor_state text,		-- stopped, starting, running
	OUT executor_pid int4,
	OUT executor_starts int4,
	OUT executor_started timestamptz,
	OUT device text,				-- gpuidx.device of this session
	OUT device_active text,			-- what runs the batches
	OUT device_note text,			-- why not a GPU, when not
	OUT cpu_threads int4,
	OUT arena_size bigint,
	OUT arena_used bigint,
	OUT arena_peak bigint,
	OUT slots int4,
	OUT slots_used int4,
	OUT queued int4,
	OUT queued_postings bigint,
	OUT cache_entries int4,
	OUT cache_bytes bigint,
	OUT cache_size bigint,
	OUT batch_threshold int4,
	OUT batch_max_wait_us int4,
	OUT cost_backend_ns float8,		-- auto model: backend cost per probe
	OUT cost_executor_ns float8,	-- executor cost per probe and thread
	OUT overhead_us float8)			-- executor round trip besides batching
RETURNS record
AS 'MODULE_PATHNAME', 'gpuidx_info'
LANGUAGE C VOLATILE STRICT PARALLEL SAFE;

-- Make the executor fail on purpose: 'error' (it raises an error on its
-- next batch and restarts), 'stall' (its next batch sleeps duration_ms),
-- 'hold' (it takes no batch for duration_ms; 0 resumes), 'gpu_oom' (its GPU
-- batches fail as out of memory and run on its cpu threads, for
-- duration_ms, 0: the next one only), 'oid_gap' (the OID counter counts as
-- unsampled too long, so the keys of stored lists start a new epoch and the
-- lists are sent again), 'none' (disarms all but a hold).
-- For fault-injection tests; superusers only (checked in C too,
-- so a GRANT does not open it up: it can stop the executor for everyone).
CREATE FUNCTION gpuidx_inject_fault(fault text, duration_ms int4 DEFAULT 0)
RETURNS void
AS 'MODULE_PATHNAME', 'gpuidx_inject_fault'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
REVOKE ALL ON FUNCTION gpuidx_inject_fault(text, int4) FROM PUBLIC;

-- END executor block
-- ===========================================================================
