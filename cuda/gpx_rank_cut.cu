/*
 * gpx_rank_cut.cu - the cut of ranked retrieval on the GPU: before the
 * top-k thread-block of a query with many candidates (more than
 * GPX_RK_CUT_MIN slots: OR queries, long AND queries) reads them, many
 * thread-blocks narrow them down to those that can be in its top k.
 *
 * The top-k kernel (gpx_rank.cu) gives a query one thread-block, which
 * passes over its candidates about ten times: fine when a batch of
 * hundreds of queries fills the GPU, a long wait for one query of 200,000
 * candidates on one of 132 SMs.  The cut spreads those passes over tiles
 * of GPX_RK_TILE slots, one thread-block each:
 *
 *   hist 0  each tile counts its matches (score > 0) by the score's bits
 *           62..52 (the exponent: the bits of a positive double order as
 *           its value) into the query's first histogram;
 *   hist 1  each tile finds d1, the bin holding the query's kk-th best
 *           score (kk = min(k, matches)), and counts the matches in it by
 *           bits 51..41 into the second histogram;
 *   cut     each tile finds d1 and d2, the second histogram's bin of the
 *           kk-th best, and keeps (appends to kdoc / ksc at the query's
 *           keep_off, kcount[cut_row] of them) every match whose bits 62..41 are
 *           at or above (d1, d2).
 *
 * Everything kept either lies in a bin above the kk-th best's or shares
 * its 22 top bits, so the kept hold at least kk candidates and every
 * candidate left out scores below every one of the top kk: the top-k
 * kernel's exact selection over the kept gives the same answer, in the
 * same order (score, then docID; the order kept in does not matter).
 * When many candidates share the kk-th best's top bits the cut keeps them
 * all: slower, never wrong.
 */
#include "gpx_rank_dev.cuh"

/*
 * Tile t of the chunk: its query (the last of a->q[0 .. nq) whose first
 * tile is <= t), its first candidate slot *lo within the query's, its
 * length *len, and the query's histograms *gh.
 */
GPX_DEV const gpx_rk_query *
gpx_rk_tile(const gpx_rk_args *a, uint32_t t, uint32_t *lo, uint32_t *len, uint32_t **gh)
{
	const gpx_rk_query *Q;
	uint32_t	l = 0,
				h = a->nq;

	while (h - l > 1)
	{
		uint32_t	mid = (l + h) >> 1;

		if (a->q[mid].tile_off <= t)
			l = mid;
		else
			h = mid;
	}
	Q = &a->q[l];
	*lo = (t - Q->tile_off) * GPX_RK_TILE;
	*len = Q->cand_n - *lo < GPX_RK_TILE ? Q->cand_n - *lo : GPX_RK_TILE;
	*gh = a->hist + (size_t) Q->cut_row * 2 * GPX_RK_CUT_BINS;
	return Q;
}

/*
 * A histogram's shared copy puts bin b at GPX_RK_PAD(b): one word of
 * padding after every 64 bins, so that the 32 lanes of gpx_rk_cut_pick,
 * each summing 64 consecutive bins, read 32 different banks at once.
 */
#define GPX_RK_PAD(b) ((b) + ((b) >> 6))
#define GPX_RK_PAD_BINS GPX_RK_PAD(GPX_RK_CUT_BINS)

/*
 * With one warp: in the counts h[0 .. GPX_RK_CUT_BINS), taken from the
 * highest bin down, the bin where the running count reaches r = min(rank,
 * total) (*digit; the lowest non-empty bin when the total is below rank),
 * how many lie in the bins above it (*above), and the total.  Lane l sums
 * 64 bins (lane 0 the highest), a warp scan finds the lane whose bins hold
 * the r-th, then its bins, two a lane, are scanned the same way.  h is a
 * shared copy in the padded layout (bin b at GPX_RK_PAD(b), so that the
 * lanes' 64-bin runs fall in different banks).  All 32 lanes must call;
 * each gets the answers.
 */
