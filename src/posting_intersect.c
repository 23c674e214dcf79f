/*
 * posting_intersect.c - the SQL entry points of intersection:
 *
 *   posting_intersect(T) -> int4[]          aggregate: the sorted
 *   posting_intersect_count(T) -> bigint    intersection of the non-NULL
 *                                           inputs of a group (no rows or
 *                                           only NULLs: NULL; one list:
 *                                           its docIDs); parallel safe
 *   posting_intersect(T, nterms int4) -> int4[]         the same, for a
 *   posting_intersect_count(T, nterms int4) -> bigint   query of nterms
 *                                           terms: fewer non-NULL lists
 *                                           than nterms (a term without a
 *                                           list) give the empty answer,
 *                                           more are an error
 *   posting_intersect_batch(qids bigint[], lists T[])
 *       -> setof (qid bigint, docs int4[])  many queries in one call
 *
 * Why the nterms form: with posting_intersect(docs) ... WHERE term IN
 * (...), a term that has no row is simply not among the inputs, and the
 * answer is the AND of the other terms: wrong for a conjunctive query.
 * Only the caller knows how many terms the query has, so it says so, in
 * the same one statement:
 *
 *   SELECT posting_intersect(docs, 2) FROM postings
 *   WHERE term IN ('index', 'zzznotaword');           -- '{}'
 *
 * The count works with any term type, any join and GROUP BY (one nterms
 * per group, e.g. from the query table), and keeps the batching below.
 * Rows come from a set of distinct terms, so nterms is the number of
 * distinct terms; more lists than that (a term stored twice, a wrong
 * count) is an error (21000), not a guess.  A group with no row at all
 * never reaches the aggregate's state: its result is the empty answer too
 * (not NULL, which the one-argument form gives).
 *
 * The transition state keeps references to the compressed inputs (a
 * detoasted copy of each, shared between the groups of a statement when
 * the value is stored out of line; nothing is decoded before the final
 * function).  A large value stored out of line is not even detoasted while
 * the executor runs and caches lists: the state keeps its TOAST pointer
 * (GpxExecStored), and when the executor already holds the list only its
 * key is sent; it is read only when the executor does not have it or the
 * backend computes the query.
 *
 * Statement-level batching.  Under HashAggregate every group's state is
 * complete before the first final function runs.  Each state created in
 * an ordinary aggregate registers itself with a per-memory-context
 * registry, and the first final call hands all pending states of that
 * context (up to POSTING_ISECT_BATCH_BYTES of results) to the executor as
 * one set of queries; later final calls find their result ready.  So
 *
 *   SELECT qid, posting_intersect(docs) FROM q JOIN postings USING (term)
 *   GROUP BY qid;
 *
 * reaches the executor as one batch instead of one round trip per group.
 * Under a sorted GroupAggregate each group is finished before the next
 * starts, so each would go alone: with the library preloaded, the planner
 * hook of exec_plan.c plans such a grouping hashed wherever hashing is
 * possible and enabled; posting_intersect_batch() is the form that is one
 * batch in every case.  In a window the state can still grow after a
 * final call, so window use neither registers nor caches.
 */
#include "posting.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/ilist.h"
#include "access/detoast.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"

#include "exec_client.h"
#include "posting_stored.h"
#include "gpx_intersect.h"

/* Most result bytes one final call computes for its pending siblings. */
#define POSTING_ISECT_BATCH_BYTES ((Size) 256 * 1024 * 1024)

typedef struct IsectRegistry IsectRegistry;

/* Transition state of posting_intersect / posting_intersect_count. */
typedef struct IsectState
{
	int			n;				/* inputs so far */
	int			cap;
	struct varlena **vals;		/* detoasted copies, in cxt (or NULL) */
	GpxExecStored **stored;		/* per input: kept unread (vals[i] NULL) */
	MemoryContext cxt;			/* where the state lives */
	IsectRegistry *reg;			/* batching registry, NULL if none */
	dlist_node	node;			/* in reg->pending while no result */
	bool		has_result;
	uint32	   *result;			/* in cxt, once computed */
	uint32		nresult;
	int32		expected;		/* nterms of the two-argument form, or 0 */
} IsectState;

