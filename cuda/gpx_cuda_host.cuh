/*
 * gpx_cuda_host.cuh - the host-side state of the CUDA back end, shared by
 * its files: the context (devices, pinned ranges, the batches in flight,
 * the last error), each device (list cache, a ring of chunk slots, limits,
 * counters), each chunk slot (stream, staging buffer, device arrays,
 * events, the chunk being built or in flight) and each batch run.
 * gpx_cuda_setup.cu makes and frees them; gpx_cuda.cu runs batches
 * through them.
 *
 * Per device: a list cache (gpx_cuda_cache.cuh) and a ring of chunk slots
 * (gpx_cuda_options.slots, 2 by default), each with its own stream, a
 * pinned staging buffer (lists to upload plus the chunk's descriptors, one
 * host-to-device copy), candidate/flag/scan arrays, and pinned *mapped*
 * result and count areas that the kernels write directly.  Chunks are
 * issued into the ring in order and collected in the same order; on the
 * GPU the chunks of different slots run side by side, ordered only where
 * one uses a list that another one uploads.
 */
#ifndef GPX_CUDA_HOST_CUH
#define GPX_CUDA_HOST_CUH

#include <stdio.h>
#include <vector>

#include "gpx_cuda.h"
#include "gpx_cuda_cache.cuh"
#include "gpx_cuda_dev.cuh"

constexpr size_t GPX_MIB = (size_t) 1 << 20;
constexpr uint32_t GPX_NONE = 0xFFFFFFFFu;

/* x rounded up to a multiple of a. */
inline size_t
gpx_al(size_t x, size_t a)
{
	return (x + a - 1) / a * a;
}

/*
 * The padding every blob has on a device: its bytes are followed by zero
 * bytes up to the next multiple of GPX_BLOB_PAD from its start.  The
 * kernels read a payload by whole aligned 32-bit words, and a version 2
 * list of one block ends at any byte (it has no padding), so the word
 * holding its last byte reaches up to 3 bytes past the blob.  Those bytes
 * lie inside the blob's span (gpx_blob_span: cache footprints, staging
 * and scratch are at least that large) and are written before a kernel
 * runs (staged as zeros; zeroed before a direct or scratch copy, see
 * gpx_blob_pad_unit), so that compute-sanitizer's memcheck and initcheck
 * see no read of memory that was not allocated or not written.
 */
constexpr size_t GPX_BLOB_PAD = 16;

/* Device bytes a blob of len bytes spans: len rounded up to GPX_BLOB_PAD. */
inline size_t
gpx_blob_span(size_t len)
{
	return gpx_al(len, GPX_BLOB_PAD);
}

/*
 * Offset of the GPX_BLOB_PAD-byte unit holding a blob's last byte (len >=
 * 1: every blob has its tag): zeroing that unit before copying the blob
 * leaves its padding zero and writes nothing past its span.
 */
inline size_t
gpx_blob_pad_unit(size_t len)
{
	return (len - 1) & ~(GPX_BLOB_PAD - 1);
}

/* Host bookkeeping of one piece of a chunk. */
struct gpx_hpiece
{
	uint32_t	plan;			/* index in the run's plan */
	uint32_t	res_off;		/* staging offset (GPX_NONE: written direct) */
	bool		last;			/* the query's last piece */
};

/* A host-to-device copy that bypasses the staging buffer. */
struct gpx_direct
{
	const void *src;
	void	   *dst;
	size_t		len;
	bool		pinned;			/* src lies in memory gpx_cuda_pin registered */
};

struct gpx_run;

/* An instantiated graph of a slot's chunks, for chunks of one shape. */
struct gpx_gexec
{
	uint64_t	shape;			/* what the chunk issues (gpx_issue) */
	cudaGraphExec_t exec;
	uint64_t	used;			/* last use, for replacement */
};

/* One of the chunk slots of a device. */
struct gpx_slot
{
	cudaStream_t st = nullptr;	/* its chunks' copies and kernels */
	uint8_t    *h_stage = nullptr;	/* pinned, write-combined */
	uint8_t    *d_stage = nullptr;
	size_t		stage_cap = 0;
	size_t		blob_cap = 0;	/* staging bytes usable for blobs */
	uint32_t   *d_cand = nullptr,
			   *d_cpiece = nullptr,
			   *d_flag = nullptr,
			   *d_pos = nullptr;
	void	   *d_tmp = nullptr;
	size_t		tmp_bytes = 0;
	uint32_t   *h_res = nullptr,
			   *d_res = nullptr;	/* mapped: results of staged pieces */
	uint32_t   *h_cnt = nullptr,
			   *d_cnt = nullptr;	/* mapped: match count per piece */
	cudaEvent_t ev_t0 = nullptr,
				ev_in = nullptr,
				ev_c0 = nullptr,
				ev_done = nullptr;
	bool		busy = false;
	uint64_t	seq = 0;
	std::vector<gpx_gexec *> graphs;	/* instantiated graphs of its chunks,
										 * by shape */

