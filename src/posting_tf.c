/*
 * posting_tf.c - posting lists with term frequencies (format v2 tf
 * section, src/codec/gpx_codec.h): the T(int4[], int4[]) constructors, the
 * T_agg(int4, int4) aggregates (parallel safe), and the readers tfs(T),
 * has_tfs(T) and unnest_tf(T).  A repeated docID adds its frequencies.
 */
#include "posting.h"
#include "posting_aggbuf.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "access/htup_details.h"
#include "miscadmin.h"

/* One (docID, tf) pair of a list being built. */
typedef struct PostingTfPair
{
	uint32		doc;
	uint32		tf;
} PostingTfPair;

/*
 * Transition state of the T_agg(int4, int4) aggregates: a PostingAggBuf of
 * PostingTfPair, in arrival order.
 */
#define POSTING_TF_PAIRS(st) POSTING_AGGBUF_AT(st, PostingTfPair, 0)

/* A frequency below 1 is an error. */
static void
posting_check_tf(int32 tf)
{
	if (tf < 1)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("term frequency %d is out of range", tf),
				 errdetail("Term frequencies must be between 1 and %u.", GPX_MAX_DOCID)));
}

/* qsort order of pairs: by docID. */
static int
posting_tf_cmp(const void *a, const void *b)
{
	uint32		x = ((const PostingTfPair *) a)->doc,
				y = ((const PostingTfPair *) b)->doc;

	return x < y ? -1 : x > y;
}

/*
 * Sort pairs by docID and merge repeats of a docID into one pair whose tf
 * is the sum (an error past 2^31 - 1); returns the new count.
 */
static uint32
posting_tf_merge(PostingTfPair *p, uint32 n)
{
	uint32		o = 0;

	if (n == 0)
		return 0;
	qsort(p, n, sizeof(PostingTfPair), posting_tf_cmp);
	for (uint32 i = 1; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (p[i].doc == p[o].doc)
		{
			uint64		sum = (uint64) p[o].tf + p[i].tf;

			if (sum > GPX_MAX_DOCID)
				ereport(ERROR,
						(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
						 errmsg("term frequency of docID %u is out of range", p[o].doc),
						 errdetail("Its frequencies add up to more than %u.", GPX_MAX_DOCID)));
			p[o].tf = (uint32) sum;
		}
		else
			p[++o] = p[i];
	}
	return o + 1;
}

/* Encode merged pairs p[0..n) with codec as a list with frequencies. */
static Datum
posting_tf_build(int codec, const PostingTfPair *p, uint32 n)
{
	uint32	   *docs = (uint32 *) palloc(Max(n, 1) * sizeof(uint32));
	uint32	   *tfs = (uint32 *) palloc(Max(n, 1) * sizeof(uint32));

	for (uint32 i = 0; i < n; i++)
	{
		docs[i] = p[i].doc;
		tfs[i] = p[i].tf;
	}
	return posting_build_tf(codec, docs, tfs, n);
}

/* Elements of a one-dimensional int4[] without NULLs (what is an error). */
static uint32
posting_tf_array(ArrayType *a, const char *what, const int32 **data)
{
	int			ndim = ARR_NDIM(a);
	uint32		n;

	if (ARR_ELEMTYPE(a) != INT4OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s array must be of type integer[]", what)));
	if (ndim > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s array must be one-dimensional", what),
				 errdetail("The array has %d dimensions.", ndim)));
	if (array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s array must not contain nulls", what),
				 errdetail("Posting lists cannot contain NULL elements.")));
	n = ndim == 0 ? 0 : (uint32) ArrayGetNItems(ndim, ARR_DIMS(a));
	*data = (const int32 *) ARR_DATA_PTR(a);
	return n;
}

/* T(docids int4[], tfs int4[]): pairs by position, repeats add up. */
static Datum
posting_from_arrays_common(FunctionCallInfo fcinfo, int codec)
{
	const int32 *d,
			   *t;
	uint32		n = posting_tf_array(PG_GETARG_ARRAYTYPE_P(0), "docID", &d);
	uint32		nt = posting_tf_array(PG_GETARG_ARRAYTYPE_P(1), "term frequency", &t);
	PostingTfPair *p;

	if (n != nt)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("docID and term frequency arrays must have the same length"),
				 errdetail("There are %u docIDs and %u frequencies.", n, nt)));
	if (n > POSTING_MAX_ELEMS)
		posting_report_too_many(psprintf("to build a %s", posting_type_name(codec)), n);
	p = (PostingTfPair *) palloc(Max(n, 1) * sizeof(PostingTfPair));
	for (uint32 i = 0; i < n; i++)
	{
		if (d[i] < 0)
			posting_report_negative(d[i]);
		posting_check_tf(t[i]);
		p[i].doc = (uint32) d[i];
		p[i].tf = (uint32) t[i];
	}
	n = posting_tf_merge(p, n);
	PG_RETURN_DATUM(posting_tf_build(codec, p, n));
}

