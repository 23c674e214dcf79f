/*
 * gpx_cuda.h - the extern "C" host API of the CUDA back end.
 *
 * One thread at a time calls these (the executor's main thread).  Nothing
 * here throws or prints: every call returns a gpx_cuda_status, with a
 * message in the context's error buffer.
 *
 * Two ways to run batches: gpx_cuda_run_batch returns when the batch is
 * done; gpx_cuda_submit queues it and returns at once, so that several
 * batches are in flight (their chunks run on the devices' streams while
 * the caller builds the next one), and gpx_cuda_reap hands back each job
 * as it finishes.  When the extension is built without nvcc,
 * cuda/gpx_cuda_none.c provides the same functions returning
 * GPX_CUDA_UNAVAILABLE, so the rest of the code needs no #ifdef.
 */
#ifndef GPX_CUDA_H
#define GPX_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include "gpx_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gpx_cuda_status
{
	GPX_CUDA_OK = 0,
	GPX_CUDA_UNAVAILABLE,		/* built without CUDA */
	GPX_CUDA_NO_DRIVER,			/* no usable NVIDIA driver */
	GPX_CUDA_NO_DEVICE,			/* no (or no such) GPU */
	GPX_CUDA_OOM,				/* device or pinned memory exhausted */
	GPX_CUDA_BAD_INPUT,			/* a list the kernels cannot take */
	GPX_CUDA_ERROR				/* any other CUDA error */
} gpx_cuda_status;

typedef struct gpx_cuda_ctx gpx_cuda_ctx;

/* Options for opening the back end. */
typedef struct gpx_cuda_options
{
	const int  *devices;		/* GPU ordinals to use; NULL = device 0 */
	int			ndevices;
	size_t		cache_bytes;	/* per-device budget of the list cache */
	size_t		batch_bytes;	/* per-device staging buffer size */
	bool		no_timing;		/* leave gpx_batch_stats' compute_ms and
								 * transfer_ms at 0: no timing events (they
								 * cost a few us per chunk) */
	int			slots;			/* chunk slots per device, each with its own
								 * stream and staging buffer: how many
								 * chunks (of one batch or of several) run
								 * or wait on a device at once; 0 = 2,
								 * at most GPX_CUDA_MAX_SLOTS */
	bool		graphs;			/* send each chunk as one CUDA graph
								 * launch (captured, then updated in place)
								 * instead of its copies and kernels one by
								 * one */
} gpx_cuda_options;

/* Most chunk slots a device may have. */
#define GPX_CUDA_MAX_SLOTS 8

/*
 * A batch run asynchronously (gpx_cuda_submit).  The caller owns the job
 * and the batch with everything it points to until gpx_cuda_reap hands the
 * job back; the back end fills stats and status (GPX_CUDA_OK, or why the
 * batch failed: its queries' results are then not to be used) and, on
 * failure, err.
 */
typedef struct gpx_cuda_job
{
	gpx_batch  *b;
	void	   *user;			/* the caller's */
	gpx_batch_stats stats;
	gpx_cuda_status status;
	char		err[256];
	void	   *priv;			/* the back end's */
} gpx_cuda_job;

/* Human-readable text of a status (inline: shared by both builds). */
static inline const char *
gpx_cuda_status_str(gpx_cuda_status st)
{
	switch (st)
	{
		case GPX_CUDA_OK:
			return "ok";
		case GPX_CUDA_UNAVAILABLE:
			return "built without cuda";
		case GPX_CUDA_NO_DRIVER:
			return "no usable nvidia driver";
		case GPX_CUDA_NO_DEVICE:
			return "no gpu";
		case GPX_CUDA_OOM:
			return "out of gpu or pinned memory";
		case GPX_CUDA_BAD_INPUT:
			return "list not supported by the gpu kernels";
		case GPX_CUDA_ERROR:
			return "cuda error";
	}
	return "unknown cuda status";
}

/* True when the library was built with CUDA. */
int			gpx_cuda_compiled(void);

/* Initialise CUDA on the given devices; *ctx is NULL on failure. */
gpx_cuda_status gpx_cuda_open(const gpx_cuda_options *opt, gpx_cuda_ctx **ctx,
							  char *err, size_t errlen);

/* Release every device resource. */
void		gpx_cuda_close(gpx_cuda_ctx *ctx);

/* Pin a host range (the shared arena) for DMA; harmless if it fails. */
gpx_cuda_status gpx_cuda_pin(gpx_cuda_ctx *ctx, void *ptr, size_t len);

/* Run a whole batch of intersections on the GPU(s). */
gpx_cuda_status gpx_cuda_run_batch(gpx_cuda_ctx *ctx, gpx_batch *b,
								   gpx_batch_stats *stats);

/*
 * Queue batch b as job and return: its queries are planned now and its
 * chunks issued as the devices' slots free up, after the chunks of the
 * batches submitted before it.  A status other than GPX_CUDA_OK means the
 * job was not queued (ctx unusable, bad descriptor); failures of the batch
 * itself come back through the job.
 */
gpx_cuda_status gpx_cuda_submit(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_job *job);

/*
 * Make progress (collect the chunks the devices finished, issue more) and
 * return a finished job, or NULL.  wait: block until one finishes (NULL
 * only when none is pending).  Jobs may finish in any order.
 */
gpx_cuda_job *gpx_cuda_reap(gpx_cuda_ctx *ctx, bool wait);

/* Jobs submitted and not yet handed back by gpx_cuda_reap. */
int			gpx_cuda_pending(const gpx_cuda_ctx *ctx);

/*
 * Stop: wait for the chunks the devices run, issue nothing more, finish
 * every pending job (those not done with GPX_CUDA_ERROR, "cancelled").
 * Afterwards nothing of the back end touches any batch; gpx_cuda_reap
 * still hands the jobs back.
 */
void		gpx_cuda_cancel(gpx_cuda_ctx *ctx);

/* Decode one list on the GPU into out[0..n) (tests and benchmarks). */
gpx_cuda_status gpx_cuda_decode(gpx_cuda_ctx *ctx, const gpx_list *l,
								uint32_t *out);

/* True if the device cache holds a list with this key. */
int			gpx_cuda_cache_has(gpx_cuda_ctx *ctx, gpx_key key);

/* A one-line description: devices, memory, cache use and hit rate. */
void		gpx_cuda_describe(gpx_cuda_ctx *ctx, char *buf, size_t len);

/* The last error message of ctx. */
const char *gpx_cuda_last_error(gpx_cuda_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CUDA_H */
