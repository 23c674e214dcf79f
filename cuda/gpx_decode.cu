/*
 * gpx_decode.cu - whole-list decode kernels, one per codec (pfor, lrc,
 * qs): one warp per list block, GPX_D_WARPS blocks per thread-block (a
 * short list's launch GPX_DEC_SW, when a build sets it lower), the
 * block algorithms in gpx_cuda_dev.cuh by each block's form (PFor blocks:
 * the block's words staged in shared memory through the directory, then
 * unpack, patch, warp scan, and 16-byte stores), or, in a build with
 * GPX_DEC_FAST, the fast decoders of gpx_dec_dev.cuh (one kernel per codec
 * and format version there).  A list longer than the grid cap
 * (GPX_DEC_GRID_PER_SM thread-blocks an SM, GPX_DEC_PIPE builds) is
 * decoded by fewer warps that loop over its blocks, each with the words of
 * its next GPX_DEC_PDIST units in flight by cp.async while it decodes one
 * (gpx_d_pipe).  A v2 qs list shorter than GPX_DEC_E2_MIN blocks goes one
 * block a warp, not in pairs.  Output out[0..n), bit-identical to
 * gpx_decode() on the CPU.  Used by gpx_cuda_decode() and the decode
 * benchmark; the batched intersection decodes its source blocks with the
 * same device functions (gpx_isect.cu).
 */
#include <atomic>

#include "gpx_cuda_dev.cuh"

/*
 * Thread-blocks per SM the decode kernel is built for (GPX_DEC_MINB,
 * __launch_bounds__' second argument: 8 holds it to 32 registers, 6 to
 * 40); 0 or unset: ptxas chooses.
 */
#if defined(GPX_DEC_MINB) && GPX_DEC_MINB > 0
#define GPX_DEC_BOUNDS(W) __launch_bounds__(32 * (W), GPX_DEC_MINB * GPX_D_WARPS / (W) < 32 ? \
											GPX_DEC_MINB * GPX_D_WARPS / (W) : 32)
#else
/* W = GPX_D_WARPS: ptxas chooses; fewer: room for 40 warps an SM (at most 48 registers) */
#define GPX_DEC_BOUNDS(W) __launch_bounds__(32 * (W), (W) == GPX_D_WARPS ? 0 : \
											(5 * GPX_D_WARPS / (W) < 32 ? 5 * GPX_D_WARPS / (W) : 32))
#endif

/*
 * Warps per thread-block of the launches of short lists (fewer than
 * GPX_DEC_SW_MAX warps of work, not piped): a grid of GPX_D_WARPS-warp
 * thread-blocks that is less than a wave leaves some SMs a whole
 * thread-block more than others; smaller thread-blocks spread the warps
 * evenly.  GPX_D_WARPS: as the long lists (off).
 */
#ifndef GPX_DEC_SW
#define GPX_DEC_SW GPX_D_WARPS
#endif
#ifndef GPX_DEC_SW_MAX
#define GPX_DEC_SW_MAX 8192
#endif
#if GPX_D_WARPS % GPX_DEC_SW != 0
#error "GPX_DEC_SW must divide GPX_D_WARPS"
#endif

#if GPX_DEC_FAST
/*
 * Block blk of L into o with the fast decoder of its form (gpx_dec_dev.cuh),
 * full blocks with 16-byte stores that each write 512 whole bytes; false
 * (warp-uniform) when GPX_DEC_FAST has none for the form.
 */
