/*
 * gpx_union.cu - the kernels of batched union (layout and rules in
 * gpx_union_dev.cuh; host driver in gpx_union_run.cu):
 *
 *   decode    one warp per list block, the codecs' warp decoders of
 *             gpx_cuda_dev.cuh (every form: PFor, LRC, Elias-Fano of v1
 *             and v2, bitmap), docIDs only (a tf section is not read);
 *   merge     one thread per slot, a round merging pairs of sorted runs
 *             into one by ranks;
 *   flags     1 where a docID differs from the slot before, and at every
 *             query's first slot;
 *   scan      an exclusive sum of the flags (CUB; a host loop queued on
 *             the stream in the emulator);
 *   compact   every kept docID to its place; per query its size.
 */
#include "gpx_union_dev.cuh"

#ifndef GPX_EMU
#include <cub/device/device_scan.cuh>
#endif

/* Most thread-blocks a launch uses (the kernels loop over the rest). */
#define GPX_UN_MAX_GRID (65535u * 16)

/* The last of nq queries whose first slot is <= g (qs[0].off is 0). */
GPX_DEV uint32_t
gpx_un_query_of(const gpx_un_query *qs, uint32_t nq, uint32_t g)
{
	uint32_t	lo = 0,
				hi = nq;

	while (hi - lo > 1)
	{
		uint32_t	mid = (lo + hi) >> 1;

		if (qs[mid].off <= g)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Decode every block of the chunk's pairs (nwork blocks in all). */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_un_decode(const gpx_dl *dls, const gpx_un_pair *pairs, const uint32_t *blk_start,
				uint32_t npairs, uint32_t nwork, uint32_t *out)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];

	for (uint32_t w = blockIdx.x * GPX_D_WARPS + wid; w < nwork;
		 w += gridDim.x * GPX_D_WARPS)
	{
		uint32_t	p = gpx_d_last_leq(blk_start, npairs, w);
		const gpx_dl *L = &dls[pairs[p].dl];
		uint32_t	blk = w - blk_start[p];
		uint32_t   *o = out + pairs[p].off + ((size_t) blk << L->log2_block);

		gpx_d_block_warp(L, blk, lane, xs, [&](uint32_t j, uint32_t v) { o[j] = v; });
	}
}

/*
 * Merge round r: slot g of a query with more than one run moves to its
 * place in the merge of its run with the partner run (2i with 2i + 1);
 * every other slot is copied.  A warp takes 32 consecutive slots (lanes
 * past the end redo the last slot and write nothing).
 */
__global__ void __launch_bounds__(GPX_UN_THREADS)
gpx_k_un_merge(const gpx_un_query *qs, uint32_t nq, const uint32_t *bnd,
			   const uint32_t *in, uint32_t *out, uint32_t nslots, uint32_t r)
{
	uint32_t	lane = threadIdx.x & 31;
	uint64_t	step = (uint64_t) 1 << r;

	for (uint64_t base = (uint64_t) blockIdx.x * blockDim.x + (threadIdx.x & ~31u);
		 base < nslots; base += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	g = base + lane < nslots ? (uint32_t) (base + lane) : nslots - 1;
		uint32_t	qi = gpx_un_query_of(qs, nq, g);
		const gpx_un_query *Q = &qs[qi];
		const uint32_t *B = bnd + Q->bnd;
		uint32_t	x = in[g];
		uint32_t	run = 0xFFFFFFFFu,	/* the slot's run, or none: copied */
					ps = 0,		/* the partner run: slots [ps, ps + pn) */
					pn = 0,
					pos = g,	/* the slot's place before its rank */
					lo,
					hi;
		bool		right = false,
					win;

		if (Q->k > step)
		{
			uint32_t	j = gpx_d_last_leq(B, Q->k, g);
			uint32_t	a = j >> r;
			uint64_t	pl = (uint64_t) (a ^ 1u) << r;

			if (pl < Q->k)
			{
				uint64_t	pe = pl + step < Q->k ? pl + step : Q->k;
				uint32_t	as = B[(uint64_t) a << r];

				run = a;
				right = (a & 1u) != 0;
				ps = B[pl];
				pn = B[pe] - ps;
				/* left run: from its own start; right run: from the left's */
				pos = (right ? ps : as) + (g - as);
			}
		}

		/* the warp's window of the partner run, when all 32 share the run */
		{
			uint32_t	q0 = __shfl_sync(GPX_D_FULL, qi, 0),
						r0 = __shfl_sync(GPX_D_FULL, run, 0);

			win = __all_sync(GPX_D_FULL, run != 0xFFFFFFFFu && qi == q0 && run == r0);
		}
		lo = 0;
		hi = pn;
		if (win)
		{
			uint32_t	dmin = __shfl_sync(GPX_D_FULL, x, 0),
						dmax = __shfl_sync(GPX_D_FULL, x, 31);

			gpx_d_warp_window(in + ps, pn, dmin, dmax, lane, &lo, &hi);
		}
		if (run != 0xFFFFFFFFu)
		{
			const uint32_t *P = in + ps + lo;

			pos += lo + (right ? gpx_d_upper(P, hi - lo, x) : gpx_d_lower(P, hi - lo, x));
		}
		if (base + lane < nslots)
			out[pos] = x;
	}
}

