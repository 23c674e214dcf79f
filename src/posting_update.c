/*
 * posting_update.c - adding and removing docIDs:
 *
 *   posting_add(T, int4[]) -> T      also T + int4 (posting_add(T, int4))
 *   posting_remove(T, int4[]) -> T   also T - int4 (posting_remove(T, int4))
 *
 * The array may be in any order, with duplicates; NULL elements and
 * negative docIDs are errors (like building a list).  Adding docIDs all
 * above the list's last one, the common case (new documents get new ids),
 * goes through gpx_append: the blocks before the last are copied as bytes
 * and only the tail is encoded, so the encoding work does not grow with
 * the list.  Any other change decodes the list, merges and encodes.  A
 * change that changes nothing returns the list as it is.
 */
#include "posting.h"

#include "catalog/pg_type.h"

#include "gpx_append.h"
#include "gpx_setops.h"

/*
 * The docIDs of an int4[] argument, sorted and deduplicated, in a new
 * palloc'd array: the same rules as building a list (NULL elements 22004,
 * negative docIDs 22003, more than one dimension 2202E).
 */
static uint32 *
posting_update_docs(ArrayType *a, const char *fname, uint32 *n_out)
{
	int			ndim = ARR_NDIM(a);
	const int32 *src;
	uint32	   *docs;
	uint32		n;

	if (ARR_ELEMTYPE(a) != INT4OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s takes an integer[] of docIDs", fname)));
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
	src = (const int32 *) ARR_DATA_PTR(a);
	docs = (uint32 *) palloc(Max(n, 1) * sizeof(uint32));
	for (uint32 i = 0; i < n; i++)
	{
		if (src[i] < 0)
			posting_report_negative(src[i]);
		docs[i] = (uint32) src[i];
	}
	*n_out = posting_sort_unique(docs, n);
	return docs;
}

/* Report a failure of the codec core on a trusted list. */
static void
posting_update_report(gpx_status st, const char *fname, int codec, uint64 n)
{
	if (st == GPX_E_TOOBIG)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s value is too large", posting_type_name(codec)),
				 errdetail("A list of " UINT64_FORMAT " docIDs does not fit in one value.", n)));
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("%s on a %s value failed: %s", fname,
					posting_type_name(codec), gpx_status_str(st))));
}

/* docs[0..m) (all above the list's last docID) appended to an open list. */
static Datum
posting_append(const PostingList *pl, const uint32 *docs, uint32 m)
{
	const gpx_list *l = &pl->l;
	uint32		newlast = docs[m - 1];
	uint64		sc = gpx_append_scratch(l, m, newlast);
	size_t		cap = gpx_append_bound(l, m, newlast);
	uint32	   *scratch = NULL;
	struct varlena *vl;
	size_t		outlen = 0;
	gpx_status	st;

	if ((uint64) l->n + m > GPX_MAX_N)
		posting_update_report(GPX_E_TOOBIG, "posting_add", l->codec,
							  (uint64) l->n + m);
	if (sc > 0)
	{
		if (sc > MaxAllocHugeSize / sizeof(uint32))
			posting_report_too_many("to add to a list", sc);
		scratch = (uint32 *) MemoryContextAllocHuge(CurrentMemoryContext,
													(Size) sc * sizeof(uint32));
	}
	if (cap > MaxAllocSize - VARHDRSZ)
	{
		/* the bound is above 1 GB; the value itself may still fit */
		uint8	   *tmp = MemoryContextAllocHuge(CurrentMemoryContext, cap);

		st = gpx_append(l, docs, m, scratch, sc, tmp, cap, &outlen);
		if (st != GPX_OK)
			posting_update_report(st, "posting_add", l->codec, (uint64) l->n + m);
		if (outlen > MaxAllocSize - VARHDRSZ)
			posting_update_report(GPX_E_TOOBIG, "posting_add", l->codec,
								  (uint64) l->n + m);
		vl = (struct varlena *) palloc(VARHDRSZ + outlen);
		memcpy(VARDATA(vl), tmp, outlen);
		pfree(tmp);
	}
	else
	{
		vl = (struct varlena *) palloc(VARHDRSZ + cap);
		st = gpx_append(l, docs, m, scratch, sc, (uint8 *) VARDATA(vl), cap,
						&outlen);
		if (st != GPX_OK)
			posting_update_report(st, "posting_add", l->codec, (uint64) l->n + m);
	}
	SET_VARSIZE(vl, VARHDRSZ + outlen);
	if (scratch != NULL)
		pfree(scratch);
	return PointerGetDatum(vl);
}

