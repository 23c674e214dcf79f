/*
 * gpx_cuda_setup.cu - device set-up of the CUDA back end: finding the
 * GPUs, saying in plain words why none is usable, and making and freeing
 * each device's streams, list cache pool, chunk slots and their limits.
 *
 * Why no GPU is usable is the first thing a user without one sees
 * (gpuidx_info()), so the CUDA runtime's codes are mapped here to what
 * they mean on the machine: no NVIDIA driver, a driver older than this
 * build, no GPU, a GPU older than the kernels, or no kernel image for it
 * in this build (CUDA_ARCH in cuda/cuda.mk); anything else is the CUDA
 * error itself, named.
 */
#include "gpx_cuda_host.cuh"

#include <algorithm>
#include <string.h>

/* the oldest compute capability the kernels run on (__reduce_max_sync) */
constexpr int GPX_CC_MIN_MAJOR = 8;
/* candidates per chunk slot: at most, at least */
constexpr uint32_t GPX_CAND_MAX = 8u << 20;
constexpr uint32_t GPX_CAND_MIN = 4096;

/* ------------------------------------------------------- what failed -- */

/* "A.B" parts of a CUDA version number (1000 * major + 10 * minor). */
static void
gpx_setup_version(int v, int *major, int *minor)
{
	*major = v / 1000;
	*minor = v % 1000 / 10;
}

/*
 * Why no GPU can be reached, from cudaGetDeviceCount's error e and count:
 * the status, and plain words in ctx->err.
 */
static gpx_cuda_status
gpx_setup_unreachable(gpx_cuda_ctx *ctx, cudaError_t e, int count)
{
	int			drv = 0,
				rt = 0,
				dmaj,
				dmin,
				rmaj,
				rmin;

	if (e == cudaSuccess && count <= 0)
		return gpx_msg(ctx, GPX_CUDA_NO_DEVICE, "no GPU");
	/* the driver's CUDA version: 0 when no driver is installed */
	if (cudaDriverGetVersion(&drv) != cudaSuccess)
		drv = 0;
	if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
		rt = 0;
	(void) cudaGetLastError();
	gpx_setup_version(drv, &dmaj, &dmin);
	gpx_setup_version(rt, &rmaj, &rmin);
	switch (e)
	{
		case cudaErrorNoDevice:
			return gpx_msg(ctx, GPX_CUDA_NO_DEVICE, "no GPU");
		case cudaErrorStubLibrary:
			return gpx_msg(ctx, GPX_CUDA_NO_DRIVER,
						   "no NVIDIA driver found (only the CUDA toolkit's stub libcuda)");
		case cudaErrorInsufficientDriver:
			if (drv <= 0)
				return gpx_msg(ctx, GPX_CUDA_NO_DRIVER, "no NVIDIA driver found");
			snprintf(ctx->err, sizeof(ctx->err),
					 "the NVIDIA driver supports CUDA %d.%d, this build of gpuidx needs CUDA %d.%d: update the driver",
					 dmaj, dmin, rmaj, rmin);
			return GPX_CUDA_NO_DRIVER;
		default:
			break;
	}
	if (drv <= 0)
		return gpx_msg(ctx, GPX_CUDA_NO_DRIVER, "no NVIDIA driver found");
	snprintf(ctx->err, sizeof(ctx->err), "cudaGetDeviceCount: %s (%s)",
			 cudaGetErrorString(e), cudaGetErrorName(e));
	return e == cudaErrorDevicesUnavailable ? GPX_CUDA_NO_DEVICE : GPX_CUDA_NO_DRIVER;
}

/*
 * A CUDA failure while setting up device d (what: the call): a kernel
 * image this build lacks gets plain words, anything else is gpx_fail's.
 */
