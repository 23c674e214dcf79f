/*
 * gpx_batch.h - a batch of queries, as the executor hands it to a compute
 * back end (CPU threads: gpx_batch_cpu.c; GPU: cuda/).  Every query of a
 * batch computes the same operation (gpx_batch.op): the intersection of
 * its lists (GPU: gpx_cuda_submit / gpx_cuda_run_batch), or their union
 * (GPU: gpx_cuda_union_run, cuda/gpx_cuda_union.h), each union query
 * either with its docIDs or, flagged GPX_BQ_COUNT, only their number.
 *
 * Pure C, no postgres.h: the executor's compute threads and the CUDA host
 * code use it, and neither may call PostgreSQL.  The executor fills the
 * descriptor from requests in the shared arena; the back end writes each
 * query's sorted result into out[q.out_offset ..] and sets q.out_count
 * (a count query: only out_count, its size; out is not touched).
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

/* What the queries of a batch compute (gpx_batch.op). */
#define GPX_BATCH_INTERSECT 0	/* the docIDs in every list */
#define GPX_BATCH_UNION 1		/* the docIDs in any list */

/* gpx_batch_query.flags */
#define GPX_BQ_COUNT 0x1u		/* union: only the size, in out_count (out
								 * and out_capacity unused) */

/*
 * One query: lists[first_list .. first_list + nlists) of the batch.  Its
 * result, sorted and without duplicates, goes to out[out_offset ..
 * out_offset + out_capacity); a result larger than that is GPX_E_NOSPACE
 * (out_count 0, out's contents unspecified).  An intersection never
 * exceeds its shortest list's n; a union may reach the sum of its lists'
 * (gpx_union_many_bound).  Bad descriptors (no lists, lists or room out
 * of range) are GPX_E_ARG.
 */
typedef struct gpx_batch_query
{
	uint32_t	first_list;		/* index of its first list in batch->lists */
	uint32_t	nlists;			/* number of lists (>= 1) */
	uint64_t	out_offset;		/* where its result starts in batch->out */
	uint32_t	out_capacity;	/* room there */
	uint32_t	out_count;		/* set by the back end */
	int32_t		status;			/* gpx_status, set by the back end */
	uint32_t	flags;			/* GPX_BQ_* (unions; ignored by
								 * intersections) */
} gpx_batch_query;

/*
 * The identity of a list, as caches know it (the executor's directory, its
 * CPU and GPU caches): 128 bits from gpx_key_content() (a list's content)
 * or gpx_key_name() (a stored value's identity), never from an unkeyed
 * hash, so that nobody who lacks the secret can make two lists share one.
 * The all-zero key is "no key": such a list is never cached.
 */
typedef struct gpx_key
{
	uint64_t	lo;
	uint64_t	hi;
} gpx_key;

/* Set in hi by gpx_key_name(), clear from gpx_key_content(). */
#define GPX_KEY_NAMED_BIT (UINT64_C(1) << 63)

/* Whether a key is "no key". */
static inline bool
gpx_key_is_none(gpx_key k)
{
	return (k.lo | k.hi) == 0;
}

/* Whether two keys are the same. */
static inline bool
gpx_key_eq(gpx_key a, gpx_key b)
{
	return a.lo == b.lo && a.hi == b.hi;
}

/* One list of a batch: a validated blob plus its identity. */
typedef struct gpx_batch_list
{
	gpx_list	list;			/* parsed view (gpx_open) of the blob */
	gpx_key		key;			/* gpx_key_content() or gpx_key_name(), or
								 * none (not cached) */
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
	uint32_t	op;				/* GPX_BATCH_INTERSECT (0) or GPX_BATCH_UNION */
} gpx_batch;

/* Statistics a back end reports for one batch run. */
typedef struct gpx_batch_stats
{
	uint64_t	candidates;		/* intersections: docIDs of shortest lists
								 * examined; unions: docIDs of every list */
	uint64_t	results;		/* docIDs written */
	uint64_t	bytes_in;		/* compressed bytes read/transferred */
	uint64_t	cache_hits;		/* lists found in a device cache */
	uint64_t	cache_misses;
	double		compute_ms;		/* back-end compute time */
	double		transfer_ms;	/* host <-> device transfer time (GPU) */
} gpx_batch_stats;

