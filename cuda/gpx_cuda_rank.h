/*
 * gpx_cuda_rank.h - the extern "C" host API of ranked retrieval on the
 * GPU: a whole gpx_rank_batch (src/codec/gpx_rank_batch.h), AND and OR
 * queries, scored and selected on the device (cuda/gpx_rank.cu), with
 * answers equal to gpx_rank_batch_run's bit for bit: same docIDs, same
 * order, same scores.
 *
 * Same rules as gpx_cuda.h: one thread at a time, nothing thrown or
 * printed, a gpx_cuda_status with the message in the context's error
 * buffer.  Built without nvcc, cuda/gpx_cuda_none.c answers
 * GPX_CUDA_UNAVAILABLE.
 */
#ifndef GPX_CUDA_RANK_H
#define GPX_CUDA_RANK_H

#include "gpx_cuda.h"
#include "gpx_rank_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This API has the cut (gpx_cuda_rank_cut_min, the cut_* statistics). */
#define GPX_CUDA_RANK_CUT 1

/* What one gpx_cuda_rank_run did. */
typedef struct gpx_cuda_rank_stats
{
	uint64_t	lists;			/* lists decoded on the device */
	uint64_t	postings;		/* their postings */
	uint64_t	candidates;		/* candidate slots scored */
	uint64_t	results;		/* pairs returned */
	uint32_t	chunks;			/* device rounds the queries took */
	uint64_t	bytes_in;		/* host-to-device bytes */
	double		upload_ms;		/* device time: copies in, list decode */
	double		score_ms;		/* device time: scoring kernels */
	double		select_ms;		/* device time: cut and top-k kernels */
	uint64_t	cut_queries;	/* queries cut before their top-k */
	uint64_t	cut_tiles;		/* their tiles (thread-blocks of the cut) */
	uint64_t	direct_lists;	/* lists copied from pinned memory directly */
	uint64_t	cache_hits;		/* keyed lists the device list cache held
								 * (not copied) */
	uint64_t	cache_misses;	/* keyed lists copied into the cache */
} gpx_cuda_rank_stats;

/*
 * Run every query of b, a batch gpx_rank_batch_prepare accepted, on the
 * first device: each query's results, out_count and status (GPX_OK) as
 * gpx_rank_batch_run sets them.  b->or_algo is irrelevant (the GPU scores
 * every posting; the answer is the same).  On a status other than
 * GPX_CUDA_OK no result is to be used; GPX_CUDA_BAD_INPUT: a list the
 * kernels cannot take.  stats may be NULL.
 */
gpx_cuda_status gpx_cuda_rank_run(gpx_cuda_ctx *ctx, gpx_rank_batch *b,
								  gpx_cuda_rank_stats *stats);

/*
 * A ranked batch started by gpx_cuda_rank_start: done becomes 1 when its
 * run ended (gpx_cuda_rank_progress), status and err then say how; on
 * GPX_CUDA_OK the batch's answers are in it as gpx_cuda_rank_run leaves
 * them.  The caller keeps it (and the batch, and the stats) until done.
 */
typedef struct gpx_cuda_rank_ticket
{
	int			done;
	gpx_cuda_status status;
	char		err[256];
} gpx_cuda_rank_ticket;

/*
 * Start b (as gpx_cuda_rank_run) without waiting for it: its copies and
 * kernels are issued on one of the first device's rank streams
 * (gpx_cuda_rank_streams) and the call returns, so that up to that many
 * ranked batches run side by side.  A batch of more than one device
 * round runs to its end before the call returns.  Returns the start's
 * status: on GPX_CUDA_OK, *tk says when the run is done (at once or by
 * gpx_cuda_rank_progress); otherwise *tk is done with that status.  When
 * every stream is busy the oldest run is waited for first.  Every other
 * call of the back end (gpx_cuda_submit, gpx_cuda_rank_run, unions,
 * decode, cancel, close) first waits for the ranked runs in flight.
 */
gpx_cuda_status gpx_cuda_rank_start(gpx_cuda_ctx *ctx, gpx_rank_batch *b,
									gpx_cuda_rank_stats *stats,
									gpx_cuda_rank_ticket *tk);

/*
 * End the started runs that the device finished (wait: every one),
 * their tickets then done; returns how many are still in flight.
 */
int			gpx_cuda_rank_progress(gpx_cuda_ctx *ctx, int wait);

/* Rank streams free for gpx_cuda_rank_start to use without waiting. */
int			gpx_cuda_rank_free(gpx_cuda_ctx *ctx);

/*
 * How many ranked batches may run side by side (1 .. GPX_CUDA_RANK_MAX_STREAMS;
 * the default 1); takes effect for the next start.
 */
void		gpx_cuda_rank_streams(gpx_cuda_ctx *ctx, int n);

#define GPX_CUDA_RANK_MAX_STREAMS 4

/*
 * Candidate slots (12 bytes of device memory each: an AND query has one
 * per posting of its shortest list, an OR query one per posting of each
 * list) that one device round may hold; a round holds at least one query.
 * 0 restores the default (2^26).  Process-wide; for tests and benchmarks.
 */
void		gpx_cuda_rank_chunk_slots(uint64_t slots);

/*
 * Queries with more candidate slots than this are cut (many thread-blocks
 * keep only the candidates that can be in the top k) before the top-k
 * selection.  0 restores the default (4096); UINT64_MAX cuts none.
 * Process-wide; for tests and benchmarks.
 */
void		gpx_cuda_rank_cut_min(uint64_t slots);

/*
 * Blobs of at least this many bytes that lie in pinned memory
 * (gpx_cuda_pin) are copied to the device from there, not through the
 * driver's pinned scratch.  0 restores the default (16 KiB).
 * Process-wide; for tests and benchmarks.
 */
void		gpx_cuda_rank_direct_min(uint64_t bytes);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CUDA_RANK_H */
