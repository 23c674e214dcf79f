/*
 * gpx_isect.cu - batched intersection kernels (PARA, Ao et al. VLDB 2011)
 * and the list-cache helpers.
 *
 * A chunk (a batch, or a part of a large one) runs as:
 *   1. gpx_k_src_decode  one warp per source block: every query's shortest
 *                        list, restricted to the blocks that overlap the
 *                        range [max first, min last] of its lists, decoded
 *                        into cand[] (all queries in one launch), with the
 *                        owning piece in cpiece[] (a warp finds its piece
 *                        by binary search over the pieces' first warps);
 *   2. gpx_k_probe       one thread per candidate: for each longer list of
 *                        its query (shortest first), range check, block by
 *                        the hash-segmentation table + directory binary
 *                        search, then inside the block: lrc by LR-contracted
 *                        binary search over single elements, Elias-Fano
 *                        blocks (qs) by skipping zeros from the block's
 *                        sample or a later checkpoint, bitmap blocks by
 *                        one bit test, PFor blocks by a warp-wide decode into shared
 *                        memory when several lanes of the warp probe the
 *                        same block (else one thread streams the gaps from
 *                        the nearest checkpoint, <= 32 of them); writes
 *                        flag[i] = 0/1;
 *   3. exclusive scan of the flags (CUB);
 *   4. gpx_k_finalize    stream compaction: a match goes to its piece's
 *                        dst[pos - pos(piece start)], each piece's count to
 *                        counts[] (mapped host memory: no copy back).
 * Helpers: gpx_k_upload copies staged blobs into the cache; gpx_k_tables
 * and gpx_k_skips build, for lists entering the cache, the hash-
 * segmentation table over the directory and the per-block checkpoints
 * (device-only side tables, never part of the blob format).
 */
#include "gpx_cuda_dev.cuh"

#ifndef GPX_EMU
#include <cub/device/device_scan.cuh>
#endif

/* Write a known word (checks that the kernel image runs on the device). */
__global__ void
gpx_k_ping(uint32_t *out)
{
	if (threadIdx.x == 0)
		out[0] = 0x67707869u;
}

/* Copy staged blobs into their cache slots: one thread-block per blob. */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_upload(const gpx_dupload *up, const uint8_t *stage)
{
	gpx_dupload u = up[blockIdx.x];
	const uint4 *src = (const uint4 *) (stage + u.src_off);

	for (uint64_t k = threadIdx.x; k < u.units; k += blockDim.x)
		u.dst[k] = src[k];
}

/*
 * Build hash-segmentation tables: list blockIdx.y, entries h in
 * [0, tbl_nb]: tbl[h] = number of blocks whose first docID >> shift < h.
 */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_tables(const gpx_dl *lists)
{
	const gpx_dl *L = &lists[blockIdx.y];
	uint32_t   *tbl = (uint32_t *) L->tbl;

	if (tbl == NULL)
		return;
	for (uint32_t h = blockIdx.x * blockDim.x + threadIdx.x; h <= L->tbl_nb;
		 h += gridDim.x * blockDim.x)
	{
		uint64_t	target = (uint64_t) h << L->tbl_shift;
		uint32_t	lo = 0,
					hi = L->nblocks;

		while (lo < hi)
		{
			uint32_t	mid = lo + (hi - lo) / 2;

			if ((uint64_t) gpx_d_first(L, mid) < target)
				lo = mid + 1;
			else
				hi = mid;
		}
		tbl[h] = lo;
	}
}