GPX_DEV bool
gpx_d_dec_fast(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs, uint32_t *o)
{
	uint32_t	form = gpx_d_form(L, blk);
	uint32_t	cnt = gpx_d_count(L, blk);
	uint32_t	v[8],
				per;

	if (!gpx_d_fast(L, blk, form, cnt, lane, xs, v, &per))
	{
		__syncwarp();			/* nothing taken; the stage is free again */
		return false;
	}
	if (per == 4 && cnt == 128)
		*(uint4 *) (o + 4 * lane) = make_uint4(v[0], v[1], v[2], v[3]);
	else
	{
		/* through shared memory, in element order */
		gpx_d_fast_order(xs, v, per, lane);
		if (cnt == 128 || cnt == 256)
		{
			*(uint4 *) (o + 4 * lane) = *(const uint4 *) (xs + 4 * lane);
			if (cnt == 256)
				*(uint4 *) (o + 128 + 4 * lane) = *(const uint4 *) (xs + 128 + 4 * lane);
		}
		else
		{
#pragma unroll
			for (uint32_t t = 0; t < 8; t++)
				if (lane + 32 * t < cnt)
					o[lane + 32 * t] = xs[lane + 32 * t];
		}
	}
	__syncwarp();				/* the next block's stage reuses xs */
	return true;
}
#endif

#if (GPX_DEC_FAST & 7) != 7

/* Block blk of L into o with the general loops (gpx_cuda_dev.cuh). */
GPX_DEV void
gpx_d_dec_gen(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs, uint32_t *o)
{
	if (L->codec == GPX_CODEC_PFOR && gpx_d_form(L, blk) == GPX_FORM_PFOR)
	{
		uint32_t	cnt = gpx_d_count(L, blk);
		uint32_t	v[4];

		gpx_d_stage(L, gpx_d_off(L, blk), gpx_d_end(L, blk), GPX_D_STAGE, lane, xs);
		gpx_d_pfor_warp((const uint8_t *) xs, 0, cnt, gpx_d_first(L, blk), lane,
						xs + GPX_D_STAGE, v);
		__syncwarp();
		if (cnt == 128)
			*(uint4 *) (o + 4 * lane) = make_uint4(v[0], v[1], v[2], v[3]);
		else
		{
#pragma unroll
			for (uint32_t t = 0; t < 4; t++)
				if (4 * lane + t < cnt)
					o[4 * lane + t] = v[t];
		}
	}
	else
		gpx_d_block_warp_gen(L, blk, lane, xs,
							 [&](uint32_t j, uint32_t val) { o[j] = val; });
}
#endif

/* Block blk of L into o: the fast decoder of its form, else the general loops. */
GPX_DEV void
gpx_d_dec_one(const gpx_dl *L, uint32_t blk, uint32_t lane, uint32_t *xs, uint32_t *o)
{
#if GPX_DEC_FAST
	if (gpx_d_dec_fast(L, blk, lane, xs, o))
		return;
#endif
#if (GPX_DEC_FAST & 7) != 7		/* else every form has its fast decoder */
	gpx_d_dec_gen(L, blk, lane, xs, o);
#endif
}

/*
 * Whether v2 qs lists take the pipelined loop too (1) or not (0: measured
 * slower, docs/BENCHMARKS.md "GPU decode").  v1 lrc lists never do: their
 * one-unit kernel (32 registers, full occupancy) measured faster.
 */
#ifndef GPX_DEC_PIPE_QS
#define GPX_DEC_PIPE_QS 0
#endif

#if GPX_DEC_FAST & GPX_DEC_PIPE
/* Whether the kernel of CODEC, VER runs the pipelined loop (GPX_DEC_PIPE). */
#define GPX_DEC_PIPED(CODEC, VER) \
	((CODEC == GPX_CODEC_PFOR && (GPX_DEC_FAST & GPX_DEC_P2) && (GPX_DEC_FAST & GPX_DEC_PF)) || \
	 (CODEC == GPX_CODEC_LRC && VER == 2 && (GPX_DEC_FAST & GPX_DEC_LR)) || \
	 (CODEC == GPX_CODEC_QS && VER == 2 && GPX_DEC_PIPE_QS && (GPX_DEC_FAST & GPX_DEC_E2) && \
	  (GPX_DEC_FAST & GPX_DEC_EF)))
#else
#define GPX_DEC_PIPED(CODEC, VER) false
#endif

