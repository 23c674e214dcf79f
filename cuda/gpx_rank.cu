/*
 * gpx_rank.cu - the kernels of ranked retrieval on the GPU (layout and
 * rules in gpx_rank_dev.cuh; host driver in gpx_rank_run.cu):
 *
 *   decode  every list of the batch, one warp per list block: docIDs by
 *           the codecs' warp decoders, frequencies by gpx_rk_block_tfs;
 *   score   one thread per candidate slot.  AND: the slot's docID comes
 *           from the query's shortest list; each term, in query order, is
 *           searched for it (binary search in its decoded list, within the
 *           window of the warp's 32 docIDs) and adds its weight; a term
 *           without it makes the slot no match.  OR:
 *           the slot is a posting of term t; when an earlier term holds
 *           the same docID the slot is not its owner (no match), else the
 *           score is term t's weight plus, in query order, the weights of
 *           the later terms holding it.  Either way the sum runs from 0.0
 *           in query order, as gpx_rank.c's, so the bits are the CPU's;
 *   cut     (gpx_rank_cut.cu) a query of more than GPX_RK_CUT_MIN slots
 *           keeps, over many thread-blocks, only the candidates that can
 *           be in its top k; topk then reads those;
 *   topk    one thread-block per query: the number of matches m, then
 *           kk = min(k, m); a radix select (8 bits a pass, shared
 *           histograms, each pass's digit found by one warp scan) finds
 *           the kk-th best score T over the score bits, then, unless every
 *           score equal to T is wanted, among those the (kk - #above)-th
 *           smallest docID D; the kk pairs above T or equal to T with
 *           docID <= D are exactly the top kk (gpx_topk.h's order),
 *           compacted to shared memory (k up to GPX_RK_SORT_SMEM; else to
 *           scratch) and sorted best first there by a bitonic sort (padded
 *           to a power of two), then copied to the query's result slots.
 */
#include "gpx_rank_dev.cuh"
#include "gpx_rank_batch.h"

/* Decode every block of the batch's lists (nwork blocks in all). */
__global__ void __launch_bounds__(GPX_RK_THREADS)
gpx_k_rank_decode(const gpx_dl *dls, const uint64_t *offs, const uint32_t *blk_start,
				  uint32_t nl, uint32_t nwork, uint32_t *docs, uint32_t *tfs)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_RK_WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];

	for (uint32_t w = blockIdx.x * GPX_RK_WARPS + wid; w < nwork;
		 w += gridDim.x * GPX_RK_WARPS)
	{
		/* the last list whose first work item is <= w */
		uint32_t	lo = gpx_d_last_leq(blk_start, nl, w);

		{
			const gpx_dl *L = &dls[lo];
			uint32_t	blk = w - blk_start[lo];
			size_t		base = offs[lo] + ((size_t) blk << L->log2_block);
			uint32_t   *o = docs + base;

			gpx_d_block_warp(L, blk, lane, xs,
							 [&](uint32_t j, uint32_t v) { o[j] = v; });
			gpx_rk_block_tfs(L, blk, gpx_d_count(L, blk), lane, tfs + base);
		}
	}
}

/*
 * The score kernel's shape (tuning, GPU_DEFS): thread-blocks an SM its
 * registers are held to (__launch_bounds__; 0: ptxas chooses), the warps an
 * SM the launch aims its runs at, and the most runs a warp takes.  Measured
 * on the H100 (docs/gpu-runs/h100-rank-seek/): 6 blocks (40 registers, a
 * few bytes spilled) and at most 4 runs a warp scored 16 OR queries in
 * 0.187 ms against 0.277 with ptxas's 54 registers and up to 16 runs.
 */
#ifndef GPX_RK_SCORE_MINB
#define GPX_RK_SCORE_MINB 6
#endif
#ifndef GPX_RK_SCORE_WARPS_SM
#define GPX_RK_SCORE_WARPS_SM 64
#endif
#ifndef GPX_RK_SPAN_MAX
#define GPX_RK_SPAN_MAX 4
#endif

/* Terms per query whose window a warp carries from one 32 slots to the next. */
#define GPX_RK_CUR_TERMS 16