static gpx_cuda_status
gpx_setup_fail(gpx_cuda_ctx *ctx, const gpx_dev *d, cudaError_t e, const char *what)
{
	int			cc_major = d->cc_major,
				cc_minor = d->cc_minor;

	(void) cudaGetLastError();
	switch (e)
	{
		case cudaErrorNoKernelImageForDevice:
			snprintf(ctx->err, sizeof(ctx->err),
					 "this build of gpuidx has no kernel image for GPU %d (%s, compute capability %d.%d): rebuild it with sm_%d%d in CUDA_ARCH",
					 d->ord, d->name, cc_major, cc_minor, cc_major, cc_minor);
			return GPX_CUDA_NO_DEVICE;
		case cudaErrorUnsupportedPtxVersion:
			snprintf(ctx->err, sizeof(ctx->err),
					 "the NVIDIA driver is older than this build's PTX for GPU %d (%s, compute capability %d.%d): update the driver, or rebuild gpuidx with sm_%d%d in CUDA_ARCH",
					 d->ord, d->name, cc_major, cc_minor, cc_major, cc_minor);
			return GPX_CUDA_NO_DRIVER;
		default:
			return gpx_fail(ctx, e, what);
	}
}

/* Return gpx_setup_fail's status if expr fails (for device d). */
#define GPX_SETUP_TRY(expr) \
	do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) \
			return gpx_setup_fail(ctx, d, e_, #expr); \
	} while (0)

/* ------------------------------------------------------------ devices -- */

/* Bytes the metadata of a slot's chunk takes in its staging buffer. */
static size_t
gpx_setup_meta_reserve(const gpx_dev *d)
{
	return 8 * 256 +
		(size_t) d->max_lists * sizeof(gpx_dl) * 2 +	/* dls + tbls */
		(size_t) d->max_pieces * sizeof(gpx_dpiece) +
		(size_t) d->max_olist * 4 +
		(size_t) d->max_ups * sizeof(gpx_dupload);
}

/* Allocate the stream and buffers of one slot (stage bytes of staging). */
static gpx_cuda_status
gpx_setup_slot(gpx_cuda_ctx *ctx, gpx_dev *d, gpx_slot *s, size_t stage)
{
	unsigned	ev_flags = ctx->timing ? cudaEventDefault : cudaEventDisableTiming;

	GPX_SETUP_TRY(cudaStreamCreateWithFlags(&s->st, cudaStreamNonBlocking));
	GPX_SETUP_TRY(cudaHostAlloc((void **) &s->h_stage, stage,
						  cudaHostAllocPortable | cudaHostAllocWriteCombined));
	GPX_SETUP_TRY(cudaMalloc((void **) &s->d_stage, stage));
	s->stage_cap = stage;
	s->blob_cap = stage - gpx_setup_meta_reserve(d);
	GPX_SETUP_TRY(cudaMalloc((void **) &s->d_cand, ((size_t) d->cand_cap + 1) * 4));
	GPX_SETUP_TRY(cudaMalloc((void **) &s->d_cpiece, ((size_t) d->cand_cap + 1) * 4));
	GPX_SETUP_TRY(cudaMalloc((void **) &s->d_flag, ((size_t) d->cand_cap + 1) * 4));
	GPX_SETUP_TRY(cudaMalloc((void **) &s->d_pos, ((size_t) d->cand_cap + 1) * 4));
	GPX_SETUP_TRY(gpx_cuda_k_scan_tmp_bytes(d->cand_cap, &s->tmp_bytes));
	GPX_SETUP_TRY(cudaMalloc(&s->d_tmp, s->tmp_bytes > 0 ? s->tmp_bytes : 16));
	GPX_SETUP_TRY(cudaHostAlloc((void **) &s->h_res, (size_t) d->cand_cap * 4,
						  cudaHostAllocMapped | cudaHostAllocPortable));
	GPX_SETUP_TRY(cudaHostGetDevicePointer((void **) &s->d_res, s->h_res, 0));
	GPX_SETUP_TRY(cudaHostAlloc((void **) &s->h_cnt, (size_t) d->max_pieces * 4,
						  cudaHostAllocMapped | cudaHostAllocPortable));
	GPX_SETUP_TRY(cudaHostGetDevicePointer((void **) &s->d_cnt, s->h_cnt, 0));
	/* events without timing are cheaper to record and to wait for */
	GPX_SETUP_TRY(cudaEventCreateWithFlags(&s->ev_t0, ev_flags));
	GPX_SETUP_TRY(cudaEventCreateWithFlags(&s->ev_in, ev_flags));
	GPX_SETUP_TRY(cudaEventCreateWithFlags(&s->ev_c0, ev_flags));
	GPX_SETUP_TRY(cudaEventCreateWithFlags(&s->ev_done, ev_flags));
	return GPX_CUDA_OK;
}

