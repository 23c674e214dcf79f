/*
 * posting_rankagg.c - ranked retrieval as aggregates over list rows:
 *
 *   posting_rank_and_agg(list T, stats posting_doclen, k int4 [, k1, b])
 *   posting_rank_or_agg(list T, stats posting_doclen, k int4 [, k1, b])
 *       -> posting_hit[] (docid, score), best first, ties by smaller docID
 *
 * The same BM25 top-k as posting_rank_and / posting_rank_or
 * (posting_rank.c), one query per group, its terms in input order (give
 * ORDER BY for a defined order: the scores are summed in that order).  A
 * NULL list is a term no document holds (AND: no result; OR: it adds
 * nothing).  stats, k, k1 and b must be the same on every row.
 *
 * Why a second form: an array of lists, ARRAY(SELECT docs ...), is built
 * from detoasted copies, copied once more into the array, whereas an
 * aggregate sees a stored list as its TOAST pointer.  With the executor
 * running and a list cache, large stored lists are kept unread
 * (posting_stored.h); at the end the query goes to the executor where
 * gpuidx.device routes it, the lists its cache holds sent by key and
 * never read here (gpuidx_stats.lists_not_read), or is ranked in the
 * backend reading the lists the shared cache holds in place: no
 * detoasting, no copy (gpuidx_stats.lists_read_shared counts them).
 */
#include "posting.h"
#include "posting_rank.h"
#include "posting_stored.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "exec_cache.h"
#include "exec_client.h"
#include "exec_rank.h"

/* The rows of one group. */
typedef struct RankAggState
{
	MemoryContext cxt;
	Datum		stats;			/* the first row's, copied (maybe a pointer) */
	int32		k;
	double		k1;
	double		b;
	int			n;				/* terms so far */
	int			cap;
	struct varlena **vals;		/* per term: a detoasted copy, or NULL */
	PostingStored **stored;		/* per term: kept unread, or NULL */
} RankAggState;

/* Whether two varlena datums are the same bytes (TOAST pointers too). */
static bool
rankagg_same_varlena(Datum a, Datum b)
{
	const struct varlena *x = (const struct varlena *) DatumGetPointer(a),
			   *y = (const struct varlena *) DatumGetPointer(b);

	return VARSIZE_ANY(x) == VARSIZE_ANY(y) &&
		memcmp(x, y, VARSIZE_ANY(x)) == 0;
}

/* The group's state, created (and its scalar arguments checked) on row 1. */
static RankAggState *
rankagg_state(FunctionCallInfo fcinfo, int32 k, double k1, double b)
{
	MemoryContext cxt;
	RankAggState *st;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "posting_rank_and_agg / posting_rank_or_agg called in non-aggregate context");
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("collection statistics of a ranked query must not be null")));
	if (!PG_ARGISNULL(0))
	{
		st = (RankAggState *) PG_GETARG_POINTER(0);
		if (st->k != k || st->k1 != k1 || st->b != b ||
			!rankagg_same_varlena(st->stats, PG_GETARG_DATUM(2)))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a ranked aggregate needs the same statistics, k, k1 and b on every row of a group")));
		return st;
	}
	posting_rank_check_params(k, k1, b);
	st = MemoryContextAllocZero(cxt, sizeof(RankAggState));
	st->cxt = cxt;
	st->stats = datumCopy(PG_GETARG_DATUM(2), false, -1);
	st->k = k;
	st->k1 = k1;
	st->b = b;
	st->cap = 4;
	st->vals = MemoryContextAllocZero(cxt, sizeof(struct varlena *) * st->cap);
	st->stored = MemoryContextAllocZero(cxt, sizeof(PostingStored *) * st->cap);
	return st;
}

