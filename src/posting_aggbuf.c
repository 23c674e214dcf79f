/*
 * posting_aggbuf.c - the transition state of the posting aggregates
 * (posting_aggbuf.h): a growable array of fixed-size elements in the
 * aggregate context, and the parallel support functions over it.
 */
#include "posting.h"
#include "posting_aggbuf.h"

/* Smallest capacity of a new buffer. */
#define POSTING_AGGBUF_MIN_CAP 64

/* The aggregate memory context, or an error outside an aggregate. */
MemoryContext
posting_aggbuf_context(FunctionCallInfo fcinfo, const char *fname)
{
	MemoryContext aggctx;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		elog(ERROR, "%s called in non-aggregate context", fname);
	return aggctx;
}

/* A new, empty buffer of elements of elem bytes with room for cap, in ctx. */
PostingAggBuf *
posting_aggbuf_new(MemoryContext ctx, uint32 elem, uint32 cap)
{
	PostingAggBuf *b;

	cap = Max(cap, POSTING_AGGBUF_MIN_CAP);
	b = (PostingAggBuf *) MemoryContextAlloc(ctx, sizeof(PostingAggBuf));
	b->data = (char *) MemoryContextAllocHuge(ctx, (Size) cap * elem);
	b->n = 0;
	b->cap = cap;
	b->elem = elem;
	return b;
}

/* Room for `more` elements, within POSTING_MAX_ELEMS (doubling). */
void
posting_aggbuf_reserve(PostingAggBuf *b, uint64 more)
{
	uint64		need = (uint64) b->n + more;
	uint64		cap;

	if (need <= b->cap)
		return;
	if (need > POSTING_MAX_ELEMS)
		posting_report_too_many("in posting list aggregate", 0);
	cap = Max((uint64) b->cap * 2, need);
	cap = Min(cap, (uint64) POSTING_MAX_ELEMS);
	b->data = (char *) repalloc_huge(b->data, (Size) cap * b->elem);
	b->cap = (uint32) cap;
}

/* Append one element (room made); returns where to write it. */
void *
posting_aggbuf_push(PostingAggBuf *b)
{
	posting_aggbuf_reserve(b, 1);
	return b->data + (Size) b->n++ * b->elem;
}

/* Combine two partial states (parallel aggregation): the second's after the first's. */
Datum
posting_aggbuf_combine(FunctionCallInfo fcinfo, uint32 elem, const char *fname)
{
	MemoryContext aggctx = posting_aggbuf_context(fcinfo, fname);
	PostingAggBuf *s1 = PG_ARGISNULL(0) ? NULL :
		(PostingAggBuf *) PG_GETARG_POINTER(0);
	PostingAggBuf *s2 = PG_ARGISNULL(1) ? NULL :
		(PostingAggBuf *) PG_GETARG_POINTER(1);

	if (s2 == NULL || s2->n == 0)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = posting_aggbuf_new(aggctx, elem, s2->n);
	posting_aggbuf_reserve(s1, s2->n);
	memcpy(s1->data + (Size) s1->n * elem, s2->data, (Size) s2->n * elem);
	s1->n += s2->n;
	PG_RETURN_POINTER(s1);
}

/* Serialize a state as a bytea of its elements in native byte order. */
Datum
posting_aggbuf_serialize(FunctionCallInfo fcinfo, const char *fname)
{
	PostingAggBuf *st = (PostingAggBuf *) PG_GETARG_POINTER(0);
	Size		nbytes = (Size) st->n * st->elem;
	bytea	   *b;

	(void) posting_aggbuf_context(fcinfo, fname);
	if (nbytes > MaxAllocSize - VARHDRSZ)
		posting_report_too_many("in a parallel posting list aggregate", st->n);
	b = (bytea *) palloc(VARHDRSZ + nbytes);
	SET_VARSIZE(b, VARHDRSZ + nbytes);
	memcpy(VARDATA(b), st->data, nbytes);
	PG_RETURN_BYTEA_P(b);
}

/* Deserialize a state written by posting_aggbuf_serialize. */
Datum
posting_aggbuf_deserialize(FunctionCallInfo fcinfo, uint32 elem,
						   const char *fname)
{
	MemoryContext aggctx = posting_aggbuf_context(fcinfo, fname);
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	Size		nbytes = VARSIZE(b) - VARHDRSZ;
	PostingAggBuf *st;

	if (nbytes % elem != 0 || nbytes / elem > POSTING_MAX_ELEMS)
		elog(ERROR, "gpuidx: invalid serialized posting aggregate state");
	st = posting_aggbuf_new(aggctx, elem, (uint32) (nbytes / elem));
	memcpy(st->data, VARDATA(b), nbytes);
	st->n = (uint32) (nbytes / elem);
	PG_RETURN_POINTER(st);
}