#if GPX_DEC_FAST & GPX_DEC_PIPE
/*
 * Whether the pipelined loop stages the PFor and LRC words of a list of
 * format version V with 16-byte cp.async copies (from the 16-byte
 * boundary before a block) rather than 4-byte ones: version 2 only, where
 * it measured 1.02-1.05x; version 1's PFor lists ran 0.70x with it
 * (docs/BENCHMARKS.md "GPU decode").
 */
#define GPX_DEC_ACP16(V) ((V) != GPX_FORMAT_V1)

/* Units a pipelined warp has on their way beside the one it decodes. */
#ifndef GPX_DEC_PDIST
#define GPX_DEC_PDIST 1			/* 2 and 3 measured no faster */
#endif

/*
 * Thread-blocks per SM a pipelined launch is given at most (its warps
 * then loop over several units each); the emulation's few, so that its
 * tests run the loop.
 */
#ifndef GPX_DEC_GRID_PER_SM
#ifdef GPX_EMU
#define GPX_DEC_GRID_PER_SM 2
#else
#define GPX_DEC_GRID_PER_SM 16
#endif
#endif

/*
 * One lane's block of a pipelined unit (a half-warp's block of a PFor or
 * Elias-Fano pair, or the warp's LRC segment) once its directory words
 * are in: its span (gpx_d_span_of) and the words to stage.
 */
typedef struct gpx_d_pblk
{
	uint32_t	w0;
	uint32_t	sb;
	uint32_t	nbits;
	uint32_t	nw;
	uint32_t	first;
	uint32_t	a;				/* GPX_DEC_ACP16: words from the 16-byte boundary
								 * before w0 to w0, where its stage starts
								 * (else 0) */
} gpx_d_pblk;

/* Blocks a pipelined unit of CODEC holds: pairs, but one LRC segment. */
#define GPX_D_UNIT(CODEC) (CODEC == GPX_CODEC_LRC ? 1u : 2u)

/* The block of unit u this lane works on (a half-warp's, or the warp's). */
template <int CODEC>
GPX_DEV uint32_t
gpx_d_pblk_of(uint32_t u, uint32_t lane)
{
	return GPX_D_UNIT(CODEC) * u + (GPX_D_UNIT(CODEC) == 2 ? lane >> 4 : 0);
}

/*
 * Plan this lane's block blk from its directory words r (gpx_d_dir3): true
 * (warp-uniform) when every block of the unit is a full block of the
 * unit's form whose words fit the stage, so that the pipelined decode
 * takes it; else the unit is decoded block by block (gpx_d_dec_one).  All
 * lanes must call.
 */
template <int CODEC>
GPX_DEV bool
gpx_d_pplan(const gpx_dl *L, uint32_t blk, const uint32_t r[3], gpx_d_pblk *pb)
{
	const uint32_t form = CODEC == GPX_CODEC_PFOR ? GPX_FORM_PFOR :
		CODEC == GPX_CODEC_LRC ? GPX_FORM_LRC : GPX_FORM_EF;
	bool		ok = L->dir != NULL && blk < L->nblocks &&
		gpx_d_count(L, blk) == (1u << L->log2_block) &&
		gpx_d_form_kind(L, r[1] & 3u) == form;

	pb->a = 0;					/* GPX_DEC_ACP16 sets it below */
	if (ok)
	{
		gpx_d_span_of(L, blk, r, &pb->w0, &pb->sb, &pb->nbits, &pb->first);
		if (CODEC == GPX_CODEC_QS)
		{
			pb->nw = (pb->nbits + 31) >> 5;
			ok = gpx_d_ef16p_fit1(L, pb->w0, pb->sb, pb->nbits, pb->nw);
		}
		else
		{
			pb->nw = gpx_d_stage_nw(L, pb->w0, pb->nbits, CODEC == GPX_CODEC_LRC ?
									GPX_D_LRC_STAGE : GPX_D_STAGE - 1);
			if (GPX_DEC_ACP16(L->version))
			{
				/*
				 * staged from the 16-byte boundary: the a words before must
				 * fit too (gpx_d_pre16() spelled out: calling it changes these
				 * kernels' machine code from the build measured on 2026-12-03)
				 */
				pb->a = (uint32_t) (((uintptr_t) (L->payload + 4 * (size_t) pb->w0)) >> 2) & 3u;
				if (CODEC == GPX_CODEC_PFOR)
					ok = pb->a + pb->nw <= GPX_D_STAGE - 1;
			}
		}
	}
	return __all_sync(GPX_D_FULL, ok);
}

