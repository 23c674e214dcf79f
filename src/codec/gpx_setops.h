/*
 * gpx_setops.h - set algebra on compressed posting lists (pure C, no
 * postgres.h): union, difference, symmetric difference and their counts,
 * k-way union, containment, equality, a total order, a hash of the docID
 * sequence, rank, and updates with a sorted array.  (Appends that
 * re-encode only the tail need format knowledge: gpx_append.h.)
 *
 * Everything here works through the public list API of gpx_codec.h
 * (gpx_decode_block, gpx_block_count, gpx_dir_first, gpx_lower_bound,
 * gpx_cursor), so it reads every format version and every codec, mixed
 * freely; results are docID arrays (the caller encodes them in the type it
 * wants).
 *
 * THE MERGE PLAN (two lists)
 * --------------------------
 * Union, difference and symmetric difference of two lists a and b walk a
 * plan computed from the two block directories alone, nothing decoded:
 * the docIDs from min(first) to max(last) are cut at every block's first
 * docID of either list, giving at most a.nblocks + b.nblocks segments
 * [lo, hi].  Inside one segment each list has at most one block that can
 * hold docIDs (gpx_mseg.blk, GPX_MSEG_NONE where the list has none: the
 * segment lies before its first docID or after its last), and a block
 * enters the plan at the segment starting at its own first docID.  So a
 * segment's result depends only on (at most) two blocks clipped to
 * [lo, hi], segments are independent, and their outputs concatenate in
 * plan order.  The CPU walks the plan in order, decoding each block once
 * (lazily: a difference never decodes a block of b in a segment where a
 * has nothing).  A GPU merge reuses the same plan: one thread block per
 * segment decodes its two blocks into shared memory and merges them, a
 * first pass writing per-segment counts, an exclusive scan giving every
 * segment's output offset, a second pass writing (gpx_merge_plan fills the
 * segment array the kernels take).
 *
 * THE ORDER
 * ---------
 * gpx_compare orders lists lexicographically by their docID sequences, a
 * proper prefix first: {} < {1} < {1,2} < {1,3} < {2}.  It is a total
 * order on sets of docIDs (two lists compare equal iff they hold the same
 * docIDs), independent of codec and format version, and it decides from
 * the headers alone when the first docIDs differ or a list is empty.
 *
 * THE HASH
 * --------
 * gpx_hash(l, seed) is a 64-bit function of the docID sequence only (never
 * of the bytes), so equal lists hash alike across codecs and format
 * versions; it decodes the whole list.  Element i (0-based) with value v
 * goes into lane i & 3: h[lane] = fmix(h[lane] ^ (v * K1)) * K2 (the four
 * lanes are independent chains, so the loop runs at about one element per
 * cycle); the lanes, n and the seed are then mixed (splitmix64's
 * finalizer).  Not collision resistant: for hash tables, not identity.
 *
 * Ownership and errors: nothing here allocates, prints or aborts.  Output
 * buffers and work areas are the caller's.  The list operations need room
 * for their result only (a bound is given, a count can be had first):
 * when the result does not fit they stop with GPX_E_NOSPACE, out's
 * contents then unspecified; the array operations want their bound up
 * front.  All lists must be valid (gpx_validate() or the encoder's
 * output).
 */
#ifndef GPX_SETOPS_H
#define GPX_SETOPS_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gpx_mseg.blk of a list with no block in the segment. */
#define GPX_MSEG_NONE 0xFFFFFFFFu

/* One segment of a two-list merge plan: docIDs [lo, hi]. */
typedef struct gpx_mseg
{
	uint32_t	lo;
	uint32_t	hi;
	uint32_t	blk[2];			/* block of list 0 / 1, or GPX_MSEG_NONE */
} gpx_mseg;

/* Iterator over the plan of two lists (see above). */
typedef struct gpx_mplan
{
	const gpx_list *l[2];
	uint32_t	cur[2];			/* block of each list holding lo's range */
	uint32_t	lo;				/* start of the next segment */
	uint32_t	end;			/* max(last) of the non-empty lists */
	bool		done;
} gpx_mplan;

/* Most segments a plan of a and b can have: a.nblocks + b.nblocks. */
uint64_t	gpx_mplan_max(const gpx_list *a, const gpx_list *b);

/* Start the plan of a and b (either may be empty). */
void		gpx_mplan_init(gpx_mplan *p, const gpx_list *a, const gpx_list *b);

/* The next segment in docID order into *s; false when the plan is done. */
bool		gpx_mplan_next(gpx_mplan *p, gpx_mseg *s);

/*
 * The whole plan into segs[0..cap): *nseg segments; GPX_E_NOSPACE when
 * cap < gpx_mplan_max(a, b).
 */
gpx_status	gpx_merge_plan(const gpx_list *a, const gpx_list *b,
						   gpx_mseg *segs, uint64_t cap, uint32_t *nseg);

/* ---- two lists ---------------------------------------------------------- */

/* min(a.n + b.n, GPX_MAX_N): room enough for gpx_union and gpx_symdiff. */
uint32_t	gpx_union_bound(const gpx_list *a, const gpx_list *b);

/*
 * a | b (docIDs in either) into out[0..*outn), sorted; GPX_E_NOSPACE when
 * the result exceeds outcap (gpx_union_bound always suffices).
 */
gpx_status	gpx_union(const gpx_list *a, const gpx_list *b, uint32_t *out,
					  uint32_t outcap, uint32_t *outn);

/* a - b (docIDs of a not in b); a.n always suffices. */
gpx_status	gpx_difference(const gpx_list *a, const gpx_list *b,
						   uint32_t *out, uint32_t outcap, uint32_t *outn);