/* ---- list identity (gpx_key.c) ---------------------------------------------
 *
 * gpx_key_content() is a pseudo-random function of (scope, content) under
 * a 128-bit secret: SipHash-2-4 with 128-bit output in GPX_KEY_LANES
 * independent lanes (lane j, under its own key, hashes the 8-byte words
 * 16i + j of the whole 128-byte blocks), whose 128-bit results, the scope,
 * the length and the bytes after the last whole block are hashed once more
 * by SipHash-2-4-128 under a final key.  Every subkey is SipHash-2-4-128
 * of a label under the secret.  The lanes run side by side in vector
 * registers where the CPU has them; every implementation gives the same
 * bits.  Without the secret nobody can find two contents with one key
 * (docs/RELIABILITY.md, "List identity").
 */

/* Lanes of gpx_key_content(): 16 words of each 128-byte block. */
#define GPX_KEY_LANES 16

/* The subkeys derived from one secret (gpx_keyset_init). */
typedef struct gpx_keyset
{
	uint64_t	lane_k0[GPX_KEY_LANES];	/* lane j's SipHash key */
	uint64_t	lane_k1[GPX_KEY_LANES];
	uint64_t	fin[2];			/* the final hash of gpx_key_content */
	uint64_t	name[2];		/* gpx_key_name */
} gpx_keyset;

/* Implementations of the lane loop (all give the same bits). */
typedef enum gpx_key_impl
{
	GPX_KEY_IMPL_AUTO = 0,		/* the fastest this CPU runs */
	GPX_KEY_IMPL_GENERIC,		/* whatever the compiler makes of it */
	GPX_KEY_IMPL_AVX2,			/* x86-64 with AVX2 */
	GPX_KEY_IMPL_AVX512			/* x86-64 with AVX-512F */
} gpx_key_impl;

/* Derive the subkeys of a 16-byte secret. */
void		gpx_keyset_init(gpx_keyset *ks, const uint8_t secret[16]);

/*
 * Key of the content buf[0..len) within scope (any 64-bit value that
 * separates users of one keyset: the executor's database and role).
 * Never none, never has GPX_KEY_NAMED_BIT.
 */
gpx_key		gpx_key_content(const gpx_keyset *ks, uint64_t scope,
							const uint8_t *buf, size_t len);

/* gpx_key_content with a given implementation (tests, benchmarks). */
gpx_key		gpx_key_content_impl(const gpx_keyset *ks, uint64_t scope,
								 const uint8_t *buf, size_t len,
								 gpx_key_impl impl);

/* Whether this CPU runs an implementation (AUTO and GENERIC always). */
bool		gpx_key_impl_available(gpx_key_impl impl);

/*
 * Key of something named by words[0..nwords) rather than by its content
 * (a stored value's identity): SipHash-2-4-128 under its own subkey, with
 * GPX_KEY_NAMED_BIT set, so that it never equals a content key.
 */
gpx_key		gpx_key_name(const gpx_keyset *ks, const uint64_t *words,
						 size_t nwords);

/* SipHash-2-4 with 128-bit output of buf[0..len) under key[2] (lo, hi). */
gpx_key		gpx_siphash128(const uint64_t key[2], const uint8_t *buf,
						   size_t len);

/*
 * Run a batch on the CPU with nthreads threads (plain pthreads over the
 * codec core: gpx_intersect_ex, or gpx_union_many for a union batch; no
 * allocation visible to the caller, no PostgreSQL calls).
 * Returns GPX_OK when every query ran (each query's own status says how
 * it went), or an error when the threads could not be started.
 */
gpx_status	gpx_batch_run_cpu(gpx_batch *b, int nthreads, gpx_batch_stats *stats);

/* ---- persistent CPU thread pool (gpx_batch_cpu.c; added for the executor) --
 *
 * gpx_batch_run_cpu() starts and joins its threads on every call; the
 * executor keeps one pool for its lifetime instead.  Helper threads block
 * all signals and call nothing but the codec core.
 *
 * A pool runs batches one at a time (gpx_batch_pool_run: the calling
 * thread takes part and returns when every query has its status) or
 * several at once (gpx_batch_pool_submit: the call returns at once, the
 * helpers take the queries of the jobs in submission order, the oldest
 * job's first, and the caller learns of each job's end through
 * gpx_batch_pool_done or the pool's notify descriptor).  Submitting,
 * polling, helping and cancelling are for one thread at a time (the
 * executor's main thread); the helpers are the pool's own.
 */

/* Upper bound on a pool's thread count. */
#define GPX_BATCH_MAX_THREADS 256

typedef struct gpx_batch_pool gpx_batch_pool;

/*
 * One batch run asynchronously on a pool.  The caller owns the job, the
 * batch and everything it points to, and must keep them until the job is
 * done (gpx_batch_pool_done); the pool writes each query's status, count
 * and results, then stats, then marks the job done.
 */