/*
 * The states of one aggregate memory context that still need a result,
 * and the stored lists they share: a list fetched from TOAST for one group
 * is kept once, however many groups it joins (a term in many queries).
 */
struct IsectRegistry
{
	MemoryContext cxt;
	dlist_head	pending;
	HTAB	   *toasted;		/* IsectToastKey -> detoasted copy */
	MemoryContextCallback cb;
	IsectRegistry *next;
};

/* A stored (on-disk TOAST) value: immutable for the statement. */
typedef struct IsectToastKey
{
	Oid			toastrelid;
	Oid			valueid;
} IsectToastKey;

typedef struct IsectToastEntry
{
	IsectToastKey key;
	struct varlena *val;		/* detoasted copy, or */
	PostingStored *stored;		/* kept unread */
} IsectToastEntry;

/* Registries of the live aggregate contexts of this backend. */
static IsectRegistry *isect_registries = NULL;

/* Context reset/delete callback: the registry and its states are gone. */
static void
isect_registry_forget(void *arg)
{
	IsectRegistry *reg = (IsectRegistry *) arg;

	for (IsectRegistry **p = &isect_registries; *p != NULL; p = &(*p)->next)
		if (*p == reg)
		{
			*p = reg->next;
			break;
		}
}

/* The registry of an aggregate context, created on first use. */
static IsectRegistry *
isect_registry(MemoryContext cxt)
{
	IsectRegistry *reg;

	for (reg = isect_registries; reg != NULL; reg = reg->next)
		if (reg->cxt == cxt)
			return reg;
	reg = MemoryContextAlloc(cxt, sizeof(IsectRegistry));
	reg->cxt = cxt;
	dlist_init(&reg->pending);
	reg->toasted = NULL;
	reg->cb.func = isect_registry_forget;
	reg->cb.arg = reg;
	MemoryContextRegisterResetCallback(cxt, &reg->cb);
	reg->next = isect_registries;
	isect_registries = reg;
	return reg;
}

/* A new empty state in cxt; registered for batching unless in a window. */
static IsectState *
isect_state_new(MemoryContext cxt, bool batchable, int cap)
{
	IsectState *st = MemoryContextAllocZero(cxt, sizeof(IsectState));

	st->cxt = cxt;
	st->cap = Max(cap, 4);
	st->vals = MemoryContextAlloc(cxt, sizeof(struct varlena *) * st->cap);
	st->stored = MemoryContextAlloc(cxt, sizeof(GpxExecStored *) * st->cap);
	if (batchable)
	{
		st->reg = isect_registry(cxt);
		dlist_push_tail(&st->reg->pending, &st->node);
	}
	return st;
}

/* Append an input to a state: a (copied) value, or a stored one unread. */
static void
isect_state_add(IsectState *st, struct varlena *v, PostingStored *stored)
{
	if (st->n == st->cap)
	{
		st->cap *= 2;
		st->vals = repalloc(st->vals, sizeof(struct varlena *) * st->cap);
		st->stored = repalloc(st->stored, sizeof(GpxExecStored *) * st->cap);
	}
	st->stored[st->n] = stored != NULL ? &stored->s : NULL;
	st->vals[st->n++] = v;
	/* a result computed earlier would now be stale */
	if (st->has_result)
	{
		st->has_result = false;
		if (st->reg != NULL)
			dlist_push_tail(&st->reg->pending, &st->node);
	}
}

/*
 * Add an input to st: detoasted, shared with other groups if stored out
 * of line, or (large, and the executor caching lists) kept unread.
 */
