/*
 * gpx_emu.h - a host emulation of the part of CUDA that the cuda/ sources use, for
 * testing the kernels and the host driver on a machine without a GPU
 * (make -f cuda/cuda.mk emucheck).  Never part of the extension.
 *
 * Kernels run one thread-block at a time; each CUDA thread is a ucontext
 * fiber, so warp collectives (shuffles, ballots, match, reduce, syncwarp)
 * and __syncthreads are real rendezvous of all lanes: code that lets lanes
 * of a warp skip a collective that others reach deadlocks here (and is
 * reported), as it would be undefined on the GPU.  Only full warp masks
 * are supported.  Device memory is host memory; streams and events are
 * synchronous.  Environment: GPX_EMU_DEVICES (fake device count, default
 * 1), GPX_EMU_MEM (bytes of fake device memory per device, default 8 GiB);
 * read at every call, to play a machine the back end must refuse:
 * GPX_EMU_DRIVER (the driver's CUDA version, default 13000; 0: no driver),
 * GPX_EMU_CC (compute capability as major * 10 + minor, default 90),
 * GPX_EMU_NO_IMAGE (set: every launch fails for want of a kernel image).
 */
#ifndef GPX_EMU_H
#define GPX_EMU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <time.h>
#include <functional>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

/* ------------------------------------------------------------ types -- */

