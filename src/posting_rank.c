/*
 * posting_rank.c - the SQL entry points of ranked retrieval (BM25 top-k,
 * src/codec/gpx_rank.h; the formula in src/codec/gpx_bm25.h and
 * docs/RANKING.md):
 *
 *   posting_rank_and(lists T[], stats posting_doclen, k int4, k1, b)
 *   posting_rank_or(lists T[], stats posting_doclen, k int4, k1, b)
 *       -> setof (docid int4, score float8), best first
 *   posting_rank_and_batch(qids bigint[], lists T[], stats, k, k1, b)
 *   posting_rank_or_batch(qids bigint[], lists T[], stats, k, k1, b)
 *       -> setof (qid bigint, docid int4, score float8): lists[i] is a
 *          term of query qids[i], in the order given; one batch
 *
 * The lists are the query's terms in order (a repeated term counts
 * twice); a NULL element is a term no document holds (AND: no result;
 * OR: it adds nothing).  A list stored without frequencies ranks as if
 * every tf were 1.  Every query of a call is one gpx_rank_batch, sent to
 * the executor as one request where gpuidx.device routes it (exec_rank.c).
 */
#include "posting.h"
#include "posting_doclen.h"
#include "posting_rank.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "portability/instr_time.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "exec_rank.h"
#include "gpx_rank_batch.h"

/* The checked scalar arguments of a ranked query. */
typedef struct RankArgs
{
	gpx_doclen	dl;
	int32		k;
	double		k1;
	double		b;
} RankArgs;

/* Check k, k1 and b of a ranked query. */
void
posting_rank_check_params(int32 k, double k1, double b)
{
	if (k < 1 || k > GPX_RANK_MAX_K)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must be between 1 and %d", GPX_RANK_MAX_K),
				 errdetail("k is %d.", k)));
	if (!(k1 >= 0.0 && k1 <= 1e300))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("BM25 parameter k1 must be a finite number >= 0"),
				 errdetail("k1 is %g.", k1)));
	if (!(b >= 0.0 && b <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("BM25 parameter b must be between 0 and 1"),
				 errdetail("b is %g.", b)));
}

/* Open the collection statistics d, which must be able to rank. */
void
posting_rank_stats(Datum d, gpx_doclen *dl)
{
	posting_doclen_fetch(d, dl);
	if (dl->ndocs == 0 || dl->total == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("collection statistics cannot rank"),
				 errdetail(dl->ndocs == 0 ?
						   "The statistics hold no documents." :
						   "Every document has length 0, so the average length is 0.")));
}

/* Read and check stats, k, k1, b at argument positions a0 .. a0 + 3. */
static void
rank_args(FunctionCallInfo fcinfo, int a0, RankArgs *ra)
{
	const char *names[4] = {"collection statistics", "k", "k1", "b"};

	for (int i = 0; i < 4; i++)
		if (PG_ARGISNULL(a0 + i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s of a ranked query must not be null", names[i])));
	ra->k = PG_GETARG_INT32(a0 + 1);
	ra->k1 = PG_GETARG_FLOAT8(a0 + 2);
	ra->b = PG_GETARG_FLOAT8(a0 + 3);
	posting_rank_check_params(ra->k, ra->k1, ra->b);
	posting_rank_stats(PG_GETARG_DATUM(a0), &ra->dl);
}

/* The elements of a T[] argument (NULL: a term with no list). */
static void
rank_lists(ArrayType *la, Datum **lists, bool **lnull, int *n)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;

	if (ARR_NDIM(la) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("the lists of a ranked query must be a one-dimensional array")));
	get_typlenbyvalalign(ARR_ELEMTYPE(la), &typlen, &typbyval, &typalign);
	deconstruct_array(la, ARR_ELEMTYPE(la), typlen, typbyval, typalign,
					  lists, lnull, n);
}