/*
 * Start copying this lane's share of the unit's words into buf (a
 * half-warp's block at buf + GPX_D_STAGE * half, the LRC segment at buf,
 * each from pb->a words before its first) with gpx_d_acp128() (format-2
 * PFor and LRC, GPX_DEC_ACP16) or gpx_d_acp32(); the caller commits the
 * group.
 */
template <int CODEC>
GPX_DEV void
gpx_d_pstage(const gpx_dl *L, const gpx_d_pblk *pb, uint32_t lane, uint32_t *buf)
{
	const uint32_t step = GPX_D_UNIT(CODEC) == 2 ? 16 : 32;
	uint32_t   *st = GPX_D_UNIT(CODEC) == 2 ? buf + GPX_D_STAGE * (lane >> 4) : buf;
	const uint8_t *src = L->payload + 4 * (size_t) pb->w0;

	if (CODEC != GPX_CODEC_QS && GPX_DEC_ACP16(L->version))
	{
		/* 16 bytes a copy, from pb->a words before w0 (gpx_d_pre16) */
		const uint8_t *s16 = src - 4 * pb->a;
		uint32_t	nc = (pb->a + pb->nw + 3) >> 2;

		for (uint32_t k = lane & (step - 1); k < nc; k += step)
			gpx_d_acp128(st + 4 * k, s16 + 16 * k);
	}
	else
		for (uint32_t k = lane & (step - 1); k < pb->nw; k += step)
			gpx_d_acp32(st + k, src + 4 * k);
}

/*
 * Decode unit u, planned in pb, from its words staged in buf and write it
 * to out (xo: the warp's patch or output words); false (warp-uniform,
 * nothing written) when its Elias-Fano upper bits do not fit, and the
 * caller decodes it block by block.  All lanes must call.
 */
template <int CODEC>
GPX_DEV bool
gpx_d_pdec(const gpx_dl *L, uint32_t u, const gpx_d_pblk *pb, uint32_t lane,
		   uint32_t *buf, uint32_t *xo, uint32_t *out)
{
	uint32_t   *o = out + ((size_t) (GPX_D_UNIT(CODEC) * u) << L->log2_block);
	uint32_t	v[8];

	if (CODEC == GPX_CODEC_QS)
	{
		if (!gpx_d_ef16p_dec(buf, pb->sb, pb->nbits, pb->nw, pb->first, lane, xo))
			return false;
#pragma unroll
		for (uint32_t j = 0; j < 4; j++)
			*(uint4 *) (o + 128 * j + 4 * lane) = *(const uint4 *) (xo + 128 * j + 4 * lane);
		return true;
	}
	if (CODEC == GPX_CODEC_PFOR)
		gpx_d_pfor8p_dec(buf + (GPX_DEC_ACP16(L->version) ? pb->a : 0), xo, pb->first, lane, v);
	else
		gpx_d_lrc8_dec(buf + (GPX_DEC_ACP16(L->version) ? pb->a : 0), lane, v);
	/* 256 docIDs either way: in element order through buf, 16-byte stores */
	gpx_d_fast_order(buf, v, 8, lane);
	*(uint4 *) (o + 4 * lane) = *(const uint4 *) (buf + 4 * lane);
	*(uint4 *) (o + 128 + 4 * lane) = *(const uint4 *) (buf + 128 + 4 * lane);
	return true;
}