/*
 * Score every candidate slot of the batch (ncand in all).  A warp takes
 * `span` runs of 32 consecutive slots, one after the other (lanes past the
 * end redo the last slot and write nothing).  When a run's slots are
 * postings of one list of one query (the usual case) their docIDs ascend
 * by lane, and each term's window (where the run's docIDs can be in its
 * list) is found by warp seeks (gpx_d_warp_seek) from where the same
 * term's window of the warp's previous run ended, for the query's first
 * GPX_RK_CUR_TERMS terms, else from the list's start; each lane then finds
 * its docID in the window (gpx_rk_win_pos).  A run that mixes lists or
 * queries searches each lane's docID on its own.
 */
#if GPX_RK_SCORE_MINB > 0
__global__ void __launch_bounds__(GPX_RK_THREADS, GPX_RK_SCORE_MINB)
#else
__global__ void __launch_bounds__(GPX_RK_THREADS)
#endif
gpx_k_rank_score(gpx_rk_args a, uint64_t ncand, uint32_t span)
{
	__shared__ uint32_t s_cur[GPX_RK_WARPS][GPX_RK_CUR_TERMS];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t   *cur = s_cur[threadIdx.x >> 5];
	uint64_t	per = (uint64_t) span * 32;

	for (uint64_t s0 = ((uint64_t) blockIdx.x * GPX_RK_WARPS + (threadIdx.x >> 5)) * per;
		 s0 < ncand; s0 += (uint64_t) gridDim.x * GPX_RK_WARPS * per)
	{
		uint32_t	pq = UINT32_MAX,	/* the query and list of the windows in cur */
					pt = UINT32_MAX;

		for (uint64_t base = s0; base < s0 + per && base < ncand; base += 32)
		{
			uint64_t	i = base + lane < ncand ? base + lane : ncand - 1;
			uint32_t	qlo = 0,
						qhi = a.nq;
			const gpx_rk_query *Q;
			const gpx_rk_term *T;
			uint32_t	p,
						d,
						t0,
						m,
						dmin,
						dmax;
			double		s = 0.0,
						norm = 0.0;
			bool		ok = true,
						have_norm = false,
						win;

			/* the last query whose slots start at or before i */
			while (qhi - qlo > 1)
			{
				uint32_t	mid = (qlo + qhi) >> 1;

				if (a.q[mid].cand_off <= i)
					qlo = mid;
				else
					qhi = mid;
			}
			Q = &a.q[qlo];
			T = a.t + Q->first_term;
			m = Q->nterms;
			p = (uint32_t) (i - Q->cand_off);
			if (Q->mode == GPX_RANK_MODE_AND)
				t0 = Q->drv;
			else
				for (t0 = 0; p >= T[t0].n; t0++)
					p -= T[t0].n;
			d = a.docs[T[t0].off + p];
			{
				uint32_t	q0 = __shfl_sync(GPX_D_FULL, qlo, 0),
							t00 = __shfl_sync(GPX_D_FULL, t0, 0);

				win = __all_sync(GPX_D_FULL, qlo == q0 && t0 == t00);
			}
			/* windows carried over only within one list of one query */
			if (win && (qlo != pq || t0 != pt))
			{
				if (lane < GPX_RK_CUR_TERMS)
					cur[lane] = 0;
				pq = qlo;
				pt = t0;
			}
			else if (!win)
				pq = UINT32_MAX;
			__syncwarp();
			dmin = __shfl_sync(GPX_D_FULL, d, 0);
			dmax = __shfl_sync(GPX_D_FULL, d, 31);

			/*
			 * Terms in query order.  AND: each must hold d.  OR: a term
			 * before t0 holding d makes the slot no match (that term's
			 * slot scores d); t0 and the later terms holding d add their
			 * weights.
			 */
			for (uint32_t j = 0; j < m; j++)
			{
				const uint32_t *L = a.docs + T[j].off;
				uint32_t	n = T[j].n,
							pos;

				if (win && !__any_sync(GPX_D_FULL, ok))
					break;		/* the whole warp alike */
				if (j == t0)
					pos = p;
				else
				{
					if (win)
					{
						uint32_t	from = j < GPX_RK_CUR_TERMS ? cur[j] : 0,
									lo = gpx_d_warp_seek(L, from, n, dmin, lane),
									hi = dmax == UINT32_MAX ? n :
							gpx_d_warp_seek(L, lo, n, dmax + 1, lane);

						__syncwarp();
						/* the next run's docIDs are all above dmax */
						if (j < GPX_RK_CUR_TERMS && lane == 0)
							cur[j] = hi;
						__syncwarp();
						pos = gpx_rk_win_pos(L, n, lo, hi, d, lane);
					}
					else
						pos = gpx_rk_find(L, n, d);
					if (pos >= n)
					{
						if (Q->mode == GPX_RANK_MODE_AND)
							ok = false;
						continue;
					}
					if (j < t0 && Q->mode == GPX_RANK_MODE_OR)
					{
						ok = false; /* OR: an earlier term scores it */
						continue;
					}
				}
				if (ok)
				{
					if (!have_norm)
					{
						norm = gpx_rk_norm(&a, d);
						have_norm = true;
					}
					s = GPX_DADD(s, gpx_bm25_weight(&a.bm, T[j].idf, a.tfs[T[j].off + pos], norm));
				}
			}
			if (base + lane < ncand)
			{
				a.cdoc[i] = d;
				a.csc[i] = ok ? s : 0.0;
			}
		}
	}
}