/* flag[g] = 1 where F[g] differs from F[g - 1] (and at 0); flag[n] = 0. */
__global__ void __launch_bounds__(GPX_UN_THREADS)
gpx_k_un_flags(const uint32_t *F, uint32_t nslots, uint32_t *flag)
{
	for (uint64_t g = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; g <= nslots;
		 g += (uint64_t) gridDim.x * blockDim.x)
		flag[g] = g == nslots ? 0 : (g == 0 || F[g] != F[g - 1]) ? 1 : 0;
}

/* Every query's first slot keeps its docID. */
__global__ void __launch_bounds__(GPX_UN_THREADS)
gpx_k_un_starts(const gpx_un_query *qs, uint32_t nq, uint32_t *flag)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nq;
		 i += gridDim.x * blockDim.x)
		flag[qs[i].off] = 1;
}

/*
 * Every kept docID of F to its place: G[pos[g]] (GPX_UN_STAGE, and
 * without direct queries every query's), or its query's dst (within cap);
 * nothing for GPX_UN_COUNT.  pos[g + 1] != pos[g] says it is kept.
 */
__global__ void __launch_bounds__(GPX_UN_THREADS)
gpx_k_un_compact(const gpx_un_query *qs, uint32_t nq, const uint32_t *F,
				 const uint32_t *pos, uint32_t nslots, bool direct, uint32_t *G)
{
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < nslots;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	g = (uint32_t) i,
					p = pos[g];
		const gpx_un_query *Q;

		if (pos[g + 1] == p)
			continue;
		if (!direct)
		{
			G[p] = F[g];
			continue;
		}
		Q = &qs[gpx_un_query_of(qs, nq, g)];
		if (Q->mode == GPX_UN_STAGE)
			G[p] = F[g];
		else if (Q->mode == GPX_UN_DIRECT && p - pos[Q->off] < Q->cap)
			Q->dst[p - pos[Q->off]] = F[g];
	}
}

/* Per query: its size and where its docIDs start (cnt[2q], cnt[2q + 1]). */
__global__ void __launch_bounds__(GPX_UN_THREADS)
gpx_k_un_counts(const gpx_un_query *qs, uint32_t nq, const uint32_t *pos, uint32_t *cnt)
{
	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nq;
		 i += gridDim.x * blockDim.x)
	{
		uint32_t	a = pos[qs[i].off];

		cnt[2 * (size_t) i] = pos[qs[i].off + qs[i].n] - a;
		cnt[2 * (size_t) i + 1] = a;
	}
}

