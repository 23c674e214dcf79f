/*
 * posting_setops.c - pairwise set algebra on posting lists:
 *
 *   a | b   posting_or(A, B) -> A          docIDs in either list
 *   a - b   posting_andnot(A, B) -> A      docIDs of a not in b
 *   a # b   posting_xor(A, B) -> A         docIDs in exactly one
 *   posting_or_count, posting_andnot_count, posting_xor_count -> bigint
 *                                          their sizes, nothing built
 *   a @> b  contains(A, B) -> bool         every docID of b is in a
 *   a <@ b  contained_in(A, B) -> bool     every docID of a is in b
 *
 * Defined for every pair of the three types; a result list has the type
 * (codec) of the left operand.  The codec core does the work
 * (src/codec/gpx_setops.h: block-wise merges along a plan of the two
 * directories, each segment's result pushed to an incremental encoder so
 * that the result's docIDs are never held whole; counts from the skipping
 * intersection count, containment with a skipping cursor).  The headers are read first (a 32-byte slice
 * of each value), so an empty operand or disjoint docID ranges answer
 * without decoding anything, and often without detoasting.
 */
#include "posting.h"

#include "gpx_setops.h"

/* Which list operation a call computes. */
typedef enum PostingSetOp
{
	POSTING_OR,
	POSTING_ANDNOT,
	POSTING_XOR
} PostingSetOp;

/* SQL operator of an operation, for messages. */
static const char *
posting_setop_name(PostingSetOp op)
{
	return op == POSTING_OR ? "|" : op == POSTING_ANDNOT ? "-" : "#";
}

/* Report a failure of the codec core on trusted lists (a bug). */
static void
posting_setop_report(gpx_status st, PostingSetOp op, const gpx_list *a,
					 const gpx_list *b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("%s %s %s failed: %s", posting_type_name(a->codec),
					posting_setop_name(op), posting_type_name(b->codec),
					gpx_status_str(st))));
}

/* The size of a op b. */
static uint32
posting_setop_count(PostingSetOp op, const gpx_list *a, const gpx_list *b)
{
	uint32		c = 0;
	gpx_status	st;

	if (op == POSTING_OR)
		st = gpx_union_count(a, b, &c);
	else if (op == POSTING_ANDNOT)
		st = gpx_difference_count(a, b, &c);
	else
		st = gpx_symdiff_count(a, b, &c);
	if (st != GPX_OK)
		posting_setop_report(st, op, a, b);
	return c;
}

/* A value of codec holding the docIDs of datum d (a header h): d itself
 * (without frequencies) when it already has that codec, else decoded and
 * re-encoded. */
static Datum
posting_as_codec(Datum d, const gpx_list *h, int codec)
{
	PostingList pl;
	uint32	   *docs;

	if (h->codec == codec)
		return posting_without_tfs(d);
	posting_open(d, &pl);
	docs = posting_decode_all(&pl, psprintf("to build a %s",
											posting_type_name(codec)));
	return posting_build(codec, docs, pl.l.n);
}

/*
 * a op b as a value of a's type.  When the bound on the result's size
 * (n of a for a difference, n of a plus n of b otherwise) is within the
 * in-memory limit, the result is encoded as it is merged, straight into
 * the datum (gpx_setop_encode: the bytes posting_build would write).  A
 * larger bound is replaced by the exact count first, so that two huge
 * lists with a small result work and a result beyond the limit fails
 * before anything big is allocated; that result goes through an array.
 */
static Datum
posting_setop(FunctionCallInfo fcinfo, PostingSetOp op)
{
	Datum		da = PG_GETARG_DATUM(0),
				db = PG_GETARG_DATUM(1);
	gpx_list	ha,
				hb;
	PostingList pa,
				pb;
	uint64		bound;
	uint32	   *out;
	uint32		n = 0;
	gpx_status	st;

	posting_peek(da, &ha);
	posting_peek(db, &hb);

	/* answers from the headers */
	if (hb.n == 0)
		return posting_without_tfs(da);
	if (ha.n == 0)
		return op == POSTING_ANDNOT ? da : posting_as_codec(db, &hb, ha.codec);
	if (op == POSTING_ANDNOT && (ha.last < hb.first || hb.last < ha.first))
		return posting_without_tfs(da);

	posting_open(da, &pa);
	posting_open(db, &pb);
	bound = op == POSTING_ANDNOT ? pa.l.n : gpx_union_bound(&pa.l, &pb.l);
	if (bound <= POSTING_MAX_ELEMS)
	{
		/* the common case: the result encoded as the merge produces it */
		gpx_setop	gop = op == POSTING_OR ? GPX_SETOP_UNION :
			op == POSTING_ANDNOT ? GPX_SETOP_DIFFERENCE : GPX_SETOP_SYMDIFF;
		Datum		res = posting_setop_encode(gop, &pa.l, &pb.l, ha.codec, &n, &st);

		if (st != GPX_OK)
			posting_setop_report(st, op, &pa.l, &pb.l);
		if (res != (Datum) 0)
		{
			/* nothing removed, or nothing added: a is the answer as it is */
			if (n == pa.l.n && op != POSTING_XOR)
			{
				pfree(DatumGetPointer(res));
				return posting_without_tfs(da);
			}
			return res;
		}
	}
	if (bound > POSTING_MAX_ELEMS)
	{
		bound = posting_setop_count(op, &pa.l, &pb.l);
		if (bound > POSTING_MAX_ELEMS)
			posting_report_too_many(psprintf("in the result of %s %s %s",
											 posting_type_name(ha.codec),
											 posting_setop_name(op),
											 posting_type_name(hb.codec)),
									bound);
	}
	out = (uint32 *) palloc(Max(bound, 1) * sizeof(uint32));
	if (op == POSTING_OR)
		st = gpx_union(&pa.l, &pb.l, out, (uint32) bound, &n);
	else if (op == POSTING_ANDNOT)
		st = gpx_difference(&pa.l, &pb.l, out, (uint32) bound, &n);
	else
		st = gpx_symdiff(&pa.l, &pb.l, out, (uint32) bound, &n);
	if (st != GPX_OK)
		posting_setop_report(st, op, &pa.l, &pb.l);
	/* nothing removed, or nothing added: a is the answer as it is */
	if (n == pa.l.n && op != POSTING_XOR)
		return posting_without_tfs(da);
	return posting_build(ha.codec, out, n);
}