/* Add the row's list (argument 1) as the group's next term. */
static void
rankagg_add(FunctionCallInfo fcinfo, RankAggState *st)
{
	if (st->n >= GPX_RANK_MAX_TERMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a ranked query has at most %d terms", GPX_RANK_MAX_TERMS)));
	if (st->n == st->cap)
	{
		st->cap *= 2;
		st->vals = repalloc(st->vals, sizeof(struct varlena *) * st->cap);
		st->stored = repalloc(st->stored, sizeof(PostingStored *) * st->cap);
	}
	st->vals[st->n] = NULL;
	st->stored[st->n] = NULL;
	if (!PG_ARGISNULL(1))
	{
		struct varlena *raw = (struct varlena *) PG_GETARG_POINTER(1);

		if (posting_stored_worth(raw))
			st->stored[st->n] = posting_stored_new(st->cxt, raw);
		else
		{
			MemoryContext old = MemoryContextSwitchTo(st->cxt);

			st->vals[st->n] = PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(1));
			MemoryContextSwitchTo(old);
		}
	}
	st->n++;
}

/* Transition of the three-argument forms: (state, list, stats, k). */
PG_FUNCTION_INFO_V1(posting_rank_agg_trans);
Datum
posting_rank_agg_trans(PG_FUNCTION_ARGS)
{
	RankAggState *st;

	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("k of a ranked query must not be null")));
	st = rankagg_state(fcinfo, PG_GETARG_INT32(3), GPX_BM25_K1_DEFAULT,
					   GPX_BM25_B_DEFAULT);
	rankagg_add(fcinfo, st);
	PG_RETURN_POINTER(st);
}

/* Transition of the five-argument forms: (state, list, stats, k, k1, b). */
PG_FUNCTION_INFO_V1(posting_rank_agg_trans_bm25);
Datum
posting_rank_agg_trans_bm25(PG_FUNCTION_ARGS)
{
	const char *names[3] = {"k", "k1", "b"};
	RankAggState *st;

	for (int i = 0; i < 3; i++)
		if (PG_ARGISNULL(3 + i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s of a ranked query must not be null", names[i])));
	st = rankagg_state(fcinfo, PG_GETARG_INT32(3), PG_GETARG_FLOAT8(4),
					   PG_GETARG_FLOAT8(5));
	rankagg_add(fcinfo, st);
	PG_RETURN_POINTER(st);
}

/*
 * Rank a prepared one-query batch in the backend.  Its stored lists the
 * shared cache holds are read there in place (pinned while ranking, with
 * nothing in between that can raise an error), the others read; those
 * read are then offered to the cache.  lists[i] is &b->lists[i] for a
 * list in memory, &stored[i]->s.l for a stored one.
 */
static void
rankagg_backend(gpx_rank_batch *b, GpxExecStored **stored,
				const gpx_list **lists, bool any_stored)
{
	int			n = (int) b->nlists,
				pinned = 0;
	size_t		ws;
	void	   *work = posting_rank_work(b, &ws);
	gpx_list   *gl = (gpx_list *) b->lists;
	gpx_status	st;

	if (any_stored)
	{
		gpx_list   *opened = palloc(sizeof(gpx_list) * n);
		const gpx_list **use = palloc(sizeof(gpx_list *) * n);

		pinned = gpuidx_exec_pin_in_place(stored, lists, n, use, opened);
		for (int i = 0; i < n; i++)
			gl[i] = *use[i];
	}
	st = posting_rank_compute(b, work, ws);
	if (pinned > 0)
		gpuidx_exec_cache_read_unpin();
	posting_rank_finish(b, st);
	if (any_stored)
	{
		gpuidx_exec_note_read_shared(pinned);
		gpuidx_exec_offer_read(stored, n);
	}
	pfree(work);
}

/*
 * What writing posting_hit[] takes, found once per call site (fn_extra):
 * the element type, its descriptor, and one hit formed by heap_form_tuple
 * (its header is what every hit's is: the layout has two fixed-width
 * attributes and no nulls).
 */
typedef struct RankAggHitType
{
	Oid			elem;
	char		elemalign;
	TupleDesc	td;
	HeapTupleHeader tmpl;		/* a formed hit: header, then its data */
	Size		len;			/* its length */
	Size		stride;			/* one element in the array */
} RankAggHitType;

/* The element type of the final function's posting_hit[] result. */
static RankAggHitType *
rankagg_hit_type(FunctionCallInfo fcinfo)
{
	RankAggHitType *ht = (RankAggHitType *) fcinfo->flinfo->fn_extra;
	Oid			arr;
	MemoryContext old;
	Datum		values[2] = {Int32GetDatum(0), Float8GetDatum(0.0)};
	bool		nulls[2] = {false, false};
	HeapTuple	t;
	int16		typlen;
	bool		typbyval;

	if (ht != NULL)
		return ht;
	arr = get_fn_expr_rettype(fcinfo->flinfo);
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	ht = palloc0(sizeof(RankAggHitType));
	ht->elem = OidIsValid(arr) ? get_element_type(arr) : InvalidOid;
	if (!OidIsValid(ht->elem))
		elog(ERROR, "posting_rank_and_agg / posting_rank_or_agg must return an array of posting_hit");
	ht->td = lookup_rowtype_tupdesc_copy(ht->elem, -1);
	if (ht->td->natts != 2 ||
		TupleDescAttr(ht->td, 0)->atttypid != INT4OID ||
		TupleDescAttr(ht->td, 1)->atttypid != FLOAT8OID ||
		TupleDescAttr(ht->td, 0)->attisdropped ||
		TupleDescAttr(ht->td, 1)->attisdropped)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("type posting_hit must be (docid int4, score float8)"),
				 errhint("Recreate the extension, or restore the type as it was created.")));
	ht->td = BlessTupleDesc(ht->td);
	get_typlenbyvalalign(ht->elem, &typlen, &typbyval, &ht->elemalign);
	t = heap_form_tuple(ht->td, values, nulls);
	ht->tmpl = t->t_data;
	ht->len = t->t_len;
	ht->stride = att_align_nominal(ht->len, ht->elemalign);
	MemoryContextSwitchTo(old);
	fcinfo->flinfo->fn_extra = ht;
	return ht;
}