/* Free one slot's stream, graphs and buffers (NULL-safe). */
static void
gpx_setup_slot_free(gpx_slot *s)
{
	for (gpx_gexec *g : s->graphs)
	{
		cudaGraphExecDestroy(g->exec);
		delete g;
	}
	s->graphs.clear();
	if (s->st)
		cudaStreamDestroy(s->st);
	if (s->h_stage)
		cudaFreeHost(s->h_stage);
	if (s->h_res)
		cudaFreeHost(s->h_res);
	if (s->h_cnt)
		cudaFreeHost(s->h_cnt);
	cudaFree(s->d_stage);
	cudaFree(s->d_cand);
	cudaFree(s->d_cpiece);
	cudaFree(s->d_flag);
	cudaFree(s->d_pos);
	cudaFree(s->d_tmp);
	if (s->ev_t0)
		cudaEventDestroy(s->ev_t0);
	if (s->ev_in)
		cudaEventDestroy(s->ev_in);
	if (s->ev_c0)
		cudaEventDestroy(s->ev_c0);
	if (s->ev_done)
		cudaEventDestroy(s->ev_done);
	*s = gpx_slot();
}

/* Release everything a device holds. */
static void
gpx_setup_dev_free(gpx_dev *d)
{
	if (cudaSetDevice(d->ord) == cudaSuccess)
		(void) cudaDeviceSynchronize();
	gpx_cache_flush(&d->cache);
	for (gpx_slot &s : d->slot)
		gpx_setup_slot_free(&s);
	cudaFree(d->cache.d_pool);
	cudaFree(d->d_scr_in);
	cudaFree(d->d_scr_out);
	cudaFree(d->d_un);
	cudaFree(d->d_rk_dl);
	gpx_rk_free(d);
	if (d->s_comp)
		cudaStreamDestroy(d->s_comp);
	(void) cudaGetLastError();
	delete d;
}

