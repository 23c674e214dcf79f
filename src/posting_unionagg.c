/*
 * posting_unionagg.c - the union aggregates over posting lists, the OR of
 * many lists (disjunctive queries):
 *
 *   posting_union_agg(T) -> T          the union as a list of type T
 *   posting_union(T) -> int4[]         the union as a sorted array (the
 *                                      counterpart of posting_intersect(T);
 *                                      posting_union(int4[]) unions arrays)
 *   posting_union_count(T) -> bigint   its size, no array built
 *
 * NULL rows are skipped; no non-NULL row gives NULL; empty lists count as
 * rows (the union is then empty, not NULL).  Parallel safe.
 *
 * The state keeps a detoasted copy of each non-empty input, compressed;
 * nothing is decoded before the final function, which unions them in the
 * codec core: gpx_union_many (two lists along their merge plan; more
 * through a tree of vectorised two-way merges when their docIDs
 * interleave, else through a heap of the lists' heads that hands over
 * whole runs, so a list whose docIDs do not interleave with the others'
 * costs one heap step per block), into the int4[] itself for
 * posting_union; the union of two lists as a list is encoded as it is
 * merged (gpx_setop_encode), never held as an array.  Above
 * POSTING_UNION_HEAP_MAX inputs the work area (about 2 kB per input) would
 * grow too large, and the inputs are then decoded into one array, sorted
 * and deduplicated instead.
 */
#include "posting.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"

#include "gpx_setops.h"

/* Most inputs merged by gpx_union_many (about 8 MB of work area). */
#define POSTING_UNION_HEAP_MAX 4096

/* Transition state: the non-empty inputs, detoasted copies. */
typedef struct UnionAggState
{
	int			n;
	int			cap;
	struct varlena **vals;
	int32		codec;			/* codec of the inputs' type */
	bool		any;			/* a non-NULL input came (maybe empty) */
} UnionAggState;

/* The aggregate memory context, or an error outside an aggregate. */
static MemoryContext
unionagg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "posting union aggregate support function called in non-aggregate context");
	return cxt;
}

/* A new empty state in cxt. */
static UnionAggState *
unionagg_new(MemoryContext cxt, int codec, int cap)
{
	UnionAggState *st = MemoryContextAllocZero(cxt, sizeof(UnionAggState));

	st->cap = Max(cap, 4);
	st->vals = MemoryContextAlloc(cxt, sizeof(struct varlena *) * st->cap);
	st->codec = codec;
	return st;
}

/* Append a copy of the list datum d (made in cxt) unless it is empty. */
static void
unionagg_add(UnionAggState *st, MemoryContext cxt, Datum d)
{
	gpx_list	h;
	MemoryContext old;

	posting_peek(d, &h);
	st->any = true;
	if (st->codec == 0)
		st->codec = h.codec;
	if (h.n == 0)
		return;
	if (st->n == st->cap)
	{
		st->cap *= 2;
		st->vals = repalloc(st->vals, sizeof(struct varlena *) * st->cap);
	}
	old = MemoryContextSwitchTo(cxt);
	st->vals[st->n++] = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
	MemoryContextSwitchTo(old);
}

/* Transition: keep a copy of each non-NULL, non-empty list. */
PG_FUNCTION_INFO_V1(posting_unionagg_trans);
Datum
posting_unionagg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = unionagg_context(fcinfo);
	UnionAggState *st = PG_ARGISNULL(0) ? NULL :
		(UnionAggState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (st == NULL)
		st = unionagg_new(cxt, 0, 4);
	unionagg_add(st, cxt, PG_GETARG_DATUM(1));
	PG_RETURN_POINTER(st);
}

/* Combine two partial states (parallel aggregation). */
PG_FUNCTION_INFO_V1(posting_unionagg_combine);
Datum
posting_unionagg_combine(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = unionagg_context(fcinfo);
	UnionAggState *s1 = PG_ARGISNULL(0) ? NULL :
		(UnionAggState *) PG_GETARG_POINTER(0);
	UnionAggState *s2 = PG_ARGISNULL(1) ? NULL :
		(UnionAggState *) PG_GETARG_POINTER(1);

	if (s2 == NULL || !s2->any)
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = unionagg_new(cxt, s2->codec, s2->n);
	s1->any = true;
	if (s1->codec == 0)
		s1->codec = s2->codec;
	for (int i = 0; i < s2->n; i++)
		unionagg_add(s1, cxt, PointerGetDatum(s2->vals[i]));
	PG_RETURN_POINTER(s1);
}