/*
 * Build skip tables: list blockIdx.y, one warp per list block.  PFor
 * blocks: the values of elements 32, 64, 96 and how many exceptions lie
 * before each; Elias-Fano blocks: the upper-bit positions (from the
 * window's ubit) of their ones 64, 128, 192.  Checkpoints past the
 * block's end, and every checkpoint of other forms, hold 0xFFFFFFFF.
 */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_skips(const gpx_dl *lists)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	__shared__ uint32_t cp_all[GPX_D_WARPS][4];
	const gpx_dl *L = &lists[blockIdx.y];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t	blk = blockIdx.x * GPX_D_WARPS + wid;
	uint32_t   *cp = cp_all[wid];
	uint32_t	form,
				xcnt = 0;
	bool		pf,
				ef;
	gpx_d_ef	e = {};

	if (L->skip == NULL || blk >= L->nblocks)
		return;					/* whole warp */
	form = gpx_d_form(L, blk);
	pf = form == GPX_FORM_PFOR;
	ef = form == GPX_FORM_QS1 || form == GPX_FORM_EF;
	if (lane < 4)
		cp[lane] = 0xFFFFFFFFu;
	__syncwarp();
	if (ef)
		e = gpx_d_ef_of(L, blk);
	if (pf || ef)
		gpx_d_block_warp(L, blk, lane, xs_all[wid],
						 [&](uint32_t j, uint32_t v)
						 {
							 if (pf)
							 {
								 if (j != 0 && j % 32 == 0 && j / 32 <= 3)
									 cp[j / 32 - 1] = v;
							 }
							 else if (j >= e.jbias)
							 {
								 /* position = high part + index */
								 uint32_t	r = j - e.jbias;

								 if (r != 0 && r % 64 == 0 && r / 64 <= 3)
									 cp[r / 64 - 1] = ((v - e.add) >> e.b) + e.ibias + r;
							 }
						 });
	if (pf)
	{
		/* exceptions before elements 32, 64, 96: POS[x] < 32 k */
		uint32_t	off = gpx_d_off(L, blk);
		uint32_t	h = gpx_word(L->payload, off);
		uint32_t	bw = h & 0x3Fu,
					ex = (h >> 6) & 0x7Fu;
		uint32_t	m = gpx_d_count(L, blk) - 1;
		uint64_t	posbit = (uint64_t) off * 32 + 19 + (uint64_t) m * bw;
		uint32_t	c1 = 0,
					c2 = 0,
					c3 = 0;

		for (uint32_t x0 = 0; x0 < ex; x0 += 32)
		{
			uint32_t	x = x0 + lane;
			uint32_t	pos = x < ex ? gpx_get_bits(L->payload, posbit + (uint64_t) x * 7, 7) : 128;

			c1 += __popc(__ballot_sync(GPX_D_FULL, pos < 32));
			c2 += __popc(__ballot_sync(GPX_D_FULL, pos < 64));
			c3 += __popc(__ballot_sync(GPX_D_FULL, pos < 96));
		}
		xcnt = c1 | (c2 << 8) | (c3 << 16);
	}
	__syncwarp();
	if (lane == 0)
		((uint4 *) L->skip)[blk] = make_uint4(cp[0], cp[1], cp[2], xcnt);
}

/*
 * Decode the source blocks of a chunk: warp w decodes block
 * blk0 + (w - wbeg) of the piece whose [wbeg, wbeg + blocks) holds w.
 */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_src_decode(const gpx_dl *dl, const gpx_dpiece *pieces, uint32_t npieces,
				 uint32_t nwork, uint32_t *cand, uint32_t *cpiece)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t	w = blockIdx.x * GPX_D_WARPS + wid;
	uint32_t	lo = 0,
				hi = npieces;
	const gpx_dpiece *pc;
	const gpx_dl *L;
	uint32_t	k,
				coff;

	if (w >= nwork)
		return;					/* whole warp */
	/* the last piece with wbeg <= w */
	while (hi - lo > 1)
	{
		uint32_t	mid = (lo + hi) / 2;

		if (pieces[mid].wbeg <= w)
			lo = mid;
		else
			hi = mid;
	}
	pc = &pieces[lo];
	L = &dl[pc->src];
	k = w - pc->wbeg;
	coff = pc->cbeg + (k << L->log2_block);
	gpx_d_block_warp(L, pc->blk0 + k, lane, xs_all[wid],
					 [&](uint32_t j, uint32_t v)
					 {
						 cand[coff + j] = v;
						 cpiece[coff + j] = lo;
					 });
}