/*
 * The pipelined decode loop (GPX_DEC_PIPE) of one warp: units u, u + W,
 * ... (W: the grid's warps), each a pair of blocks (one LRC segment).
 * While unit u is decoded from one stage buffer (of D + 1), the words of
 * the D units after it are already on their way into the others
 * (cp.async), and the directory words of the one after those are loading
 * into registers, so a warp seldom waits on memory.  Units the fast pair
 * decoders do not take go block by block through gpx_d_dec_one()
 * (synchronous, in the current buffer).  All lanes of the warp must call.
 */
template <int CODEC, int D>
GPX_DEV void
gpx_d_pipe(const gpx_dl *L, uint32_t *out, uint32_t lane, uint32_t wid,
		   uint32_t *bufs[D + 1], uint32_t *xo)
{
	const uint32_t S = GPX_D_UNIT(CODEC);
	uint32_t	nunits = (L->nblocks + S - 1) / S;
	uint32_t	W = gridDim.x * GPX_D_WARPS;
	uint32_t	u = blockIdx.x * GPX_D_WARPS + wid;
	uint32_t	r[3] = {0, 0, 0};
	gpx_d_pblk	pq[D + 1];
	bool		okq[D + 1];
	uint32_t   *bq[D + 1];

	if (u >= nunits)
		return;
	/* the first D units on their way, the directory words of the next */
#pragma unroll
	for (int i = 0; i <= D; i++)
	{
		uint32_t	ui = u + (uint32_t) i * W;

		bq[i] = bufs[i];
		okq[i] = false;
		pq[i] = gpx_d_pblk{0, 0, 0, 0, 0, 0};
		if (ui < nunits && L->dir != NULL && gpx_d_pblk_of<CODEC>(ui, lane) < L->nblocks)
			gpx_d_dir3(L, gpx_d_pblk_of<CODEC>(ui, lane), r);
		if (i == D || ui >= nunits)
			break;
		okq[i] = gpx_d_pplan<CODEC>(L, gpx_d_pblk_of<CODEC>(ui, lane), r, &pq[i]);
		if (okq[i])
			gpx_d_pstage<CODEC>(L, &pq[i], lane, bq[i]);
		gpx_d_acp_commit();
	}
	for (; u < nunits; u += W)
	{
		uint32_t	un = u + (uint32_t) D * W;
		uint32_t   *t;

		okq[D] = false;
		if (un < nunits)
		{
			/* unit D ahead into the free buffer, its successor's directory words */
			okq[D] = gpx_d_pplan<CODEC>(L, gpx_d_pblk_of<CODEC>(un, lane), r, &pq[D]);
			if (okq[D])
				gpx_d_pstage<CODEC>(L, &pq[D], lane, bq[D]);
			if (un + W < nunits && L->dir != NULL &&
				gpx_d_pblk_of<CODEC>(un + W, lane) < L->nblocks)
				gpx_d_dir3(L, gpx_d_pblk_of<CODEC>(un + W, lane), r);
		}
		gpx_d_acp_commit();
		gpx_d_acp_wait<D>();	/* unit u's words are in */
		__syncwarp();
		if (!okq[0] || !gpx_d_pdec<CODEC>(L, u, &pq[0], lane, bq[0], xo, out))
			for (uint32_t blk = S * u; blk < S * u + S && blk < L->nblocks; blk++)
				gpx_d_dec_one(L, blk, lane, bq[0], out + ((size_t) blk << L->log2_block));
		__syncwarp();			/* bq[0] is free for the unit D + 1 ahead */
		t = bq[0];
#pragma unroll
		for (int i = 0; i < D; i++)
		{
			pq[i] = pq[i + 1];
			okq[i] = okq[i + 1];
			bq[i] = bq[i + 1];
		}
		bq[D] = t;
	}
	gpx_d_acp_wait<0>();
}
#endif