/* Serialize: int32 codec, int32 n, then each input varlena, int-aligned. */
PG_FUNCTION_INFO_V1(posting_unionagg_serialize);
Datum
posting_unionagg_serialize(PG_FUNCTION_ARGS)
{
	UnionAggState *st = (UnionAggState *) PG_GETARG_POINTER(0);
	Size		total = VARHDRSZ + 2 * sizeof(int32);
	bytea	   *b;
	char	   *p;

	(void) unionagg_context(fcinfo);
	for (int i = 0; i < st->n; i++)
		total += INTALIGN(VARSIZE(st->vals[i]));
	if (total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("posting union state is too large to pass between parallel workers"),
				 errhint("Run the query without parallelism.")));
	b = palloc0(total);
	SET_VARSIZE(b, total);
	p = VARDATA(b);
	memcpy(p, &st->codec, sizeof(int32));
	memcpy(p + sizeof(int32), &st->n, sizeof(int32));
	p += 2 * sizeof(int32);
	for (int i = 0; i < st->n; i++)
	{
		memcpy(p, st->vals[i], VARSIZE(st->vals[i]));
		p += INTALIGN(VARSIZE(st->vals[i]));
	}
	PG_RETURN_BYTEA_P(b);
}

/* Deserialize a state written by posting_unionagg_serialize. */
PG_FUNCTION_INFO_V1(posting_unionagg_deserialize);
Datum
posting_unionagg_deserialize(PG_FUNCTION_ARGS)
{
	MemoryContext cxt = unionagg_context(fcinfo);
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	const char *p = VARDATA(b),
			   *end = p + VARSIZE(b) - VARHDRSZ;
	int32		codec,
				n;
	UnionAggState *st;

	if (end - p < (ptrdiff_t) (2 * sizeof(int32)))
		elog(ERROR, "invalid serialized posting union state");
	memcpy(&codec, p, sizeof(int32));
	memcpy(&n, p + sizeof(int32), sizeof(int32));
	p += 2 * sizeof(int32);
	if (n < 0)
		elog(ERROR, "invalid serialized posting union state");
	st = unionagg_new(cxt, codec, n);
	st->any = true;
	for (int i = 0; i < n; i++)
	{
		uint32		sz;
		MemoryContext old;

		if (end - p < VARHDRSZ)
			elog(ERROR, "invalid serialized posting union state");
		memcpy(&sz, p, sizeof(uint32));
		sz = VARSIZE(&sz);
		if (sz < VARHDRSZ || (Size) (end - p) < sz)
			elog(ERROR, "invalid serialized posting union state");
		old = MemoryContextSwitchTo(cxt);
		st->vals[st->n] = palloc(sz);
		MemoryContextSwitchTo(old);
		memcpy(st->vals[st->n], p, sz);
		st->n++;
		p += INTALIGN(sz);
	}
	PG_RETURN_POINTER(st);
}

/* Report a failure of the codec core on trusted lists (a bug). */
static void
unionagg_report(gpx_status st)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("union of posting lists failed: %s", gpx_status_str(st))));
}

/*
 * The union of the state's inputs: into a new palloc'd array (*docs, if
 * docs is not NULL), into the data of a new int4[] (*arr, if arr is not
 * NULL; its length is the bound, for posting_array_truncate), or only its
 * size.  Returns the size.
 */
static uint32
unionagg_compute(UnionAggState *st, uint32 **docs, ArrayType **arr)
{
	PostingList *pls = palloc(sizeof(PostingList) * Max(st->n, 1));
	const gpx_list **ls = palloc(sizeof(gpx_list *) * Max(st->n, 1));
	bool		want = docs != NULL || arr != NULL;
	uint64		total = 0;
	uint32		n = 0;
	gpx_status	rc;

	for (int i = 0; i < st->n; i++)
	{
		posting_open(PointerGetDatum(st->vals[i]), &pls[i]);
		ls[i] = &pls[i].l;
		total += pls[i].l.n;
	}
	if (st->n <= POSTING_UNION_HEAP_MAX)
	{
		size_t		wb = gpx_union_many_work(st->n);
		void	   *work = palloc(Max(wb, 1));
		uint32	   *out = NULL;
		uint64		cap = total;

		if (want && cap > POSTING_MAX_ELEMS)
		{
			/* count first: the result may still fit */
			rc = gpx_union_many(ls, st->n, work, wb, NULL, 0, &n);
			if (rc != GPX_OK)
				unionagg_report(rc);
			if (n > POSTING_MAX_ELEMS)
				posting_report_too_many("in a union", n);
			cap = n;
		}
		if (arr != NULL)
		{
			*arr = posting_array_alloc((uint32) Max(cap, 1));
			out = (uint32 *) ARR_DATA_PTR(*arr);
		}
		else if (docs != NULL)
			out = palloc(Max(cap, 1) * sizeof(uint32));
		rc = gpx_union_many(ls, st->n, work, wb, out, (uint32) cap, &n);
		if (rc != GPX_OK)
			unionagg_report(rc);
		if (docs != NULL)
			*docs = out;
		pfree(work);
	}
	else
	{
		/* very many inputs: one array, sorted and deduplicated */
		uint32	   *all;
		uint64		pos = 0;

		if (total > POSTING_MAX_ELEMS)
			posting_report_too_many("in the inputs of a union of many lists", total);
		if (arr != NULL)
		{
			*arr = posting_array_alloc((uint32) Max(total, 1));
			all = (uint32 *) ARR_DATA_PTR(*arr);
		}
		else
			all = palloc(Max(total, 1) * sizeof(uint32));
		for (int i = 0; i < st->n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			posting_decode_into(ls[i], all + pos);
			pos += ls[i]->n;
		}
		n = posting_sort_unique(all, (uint32) total);
		if (docs != NULL)
			*docs = all;
	}
	return n;
}