/*
 * With the first warp: the digit of a select pass (gpx_rk_select) from its
 * 256-bin histogram: the largest bin dg whose count, with every bin above
 * it, reaches *s_rem; *s_rem becomes the rank left within dg, *s_prefix
 * prefix with dg at shift (dg 0 with what is left when the bins hold fewer
 * than *s_rem).  Lane l sums bins 255 - 8l .. 248 - 8l, one warp scan
 * finds the lane holding the rank, which walks its eight bins.
 */
GPX_DEV void
gpx_rk_digit(const uint32_t *hist, uint32_t lane, uint64_t prefix, int shift,
			 uint64_t *s_prefix, uint32_t *s_rem)
{
	uint32_t	h[8],
				sum = 0,
				incl,
				rem = *s_rem,
				top = 255 - 8 * lane;

#pragma unroll
	for (int t = 0; t < 8; t++)
	{
		h[t] = hist[top - t];
		sum += h[t];
	}
	__syncwarp();				/* every lane has read *s_rem before one writes it */
	incl = sum;
#pragma unroll
	for (int off = 1; off < 32; off <<= 1)
	{
		uint32_t	v = __shfl_up_sync(GPX_D_FULL, incl, off);

		if ((int) lane >= off)
			incl += v;
	}
	/* bins above this lane's hold incl - sum; the last lane takes any excess */
	if ((lane == 0 || incl - sum < rem) && (rem <= incl || lane == 31))
	{
		uint32_t	r = rem - (incl - sum);

#pragma unroll
		for (int t = 0; t < 8; t++)
		{
			if (h[t] >= r || t == 7)
			{
				*s_rem = r;
				*s_prefix = prefix | ((uint64_t) (top - t) << shift);
				break;
			}
			r -= h[t];
		}
	}
}

/*
 * With the whole thread-block: the rank-th largest (1-based) of the
 * `bits`-bit values v for which key(i, &v) holds, i in [0, n); rank must
 * not exceed their number.  hist (256 words), s_prefix and s_rem are the
 * block's shared scratch.  All threads must call.
 */