static void
isect_input_add(IsectState *st, Datum d)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	MemoryContext old;
	struct varlena *v = NULL;

	if (st->reg != NULL && VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		IsectRegistry *reg = st->reg;
		struct varatt_external ptr;
		IsectToastKey key;
		IsectToastEntry *e;
		bool		found;

		VARATT_EXTERNAL_GET_POINTER(ptr, raw);
		memset(&key, 0, sizeof(key));
		key.toastrelid = ptr.va_toastrelid;
		key.valueid = ptr.va_valueid;
		if (reg->toasted == NULL)
		{
			HASHCTL		hc;

			memset(&hc, 0, sizeof(hc));
			hc.keysize = sizeof(IsectToastKey);
			hc.entrysize = sizeof(IsectToastEntry);
			hc.hcxt = reg->cxt;
			reg->toasted = hash_create("posting_intersect stored lists", 64, &hc,
									   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		}
		e = hash_search(reg->toasted, &key, HASH_FIND, NULL);
		if (e == NULL)
		{
			PostingStored *is = NULL;

			if (posting_stored_worth(raw))
				is = posting_stored_new(reg->cxt, raw);
			else
			{
				old = MemoryContextSwitchTo(reg->cxt);
				v = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
				MemoryContextSwitchTo(old);
			}
			e = hash_search(reg->toasted, &key, HASH_ENTER, &found);
			e->val = is != NULL ? NULL : v;
			e->stored = is;
		}
		isect_state_add(st, e->val, e->stored);
		return;
	}
	old = MemoryContextSwitchTo(st->cxt);
	v = (struct varlena *) PG_DETOAST_DATUM_COPY(d);
	MemoryContextSwitchTo(old);
	isect_state_add(st, v, NULL);
}

/* Input i of st as a detoasted varlena (a stored one is read now). */
static struct varlena *
isect_input_value(IsectState *st, int i)
{
	if (st->stored[i] == NULL)
		return st->vals[i];
	return posting_stored_value((PostingStored *) st->stored[i]);
}

/* The aggregate context and kind, or an error outside an aggregate. */
static MemoryContext
isect_agg_context(FunctionCallInfo fcinfo, bool *batchable)
{
	MemoryContext cxt;
	int			kind = AggCheckCallContext(fcinfo, &cxt);

	if (kind == 0)
		elog(ERROR, "posting_intersect support function called in non-aggregate context");
	if (batchable)
		*batchable = kind == AGG_CONTEXT_AGGREGATE;
	return cxt;
}

/* Transition: keep a copy of the non-NULL input. */
PG_FUNCTION_INFO_V1(posting_intersect_trans);
Datum
posting_intersect_trans(PG_FUNCTION_ARGS)
{
	bool		batchable;
	MemoryContext cxt = isect_agg_context(fcinfo, &batchable);
	IsectState *st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);

	if (PG_ARGISNULL(1))
	{
		if (st == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(st);
	}
	if (st == NULL)
		st = isect_state_new(cxt, batchable, 4);
	isect_input_add(st, PG_GETARG_DATUM(1));
	PG_RETURN_POINTER(st);
}

/* Record a state's stated number of terms; every row must agree. */
static void
isect_set_expected(IsectState *st, int32 expected)
{
	if (st->expected != 0 && st->expected != expected)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("posting_intersect got different term counts in one group"),
				 errdetail("One row says %d terms, another %d.",
						   st->expected, expected)));
	st->expected = expected;
}

/*
 * Transition of posting_intersect(T, nterms): keep a copy of the non-NULL
 * list and record nterms (NULL or below 1 is an error).  A NULL list is
 * a term without a list: it adds nothing, so the group ends short.
 */