	/* the chunk being built or in flight */
	gpx_run    *run = nullptr;	/* the batch it belongs to */
	std::vector<gpx_dl> dls;
	std::vector<gpx_centry *> dl_ent;
	std::vector<gpx_dpiece> pieces;
	std::vector<gpx_hpiece> hp;
	std::vector<uint32_t> olist;
	uint32_t	nwork = 0;		/* source blocks (one warp each) */
	std::vector<gpx_dupload> ups;
	std::vector<gpx_dl> tbls;
	std::vector<gpx_direct> directs;
	std::vector<gpx_centry *> transients;
	std::vector<gpx_centry *> fresh;	/* entries created for this chunk */
	std::vector<gpx_slot *> deps;	/* slots whose chunks upload lists it uses */
	uint32_t	tbl_max = 0;
	uint32_t	skip_max = 0;	/* largest nblocks among the skip builds */
	size_t		blob_used = 0;
	uint32_t	ncand = 0;
	uint32_t	res_used = 0;
	uint64_t	bytes_in = 0;
};

/* Per-device state. */
struct gpx_dev
{
	int			ord = 0;
	char		name[256] = "";
	size_t		total_mem = 0;
	int			sms = 0;
	int			cc_major = 0,	/* compute capability */
				cc_minor = 0;
	cudaStream_t s_comp = nullptr;	/* set-up, decode */
	gpx_cache	cache;
	std::vector<gpx_slot> slot;	/* the ring */
	int			head = 0;		/* next slot to fill */
	int			tail = 0;		/* oldest chunk in flight */
	int			nbusy = 0;		/* chunks in flight */
	uint64_t	seq_issued = 0,
				seq_done = 0;	/* every chunk up to it is collected */
	uint32_t	cand_cap = 0,
				max_pieces = 0,
				max_lists = 0,
				max_olist = 0,
				max_work = 0,
				max_ups = 0;
	uint64_t	chunks = 0,
				directs = 0,
				splits = 0,
				waits = 0,		/* cross-slot waits for uploads */
				graph_launches = 0,
				graph_builds = 0;	/* instantiations (not updates) */
	uint8_t    *d_scr_in = nullptr;
	size_t		scr_in_cap = 0;
	uint32_t   *d_scr_out = nullptr;
	size_t		scr_out_cap = 0;
	uint8_t    *d_un = nullptr;	/* union chunks' buffer (gpx_union_run.cu) */
	size_t		un_cap = 0;
	uint64_t	un_chunks = 0,	/* union chunks run, and their queries */
				un_queries = 0;
	/* ranked retrieval: the document lengths of the last batch whose
	 * statistics had an id (gpx_rank_batch.doclen_id), kept for the next */
	uint8_t    *d_rk_dl = nullptr;
	size_t		rk_dl_bytes = 0;
	uint64_t	rk_dl_id = 0;
	/* ranked retrieval's streams, scratch (device, and pinned host memory
	 * for the copies in and out, kept between calls) and runs in flight
	 * (gpx_rank_run.cu) */
	struct gpx_rk_state *rk = nullptr;
};

/* A batch's queries on one device, and how far they are issued. */
struct gpx_rdev
{
	std::vector<uint32_t> assigned;	/* plan indices */
	size_t		qpos = 0;
	uint32_t	qblk = GPX_NONE;	/* the next piece of a split query */
};

/* One batch, from submission until it is handed back. */
struct gpx_run
{
	gpx_batch  *b = nullptr;
	gpx_cuda_job *job = nullptr;
	std::vector<gpx_cuda_qplan> plan;
	std::vector<uint32_t> olist;	/* batch list indices */
	std::vector<gpx_cuda_skey> keys;	/* planner scratch */
	std::vector<gpx_rdev> dv;	/* per device */
	uint32_t	inflight = 0;	/* its chunks issued, not collected */
	bool		failed = false;	/* status, err say why; nothing more issued */
	bool		done = false;
	gpx_cuda_status status = GPX_CUDA_OK;
	char		err[256] = "";
	uint64_t	candidates = 0,
				results = 0,
				bytes_in = 0,
				hits0 = 0,		/* cache counters at submission */
				misses0 = 0;
	double		transfer_ms = 0,
				compute_ms = 0;
};

/* A range registered with gpx_cuda_pin(). */
struct gpx_pin
{
	uint8_t    *p;
	size_t		len;
	bool		mapped;
	bool		owned;			/* registered by us: unregister at close */
	uint8_t    *dev;			/* device address of p when mapped */
};