/*
 * Transition: add a (docID, tf) row; a row with a NULL docID is skipped,
 * a NULL tf with a docID, a negative docID or a tf below 1 is an error.
 */
PG_FUNCTION_INFO_V1(posting_tf_agg_trans);
Datum
posting_tf_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx = posting_aggbuf_context(fcinfo, "posting_tf_agg_trans");
	PostingAggBuf *st = PG_ARGISNULL(0) ? NULL :
		(PostingAggBuf *) PG_GETARG_POINTER(0);
	PostingTfPair *pr;
	int32		d,
				t;

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	d = PG_GETARG_INT32(1);
	if (d < 0)
		posting_report_negative(d);
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("term frequency of docID %d must not be null", d)));
	t = PG_GETARG_INT32(2);
	posting_check_tf(t);
	if (st == NULL)
		st = posting_aggbuf_new(aggctx, sizeof(PostingTfPair), 0);
	pr = (PostingTfPair *) posting_aggbuf_push(st);
	pr->doc = (uint32) d;
	pr->tf = (uint32) t;
	PG_RETURN_POINTER(st);
}

/* Combine two partial states (parallel aggregation). */
PG_FUNCTION_INFO_V1(posting_tf_agg_combine);
Datum
posting_tf_agg_combine(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_combine(fcinfo, sizeof(PostingTfPair),
								  "posting_tf_agg_combine");
}

/* Serialize a state as a bytea of native (docID, tf) pairs. */
PG_FUNCTION_INFO_V1(posting_tf_agg_serialize);
Datum
posting_tf_agg_serialize(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_serialize(fcinfo, "posting_tf_agg_serialize");
}

/* Deserialize a state written by posting_tf_agg_serialize. */
PG_FUNCTION_INFO_V1(posting_tf_agg_deserialize);
Datum
posting_tf_agg_deserialize(PG_FUNCTION_ARGS)
{
	return posting_aggbuf_deserialize(fcinfo, sizeof(PostingTfPair),
									  "posting_tf_agg_deserialize");
}

/*
 * Final: merge (sort, add the tfs of repeats) into a copy and encode; no
 * non-NULL row gives NULL.  The state stays as it was (window frames and
 * shared states may call again).
 */
static Datum
posting_tf_agg_final_common(FunctionCallInfo fcinfo, int codec)
{
	PostingAggBuf *st;
	PostingTfPair *p;
	uint32		n;

	(void) posting_aggbuf_context(fcinfo, "posting_tf_agg_final");
	st = PG_ARGISNULL(0) ? NULL : (PostingAggBuf *) PG_GETARG_POINTER(0);
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	p = (PostingTfPair *) palloc_extended((Size) st->n * sizeof(PostingTfPair),
										  MCXT_ALLOC_HUGE);
	memcpy(p, POSTING_TF_PAIRS(st), (Size) st->n * sizeof(PostingTfPair));
	n = posting_tf_merge(p, st->n);
	PG_RETURN_DATUM(posting_tf_build(codec, p, n));
}

/* has_tfs(T) -> bool: whether the list carries frequencies (header only). */
PG_FUNCTION_INFO_V1(posting_has_tfs);
Datum
posting_has_tfs(PG_FUNCTION_ARGS)
{
	gpx_list	l;

	posting_peek(PG_GETARG_DATUM(0), &l);
	PG_RETURN_BOOL(l.n > 0 && (l.flags & GPX_F_TF) != 0);
}

/*
 * tfs(T) -> int4[]: the frequencies in docID order; NULL for a non-empty
 * list stored without them, '{}' for an empty list.
 */
PG_FUNCTION_INFO_V1(posting_tfs);
Datum
posting_tfs(PG_FUNCTION_ARGS)
{
	PostingList pl;
	ArrayType  *r;
	uint32	   *out,
				done = 0,
				buf[GPX_MAX_BLOCK];

	posting_open(PG_GETARG_DATUM(0), &pl);
	if (pl.l.n > 0 && !gpx_has_tfs(&pl.l))
		PG_RETURN_NULL();
	r = posting_array_alloc(pl.l.n);
	out = pl.l.n > 0 ? (uint32 *) ARR_DATA_PTR(r) : NULL;
	for (uint32 b = 0; b < pl.l.nblocks && pl.l.n > 0; b++)
	{
		uint32		c;

		CHECK_FOR_INTERRUPTS();
		c = gpx_decode_block_tfs(&pl.l, b, buf);
		memcpy(out + done, buf, (Size) c * sizeof(uint32));
		done += c;
	}
	PG_RETURN_ARRAYTYPE_P(r);
}

