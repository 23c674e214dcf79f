/*
 * gpx_cuda_none.c - the CUDA back end API (cuda/gpx_cuda.h,
 * gpx_cuda_rank.h, gpx_cuda_union.h) for builds without nvcc: every entry
 * point reports GPX_CUDA_UNAVAILABLE, so the executor runs its batches on
 * CPU threads and says why in gpuidx_info().
 * The Makefile builds it instead of the .cu files when there is no nvcc.
 */
#include <stdio.h>
#include <string.h>

#include "gpx_cuda.h"
#include "gpx_cuda_rank.h"
#include "gpx_cuda_union.h"

/* False: this build has no CUDA. */
int
gpx_cuda_compiled(void)
{
	return 0;
}

/* Always unavailable; *ctx is NULL and err says why. */
gpx_cuda_status
gpx_cuda_open(const gpx_cuda_options *opt, gpx_cuda_ctx **ctx, char *err,
			  size_t errlen)
{
	(void) opt;
	if (ctx != NULL)
		*ctx = NULL;
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "gpuidx was built without nvcc");
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing to release. */
void
gpx_cuda_close(gpx_cuda_ctx *ctx)
{
	(void) ctx;
}

/* Unavailable. */
gpx_cuda_status
gpx_cuda_pin(gpx_cuda_ctx *ctx, void *ptr, size_t len)
{
	(void) ctx;
	(void) ptr;
	(void) len;
	return GPX_CUDA_UNAVAILABLE;
}

/* Unavailable. */
gpx_cuda_status
gpx_cuda_run_batch(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_batch_stats *stats)
{
	(void) ctx;
	(void) b;
	(void) stats;
	return GPX_CUDA_UNAVAILABLE;
}

/* Unavailable: nothing is queued. */
gpx_cuda_status
gpx_cuda_submit(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_job *job)
{
	(void) ctx;
	(void) b;
	(void) job;
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing is ever pending. */
gpx_cuda_job *
gpx_cuda_reap(gpx_cuda_ctx *ctx, bool wait)
{
	(void) ctx;
	(void) wait;
	return NULL;
}

/* Nothing is ever pending. */
int
gpx_cuda_pending(const gpx_cuda_ctx *ctx)
{
	(void) ctx;
	return 0;
}

/* Nothing to stop. */
void
gpx_cuda_cancel(gpx_cuda_ctx *ctx)
{
	(void) ctx;
}

/* Unavailable. */
gpx_cuda_status
gpx_cuda_decode(gpx_cuda_ctx *ctx, const gpx_list *l, uint32_t *out)
{
	(void) ctx;
	(void) l;
	(void) out;
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing is cached. */
int
gpx_cuda_cache_has(gpx_cuda_ctx *ctx, gpx_key key)
{
	(void) ctx;
	(void) key;
	return 0;
}

/* Describes the absence of a GPU. */
void
gpx_cuda_describe(gpx_cuda_ctx *ctx, char *buf, size_t len)
{
	(void) ctx;
	if (buf != NULL && len > 0)
		snprintf(buf, len, "no gpu (built without cuda)");
}

/* The only error there is. */
const char *
gpx_cuda_last_error(gpx_cuda_ctx *ctx)
{
	(void) ctx;
	return "gpuidx was built without nvcc";
}

/* Unavailable. */
gpx_cuda_status
gpx_cuda_rank_run(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats)
{
	(void) ctx;
	(void) b;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing to set. */
void
gpx_cuda_rank_chunk_slots(uint64_t slots)
{
	(void) slots;
}

/* No GPU: nothing to copy. */
void
gpx_cuda_rank_direct_min(uint64_t bytes)
{
	(void) bytes;
}

/* No GPU: nothing to cut. */
void
gpx_cuda_rank_cut_min(uint64_t slots)
{
	(void) slots;
}

/* Unavailable. */
gpx_cuda_status
gpx_cuda_union_run(gpx_cuda_ctx *ctx, gpx_batch *b, gpx_cuda_union_stats *stats)
{
	(void) ctx;
	(void) b;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing to set. */
void
gpx_cuda_union_chunk_slots(uint64_t slots)
{
	(void) slots;
}

/* Unavailable: the ticket is done with that status. */
gpx_cuda_status
gpx_cuda_rank_start(gpx_cuda_ctx *ctx, gpx_rank_batch *b, gpx_cuda_rank_stats *stats,
					gpx_cuda_rank_ticket *tk)
{
	(void) ctx;
	(void) b;
	if (stats != NULL)
		memset(stats, 0, sizeof(*stats));
	if (tk != NULL)
	{
		tk->done = 1;
		tk->status = GPX_CUDA_UNAVAILABLE;
		snprintf(tk->err, sizeof(tk->err), "gpuidx was built without nvcc");
	}
	return GPX_CUDA_UNAVAILABLE;
}

/* Nothing is ever in flight. */
int
gpx_cuda_rank_progress(gpx_cuda_ctx *ctx, int wait)
{
	(void) ctx;
	(void) wait;
	return 0;
}

/* No stream to start on. */
int
gpx_cuda_rank_free(gpx_cuda_ctx *ctx)
{
	(void) ctx;
	return 0;
}

/* Nothing to set. */
void
gpx_cuda_rank_streams(gpx_cuda_ctx *ctx, int n)
{
	(void) ctx;
	(void) n;
}