/*
 * The hits of a ranked batch's one query as posting_hit[], written
 * straight into the array: each element the formed hit's bytes with its
 * data filled by heap_fill_tuple, as heap_form_tuple fills it, without a
 * tuple allocated and copied per hit (a top-1000 has a thousand).
 */
static Datum
rankagg_hits(FunctionCallInfo fcinfo, const gpx_rank_batch *b)
{
	RankAggHitType *ht = rankagg_hit_type(fcinfo);
	uint32		n = b != NULL ? b->queries[0].out_count : 0;
	Size		nbytes = ARR_OVERHEAD_NONULLS(1) + (Size) n * ht->stride,
				hoff = ht->tmpl->t_hoff;
	ArrayType  *a;
	char	   *p;

	if (n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(ht->elem));
	a = (ArrayType *) palloc0(nbytes);
	SET_VARSIZE(a, nbytes);
	a->ndim = 1;
	a->dataoffset = 0;
	a->elemtype = ht->elem;
	ARR_DIMS(a)[0] = (int) n;
	ARR_LBOUND(a)[0] = 1;
	p = ARR_DATA_PTR(a);
	for (uint32 i = 0; i < n; i++, p += ht->stride)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint16		infomask = 0;

		values[0] = Int32GetDatum((int32) b->out_docs[i]);
		values[1] = Float8GetDatum(b->out_scores[i]);
		memcpy(p, ht->tmpl, ht->len);
		heap_fill_tuple(ht->td, values, nulls, p + hoff, ht->len - hoff,
						&infomask, NULL);
	}
	PG_RETURN_ARRAYTYPE_P(a);
}

/*
 * Final: the group's query ranked.  Lists in memory are opened; stored
 * ones resolved (header fields from the executor's cache directory, else
 * read).  A batch the executor takes sends the stored lists its cache
 * holds by key, never read here; one kept in the backend reads what it
 * can in place.
 */
