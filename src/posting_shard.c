/*
 * posting_shard.c - support for document-partitioned postings (one table
 * partition per docID range, possibly on other servers; docs/SCALEOUT.md):
 *
 *   posting_slice(T, lo bigint, hi bigint) -> T
 *       the docIDs of a list in [lo, hi), to move postings into shards;
 *   posting_union(int4[]) aggregate -> int4[]
 *       the sorted union of sorted docID arrays; the per-shard
 *       intersections of a query cover disjoint docID ranges, so the
 *       coordinator's union is a concatenation in range order, whatever
 *       order the shards answered in.
 */
#include "posting.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"

/* posting_slice(T, lo, hi) -> T: the docIDs d with lo <= d < hi. */
PG_FUNCTION_INFO_V1(posting_slice);
Datum
posting_slice(PG_FUNCTION_ARGS)
{
	int64		lo = PG_GETARG_INT64(1);
	int64		hi = PG_GETARG_INT64(2);
	gpx_list	h;
	PostingList pl;
	uint32		blk;
	uint32	   *out,
			   *outtf = NULL;
	uint32		n = 0;
	uint32		cap;
	bool		has;

	posting_peek(PG_GETARG_DATUM(0), &h);
	lo = Max(lo, 0);
	hi = Min(hi, (int64) PG_INT32_MAX + 1);
	if (h.n == 0 || lo >= hi || (uint64) lo > h.last || (uint64) hi <= h.first)
	{
		uint32		none = 0;

		return posting_build(h.codec, &none, 0);
	}
	if ((uint64) lo <= h.first && (uint64) hi > h.last)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));	/* the whole list */

	posting_open(PG_GETARG_DATUM(0), &pl);
	/* docIDs are distinct, so the slice holds at most hi - lo of them */
	cap = (uint32) Min((uint64) pl.l.n, (uint64) (hi - lo));
	if (cap > POSTING_MAX_ELEMS)
		posting_report_too_many("in a slice", cap);
	out = (uint32 *) palloc(Max(cap, 1) * sizeof(uint32));
	/* a slice keeps the frequencies of its postings */
	has = gpx_has_tfs(&pl.l);
	if (has)
		outtf = (uint32 *) palloc(Max(cap, 1) * sizeof(uint32));
	for (blk = gpx_find_block(&pl.l, (uint32) lo); blk < pl.l.nblocks; blk++)
	{
		uint32		vals[GPX_MAX_BLOCK],
					tfs[GPX_MAX_BLOCK];
		uint32		cnt,
					i;

		if (gpx_dir_first(&pl.l, blk) >= (uint64) hi)
			break;
		CHECK_FOR_INTERRUPTS();
		cnt = gpx_decode_block(&pl.l, blk, vals);
		if (has)
			(void) gpx_decode_block_tfs(&pl.l, blk, tfs);
		for (i = 0; i < cnt; i++)
		{
			if (vals[i] < (uint64) lo)
				continue;
			if (vals[i] >= (uint64) hi)
				break;
			if (n >= cap)
				elog(ERROR, "gpuidx: slice of block %u overflows its bound %u", blk, cap);
			if (has)
				outtf[n] = tfs[i];
			out[n++] = vals[i];
		}
	}
	return posting_build_tf(pl.l.codec, out, outtf, n);
}

/* One input of posting_union: a sorted run of docIDs. */
typedef struct PostingRun
{
	int32	   *v;
	uint32		n;
} PostingRun;

/* Transition state of posting_union: the non-empty runs seen so far. */
typedef struct PostingUnionState
{
	PostingRun *runs;
	int			nruns;
	int			cap;
	uint64		total;			/* sum of the runs' lengths */
	bool		any;			/* a non-NULL input came */
} PostingUnionState;

/* Check that an int4[] input is a strictly increasing run of docIDs. */
static void
posting_union_check(ArrayType *a, int32 *v, uint32 n)
{
	uint32		i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("posting_union takes one-dimensional arrays")));
	if (ARR_HASNULL(a) && array_contains_nulls(a))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("posting_union input must not contain NULLs")));
	for (i = 0; i < n; i++)
	{
		if (v[i] < 0)
			posting_report_negative(v[i]);
		if (i > 0 && v[i] <= v[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("posting_union input must be sorted ascending without duplicates"),
					 errdetail("Element %u (%d) follows %d.", i + 1, v[i], v[i - 1])));
	}
}