/* State of unnest_tf: the open list and the decoded block. */
typedef struct PostingUnnestTfState
{
	PostingList pl;
	bool		has;
	uint32		blk;
	uint32		pos;
	uint32		cnt;
	uint32		docs[GPX_MAX_BLOCK];
	uint32		tfs[GPX_MAX_BLOCK];
} PostingUnnestTfState;

/*
 * unnest_tf(T) -> setof (docid int4, tf int4): the postings in docID order,
 * tf NULL for a list stored without frequencies; decoded block by block.
 */
PG_FUNCTION_INFO_V1(posting_unnest_tf);
Datum
posting_unnest_tf(PG_FUNCTION_ARGS)
{
	FuncCallContext *fctx;
	PostingUnnestTfState *st;
	Datum		vals[2];
	bool		nulls[2] = {false, false};
	HeapTuple	tup;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;
		TupleDesc	td;

		fctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(fctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &td) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "unnest_tf: return type must be a row type");
		fctx->tuple_desc = BlessTupleDesc(td);
		st = (PostingUnnestTfState *) palloc(sizeof(PostingUnnestTfState));
		posting_open(PG_GETARG_DATUM(0), &st->pl);
		st->has = gpx_has_tfs(&st->pl.l);
		st->blk = 0;
		st->pos = 0;
		st->cnt = 0;
		fctx->user_fctx = st;
		MemoryContextSwitchTo(old);
	}
	fctx = SRF_PERCALL_SETUP();
	st = (PostingUnnestTfState *) fctx->user_fctx;
	if (st->pos >= st->cnt)
	{
		if (st->blk >= st->pl.l.nblocks || st->pl.l.n == 0)
			SRF_RETURN_DONE(fctx);
		st->cnt = gpx_decode_block(&st->pl.l, st->blk, st->docs);
		if (st->has)
			(void) gpx_decode_block_tfs(&st->pl.l, st->blk, st->tfs);
		st->blk++;
		st->pos = 0;
		if (st->cnt == 0)
			elog(ERROR, "gpuidx: empty block in posting list");
	}
	vals[0] = Int32GetDatum((int32) st->docs[st->pos]);
	vals[1] = Int32GetDatum(st->has ? (int32) st->tfs[st->pos] : 0);
	nulls[1] = !st->has;
	st->pos++;
	tup = heap_form_tuple(fctx->tuple_desc, vals, nulls);
	SRF_RETURN_NEXT(fctx, HeapTupleGetDatum(tup));
}

/* Per-type wrappers: the codec comes from the type. */
#define POSTING_TF_WRAPPERS(name, codec) \
PG_FUNCTION_INFO_V1(posting_##name##_from_arrays); \
Datum \
posting_##name##_from_arrays(PG_FUNCTION_ARGS) \
{ \
	return posting_from_arrays_common(fcinfo, codec); \
} \
PG_FUNCTION_INFO_V1(posting_##name##_tf_agg_final); \
Datum \
posting_##name##_tf_agg_final(PG_FUNCTION_ARGS) \
{ \
	return posting_tf_agg_final_common(fcinfo, codec); \
}

POSTING_FOR_EACH_CODEC(POSTING_TF_WRAPPERS)

/*
 * The list datum d without its frequencies: d itself when it has none,
 * else its docIDs re-encoded (set algebra, updates and union aggregates
 * return lists without frequencies, also when an operand is the answer).
 */
Datum
posting_without_tfs(Datum d)
{
	gpx_list	h;
	PostingList pl;
	uint32	   *docs;

	posting_peek(d, &h);
	if (h.n == 0 || (h.flags & GPX_F_TF) == 0)
		return d;
	posting_open(d, &pl);
	docs = posting_decode_all(&pl, psprintf("to build a %s", posting_type_name(h.codec)));
	return posting_build(h.codec, docs, pl.l.n);
}

/*
 * Build a list with frequencies from docs[i] occurring tfs[i] times (any
 * order; repeats add up): the text input's pairs form.
 */
Datum
posting_build_pairs(int codec, const uint32 *docs, const uint32 *tfs, uint32 n)
{
	PostingTfPair *p = (PostingTfPair *) palloc_extended((Size) Max(n, 1) * sizeof(PostingTfPair),
														 MCXT_ALLOC_HUGE);

	for (uint32 i = 0; i < n; i++)
	{
		p[i].doc = docs[i];
		p[i].tf = tfs[i];
	}
	n = posting_tf_merge(p, n);
	return posting_tf_build(codec, p, n);
}