struct dim3
{
	unsigned	x,
				y,
				z;
	/* Same defaults as CUDA's dim3. */
	dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

struct alignas(16) uint4
{
	unsigned	x,
				y,
				z,
				w;
};

/* Build a uint4. */
static inline uint4
make_uint4(unsigned a, unsigned b, unsigned c, unsigned d)
{
	uint4		r = {a, b, c, d};

	return r;
}

typedef enum cudaError
{
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInitializationError = 3,
	cudaErrorStubLibrary = 34,
	cudaErrorInsufficientDriver = 35,
	cudaErrorDevicesUnavailable = 46,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorNoKernelImageForDevice = 209,
	cudaErrorUnsupportedPtxVersion = 222,
	cudaErrorNotReady = 600,
	cudaErrorHostMemoryAlreadyRegistered = 712,
	cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind
{
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4
} cudaMemcpyKind;

enum cudaMemoryType
{
	cudaMemoryTypeUnregistered = 0,
	cudaMemoryTypeHost = 1,
	cudaMemoryTypeDevice = 2
};

struct cudaPointerAttributes
{
	enum cudaMemoryType type;
	int			device;
	void	   *devicePointer;
	void	   *hostPointer;
};

struct gpx_emu_stream
{
	int			dev;
};
struct gpx_emu_event
{
	double		t;
};
typedef gpx_emu_stream *cudaStream_t;
typedef gpx_emu_event *cudaEvent_t;

struct cudaDeviceProp
{
	char		name[256];
	size_t		totalGlobalMem;
	int			multiProcessorCount;
	int			major;
	int			minor;
	int			l2CacheSize;
	int			canMapHostMemory;
	int			unifiedAddressing;
};

#define cudaHostAllocDefault 0
#define cudaHostAllocPortable 1
#define cudaHostAllocMapped 2
#define cudaHostAllocWriteCombined 4
#define cudaHostRegisterDefault 0
#define cudaHostRegisterPortable 1
#define cudaHostRegisterMapped 2
#define cudaStreamNonBlocking 1
#define cudaEventDefault 0
#define cudaEventDisableTiming 2

/* ------------------------------------------------------ fiber state -- */

struct gpx_emu_fiber
{
	ucontext_t	uc;
	unsigned	tid;
	bool		done;
};

struct gpx_emu_warp
{
	uint64_t	gen;
	unsigned	arrived;
	uint64_t	vals[2][32];
};

struct gpx_emu_state
{
	/* launch geometry */
	dim3		grid,
				block,
				bidx;
	unsigned	nthreads;
	/* fibers of the running block */
	std::vector<gpx_emu_fiber> fibers;
	std::vector<char *> stacks;
	std::vector<gpx_emu_warp> warps;
	uint64_t	bgen;
	unsigned	barrived;
	ucontext_t	sched;
	gpx_emu_fiber *cur;
	uint64_t	events;
	std::function<void()> body;
	/* fake devices */
	int			ndev;
	int			curdev;
	size_t		mem_limit;
	std::vector<size_t> mem_used;
	cudaError_t last;
	bool		inited;
};

/*
 * The emulator's single state: one for the whole program (an inline
 * function with external linkage), since the back end's files allocate,
 * free and count devices together.
 */
inline gpx_emu_state &
gpx_emu(void)
{
	static gpx_emu_state s;

	if (!s.inited)
	{
		const char *d = getenv("GPX_EMU_DEVICES");
		const char *m = getenv("GPX_EMU_MEM");

		s.inited = true;
		s.ndev = d ? atoi(d) : 1;
		s.mem_limit = m ? (size_t) strtoull(m, NULL, 10) : ((size_t) 8 << 30);
		s.mem_used.assign(s.ndev > 0 ? s.ndev : 1, 0);
		s.curdev = 0;
		s.last = cudaSuccess;
	}
	return s;
}

#define GPX_EMU_STACK (256 * 1024)

/* Give control back to the scheduler (from a fiber). */
static inline void
gpx_emu_yield(void)
{
	gpx_emu_state &S = gpx_emu();

	swapcontext(&S.cur->uc, &S.sched);
}

/* Thread index of the running fiber. */
static inline dim3
gpx_emu_tidx(void)
{
	return dim3(gpx_emu().cur->tid, 0, 0);
}

#define threadIdx (gpx_emu_tidx())
#define blockIdx (gpx_emu().bidx)
#define blockDim (gpx_emu().block)
#define gridDim (gpx_emu().grid)
#define warpSize 32

/* Rendezvous of a warp: every lane deposits v; returns the 32 values. */
static inline const uint64_t *
gpx_emu_wcoll(unsigned mask, uint64_t v)
{
	gpx_emu_state &S = gpx_emu();
	unsigned	tid = S.cur->tid;
	gpx_emu_warp &w = S.warps[tid / 32];
	uint64_t	g = w.gen;

	if (mask != 0xffffffffu)
	{
		fprintf(stderr, "gpx_emu: partial warp mask %08x not supported\n", mask);
		abort();
	}
	w.vals[g & 1][tid % 32] = v;
	S.events++;
	if (++w.arrived == 32)
	{
		w.arrived = 0;
		w.gen++;
	}
	else
		while (w.gen == g)
			gpx_emu_yield();
	return w.vals[g & 1];
}

/* Lane of the running fiber. */
static inline unsigned
gpx_emu_lane(void)
{
	return gpx_emu().cur->tid % 32;
}

/* Raw 64-bit image of a value of at most 8 bytes. */
template <typename T>
static inline uint64_t
gpx_emu_bits(T v)
{
	uint64_t	r = 0;

	memcpy(&r, &v, sizeof(T));
	return r;
}

/* Value of a 64-bit image. */
template <typename T>
static inline T
gpx_emu_val(uint64_t r)
{
	T			v;

	memcpy(&v, &r, sizeof(T));
	return v;
}

/* __shfl_sync: value of lane src. */
template <typename T>
static inline T
__shfl_sync(unsigned mask, T v, int src, int width = 32)
{
	const uint64_t *a = gpx_emu_wcoll(mask, gpx_emu_bits(v));

	(void) width;
	return gpx_emu_val<T>(a[src & 31]);
}

/* __shfl_up_sync: value of lane - d (own value below d). */
template <typename T>
static inline T
__shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
	const uint64_t *a = gpx_emu_wcoll(mask, gpx_emu_bits(v));
	unsigned	l = gpx_emu_lane();

	(void) width;
	return l >= d ? gpx_emu_val<T>(a[l - d]) : v;
}

/* __shfl_down_sync: value of lane + d (own value past the end). */
template <typename T>
static inline T
__shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
	const uint64_t *a = gpx_emu_wcoll(mask, gpx_emu_bits(v));
	unsigned	l = gpx_emu_lane();