template <typename Key>
GPX_DEV uint64_t
gpx_rk_select(Key key, uint32_t n, uint32_t rank, int bits, uint32_t *hist,
			  uint64_t *s_prefix, uint32_t *s_rem)
{
	uint64_t	prefix = 0,
				mask = 0;

	if (threadIdx.x == 0)
		*s_rem = rank;
	for (int shift = bits - 8; shift >= 0; shift -= 8)
	{
		for (uint32_t b = threadIdx.x; b < 256; b += blockDim.x)
			hist[b] = 0;
		__syncthreads();
		/* a warp adds each bin its lanes share once: the candidates a
		 * pass counts mostly share their digit, the first passes' all */
		for (uint32_t base = 0; base < n; base += blockDim.x)
		{
			uint32_t	i = base + threadIdx.x,
						dg = UINT32_MAX,
						m;
			uint64_t	v;

			if (i < n && key(i, &v) && (v & mask) == prefix)
				dg = (uint32_t) (v >> shift) & 255;
			m = __match_any_sync(GPX_D_FULL, dg);
			if (dg != UINT32_MAX && (threadIdx.x & 31) == (uint32_t) __ffs(m) - 1)
				atomicAdd(&hist[dg], (uint32_t) __popc(m));
		}
		__syncthreads();
		if (threadIdx.x < 32)
			gpx_rk_digit(hist, threadIdx.x, prefix, shift, s_prefix, s_rem);
		__syncthreads();
		prefix = *s_prefix;
		mask |= (uint64_t) 255 << shift;
		/* thread 0 writes s_prefix again only after the next two barriers */
	}
	return prefix;
}

/* Sum v over the thread-block into *s_sum (zeroed by the caller, synced). */
GPX_DEV void
gpx_rk_block_add(uint32_t v, uint32_t *s_sum)
{
	if (v)
		atomicAdd(s_sum, v);
	__syncthreads();
}

/* Winners (k rounded up to a power of two) sorted in shared memory up to this many. */
#define GPX_RK_SORT_SMEM 2048
/* Elements a thread holds when it stages GPX_RK_SORT_SMEM of them. */
#define GPX_RK_STAGE_PER (GPX_RK_SORT_SMEM / GPX_RK_THREADS)
static_assert(GPX_RK_STAGE_PER * GPX_RK_THREADS == GPX_RK_SORT_SMEM,
			  "the stage is whole rounds of the thread-block");

/*
 * With the whole thread-block: the pairs (sc[i], cd[i]), i < n <=
 * GPX_RK_SORT_SMEM, that score (> 0) into ssc / sdoc in shared memory, in
 * any order, and their count (*s_cnt, zero on entry, synced after).  Every
 * thread issues all its loads before it uses one, so the pass costs one
 * round trip to global memory instead of one per round.
 */
GPX_DEV uint32_t
gpx_rk_stage_pos(const double *sc, const uint32_t *cd, uint32_t n, double *ssc,
				 uint32_t *sdoc, uint32_t *s_cnt)
{
	uint32_t	lane = threadIdx.x & 31;
	double		v[GPX_RK_STAGE_PER];
	uint32_t	d[GPX_RK_STAGE_PER];

#pragma unroll
	for (uint32_t j = 0; j < GPX_RK_STAGE_PER; j++)
	{
		uint32_t	i = threadIdx.x + j * GPX_RK_THREADS;

		v[j] = i < n ? sc[i] : 0.0;
		d[j] = i < n ? cd[i] : 0;
	}
#pragma unroll
	for (uint32_t j = 0; j < GPX_RK_STAGE_PER; j++)
		gpx_rk_append(v[j] > 0.0, v[j], d[j], lane, ssc, sdoc, s_cnt);
	__syncthreads();
	return *s_cnt;
}

/*
 * The top k of query blockIdx.x, best first, and their count.  When its
 * candidates (the kept of a cut query) fit GPX_RK_SORT_SMEM, the scoring
 * ones are staged in shared memory by one pass and every later pass (the
 * selects, the counts, the winners) reads them there; else they are read
 * from global memory each time.
 */