/* The context: devices, pinned ranges, batches in flight, the last error. */
struct gpx_cuda_ctx
{
	std::vector<gpx_dev *> devs;
	std::vector<gpx_pin> pins;
	std::vector<gpx_run *> runs;	/* submitted, not done: issue order */
	std::vector<gpx_run *> done;	/* done, not handed back */
	char		err[512] = "";
	bool		broken = false;
	bool		timing = true;	/* record timing events (gpx_cuda_options) */
	bool		graphs = false; /* chunks as graph launches (gpx_cuda_options) */
	int			nslots = 2;		/* chunk slots per device */
	uint64_t	batches = 0;
	uint64_t	max_runs = 0;	/* most batches in flight at once */
	int			rank_streams = 1;	/* ranked runs side by side (gpx_cuda_rank_streams) */
	uint64_t	rank_runs = 0;	/* ranked batches run (gpx_cuda_rank_run) */
	uint64_t	rank_queries = 0;	/* their queries */
	int			rank_max_side = 0;	/* most ranked runs in flight at once */
	double		prof[5] = {0, 0, 0, 0, 0};	/* host ms: plan, build, issue, wait, collect */
};

/* The pinned range holding [p, p + len), or NULL. */
inline const gpx_pin *
gpx_find_pin(const gpx_cuda_ctx *ctx, const void *p, size_t len)
{
	const uint8_t *a = (const uint8_t *) p;

	for (const gpx_pin &pin : ctx->pins)
		if (a >= pin.p && len <= pin.len && (size_t) (a - pin.p) <= pin.len - len)
			return &pin;
	return nullptr;
}

/* Record a CUDA failure in ctx; returns the matching status. */
inline gpx_cuda_status
gpx_fail(gpx_cuda_ctx *ctx, cudaError_t e, const char *what)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s: %s", what, cudaGetErrorString(e));
	return e == cudaErrorMemoryAllocation ? GPX_CUDA_OOM : GPX_CUDA_ERROR;
}

/* Record a message in ctx; returns st. */
inline gpx_cuda_status
gpx_msg(gpx_cuda_ctx *ctx, gpx_cuda_status st, const char *msg)
{
	snprintf(ctx->err, sizeof(ctx->err), "%s", msg);
	return st;
}

/* Return from the calling function with gpx_fail's status if expr fails. */
#define GPX_TRY(expr) \
	do { \
		cudaError_t e_ = (expr); \
		if (e_ != cudaSuccess) \
			return gpx_fail(ctx, e_, #expr); \
	} while (0)

/*
 * Finish every batch submitted (gpx_cuda_submit) and not done yet: its
 * chunks issued, run and collected, its job then waiting in the done list
 * for gpx_cuda_reap.  Afterwards no chunk is in flight on any device (so
 * every cached list is complete and evictable): the synchronous drivers
 * (gpx_union_run.cu) call it first.  May throw (as the pipeline does).
 */
gpx_cuda_status gpx_pipeline_finish(gpx_cuda_ctx *ctx);

/*
 * Wait for every ranked run started (gpx_cuda_rank_start) and not ended,
 * and end it (answers in its batch, its ticket done): every other entry
 * point of the back end calls it first, so that a ranked run in flight
 * never meets the pipeline's chunks or a synchronous driver on the
 * device list cache (gpx_rank_run.cu).  Never throws.
 */
void		gpx_rk_drain(gpx_cuda_ctx *ctx);

/* Release what the ranked driver holds on d (its runs ended). */
void		gpx_rk_free(gpx_dev *d);

/* ---- device set-up (gpx_cuda_setup.cu) ---- */

/*
 * Open the devices opt names (default: device 0) into ctx->devs; on
 * failure ctx->err says why in plain words ("no NVIDIA driver found",
 * "no GPU", or the CUDA error).  The caller closes ctx either way.
 */
gpx_cuda_status gpx_setup_open(gpx_cuda_ctx *ctx, const gpx_cuda_options *opt);

/* Release every device of ctx (waits for their work first). */
void		gpx_setup_close(gpx_cuda_ctx *ctx);

/*
 * N CUDA events of one synchronous call (its phase times: ranked
 * retrieval, unions), destroyed when it returns.
 */
template <int N>
struct gpx_call_events
{
	cudaEvent_t ev[N] = {};
	bool		on = false;

	/* Create them; false (timing off) when that fails. */
	bool		create()
	{
		for (cudaEvent_t &e : ev)
			if (cudaEventCreate(&e) != cudaSuccess)
				return false;
		on = true;
		return true;
	}
	/* Record event i on st when timing. */
	cudaError_t record(int i, cudaStream_t st)
	{
		return on ? cudaEventRecord(ev[i], st) : cudaSuccess;
	}
	/* Milliseconds from event a to event b (0 when not timing). */
	double		ms(int a, int b)
	{
		float		x = 0;

		if (on && cudaEventElapsedTime(&x, ev[a], ev[b]) == cudaSuccess)
			return x;
		return 0;
	}
	/* Destroy them. */
	~gpx_call_events()
	{
		for (cudaEvent_t e : ev)
			if (e != nullptr)
				(void) cudaEventDestroy(e);
	}
};

#endif							/* GPX_CUDA_HOST_CUH */