/* Whether the PFor kernel takes its blocks two at a time (GPX_DEC_P2). */
#define GPX_DEC_PAIRS(CODEC) (CODEC == GPX_CODEC_PFOR && (GPX_DEC_FAST & GPX_DEC_P2))
/* Whether the v2 qs kernel takes its blocks two at a time (GPX_DEC_E2). */
#define GPX_DEC_EPAIRS(CODEC, VER) (CODEC == GPX_CODEC_QS && VER == 2 && (GPX_DEC_FAST & GPX_DEC_E2))

/*
 * The fewest blocks of a v2 qs list that the pair kernel (GPX_DEC_E2)
 * decodes; a shorter list, one block a warp (twice the warps of a grid
 * that is less than a wave).  0: every list in pairs.  The emulation's
 * few, so that its tests run both kernels.
 */
#ifndef GPX_DEC_E2_MIN
#ifdef GPX_EMU
#define GPX_DEC_E2_MIN 64
#else
#define GPX_DEC_E2_MIN 6144
#endif
#endif
#if GPX_DEC_E2_MIN > 0 && GPX_DEC_PIPE_QS
#error "GPX_DEC_E2_MIN launches short v2 qs lists unpiped: not with GPX_DEC_PIPE_QS"
#endif

/*
 * Decode every block of L (codec CODEC) into out (16-byte aligned).  VER:
 * the lists' format version when the launch knows it (the fast decoders'
 * builds), so that the version and codec tests fold away; 0: read from L.
 * With GPX_DEC_P2 / GPX_DEC_E2 (and EP) warp w takes blocks 2w and
 * 2w + 1 (the launch's grid is halved to match).  PIPE: the pipelined loop
 * (gpx_d_pipe) of a grid smaller than the list, for the codecs it serves.
 */