PG_FUNCTION_INFO_V1(posting_intersect_terms_trans);
Datum
posting_intersect_terms_trans(PG_FUNCTION_ARGS)
{
	bool		batchable;
	MemoryContext cxt = isect_agg_context(fcinfo, &batchable);
	IsectState *st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	int32		expected;

	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the number of terms of posting_intersect must not be null")));
	expected = PG_GETARG_INT32(2);
	if (expected < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the number of terms of posting_intersect must be at least 1"),
				 errdetail("The query says %d.", expected)));
	if (st == NULL)
		st = isect_state_new(cxt, batchable, 4);
	isect_set_expected(st, expected);
	if (!PG_ARGISNULL(1))
	{
		if (st->n >= expected)
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("posting_intersect got more lists than the %d terms stated", expected),
					 errdetail("A term has more than one row, or the number of terms is wrong."),
					 errhint("Give the number of distinct terms of the query.")));
		isect_input_add(st, PG_GETARG_DATUM(1));
	}
	PG_RETURN_POINTER(st);
}

/* Combine two partial states (parallel aggregation). */
PG_FUNCTION_INFO_V1(posting_intersect_combine);
Datum
posting_intersect_combine(PG_FUNCTION_ARGS)
{
	bool		batchable;
	MemoryContext cxt = isect_agg_context(fcinfo, &batchable);
	IsectState *s1 = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	IsectState *s2 = PG_ARGISNULL(1) ? NULL : (IsectState *) PG_GETARG_POINTER(1);

	if (s2 == NULL || (s2->n == 0 && s2->expected == 0))
	{
		if (s1 == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(s1);
	}
	if (s1 == NULL)
		s1 = isect_state_new(cxt, batchable, s2->n);
	if (s2->expected != 0)
	{
		isect_set_expected(s1, s2->expected);
		if (s1->n + s2->n > s1->expected)
			ereport(ERROR,
					(errcode(ERRCODE_CARDINALITY_VIOLATION),
					 errmsg("posting_intersect got more lists than the %d terms stated",
							s1->expected),
					 errdetail("A term has more than one row, or the number of terms is wrong."),
					 errhint("Give the number of distinct terms of the query.")));
	}
	/* copies (a stored input unread goes by its TOAST pointer) */
	for (int i = 0; i < s2->n; i++)
		isect_input_add(s1, PointerGetDatum(s2->stored[i] != NULL ?
											((PostingStored *) s2->stored[i])->ptr :
											s2->vals[i]));
	PG_RETURN_POINTER(s1);
}

/*
 * Serialize: int4 count, int4 nterms (0 for the one-argument form), then
 * each input varlena (4-byte header) in turn.
 */
PG_FUNCTION_INFO_V1(posting_intersect_serialize);
Datum
posting_intersect_serialize(PG_FUNCTION_ARGS)
{
	IsectState *st = (IsectState *) PG_GETARG_POINTER(0);
	Size		total = VARHDRSZ + 2 * sizeof(int32);
	bytea	   *b;
	char	   *p;

	(void) isect_agg_context(fcinfo, NULL);
	for (int i = 0; i < st->n; i++)
		total += INTALIGN(VARSIZE(isect_input_value(st, i)));
	if (total > MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("posting_intersect state is too large to pass between parallel workers"),
				 errhint("Run the query without parallelism.")));
	b = palloc(total);
	SET_VARSIZE(b, total);
	p = VARDATA(b);
	memcpy(p, &st->n, sizeof(int32));
	memcpy(p + sizeof(int32), &st->expected, sizeof(int32));
	p += 2 * sizeof(int32);
	for (int i = 0; i < st->n; i++)
	{
		struct varlena *v = isect_input_value(st, i);

		memcpy(p, v, VARSIZE(v));
		p += INTALIGN(VARSIZE(v));
	}
	PG_RETURN_BYTEA_P(b);
}