	(void) width;
	return l + d < 32 ? gpx_emu_val<T>(a[l + d]) : v;
}

/* __shfl_xor_sync: value of lane ^ m. */
template <typename T>
static inline T
__shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{
	const uint64_t *a = gpx_emu_wcoll(mask, gpx_emu_bits(v));

	(void) width;
	return gpx_emu_val<T>(a[(gpx_emu_lane() ^ m) & 31]);
}

/* __ballot_sync: bit l set iff lane l's predicate holds. */
static inline unsigned
__ballot_sync(unsigned mask, int pred)
{
	const uint64_t *a = gpx_emu_wcoll(mask, pred != 0);
	unsigned	r = 0;

	for (int l = 0; l < 32; l++)
		r |= (unsigned) (a[l] & 1) << l;
	return r;
}

/* __any_sync. */
static inline int
__any_sync(unsigned mask, int pred)
{
	return __ballot_sync(mask, pred) != 0;
}

/* __all_sync. */
static inline int
__all_sync(unsigned mask, int pred)
{
	return __ballot_sync(mask, pred) == 0xffffffffu;
}

/* __match_any_sync: lanes holding the same value. */
template <typename T>
static inline unsigned
__match_any_sync(unsigned mask, T v)
{
	const uint64_t *a = gpx_emu_wcoll(mask, gpx_emu_bits(v));
	uint64_t	me = gpx_emu_bits(v);
	unsigned	r = 0;

	for (int l = 0; l < 32; l++)
		if (a[l] == me)
			r |= 1u << l;
	return r;
}

/* __reduce_max_sync. */
static inline unsigned
__reduce_max_sync(unsigned mask, unsigned v)
{
	const uint64_t *a = gpx_emu_wcoll(mask, v);
	unsigned	r = 0;

	for (int l = 0; l < 32; l++)
		r = (unsigned) a[l] > r ? (unsigned) a[l] : r;
	return r;
}

/* __reduce_add_sync. */
static inline unsigned
__reduce_add_sync(unsigned mask, unsigned v)
{
	const uint64_t *a = gpx_emu_wcoll(mask, v);
	unsigned	r = 0;

	for (int l = 0; l < 32; l++)
		r += (unsigned) a[l];
	return r;
}

/* __syncwarp. */
static inline void
__syncwarp(unsigned mask = 0xffffffffu)
{
	(void) gpx_emu_wcoll(mask, 0);
}

/* __syncthreads: every thread of the block. */
static inline void
__syncthreads(void)
{
	gpx_emu_state &S = gpx_emu();
	uint64_t	g = S.bgen;

	S.events++;
	if (++S.barrived == S.nthreads)
	{
		S.barrived = 0;
		S.bgen++;
	}
	else
		while (S.bgen == g)
			gpx_emu_yield();
}

/* Emulated __popc (host builtin). */
static inline int __popc(unsigned v) { return __builtin_popcount(v); }
/* Emulated __popcll (host builtin). */
static inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
/* Emulated __ffs (host builtin). */
static inline int __ffs(unsigned v) { return v ? __builtin_ctz(v) + 1 : 0; }
/* Emulated __clz (host builtin). */
static inline int __clz(unsigned v) { return v ? __builtin_clz(v) : 32; }
/* Emulated __umulhi (host builtin). */
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned) (((uint64_t) a * b) >> 32); }
template <typename T> static inline T __ldg(const T *p) { return *p; }

/* ------------------------------------------------------------ launch -- */

/* Fiber entry: run the kernel body, then mark the fiber finished. */
static inline void
gpx_emu_trampoline(void)
{
	gpx_emu_state &S = gpx_emu();

	S.body();
	S.cur->done = true;
}