/* Thread-blocks for n threads of GPX_UN_THREADS each (at least 1, at most the cap). */
static uint32_t
gpx_un_grid(uint64_t n)
{
	uint64_t	g = (n + GPX_UN_THREADS - 1) / GPX_UN_THREADS;

	return g == 0 ? 1 : g > GPX_UN_MAX_GRID ? GPX_UN_MAX_GRID : (uint32_t) g;
}

/* Launch the decode of nwork list blocks. */
cudaError_t
gpx_cuda_k_un_decode(const gpx_dl *dls, const gpx_un_pair *pairs, const uint32_t *blk_start,
					 uint32_t npairs, uint32_t nwork, uint32_t *out, cudaStream_t st)
{
	uint64_t	grid;

	if (nwork == 0)
		return cudaSuccess;
	grid = (nwork + GPX_D_WARPS - 1) / GPX_D_WARPS;
	if (grid > GPX_UN_MAX_GRID)
		grid = GPX_UN_MAX_GRID;
	GPX_LAUNCH(gpx_k_un_decode, (uint32_t) grid, GPX_D_THREADS, st, dls, pairs, blk_start,
			   npairs, nwork, out);
	return cudaGetLastError();
}

/* Launch merge round r. */
cudaError_t
gpx_cuda_k_un_merge(const gpx_un_query *qs, uint32_t nq, const uint32_t *bnd,
					const uint32_t *in, uint32_t *out, uint32_t nslots, uint32_t r,
					cudaStream_t st)
{
	if (nslots == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_un_merge, gpx_un_grid(nslots), GPX_UN_THREADS, st, qs, nq, bnd, in, out,
			   nslots, r);
	return cudaGetLastError();
}

/* Temporary storage for the scan of nslots + 1 flags. */
cudaError_t
gpx_cuda_k_un_scan_bytes(uint32_t nslots, size_t *bytes)
{
#ifdef GPX_EMU
	(void) nslots;
	*bytes = 256;
	return cudaSuccess;
#else
	*bytes = 0;
	return cub::DeviceScan::ExclusiveSum(NULL, *bytes, (const uint32_t *) NULL,
										 (uint32_t *) NULL, (int64_t) nslots + 1);
#endif
}

/* Launch flags, scan, compaction and counts (see gpx_union_dev.cuh). */
cudaError_t
gpx_cuda_k_un_finish(const gpx_un_query *qs, uint32_t nq, const uint32_t *F, uint32_t *G,
					 uint32_t *pos, uint32_t nslots, void *tmp, size_t tmp_bytes,
					 bool write, bool direct, uint32_t *cnt, cudaStream_t st)
{
	cudaError_t e;

	if (nq == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_un_flags, gpx_un_grid((uint64_t) nslots + 1), GPX_UN_THREADS, st, F,
			   nslots, G);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	GPX_LAUNCH(gpx_k_un_starts, gpx_un_grid(nq), GPX_UN_THREADS, st, qs, nq, G);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
#ifdef GPX_EMU
	(void) tmp;
	(void) tmp_bytes;
	/* the scan is a host loop: queued, so that it runs after the flags */
	e = gpx_emu_task(st, 0x756E, [=]() {
		uint32_t	s = 0;

		for (uint64_t i = 0; i <= nslots; i++)
		{
			uint32_t	v = G[i];

			pos[i] = s;
			s += v;
		}
	});
#else
	e = cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, (const uint32_t *) G, pos,
									  (int64_t) nslots + 1, st);
#endif
	if (e != cudaSuccess)
		return e;
	if (write)
	{
		GPX_LAUNCH(gpx_k_un_compact, gpx_un_grid(nslots), GPX_UN_THREADS, st, qs, nq, F,
				   (const uint32_t *) pos, nslots, direct, G);
		if ((e = cudaGetLastError()) != cudaSuccess)
			return e;
	}
	GPX_LAUNCH(gpx_k_un_counts, gpx_un_grid(nq), GPX_UN_THREADS, st, qs, nq,
			   (const uint32_t *) pos, cnt);
	return cudaGetLastError();
}