/* Deserialize a state written by posting_intersect_serialize. */
PG_FUNCTION_INFO_V1(posting_intersect_deserialize);
Datum
posting_intersect_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_P(0);
	const char *p = VARDATA(b),
			   *end = p + VARSIZE(b) - VARHDRSZ;
	IsectState *st;
	int32		n,
				expected;

	(void) isect_agg_context(fcinfo, NULL);
	if (end - p < (ptrdiff_t) (2 * sizeof(int32)))
		elog(ERROR, "invalid serialized posting_intersect state");
	memcpy(&n, p, sizeof(int32));
	memcpy(&expected, p + sizeof(int32), sizeof(int32));
	p += 2 * sizeof(int32);
	if (n < 0 || expected < 0)
		elog(ERROR, "invalid serialized posting_intersect state");
	/* a scratch state: combine copies what it keeps */
	st = isect_state_new(CurrentMemoryContext, false, n);
	st->expected = expected;
	for (int i = 0; i < n; i++)
	{
		uint32		sz;
		struct varlena *v;

		if (end - p < VARHDRSZ)
			elog(ERROR, "invalid serialized posting_intersect state");
		memcpy(&sz, p, sizeof(uint32));
		sz = VARSIZE(&sz);
		if (sz < VARHDRSZ || (Size) (end - p) < sz)
			elog(ERROR, "invalid serialized posting_intersect state");
		v = palloc(sz);
		memcpy(v, p, sz);
		isect_state_add(st, v, NULL);
		p += INTALIGN(sz);
	}
	PG_RETURN_POINTER(st);
}

/* Per-query scratch of a set of states being computed. */
typedef struct IsectJob
{
	IsectState *st;
	PostingList *pls;
	const gpx_list **lists;
	GpxExecStored **stored;		/* NULL when no input is kept unread */
} IsectJob;

/*
 * Open a state's inputs into job j; returns the output capacity.  Its
 * stored inputs must be resolved (gpuidx_exec_resolve) already: their
 * header fields known, from the executor's cache or by reading them.
 */
static uint32
isect_open(IsectState *st, IsectJob *j)
{
	bool		any_stored = false;

	j->st = st;
	j->pls = palloc(sizeof(PostingList) * st->n);
	j->lists = palloc(sizeof(gpx_list *) * st->n);
	for (int i = 0; i < st->n; i++)
	{
		if (st->stored[i] != NULL)
		{
			j->lists[i] = &st->stored[i]->l;
			any_stored = true;
			continue;
		}
		posting_open(PointerGetDatum(st->vals[i]), &j->pls[i]);
		j->lists[i] = &j->pls[i].l;
	}
	j->stored = any_stored ? st->stored : NULL;
	return gpx_intersect_bound(j->lists, st->n);
}

/*
 * Compute self and, when it is registered and the executor can take
 * requests, as many pending siblings as fit in POSTING_ISECT_BATCH_BYTES,
 * as one set of queries.  Results land in each state's own context.
 */
