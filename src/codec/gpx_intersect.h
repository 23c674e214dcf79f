/*
 * gpx_intersect.h - CPU intersection of compressed posting lists (pure C,
 * no postgres.h).
 *
 * Algorithm (DESIGN.md section 4): SvS.  The lists are ordered shortest
 * first (by n, ties by span last - first, then by position).  Only the
 * docID range [max first, min last] common to all lists can hold a result;
 * an empty range answers at once without decoding anything.  The shortest
 * list is the "source": it is decoded one block at a time (from the block
 * holding the range start, up to the range end) and every block of
 * candidates is filtered by each longer list in turn, which keeps its
 * position between blocks and moves only forward.  A filter pass uses one
 * of two strategies, chosen per (list, candidate block):
 *
 *   merge  walk the list's blocks: skip blocks through the directory,
 *          decode each touched block once into a buffer and merge there
 *          (branchless two-way merge when both sides are about as dense,
 *          else a forward scan of the buffer per candidate);
 *   probe  for each candidate, gallop through the directory from the
 *          previous block and search inside the block with the codec's
 *          block_lower_bound (LRC: LR range contraction on single
 *          elements; QS: jump by the high bits), without decoding the
 *          block.  PFor has no random access inside a block, so its probes
 *          decode each touched block once and binary search it.
 *
 * AUTO picks probe when the list holds many more elements in the
 * candidates' value range (counted through its directory) than there are
 * candidates: blocks_in_range * block_size > ratio * candidates, with the
 * per-codec ratios below (measured crossovers on uniform lists of 10^6);
 * and during a probe pass, a block probed GPX_ISECT_DECODE_AFTER times is
 * decoded instead.
 *
 * A candidate block that a list empties ends that block early; the source
 * then skips ahead (through its directory, without decoding) to that
 * list's next element after the block, Ding et al.'s merge-find skipping
 * applied to the shortest list too.
 *
 * Ownership: the library never allocates; the output buffer is the
 * caller's.  Per-list state lives on the stack (about
 * (GPX_ISECT_STATE_LISTS + 2) KiB); lists beyond the first
 * GPX_ISECT_STATE_LISTS longer ones are still handled, but their position
 * is recomputed for every candidate block.  No function prints or aborts.
 * All lists must be valid blobs (gpx_validate() or produced by the
 * encoder); codecs may be mixed freely.
 */
#ifndef GPX_INTERSECT_H
#define GPX_INTERSECT_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longer lists that keep their position across candidate blocks. */
#define GPX_ISECT_STATE_LISTS 16

/*
 * Default AUTO thresholds: probe when the list's elements in the
 * candidates' range exceed ratio * candidates.  PFor's "probe" still
 * decodes every touched block (it only trades the merge scan for a binary
 * search), so it pays off earlier.
 */
#define GPX_ISECT_RATIO_PFOR	16
#define GPX_ISECT_RATIO_LRC		24
#define GPX_ISECT_RATIO_QS		40

/*
 * The same where a vectorised variant runs (gpx_cpu.h): its block decode
 * and merge by windows are several times faster, while a probe is not,
 * so merging pays off up to much sparser candidates (measured with
 * test/bench/bench_simd --probe-ratio on the GOV2-calibrated queries:
 * flat from 192 up for lrc and qs); below one block (256) per candidate,
 * so that a lone candidate is still probed, not a block decoded for it.
 * A PFor probe decodes its block too, so PFor merges up to just below
 * one of its blocks (128) per candidate: +5 % queries/s over 64 with the
 * merge by sampled windows (256 measured within 1 % of 127).
 */
#define GPX_ISECT_RATIO_SIMD_PFOR	127
#define GPX_ISECT_RATIO_SIMD_LRC	192
#define GPX_ISECT_RATIO_SIMD_QS		192

/*
 * Merge passes use a branchless two-way merge when the list holds fewer
 * than this many times the candidates in their range (counted in blocks),
 * else a forward scan per candidate.
 */
#define GPX_ISECT_DENSE_RATIO	3

/*
 * AUTO only: after this many block_lower_bound probes into one block of an
 * LRC or QS list, the block is decoded and later probes search the buffer.
 */
#define GPX_ISECT_DECODE_AFTER	8