/* Run every thread-block of the current launch, one block at a time. */
static inline void
gpx_emu_run(void)
{
	gpx_emu_state &S = gpx_emu();

	S.nthreads = S.block.x * S.block.y * S.block.z;
	if (S.nthreads == 0 || S.nthreads % 32 != 0 || S.nthreads > 1024)
	{
		fprintf(stderr, "gpx_emu: block of %u threads not supported\n", S.nthreads);
		abort();
	}
	while (S.stacks.size() < S.nthreads)
		S.stacks.push_back((char *) malloc(GPX_EMU_STACK));
	S.fibers.resize(S.nthreads);
	S.warps.resize(S.nthreads / 32);
	for (unsigned bz = 0; bz < S.grid.z; bz++)
		for (unsigned by = 0; by < S.grid.y; by++)
			for (unsigned bx = 0; bx < S.grid.x; bx++)
			{
				unsigned	alive = S.nthreads;

				S.bidx = dim3(bx, by, bz);
				S.bgen = 0;
				S.barrived = 0;
				for (auto &w : S.warps)
					w.gen = 0, w.arrived = 0;
				for (unsigned t = 0; t < S.nthreads; t++)
				{
					gpx_emu_fiber &f = S.fibers[t];

					f.tid = t;
					f.done = false;
					getcontext(&f.uc);
					f.uc.uc_stack.ss_sp = S.stacks[t];
					f.uc.uc_stack.ss_size = GPX_EMU_STACK;
					f.uc.uc_link = &S.sched;
					makecontext(&f.uc, gpx_emu_trampoline, 0);
				}
				while (alive > 0)
				{
					uint64_t	ev = S.events;
					unsigned	before = alive;

					for (unsigned t = 0; t < S.nthreads; t++)
					{
						gpx_emu_fiber &f = S.fibers[t];

						if (f.done)
							continue;
						S.cur = &f;
						swapcontext(&S.sched, &f.uc);
						if (f.done)
							alive--;
					}
					if (alive > 0 && alive == before && ev == S.events)
					{
						fprintf(stderr, "gpx_emu: deadlock in block (%u,%u,%u): "
								"%u threads wait at a collective others never reach\n",
								bx, by, bz, alive);
						abort();
					}
				}
			}
	S.cur = NULL;
}

/* Launch a kernel: run it to completion now (streams are synchronous). */
template <typename K, typename... A>
static inline void
gpx_emu_launch(K kern, dim3 grid, dim3 block, cudaStream_t st, A... args)
{
	gpx_emu_state &S = gpx_emu();

	(void) st;
	if (getenv("GPX_EMU_NO_IMAGE") != NULL)
	{
		S.last = cudaErrorNoKernelImageForDevice;
		return;
	}
	S.grid = grid;
	S.block = block;
	S.body = [=]() { kern(args...); };
	gpx_emu_run();
	S.body = nullptr;
}

/* ----------------------------------------------------- runtime API -- */

/* Record and return an error. */
static inline cudaError_t
gpx_emu_err(cudaError_t e)
{
	if (e != cudaSuccess)
		gpx_emu().last = e;
	return e;
}