/* posting_union transition: keep a checked copy of each non-empty input. */
PG_FUNCTION_INFO_V1(posting_union_trans);
Datum
posting_union_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggctx;
	MemoryContext old;
	PostingUnionState *st;
	ArrayType  *a;
	uint32		n;

	if (!AggCheckCallContext(fcinfo, &aggctx))
		elog(ERROR, "posting_union_trans called in non-aggregate context");
	st = PG_ARGISNULL(0) ? NULL : (PostingUnionState *) PG_GETARG_POINTER(0);
	old = MemoryContextSwitchTo(aggctx);
	if (st == NULL)
	{
		st = (PostingUnionState *) palloc0(sizeof(PostingUnionState));
		st->cap = 8;
		st->runs = (PostingRun *) palloc(st->cap * sizeof(PostingRun));
	}
	if (!PG_ARGISNULL(1))
	{
		st->any = true;
		a = PG_GETARG_ARRAYTYPE_P_COPY(1);
		if (ARR_ELEMTYPE(a) != INT4OID)
			elog(ERROR, "posting_union takes integer[]");
		n = (uint32) ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
		posting_union_check(a, (int32 *) ARR_DATA_PTR(a), n);
		if (n > 0)
		{
			if (st->total + n > POSTING_MAX_ELEMS)
				posting_report_too_many("in a union", st->total + n);
			if (st->nruns == st->cap)
			{
				st->cap *= 2;
				st->runs = (PostingRun *) repalloc(st->runs, st->cap * sizeof(PostingRun));
			}
			st->runs[st->nruns].v = (int32 *) ARR_DATA_PTR(a);
			st->runs[st->nruns].n = n;
			st->nruns++;
			st->total += n;
		}
	}
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* Order runs by their first docID. */
static int
posting_run_cmp(const void *a, const void *b)
{
	int32		x = ((const PostingRun *) a)->v[0];
	int32		y = ((const PostingRun *) b)->v[0];

	return (x > y) - (x < y);
}

/* Order docIDs ascending. */
static int
posting_int32_cmp(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/*
 * posting_union final: runs sorted by first docID; when each ends before
 * the next begins (disjoint shards) they are concatenated, otherwise the
 * concatenation is sorted and deduplicated.  NULL when there were no
 * rows or only NULL inputs.
 */
PG_FUNCTION_INFO_V1(posting_union_final);
Datum
posting_union_final(PG_FUNCTION_ARGS)
{
	PostingUnionState *st;
	PostingRun *runs;
	ArrayType  *r;
	int32	   *out;
	uint32		n = 0;
	bool		disjoint = true;
	int			i;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	st = (PostingUnionState *) PG_GETARG_POINTER(0);
	if (!st->any)
		PG_RETURN_NULL();
	if (st->total == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));

	/* sort a copy: the state may be finalized again (window frames) */
	runs = (PostingRun *) palloc(st->nruns * sizeof(PostingRun));
	memcpy(runs, st->runs, st->nruns * sizeof(PostingRun));
	qsort(runs, st->nruns, sizeof(PostingRun), posting_run_cmp);
	for (i = 1; i < st->nruns; i++)
		if (runs[i - 1].v[runs[i - 1].n - 1] >= runs[i].v[0])
			disjoint = false;

	r = posting_array_alloc((uint32) st->total);
	out = (int32 *) ARR_DATA_PTR(r);
	for (i = 0; i < st->nruns; i++)
	{
		memcpy(out + n, runs[i].v, (Size) runs[i].n * sizeof(int32));
		n += runs[i].n;
	}
	if (!disjoint)
	{
		uint32		k = 0;
		uint32		j;

		qsort(out, n, sizeof(int32), posting_int32_cmp);
		for (j = 0; j < n; j++)
			if (k == 0 || out[j] != out[k - 1])
				out[k++] = out[j];
		n = k;
	}
	pfree(runs);
	PG_RETURN_ARRAYTYPE_P(posting_array_truncate(r, n));
}
