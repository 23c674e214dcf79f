/*
 * gpx_cuda_port.cuh - what the CUDA sources of gpuidx need from the CUDA
 * toolkit, behind one include: the runtime API and a kernel launch macro.
 *
 * Built by nvcc this is just <cuda_runtime.h>.  With -DGPX_EMU (host
 * compiler, no GPU) it pulls in test/gpu/gpx_emu.h instead, a small host
 * emulation of the runtime calls and warp intrinsics these sources use, so
 * the kernels and the host driver can be tested against the CPU codecs on a
 * machine without a GPU.  The emulation is a test tool only: the extension
 * is always built by nvcc.
 */
#ifndef GPX_CUDA_PORT_CUH
#define GPX_CUDA_PORT_CUH

#ifdef GPX_EMU
#include "gpx_emu.h"
#define GPX_LAUNCH(kern, grid, block, stream, ...) \
	gpx_emu_launch(kern, dim3(grid), dim3(block), (stream), __VA_ARGS__)
#define GPX_DEV static inline
#else
#include <cuda_runtime.h>
#define GPX_LAUNCH(kern, grid, block, stream, ...) \
	kern<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)
#define GPX_DEV static __device__ __forceinline__
#endif

#endif							/* GPX_CUDA_PORT_CUH */