static Datum
rankagg_final(FunctionCallInfo fcinfo, uint32 mode)
{
	RankAggState *st = PG_ARGISNULL(0) ? NULL : (RankAggState *) PG_GETARG_POINTER(0);
	gpx_doclen	dl;
	gpx_list   *gl;
	const gpx_list **lp;
	GpxExecStored **sv;
	PostingList *pls;
	gpx_rank_bterm *terms;
	gpx_rank_bquery bq;
	gpx_rank_batch b;
	uint32		nl = 0;
	bool		any_stored = false;

	if (!AggCheckCallContext(fcinfo, NULL))
		elog(ERROR, "posting_rank_and_agg / posting_rank_or_agg called in non-aggregate context");
	if (st == NULL || st->n == 0)
		return rankagg_hits(fcinfo, NULL);
	posting_rank_stats(st->stats, &dl);
	sv = palloc0(sizeof(GpxExecStored *) * st->n);
	for (int i = 0; i < st->n; i++)
		if (st->stored[i] != NULL)
		{
			sv[i] = &st->stored[i]->s;
			any_stored = true;
		}
	if (any_stored)
		gpuidx_exec_resolve(sv, st->n);

	/* the batch's lists: the non-NULL terms', in term order */
	gl = palloc(sizeof(gpx_list) * st->n);
	lp = palloc(sizeof(gpx_list *) * st->n);
	pls = palloc(sizeof(PostingList) * st->n);
	terms = palloc0(sizeof(gpx_rank_bterm) * st->n);
	for (int i = 0; i < st->n; i++)
	{
		terms[i].list = -1;
		if (sv[i] != NULL)
		{
			gl[nl] = sv[i]->l;
			lp[nl] = &sv[i]->l;
			sv[nl] = sv[i];
		}
		else if (st->vals[i] != NULL)
		{
			posting_open(PointerGetDatum(st->vals[i]), &pls[i]);
			gl[nl] = pls[i].l;
			lp[nl] = &gl[nl];
			sv[nl] = NULL;
		}
		else
			continue;
		posting_rank_check_list(&gl[nl], &dl);
		terms[i].list = (int32) nl++;
	}
	memset(&bq, 0, sizeof(bq));
	bq.nterms = (uint32) st->n;
	bq.mode = mode;
	bq.k = posting_rank_result_bound(&bq, terms, gl, (uint32) st->k);
	memset(&b, 0, sizeof(b));
	b.nqueries = 1;
	b.nterms = (uint32) st->n;
	b.nlists = nl;
	b.queries = &bq;
	b.terms = terms;
	b.lists = gl;
	b.doclen = &dl;
	b.k1 = st->k1;
	b.b = st->b;
	b.or_algo = GPX_RANK_AUTO;
	b.out_slots = bq.k;
	posting_rank_alloc_out(&b);
	posting_rank_prepare(&b);

	/*
	 * the executor takes the stored lists its cache holds by key, unread;
	 * the others are read as they are sent
	 */
	if (gpuidx_exec_rank_routed(&b) &&
		gpuidx_exec_rank_send(&b, any_stored ? sv : NULL))
		return rankagg_hits(fcinfo, &b);
	rankagg_backend(&b, sv, lp, any_stored);
	return rankagg_hits(fcinfo, &b);
}

/* Final function of posting_rank_and_agg. */
PG_FUNCTION_INFO_V1(posting_rank_and_final);
Datum
posting_rank_and_final(PG_FUNCTION_ARGS)
{
	return rankagg_final(fcinfo, GPX_RANK_MODE_AND);
}

/* Final function of posting_rank_or_agg. */
PG_FUNCTION_INFO_V1(posting_rank_or_final);
Datum
posting_rank_or_final(PG_FUNCTION_ARGS)
{
	return rankagg_final(fcinfo, GPX_RANK_MODE_OR);
}
