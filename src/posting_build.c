/*
 * posting_build.c - building posting values: from int4[] (the T(int4[])
 * functions and casts), from rows (the T_agg(int4) aggregates, parallel
 * safe through combine / serialize / deserialize), and from another
 * posting type (decode + re-encode casts).
 */
#include "posting.h"

#include "catalog/pg_type.h"

/*
 * Transition state of the T_agg(int4) aggregates: the non-NULL inputs in
 * arrival order, allocated in the aggregate context.  The final function
 * sorts and deduplicates in place; that leaves the same set of values, so
 * the state stays valid for more transitions or another final call (window
 * frames, aggregates sharing one state).
 */
typedef struct PostingAggState
{
	uint32	   *vals;
	uint32		n;
	uint32		cap;
} PostingAggState;

/* Smallest capacity of a new aggregate state. */
#define POSTING_AGG_MIN_CAP 64

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

/* Make room for `more` values in an aggregate state, within the limit. */
static void
posting_agg_reserve(PostingAggState *st, uint64 more)
{
	uint64		need = (uint64) st->n + more;
	uint64		cap;

	if (need <= st->cap)
		return;
	if (need > POSTING_MAX_ELEMS)
		posting_report_too_many("in posting list aggregate", 0);
	cap = Max((uint64) st->cap * 2, need);
	cap = Min(cap, (uint64) POSTING_MAX_ELEMS);
	st->vals = (uint32 *) repalloc(st->vals, cap * sizeof(uint32));
	st->cap = (uint32) cap;
}

/* A new, empty aggregate state with room for cap values, in ctx. */
static PostingAggState *
posting_agg_new(MemoryContext ctx, uint32 cap)
{
	PostingAggState *st;

	cap = Max(cap, POSTING_AGG_MIN_CAP);
	st = (PostingAggState *) MemoryContextAlloc(ctx, sizeof(PostingAggState));
	st->vals = (uint32 *) MemoryContextAlloc(ctx, cap * sizeof(uint32));
	st->n = 0;
	st->cap = cap;
	return st;
}

/* The aggregate memory context, or an error outside an aggregate. */
static MemoryContext
posting_agg_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return aggctx;
}

/* Transition: append a docID; NULL inputs are skipped, negatives rejected. */
PG_FUNCTION_INFO_V1(posting_agg_trans);
Datum
posting_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = posting_agg_context(fcinfo, "posting_agg_trans");
	PostingAggState *st;
	int32		v;

	st = PG_ARGISNULL(0) ? NULL : (PostingAggState *) PG_GETARG_POINTER(0);
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
		st = posting_agg_new(aggctx, POSTING_AGG_MIN_CAP);
	/* a repeat of the previous value adds nothing: don't store it */
	else if (st->n > 0 && st->vals[st->n - 1] == (uint32) v)
		PG_RETURN_POINTER(st);
	posting_agg_reserve(st, 1);
	st->vals[st->n++] = (uint32) v;
	PG_RETURN_POINTER(st);
}

/* Combine two partial states (parallel aggregation). */
PG_FUNCTION_INFO_V1(posting_agg_combine);
Datum
posting_agg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = posting_agg_context(fcinfo, "posting_agg_combine");
	PostingAggState *s1 = PG_ARGISNULL(0) ? NULL :
		(PostingAggState *) PG_GETARG_POINTER(0);
	PostingAggState *s2 = PG_ARGISNULL(1) ? NULL :
		(PostingAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL || s2->n == 0)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = posting_agg_new(aggctx, s2->n);
	posting_agg_reserve(s1, s2->n);
	memcpy(s1->vals + s1->n, s2->vals, (size_t) s2->n * sizeof(uint32));
	s1->n += s2->n;
	PG_RETURN_POINTER(s1);
}

/* Serialize a state as a bytea of native uint32 values. */
PG_FUNCTION_INFO_V1(posting_agg_serialize);
Datum
posting_agg_serialize(PG_FUNCTION_ARGS)
{
	PostingAggState *st = (PostingAggState *) PG_GETARG_POINTER(0);
	Size		nbytes = (Size) st->n * sizeof(uint32);
	bytea	   *b;

	(void) posting_agg_context(fcinfo, "posting_agg_serialize");
	b = (bytea *) palloc(VARHDRSZ + nbytes);
	SET_VARSIZE(b, VARHDRSZ + nbytes);
	memcpy(VARDATA(b), st->vals, nbytes);
	PG_RETURN_BYTEA_P(b);
}

/* Deserialize a state written by posting_agg_serialize. */
PG_FUNCTION_INFO_V1(posting_agg_deserialize);
Datum
posting_agg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = posting_agg_context(fcinfo,
											   "posting_agg_deserialize");
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	Size		nbytes = VARSIZE(b) - VARHDRSZ;
	PostingAggState *st;

	if (nbytes % sizeof(uint32) != 0 ||
		nbytes / sizeof(uint32) > POSTING_MAX_ELEMS)
		elog(ERROR, "gpuidx: invalid serialized posting aggregate state");
	st = posting_agg_new(aggctx, (uint32) (nbytes / sizeof(uint32)));
	memcpy(st->vals, VARDATA(b), nbytes);
	st->n = (uint32) (nbytes / sizeof(uint32));
	PG_RETURN_POINTER(st);
}

/* Final: sort, deduplicate and encode; no non-NULL input -> NULL. */
static Datum
posting_agg_final_common(FunctionCallInfo fcinfo, int codec)
{
	PostingAggState *st;

	(void) posting_agg_context(fcinfo, "posting_agg_final");
	st = PG_ARGISNULL(0) ? NULL : (PostingAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	st->n = posting_sort_unique(st->vals, st->n);
	PG_RETURN_DATUM(posting_build(codec, st->vals, st->n));
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