GPX_DEV void
gpx_rk_cut_pick(const uint32_t *h, uint32_t rank, uint32_t lane, uint32_t *digit,
				uint32_t *above, uint32_t *total)
{
	const uint32_t per = GPX_RK_CUT_BINS / 32;
	uint32_t	top = GPX_RK_CUT_BINS - per * lane,
				s = 0,
				inc,
				tot,
				r,
				L,
				before,
				b0,
				hb,
				c,
				cinc,
				cl,
				pre,
				bhi;

#pragma unroll 16
	for (uint32_t j = 1; j <= per; j++)
		s += h[GPX_RK_PAD(top - j)];
	inc = gpx_d_warp_incl(s, lane);
	tot = __shfl_sync(GPX_D_FULL, inc, 31);
	r = rank < tot ? rank : tot;
	L = __ffs(__ballot_sync(GPX_D_FULL, inc >= r)) - 1;
	before = __shfl_sync(GPX_D_FULL, inc - s, L);

	/* lane L's bins: two a lane, from the top; the r-th is in lane cl's */
	b0 = GPX_RK_CUT_BINS - per * L - 1 - 2 * lane;
	hb = h[GPX_RK_PAD(b0)];
	c = hb + h[GPX_RK_PAD(b0 - 1)];
	cinc = gpx_d_warp_incl(c, lane) + before;
	cl = __ffs(__ballot_sync(GPX_D_FULL, cinc >= r)) - 1;
	pre = __shfl_sync(GPX_D_FULL, cinc - c, cl);
	hb = __shfl_sync(GPX_D_FULL, hb, cl);
	bhi = GPX_RK_CUT_BINS - per * L - 1 - 2 * cl;
	*total = tot;
	if (pre + hb >= r)
	{
		*digit = bhi;
		*above = pre;
	}
	else
	{
		*digit = bhi - 1;
		*above = pre + hb;
	}
}

/* Bin of score bits v in histogram pass (0: bits 62..52, 1: bits 51..41). */
GPX_DEV uint32_t
gpx_rk_cut_bin(uint64_t v, uint32_t pass)
{
	return (uint32_t) (v >> (64 - 1 - GPX_RK_CUT_BITS * (pass + 1))) & (GPX_RK_CUT_BINS - 1);
}

/* Slots of a tile each thread reads. */
#define GPX_RK_TILE_PER (GPX_RK_TILE / GPX_RK_THREADS)

/*
 * With the whole thread-block: the tile's scores sc[0 .. len) into v,
 * v[j] = sc[j * GPX_RK_THREADS + threadIdx.x] (0.0 past len), every load
 * issued before any is used: one round trip to global memory a tile.
 */
GPX_DEV void
gpx_rk_tile_load(const double *sc, uint32_t len, double *v)
{
#pragma unroll
	for (uint32_t j = 0; j < GPX_RK_TILE_PER; j++)
	{
		uint32_t	i = j * GPX_RK_THREADS + threadIdx.x;

		v[j] = i < len ? sc[i] : 0.0;
	}
}

/*
 * With the whole thread-block: nh histograms of global gh (one after the
 * other) into shared h, each in the padded layout of GPX_RK_PAD_BINS
 * words (synced after).
 */
GPX_DEV void
gpx_rk_bins_load(const uint32_t *gh, uint32_t nh, uint32_t *h)
{
	for (uint32_t b = threadIdx.x; b < nh * GPX_RK_CUT_BINS; b += GPX_RK_THREADS)
		h[(b / GPX_RK_CUT_BINS) * GPX_RK_PAD_BINS + GPX_RK_PAD(b % GPX_RK_CUT_BINS)] = gh[b];
	__syncthreads();
}

/*
 * Histogram pass `pass` of every tile: counts in shared memory (a warp
 * adds each bin its lanes share once), then added to the query's
 * histogram.  Pass 1 picks the k-th best's first bin from a shared copy
 * of the query's first histogram (one coalesced read).
 */