template <int CODEC, int VER, bool PIPE, bool EP = true, int WARPS = GPX_D_WARPS>
__global__ void GPX_DEC_BOUNDS(WARPS)
gpx_k_decode_list(gpx_dl L, uint32_t *out)
{
	static_assert(!PIPE || WARPS == GPX_D_WARPS, "the pipelined loop has GPX_D_WARPS warps a thread-block");
	__shared__ __align__(16) uint32_t xs_all[WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];

	if (VER != 0)
	{
		L.version = VER;
		L.codec = CODEC;
	}
#if GPX_DEC_FAST & GPX_DEC_PIPE
	if (PIPE && GPX_DEC_PIPED(CODEC, VER))
	{
		/* GPX_DEC_PDIST + 1 stage buffers a warp; the pairs' patches (PFor) or output (EF) */
		__shared__ __align__(16) uint32_t xsp_all[GPX_DEC_PDIST][GPX_D_WARPS][GPX_D_SCRATCH];
		__shared__ __align__(16) uint32_t xo_all[GPX_D_WARPS][CODEC == GPX_CODEC_QS ? 512 : 256];
		uint32_t   *bufs[GPX_DEC_PDIST + 1];

		bufs[0] = xs;
#pragma unroll
		for (int i = 0; i < GPX_DEC_PDIST; i++)
			bufs[i + 1] = xsp_all[i][wid];
		gpx_d_pipe<CODEC, GPX_DEC_PDIST>(&L, out, lane, wid, bufs, xo_all[wid]);
		return;
	}
#endif
#if GPX_DEC_FAST
	if (GPX_DEC_PAIRS(CODEC))
	{
		/* warp w: blocks 2w and 2w + 1, together when both are full PFor blocks */
		__shared__ __align__(16) uint32_t xp_all[WARPS][256];

		for (uint32_t b0 = 2 * (blockIdx.x * WARPS + wid); b0 < L.nblocks;
			 b0 += 2 * gridDim.x * WARPS)
		{
			uint32_t   *o = out + ((size_t) b0 << L.log2_block);

			if (b0 + 1 < L.nblocks && gpx_d_count(&L, b0 + 1) == 128 &&
				gpx_d_form(&L, b0) == GPX_FORM_PFOR && gpx_d_form(&L, b0 + 1) == GPX_FORM_PFOR)
			{
				uint32_t	v[8];

				gpx_d_pfor8p(&L, b0, lane, xs, xp_all[wid], v);
				gpx_d_fast_order(xs, v, 8, lane);
				*(uint4 *) (o + 4 * lane) = *(const uint4 *) (xs + 4 * lane);
				*(uint4 *) (o + 128 + 4 * lane) = *(const uint4 *) (xs + 128 + 4 * lane);
				__syncwarp();
				continue;
			}
			for (uint32_t blk = b0; blk < b0 + 2 && blk < L.nblocks; blk++)
				gpx_d_dec_one(&L, blk, lane, xs, out + ((size_t) blk << L.log2_block));
		}
	}
	else if (EP && GPX_DEC_EPAIRS(CODEC, VER))
	{
		/* warp w: blocks 2w and 2w + 1, together when both are full EF blocks */
		__shared__ __align__(16) uint32_t ob_all[WARPS][512];

		for (uint32_t b0 = 2 * (blockIdx.x * WARPS + wid); b0 < L.nblocks;
			 b0 += 2 * gridDim.x * WARPS)
		{
			uint32_t   *o = out + ((size_t) b0 << L.log2_block);
			uint32_t   *ob = ob_all[wid];
			/* each half's directory words, read once for the form test and the span */
			uint32_t	blk = b0 + (lane >> 4),
						r[3] = {0, 0, 0};

			if (L.dir != NULL && blk < L.nblocks)
				gpx_d_dir3(&L, blk, r);
			if (b0 + 1 < L.nblocks && gpx_d_count(&L, b0 + 1) == 256 &&
				__all_sync(GPX_D_FULL, (r[1] & 3u) == GPX_KIND_EF) &&
				gpx_d_ef16p(&L, blk, r, lane, xs, ob))
			{
#pragma unroll
				for (uint32_t j = 0; j < 4; j++)
					*(uint4 *) (o + 128 * j + 4 * lane) = *(const uint4 *) (ob + 128 * j + 4 * lane);
				__syncwarp();
				continue;
			}
			__syncwarp();
			for (uint32_t blk = b0; blk < b0 + 2 && blk < L.nblocks; blk++)
				gpx_d_dec_one(&L, blk, lane, xs, out + ((size_t) blk << L.log2_block));
		}
	}
	else
#endif
		for (uint32_t blk = blockIdx.x * WARPS + wid; blk < L.nblocks;
			 blk += gridDim.x * WARPS)
			gpx_d_dec_one(&L, blk, lane, xs, out + ((size_t) blk << L.log2_block));
}

#if GPX_DEC_FAST & GPX_DEC_PIPE
/*
 * SMs of the current device (1 when it cannot be asked: a smaller grid,
 * the same answers), asked once per device; callers on several threads
 * share the cache.
 */
static uint32_t
gpx_cuda_sm_count(void)
{
	static std::atomic<int> cache[64];
	int			dev = 0,
				n = 0;

	if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
		return 1;
	n = cache[dev].load(std::memory_order_relaxed);
	if (n <= 0)
	{
		if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0)
			return 1;
		cache[dev].store(n, std::memory_order_relaxed);
	}
	return (uint32_t) n;
}
#endif