/*
 * Probe: thread i checks candidate i against the other lists of its piece;
 * flag[i] = 1 iff it is in all of them.  Thread ncand writes the scan's
 * sentinel flag 0.  The warp stays converged around its collectives: the
 * loop runs to the warp's largest list count.
 */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_probe(const gpx_dl *dl, const gpx_dpiece *pieces, const uint32_t *olist,
			const uint32_t *cand, const uint32_t *cpiece, uint32_t ncand,
			uint32_t *flag)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	__shared__ __align__(16) uint32_t dec_all[GPX_D_WARPS][128];
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];
	uint32_t   *dec = dec_all[wid];
	uint32_t	x = 0,
				obeg = 0,
				k = 0,
				kmax;
	bool		alive = false;

	if (i < ncand)
	{
		const gpx_dpiece *pc = &pieces[cpiece[i]];

		x = cand[i];
		alive = x >= pc->lo && x <= pc->hi;
		obeg = pc->obeg;
		k = alive ? pc->ocount : 0;
	}
	kmax = __reduce_max_sync(GPX_D_FULL, k);
	for (uint32_t t = 0; t < kmax; t++)
	{
		bool		mine = alive && t < k;
		bool		res = false,
					pend = false;
		uint32_t	lid = 0,
					blk = 0,
					pendm;
		const gpx_dl *L = NULL;

		if (mine)
		{
			lid = olist[obeg + t];
			L = &dl[lid];
			if (L->n != 0 && x >= L->first && x <= L->last)
			{
				blk = gpx_d_find_block(L, x);
				if (gpx_d_first(L, blk) == x)
					res = true;
				else
					switch (gpx_d_form(L, blk))
					{
						case GPX_FORM_LRC:
							res = gpx_d_lrc_contains(L, blk, x);
							break;
						case GPX_FORM_QS1:
						case GPX_FORM_EF:
							res = gpx_d_ef_contains(L, blk, x);
							break;
						case GPX_FORM_BITMAP:
							res = gpx_d_bm_contains(L, blk, x);
							break;
						default:
							pend = true;	/* PFor */
					}
			}
		}
		pendm = __ballot_sync(GPX_D_FULL, pend);
		if (pendm != 0)
		{
			/* pfor: lanes probing one block decode it together */
			unsigned long long key = pend ? (((unsigned long long) lid << 32) | blk) : ~0ull;
			uint32_t	grp = __match_any_sync(GPX_D_FULL, key);
			bool		coop = pend && __popc(grp) >= GPX_D_COOP_MIN;
			uint32_t	leaders;

			if (pend && !coop)
				res = gpx_d_pfor_contains(L, blk, x);
			leaders = __ballot_sync(GPX_D_FULL,
									coop && lane == (uint32_t) (__ffs(grp) - 1));
			while (leaders != 0)
			{
				uint32_t	src = (uint32_t) __ffs(leaders) - 1;
				uint32_t	slid = __shfl_sync(GPX_D_FULL, lid, src);
				uint32_t	sblk = __shfl_sync(GPX_D_FULL, blk, src);
				const gpx_dl *S = &dl[slid];
				uint32_t	cnt = gpx_d_count(S, sblk);
				uint32_t	v[4];

				leaders &= leaders - 1;
				gpx_d_stage(S, gpx_d_off(S, sblk), gpx_d_end(S, sblk), GPX_D_STAGE, lane, xs);
				gpx_d_pfor_warp((const uint8_t *) xs, 0, cnt, gpx_d_first(S, sblk), lane,
								xs + GPX_D_STAGE, v);
				*(uint4 *) (dec + 4 * lane) = make_uint4(v[0], v[1], v[2], v[3]);
				__syncwarp();
				if (coop && lid == slid && blk == sblk)
				{
					uint32_t	lo = 0,
								hi = cnt;

					while (lo < hi)
					{
						uint32_t	mid = (lo + hi) / 2;

						if (dec[mid] < x)
							lo = mid + 1;
						else
							hi = mid;
					}
					res = lo < cnt && dec[lo] == x;
				}
				__syncwarp();
			}
		}
		if (mine)
			alive = res;
	}
	if (i < ncand)
		flag[i] = alive ? 1u : 0u;
	else if (i == ncand)
		flag[i] = 0;
}

/* Compaction: matches to their piece's dst, piece counts to counts[]. */
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_finalize(const gpx_dpiece *pieces, uint32_t npieces, const uint32_t *cand,
			   const uint32_t *cpiece, const uint32_t *flag, const uint32_t *pos,
			   uint32_t ncand, uint32_t *counts)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < ncand && flag[i] != 0)
	{
		const gpx_dpiece *pc = &pieces[cpiece[i]];
		uint32_t	r = pos[i] - pos[pc->cbeg];

		if (r < pc->cap)
			pc->dst[r] = cand[i];
	}
	if (i < npieces)
	{
		const gpx_dpiece *pc = &pieces[i];

		counts[i] = pos[pc->cbeg + pc->ccount] - pos[pc->cbeg];
	}
}

