/*
 * posting_order.c - equality, the total order and hashing of posting lists,
 * the support of the btree and hash operator classes:
 *
 *   posting_eq, posting_ne, posting_lt, posting_le, posting_gt, posting_ge
 *                      (A, B) -> bool, the operators = <> < <= > >=
 *   posting_cmp(A, B) -> int4           btree support function 1
 *   posting_hash(T) -> int4             hash support function 1
 *   posting_hash_extended(T, int8) -> int8   hash support function 2
 *
 * Lists are compared by their docIDs, never by their bytes: the same list
 * in another codec or format version is equal, sorts equal and hashes
 * alike (so one btree and one hash operator family hold all three types).
 * The order is lexicographic on the sorted docID sequences, a proper
 * prefix first: {} < {1} < {1,2} < {1,3} < {2} (gpx_compare).  The headers
 * (a 32-byte slice of each value) decide equality when n, first or last
 * differ and the order when a list is empty or the first docIDs differ,
 * without detoasting the rest; the hash decodes the whole list.
 */
#include "posting.h"

#include "gpx_setops.h"

/* Whether the lists d1 and d2 hold the same docIDs. */
static bool
posting_lists_equal(Datum d1, Datum d2)
{
	gpx_list	h1,
				h2;
	PostingList p1,
				p2;

	posting_peek(d1, &h1);
	posting_peek(d2, &h2);
	if (h1.n != h2.n || h1.first != h2.first || h1.last != h2.last)
		return false;
	if (h1.n <= 2)
		return true;
	posting_open(d1, &p1);
	posting_open(d2, &p2);
	return gpx_equal(&p1.l, &p2.l);
}

/* -1, 0, 1: the order of the lists d1 and d2. */
static int
posting_lists_cmp(Datum d1, Datum d2)
{
	gpx_list	h1,
				h2;
	PostingList p1,
				p2;

	posting_peek(d1, &h1);
	posting_peek(d2, &h2);
	if (h1.n == 0 || h2.n == 0)
		return (int) (h1.n > 0) - (int) (h2.n > 0);
	if (h1.first != h2.first)
		return h1.first < h2.first ? -1 : 1;
	if (h1.n == 1 || h2.n == 1)
		return h1.n == h2.n ? 0 : (h1.n < h2.n ? -1 : 1);
	posting_open(d1, &p1);
	posting_open(d2, &p2);
	return gpx_compare(&p1.l, &p2.l);
}

/* posting_eq(A, B): the = operator. */
PG_FUNCTION_INFO_V1(posting_eq);
Datum
posting_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_lists_equal(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

/* posting_ne(A, B): the <> operator. */
PG_FUNCTION_INFO_V1(posting_ne);
Datum
posting_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!posting_lists_equal(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

/* posting_lt(A, B): the < operator. */
PG_FUNCTION_INFO_V1(posting_lt);
Datum
posting_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_lists_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) < 0);
}

/* posting_le(A, B): the <= operator. */
PG_FUNCTION_INFO_V1(posting_le);
Datum
posting_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_lists_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) <= 0);
}

/* posting_gt(A, B): the > operator. */
PG_FUNCTION_INFO_V1(posting_gt);
Datum
posting_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_lists_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) > 0);
}

/* posting_ge(A, B): the >= operator. */
PG_FUNCTION_INFO_V1(posting_ge);
Datum
posting_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(posting_lists_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)) >= 0);
}

/* posting_cmp(A, B) -> int4: btree support function 1. */
PG_FUNCTION_INFO_V1(posting_cmp);
Datum
posting_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(posting_lists_cmp(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));
}

/*
 * posting_hash(T) -> int4: hash support function 1, the low 32 bits of
 * posting_hash_extended with seed 0 (as the hash access method requires).
 */
PG_FUNCTION_INFO_V1(posting_hash);
Datum
posting_hash(PG_FUNCTION_ARGS)
{
	PostingList pl;

	posting_open(PG_GETARG_DATUM(0), &pl);
	PG_RETURN_INT32((int32) (uint32) gpx_hash(&pl.l, 0));
}

/* posting_hash_extended(T, int8) -> int8: hash support function 2. */
PG_FUNCTION_INFO_V1(posting_hash_extended);
Datum
posting_hash_extended(PG_FUNCTION_ARGS)
{
	PostingList pl;

	posting_open(PG_GETARG_DATUM(0), &pl);
	PG_RETURN_INT64((int64) gpx_hash(&pl.l, (uint64) PG_GETARG_INT64(1)));
}
