/*
 * gpx_batch.h - a batch of intersection queries, as the executor hands it
 * to a compute back end (CPU threads: gpx_batch_cpu.c; GPU: cuda/).
 *
 * Pure C, no postgres.h: the executor's compute threads and the CUDA host
 * code use it, and neither may call PostgreSQL.  The executor fills the
 * descriptor from requests in the shared arena; the back end writes each
 * query's sorted result into out[q.out_offset ..] and sets q.out_count.
 *
 * Ownership: every pointer belongs to the caller and stays valid for the
 * duration of the run call; the back end allocates nothing it does not
 * free before returning (the GPU back end keeps its own device buffers and
 * cache between calls).
 */
#ifndef GPX_BATCH_H
#define GPX_BATCH_H

#include "gpx_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One query: lists[first_list .. first_list + nlists) of the batch. */
typedef struct gpx_batch_query
{
	uint32_t	first_list;		/* index of its first list in batch->lists */
	uint32_t	nlists;			/* number of lists (>= 1) */
	uint64_t	out_offset;		/* where its result starts in batch->out */
	uint32_t	out_capacity;	/* room there: >= the shortest list's n */
	uint32_t	out_count;		/* set by the back end */
	int32_t		status;			/* gpx_status, set by the back end */
	uint32_t	reserved;
} gpx_batch_query;

/* One list of a batch: a validated blob plus its content hash. */
typedef struct gpx_batch_list
{
	gpx_list	list;			/* parsed view (gpx_open) of the blob */
	uint64_t	hash;			/* content hash (gpx_hash64 of the blob) */
} gpx_batch_list;

/* A batch of queries. */
typedef struct gpx_batch
{
	uint32_t	nqueries;
	uint32_t	nlists;
	gpx_batch_query *queries;
	const gpx_batch_list *lists;
	uint32_t   *out;			/* result area */
	uint64_t	out_words;		/* its size in uint32 */
} gpx_batch;

/* Statistics a back end reports for one batch run. */
typedef struct gpx_batch_stats
{
	uint64_t	candidates;		/* docIDs of shortest lists examined */
	uint64_t	results;		/* docIDs written */
	uint64_t	bytes_in;		/* compressed bytes read/transferred */
	uint64_t	cache_hits;		/* lists found in a device cache */
	uint64_t	cache_misses;
	double		compute_ms;		/* back-end compute time */
	double		transfer_ms;	/* host <-> device transfer time (GPU) */
} gpx_batch_stats;

/*
 * 64-bit content hash of a blob: FNV-1a over 64-bit words in eight lanes,
 * each step rotated, folded with the length and avalanched (not
 * cryptographic; a cache keyed on it also compares header fields).
 */
uint64_t	gpx_hash64(const uint8_t *buf, size_t len);

/*
 * Run a batch on the CPU with nthreads threads (plain pthreads over the
 * codec core; no allocation visible to the caller, no PostgreSQL calls).
 * Returns GPX_OK when every query ran (each query's own status says how
 * it went), or an error when the threads could not be started.
 */
gpx_status	gpx_batch_run_cpu(gpx_batch *b, int nthreads, gpx_batch_stats *stats);

/* ---- persistent CPU thread pool (gpx_batch_cpu.c; added for the executor) --
 *
 * gpx_batch_run_cpu() starts and joins its threads on every call; the
 * executor keeps one pool for its lifetime instead.  A pool is used by one
 * thread at a time; that thread takes part in every run.  Helper threads
 * block all signals and call nothing but the codec core.
 */

/* Upper bound on a pool's thread count. */
#define GPX_BATCH_MAX_THREADS 256

typedef struct gpx_batch_pool gpx_batch_pool;

/* Start nthreads - 1 helper threads (1 <= nthreads <= GPX_BATCH_MAX_THREADS). */
gpx_status	gpx_batch_pool_create(int nthreads, gpx_batch_pool **pool);

/* Threads that run a batch, the caller included (0 for NULL). */
int			gpx_batch_pool_threads(const gpx_batch_pool *pool);

/* Run every query of b (as gpx_batch_run_cpu, without thread start-up). */
gpx_status	gpx_batch_pool_run(gpx_batch_pool *pool, gpx_batch *b,
							   gpx_batch_stats *stats);

/* Join the helper threads and free the pool (NULL is a no-op). */
void		gpx_batch_pool_destroy(gpx_batch_pool *pool);

#ifdef __cplusplus
}
#endif

#endif							/* GPX_BATCH_H */