/* The list datum d with docs[0..m) (sorted, unique) added. */
static Datum
posting_add_docs(Datum d, const uint32 *docs, uint32 m)
{
	gpx_list	h;
	PostingList pl;
	uint64		bound;
	uint32	   *out;
	uint32		n = 0;
	gpx_status	st;

	posting_peek(d, &h);
	if (m == 0)
		return posting_without_tfs(d);
	if (h.n == 0)
		return posting_build(h.codec, docs, m);
	posting_open(d, &pl);
	if (docs[0] > h.last)
		return posting_append(&pl, docs, m);
	bound = (uint64) pl.l.n + m;
	if (bound > POSTING_MAX_ELEMS)
		posting_report_too_many(psprintf("to add to a %s",
										 posting_type_name(h.codec)), bound);
	out = (uint32 *) palloc(bound * sizeof(uint32));
	st = gpx_union_array(&pl.l, docs, m, out, (uint32) bound, &n);
	if (st != GPX_OK)
		posting_update_report(st, "posting_add", h.codec, bound);
	if (n == pl.l.n)
		return posting_without_tfs(d);	/* every docID was there already */
	return posting_build(h.codec, out, n);
}

/* The list datum d with docs[0..m) (sorted, unique) removed. */
static Datum
posting_remove_docs(Datum d, const uint32 *docs, uint32 m)
{
	gpx_list	h;
	PostingList pl;
	uint32	   *out;
	uint32		n = 0;
	gpx_status	st;

	posting_peek(d, &h);
	if (m == 0 || h.n == 0 || docs[m - 1] < h.first || docs[0] > h.last)
		return posting_without_tfs(d);
	posting_open(d, &pl);
	if (pl.l.n > POSTING_MAX_ELEMS)
		posting_report_too_many(psprintf("to remove from a %s",
										 posting_type_name(h.codec)), pl.l.n);
	out = (uint32 *) palloc(Max(pl.l.n, 1) * sizeof(uint32));
	st = gpx_difference_array(&pl.l, docs, m, out, pl.l.n, &n);
	if (st != GPX_OK)
		posting_update_report(st, "posting_remove", h.codec, pl.l.n);
	if (n == pl.l.n)
		return posting_without_tfs(d);	/* none of the docIDs was there */
	return posting_build(h.codec, out, n);
}

/* posting_add(T, int4[]) -> T. */
PG_FUNCTION_INFO_V1(posting_add);
Datum
posting_add(PG_FUNCTION_ARGS)
{
	uint32		m;
	uint32	   *docs = posting_update_docs(PG_GETARG_ARRAYTYPE_P(1),
										   "posting_add", &m);

	PG_RETURN_DATUM(posting_add_docs(PG_GETARG_DATUM(0), docs, m));
}

/* posting_add(T, int4) -> T: the T + int4 operator. */
PG_FUNCTION_INFO_V1(posting_add_one);
Datum
posting_add_one(PG_FUNCTION_ARGS)
{
	int32		v = PG_GETARG_INT32(1);
	uint32		doc;

	if (v < 0)
		posting_report_negative(v);
	doc = (uint32) v;
	PG_RETURN_DATUM(posting_add_docs(PG_GETARG_DATUM(0), &doc, 1));
}

/* posting_remove(T, int4[]) -> T. */
PG_FUNCTION_INFO_V1(posting_remove);
Datum
posting_remove(PG_FUNCTION_ARGS)
{
	uint32		m;
	uint32	   *docs = posting_update_docs(PG_GETARG_ARRAYTYPE_P(1),
										   "posting_remove", &m);

	PG_RETURN_DATUM(posting_remove_docs(PG_GETARG_DATUM(0), docs, m));
}

/* posting_remove(T, int4) -> T: the T - int4 operator. */
PG_FUNCTION_INFO_V1(posting_remove_one);
Datum
posting_remove_one(PG_FUNCTION_ARGS)
{
	int32		v = PG_GETARG_INT32(1);
	uint32		doc;

	if (v < 0)
		posting_report_negative(v);
	doc = (uint32) v;
	PG_RETURN_DATUM(posting_remove_docs(PG_GETARG_DATUM(0), &doc, 1));
}