typedef struct gpx_batch_job
{
	gpx_batch  *b;				/* the batch (set by gpx_batch_pool_submit) */
	gpx_batch_stats stats;		/* valid once done */
	void		(*fn) (void *arg, uint32_t i);	/* gpx_batch_pool_for's work */
	void	   *arg;
	/* private to the pool */
	uint32_t   *order;			/* query order, longest first, or NULL */
	uint32_t	next;			/* next position to hand out */
	uint32_t	limit;			/* positions to hand out (nqueries; less
								 * once cancelled) */
	uint32_t	finished;		/* queries finished */
	int			done;
	double		t0;
	struct gpx_batch_job *link;	/* queue of jobs with queries to hand out */
} gpx_batch_job;

/* Start nthreads - 1 helper threads (1 <= nthreads <= GPX_BATCH_MAX_THREADS). */
gpx_status	gpx_batch_pool_create(int nthreads, gpx_batch_pool **pool);

/* Threads that run a batch, the caller included (0 for NULL). */
int			gpx_batch_pool_threads(const gpx_batch_pool *pool);

/*
 * Run every query of b and return when each has its status (as
 * gpx_batch_run_cpu, without thread start-up); the calling thread takes
 * part.  Jobs submitted earlier are served first.
 */
gpx_status	gpx_batch_pool_run(gpx_batch_pool *pool, gpx_batch *b,
							   gpx_batch_stats *stats);

/*
 * Queue b as job and return at once (GPX_E_ARG for a bad descriptor,
 * GPX_E_TOOBIG when out of memory; nothing is queued then).  A pool
 * without helpers (one thread) runs queries only in gpx_batch_pool_help.
 */
gpx_status	gpx_batch_pool_submit(gpx_batch_pool *pool, gpx_batch *b,
								  gpx_batch_job *job);

/*
 * Queue b as job and run it to its end now, the calling thread taking part
 * (as gpx_batch_pool_run: helpers are woken only for its other queries);
 * the job is done on return.
 */
gpx_status	gpx_batch_pool_submit_wait(gpx_batch_pool *pool, gpx_batch *b,
									   gpx_batch_job *job);

/*
 * Run fn(arg, i) for every i in [0, n) on the pool's threads, the calling
 * thread working too; returns when every call has returned.  The calls
 * run in any order, several at once: fn must be safe for that, and may
 * not block on the pool.  GPX_E_ARG for a NULL pool or fn.
 */
gpx_status	gpx_batch_pool_for(gpx_batch_pool *pool, uint32_t n,
							   void (*fn) (void *arg, uint32_t i), void *arg);

/* Whether job has finished (every query has its status); never blocks. */
bool		gpx_batch_pool_done(const gpx_batch_job *job);

/*
 * Run one query of the oldest submitted job that has one left, in the
 * calling thread; false when none was left.
 */
bool		gpx_batch_pool_help(gpx_batch_pool *pool);

/* Wait until job is done, running its queries (and older ones) meanwhile. */
void		gpx_batch_pool_wait(gpx_batch_pool *pool, gpx_batch_job *job);

/*
 * A descriptor that becomes readable when a job finishes (poll it with
 * the caller's own event loop), or -1; gpx_batch_pool_notify_clear empties
 * it before the jobs are looked at.
 */
int			gpx_batch_pool_notify_fd(const gpx_batch_pool *pool);
void		gpx_batch_pool_notify_clear(gpx_batch_pool *pool);

/*
 * Stop every submitted job: queries not yet started are never run (their
 * status and count keep what the caller put there), the running ones are
 * waited for, and every job is done when this returns.  Afterwards no
 * thread of the pool touches any batch (the caller may exit or free).
 */
void		gpx_batch_pool_cancel(gpx_batch_pool *pool);

/* Join the helper threads and free the pool (NULL is a no-op); jobs still
 * submitted are cancelled first. */
void		gpx_batch_pool_destroy(gpx_batch_pool *pool);

#ifdef __cplusplus
}

/* gpx_key in C++ containers (the GPU back end's device cache). */
struct gpx_key_hasher
{
	size_t		operator() (const gpx_key &k) const
	{
		return (size_t) k.lo;
	}
};

/* Equality of keys in C++ containers. */
inline bool
operator==(const gpx_key &a, const gpx_key &b)
{
	return gpx_key_eq(a, b);
}
#endif

#endif							/* GPX_BATCH_H */
