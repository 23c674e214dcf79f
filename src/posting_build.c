/*
 * posting_build.c - building posting values: from int4[] (the T(int4[])
 * functions and casts), from rows (the T_agg(int4) aggregates, parallel
 * safe through combine / serialize / deserialize), and from another
 * posting type (decode + re-encode casts).
 */
#include "posting.h"
#include "posting_aggbuf.h"

#include "catalog/pg_type.h"

/*
 * Transition state of the T_agg(int4) aggregates: a PostingAggBuf of the
 * non-NULL inputs (uint32) in arrival order.  The final function sorts and
 * deduplicates in place; that leaves the same set of values, so the state
 * stays valid for more transitions or another final call (window frames,
 * aggregates sharing one state).
 */
#define POSTING_AGG_VALS(st) POSTING_AGGBUF_AT(st, uint32, 0)

/* int4[] -> type: NULLs, negatives and multi-dimensional arrays are errors. */
static Datum
posting_from_array_common(FunctionCallInfo fcinfo, int codec)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	int			ndim = ARR_NDIM(a);
	const int32 *src;
	uint32	   *docs;
	uint32		n,
				i;

	if (ARR_ELEMTYPE(a) != INT4OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("docID array must be of type integer[]")));
	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("docID array must be one-dimensional"),
				 errdetail("The array has %d dimensions.", ndim)));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("docID array must not contain nulls"),
				 errdetail("Posting lists cannot contain NULL elements.")));
	n = ndim == 0 ? 0 : (uint32) ArrayGetNItems(ndim, ARR_DIMS(a));
	if (n > POSTING_MAX_ELEMS)
		posting_report_too_many(psprintf("to build a %s",
										 posting_type_name(codec)), n);
	src = (const int32 *) ARR_DATA_PTR(a);
	docs = (uint32 *) palloc(Max(n, 1) * sizeof(uint32));
	for (i = 0; i < n; i++)
	{
		if (src[i] < 0)
			posting_report_negative(src[i]);
		docs[i] = (uint32) src[i];
	}
	n = posting_sort_unique(docs, n);
	PG_RETURN_DATUM(posting_build(codec, docs, n));
}

/*
 * One posting type -> another: decode and re-encode, frequencies too (same
 * codec: as is).
 */
static Datum
posting_recode_common(FunctionCallInfo fcinfo, int codec)
{
	PostingList pl;
	gpx_list	h;
	uint32	   *docs;

	/* the limit first, from the header: nothing else is read beyond it */
	posting_peek(PG_GETARG_DATUM(0), &h);
	if (h.codec != codec && h.n > POSTING_MAX_ELEMS)
		posting_report_too_many(psprintf("to cast to %s", posting_type_name(codec)),
								h.n);
	posting_open(PG_GETARG_DATUM(0), &pl);
	if (pl.l.codec == codec)
		PG_RETURN_POINTER(pl.vl);
	docs = posting_decode_all(&pl, psprintf("to cast to %s",
											posting_type_name(codec)));
	if (gpx_has_tfs(&pl.l))
	{
		/* the frequencies come along */
		uint32	   *tfs = (uint32 *) palloc((Size) pl.l.n * sizeof(uint32));

		gpx_decode_tfs(&pl.l, tfs);
		PG_RETURN_DATUM(posting_build_tf(codec, docs, tfs, pl.l.n));
	}
	PG_RETURN_DATUM(posting_build(codec, docs, pl.l.n));
}

/* Transition: append a docID; NULL inputs are skipped, negatives rejected. */
PG_FUNCTION_INFO_V1(posting_agg_trans);
Datum
posting_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = posting_aggbuf_context(fcinfo, "posting_agg_trans");
	PostingAggBuf *st;
	int32		v;

	st = PG_ARGISNULL(0) ? NULL : (PostingAggBuf *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	v = PG_GETARG_INT32(1);
	if (v < 0)
		posting_report_negative(v);
	if (st == NULL)
		st = posting_aggbuf_new(aggctx, sizeof(uint32), 0);
	/* a repeat of the previous value adds nothing: don't store it */
	else if (st->n > 0 && POSTING_AGG_VALS(st)[st->n - 1] == (uint32) v)
		PG_RETURN_POINTER(st);
	*(uint32 *) posting_aggbuf_push(st) = (uint32) v;
	PG_RETURN_POINTER(st);
}

/* Combine two partial states (parallel aggregation). */
PG_FUNCTION_INFO_V1(posting_agg_combine);
Datum
posting_agg_combine(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_combine(fcinfo, sizeof(uint32), "posting_agg_combine");
}

/* Serialize a state as a bytea of native uint32 values. */
PG_FUNCTION_INFO_V1(posting_agg_serialize);
Datum
posting_agg_serialize(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_serialize(fcinfo, "posting_agg_serialize");
}

/* Deserialize a state written by posting_agg_serialize. */
PG_FUNCTION_INFO_V1(posting_agg_deserialize);
Datum
posting_agg_deserialize(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_deserialize(fcinfo, sizeof(uint32),
									  "posting_agg_deserialize");
}

/* Final: sort, deduplicate and encode; no non-NULL input -> NULL. */
static Datum
posting_agg_final_common(FunctionCallInfo fcinfo, int codec)
{
	PostingAggBuf *st;

	(void) posting_aggbuf_context(fcinfo, "posting_agg_final");
	st = PG_ARGISNULL(0) ? NULL : (PostingAggBuf *) PG_GETARG_POINTER(0);
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	st->n = posting_sort_unique(POSTING_AGG_VALS(st), st->n);
	PG_RETURN_DATUM(posting_build(codec, POSTING_AGG_VALS(st), st->n));
}

/* Per-type wrappers: the codec comes from the type. */
#define POSTING_BUILD_WRAPPERS(name, codec) \
PG_FUNCTION_INFO_V1(posting_##name##_from_array); \
Datum \
posting_##name##_from_array(PG_FUNCTION_ARGS) \
{ \
	return posting_from_array_common(fcinfo, codec); \
} \
PG_FUNCTION_INFO_V1(posting_##name##_recode); \
Datum \
posting_##name##_recode(PG_FUNCTION_ARGS) \
{ \
	return posting_recode_common(fcinfo, codec); \
} \
PG_FUNCTION_INFO_V1(posting_##name##_agg_final); \
Datum \
posting_##name##_agg_final(PG_FUNCTION_ARGS) \
{ \
	return posting_agg_final_common(fcinfo, codec); \
}

POSTING_FOR_EACH_CODEC(POSTING_BUILD_WRAPPERS)