/* Emulated cudaGetErrorString (synchronous, host memory). */
static inline const char *cudaGetErrorString(cudaError_t e)
{
	switch (e)
	{
		case cudaSuccess: return "no error";
		case cudaErrorMemoryAllocation: return "out of memory (emulated)";
		case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version (emulated)";
		case cudaErrorNoDevice: return "no CUDA-capable device is detected (emulated)";
		case cudaErrorNoKernelImageForDevice: return "no kernel image is available for execution on the device (emulated)";
		case cudaErrorInvalidDevice: return "invalid device ordinal (emulated)";
		case cudaErrorNotReady: return "device not ready (emulated)";
		default: return "emulated cuda error";
	}
}
/* Emulated cudaGetErrorName (synchronous, host memory). */
static inline const char *cudaGetErrorName(cudaError_t e) { return cudaGetErrorString(e); }
/* Emulated cudaGetLastError (synchronous, host memory). */
static inline cudaError_t cudaGetLastError(void) { cudaError_t e = gpx_emu().last; gpx_emu().last = cudaSuccess; return e; }
/* Emulated cudaPeekAtLastError (synchronous, host memory). */
static inline cudaError_t cudaPeekAtLastError(void) { return gpx_emu().last; }
/* Emulated cudaDriverGetVersion: GPX_EMU_DRIVER, 0 for no driver. */
static inline cudaError_t cudaDriverGetVersion(int *v)
{
	const char *d = getenv("GPX_EMU_DRIVER");

	*v = d ? atoi(d) : 13000;
	return cudaSuccess;
}
/* Emulated cudaRuntimeGetVersion (synchronous, host memory). */
static inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
/* Emulated cudaGetDeviceCount: fails as the runtime does without a driver. */
static inline cudaError_t cudaGetDeviceCount(int *n)
{
	int			drv;

	cudaDriverGetVersion(&drv);
	if (drv < 13000)
		return gpx_emu_err(cudaErrorInsufficientDriver);
	*n = gpx_emu().ndev;
	return gpx_emu().ndev > 0 ? cudaSuccess : gpx_emu_err(cudaErrorNoDevice);
}
/* Emulated cudaSetDevice (synchronous, host memory). */
static inline cudaError_t cudaSetDevice(int d)
{
	if (d < 0 || d >= gpx_emu().ndev)
		return gpx_emu_err(cudaErrorInvalidDevice);
	gpx_emu().curdev = d;
	return cudaSuccess;
}
/* Emulated cudaGetDevice (synchronous, host memory). */
static inline cudaError_t cudaGetDevice(int *d) { *d = gpx_emu().curdev; return cudaSuccess; }
/* Emulated cudaGetDeviceProperties (synchronous, host memory). */
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
	if (d < 0 || d >= gpx_emu().ndev)
		return gpx_emu_err(cudaErrorInvalidDevice);
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "gpx_emu device %d", d);
	p->totalGlobalMem = gpx_emu().mem_limit;
	p->multiProcessorCount = 4;
	p->major = getenv("GPX_EMU_CC") ? atoi(getenv("GPX_EMU_CC")) / 10 : 9;
	p->minor = getenv("GPX_EMU_CC") ? atoi(getenv("GPX_EMU_CC")) % 10 : 0;
	p->l2CacheSize = 1 << 20;
	p->canMapHostMemory = 1;
	p->unifiedAddressing = 1;
	return cudaSuccess;
}
/* Emulated cudaMemGetInfo (synchronous, host memory). */
static inline cudaError_t cudaMemGetInfo(size_t *fr, size_t *tot)
{
	gpx_emu_state &S = gpx_emu();

	*tot = S.mem_limit;
	*fr = S.mem_limit - S.mem_used[S.curdev];
	return cudaSuccess;
}

/* Header in front of every fake device allocation (size, device). */
#define GPX_EMU_HDR 64

