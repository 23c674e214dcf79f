/*
 * gpx_cuda_union.h - the extern "C" host API of batched union on the GPU:
 * every query of a gpx_batch whose op is GPX_BATCH_UNION (src/codec/
 * gpx_batch.h), its lists decoded on the device and merged there
 * (cuda/gpx_union.cu), with answers equal to the CPU's (gpx_batch_pool_run,
 * gpx_union_many) bit for bit: the same statuses, counts and docIDs.  A
 * query flagged GPX_BQ_COUNT gets only its size; nothing of it is written.
 *
 * The lists go through the device list cache by key, as the intersection
 * pipeline's do (a list cached there is not copied again; a list this
 * call copies stays cached for later calls of either kind); lists without
 * a key, or that the cache cannot take, are copied for the call alone.
 * Results go straight into the caller's out area when it lies in memory
 * registered with gpx_cuda_pin (mapped), else through one copy back.
 * Queries are run in chunks of at most gpx_cuda_union_chunk_slots()
 * postings (a query larger than that is a chunk of its own), so that a
 * batch of any size fits the device.
 *
 * Same rules as gpx_cuda.h: one thread at a time, nothing thrown or
 * printed, a gpx_cuda_status with the message in the context's error
 * buffer.  It runs synchronously on the first device, after finishing the
 * intersection batches in flight (their jobs then wait for gpx_cuda_reap).
 * Built without nvcc, cuda/gpx_cuda_none.c answers GPX_CUDA_UNAVAILABLE.
 */
#ifndef GPX_CUDA_UNION_H
#define GPX_CUDA_UNION_H

#include "gpx_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one gpx_cuda_union_run did. */
typedef struct gpx_cuda_union_stats
{
	uint64_t	queries;		/* queries merged on the device (not the
								 * empty ones, settled on the host) */
	uint64_t	lists;			/* lists placed for a chunk (a list a
								 * chunk's queries share counts once) */
	uint64_t	postings;		/* docIDs decoded and merged */
	uint64_t	results;		/* docIDs of the unions (counted ones
								 * included) */
	uint64_t	bytes_in;		/* host-to-device bytes */
	uint64_t	bytes_out;		/* device-to-host bytes (results sent
								 * into mapped memory not included) */
	uint64_t	cache_hits;		/* lists found in the device list cache */
	uint64_t	cache_misses;	/* lists copied to the device */
	uint32_t	chunks;			/* device rounds the queries took */
	uint32_t	merge_rounds;	/* most merge rounds of a chunk:
								 * ceil(log2(most lists of a query)) */
	double		decode_ms;		/* device time: copies in, list decode */
	double		merge_ms;		/* device time: merges, duplicates out,
								 * results written */
} gpx_cuda_union_stats;

/*
 * Run every query of b (op GPX_BATCH_UNION) on the first device: each
 * query's status, out_count and results as gpx_batch_pool_run sets them
 * (GPX_E_ARG for a bad descriptor, GPX_E_NOSPACE for a union larger than
 * out_capacity).  On a status other than GPX_CUDA_OK no result is to be
 * used; GPX_CUDA_BAD_INPUT: a batch or list the kernels cannot take (also
 * a query of more than 2^32 - 2 postings); GPX_CUDA_OOM: the device
 * memory for a chunk could not be had.  stats may be NULL.
 */
gpx_cuda_status gpx_cuda_union_run(gpx_cuda_ctx *ctx, gpx_batch *b,
								   gpx_cuda_union_stats *stats);

/*
 * Postings (12 bytes of device memory each, besides the lists) that one
 * chunk may hold; a chunk holds at least one query.  0 restores the
 * default (2^26).  Process-wide; for tests and benchmarks.
 */
void		gpx_cuda_union_chunk_slots(uint64_t slots);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_CUDA_UNION_H */