__global__ void __launch_bounds__(GPX_RK_THREADS)
gpx_k_rank_topk(gpx_rk_args a)
{
	__shared__ uint32_t hist[256];
	__shared__ double sh_sc[GPX_RK_SORT_SMEM];
	__shared__ uint32_t sh_doc[GPX_RK_SORT_SMEM];
	__shared__ uint64_t s_prefix;
	__shared__ uint32_t s_rem,
				s_nv,
				s_gt,
				s_eq,
				s_cnt;
	const gpx_rk_query *Q = &a.q[blockIdx.x];
	bool		cut = Q->ntiles > 0;	/* select among the kept */
	const double *sc = cut ? a.ksc + Q->keep_off : a.csc + Q->cand_off;
	const uint32_t *cd = cut ? a.kdoc + Q->keep_off : a.cdoc + Q->cand_off;
	uint32_t   *sdoc = a.sdoc + Q->scr_off;
	double	   *ssc = a.ssc + Q->scr_off;
	uint32_t	P = 1;
	uint32_t	n = cut ? a.kcount[Q->cut_row] : Q->cand_n,
				kk,
				c = 0,
				e,
				r;
	bool		staged = n <= GPX_RK_SORT_SMEM;
	uint32_t	lane = threadIdx.x & 31;
	uint64_t	T,
				D;

	if (threadIdx.x == 0)
	{
		s_nv = 0;
		s_gt = 0;
		s_eq = 0;
		s_cnt = 0;
	}
	__syncthreads();
	if (staged)
	{
		/* from here on sc / cd are the scoring candidates, in shared memory */
		n = gpx_rk_stage_pos(sc, cd, n, sh_sc, sh_doc, &s_nv);
		sc = sh_sc;
		cd = sh_doc;
	}
	else
	{
		for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
			c += sc[i] > 0.0;
		gpx_rk_block_add(c, &s_nv);
	}
	kk = s_nv < Q->k ? s_nv : Q->k;
	if (kk == 0)
	{
		if (threadIdx.x == 0)
			a.ocount[blockIdx.x] = 0;
		return;					/* the whole block alike */
	}

	/* T: the kk-th largest score (as bits); how many lie above it, at it */
	T = gpx_rk_select([&](uint32_t i, uint64_t *v) {
						  *v = gpx_rk_bits(sc[i]);
						  return sc[i] > 0.0;
					  }, n, kk, 64, hist, &s_prefix, &s_rem);
	c = 0;
	e = 0;
	for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
		if (sc[i] > 0.0)
		{
			uint64_t	v = gpx_rk_bits(sc[i]);

			c += v > T;
			e += v == T;
		}
	gpx_rk_block_add(c, &s_gt);
	gpx_rk_block_add(e, &s_eq);
	r = kk - s_gt;

	/*
	 * D: the r-th smallest docID scoring exactly T (the largest of
	 * ~docID); every one of them when all r are wanted (the usual case)
	 */
	if (r == s_eq)
		D = UINT32_MAX;
	else
	{
		D = gpx_rk_select([&](uint32_t i, uint64_t *v) {
							  *v = (uint32_t) ~cd[i];
							  return sc[i] > 0.0 && gpx_rk_bits(sc[i]) == T;
						  }, n, r, 32, hist, &s_prefix, &s_rem);
		D = (uint32_t) ~(uint32_t) D;
	}

	/* the kk winners, in any order, to scratch: shared memory when they fit */
	while (P < kk)
		P <<= 1;
	if (staged)
	{
		/* in place: every thread reads its candidates before any is moved */
		double		v[GPX_RK_STAGE_PER];
		uint32_t	d[GPX_RK_STAGE_PER];

#pragma unroll
		for (uint32_t j = 0; j < GPX_RK_STAGE_PER; j++)
		{
			uint32_t	i = threadIdx.x + j * GPX_RK_THREADS;

			v[j] = i < n ? sh_sc[i] : 0.0;
			d[j] = i < n ? sh_doc[i] : 0;
		}
		__syncthreads();
#pragma unroll
		for (uint32_t j = 0; j < GPX_RK_STAGE_PER; j++)
		{
			uint64_t	b = gpx_rk_bits(v[j]);

			gpx_rk_append(v[j] > 0.0 && (b > T || (b == T && d[j] <= D)), v[j], d[j], lane,
						  sh_sc, sh_doc, &s_cnt);
		}
		sdoc = sh_doc;
		ssc = sh_sc;
	}
	else
	{
		if (P <= GPX_RK_SORT_SMEM)
		{
			sdoc = sh_doc;
			ssc = sh_sc;
		}
		for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
		{
			uint64_t	v = gpx_rk_bits(sc[i]);

			if (sc[i] > 0.0 && (v > T || (v == T && cd[i] <= D)))
			{
				uint32_t	pos = atomicAdd(&s_cnt, 1u);

				sdoc[pos] = cd[i];
				ssc[pos] = sc[i];
			}
		}
	}
	__syncthreads();

	/*
	 * Best first: a bitonic sort of the winners in scratch, padded to a
	 * power of two with pairs worse than any (score -1)
	 */
	{
		for (uint32_t i = kk + threadIdx.x; i < P; i += blockDim.x)
		{
			sdoc[i] = UINT32_MAX;
			ssc[i] = -1.0;
		}
		__syncthreads();
		for (uint32_t size = 2; size <= P; size <<= 1)
			for (uint32_t stride = size >> 1; stride > 0; stride >>= 1)
			{
				for (uint32_t t = threadIdx.x; t < P / 2; t += blockDim.x)
				{
					uint32_t	lo = 2 * stride * (t / stride) + t % stride,
								hi = lo + stride;
					bool		up = (lo & size) == 0;
					double		s1 = ssc[lo],
								s2 = ssc[hi];
					uint32_t	d1 = sdoc[lo],
								d2 = sdoc[hi];

					if (gpx_topk_better(s2, d2, s1, d1) == up)
					{
						ssc[lo] = s2;
						sdoc[lo] = d2;
						ssc[hi] = s1;
						sdoc[hi] = d1;
					}
				}
				__syncthreads();
			}
	}
	for (uint32_t i = threadIdx.x; i < kk; i += blockDim.x)
	{
		a.odoc[Q->res_off + i] = sdoc[i];
		a.osc[Q->res_off + i] = ssc[i];
	}
	if (threadIdx.x == 0)
		a.ocount[blockIdx.x] = kk;
}