__global__ void __launch_bounds__(GPX_RK_THREADS)
gpx_k_rank_hist(gpx_rk_args a, uint32_t pass)
{
	__shared__ uint32_t h[GPX_RK_CUT_BINS];
	__shared__ uint32_t g0[GPX_RK_PAD_BINS];
	__shared__ uint32_t s_d1;
	uint32_t	lane = threadIdx.x & 31;

	for (uint32_t t = blockIdx.x; t < a.ntiles; t += gridDim.x)
	{
		uint32_t	lo,
					len,
				   *gh;
		const gpx_rk_query *Q = gpx_rk_tile(&a, t, &lo, &len, &gh);
		double		v[GPX_RK_TILE_PER];

		gpx_rk_tile_load(a.csc + Q->cand_off + lo, len, v);
		for (uint32_t b = threadIdx.x; b < GPX_RK_CUT_BINS; b += blockDim.x)
			h[b] = 0;
		if (pass == 1)
		{
			gpx_rk_bins_load(gh, 1, g0);
			if (threadIdx.x < 32)
			{
				uint32_t	d1,
							above,
							tot;

				gpx_rk_cut_pick(g0, Q->k, lane, &d1, &above, &tot);
				if (lane == 0)
					s_d1 = d1;
			}
		}
		__syncthreads();
#pragma unroll
		for (uint32_t j = 0; j < GPX_RK_TILE_PER; j++)
		{
			uint64_t	bits = gpx_rk_bits(v[j]);
			uint32_t	dg = UINT32_MAX,
						m;

			if (v[j] > 0.0 && (pass == 0 || gpx_rk_cut_bin(bits, 0) == s_d1))
				dg = gpx_rk_cut_bin(bits, pass);
			m = __match_any_sync(GPX_D_FULL, dg);
			if (dg != UINT32_MAX && lane == (uint32_t) __ffs(m) - 1)
				atomicAdd(&h[dg], (uint32_t) __popc(m));
		}
		__syncthreads();
		gh += pass * GPX_RK_CUT_BINS;
		for (uint32_t b = threadIdx.x; b < GPX_RK_CUT_BINS; b += blockDim.x)
			if (h[b] != 0)
				atomicAdd(&gh[b], h[b]);
		__syncthreads();
	}
}

/*
 * Keep every candidate of every tile at or above its query's (d1, d2),
 * picked from a shared copy of the query's two histograms.
 */
__global__ void __launch_bounds__(GPX_RK_THREADS)
gpx_k_rank_cut(gpx_rk_args a)
{
	__shared__ uint32_t g[2 * GPX_RK_PAD_BINS];
	__shared__ uint32_t s_d1,
				s_d2,
				s_kk;
	uint32_t	lane = threadIdx.x & 31;

	for (uint32_t t = blockIdx.x; t < a.ntiles; t += gridDim.x)
	{
		uint32_t	lo,
					len,
				   *gh;
		const gpx_rk_query *Q = gpx_rk_tile(&a, t, &lo, &len, &gh);
		const uint32_t *cd = a.cdoc + Q->cand_off + lo;
		double		v[GPX_RK_TILE_PER];

		gpx_rk_tile_load(a.csc + Q->cand_off + lo, len, v);
		gpx_rk_bins_load(gh, 2, g);
		if (threadIdx.x < 32)
		{
			uint32_t	d1,
						d2,
						ab1,
						ab2,
						tot,
						tot2,
						kk;

			gpx_rk_cut_pick(g, Q->k, lane, &d1, &ab1, &tot);
			kk = Q->k < tot ? Q->k : tot;
			gpx_rk_cut_pick(g + GPX_RK_PAD_BINS, kk - ab1, lane, &d2, &ab2, &tot2);
			if (lane == 0)
			{
				s_d1 = d1;
				s_d2 = d2;
				s_kk = kk;
			}
		}
		__syncthreads();
#pragma unroll
		for (uint32_t j = 0; j < GPX_RK_TILE_PER; j++)
		{
			uint64_t	bits = gpx_rk_bits(v[j]);
			uint32_t	b1 = gpx_rk_cut_bin(bits, 0);
			bool		keep = s_kk > 0 && v[j] > 0.0 &&
				(b1 > s_d1 || (b1 == s_d1 && gpx_rk_cut_bin(bits, 1) >= s_d2));

			gpx_rk_append(keep, v[j], keep ? cd[j * GPX_RK_THREADS + threadIdx.x] : 0, lane,
						  a.ksc + Q->keep_off, a.kdoc + Q->keep_off, &a.kcount[Q->cut_row]);
		}
		__syncthreads();
	}
}

/* Launch the cut's three kernels over the chunk's a->ntiles tiles. */
cudaError_t
gpx_cuda_k_rank_cut(const gpx_rk_args *a, cudaStream_t st)
{
	uint32_t	grid = a->ntiles;
	cudaError_t e;

	if (a->ntiles == 0)
		return cudaSuccess;
	if (grid > 65535u * 16)
		grid = 65535u * 16;
	GPX_LAUNCH(gpx_k_rank_hist, grid, GPX_RK_THREADS, st, *a, 0u);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	GPX_LAUNCH(gpx_k_rank_hist, grid, GPX_RK_THREADS, st, *a, 1u);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	GPX_LAUNCH(gpx_k_rank_cut, grid, GPX_RK_THREADS, st, *a);
	return cudaGetLastError();
}
