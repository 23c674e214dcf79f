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
 * are supported.  Device memory is host memory.
 *
 * Streams are asynchronous, as on a GPU: what is issued on a stream
 * (kernel launches, copies, event records and waits, graph launches,
 * tasks) is queued and runs later, in stream order, when the host waits
 * (cudaEventSynchronize, cudaStreamSynchronize, cudaDeviceSynchronize,
 * cudaFree) or polls (each cudaEventQuery runs a few queued operations),
 * the streams taking turns at random (GPX_EMU_SEED), so work on different
 * streams finishes in any order and a host that reads results too early,
 * reuses a buffer a queued copy still reads, or misses a cross-stream
 * wait gets wrong answers.  A copy from pageable host memory reads its
 * source at once, as CUDA's does.  Stream capture records the operations
 * into a graph (cudaGraphExecUpdate accepts a graph of the same operation
 * kinds and kernels); gpx_emu_task() queues host code as one operation
 * (the back end runs each chunk's copies and kernels, whose emulated scan
 * is a host loop, as one task).  GPX_EMU_SYNC=1: everything runs at once
 * instead.  Environment: GPX_EMU_DEVICES (fake device count, default
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
	cudaErrorStreamCaptureUnsupported = 900,
	cudaErrorStreamCaptureInvalidated = 901,
	cudaErrorGraphExecUpdateFailure = 910,
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

struct gpx_emu_event
{
	double		t;				/* when its last record ran (ms) */
	uint64_t	rec;			/* records issued */
	uint64_t	done;			/* records that ran */
};

/* One operation queued on a stream or captured into a graph. */
struct gpx_emu_op
{
	int			kind;			/* GPX_EMU_OP_* */
	std::function<void()> fn;	/* RUN: what it does */
	uintptr_t	tag;			/* RUN: what kind of node (kernel, copy...) */
	gpx_emu_event *ev;			/* RECORD, WAIT */
	uint64_t	gen;			/* RECORD: the record; WAIT: the one awaited */
};
#define GPX_EMU_OP_RUN 0
#define GPX_EMU_OP_RECORD 1
#define GPX_EMU_OP_WAIT 2

struct gpx_emu_graph
{
	std::vector<gpx_emu_op> ops;
};

struct gpx_emu_stream
{
	int			dev;
	std::vector<gpx_emu_op> q;	/* queued, oldest first */
	size_t		qhead;			/* first not run */
	gpx_emu_graph *capture;		/* being captured into, or NULL */
};
typedef gpx_emu_stream *cudaStream_t;
typedef gpx_emu_event *cudaEvent_t;
typedef gpx_emu_graph *cudaGraph_t;
typedef gpx_emu_graph *cudaGraphExec_t;

enum cudaStreamCaptureMode
{
	cudaStreamCaptureModeGlobal = 0,
	cudaStreamCaptureModeThreadLocal = 1,
	cudaStreamCaptureModeRelaxed = 2
};

struct cudaGraphExecUpdateResultInfo
{
	int			result;
};

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

/* One asynchronous global-to-shared word copy (cp.async) not yet landed. */
struct gpx_emu_acp
{
	uint32_t   *dst;
	const void *src;
	unsigned	group;			/* the commit group it belongs to */
};

struct gpx_emu_fiber
{
	ucontext_t	uc;
	unsigned	tid;
	bool		done;
	std::vector<gpx_emu_acp> acp;	/* its cp.async copies still in flight */
	unsigned	acp_groups;		/* groups it committed */
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
	/* streams */
	std::vector<gpx_emu_stream *> streams;	/* every live stream */
	gpx_emu_stream *running;	/* the stream whose operation runs now */
	uint64_t	rng;			/* which stream goes next */
	bool		sync;			/* GPX_EMU_SYNC: no queueing */
	/* host memory CUDA allocated pinned (cudaHostAlloc): start, length */
	std::vector<std::pair<char *, size_t>> pinned;
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
		s.running = NULL;
		s.rng = getenv("GPX_EMU_SEED") ? strtoull(getenv("GPX_EMU_SEED"), NULL, 10) : 20261125;
		s.sync = getenv("GPX_EMU_SYNC") != NULL && atoi(getenv("GPX_EMU_SYNC")) != 0;
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

/*
 * cp.async of one 32-bit word: queued, landing only at a later
 * gpx_emu_acp_wait() that covers its group, so that code reading the
 * shared word before its wait reads what was there before.
 */
static inline void
gpx_emu_acp32(uint32_t *dst, const void *src)
{
	gpx_emu_fiber *f = gpx_emu().cur;

	f->acp.push_back(gpx_emu_acp{dst, src, f->acp_groups});
}

/* cp.async.commit_group: close the running fiber's current group. */
static inline void
gpx_emu_acp_commit(void)
{
	gpx_emu().cur->acp_groups++;
}

/* cp.async.wait_group n: land every copy but those of the n latest groups. */
static inline void
gpx_emu_acp_wait(unsigned n)
{
	gpx_emu_fiber *f = gpx_emu().cur;
	size_t		k = 0;

	for (size_t i = 0; i < f->acp.size(); i++)
	{
		const gpx_emu_acp &a = f->acp[i];

		if (a.group + n < f->acp_groups)
			memcpy(a.dst, a.src, 4);
		else
			f->acp[k++] = a;
	}
	f->acp.resize(k);
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
/*
 * atomicAdd on a 32-bit word: the threads of the emulation are fibers of
 * one host thread, switching only at collectives, so a plain
 * read-modify-write is atomic.
 */
static inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
/* Emulated __ffs (host builtin). */
static inline int __ffs(unsigned v) { return v ? __builtin_ctz(v) + 1 : 0; }
/* Emulated __clz (host builtin). */
static inline int __clz(unsigned v) { return v ? __builtin_clz(v) : 32; }
/* Emulated __umulhi (host builtin). */
static inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned) (((uint64_t) a * b) >> 32); }
template <typename T> static inline T __ldg(const T *p) { return *p; }
/* Emulated __funnelshift_r: bits [s & 31, +32) of hi:lo. */
static inline unsigned
__funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{
	return (unsigned) ((((uint64_t) hi << 32) | lo) >> (s & 31));
}
/* Emulated __funnelshift_lc: the high word of (hi:lo) << min(s, 32). */
static inline unsigned
__funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{
	return (unsigned) (((((uint64_t) hi << 32) | lo) << (s < 32 ? s : 32)) >> 32);
}
/* Emulated __brev: bit order reversed. */
static inline unsigned
__brev(unsigned v)
{
	unsigned	r = 0;

	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

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
					f.acp.clear();
					f.acp_groups = 0;
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

/* Queue fn on stream st (tag: its node kind), or run it now (see gpx_emu_enqueue). */
static inline void gpx_emu_enqueue(cudaStream_t st, uintptr_t tag, std::function<void()> fn);
/* Run everything queued on every stream. */
static inline void gpx_emu_drain_all(void);

/* Launch a kernel on stream st: queued, run in stream order (file comment). */
template <typename K, typename... A>
static inline void
gpx_emu_launch(K kern, dim3 grid, dim3 block, cudaStream_t st, A... args)
{
	gpx_emu_state &S = gpx_emu();

	if (getenv("GPX_EMU_NO_IMAGE") != NULL)
	{
		S.last = cudaErrorNoKernelImageForDevice;
		return;
	}
	gpx_emu_enqueue(st, (uintptr_t) kern, [=]() {
		gpx_emu_state &E = gpx_emu();

		E.grid = grid;
		E.block = block;
		E.body = [=]() { kern(args...); };
		gpx_emu_run();
		E.body = nullptr;
	});
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
enum cudaDeviceAttr
{
	cudaDevAttrMultiProcessorCount = 16
};
/* Emulated cudaDeviceGetAttribute: the SM count of cudaGetDeviceProperties. */
static inline cudaError_t cudaDeviceGetAttribute(int *v, enum cudaDeviceAttr a, int d)
{
	cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, d);

	if (e != cudaSuccess)
		return e;
	if (a != cudaDevAttrMultiProcessorCount)
		return gpx_emu_err(cudaErrorInvalidValue);
	*v = p.multiProcessorCount;
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
	gpx_emu_drain_all();		/* cudaFree waits for the device */
	m = (char *) p - 256;
	gpx_emu().mem_used[((size_t *) m)[1]] -= ((size_t *) m)[0];
	free(m);
	return cudaSuccess;
}
/* Emulated cudaHostAlloc (pinned: copies from it are not staged). */
static inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags)
{
	(void) flags;
	*p = aligned_alloc(4096, ((n + 4095) / 4096) * 4096);
	if (*p == NULL)
		return gpx_emu_err(cudaErrorMemoryAllocation);
	gpx_emu().pinned.push_back(std::make_pair((char *) *p, n));
	return cudaSuccess;
}
/* Emulated cudaFreeHost (waits for the device first). */
static inline cudaError_t cudaFreeHost(void *p)
{
	auto	   &v = gpx_emu().pinned;

	gpx_emu_drain_all();
	for (size_t i = 0; i < v.size(); i++)
		if (v[i].first == (char *) p)
			v.erase(v.begin() + (long) i);
	free(p);
	return cudaSuccess;
}
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

	gpx_emu_drain_all();
	for (size_t i = 0; i < v.size(); i++)
		if (v[i].first == (char *) p)
		{
			v.erase(v.begin() + i);
			return cudaSuccess;
		}
	return gpx_emu_err(cudaErrorInvalidValue);
}
/* ---------------------------------------------------------- streams -- */