/* posting_or(A, B) -> A: the | operator. */
PG_FUNCTION_INFO_V1(posting_or);
Datum
posting_or(PG_FUNCTION_ARGS)
{
	return posting_setop(fcinfo, POSTING_OR);
}

/* posting_andnot(A, B) -> A: the - operator. */
PG_FUNCTION_INFO_V1(posting_andnot);
Datum
posting_andnot(PG_FUNCTION_ARGS)
{
	return posting_setop(fcinfo, POSTING_ANDNOT);
}

/* posting_xor(A, B) -> A: the # operator. */
PG_FUNCTION_INFO_V1(posting_xor);
Datum
posting_xor(PG_FUNCTION_ARGS)
{
	return posting_setop(fcinfo, POSTING_XOR);
}

/* The size of a op b, from the headers when they decide it. */
static Datum
posting_setop_size(FunctionCallInfo fcinfo, PostingSetOp op)
{
	gpx_list	ha,
				hb;
	PostingList pa,
				pb;

	posting_peek(PG_GETARG_DATUM(0), &ha);
	posting_peek(PG_GETARG_DATUM(1), &hb);
	if (ha.n == 0 || hb.n == 0 || ha.last < hb.first || hb.last < ha.first)
	{
		/* nothing in common */
		if (op == POSTING_ANDNOT)
			PG_RETURN_INT64((int64) ha.n);
		PG_RETURN_INT64((int64) ha.n + hb.n);
	}
	posting_open(PG_GETARG_DATUM(0), &pa);
	posting_open(PG_GETARG_DATUM(1), &pb);
	PG_RETURN_INT64((int64) posting_setop_count(op, &pa.l, &pb.l));
}

/* posting_or_count(A, B) -> bigint. */
PG_FUNCTION_INFO_V1(posting_or_count);
Datum
posting_or_count(PG_FUNCTION_ARGS)
{
	return posting_setop_size(fcinfo, POSTING_OR);
}

/* posting_andnot_count(A, B) -> bigint. */
PG_FUNCTION_INFO_V1(posting_andnot_count);
Datum
posting_andnot_count(PG_FUNCTION_ARGS)
{
	return posting_setop_size(fcinfo, POSTING_ANDNOT);
}

/* posting_xor_count(A, B) -> bigint. */
PG_FUNCTION_INFO_V1(posting_xor_count);
Datum
posting_xor_count(PG_FUNCTION_ARGS)
{
	return posting_setop_size(fcinfo, POSTING_XOR);
}

/*
 * Whether every docID of the list `small` is in the list `big`: header
 * checks (n, first, last) first, then a cursor on big.
 */
static bool
posting_list_contains(Datum big, Datum small)
{
	gpx_list	hb,
				hs;
	PostingList pb,
				ps;

	posting_peek(small, &hs);
	if (hs.n == 0)
		return true;
	posting_peek(big, &hb);
	if (hb.n < hs.n || hs.first < hb.first || hs.last > hb.last)
		return false;
	posting_open(big, &pb);
	posting_open(small, &ps);
	return gpx_contains_all(&pb.l, &ps.l);
}

/* contains(A, B) -> bool: the A @> B operator. */
PG_FUNCTION_INFO_V1(posting_contains_list);
Datum
posting_contains_list(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_list_contains(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

/* contained_in(A, B) -> bool: the A <@ B operator. */
PG_FUNCTION_INFO_V1(posting_contained_in_list);
Datum
posting_contained_in_list(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_list_contains(PG_GETARG_DATUM(1), PG_GETARG_DATUM(0)));
}
