/*
 * gpx_decode.cu - whole-list decode kernels, one per codec (pfor, lrc,
 * qs): one warp per list block, GPX_D_WARPS blocks per thread-block, the
 * block algorithms in gpx_cuda_dev.cuh by each block's form (PFor blocks:
 * the block's words staged in shared memory through the directory, then
 * unpack, patch, warp scan, and 16-byte stores), or, in a build with
 * GPX_DEC_FAST, the fast decoders of gpx_dec_dev.cuh (one kernel per codec
 * and format version there).  Output out[0..n), bit-identical to
 * gpx_decode() on the CPU.  Used by gpx_cuda_decode() and the decode
 * benchmark; the batched intersection decodes its source blocks with the
 * same device functions (gpx_isect.cu).
 */
#include "gpx_cuda_dev.cuh"

/*
 * Thread-blocks per SM the decode kernel is built for (GPX_DEC_MINB,
 * __launch_bounds__' second argument: 8 holds it to 32 registers, 6 to
 * 40); 0 or unset: ptxas chooses.
 */
#if defined(GPX_DEC_MINB) && GPX_DEC_MINB > 0
#define GPX_DEC_BOUNDS __launch_bounds__(GPX_D_THREADS, GPX_DEC_MINB)
#else
#define GPX_DEC_BOUNDS __launch_bounds__(GPX_D_THREADS)
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

/* Whether the PFor kernel takes its blocks two at a time (GPX_DEC_P2). */
#define GPX_DEC_PAIRS(CODEC) (CODEC == GPX_CODEC_PFOR && (GPX_DEC_FAST & GPX_DEC_P2))
/* Whether the v2 qs kernel takes its blocks two at a time (GPX_DEC_E2). */
#define GPX_DEC_EPAIRS(CODEC, VER) (CODEC == GPX_CODEC_QS && VER == 2 && (GPX_DEC_FAST & GPX_DEC_E2))

/*
 * Decode every block of L (codec CODEC) into out (16-byte aligned).  VER:
 * the lists' format version when the launch knows it (the fast decoders'
 * builds), so that the version and codec tests fold away; 0: read from L.
 * With GPX_DEC_P2 / GPX_DEC_E2 warp w takes blocks 2w and 2w + 1 (the
 * launch's grid is halved to match).
 */
template <int CODEC, int VER>
__global__ void GPX_DEC_BOUNDS
gpx_k_decode_list(gpx_dl L, uint32_t *out)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];

	if (VER != 0)
	{
		L.version = VER;
		L.codec = CODEC;
	}
#if GPX_DEC_FAST
	if (GPX_DEC_PAIRS(CODEC))
	{
		/* warp w: blocks 2w and 2w + 1, together when both are full PFor blocks */
		__shared__ __align__(16) uint32_t xp_all[GPX_D_WARPS][256];

		for (uint32_t b0 = 2 * (blockIdx.x * GPX_D_WARPS + wid); b0 < L.nblocks;
			 b0 += 2 * gridDim.x * GPX_D_WARPS)
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
	else if (GPX_DEC_EPAIRS(CODEC, VER))
	{
		/* warp w: blocks 2w and 2w + 1, together when both are full EF blocks */
		__shared__ __align__(16) uint32_t ob_all[GPX_D_WARPS][512];

		for (uint32_t b0 = 2 * (blockIdx.x * GPX_D_WARPS + wid); b0 < L.nblocks;
			 b0 += 2 * gridDim.x * GPX_D_WARPS)
		{
			uint32_t   *o = out + ((size_t) b0 << L.log2_block);
			uint32_t   *ob = ob_all[wid];

			if (b0 + 1 < L.nblocks && gpx_d_count(&L, b0 + 1) == 256 &&
				gpx_d_form(&L, b0) == GPX_FORM_EF && gpx_d_form(&L, b0 + 1) == GPX_FORM_EF &&
				gpx_d_ef16p(&L, b0, lane, xs, ob))
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
		for (uint32_t blk = blockIdx.x * GPX_D_WARPS + wid; blk < L.nblocks;
			 blk += gridDim.x * GPX_D_WARPS)
			gpx_d_dec_one(&L, blk, lane, xs, out + ((size_t) blk << L.log2_block));
}

/* Launch the decoder of L's codec over the whole list. */
cudaError_t
gpx_cuda_k_decode_list(const gpx_dl *L, uint32_t *out, cudaStream_t st)
{
	uint32_t	grid;

	if (L->nblocks == 0)
		return cudaSuccess;
	grid = (L->nblocks + GPX_D_WARPS - 1) / GPX_D_WARPS;
	if (((GPX_DEC_FAST & GPX_DEC_P2) && L->codec == GPX_CODEC_PFOR) ||
		((GPX_DEC_FAST & GPX_DEC_E2) && L->codec == GPX_CODEC_QS && L->version != GPX_FORMAT_V1))
		grid = ((L->nblocks + 1) / 2 + GPX_D_WARPS - 1) / GPX_D_WARPS;
#if GPX_DEC_FAST
#define GPX_DEC_LAUNCH(C) \
	do { \
		if (L->version == GPX_FORMAT_V1) \
			GPX_LAUNCH((gpx_k_decode_list<C, GPX_FORMAT_V1>), grid, GPX_D_THREADS, st, *L, out); \
		else \
			GPX_LAUNCH((gpx_k_decode_list<C, 2>), grid, GPX_D_THREADS, st, *L, out); \
	} while (0)
#else
#define GPX_DEC_LAUNCH(C) \
	GPX_LAUNCH((gpx_k_decode_list<C, 0>), grid, GPX_D_THREADS, st, *L, out)
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
	return cudaGetLastError();
}