/* Set up one device: properties, streams, cache pool, slots, a test kernel. */
static gpx_cuda_status
gpx_setup_dev(gpx_cuda_ctx *ctx, gpx_dev *d, const gpx_cuda_options *opt)
{
	cudaDeviceProp p;
	size_t		fr = 0,
				tot = 0,
				pool,
				stage,
				scale;
	uint32_t	ping = 0;
	gpx_cuda_status st;

	memset(&p, 0, sizeof(p));
	GPX_TRY(cudaGetDeviceProperties(&p, d->ord));
	snprintf(d->name, sizeof(d->name), "%s", p.name);
	d->cc_major = p.major;
	d->cc_minor = p.minor;
	if (p.major < GPX_CC_MIN_MAJOR)
	{
		snprintf(ctx->err, sizeof(ctx->err),
				 "GPU %d (%s) has compute capability %d.%d; the kernels need %d.0 or newer",
				 d->ord, p.name, p.major, p.minor, GPX_CC_MIN_MAJOR);
		return GPX_CUDA_NO_DEVICE;
	}
	d->total_mem = p.totalGlobalMem;
	d->sms = p.multiProcessorCount;
	GPX_SETUP_TRY(cudaSetDevice(d->ord));
	GPX_SETUP_TRY(cudaStreamCreateWithFlags(&d->s_comp, cudaStreamNonBlocking));
	GPX_SETUP_TRY(cudaMemGetInfo(&fr, &tot));

	/* the cache pool: the budget (64 KiB at least), or a quarter of free
	 * memory up to 4 GiB */
	pool = opt != nullptr && opt->cache_bytes > 0 ? opt->cache_bytes :
		std::min(fr / 4, (size_t) 4 << 30);
	pool = gpx_al(std::max(pool, (size_t) 64 << 10), GPX_CUDA_POOL_ALIGN);
	GPX_SETUP_TRY(cudaMalloc((void **) &d->cache.d_pool, pool));
	d->cache.pool.init(pool);

	/* slots: half the batch budget each (however many); limits scale with it */
	stage = opt != nullptr && opt->batch_bytes > 0 ? opt->batch_bytes / 2 : 32 * GPX_MIB;
	stage = std::min(std::max(stage, (size_t) 64 << 10), 128 * GPX_MIB);
	stage = gpx_al(stage, 4096);
	scale = std::min<size_t>(std::max<size_t>(stage / 2048, 64), 16384);
	d->max_lists = (uint32_t) scale;
	d->max_pieces = (uint32_t) scale;
	d->max_ups = (uint32_t) scale;
	d->max_olist = (uint32_t) (4 * scale);
	d->cand_cap = (uint32_t) std::min<size_t>(std::max<size_t>(stage / 8, GPX_CAND_MIN),
											  GPX_CAND_MAX);
	d->max_work = d->cand_cap / 128 + d->max_pieces;
	if (gpx_setup_meta_reserve(d) + (16 << 10) > stage)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "batch staging buffer too small");
	d->slot.resize(ctx->nslots);
	for (gpx_slot &s : d->slot)
		if ((st = gpx_setup_slot(ctx, d, &s, stage)) != GPX_CUDA_OK)
			return st;

	/* a test kernel: catches a missing kernel image or a broken driver */
	GPX_SETUP_TRY(gpx_cuda_k_ping(d->slot[0].d_flag, d->s_comp));
	GPX_SETUP_TRY(cudaStreamSynchronize(d->s_comp));
	GPX_SETUP_TRY(cudaMemcpy(&ping, d->slot[0].d_flag, 4, cudaMemcpyDeviceToHost));
	if (ping != 0x67707869u)
		return gpx_msg(ctx, GPX_CUDA_ERROR, "test kernel did not run");
	return GPX_CUDA_OK;
}

/* Open the devices opt names (see gpx_cuda_host.cuh). */
gpx_cuda_status
gpx_setup_open(gpx_cuda_ctx *ctx, const gpx_cuda_options *opt)
{
	gpx_cuda_status st = GPX_CUDA_OK;
	int			count = 0;
	cudaError_t e;
	int			nd;

	e = cudaGetDeviceCount(&count);
	if (e != cudaSuccess || count <= 0)
		return gpx_setup_unreachable(ctx, e, count);
	nd = opt != nullptr && opt->devices != nullptr && opt->ndevices > 0 ? opt->ndevices : 1;
	for (int i = 0; i < nd && st == GPX_CUDA_OK; i++)
	{
		int			ord = opt != nullptr && opt->devices != nullptr &&
			opt->ndevices > 0 ? opt->devices[i] : 0;
		gpx_dev    *d;

		if (ord < 0 || ord >= count)
		{
			snprintf(ctx->err, sizeof(ctx->err),
					 "no GPU with ordinal %d (%d present)", ord, count);
			return GPX_CUDA_NO_DEVICE;
		}
		d = new gpx_dev;
		d->ord = ord;
		ctx->devs.push_back(d);
		st = gpx_setup_dev(ctx, d, opt);
	}
	return st;
}

/* Release every device of ctx (waits for their work first). */
void
gpx_setup_close(gpx_cuda_ctx *ctx)
{
	for (gpx_dev *d : ctx->devs)
		gpx_setup_dev_free(d);
	ctx->devs.clear();
}
