/*
 * posting.h - PostgreSQL glue shared by the posting_pfor, posting_lrc and
 * posting_qs types: varlena <-> gpx_list, gpx_status -> ereport, the
 * codec of a type, the datum builder and the in-memory size limits.
 *
 * A posting value is a varlena whose data (after its 1- or 4-byte header)
 * is exactly one codec blob (see src/codec/gpx_codec.h); values of up to
 * 126 bytes (most of a real-text index, in format version 2) are stored
 * with a 1-byte header, which every reader accepts in place.  Values stored in
 * tables are trusted: every entry point that takes bytes from outside
 * (text input, binary receive, bytea cast) validates the whole blob first.
 */
#ifndef POSTING_H
#define POSTING_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/array.h"
#include "utils/memutils.h"

#include "gpx_codec.h"
#include "gpx_setops.h"

/*
 * The most docIDs any in-memory path (text input, int4[] conversion in
 * both directions, the aggregates, casts between the types) handles:
 * PostgreSQL's limit on the elements of any array, MaxArraySize =
 * MaxAllocSize / sizeof(Datum) = 134,217,727 (ArrayGetNItems rejects a
 * larger array whatever its element type).  Checked from the header,
 * before anything is read or decoded.  Lists up to GPX_MAX_N still work
 * with the streaming functions (unnest, accessors, containment, counting
 * intersections, send / bytea).
 */
#define POSTING_MAX_ELEMS ((uint32) MaxArraySize)

/* Expand X(suffix, codec id) once per type. */
#define POSTING_FOR_EACH_CODEC(X) \
	X(pfor, GPX_CODEC_PFOR) \
	X(lrc, GPX_CODEC_LRC) \
	X(qs, GPX_CODEC_QS)

/* A posting value opened for reading (full detoast + gpx_open). */
typedef struct PostingList
{
	struct varlena *vl;			/* detoasted datum, 1- or 4-byte header */
	gpx_list	l;				/* parsed view of VARDATA(vl) */
} PostingList;

/* SQL type name of a codec ("posting_pfor"), or "posting list" if unknown. */
extern const char *posting_type_name(int codec);

/* Open a trusted datum (full detoast); corrupt bytes -> DATA_CORRUPTED. */
extern void posting_open(Datum d, PostingList *pl);

/* Read only the header of a trusted datum (an out-of-line one: a slice). */
extern void posting_peek(Datum d, gpx_list *l);

/* Blob size in bytes of a datum, from its (toast) header only. */
extern Size posting_blob_size(Datum d);

/*
 * Validate untrusted bytes as a blob of `codec` and return a new varlena
 * holding them; any problem -> ereport(ERROR, errcode) naming it.
 */
extern struct varlena *posting_from_bytes(int codec, const char *data,
										  Size len, int sqlstate);

/*
 * Check an untrusted varlena (4-byte header, blob as its data) in place;
 * any problem -> ereport(ERROR, errcode).
 */
extern void posting_check_external(int codec, const struct varlena *vl,
								   int sqlstate);

/* Encode docs[0..n) (strictly increasing) as a datum of `codec`. */
extern Datum posting_build(int codec, const uint32 *docs, uint32 n);

/* The same with term frequencies tfs[0..n) (NULL: none). */
extern Datum posting_build_tf(int codec, const uint32 *docs, const uint32 *tfs,
							  uint32 n);

/*
 * a op b in codec, encoded as the merge produces it straight into a new
 * datum (gpx_setop_encode: the bytes posting_build would write for it);
 * *n its length, *st the merge's status (the caller reports a failure).
 * (Datum) 0 when *st is not GPX_OK or the encoded bound does not fit a
 * value (the caller then goes through an array).
 */
extern Datum posting_setop_encode(gpx_setop op, const gpx_list *a, const gpx_list *b,
								  int codec, uint32 *n, gpx_status *st);

/* d without its term frequencies (d itself when it has none): posting_tf.c. */
extern Datum posting_without_tfs(Datum d);

/* A list with frequencies from (docs[i], tfs[i]) pairs, any order, repeats add. */
extern Datum posting_build_pairs(int codec, const uint32 *docs, const uint32 *tfs,
								 uint32 n);

/* Sort docs[0..n) and remove duplicates in place; returns the new count. */
extern uint32 posting_sort_unique(uint32 *docs, uint32 n);

/* ereport(ERROR) for a docID outside [0, 2^31-1] from an int4 source. */
extern void posting_report_negative(int32 v) pg_attribute_noreturn();

/* ereport(ERROR, PROGRAM_LIMIT_EXCEEDED) for more than POSTING_MAX_ELEMS. */
extern void posting_report_too_many(const char *what, uint64 n)
			pg_attribute_noreturn();

/*
 * int4[] results.  posting_array_alloc: a one-dimensional int4[] (lower
 * bound 1, no NULLs) of n elements for the caller to fill through
 * ARR_DATA_PTR (docIDs <= 2^31-1 read the same as uint32 and int32); n = 0
 * gives the empty array, n > POSTING_MAX_ELEMS an error.
 * posting_array_truncate: such an array cut to its first n elements (the
 * empty array for 0), giving back a large unused tail; it may move.
 * posting_array_from: an int4[] holding docs[0..n).
 */
extern ArrayType *posting_array_alloc(uint32 n);
extern ArrayType *posting_array_truncate(ArrayType *r, uint32 n);
extern ArrayType *posting_array_from(const uint32 *docs, uint32 n);

/* Decode a whole list into out[0..n), interruptible, never past out[n-1]. */
extern void posting_decode_into(const gpx_list *l, uint32 *out);

/* Decode a whole opened list into a palloc'd array (n <= POSTING_MAX_ELEMS). */
extern uint32 *posting_decode_all(const PostingList *pl, const char *what);

/*
 * Whether fn is the final function of a posting_intersect aggregate,
 * which computes all pending groups of a statement as one executor batch.
 */
extern bool posting_intersect_final_batches(PGFunction fn);

/* The same for the union aggregates (posting_unionagg.c). */
extern bool posting_union_final_batches(PGFunction fn);

#endif							/* POSTING_H */