/* Emulated cudaMalloc (synchronous, host memory). */
static inline cudaError_t cudaMalloc(void **p, size_t n)
{
	gpx_emu_state &S = gpx_emu();
	char	   *m;

	*p = NULL;
	if (S.mem_used[S.curdev] + n > S.mem_limit)
		return gpx_emu_err(cudaErrorMemoryAllocation);
	m = (char *) aligned_alloc(256, ((n + GPX_EMU_HDR + 255) / 256) * 256 + 256);
	if (m == NULL)
		return gpx_emu_err(cudaErrorMemoryAllocation);
	/* poison: device memory is never zeroed */
	memset(m + 256, 0xA5, n);
	((size_t *) m)[0] = n;
	((size_t *) m)[1] = (size_t) S.curdev;
	S.mem_used[S.curdev] += n;
	*p = m + 256;
	return cudaSuccess;
}
template <typename T> static inline cudaError_t cudaMalloc(T **p, size_t n) { return cudaMalloc((void **) p, n); }
static inline cudaError_t cudaFree(void *p)
{
	char	   *m;

	if (p == NULL)
		return cudaSuccess;
	m = (char *) p - 256;
	gpx_emu().mem_used[((size_t *) m)[1]] -= ((size_t *) m)[0];
	free(m);
	return cudaSuccess;
}
/* Emulated cudaHostAlloc (synchronous, host memory). */
static inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags)
{
	(void) flags;
	*p = aligned_alloc(4096, ((n + 4095) / 4096) * 4096);
	return *p ? cudaSuccess : gpx_emu_err(cudaErrorMemoryAllocation);
}
/* Emulated cudaFreeHost (synchronous, host memory). */
static inline cudaError_t cudaFreeHost(void *p) { free(p); return cudaSuccess; }
/* Emulated cudaHostGetDevicePointer (synchronous, host memory). */
static inline cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned flags) { (void) flags; *d = h; return cudaSuccess; }
/* Ranges registered with cudaHostRegister (start, length; one program-wide list). */
inline std::vector<std::pair<char *, size_t>> &
gpx_emu_regs(void)
{
	static std::vector<std::pair<char *, size_t>> r;

	return r;
}
/* Emulated cudaHostRegister (synchronous, host memory). */
static inline cudaError_t cudaHostRegister(void *p, size_t n, unsigned flags)
{
	(void) flags;
	for (auto &r : gpx_emu_regs())
		if ((char *) p < r.first + r.second && r.first < (char *) p + n)
			return gpx_emu_err(cudaErrorHostMemoryAlreadyRegistered);
	gpx_emu_regs().push_back(std::make_pair((char *) p, n));
	return cudaSuccess;
}
/* Emulated cudaHostUnregister (synchronous, host memory). */
static inline cudaError_t cudaHostUnregister(void *p)
{
	auto	   &v = gpx_emu_regs();

	for (size_t i = 0; i < v.size(); i++)
		if (v[i].first == (char *) p)
		{
			v.erase(v.begin() + i);
			return cudaSuccess;
		}
	return gpx_emu_err(cudaErrorInvalidValue);
}
/* Emulated cudaMemcpy (synchronous, host memory). */
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) { (void) k; if (n) memmove(d, s, n); return cudaSuccess; }
/* Emulated cudaMemcpyAsync (synchronous, host memory). */
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0) { (void) st; return cudaMemcpy(d, s, n, k); }
/* Emulated cudaMemset (synchronous, host memory). */
static inline cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return cudaSuccess; }
/* Emulated cudaMemsetAsync (synchronous, host memory). */
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st = 0) { (void) st; memset(d, v, n); return cudaSuccess; }
/* Emulated cudaStreamCreateWithFlags (synchronous, host memory). */
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f) { (void) f; *s = new gpx_emu_stream{gpx_emu().curdev}; return cudaSuccess; }
/* Emulated cudaStreamDestroy (synchronous, host memory). */
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) { delete s; return cudaSuccess; }
/* Emulated cudaStreamSynchronize (synchronous, host memory). */
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void) s; return cudaSuccess; }
/* Emulated cudaStreamWaitEvent (synchronous, host memory). */
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f = 0) { (void) s; (void) e; (void) f; return cudaSuccess; }
/* Emulated cudaEventCreateWithFlags (synchronous, host memory). */
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { (void) f; *e = new gpx_emu_event{0}; return cudaSuccess; }
/* Emulated cudaEventCreate (synchronous, host memory). */
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
/* Emulated cudaEventDestroy (synchronous, host memory). */
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
/* Emulated cudaEventRecord (synchronous, host memory). */
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0)
{
	struct timespec ts;

	(void) s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->t = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
	return cudaSuccess;
}
/* Emulated cudaEventSynchronize (synchronous, host memory). */
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void) e; return cudaSuccess; }
/* Emulated cudaEventQuery (synchronous, host memory). */
static inline cudaError_t cudaEventQuery(cudaEvent_t e) { (void) e; return cudaSuccess; }
/* Emulated cudaEventElapsedTime (synchronous, host memory). */
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float) (b->t - a->t); return cudaSuccess; }
/* Emulated cudaDeviceSynchronize (synchronous, host memory). */
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
/* Emulated cudaPointerGetAttributes (synchronous, host memory). */
static inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
	memset(a, 0, sizeof(*a));
	a->hostPointer = (void *) p;
	for (auto &r : gpx_emu_regs())
		if ((const char *) p >= r.first && (const char *) p < r.first + r.second)
		{
			a->type = cudaMemoryTypeHost;
			a->devicePointer = (void *) p;
		}
	return cudaSuccess;
}

#endif							/* GPX_EMU_H */
