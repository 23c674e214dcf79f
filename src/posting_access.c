/*
 * posting_access.c - reading posting values: docids (to int4[]), unnest
 * (set of int4, decoded block by block), header-only accessors (length,
 * first_docid, last_docid, size_bytes, bits_per_docid, codec), and the
 * random-access ones (contains / @> / <@, nth, rank).  Every function here
 * serves all three types: the codec is read from the value.
 */
#include "posting.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "gpx_setops.h"

/* docids(T) -> int4[]: the whole list, sorted. */
PG_FUNCTION_INFO_V1(posting_docids);
Datum
posting_docids(PG_FUNCTION_ARGS)
{
	PostingList pl;
	gpx_list	h;
	ArrayType  *r;

	/* the limit first, from the header: nothing else is read beyond it */
	posting_peek(PG_GETARG_DATUM(0), &h);
	if (h.n > POSTING_MAX_ELEMS)
		posting_report_too_many("to convert to integer[]", h.n);
	if (h.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	posting_open(PG_GETARG_DATUM(0), &pl);
	r = posting_array_alloc(pl.l.n);
	posting_decode_into(&pl.l, (uint32 *) ARR_DATA_PTR(r));
	PG_RETURN_ARRAYTYPE_P(r);
}

/* State of unnest(T): the open list and the current decoded block. */
typedef struct PostingUnnestState
{
	PostingList pl;
	uint32		blk;			/* next block to decode */
	uint32		pos;			/* next index in vals */
	uint32		cnt;			/* values in vals */
	uint32		vals[GPX_MAX_BLOCK];
} PostingUnnestState;

/* unnest(T) -> setof int4: one docID per call, one block decoded at a time. */
PG_FUNCTION_INFO_V1(posting_unnest);
Datum
posting_unnest(PG_FUNCTION_ARGS)
{
	FuncCallContext *fctx;
	PostingUnnestState *st;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;

		fctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
		st = (PostingUnnestState *) palloc(sizeof(PostingUnnestState));
		posting_open(PG_GETARG_DATUM(0), &st->pl);
		st->blk = 0;
		st->pos = 0;
		st->cnt = 0;
		fctx->user_fctx = st;
		MemoryContextSwitchTo(old);
	}
	fctx = SRF_PERCALL_SETUP();
	st = (PostingUnnestState *) fctx->user_fctx;
	if (st->pos >= st->cnt)
	{
		if (st->blk >= st->pl.l.nblocks)
			SRF_RETURN_DONE(fctx);
		st->cnt = gpx_decode_block(&st->pl.l, st->blk++, st->vals);
		st->pos = 0;
		if (st->cnt == 0)
			elog(ERROR, "gpuidx: empty block in posting list");
	}
	SRF_RETURN_NEXT(fctx, Int32GetDatum((int32) st->vals[st->pos++]));
}

/* length(T) -> bigint: number of docIDs (header only). */
PG_FUNCTION_INFO_V1(posting_length);
Datum
posting_length(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	PG_RETURN_INT64((int64) l.n);
}

/* first_docid(T) -> int4: smallest docID, NULL if empty (header only). */
PG_FUNCTION_INFO_V1(posting_first);
Datum
posting_first(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	if (l.n == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) l.first);
}

/* last_docid(T) -> int4: largest docID, NULL if empty (header only). */
PG_FUNCTION_INFO_V1(posting_last);
Datum
posting_last(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	if (l.n == 0)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) l.last);
}

/* size_bytes(T) -> int4: bytes of the encoded blob (no detoasting). */
PG_FUNCTION_INFO_V1(posting_size_bytes);
Datum
posting_size_bytes(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32((int32) posting_blob_size(PG_GETARG_DATUM(0)));
}

/* bits_per_docid(T) -> float8: 8 * size_bytes / length, NULL if empty. */
PG_FUNCTION_INFO_V1(posting_bits_per_docid);
Datum
posting_bits_per_docid(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	if (l.n == 0)
		PG_RETURN_NULL();
	PG_RETURN_FLOAT8(8.0 * (double) posting_blob_size(PG_GETARG_DATUM(0)) /
					 (double) l.n);
}

/* codec(T) -> text: "pfor", "lrc" or "qs" (header only). */
PG_FUNCTION_INFO_V1(posting_codec);
Datum
posting_codec(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	PG_RETURN_TEXT_P(cstring_to_text(gpx_codec_name(l.codec)));
}

/*
 * Whether the list holds x.  The header answers when x is outside
 * [first, last] or equal to either end, without detoasting the rest.
 */
static bool
posting_has(Datum d, int32 x)
{
	gpx_list	h;
	PostingList pl;

	if (x < 0)
		return false;
	posting_peek(d, &h);
	if (h.n == 0 || (uint32) x < h.first || (uint32) x > h.last)
		return false;
	if ((uint32) x == h.first || (uint32) x == h.last)
		return true;
	posting_open(d, &pl);
	return gpx_contains(&pl.l, (uint32) x);
}

/* contains(T, int4) -> bool, the @> operator. */
PG_FUNCTION_INFO_V1(posting_contains);
Datum
posting_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_has(PG_GETARG_DATUM(0), PG_GETARG_INT32(1)));
}

/* contained_in(int4, T) -> bool, the <@ operator. */
PG_FUNCTION_INFO_V1(posting_contained_in);
Datum
posting_contained_in(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_has(PG_GETARG_DATUM(1), PG_GETARG_INT32(0)));
}

/* nth(T, bigint) -> int4: the i-th docID, 1-based; NULL outside [1, n]. */
PG_FUNCTION_INFO_V1(posting_nth);
Datum
posting_nth(PG_FUNCTION_ARGS)
{
	int64		i = PG_GETARG_INT64(1);
	gpx_list	h;
	PostingList pl;

	posting_peek(PG_GETARG_DATUM(0), &h);
	if (i < 1 || i > (int64) h.n)
		PG_RETURN_NULL();
	if (i == 1)
		PG_RETURN_INT32((int32) h.first);
	if (i == (int64) h.n)
		PG_RETURN_INT32((int32) h.last);
	posting_open(PG_GETARG_DATUM(0), &pl);
	PG_RETURN_INT32((int32) gpx_nth(&pl.l, (uint32) (i - 1)));
}

/*
 * rank(T, int4) -> bigint: the number of docIDs <= x.  The header answers
 * for x outside [first, last); otherwise the directory, then one block.
 */
PG_FUNCTION_INFO_V1(posting_rank);
Datum
posting_rank(PG_FUNCTION_ARGS)
{
	int32		x = PG_GETARG_INT32(1);
	gpx_list	h;
	PostingList pl;

	if (x < 0)
		PG_RETURN_INT64(0);
	posting_peek(PG_GETARG_DATUM(0), &h);
	if (h.n == 0 || (uint32) x < h.first)
		PG_RETURN_INT64(0);
	if ((uint32) x >= h.last)
		PG_RETURN_INT64((int64) h.n);
	posting_open(PG_GETARG_DATUM(0), &pl);
	PG_RETURN_INT64((int64) gpx_rank(&pl.l, (uint32) x));
}
