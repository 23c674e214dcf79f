/*
 * gpx_rank_dev.cuh - the device side of ranked retrieval (BM25 top-k of
 * gpx_rank_batch queries, AND and OR): the descriptors the host hands to
 * the kernels of gpx_rank.cu and the device functions they share.
 *
 * Layout on the device for one batch:
 *   - every list of the batch decoded once: docs[off .. off + n) (the
 *     docIDs, by the codecs' warp decoders of gpx_cuda_dev.cuh) and
 *     tfs[off .. off + n) (its frequencies, block by block through
 *     gpx_rk_block_tfs, the one place that knows where a blob keeps them);
 *   - per term (query order) its list's offset, length and idf (host);
 *   - per query its candidate slots: AND, one per posting of its shortest
 *     list; OR, one per posting of each of its lists (the posting's docID
 *     is scored by the first term, in query order, that holds it: every
 *     matching document is scored exactly once, without atomics);
 *   - each candidate's docID and score (0.0: not a match; a real score is
 *     > 0, gpx_bm25.h), then per query one thread-block selects the top k;
 *   - a query of more than GPX_RK_CUT_MIN candidate slots is cut first
 *     (gpx_rank_cut.cu): tiles of GPX_RK_TILE slots, one thread-block
 *     each, count the scores' top bits in the query's two histograms of
 *     GPX_RK_CUT_BINS (bits 62..52, then 51..41 within the k-th best's
 *     bin) and keep every candidate at or above the k-th best's bins;
 *     the query's thread-block then selects among those kept.
 *
 * A score is the sum of the terms' weights in query order, starting from
 * 0.0, with gpx_bm25.h's non-contracting operations: the CPU's bits
 * (gpx_rank.c adds +0.0 for a term the document lacks, which changes no
 * non-negative sum).  The top k are (score desc, docID asc), gpx_topk.h.
 */
#ifndef GPX_RANK_DEV_CUH
#define GPX_RANK_DEV_CUH

#include "gpx_cuda_dev.cuh"
#include "gpx_bm25.h"
#include "gpx_doclen.h"
#include "gpx_topk.h"
#include "gpx_s8b_dev.cuh"

#define GPX_RK_THREADS 256		/* threads per thread-block, every kernel */
#define GPX_RK_WARPS (GPX_RK_THREADS / 32)

/* Candidate slots of one tile of the cut (one thread-block's share). */
#define GPX_RK_TILE (GPX_RK_THREADS * 16)
/* A query with more candidate slots than this is cut before the top-k. */
#define GPX_RK_CUT_MIN GPX_RK_TILE
/* Bins of each of the cut's two histograms (11 bits of the score). */
#define GPX_RK_CUT_BITS 11
#define GPX_RK_CUT_BINS (1u << GPX_RK_CUT_BITS)

/* One term of a query as the kernels see it. */
typedef struct gpx_rk_term
{
	uint64_t	off;			/* its list in docs[] / tfs[] */
	uint32_t	n;				/* postings (0: no list or empty) */
	uint32_t	pad;
	double		idf;			/* gpx_bm25_idf, computed on the host */
} gpx_rk_term;

/* One query as the kernels see it. */
typedef struct gpx_rk_query
{
	uint64_t	cand_off;		/* its candidate slots in cdoc[] / csc[] */
	uint32_t	cand_n;
	uint32_t	first_term;		/* its terms: terms[first_term ..] */
	uint32_t	nterms;
	uint32_t	k;
	uint32_t	mode;			/* GPX_RANK_MODE_AND or _OR */
	uint32_t	drv;			/* AND: query position of the shortest list */
	uint64_t	res_off;		/* its k result slots in odoc[] / osc[] */
	uint64_t	scr_off;		/* its selection scratch in sdoc[] / ssc[]:
								 * k rounded up to a power of two */
	uint32_t	tile_off;		/* its first tile of the cut (chunk-wide) */
	uint32_t	ntiles;			/* its tiles; 0: not cut */
	uint32_t	cut_row;		/* cut: its histograms and count, among the
								 * chunk's cut queries' */
	uint32_t	pad;
	uint64_t	keep_off;		/* cut: where its kept candidates go in
								 * kdoc[] / ksc[] (the cut queries' slots
								 * of the chunk, one after the other) */
} gpx_rk_query;

/* Everything the scoring and selection kernels read and write. */
typedef struct gpx_rk_args
{
	const gpx_rk_query *q;
	uint32_t	nq;
	uint32_t	dl_width;		/* document lengths: gpx_doclen_entry */
	uint32_t	dl_span;
	uint32_t	pad;
	const uint8_t *dl_entries;
	const gpx_rk_term *t;
	const uint32_t *docs;		/* decoded lists */
	const uint32_t *tfs;
	gpx_bm25	bm;				/* gpx_bm25_init on the host */
	uint32_t   *cdoc;			/* candidates */
	double	   *csc;
	uint32_t   *sdoc;			/* selection scratch (scr_off) */
	double	   *ssc;
	uint32_t   *odoc;			/* results, k slots per query, best first */
	double	   *osc;
	uint32_t   *ocount;			/* results per query */
	uint32_t	ntiles;			/* tiles of the cut in the chunk */
	uint32_t	pad2;
	uint32_t   *hist;			/* cut: 2 x GPX_RK_CUT_BINS counts a cut query */
	uint32_t   *kcount;			/* cut: candidates kept, per cut query */
	uint32_t   *kdoc;			/* cut: those kept (at keep_off) */
	double	   *ksc;
} gpx_rk_args;