/*
 * The union of the state's inputs as a datum of its codec.  Two inputs are
 * merged and encoded at once, straight into the datum (gpx_setop_encode,
 * the bytes posting_build writes for the union); more go through an array.
 */
static Datum
unionagg_build(UnionAggState *st)
{
	uint32	   *docs;
	uint32		n;

	if (st->n == 2)
	{
		PostingList pa,
					pb;
		size_t		cap,
					len = 0;

		posting_open(PointerGetDatum(st->vals[0]), &pa);
		posting_open(PointerGetDatum(st->vals[1]), &pb);
		cap = gpx_setop_encode_bound(GPX_SETOP_UNION, &pa.l, &pb.l, st->codec);
		if (gpx_union_bound(&pa.l, &pb.l) <= POSTING_MAX_ELEMS &&
			cap > 0 && cap <= MaxAllocSize - VARHDRSZ)
		{
			struct varlena *vl = (struct varlena *) palloc(VARHDRSZ + cap);
			gpx_status	rc = gpx_setop_encode(GPX_SETOP_UNION, &pa.l, &pb.l,
											  st->codec, (uint8_t *) VARDATA(vl),
											  cap, &len, &n);

			if (rc != GPX_OK)
				unionagg_report(rc);
			return posting_finish_blob(vl, cap, len);
		}
	}
	n = unionagg_compute(st, &docs, NULL);
	return posting_build(st->codec, docs, n);
}

/* The union of the state's inputs as an int4[], built in place. */
static ArrayType *
unionagg_array(UnionAggState *st)
{
	ArrayType  *arr;
	uint32		n = unionagg_compute(st, NULL, &arr);

	return posting_array_truncate(arr, n);
}

/* Final of posting_union_agg(T) -> T: the union, encoded in T's codec. */
PG_FUNCTION_INFO_V1(posting_unionagg_final);
Datum
posting_unionagg_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;

	(void) unionagg_context(fcinfo);
	st = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || !st->any)
		PG_RETURN_NULL();
	if (st->n == 1)
	{
		/*
		 * a union of one: a copy of itself (the state may be finalized
		 * again), without frequencies like every union
		 */
		struct varlena *v = palloc(VARSIZE(st->vals[0]));

		memcpy(v, st->vals[0], VARSIZE(st->vals[0]));
		PG_RETURN_DATUM(posting_without_tfs(PointerGetDatum(v)));
	}
	if (st->n == 0)
	{
		uint32		none = 0;

		PG_RETURN_DATUM(posting_build(st->codec, &none, 0));
	}
	PG_RETURN_DATUM(unionagg_build(st));
}

/* Final of posting_union(T) -> int4[]. */
PG_FUNCTION_INFO_V1(posting_unionagg_docids_final);
Datum
posting_unionagg_docids_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;

	(void) unionagg_context(fcinfo);
	st = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || !st->any)
		PG_RETURN_NULL();
	if (st->n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	PG_RETURN_ARRAYTYPE_P(unionagg_array(st));
}

/* Final of posting_union_count(T) -> bigint: the size, no array built. */
PG_FUNCTION_INFO_V1(posting_unionagg_count_final);
Datum
posting_unionagg_count_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;

	(void) unionagg_context(fcinfo);
	st = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || !st->any)
		PG_RETURN_NULL();
	PG_RETURN_INT64((int64) unionagg_compute(st, NULL, NULL));
}