/* Whether the front operation of s can run (a wait: its record ran). */
static inline bool
gpx_emu_ready(gpx_emu_stream *s)
{
	const gpx_emu_op &op = s->q[s->qhead];

	return op.kind != GPX_EMU_OP_WAIT || op.ev->done >= op.gen;
}

/* Run the front operation of s. */
static inline void
gpx_emu_step(gpx_emu_stream *s)
{
	gpx_emu_state &S = gpx_emu();
	gpx_emu_op	op = s->q[s->qhead];
	gpx_emu_stream *was = S.running;

	s->qhead++;
	if (s->qhead == s->q.size())
	{
		s->q.clear();
		s->qhead = 0;
	}
	if (op.kind == GPX_EMU_OP_RUN)
	{
		S.running = s;
		op.fn();
		S.running = was;
	}
	else if (op.kind == GPX_EMU_OP_RECORD)
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		op.ev->t = ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
		if (op.ev->done < op.gen)
			op.ev->done = op.gen;
	}
}

/* Run one operation of a stream picked at random among those that can; false if none can. */
static inline bool
gpx_emu_step_any(void)
{
	gpx_emu_state &S = gpx_emu();
	std::vector<gpx_emu_stream *> can;

	for (gpx_emu_stream *s : S.streams)
		if (s->qhead < s->q.size() && gpx_emu_ready(s))
			can.push_back(s);
	if (can.empty())
		return false;
	S.rng = S.rng * 6364136223846793005ull + 1442695040888963407ull;
	gpx_emu_step(can[(S.rng >> 33) % can.size()]);
	return true;
}