typedef enum gpx_isect_strategy
{
	GPX_ISECT_AUTO = 0,			/* choose per list and candidate block */
	GPX_ISECT_MERGE,			/* always merge (decode touched blocks) */
	GPX_ISECT_PROBE				/* always probe (never decode LRC/QS blocks) */
} gpx_isect_strategy;

/* Options of the _ex functions; a NULL options pointer means all zero. */
typedef struct gpx_isect_opts
{
	gpx_isect_strategy strategy;
	uint32_t	probe_ratio;	/* AUTO threshold; 0: the codec default */
} gpx_isect_opts;

/*
 * Work counters of one call (overwritten, not accumulated: the call zeroes
 * *stats first).  A "pass" is one longer list filtering one block of
 * candidates.
 */
typedef struct gpx_isect_stats
{
	uint64_t	source_blocks;	/* blocks of the shortest list decoded */
	uint64_t	source_skipped; /* its blocks in range skipped undecoded */
	uint64_t	candidates;		/* source elements entering the filters */
	uint64_t	blocks_decoded; /* blocks of longer lists decoded */
	uint64_t	probes;			/* block_lower_bound calls */
	uint64_t	merge_passes;	/* filter passes run as merge */
	uint64_t	probe_passes;	/* filter passes run as probe */
	uint64_t	merge_cands;	/* candidates entering merge passes */
	uint64_t	probe_cands;	/* candidates entering probe passes */
	uint64_t	result;			/* elements of the intersection found */
	uint32_t	lists;			/* k */
	uint32_t	range_empty;	/* 1: [max first, min last] was empty or a
								 * list was empty: nothing decoded */
} gpx_isect_stats;

/*
 * The most elements an intersection of these lists can have: the smallest
 * n (0 for k <= 0).  gpx_intersect()'s out must have room for this many.
 */
uint32_t	gpx_intersect_bound(const gpx_list *const *lists, int k);

/*
 * Intersect lists[0..k) into out (sorted, strictly increasing); *outn gets
 * the count.  out must hold gpx_intersect_bound(lists, k) values.  k == 0
 * gives 0 elements; k == 1 decodes the list.  stats may be NULL.
 */
gpx_status	gpx_intersect(const gpx_list *const *lists, int k, uint32_t *out,
						  uint32_t *outn, gpx_isect_stats *stats);

/*
 * gpx_intersect with options and an explicit capacity: fails with
 * GPX_E_NOSPACE (out's contents then unspecified) if the result needs more
 * than outcap values.  opts may be NULL.
 */
gpx_status	gpx_intersect_ex(const gpx_list *const *lists, int k,
							 const gpx_isect_opts *opts, uint32_t *out,
							 uint32_t outcap, uint32_t *outn,
							 gpx_isect_stats *stats);

/* The most lists gpx_intersect_pos takes. */
#define GPX_ISECT_POS_LISTS (GPX_ISECT_STATE_LISTS + 1)

/*
 * gpx_intersect_ex that also tells where each result is in every list:
 * pos[t][r] = the index (0-based rank) of out[r] in lists[t], for t < k
 * and r < *outn, each pos[t] with room for outcap values.  The same
 * intersection, result and errors; every block that a merge pass works on
 * is decoded (bitmap blocks included), and the probes ask the codecs for
 * the index they find.  GPX_E_ARG for k > GPX_ISECT_POS_LISTS or a NULL
 * pos (or pos[t]) with k > 0.
 */
gpx_status	gpx_intersect_pos(const gpx_list *const *lists, int k,
							  const gpx_isect_opts *opts, uint32_t *out,
							  uint32_t outcap, uint32_t *outn,
							  uint32_t *const *pos, gpx_isect_stats *stats);

/* Size of the intersection, without an output buffer. */
gpx_status	gpx_intersect_count(const gpx_list *const *lists, int k,
								uint32_t *count, gpx_isect_stats *stats);

/* gpx_intersect_count with options (opts may be NULL). */
gpx_status	gpx_intersect_count_ex(const gpx_list *const *lists, int k,
								   const gpx_isect_opts *opts, uint32_t *count,
								   gpx_isect_stats *stats);

/*
 * True iff a and b share an element; stops at the first candidate block
 * holding a common element.  False for NULL arguments.
 */
bool		gpx_overlaps(const gpx_list *a, const gpx_list *b);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_INTERSECT_H */