/* Launch the decode of nwork list blocks. */
cudaError_t
gpx_cuda_k_rank_decode(const gpx_dl *dls, const uint64_t *offs, const uint32_t *blk_start,
					   uint32_t nl, uint32_t nwork, uint32_t *docs, uint32_t *tfs,
					   cudaStream_t st)
{
	uint32_t	grid;

	if (nwork == 0)
		return cudaSuccess;
	grid = (nwork + GPX_RK_WARPS - 1) / GPX_RK_WARPS;
	if (grid > 65535u * 16)
		grid = 65535u * 16;
	GPX_LAUNCH(gpx_k_rank_decode, grid, GPX_RK_THREADS, st, dls, offs, blk_start, nl,
			   nwork, docs, tfs);
	return cudaGetLastError();
}

/*
 * Launch the scoring of ncand candidate slots on a device of sms
 * multiprocessors: a warp scores one run of 32 slots after another, as
 * many runs as spread them over GPX_RK_SCORE_WARPS_SM warps an SM (at
 * least one run, at most GPX_RK_SPAN_MAX), so that its windows carry over
 * (gpx_k_rank_score).
 */
cudaError_t
gpx_cuda_k_rank_score(const gpx_rk_args *a, uint64_t ncand, int sms, cudaStream_t st)
{
	uint64_t	runs = (ncand + 31) / 32,
				warps = (uint64_t) (sms > 0 ? sms : 1) * GPX_RK_SCORE_WARPS_SM,
				span = (runs + warps - 1) / warps,
				grid;

	if (ncand == 0)
		return cudaSuccess;
	span = span < 1 ? 1 : span > GPX_RK_SPAN_MAX ? GPX_RK_SPAN_MAX : span;
	grid = (runs + span * GPX_RK_WARPS - 1) / (span * GPX_RK_WARPS);
	if (grid > 65535u * 16)
		grid = 65535u * 16;
	GPX_LAUNCH(gpx_k_rank_score, (uint32_t) grid, GPX_RK_THREADS, st, *a, ncand,
			   (uint32_t) span);
	return cudaGetLastError();
}

/* Launch the top-k selection, one thread-block per query. */
cudaError_t
gpx_cuda_k_rank_topk(const gpx_rk_args *a, cudaStream_t st)
{
	if (a->nq == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_rank_topk, a->nq, GPX_RK_THREADS, st, *a);
	return cudaGetLastError();
}