/* Launch the decoder of L's codec over the whole list. */
cudaError_t
gpx_cuda_k_decode_list(const gpx_dl *L, uint32_t *out, cudaStream_t st)
{
	uint32_t	grid,
				warps;			/* warps of work: one a block, or a pair */
	bool		small;			/* a short list: GPX_DEC_SW-warp thread-blocks */
	bool		v2qs = (GPX_DEC_FAST & GPX_DEC_E2) && L->codec == GPX_CODEC_QS &&
		L->version != GPX_FORMAT_V1;	/* the pair kernel's lists */
#if GPX_DEC_E2_MIN > 0
	bool		singles = v2qs && L->nblocks < (uint32_t) GPX_DEC_E2_MIN;
#else
	bool		singles = false;
#endif
#if GPX_DEC_FAST & GPX_DEC_PIPE
	bool		pipe = false;
#endif

	if (L->nblocks == 0)
		return cudaSuccess;
	warps = L->nblocks;
	if (((GPX_DEC_FAST & GPX_DEC_P2) && L->codec == GPX_CODEC_PFOR) || (v2qs && !singles))
		warps = (L->nblocks + 1) / 2;
	grid = (warps + GPX_D_WARPS - 1) / GPX_D_WARPS;
#if GPX_DEC_FAST & GPX_DEC_PIPE
	if (GPX_DEC_PIPED(L->codec, L->version == GPX_FORMAT_V1 ? GPX_FORMAT_V1 : 2))
	{
		/* a list longer than the cap's warps: fewer warps, each looping */
		uint32_t	cap = gpx_cuda_sm_count() * GPX_DEC_GRID_PER_SM;

		if (grid > cap)
		{
			grid = cap;
			pipe = true;
		}
	}
#endif
	small = GPX_DEC_SW != GPX_D_WARPS && warps < (uint32_t) GPX_DEC_SW_MAX;
#if GPX_DEC_FAST & GPX_DEC_PIPE
	small = small && !pipe;
#endif
	if (small)
		grid = (warps + GPX_DEC_SW - 1) / GPX_DEC_SW;
	/* the unpiped kernel of C, V (EP: v2 qs in pairs), in short lists' thread-blocks when small */
#define GPX_DEC_LAUNCH_U(C, V, EP) \
	do { \
		if (small) \
			GPX_LAUNCH((gpx_k_decode_list<C, V, false, EP, GPX_DEC_SW>), grid, 32 * GPX_DEC_SW, st, *L, out); \
		else \
			GPX_LAUNCH((gpx_k_decode_list<C, V, false, EP>), grid, GPX_D_THREADS, st, *L, out); \
	} while (0)
#if GPX_DEC_FAST & GPX_DEC_PIPE
#define GPX_DEC_LAUNCH_V(C, V) \
	do { \
		if (pipe)	/* (the kernel of a codec and version not piped: never) */ \
			GPX_LAUNCH((gpx_k_decode_list<C, V, GPX_DEC_PIPED(C, V)>), grid, GPX_D_THREADS, st, *L, out); \
		else \
			GPX_DEC_LAUNCH_U(C, V, true); \
	} while (0)
#else
#define GPX_DEC_LAUNCH_V(C, V) GPX_DEC_LAUNCH_U(C, V, true)
#endif
	if (singles)
	{
		/* a v2 qs list too short for pairs (never piped: GPX_DEC_PIPE_QS 0) */
		GPX_DEC_LAUNCH_U(GPX_CODEC_QS, 2, false);
		return cudaGetLastError();
	}
#if GPX_DEC_FAST
#define GPX_DEC_LAUNCH(C) \
	do { \
		if (L->version == GPX_FORMAT_V1) \
			GPX_DEC_LAUNCH_V(C, GPX_FORMAT_V1); \
		else \
			GPX_DEC_LAUNCH_V(C, 2); \
	} while (0)
#else
#define GPX_DEC_LAUNCH(C) GPX_DEC_LAUNCH_V(C, 0)
#endif
	switch (L->codec)
	{
		case GPX_CODEC_PFOR:
			GPX_DEC_LAUNCH(GPX_CODEC_PFOR);
			break;
		case GPX_CODEC_LRC:
			GPX_DEC_LAUNCH(GPX_CODEC_LRC);
			break;
		case GPX_CODEC_QS:
			GPX_DEC_LAUNCH(GPX_CODEC_QS);
			break;
		default:
			return cudaErrorInvalidValue;
	}
#undef GPX_DEC_LAUNCH
#undef GPX_DEC_LAUNCH_V
#undef GPX_DEC_LAUNCH_U
	return cudaGetLastError();
}
