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
 * nothing is decoded before the final function.  A union of two or more
 * lists goes to the executor when gpuidx.device sends it there (its CPU
 * threads, or its GPU: gpx_cuda_union_run), as a request of its own kind
 * (exec_client.c: gpuidx_exec_union_many); otherwise, and after any fault
 * of the executor (unless gpuidx.executor_fallback is off), the backend
 * unions them in the codec core: gpx_union_many (two lists along their
 * merge plan; more through a tree of vectorised two-way merges when their
 * docIDs interleave, else through a heap of the lists' heads that hands
 * over whole runs, so a list whose docIDs do not interleave with the
 * others' costs one heap step per block).  Where the executor takes no
 * requests, posting_union writes into its int4[] itself and the union of
 * two lists as a list is encoded as it is merged (gpx_setop_encode),
 * never held as an array.  Above POSTING_UNION_HEAP_MAX inputs the work
 * area (about 2 kB per input) would grow too large, and the inputs are
 * then decoded into one array, sorted and deduplicated instead.
 *
 * Statement-level batching, as posting_intersect does (posting_intersect.c):
 * each state of an ordinary aggregate (not a window) registers with its
 * aggregate memory context, and the first final call that needs a result
 * sends every pending state of that context (up to
 * POSTING_UNION_BATCH_BYTES of results) to the executor as one set of
 * queries, each with its docIDs or, for posting_union_count, only its
 * size; later final calls find their result ready.  So a GROUP BY of many
 * unions under HashAggregate is one batch (the planner hook of
 * exec_plan.c plans such a grouping hashed, as for the intersections).
 */
#include "posting.h"

#include "access/htup_details.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "lib/ilist.h"
#include "miscadmin.h"
#include "utils/syscache.h"

#include "exec_client.h"
#include "gpx_setops.h"

/* Most inputs merged by gpx_union_many (about 8 MB of work area). */
#define POSTING_UNION_HEAP_MAX 4096

/* Most result bytes one final call computes for its pending siblings. */
#define POSTING_UNION_BATCH_BYTES ((Size) 256 * 1024 * 1024)

typedef struct UnionRegistry UnionRegistry;

/* Transition state: the non-empty inputs, detoasted copies. */
typedef struct UnionAggState
{
	int			n;
	int			cap;
	struct varlena **vals;
	int32		codec;			/* codec of the inputs' type */
	bool		any;			/* a non-NULL input came (maybe empty) */
	/* batching (an ordinary aggregate's states only) */
	MemoryContext cxt;			/* where the state lives */
	UnionRegistry *reg;			/* NULL: not batched (window, scratch) */
	dlist_node	node;			/* in reg->pending while it has no result */
	bool		want_docs;		/* its aggregate's final wants the docIDs
								 * (posting_union_count's: the size) */
	bool		has_result;		/* count is the union's size */
	bool		has_docs;		/* docs holds its docIDs */
	uint32		count;
	uint32	   *docs;			/* in cxt */
} UnionAggState;

/* The states of one aggregate memory context that still need a result. */
struct UnionRegistry
{
	MemoryContext cxt;
	dlist_head	pending;
	MemoryContextCallback cb;
	UnionRegistry *next;
};

/* Registries of the live aggregate contexts of this backend. */
static UnionRegistry *union_registries = NULL;

PG_FUNCTION_INFO_V1(posting_unionagg_count_final);

/* Context reset/delete callback: the registry and its states are gone. */
static void
unionagg_registry_forget(void *arg)
{
	UnionRegistry *reg = (UnionRegistry *) arg;

	for (UnionRegistry **p = &union_registries; *p != NULL; p = &(*p)->next)
		if (*p == reg)
		{
			*p = reg->next;
			break;
		}
}

/* The registry of an aggregate context, created on first use. */
static UnionRegistry *
unionagg_registry(MemoryContext cxt)
{
	UnionRegistry *reg;

	for (reg = union_registries; reg != NULL; reg = reg->next)
		if (reg->cxt == cxt)
			return reg;
	reg = MemoryContextAlloc(cxt, sizeof(UnionRegistry));
	reg->cxt = cxt;
	dlist_init(&reg->pending);
	reg->cb.func = unionagg_registry_forget;
	reg->cb.arg = reg;
	MemoryContextRegisterResetCallback(cxt, &reg->cb);
	reg->next = union_registries;
	union_registries = reg;
	return reg;
}

/*
 * Whether the aggregate whose transition function fcinfo calls ends with
 * posting_union_count's final function (a size is all it wants); looked
 * up once per function call site (cached in its fn_extra).  A transition
 * state two aggregates share answers for the first of them: the other
 * then computes what it lacks at its own final call.
 */
static bool
unionagg_counts_only(FunctionCallInfo fcinfo)
{
	static const char yes = 'y',
				no = 'n';
	Aggref	   *ar;
	HeapTuple	tup;
	Oid			finalfn;
	bool		counts = false;

	if (fcinfo->flinfo != NULL && fcinfo->flinfo->fn_extra != NULL)
		return fcinfo->flinfo->fn_extra == &yes;
	ar = AggGetAggref(fcinfo);
	if (ar != NULL &&
		HeapTupleIsValid(tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(ar->aggfnoid))))
	{
		finalfn = ((Form_pg_aggregate) GETSTRUCT(tup))->aggfinalfn;
		ReleaseSysCache(tup);
		if (OidIsValid(finalfn) &&
			HeapTupleIsValid(tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(finalfn))))
		{
			bool		c = ((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId;
			FmgrInfo	fl;

			ReleaseSysCache(tup);
			if (c)
			{
				/* the C symbol decides, whatever the SQL name or schema */
				fmgr_info_cxt(finalfn, &fl, CurrentMemoryContext);
				counts = fl.fn_addr == posting_unionagg_count_final;
			}
		}
	}
	if (fcinfo->flinfo != NULL)
		fcinfo->flinfo->fn_extra = (void *) (counts ? &yes : &no);
	return counts;
}

/* The aggregate memory context, or an error outside an aggregate. */
static MemoryContext
unionagg_context(FunctionCallInfo fcinfo)
{
	MemoryContext cxt;

	if (!AggCheckCallContext(fcinfo, &cxt))
		elog(ERROR, "posting union aggregate support function called in non-aggregate context");
	return cxt;
}

/*
 * A new empty state in cxt; with fcinfo (an ordinary aggregate's
 * transition or combine call), registered for batching, wanting what its
 * aggregate's final function wants.
 */
static UnionAggState *
unionagg_new(MemoryContext cxt, int codec, int cap, FunctionCallInfo fcinfo)
{
	UnionAggState *st = MemoryContextAllocZero(cxt, sizeof(UnionAggState));

	st->cap = Max(cap, 4);
	st->vals = MemoryContextAlloc(cxt, sizeof(struct varlena *) * st->cap);
	st->codec = codec;
	st->cxt = cxt;
	st->want_docs = true;
	if (fcinfo != NULL && AggCheckCallContext(fcinfo, NULL) == AGG_CONTEXT_AGGREGATE)
	{
		st->want_docs = !unionagg_counts_only(fcinfo);
		st->reg = unionagg_registry(cxt);
		dlist_push_tail(&st->reg->pending, &st->node);
	}
	return st;
}

/* Forget a computed result (the state grew): pending again. */
static void
unionagg_stale(UnionAggState *st)
{
	if (!st->has_result)
		return;
	st->has_result = st->has_docs = false;
	st->docs = NULL;
	if (st->reg != NULL)
		dlist_push_tail(&st->reg->pending, &st->node);
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
	unionagg_stale(st);
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
		st = unionagg_new(cxt, 0, 4, fcinfo);
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
		s1 = unionagg_new(cxt, s2->codec, s2->n, fcinfo);
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
	/* a scratch state: combine copies what it keeps */
	st = unionagg_new(cxt, codec, n, NULL);
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

/* A state's inputs opened (views into its copies), and their docIDs in all. */
typedef struct UnionJob
{
	UnionAggState *st;
	PostingList *pls;
	const gpx_list **ls;
	uint64		total;
	bool		docs;			/* wanted: the docIDs (else the size) */
} UnionJob;

/* Open st's inputs into j (wanting docs or only the size). */
static void
unionagg_open(UnionAggState *st, bool docs, UnionJob *j)
{
	j->st = st;
	j->docs = docs;
	j->total = 0;
	j->pls = palloc(sizeof(PostingList) * Max(st->n, 1));
	j->ls = palloc(sizeof(gpx_list *) * Max(st->n, 1));
	for (int i = 0; i < st->n; i++)
	{
		posting_open(PointerGetDatum(st->vals[i]), &j->pls[i]);
		j->ls[i] = &j->pls[i].l;
		j->total += j->pls[i].l.n;
	}
}

/*
 * The union of ls[0..n) (n >= 1) in the backend: into a new array in cxt
 * (*docs, if docs is not NULL), into the data of a new int4[] (*arr, if
 * arr is not NULL; its length is the bound, for posting_array_truncate),
 * or only its size.  Returns the size.
 */
static uint32
unionagg_here(const gpx_list **ls, int n, uint64 total, uint32 **docs,
			  ArrayType **arr, MemoryContext cxt)
{
	uint32		cnt = 0;
	gpx_status	rc;
	bool		want = docs != NULL || arr != NULL;

	if (n <= POSTING_UNION_HEAP_MAX)
	{
		size_t		wb = gpx_union_many_work(n);
		void	   *work = palloc(Max(wb, 1));
		uint32	   *out = NULL;
		uint64		cap = total;

		if (want && cap > POSTING_MAX_ELEMS)
		{
			/* count first: the result may still fit */
			rc = gpx_union_many(ls, n, work, wb, NULL, 0, &cnt);
			if (rc != GPX_OK)
				unionagg_report(rc);
			if (cnt > POSTING_MAX_ELEMS)
				posting_report_too_many("in a union", cnt);
			cap = cnt;
		}
		if (arr != NULL)
		{
			*arr = posting_array_alloc((uint32) Max(cap, 1));
			out = (uint32 *) ARR_DATA_PTR(*arr);
		}
		else if (docs != NULL)
			out = MemoryContextAlloc(cxt, Max(cap, 1) * sizeof(uint32));
		rc = gpx_union_many(ls, n, work, wb, out, (uint32) cap, &cnt);
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
			all = MemoryContextAlloc(cxt, Max(total, 1) * sizeof(uint32));
		for (int i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			posting_decode_into(ls[i], all + pos);
			pos += ls[i]->n;
		}
		cnt = posting_sort_unique(all, (uint32) total);
		if (docs != NULL)
			*docs = all;
		else if (arr == NULL)
			pfree(all);
	}
	return cnt;
}

/*
 * Whether a state's union may go to the executor at all: two lists or
 * more (one list is its own union), and, for its docIDs, a union bound
 * that fits an array.
 */
static bool
unionagg_sendable(const UnionJob *j)
{
	return j->st->n >= 2 && (!j->docs || j->total <= POSTING_MAX_ELEMS);
}

/*
 * Compute self's union (docIDs when docs, else its size) and, when it is
 * registered and the executor takes requests, those of its pending
 * siblings (each as its aggregate wants it), as one set of executor
 * queries where gpuidx.device sends them; the backend computes the rest.
 * Results land in each state (in its context; a window's, which is
 * computed afresh at every call, in the current one).
 */
static void
unionagg_compute(UnionAggState *self, bool docs)
{
	UnionJob   *jobs;
	GpxExecQuery *qs;
	int			max = 1,
				nj = 0,
				nq = 0,
				*qj;
	Size		bytes = 0;
	dlist_iter	it;

	if (self->reg != NULL && gpuidx_exec_can_batch())
	{
		dlist_foreach(it, &self->reg->pending)
			max++;
	}
	jobs = palloc(sizeof(UnionJob) * max);
	qs = palloc0(sizeof(GpxExecQuery) * max);
	qj = palloc(sizeof(int) * max);
	unionagg_open(self, docs, &jobs[nj++]);
	if (jobs[0].docs)
		bytes += jobs[0].total * sizeof(uint32);
	if (max > 1)
	{
		dlist_foreach(it, &self->reg->pending)
		{
			UnionAggState *st = dlist_container(UnionAggState, node, it.cur);
			UnionJob   *j = &jobs[nj];

			if (st == self || st->n < 2 || nj >= max)
				continue;
			if (bytes > POSTING_UNION_BATCH_BYTES)
				break;
			unionagg_open(st, st->want_docs, j);
			if (!unionagg_sendable(j))
				continue;		/* its own final computes it */
			if (j->docs)
				bytes += j->total * sizeof(uint32);
			nj++;
		}
	}

	/* the executor, for those it may take */
	for (int i = 0; i < nj; i++)
	{
		UnionJob   *j = &jobs[i];

		if (!unionagg_sendable(j))
			continue;
		qs[nq].lists = j->ls;
		qs[nq].stored = NULL;
		qs[nq].k = j->st->n;
		qs[nq].count = !j->docs;
		qs[nq].outcap = j->docs ? (uint32) j->total : 0;
		qs[nq].out = j->docs ?
			MemoryContextAlloc(j->st->reg != NULL ? j->st->cxt : CurrentMemoryContext,
							   Max(j->total, 1) * sizeof(uint32)) : NULL;
		qj[nq++] = i;
	}
	if (nq > 0)
		(void) gpuidx_exec_union_many(qs, nq);

	/* the results; the backend computes what the executor did not */
	for (int i = 0, q = 0; i < nj; i++)
	{
		UnionJob   *j = &jobs[i];
		UnionAggState *st = j->st;
		GpxExecQuery *eq = q < nq && qj[q] == i ? &qs[q++] : NULL;
		uint32	   *res = NULL;

		if (eq != NULL && eq->done)
		{
			st->count = eq->outn;
			res = eq->out;
		}
		else
		{
			if (eq != NULL && eq->out != NULL)
				pfree(eq->out);
			CHECK_FOR_INTERRUPTS();
			st->count = st->n == 0 ? 0 :
				unionagg_here(j->ls, st->n, j->total, j->docs ? &res : NULL, NULL,
							  st->reg != NULL ? st->cxt : CurrentMemoryContext);
		}
		st->has_result = true;
		st->has_docs = j->docs;
		st->docs = res;
		if (st->reg != NULL && st->node.next != NULL)
		{
			dlist_delete(&st->node);
			st->node.next = st->node.prev = NULL;
		}
	}
}

/*
 * The union of a state: its docIDs (*docs, when docs is not NULL) and its
 * size.  A window's state may still grow: computed afresh each time.
 */
static uint32
unionagg_result(UnionAggState *st, uint32 **docs)
{
	if (st->reg == NULL || !st->has_result || (docs != NULL && !st->has_docs))
	{
		if (st->reg == NULL)
			unionagg_stale(st);
		unionagg_compute(st, docs != NULL);
	}
	if (docs != NULL)
		*docs = st->docs;
	return st->count;
}

/*
 * Whether st's union is computed here and now, without the executor: it
 * takes no requests, and no sibling computed st's union already.  Then the
 * finals write their result directly (unionagg_encode2, unionagg_array).
 */
static bool
unionagg_direct(const UnionAggState *st)
{
	return !st->has_result && !gpuidx_exec_can_batch();
}

/*
 * The union of st's two inputs as a datum of its codec, merged and encoded
 * at once straight into the datum (gpx_setop_encode: the bytes
 * posting_build writes for the union); (Datum) 0 when the union may not
 * fit a value (the caller goes through an array and reports it).
 */
static Datum
unionagg_encode2(UnionAggState *st)
{
	PostingList pa,
				pb;
	uint32		n;
	Datum		d;
	gpx_status	rc;

	Assert(st->n == 2);
	posting_open(PointerGetDatum(st->vals[0]), &pa);
	posting_open(PointerGetDatum(st->vals[1]), &pb);
	if (gpx_union_bound(&pa.l, &pb.l) > POSTING_MAX_ELEMS)
		return (Datum) 0;
	d = posting_setop_encode(GPX_SETOP_UNION, &pa.l, &pb.l, st->codec, &n, &rc);
	if (rc != GPX_OK)
		unionagg_report(rc);
	return d;
}

/* The union of st's inputs (two or more) as an int4[] built in place. */
static ArrayType *
unionagg_array(UnionAggState *st)
{
	UnionJob	j;
	ArrayType  *arr;
	uint32		n;

	unionagg_open(st, true, &j);
	n = unionagg_here(j.ls, st->n, j.total, NULL, &arr, CurrentMemoryContext);
	return posting_array_truncate(arr, n);
}

/* Final of posting_union_agg(T) -> T: the union, encoded in T's codec. */
PG_FUNCTION_INFO_V1(posting_unionagg_final);
Datum
posting_unionagg_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;
	uint32	   *docs;
	uint32		n;

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
	if (st->n == 2 && unionagg_direct(st))
	{
		Datum		d = unionagg_encode2(st);

		if (d != (Datum) 0)
			PG_RETURN_DATUM(d);
	}
	n = unionagg_result(st, &docs);
	PG_RETURN_DATUM(posting_build(st->codec, docs, n));
}

/* Final of posting_union(T) -> int4[]. */
PG_FUNCTION_INFO_V1(posting_unionagg_docids_final);
Datum
posting_unionagg_docids_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;
	uint32	   *docs;
	uint32		n;

	(void) unionagg_context(fcinfo);
	st = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || !st->any)
		PG_RETURN_NULL();
	if (st->n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	if (unionagg_direct(st))
		PG_RETURN_ARRAYTYPE_P(unionagg_array(st));
	n = unionagg_result(st, &docs);
	PG_RETURN_ARRAYTYPE_P(posting_array_from(docs, n));
}

/* Final of posting_union_count(T) -> bigint: the size, no array built. */
Datum
posting_unionagg_count_final(PG_FUNCTION_ARGS)
{
	UnionAggState *st;

	(void) unionagg_context(fcinfo);
	st = PG_ARGISNULL(0) ? NULL : (UnionAggState *) PG_GETARG_POINTER(0);
	if (st == NULL || !st->any)
		PG_RETURN_NULL();
	if (st->n <= 1)
	{
		gpx_list	h;

		if (st->n == 0)
			PG_RETURN_INT64(0);
		posting_peek(PointerGetDatum(st->vals[0]), &h);
		PG_RETURN_INT64((int64) h.n);
	}
	PG_RETURN_INT64((int64) unionagg_result(st, NULL));
}

/*
 * Whether fn is the final function of a union aggregate, which computes
 * the pending groups of its statement as one executor batch
 * (unionagg_compute): the planner hook of exec_plan.c plans a grouping of
 * such aggregates hashed, as for posting_intersect.
 */
bool
posting_union_final_batches(PGFunction fn)
{
	return fn == posting_unionagg_final ||
		fn == posting_unionagg_docids_final ||
		fn == posting_unionagg_count_final;
}