/* A list of a ranked query must not be longer than the collection. */
void
posting_rank_check_list(const gpx_list *l, const gpx_doclen *dl)
{
	if (l->n > dl->ndocs)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("posting list is longer than the collection"),
				 errdetail("A list of %u docIDs was given with statistics of " UINT64_FORMAT " documents.",
						   l->n, dl->ndocs),
				 errhint("Rebuild the statistics from the same documents as the lists.")));
}

/* Open list datum d as batch list l, checking it against the statistics. */
static void
rank_open_list(Datum d, PostingList *pl, const gpx_doclen *dl)
{
	posting_open(d, pl);
	posting_rank_check_list(&pl->l, dl);
}

/* Accept a batch built here (gpx_rank_batch_prepare). */
void
posting_rank_prepare(gpx_rank_batch *b)
{
	gpx_status	st = gpx_rank_batch_prepare(b);

	if (st != GPX_OK)
		elog(ERROR, "gpuidx: ranked batch rejected: %s", gpx_status_str(st));
}

/* Workspace for running a prepared batch in the backend; *ws its size. */
void *
posting_rank_work(const gpx_rank_batch *b, size_t *ws)
{
	*ws = gpx_rank_batch_work_size(b, 0, b->nqueries);
	return MemoryContextAllocHuge(CurrentMemoryContext, *ws);
}

/*
 * Rank a prepared batch in the backend, raising no error (its lists may
 * be pinned in the shared cache meanwhile); posting_rank_finish checks
 * what it returns.  The time goes to gpuidx.device = auto's model.
 */
gpx_status
posting_rank_compute(gpx_rank_batch *b, void *work, size_t ws)
{
	instr_time	t0,
				t1;
	gpx_status	st;

	INSTR_TIME_SET_CURRENT(t0);
	st = gpx_rank_batch_run(b, 0, b->nqueries, work, ws, NULL);
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);
	if (st == GPX_OK)
		gpuidx_exec_rank_note_backend(b, INSTR_TIME_GET_DOUBLE(t1));
	return st;
}

/* Raise the errors of a batch posting_rank_compute ran (st: its status). */
void
posting_rank_finish(const gpx_rank_batch *b, gpx_status st)
{
	if (st != GPX_OK)
		elog(ERROR, "gpuidx: ranked batch failed: %s", gpx_status_str(st));
	for (uint32 q = 0; q < b->nqueries; q++)
		if (b->queries[q].status != GPX_OK)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("ranked query failed: %s",
							gpx_status_str((gpx_status) b->queries[q].status))));
}

/*
 * Run a batch: on the executor where gpuidx.device routes it (exec_rank.c),
 * else (or when the executor cannot) in the backend, raising its errors.
 */
static void
rank_run(gpx_rank_batch *b)
{
	size_t		ws;
	void	   *work;

	posting_rank_prepare(b);
	if (gpuidx_exec_rank(b))
		return;
	work = posting_rank_work(b, &ws);
	posting_rank_finish(b, posting_rank_compute(b, work, ws));
	pfree(work);
}

/*
 * The result slots a query needs: k, or fewer when fewer documents can
 * match (AND: the shortest list; OR: all postings), at least 1.
 */
uint32
posting_rank_result_bound(const gpx_rank_bquery *bq, const gpx_rank_bterm *terms,
				  const gpx_list *gl, uint32 k)
{
	uint64		sum = 0;
	uint32		shortest = UINT32_MAX;

	for (uint32 i = 0; i < bq->nterms; i++)
	{
		const gpx_rank_bterm *t = &terms[bq->first_term + i];
		uint32		n = t->list >= 0 ? gl[t->list].n : 0;

		sum += n;
		shortest = Min(shortest, n);
	}
	if (bq->mode == GPX_RANK_MODE_AND)
		sum = shortest;
	return (uint32) Max(Min(sum, (uint64) k), 1);
}

/* Result arrays of b->out_slots slots. */
void
posting_rank_alloc_out(gpx_rank_batch *b)
{
	uint64		slots = b->out_slots;

	b->out_docs = MemoryContextAllocHuge(CurrentMemoryContext,
										 Max(slots, 1) * sizeof(uint32));
	b->out_scores = MemoryContextAllocHuge(CurrentMemoryContext,
										   Max(slots, 1) * sizeof(double));
}