/*
 * The frequencies of block blk (cnt postings) of list L into out[0..cnt),
 * with the whole warp.  This is the only device code that knows where a
 * blob keeps its frequencies (gpx_codec.h): a list with a tf section has
 * its block's Simple-8b words at the section's start (one block) or at the
 * byte offset in bytes 8..11 of its directory entry, decoded by
 * gpx_s8b_dev_block_warp (gpx_s8b_dev.cuh) from the validated blob; a list
 * stored without frequencies has tf 1 for every posting.  All 32 lanes
 * must call.
 */
GPX_DEV void
gpx_rk_block_tfs(const gpx_dl *L, uint32_t blk, uint32_t cnt, uint32_t lane,
				 uint32_t *out)
{
	if (L->tf != NULL)
	{
		uint32_t	off = 0;

		if (L->dir != NULL)
			off = *(const uint32_t *) (L->dir + (size_t) blk * L->dir_stride + 8) / 4;
		(void) gpx_s8b_dev_block_warp(L->tf + off, (L->tf_words - off) / 2, cnt,
									  GPX_S8B_TF_BASE, out, lane);
	}
	else
		for (uint32_t j = lane; j < cnt; j += 32)
			out[j] = 1;
	__syncwarp();
}

/* Position of x in a[0..n), or n when absent. */
GPX_DEV uint32_t
gpx_rk_find(const uint32_t *a, uint32_t n, uint32_t x)
{
	uint32_t	i = gpx_d_lower(a, n, x);

	return i < n && a[i] == x ? i : n;
}

/*
 * Position of each lane's docID d in a[lo..hi), or n when absent, with the
 * whole warp (lo, hi warp-uniform: the window of the warp's docIDs).  A
 * window of at most 32 docIDs is loaded once, a docID a lane, and searched
 * by shuffles; a wider one is cut into 32 segments whose first docIDs the
 * lanes load, each lane picks its segment by shuffles and searches only it.
 * All 32 lanes must call.
 */
GPX_DEV uint32_t
gpx_rk_win_pos(const uint32_t *a, uint32_t n, uint32_t lo, uint32_t hi, uint32_t d,
			   uint32_t lane)
{
	uint32_t	w = hi - lo,
				step = w <= 32 ? 1 : (w + 31) >> 5,
				q = lane * step,
				wv = q < w ? a[lo + q] : UINT32_MAX,
				c = gpx_d_shfl_lower(wv, d),
				at = __shfl_sync(GPX_D_FULL, wv, (int) (c & 31)),
				i;

	/* c segment starts are below d: d is the start of segment c, or in segment c - 1 */
	if (c < 32 && c * step < w && at == d)
		return lo + c * step;
	if (c == 0 || step == 1)
		return n;
	q = (c - 1) * step + 1;		/* segment c - 1 past its start: [q, end) */
	i = q + gpx_d_lower(a + lo + q, (c * step < w ? c * step : w) - q, d);
	return i < w && a[lo + i] == d ? lo + i : n;
}

/* The bits of a double: for scores >= 0 they order as the values do. */
GPX_DEV uint64_t
gpx_rk_bits(double x)
{
#ifdef __CUDA_ARCH__
	return (uint64_t) __double_as_longlong(x);
#else
	uint64_t	u;

	memcpy(&u, &x, sizeof(u));
	return u;
#endif
}

/*
 * Warp-aggregated append: the lanes whose keep holds put (s, d) at the
 * next places of ssc / sdoc, *cnt counting them (one atomic a warp, none
 * when no lane keeps; the order among warps is any).  All 32 lanes call.
 */
GPX_DEV void
gpx_rk_append(bool keep, double s, uint32_t d, uint32_t lane, double *ssc, uint32_t *sdoc,
			  uint32_t *cnt)
{
	uint32_t	ball = __ballot_sync(GPX_D_FULL, keep),
				first,
				pos = 0;

	if (ball == 0)
		return;					/* the whole warp alike */
	first = (uint32_t) __ffs(ball) - 1;
	if (lane == first)
		pos = atomicAdd(cnt, (uint32_t) __popc(ball));
	pos = __shfl_sync(GPX_D_FULL, pos, first) + (uint32_t) __popc(ball & ((1u << lane) - 1));
	if (keep)
	{
		ssc[pos] = s;
		sdoc[pos] = d;
	}
}

/* BM25's norm of docID d: its length, or avgdl for an unknown document. */
GPX_DEV double
gpx_rk_norm(const gpx_rk_args *a, uint32_t d)
{
	uint32_t	e = gpx_doclen_entry(a->dl_entries, a->dl_width, a->dl_span, d);

	return gpx_bm25_norm(&a->bm, e == 0 ? a->bm.avgdl : (double) (e - 1));
}

/* Host wrappers of the kernels (gpx_rank.cu). */
cudaError_t gpx_cuda_k_rank_decode(const gpx_dl *dls, const uint64_t *offs,
								   const uint32_t *blk_start, uint32_t nl,
								   uint32_t nwork, uint32_t *docs, uint32_t *tfs,
								   cudaStream_t st);
cudaError_t gpx_cuda_k_rank_score(const gpx_rk_args *a, uint64_t ncand, int sms,
								  cudaStream_t st);
cudaError_t gpx_cuda_k_rank_topk(const gpx_rk_args *a, cudaStream_t st);

/* Host wrapper of the cut (gpx_rank_cut.cu): its three kernels, when a->ntiles. */
cudaError_t gpx_cuda_k_rank_cut(const gpx_rk_args *a, cudaStream_t st);

#endif							/* GPX_RANK_DEV_CUH */