/* a # b (docIDs in exactly one); gpx_union_bound(a, b) suffices. */
gpx_status	gpx_symdiff(const gpx_list *a, const gpx_list *b, uint32_t *out,
						uint32_t outcap, uint32_t *outn);

/* The operations of gpx_setop_encode. */
typedef enum gpx_setop
{
	GPX_SETOP_UNION,			/* a | b */
	GPX_SETOP_DIFFERENCE,		/* a - b */
	GPX_SETOP_SYMDIFF			/* a # b */
} gpx_setop;

/*
 * a op b as a list of codec in the current format, encoded as it is
 * merged (gpx_encstream): the blocks of the result are written as the
 * plan's segments produce them, so the result's docIDs are never held
 * whole; out[0..*outlen) is byte for byte gpx_encode of the result, *outn
 * its size.  gpx_setop_encode_bound: bytes of out that suffice (from the
 * largest result the headers allow).
 */
size_t		gpx_setop_encode_bound(gpx_setop op, const gpx_list *a,
								   const gpx_list *b, int codec);
gpx_status	gpx_setop_encode(gpx_setop op, const gpx_list *a, const gpx_list *b,
							 int codec, uint8_t *out, size_t cap,
							 size_t *outlen, uint32_t *outn);

/*
 * The sizes of a | b, a - b and a # b without materialising anything: from
 * n and the size of the intersection (gpx_intersect_count, which skips
 * blocks through the directories).
 */
gpx_status	gpx_union_count(const gpx_list *a, const gpx_list *b,
							uint32_t *count);
gpx_status	gpx_difference_count(const gpx_list *a, const gpx_list *b,
								 uint32_t *count);
gpx_status	gpx_symdiff_count(const gpx_list *a, const gpx_list *b,
							  uint32_t *count);

/*
 * True iff every docID of b is in a (a @> b; the empty list is in every
 * list).  Header checks first (n, first, last), then a forward cursor on
 * a, which skips a's blocks through its directory; stops at the first
 * docID of b missing from a.
 */
bool		gpx_contains_all(const gpx_list *a, const gpx_list *b);

/*
 * True iff a and b hold the same docIDs, whatever their codecs and format
 * versions.  Headers first (n, first, last); byte-identical blobs are
 * equal (the encoding of a list is a function of its docIDs); otherwise
 * block by block, stopping at the first difference.
 */
bool		gpx_equal(const gpx_list *a, const gpx_list *b);

/* -1, 0 or 1 as a sorts before, with or after b in the order above. */
int			gpx_compare(const gpx_list *a, const gpx_list *b);

/* 64-bit hash of the docID sequence (see above). */
uint64_t	gpx_hash(const gpx_list *l, uint64_t seed);

/*
 * Number of docIDs <= x: the header for x outside [first, last), else
 * gpx_lower_bound (the directory, then one block).
 */
uint32_t	gpx_rank(const gpx_list *l, uint32_t x);

/* ---- k lists ------------------------------------------------------------ */

/*
 * One node of a k-way union's merge tree (part of the caller's work area):
 * a leaf reads a list block by block, an inner node merges its two
 * children; buf holds the node's output not yet taken by its parent.
 */
typedef struct gpx_unode
{
	const gpx_list *l;			/* a leaf's list; NULL for an inner node */
	struct gpx_unode *a,
			   *b;				/* an inner node's children */
	uint32_t	blk;			/* a leaf's next block */
	uint32_t	pos;			/* buf[pos..cnt) not yet taken */
	uint32_t	cnt;
	bool		done;			/* nothing follows buf */
	uint32_t	buf[GPX_MAX_BLOCK];
} gpx_unode;

/* Bytes of the work area gpx_union_many needs for k lists. */
size_t		gpx_union_many_work(int k);

/* min(sum of n, GPX_MAX_N): room enough for gpx_union_many. */
uint32_t	gpx_union_many_bound(const gpx_list *const *lists, int k);

/*
 * Union of lists[0..k) into out[0..outcap) (GPX_E_NOSPACE if it does not
 * fit), or, with out == NULL, only its size into *outn.  work:
 * gpx_union_many_work(k) bytes, aligned for a pointer.  Two lists go
 * through the merge plan (or, counting, gpx_union_count).  More lists whose
 * docID ranges overlap (covering the union's span more than twice over)
 * go through a balanced tree of two-way merges (the vectorised merge of
 * the set operations), each node passing its output up a buffer at a
 * time, so a docID costs a merge step per level, about log2(k); lists
 * that overlap less go through a heap of the lists' heads that emits
 * whole runs (the list at the top gives every buffered docID below the
 * next list's head at once), about one heap step per block.
 */
gpx_status	gpx_union_many(const gpx_list *const *lists, int k, void *work,
						   size_t workbytes, uint32_t *out, uint32_t outcap,
						   uint32_t *outn);

/* ---- a list and a sorted array ------------------------------------------ */

/*
 * l | docs[0..m) into out (outcap >= min(l.n + m, GPX_MAX_N)); docs must be
 * strictly increasing and <= GPX_MAX_DOCID (else GPX_E_UNSORTED /
 * GPX_E_RANGE, nothing written).
 */
gpx_status	gpx_union_array(const gpx_list *l, const uint32_t *docs,
							uint32_t m, uint32_t *out, uint32_t outcap,
							uint32_t *outn);

/* l - docs[0..m) into out (outcap >= l.n); docs as for gpx_union_array. */
gpx_status	gpx_difference_array(const gpx_list *l, const uint32_t *docs,
								 uint32_t m, uint32_t *out, uint32_t outcap,
								 uint32_t *outn);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_SETOPS_H */