static void
isect_compute(IsectState *self)
{
	int			max = 1,
				nst = 0,
				nstored = 0,
				nq = 0;
	IsectState **sts;
	GpxExecStored **stored;
	IsectJob   *jobs;
	GpxExecQuery *qs;
	Size		bytes = 0;
	dlist_iter	cit;

	if (self->reg != NULL && gpuidx_exec_can_batch())
	{
		dlist_foreach(cit, &self->reg->pending)
			max++;
	}
	sts = palloc(sizeof(IsectState *) * max);
	sts[nst++] = self;
	if (max > 1)
	{
		dlist_foreach(cit, &self->reg->pending)
		{
			IsectState *st = dlist_container(IsectState, node, cit.cur);

			/* nothing to compute: no input, or a term without a list */
			if (st == self || st->n == 0 ||
				(st->expected != 0 && st->n != st->expected))
				continue;
			if (nst >= max)
				break;
			sts[nst++] = st;
		}
	}

	/* the stored inputs of them all, resolved with one look-up */
	for (int k = 0; k < nst; k++)
		nstored += sts[k]->n;
	stored = palloc(sizeof(GpxExecStored *) * Max(nstored, 1));
	nstored = 0;
	for (int k = 0; k < nst; k++)
		for (int i = 0; i < sts[k]->n; i++)
			if (sts[k]->stored[i] != NULL)
				stored[nstored++] = sts[k]->stored[i];
	gpuidx_exec_resolve(stored, nstored);

	/*
	 * As many as fit in POSTING_ISECT_BATCH_BYTES of results, self first.
	 * A sibling whose result may not fit an array stays pending: its own
	 * final function computes it (a count never needs the array).
	 */
	jobs = palloc(sizeof(IsectJob) * nst);
	qs = palloc0(sizeof(GpxExecQuery) * nst);
	for (int k = 0; k < nst && (k == 0 || bytes <= POSTING_ISECT_BATCH_BYTES); k++)
	{
		uint32		cap = isect_open(sts[k], &jobs[nq]);

		if (cap > POSTING_MAX_ELEMS && k > 0)
			continue;
		bytes += (Size) cap * sizeof(uint32);
		nq++;
	}
	for (int q = 0; q < nq; q++)
	{
		IsectState *st = jobs[q].st;
		uint32		cap = gpx_intersect_bound(jobs[q].lists, st->n);

		if (cap > POSTING_MAX_ELEMS)
			posting_report_too_many("in an intersection result", cap);
		qs[q].lists = jobs[q].lists;
		qs[q].stored = jobs[q].stored;
		qs[q].k = st->n;
		qs[q].out = MemoryContextAlloc(st->cxt, sizeof(uint32) * Max(cap, 1));
	}

	gpuidx_exec_intersect_all(qs, nq);

	for (int q = 0; q < nq; q++)
	{
		IsectState *st = jobs[q].st;

		st->result = qs[q].out;
		st->nresult = qs[q].outn;
		st->has_result = true;
		if (st->reg != NULL)
			dlist_delete(&st->node);
	}
}

/* Intersection of a state's inputs, computing it (and siblings) if needed. */
static void
isect_result(IsectState *st, uint32 **res, uint32 *nres)
{
	if (st->reg == NULL)
	{
		/* window: the state may still grow, compute afresh every time */
		IsectJob	j;
		GpxExecQuery q;
		uint32		cap;

		gpuidx_exec_resolve(st->stored, st->n);
		cap = isect_open(st, &j);
		if (cap > POSTING_MAX_ELEMS)
			posting_report_too_many("in an intersection result", cap);

		q.lists = j.lists;
		q.stored = j.stored;
		q.k = st->n;
		q.out = palloc(sizeof(uint32) * Max(cap, 1));
		gpuidx_exec_intersect_all(&q, 1);
		*res = q.out;
		*nres = q.outn;
		return;
	}
	if (!st->has_result)
		isect_compute(st);
	*res = st->result;
	*nres = st->nresult;
}

/* Final: the sorted intersection as int4[]; no input -> NULL. */
PG_FUNCTION_INFO_V1(posting_intersect_final);
Datum
posting_intersect_final(PG_FUNCTION_ARGS)
{
	IsectState *st;
	uint32	   *res;
	uint32		nres;

	(void) isect_agg_context(fcinfo, NULL);
	st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	isect_result(st, &res, &nres);
	PG_RETURN_ARRAYTYPE_P(posting_array_from(res, nres));
}

/*
 * The size of a state's intersection, counted in the backend without an
 * output buffer (for results that may not fit an array).
 */
static uint32
isect_count_here(IsectState *st)
{
	IsectJob	j;
	uint32		n = 0;
	gpx_status	rc;

	(void) isect_open(st, &j);
	for (int i = 0; j.stored != NULL && i < st->n; i++)
		if (j.stored[i] != NULL)
			gpuidx_exec_read_stored(j.stored[i]);
	rc = gpx_intersect_count(j.lists, st->n, &n, NULL);
	if (rc != GPX_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not intersect posting lists"),
				 errdetail("The intersection failed: %s.", gpx_status_str(rc))));
	return n;
}