/* Run queued operations until done() holds; a stream waiting forever aborts. */
template <typename P>
static inline void
gpx_emu_drain_until(P done)
{
	while (!done())
		if (!gpx_emu_step_any())
		{
			fprintf(stderr, "gpx_emu: deadlock: streams wait for events never recorded\n");
			abort();
		}
}

/* Run everything queued on every stream. */
static inline void
gpx_emu_drain_all(void)
{
	gpx_emu_drain_until([]() {
		for (gpx_emu_stream *s : gpx_emu().streams)
			if (s->qhead < s->q.size())
				return false;
		return true;
	});
}

/*
 * Queue an operation on st: captured when st is being captured, run now
 * when st is NULL (the legacy stream), inside an operation of st itself,
 * or with GPX_EMU_SYNC.
 */
static inline void
gpx_emu_push(cudaStream_t st, const gpx_emu_op &op)
{
	gpx_emu_state &S = gpx_emu();

	if (st != NULL && st->capture != NULL)
	{
		st->capture->ops.push_back(op);
		return;
	}
	if (st == NULL || S.sync || S.running == st)
	{
		gpx_emu_stream tmp;

		if (op.kind == GPX_EMU_OP_WAIT)
		{
			/* a synchronous wait: run the other streams until it holds */
			gpx_emu_drain_until([&]() { return op.ev->done >= op.gen; });
			return;
		}
		tmp.dev = 0;
		tmp.qhead = 0;
		tmp.capture = NULL;
		tmp.q.push_back(op);
		gpx_emu_step(&tmp);
		return;
	}
	st->q.push_back(op);
}