#ifdef GPX_EMU
/* Emulated exclusive scan (host loop). */
static void
gpx_emu_exclusive_sum(const uint32_t *in, uint32_t *out, uint32_t n)
{
	uint32_t	s = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	v = in[i];

		out[i] = s;
		s += v;
	}
}
#endif

/* Launch the ping kernel. */
cudaError_t
gpx_cuda_k_ping(uint32_t *out, cudaStream_t st)
{
	GPX_LAUNCH(gpx_k_ping, 1, 32, st, out);
	return cudaGetLastError();
}

/* Temporary storage for scanning up to max_cand + 1 flags. */
cudaError_t
gpx_cuda_k_scan_tmp_bytes(uint32_t max_cand, size_t *bytes)
{
#ifdef GPX_EMU
	(void) max_cand;
	*bytes = 256;
	return cudaSuccess;
#else
	*bytes = 0;
	return cub::DeviceScan::ExclusiveSum(NULL, *bytes, (const uint32_t *) NULL,
										 (uint32_t *) NULL, (int64_t) max_cand + 1);
#endif
}

/* Launch the copies of staged blobs into the cache. */
cudaError_t
gpx_cuda_k_upload(const gpx_dupload *up, uint32_t nup, const uint8_t *stage,
				  cudaStream_t st)
{
	if (nup == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_upload, nup, GPX_D_THREADS, st, up, stage);
	return cudaGetLastError();
}

/* Launch the table and skip builds (see gpx_cuda_dev.cuh). */
cudaError_t
gpx_cuda_k_tables(const gpx_dl *lists, uint32_t ntb, uint32_t max_entries,
				  uint32_t max_blocks, cudaStream_t st)
{
	uint32_t	gx;
	cudaError_t e;

	if (ntb == 0)
		return cudaSuccess;
	gx = (max_entries + GPX_D_THREADS - 1) / GPX_D_THREADS;
	if (gx > 1024)
		gx = 1024;
	if (gx == 0)
		gx = 1;
	/* grid.y is limited to 65535: the caller splits larger sets */
	GPX_LAUNCH(gpx_k_tables, dim3(gx, ntb, 1), GPX_D_THREADS, st, lists);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	gx = (max_blocks + GPX_D_WARPS - 1) / GPX_D_WARPS;
	if (gx == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_skips, dim3(gx, ntb, 1), GPX_D_THREADS, st, lists);
	return cudaGetLastError();
}

/* Launch the four stages of a chunk (see the file comment). */
cudaError_t
gpx_cuda_k_chunk(const gpx_dl *dl, uint32_t nwork, const gpx_dpiece *pieces,
				 uint32_t npieces, const uint32_t *olist, uint32_t *cand,
				 uint32_t *cpiece, uint32_t *flag, uint32_t *pos, uint32_t ncand,
				 void *scan_tmp, size_t scan_tmp_bytes, uint32_t *counts,
				 cudaStream_t st)
{
	cudaError_t e;
	uint32_t	nthreads;

	if (nwork > 0)
	{
		GPX_LAUNCH(gpx_k_src_decode, (nwork + GPX_D_WARPS - 1) / GPX_D_WARPS,
				   GPX_D_THREADS, st, dl, pieces, npieces, nwork, cand, cpiece);
		if ((e = cudaGetLastError()) != cudaSuccess)
			return e;
	}
	GPX_LAUNCH(gpx_k_probe, ncand / GPX_D_THREADS + 1, GPX_D_THREADS, st,
			   dl, pieces, olist, (const uint32_t *) cand,
			   (const uint32_t *) cpiece, ncand, flag);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
#ifdef GPX_EMU
	(void) scan_tmp;
	(void) scan_tmp_bytes;
	gpx_emu_exclusive_sum(flag, pos, ncand + 1);
#else
	e = cub::DeviceScan::ExclusiveSum(scan_tmp, scan_tmp_bytes,
									  (const uint32_t *) flag, pos,
									  (int64_t) ncand + 1, st);
	if (e != cudaSuccess)
		return e;
#endif
	nthreads = ncand > npieces ? ncand : npieces;
	if (nthreads == 0)
		return cudaSuccess;
	GPX_LAUNCH(gpx_k_finalize, (nthreads + GPX_D_THREADS - 1) / GPX_D_THREADS,
			   GPX_D_THREADS, st, pieces, npieces, (const uint32_t *) cand,
			   (const uint32_t *) cpiece, (const uint32_t *) flag,
			   (const uint32_t *) pos, ncand, counts);
	return cudaGetLastError();
}
