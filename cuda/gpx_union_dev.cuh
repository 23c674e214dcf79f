/*
 * gpx_union_dev.cuh - the device side of batched union (gpx_cuda_union.h):
 * the descriptors the host driver (gpx_union_run.cu) hands to the kernels
 * of gpx_union.cu, and their host wrappers.
 *
 * Layout of one chunk (a run of a batch's queries) on the device:
 *   - slots: every docID of every (query, non-empty list) pair has one,
 *     each query's slots consecutive, its lists' in query order:
 *     query q holds slots [off, off + n), its list j slots
 *     [bnd[q.bnd + j], bnd[q.bnd + j + 1]) (k + 1 boundaries);
 *   - decode: one warp per list block writes that block's docIDs into the
 *     slots of every pair that uses the list (a list two queries share is
 *     decoded twice, once into each);
 *   - merge round r (0, 1, ...): each query's slots hold ceil(k / 2^r)
 *     sorted runs, run a being lists [a 2^r, (a + 1) 2^r); runs 2i and
 *     2i + 1 merge into one (a stable merge by ranks: an element of the
 *     left run moves to its index plus the number of right elements below
 *     it, one of the right run to its index plus the number of left
 *     elements not above it, so equal docIDs end up side by side, left
 *     first); a run without a partner is copied.  A round is one pass,
 *     ceil(log2 k) rounds leave one sorted run per query, duplicates
 *     included;
 *   - duplicates out: a slot keeps its docID when it is its query's first
 *     or differs from the slot before; an exclusive scan of those flags
 *     gives every kept docID its place (per query: minus the scan at the
 *     query's first slot), and its query's size.
 * The rank of an element in the other run is a binary search; a warp's 32
 * slots, when they belong to one run (the usual case), first find the
 * window of the other run that can hold their ranks (lanes 0 and 31),
 * then search only that.
 *
 * Why merge rounds and not a bitmap over a query's docID range (set a bit
 * per docID, popcount, scan, expand): the bitmap's cost grows with the
 * range (range/8 bytes cleared, range/32 words scanned and expanded, and
 * an atomic per docID), the merge's with the docIDs (ceil(log2 k) passes
 * of a read, a windowed search and a write per slot, no atomics).  With k
 * = 8 the bitmap pays off only when the union covers more than about one
 * docID in 32 of its range; term lists of a collection (GOV2: 10^4 to
 * 10^6 of 25M documents) and their unions of a few terms are far sparser,
 * and a range of 2^31 would need 256 MB of bitmap per query.  The merge's
 * memory is bounded by the chunk's slots (12 bytes each), whatever the
 * docIDs; and the results leave the device at PCIe speed, which the
 * merge's passes do not come near on an H100 (bench_gpu --union reports
 * both: device ms and docIDs per second end to end).
 */
#ifndef GPX_UNION_DEV_CUH
#define GPX_UNION_DEV_CUH

#include "gpx_cuda_dev.cuh"

#define GPX_UN_THREADS 256		/* threads per thread-block (merge, scan) */

/* gpx_un_query.mode: where a query's docIDs go */
#define GPX_UN_STAGE 0			/* the chunk's result area, copied back */
#define GPX_UN_DIRECT 1			/* dst: mapped host memory, cap words */
#define GPX_UN_COUNT 2			/* nowhere: only the size */

/* One query of a chunk as the kernels see it (n > 0, k > 0). */
typedef struct gpx_un_query
{
	uint32_t	off;			/* its first slot */
	uint32_t	n;				/* its slots: the docIDs of its lists */
	uint32_t	bnd;			/* its list boundaries: bnd[bnd .. bnd + k] */
	uint32_t	k;				/* its non-empty lists */
	uint32_t	mode;			/* GPX_UN_* */
	uint32_t	cap;			/* GPX_UN_DIRECT: room at dst */
	uint32_t   *dst;			/* GPX_UN_DIRECT: device address of its
								 * out area (mapped host memory) */
} gpx_un_query;

/* One (query, list) pair to decode: chunk list dl into slots from off. */
typedef struct gpx_un_pair
{
	uint32_t	dl;				/* index into the chunk's gpx_dl array */
	uint32_t	off;			/* its first slot */
} gpx_un_pair;

/*
 * Launch the decode of nwork list blocks: pair p's blocks are work items
 * [blk_start[p], blk_start[p] + nblocks), written to out[pairs[p].off ..].
 */
cudaError_t gpx_cuda_k_un_decode(const gpx_dl *dls, const gpx_un_pair *pairs,
								 const uint32_t *blk_start, uint32_t npairs,
								 uint32_t nwork, uint32_t *out, cudaStream_t st);

/* Launch merge round r over the nslots slots of nq queries: in -> out. */
cudaError_t gpx_cuda_k_un_merge(const gpx_un_query *qs, uint32_t nq,
								const uint32_t *bnd, const uint32_t *in,
								uint32_t *out, uint32_t nslots, uint32_t r,
								cudaStream_t st);

/* Temporary storage the scan of nslots + 1 flags needs. */
cudaError_t gpx_cuda_k_un_scan_bytes(uint32_t nslots, size_t *bytes);

/*
 * Launch the removal of duplicates from the merged slots F: flags into G
 * (nslots + 1 words), their exclusive scan into pos (nslots + 1 words;
 * tmp: gpx_cuda_k_un_scan_bytes), then, when write, every kept docID to
 * its place (GPX_UN_STAGE: G[pos]; GPX_UN_DIRECT: dst; direct says
 * whether any query is), and per query cnt[2q] = its size, cnt[2q + 1] =
 * where its docIDs start in G.
 */
cudaError_t gpx_cuda_k_un_finish(const gpx_un_query *qs, uint32_t nq,
								 const uint32_t *F, uint32_t *G, uint32_t *pos,
								 uint32_t nslots, void *tmp, size_t tmp_bytes,
								 bool write, bool direct, uint32_t *cnt,
								 cudaStream_t st);

#endif							/* GPX_UNION_DEV_CUH */