static inline void
gpx_emu_enqueue(cudaStream_t st, uintptr_t tag, std::function<void()> fn)
{
	gpx_emu_op	op;

	op.kind = GPX_EMU_OP_RUN;
	op.fn = std::move(fn);
	op.tag = tag;
	op.ev = NULL;
	op.gen = 0;
	gpx_emu_push(st, op);
}

/*
 * Queue host code as one operation of stream st (tag: its node kind in a
 * graph); the CUDA calls it makes on st run at once, inside it.
 */
static inline cudaError_t
gpx_emu_task(cudaStream_t st, uintptr_t tag, std::function<void()> fn)
{
	gpx_emu_enqueue(st, tag ^ 0x7A5C000000000000ull, std::move(fn));
	return cudaSuccess;
}

/* Whether [p, p + n) lies in memory CUDA pinned (cudaHostAlloc, cudaHostRegister). */
static inline bool
gpx_emu_is_pinned(const void *p, size_t n)
{
	const char *c = (const char *) p;

	for (auto &r : gpx_emu().pinned)
		if (c >= r.first && c + n <= r.first + r.second)
			return true;
	for (auto &r : gpx_emu_regs())
		if (c >= r.first && c + n <= r.first + r.second)
			return true;
	return false;
}

/* Emulated cudaMemcpy (synchronous, host memory). */
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k) { (void) k; if (n) memmove(d, s, n); return cudaSuccess; }
/*
 * Emulated cudaMemcpyAsync: queued on st; a host-to-device copy from
 * pageable memory reads its source now (CUDA stages it before returning),
 * and may not be captured.
 */
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st = 0)
{
	if (n == 0)
		return cudaSuccess;
	if (k == cudaMemcpyHostToDevice && !gpx_emu_is_pinned(s, n))
	{
		if (st != NULL && st->capture != NULL)
			return gpx_emu_err(cudaErrorStreamCaptureUnsupported);
		if (st != NULL && gpx_emu().running != st)
		{
			std::vector<char> copy((const char *) s, (const char *) s + n);

			gpx_emu_enqueue(st, 1, [=]() { memcpy(d, copy.data(), n); });
			return cudaSuccess;
		}
	}
	gpx_emu_enqueue(st, 1, [=]() { memmove(d, s, n); });
	return cudaSuccess;
}
/* Emulated cudaMemset (synchronous, host memory). */
static inline cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return cudaSuccess; }
/* Emulated cudaMemsetAsync (queued on st). */
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st = 0)
{
	gpx_emu_enqueue(st, 2, [=]() { memset(d, v, n); });
	return cudaSuccess;
}
/* Emulated cudaStreamCreateWithFlags (a queue of its own). */
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned f)
{
	(void) f;
	*s = new gpx_emu_stream;
	(*s)->dev = gpx_emu().curdev;
	(*s)->qhead = 0;
	(*s)->capture = NULL;
	gpx_emu().streams.push_back(*s);
	return cudaSuccess;
}
/* Emulated cudaStreamDestroy (runs what is queued first). */
static inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
	auto	   &v = gpx_emu().streams;

	gpx_emu_drain_until([s]() { return s->qhead >= s->q.size(); });
	for (size_t i = 0; i < v.size(); i++)
		if (v[i] == s)
			v.erase(v.begin() + (long) i);
	delete s->capture;
	delete s;
	return cudaSuccess;
}
/* Emulated cudaStreamSynchronize: run until s has nothing queued. */
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
	if (s == NULL)
		gpx_emu_drain_all();
	else
		gpx_emu_drain_until([s]() { return s->qhead >= s->q.size(); });
	return cudaSuccess;
}
/* Emulated cudaStreamWaitEvent: s waits for e's last record issued so far. */
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned f = 0)
{
	gpx_emu_op	op;

	(void) f;
	if (s != NULL && s->capture != NULL)
		return gpx_emu_err(cudaErrorStreamCaptureUnsupported);	/* not used captured */
	if (e->rec == 0)
		return cudaSuccess;		/* never recorded: nothing to wait for */
	op.kind = GPX_EMU_OP_WAIT;
	op.tag = 0;
	op.ev = e;
	op.gen = e->rec;
	gpx_emu_push(s, op);
	return cudaSuccess;
}
/* Emulated cudaEventCreateWithFlags. */
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned f) { (void) f; *e = new gpx_emu_event{0, 0, 0}; return cudaSuccess; }
/* Emulated cudaEventCreate. */
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
/* Emulated cudaEventDestroy (its records run first). */
static inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
	gpx_emu_drain_until([e]() { return e->done >= e->rec; });
	delete e;
	return cudaSuccess;
}
/* Emulated cudaEventRecord: a record queued on s. */
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0)
{
	gpx_emu_op	op;

	if (s != NULL && s->capture != NULL)
		return gpx_emu_err(cudaErrorStreamCaptureUnsupported);	/* not used captured */
	op.kind = GPX_EMU_OP_RECORD;
	op.tag = 0;
	op.ev = e;
	op.gen = ++e->rec;
	gpx_emu_push(s, op);
	return cudaSuccess;
}
/* Emulated cudaEventSynchronize: run until e's last record ran. */
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
	gpx_emu_drain_until([e]() { return e->done >= e->rec; });
	return cudaSuccess;
}
/* Emulated cudaEventQuery: run a few queued operations, then say. */
static inline cudaError_t cudaEventQuery(cudaEvent_t e)
{
	gpx_emu_state &S = gpx_emu();

	S.rng = S.rng * 6364136223846793005ull + 1442695040888963407ull;
	for (uint64_t i = (S.rng >> 40) % 3; i > 0; i--)
		(void) gpx_emu_step_any();
	return e->done >= e->rec ? cudaSuccess : cudaErrorNotReady;
}
/* Emulated cudaEventElapsedTime (between the last records that ran). */
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) { *ms = (float) (b->t - a->t); return cudaSuccess; }
/* Emulated cudaDeviceSynchronize: run everything queued. */
static inline cudaError_t cudaDeviceSynchronize(void) { gpx_emu_drain_all(); return cudaSuccess; }