/*
 * Final of posting_intersect_count: the size of the intersection.  A
 * result that may be too large for an array (the shortest input has more
 * than POSTING_MAX_ELEMS docIDs) is counted without building it.
 */
PG_FUNCTION_INFO_V1(posting_intersect_count_final);
Datum
posting_intersect_count_final(PG_FUNCTION_ARGS)
{
	IsectState *st;
	uint32	   *res;
	uint32		nres;
	uint32		nmin = UINT32_MAX;

	(void) isect_agg_context(fcinfo, NULL);
	st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	if (st == NULL || st->n == 0)
		PG_RETURN_NULL();
	if (!st->has_result)
	{
		/* header fields only (siblings leave such a state pending) */
		gpuidx_exec_resolve(st->stored, st->n);
		for (int i = 0; i < st->n; i++)
		{
			gpx_list	h;

			if (st->stored[i] != NULL)
				h = st->stored[i]->l;
			else
				posting_peek(PointerGetDatum(st->vals[i]), &h);
			nmin = Min(nmin, h.n);
		}
		if (nmin > POSTING_MAX_ELEMS)
			PG_RETURN_INT64((int64) isect_count_here(st));
	}
	isect_result(st, &res, &nres);
	PG_RETURN_INT64((int64) nres);
}

/*
 * Whether a state of the nterms form has a list for every term, so that
 * its intersection is to be computed; false for the empty answer.
 */
static bool
isect_terms_complete(IsectState *st)
{
	if (st == NULL || st->n < st->expected)
		return false;
	if (st->n > st->expected)
		elog(ERROR, "posting_intersect state holds %d lists for %d terms",
			 st->n, st->expected);
	return true;
}

/* Final of posting_intersect(T, nterms): '{}' when a term has no list. */
PG_FUNCTION_INFO_V1(posting_intersect_terms_final);
Datum
posting_intersect_terms_final(PG_FUNCTION_ARGS)
{
	IsectState *st;
	uint32	   *res;
	uint32		nres;

	(void) isect_agg_context(fcinfo, NULL);
	st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	if (!isect_terms_complete(st))
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	isect_result(st, &res, &nres);
	PG_RETURN_ARRAYTYPE_P(posting_array_from(res, nres));
}

/* Final of posting_intersect_count(T, nterms): 0 when a term has no list. */
PG_FUNCTION_INFO_V1(posting_intersect_terms_count_final);
Datum
posting_intersect_terms_count_final(PG_FUNCTION_ARGS)
{
	IsectState *st;
	uint32	   *res;
	uint32		nres;

	(void) isect_agg_context(fcinfo, NULL);
	st = PG_ARGISNULL(0) ? NULL : (IsectState *) PG_GETARG_POINTER(0);
	if (!isect_terms_complete(st))
		PG_RETURN_INT64(0);
	isect_result(st, &res, &nres);
	PG_RETURN_INT64((int64) nres);
}

/*
 * Whether fn is the final function of an aggregate that hands the pending
 * groups of its statement to the executor as one batch (isect_compute):
 * the planner hook of exec_plan.c plans a grouping of such aggregates
 * hashed, so that every group is pending when the first final call runs.
 */
bool
posting_intersect_final_batches(PGFunction fn)
{
	return fn == posting_intersect_final ||
		fn == posting_intersect_count_final ||
		fn == posting_intersect_terms_final ||
		fn == posting_intersect_terms_count_final;
}

/* ------------------------------------------------------------ batch -- */

/* (qid, array index) of one non-NULL qid, for grouping. */
typedef struct BatchPair
{
	int64		qid;
	int			idx;
} BatchPair;

/* Order pairs by qid, then by position. */
static int
batch_pair_cmp(const void *a, const void *b)
{
	const BatchPair *x = a,
			   *y = b;

	if (x->qid != y->qid)
		return x->qid < y->qid ? -1 : 1;
	return x->idx - y->idx;
}

