/*
 * posting_ops.c - pairwise operators on posting lists:
 *
 *   a & b   -> int4[]    the sorted intersection (posting_intersection)
 *   a && b  -> boolean   whether a and b share a docID (posting_overlaps)
 *
 * Both work on the compressed lists through the CPU intersection core
 * (gpx_intersect / gpx_overlaps: the shorter list drives, the longer one
 * is skipped through its block directory, never decoded in full).  The
 * codec is read from each value, so one C function serves every pair of
 * types, mixed ones included.  The headers are read first (a 32-byte
 * slice of each value): an empty list or disjoint docID ranges answer
 * without fetching or decoding anything else.
 */
#include "posting.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "gpx_intersect.h"

/*
 * Above this many possible results (the shorter list's length, capped by
 * the common docID range) the result is counted before it is computed,
 * so that the buffer is exact: two long lists with few common docIDs do
 * not allocate for the worst case, and a result beyond POSTING_MAX_ELEMS
 * fails before allocating anything.
 */
#define POSTING_ISECT_EXACT_ABOVE ((uint64) 4 * 1024 * 1024)

/* Report a failure of the intersection core on trusted lists (a bug). */
static void
posting_ops_report(gpx_status st, const gpx_list *a, const gpx_list *b)
{
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("intersection of a %s value and a %s value failed: %s",
					posting_type_name(a->codec), posting_type_name(b->codec),
					gpx_status_str(st))));
}

/* posting_intersection(T, T') -> int4[]: the & operator. */
PG_FUNCTION_INFO_V1(posting_intersection);
Datum
posting_intersection(PG_FUNCTION_ARGS)
{
	gpx_list	ha,
				hb;
	PostingList pa,
				pb;
	const gpx_list *ls[2];
	uint64		lo,
				hi,
				bound;
	uint32		cap,
				n = 0;
	ArrayType  *r;
	gpx_status	st;

	posting_peek(PG_GETARG_DATUM(0), &ha);
	posting_peek(PG_GETARG_DATUM(1), &hb);
	if (ha.n == 0 || hb.n == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	lo = Max(ha.first, hb.first);
	hi = Min(ha.last, hb.last);
	if (lo > hi)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));

	posting_open(PG_GETARG_DATUM(0), &pa);
	posting_open(PG_GETARG_DATUM(1), &pb);
	ls[0] = &pa.l;
	ls[1] = &pb.l;

	/* the result is no longer than either list, nor than the common range */
	bound = Min(Min((uint64) ha.n, (uint64) hb.n), hi - lo + 1);
	if (bound > POSTING_ISECT_EXACT_ABOVE)
	{
		/* count first: an exact buffer, and no 1 GB allocation just to fail */
		st = gpx_intersect_count(ls, 2, &n, NULL);
		if (st != GPX_OK)
			posting_ops_report(st, &pa.l, &pb.l);
		if (n > POSTING_MAX_ELEMS)
			posting_report_too_many("in an intersection result", n);
		bound = n;
	}
	if (bound == 0)
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	cap = (uint32) bound;

	/* intersect into the array itself, then cut it to the result */
	r = posting_array_alloc(cap);
	st = gpx_intersect_ex(ls, 2, NULL, (uint32 *) ARR_DATA_PTR(r), cap, &n,
						  NULL);
	if (st != GPX_OK)
		posting_ops_report(st, &pa.l, &pb.l);
	PG_RETURN_ARRAYTYPE_P(posting_array_truncate(r, n));
}

/* posting_overlaps(T, T') -> bool: the && operator, stops at the first match. */
PG_FUNCTION_INFO_V1(posting_overlaps);
Datum
posting_overlaps(PG_FUNCTION_ARGS)
{
	gpx_list	ha,
				hb;
	PostingList pa,
				pb;

	posting_peek(PG_GETARG_DATUM(0), &ha);
	posting_peek(PG_GETARG_DATUM(1), &hb);
	if (ha.n == 0 || hb.n == 0)
		PG_RETURN_BOOL(false);
	if (Max(ha.first, hb.first) > Min(ha.last, hb.last))
		PG_RETURN_BOOL(false);
	/* the ends are members: equal ends answer from the headers alone */
	if (ha.first == hb.first || ha.last == hb.last ||
		ha.first == hb.last || ha.last == hb.first)
		PG_RETURN_BOOL(true);

	posting_open(PG_GETARG_DATUM(0), &pa);
	posting_open(PG_GETARG_DATUM(1), &pb);
	PG_RETURN_BOOL(gpx_overlaps(&pa.l, &pb.l));
}