/* ----------------------------------------------------------- graphs -- */

/* Emulated cudaStreamBeginCapture: what s gets is recorded, not queued. */
static inline cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode mode)
{
	(void) mode;
	if (s == NULL || s->capture != NULL)
		return gpx_emu_err(cudaErrorInvalidValue);
	s->capture = new gpx_emu_graph;
	return cudaSuccess;
}
/* Emulated cudaStreamEndCapture: the recorded graph. */
static inline cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g)
{
	*g = NULL;
	if (s == NULL || s->capture == NULL)
		return gpx_emu_err(cudaErrorInvalidValue);
	*g = s->capture;
	s->capture = NULL;
	return cudaSuccess;
}
/* Emulated cudaGraphInstantiate: a copy of the graph's operations. */
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *x, cudaGraph_t g, unsigned long long flags = 0)
{
	(void) flags;
	*x = new gpx_emu_graph(*g);
	return cudaSuccess;
}
/*
 * Emulated cudaGraphExecUpdate: takes g's operations when they are of the
 * same kinds and kernels, in the same order (CUDA's topology rule).
 */
static inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info)
{
	bool		same = x->ops.size() == g->ops.size();

	for (size_t i = 0; same && i < g->ops.size(); i++)
		same = x->ops[i].kind == g->ops[i].kind && x->ops[i].tag == g->ops[i].tag;
	if (info != NULL)
		info->result = same ? 0 : 1;
	if (!same)
		return gpx_emu_err(cudaErrorGraphExecUpdateFailure);
	x->ops = g->ops;
	return cudaSuccess;
}
/* Emulated cudaGraphLaunch: its operations queued on s, in order. */
static inline cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s)
{
	for (const gpx_emu_op &op : x->ops)
		gpx_emu_push(s, op);
	return cudaSuccess;
}
/* Emulated cudaGraphDestroy. */
static inline cudaError_t cudaGraphDestroy(cudaGraph_t g) { delete g; return cudaSuccess; }
/* Emulated cudaGraphExecDestroy. */
static inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) { delete x; return cudaSuccess; }

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