/*
 * posting_intersect_batch(qids bigint[], lists T[]): the rows (qid, list)
 * paired by position, grouped by qid; one output row per distinct qid, in
 * qid order, with the intersection of its non-NULL lists (NULL when it
 * has none).  All queries go to the executor as one set.
 */
PG_FUNCTION_INFO_V1(posting_intersect_batch);
Datum
posting_intersect_batch(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ArrayType  *qa,
			   *la;
	Datum	   *qids,
			   *lists;
	bool	   *qnull,
			   *lnull;
	int			nq_in,
				nl_in,
				npairs = 0,
				ngroups = 0;
	int16		typlen;
	bool		typbyval;
	char		typalign;
	BatchPair  *pairs;
	int		   *gstart;
	GpxExecQuery *qs;
	PostingList *pls;
	const gpx_list **lp;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		return (Datum) 0;
	qa = PG_GETARG_ARRAYTYPE_P(0);
	la = PG_GETARG_ARRAYTYPE_P(1);
	if (ARR_NDIM(qa) > 1 || ARR_NDIM(la) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("posting_intersect_batch takes one-dimensional arrays")));
	deconstruct_array(qa, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &qids, &qnull, &nq_in);
	get_typlenbyvalalign(ARR_ELEMTYPE(la), &typlen, &typbyval, &typalign);
	deconstruct_array(la, ARR_ELEMTYPE(la), typlen, typbyval, typalign,
					  &lists, &lnull, &nl_in);
	if (nq_in != nl_in)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("posting_intersect_batch needs as many query ids as lists"),
				 errdetail("qids has %d elements, lists has %d.", nq_in, nl_in)));

	pairs = palloc(sizeof(BatchPair) * Max(nq_in, 1));
	for (int i = 0; i < nq_in; i++)
	{
		if (qnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("query ids of posting_intersect_batch must not be null")));
		pairs[npairs].qid = DatumGetInt64(qids[i]);
		pairs[npairs].idx = i;
		npairs++;
	}
	qsort(pairs, npairs, sizeof(BatchPair), batch_pair_cmp);

	/* groups: [gstart[g], gstart[g + 1]) of pairs */
	gstart = palloc(sizeof(int) * (npairs + 1));
	for (int i = 0; i < npairs; i++)
		if (i == 0 || pairs[i].qid != pairs[i - 1].qid)
			gstart[ngroups++] = i;
	gstart[ngroups] = npairs;

	qs = palloc0(sizeof(GpxExecQuery) * Max(ngroups, 1));
	pls = palloc(sizeof(PostingList) * Max(npairs, 1));
	lp = palloc(sizeof(gpx_list *) * Max(npairs, 1));
	for (int g = 0, L = 0; g < ngroups; g++)
	{
		int			k = 0;
		uint32		cap;

		qs[g].lists = &lp[L];
		for (int i = gstart[g]; i < gstart[g + 1]; i++)
		{
			if (lnull[pairs[i].idx])
				continue;
			posting_open(lists[pairs[i].idx], &pls[L]);
			lp[L] = &pls[L].l;
			L++;
			k++;
		}
		qs[g].k = k;
		cap = gpx_intersect_bound(qs[g].lists, k);
		if (cap > POSTING_MAX_ELEMS)
			posting_report_too_many("in an intersection result", cap);
		qs[g].out = palloc(sizeof(uint32) * Max(cap, 1));
	}

	gpuidx_exec_intersect_all(qs, ngroups);

	for (int g = 0; g < ngroups; g++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(pairs[gstart[g]].qid);
		if (qs[g].k == 0)
		{
			nulls[1] = true;
			values[1] = (Datum) 0;
		}
		else
			values[1] = PointerGetDatum(posting_array_from(qs[g].out, qs[g].outn));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
