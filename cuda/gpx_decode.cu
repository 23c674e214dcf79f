/*
 * gpx_decode.cu - whole-list decode kernels, one per codec (pfor, lrc,
 * qs): one warp per list block, GPX_D_WARPS blocks per thread-block, the
 * block algorithms in gpx_cuda_dev.cuh by each block's form (PFor blocks:
 * the block's words staged in shared memory through the directory, then
 * unpack, patch, warp scan, and 16-byte stores).  Output out[0..n), bit-identical
 * to gpx_decode() on the CPU.  Used by gpx_cuda_decode() and the decode
 * benchmark; the batched intersection decodes its source blocks with the
 * same device functions (gpx_isect.cu).
 */
#include "gpx_cuda_dev.cuh"

/* Decode every block of L (codec CODEC) into out (16-byte aligned). */
template <int CODEC>
__global__ void __launch_bounds__(GPX_D_THREADS)
gpx_k_decode_list(gpx_dl L, uint32_t *out)
{
	__shared__ __align__(16) uint32_t xs_all[GPX_D_WARPS][GPX_D_SCRATCH];
	uint32_t	lane = threadIdx.x & 31;
	uint32_t	wid = threadIdx.x >> 5;
	uint32_t   *xs = xs_all[wid];

	for (uint32_t blk = blockIdx.x * GPX_D_WARPS + wid; blk < L.nblocks;
		 blk += gridDim.x * GPX_D_WARPS)
	{
		uint32_t   *o = out + ((size_t) blk << L.log2_block);

		if (CODEC == GPX_CODEC_PFOR && gpx_d_form(&L, blk) == GPX_FORM_PFOR)
		{
			uint32_t	cnt = gpx_d_count(&L, blk);
			uint32_t	v[4];

			gpx_d_stage(&L, gpx_d_off(&L, blk), gpx_d_end(&L, blk), GPX_D_STAGE, lane, xs);
			gpx_d_pfor_warp((const uint8_t *) xs, 0, cnt, gpx_d_first(&L, blk), lane,
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
			gpx_d_block_warp(&L, blk, lane, xs,
							 [&](uint32_t j, uint32_t val) { o[j] = val; });
	}
}

/* Launch the decoder of L's codec over the whole list. */
cudaError_t
gpx_cuda_k_decode_list(const gpx_dl *L, uint32_t *out, cudaStream_t st)
{
	uint32_t	grid;

	if (L->nblocks == 0)
		return cudaSuccess;
	grid = (L->nblocks + GPX_D_WARPS - 1) / GPX_D_WARPS;
	switch (L->codec)
	{
		case GPX_CODEC_PFOR:
			GPX_LAUNCH(gpx_k_decode_list<GPX_CODEC_PFOR>, grid, GPX_D_THREADS, st, *L, out);
			break;
		case GPX_CODEC_LRC:
			GPX_LAUNCH(gpx_k_decode_list<GPX_CODEC_LRC>, grid, GPX_D_THREADS, st, *L, out);
			break;
		case GPX_CODEC_QS:
			GPX_LAUNCH(gpx_k_decode_list<GPX_CODEC_QS>, grid, GPX_D_THREADS, st, *L, out);
			break;
		default:
			return cudaErrorInvalidValue;
	}
	return cudaGetLastError();
}