/* posting_rank_and / posting_rank_or: one query. */
static Datum
posting_rank_one(FunctionCallInfo fcinfo, uint32 mode)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RankArgs	ra;
	Datum	   *lists;
	bool	   *lnull;
	int			n;
	PostingList *pls;
	gpx_list   *gl;
	gpx_rank_bterm *terms;
	gpx_rank_bquery bq;
	gpx_rank_batch b;
	uint32		nl = 0;

	InitMaterializedSRF(fcinfo, 0);
	rank_args(fcinfo, 1, &ra);
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	rank_lists(PG_GETARG_ARRAYTYPE_P(0), &lists, &lnull, &n);
	if (n == 0)
		return (Datum) 0;
	if (n > GPX_RANK_MAX_TERMS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a ranked query has at most %d terms", GPX_RANK_MAX_TERMS),
				 errdetail("The query has %d.", n)));
	pls = palloc(sizeof(PostingList) * n);
	gl = palloc(sizeof(gpx_list) * n);
	terms = palloc0(sizeof(gpx_rank_bterm) * n);
	for (int i = 0; i < n; i++)
	{
		terms[i].list = -1;
		if (lnull[i])
			continue;
		rank_open_list(lists[i], &pls[i], &ra.dl);
		gl[nl] = pls[i].l;
		terms[i].list = (int32) nl++;
	}
	memset(&bq, 0, sizeof(bq));
	bq.first_term = 0;
	bq.nterms = (uint32) n;
	bq.mode = mode;
	bq.k = posting_rank_result_bound(&bq, terms, gl, (uint32) ra.k);
	memset(&b, 0, sizeof(b));
	b.nqueries = 1;
	b.nterms = (uint32) n;
	b.nlists = nl;
	b.queries = &bq;
	b.terms = terms;
	b.lists = gl;
	b.doclen = &ra.dl;
	b.k1 = ra.k1;
	b.b = ra.b;
	b.or_algo = GPX_RANK_AUTO;
	b.out_slots = bq.k;
	posting_rank_alloc_out(&b);
	rank_run(&b);
	for (uint32 i = 0; i < bq.out_count; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int32GetDatum((int32) b.out_docs[i]);
		values[1] = Float8GetDatum(b.out_scores[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(posting_rank_and);
Datum
posting_rank_and(PG_FUNCTION_ARGS)
{
	return posting_rank_one(fcinfo, GPX_RANK_MODE_AND);
}

PG_FUNCTION_INFO_V1(posting_rank_or);
Datum
posting_rank_or(PG_FUNCTION_ARGS)
{
	return posting_rank_one(fcinfo, GPX_RANK_MODE_OR);
}

/* (qid, position) of one element of a batch, for grouping. */
typedef struct RankPair
{
	int64		qid;
	int			idx;
} RankPair;

/* Order by qid, then by position (the query-term order). */
static int
rank_pair_cmp(const void *a, const void *b)
{
	const RankPair *x = a,
			   *y = b;

	if (x->qid != y->qid)
		return x->qid < y->qid ? -1 : 1;
	return x->idx - y->idx;
}

/*
 * posting_rank_and_batch / posting_rank_or_batch: the elements paired by
 * position, grouped by qid (qid order; within a query, array order is
 * term order), all queries one batch.
 */
static Datum
posting_rank_batch_common(FunctionCallInfo fcinfo, uint32 mode)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RankArgs	ra;
	ArrayType  *qa;
	Datum	   *qids,
			   *lists;
	bool	   *qnull,
			   *lnull;
	int			nq_in,
				nl_in,
				ngroups = 0;
	RankPair   *pairs;
	PostingList *pls;
	gpx_list   *gl;
	gpx_rank_bterm *terms;
	gpx_rank_bquery *bqs;
	int64	   *gqid;
	gpx_rank_batch b;
	uint32		nl = 0;

	InitMaterializedSRF(fcinfo, 0);
	rank_args(fcinfo, 2, &ra);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	qa = PG_GETARG_ARRAYTYPE_P(0);
	if (ARR_NDIM(qa) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("the query ids of a ranked batch must be a one-dimensional array")));
	deconstruct_array(qa, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &qids, &qnull, &nq_in);
	rank_lists(PG_GETARG_ARRAYTYPE_P(1), &lists, &lnull, &nl_in);
	if (nq_in != nl_in)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a ranked batch needs as many query ids as lists"),
				 errdetail("qids has %d elements, lists has %d.", nq_in, nl_in)));
	if (nq_in == 0)
		return (Datum) 0;
	pairs = palloc(sizeof(RankPair) * nq_in);
	for (int i = 0; i < nq_in; i++)
	{
		if (qnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("query ids of a ranked batch must not be null")));
		pairs[i].qid = DatumGetInt64(qids[i]);
		pairs[i].idx = i;
	}
	qsort(pairs, nq_in, sizeof(RankPair), rank_pair_cmp);

	pls = palloc(sizeof(PostingList) * nq_in);
	gl = palloc(sizeof(gpx_list) * nq_in);
	terms = palloc0(sizeof(gpx_rank_bterm) * nq_in);
	bqs = palloc0(sizeof(gpx_rank_bquery) * nq_in);
	gqid = palloc(sizeof(int64) * nq_in);
	for (int i = 0; i < nq_in; i++)
	{
		int			idx = pairs[i].idx;

		if (i == 0 || pairs[i].qid != pairs[i - 1].qid)
		{
			gqid[ngroups] = pairs[i].qid;
			bqs[ngroups].first_term = (uint32) i;
			bqs[ngroups].mode = mode;
			ngroups++;
		}
		bqs[ngroups - 1].nterms++;
		terms[i].list = -1;
		if (!lnull[idx])
		{
			rank_open_list(lists[idx], &pls[nl], &ra.dl);
			gl[nl] = pls[nl].l;
			terms[i].list = (int32) nl++;
		}
	}
	for (int g = 0; g < ngroups; g++)
		if (bqs[g].nterms > GPX_RANK_MAX_TERMS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("a ranked query has at most %d terms", GPX_RANK_MAX_TERMS),
					 errdetail("Query " INT64_FORMAT " has %u.", gqid[g], bqs[g].nterms)));
	memset(&b, 0, sizeof(b));
	b.out_slots = 0;
	for (int g = 0; g < ngroups; g++)
	{
		bqs[g].k = posting_rank_result_bound(&bqs[g], terms, gl, (uint32) ra.k);
		bqs[g].out_offset = b.out_slots;
		b.out_slots += bqs[g].k;
	}
	b.nqueries = (uint32) ngroups;
	b.nterms = (uint32) nq_in;
	b.nlists = nl;
	b.queries = bqs;
	b.terms = terms;
	b.lists = gl;
	b.doclen = &ra.dl;
	b.k1 = ra.k1;
	b.b = ra.b;
	b.or_algo = GPX_RANK_AUTO;
	posting_rank_alloc_out(&b);
	rank_run(&b);
	for (int g = 0; g < ngroups; g++)
		for (uint32 i = 0; i < bqs[g].out_count; i++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};
			uint64		o = bqs[g].out_offset + i;

			values[0] = Int64GetDatum(gqid[g]);
			values[1] = Int32GetDatum((int32) b.out_docs[o]);
			values[2] = Float8GetDatum(b.out_scores[o]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(posting_rank_and_batch);
Datum
posting_rank_and_batch(PG_FUNCTION_ARGS)
{
	return posting_rank_batch_common(fcinfo, GPX_RANK_MODE_AND);
}

PG_FUNCTION_INFO_V1(posting_rank_or_batch);
Datum
posting_rank_or_batch(PG_FUNCTION_ARGS)
{
	return posting_rank_batch_common(fcinfo, GPX_RANK_MODE_OR);
}
