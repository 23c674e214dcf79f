/*
 * exec_shmem.h - the executor's shared memory: layout, request format,
 * slot state machine, and the helpers that the worker (exec_worker.c),
 * the client side (exec_client.c), the list cache (exec_cache.c) and the
 * SQL functions (exec_sql.c) share.  Internal to the exec_*.c files.
 *
 * Layout (one ShmemInitStruct region, reserved by shmem_request_hook):
 *
 *   GpxExecShared                  control block: executor state, queue,
 *                                  allocator, cost model, statistics
 *   GpxExecSlot[nslots]            one per request (gpuidx.max_requests)
 *   GpxArenaExtent[nslots + 2]     free extents of the arena, by offset
 *   GpxCacheEntry[cache_cap]       directory of the cached lists
 *                                  (key -> entry), linear probing;
 *                                  see exec_cache.c
 *   GpxArenaExtent[cache_cap/2+2]  free extents of the cache's data
 *   gpx_key[seen sets * ways]      the cache's admission filter
 *   GpxCacheReader[nreaders]       per backend (MyBackendId - 1): the
 *                                  cached lists it reads in place
 *   arena[arena_size]              request data (gpuidx.arena_size),
 *                                  page aligned
 *   cache data[cache_size]         the cached lists' bytes, page aligned
 *
 * (the cache's parts are empty when gpuidx.cache_size = 0)
 *
 * Everything except the statistics counters (atomics) is protected by
 * the single LWLock of the "gpuidx" tranche, held only for short list and
 * allocator operations, never while copying bulk data or computing.
 *
 * A request (one slot) holds one or more intersection queries, or one
 * or more union queries, in one contiguous arena chunk:
 *
 *   gpx_batch_query[nqueries]      out_offset relative to the out area;
 *                                  a union's flags: GPX_BQ_COUNT
 *   GpxReqList[nlists]             per list: inline blob or cache key
 *   blobs                          8-byte aligned copies of inline lists
 *   uint32 out[out_words]          results, written by the executor
 *
 * Slot state machine (owner = the backend that allocated it):
 *
 *   FREE --owner allocates--> FILLING --owner enqueues--> QUEUED
 *   QUEUED --executor takes it into batch b--> RUNNING(b)
 *   RUNNING(b) --batch b finishes--> DONE --owner reads, frees--> FREE
 *   FILLING/QUEUED/DONE --owner gives up (cancel, error, exit)--> FREE
 *   RUNNING(b) --owner gives up--> ABANDONED(b) --batch b finishes--> FREE
 *   RUNNING(b) --executor exits--> QUEUED (requeued once, then DONE, failed)
 *
 * The executor keeps up to gpuidx.pipeline_depth batches in flight (taken,
 * built, handed to a device, not finished), so RUNNING and ABANDONED slots
 * carry the id of their batch (batch_id): each belongs to exactly one
 * batch in flight, only that batch's end moves it on, and batches end in
 * any order.  An exiting executor first stops every batch in flight
 * (nothing writes into the arena afterwards), then requeues them all.
 *
 * Every change goes through gpuidx_exec_slot_set_state, which
 * assert-enabled builds check against this machine.  Locks: the queue
 * lock (qlock, a spinlock) orders every change into or out of QUEUED and
 * RUNNING (so the executor takes a batch, and marks it DONE, under the
 * queue lock alone); every other change holds the LWLock, taken before
 * any spinlock.  An owner takes and frees its slot holding the LWLock
 * shared (the free list and arena under the allocation lock, alock; the
 * cache pins are atomic), so the requests of many backends never queue
 * on the LWLock; the executor's scans of every slot (takeover, orphans)
 * hold it exclusively, and see no slot half allocated.  Only the owner
 * frees a slot that is not RUNNING or ABANDONED (or the executor, once the
 * owner has died), and only the executor frees an ABANDONED one, so the
 * executor never writes into a chunk that was given to somebody else.  Every allocation bumps the
 * slot's generation; the owner remembers (slot, generation) and acts only
 * while both match, so a late or stale reference is ignored.
 */
#ifndef EXEC_SHMEM_H
#define EXEC_SHMEM_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "exec_prof.h"
#include "gpuidx.h"
#include "gpx_batch.h"

/* Room for the executor's device description (one entry per GPU). */
#define GPX_DEVICE_DESC_LEN 1024

/* Parse a gpuidx.gpus value into ordinals; returns the count or -1. */
extern int	gpuidx_exec_parse_gpus(const char *s, int *out, int max);

/* ------------------------------------------------------ constants -- */

#define GPX_EXEC_TRANCHE "gpuidx"
#define GPX_EXEC_SHMEM_NAME "gpuidx executor"
#define GPX_EXEC_WORKER_TYPE "gpuidx executor"

/* Arena chunks are multiples of this. */
#define GPX_EXEC_CHUNK_ALIGN 64

/* Wait event of backends waiting for results and of the idle executor. */
#define GPX_EXEC_WAIT_EVENT PG_WAIT_EXTENSION

/* Slot states. */
typedef enum GpxSlotState
{
	GPX_SLOT_FREE = 0,
	GPX_SLOT_FILLING,
	GPX_SLOT_QUEUED,
	GPX_SLOT_RUNNING,
	GPX_SLOT_DONE,
	GPX_SLOT_ABANDONED
} GpxSlotState;

/* Executor states. */
typedef enum GpxExecState
{
	GPX_EXEC_STOPPED = 0,		/* no executor process */
	GPX_EXEC_STARTING,			/* process up, opening its device */
	GPX_EXEC_RUNNING			/* taking requests */
} GpxExecState;

/* Request status written by the executor into the slot. */
typedef enum GpxReqStatus
{
	GPX_REQ_OK = 0,				/* every query has its own status */
	GPX_REQ_BAD,				/* malformed request */
	GPX_REQ_CACHE_MISS,			/* a list sent by key is no longer cached */
	GPX_REQ_FAILED				/* the executor failed twice on it */
} GpxReqStatus;

/* Faults the executor injects on request (tests; superuser only). */
typedef enum GpxFault
{
	GPX_FAULT_NONE = 0,
	GPX_FAULT_ERROR,			/* raise an ERROR on the next batch */
	GPX_FAULT_STALL,			/* sleep fault_ms inside the next batch */
	GPX_FAULT_HOLD,				/* take no batch for fault_ms (0: resume) */
	GPX_FAULT_GPU_OOM,			/* GPU batches fail with out of memory for
								 * fault_ms (0: only the next one) */
	GPX_FAULT_OID_GAP			/* the OID counter counts as unsampled for
								 * too long: stored-list keys change epoch */
} GpxFault;

/* ------------------------------------------------- request format -- */

/* GpxExecSlot.kind: what a request asks for (a batch holds one kind) */
#define GPX_REQ_KIND_ISECT 0	/* intersections (the layout above) */
#define GPX_REQ_KIND_RANK 1		/* a ranked batch; batches of the executor
								 * hold ranked requests only, or none
								 * (layout in exec_rank.c) */
#define GPX_REQ_KIND_UNION 2	/* unions (the layout above), with the
								 * union requests of other backends */

/* GpxReqList.flags */
#define GPX_REQ_INLINE	0x1		/* blob copied at off */
#define GPX_REQ_BY_KEY	0x2		/* blob held by the executor's cache */
#define GPX_REQ_PINNED	0x4		/* this reference pinned a cache entry */
#define GPX_REQ_CACHEABLE 0x8	/* the executor may keep the list */

/* One list of a request. */
typedef struct GpxReqList
{
	gpx_key		key;			/* identity: keyed, role-scoped PRF of the
								 * blob or of a stored list's identity (see
								 * docs/RELIABILITY.md); none: never cached */
	uint64		off;			/* blob offset in the chunk, if INLINE; in
								 * the cache's data, if BY_KEY (where the
								 * request's pin holds it) */
	uint32		len;			/* blob length in bytes */
	uint32		n;				/* header fields, checked with the key */
	uint32		first;
	uint32		last;
	uint32		flags;
	uint32		pad;
} GpxReqList;

/* ---------------------------------------------------------- slots -- */

typedef struct GpxExecSlot
{
	uint32		state;			/* GpxSlotState */
	uint32		kind;			/* GPX_REQ_KIND_* */
	uint32		requeues;		/* times an exiting executor requeued it */
	uint64		generation;		/* bumped at every allocation */
	int			owner_procno;	/* pgprocno of the owning backend */
	int			owner_pid;
	int32		prev;			/* queue links, or free-list link (next) */
	int32		next;
	uint64		exec_gen;		/* executor incarnation that took it */
	uint64		batch_id;		/* RUNNING, ABANDONED: its batch in flight */
	uint64		cache_epoch;	/* epoch of the cache pins it holds */
	uint64		chunk_off;		/* its arena chunk */
	uint64		chunk_len;
	uint64		lists_off;		/* GpxReqList array, in the chunk */
	uint64		out_off;		/* out area, in the chunk */
	uint64		out_words;
	uint64		work;			/* postings of its queries' shortest lists
								 * (unions: of all their lists) */
	uint32		nqueries;
	uint32		nlists;
	int32		status;			/* GpxReqStatus, once DONE */
	uint32		batch_backends;	/* backends in the batch that ran it */
	TimestampTz queued_at;
	int64		wait_us;		/* queued -> taken into a batch */
	int64		run_us;			/* run time of that batch */
	int64		done_ns;		/* when it was marked DONE (gpuidx_exec_now_ns) */
	int32		rank_dl;		/* RANK: the held statistics it names
								 * (ctl->rank_dl index), or -1 */
	uint64		rank_dl_id;		/* ... and their id then */
} GpxExecSlot;

/*
 * Collection statistics (posting_doclen blobs) the executor holds for
 * ranked requests, so that a request names them instead of carrying a
 * copy (exec_rank.c).  The bytes are the executor's own (its memory, and
 * its GPU's); this directory says which it holds.  Identity: the scope
 * (database and current role, as for the keys of lists), the length and
 * the 40-byte header, whose checksum covers every length.
 */
#define GPX_EXEC_RANK_DLS 4

/* Most ranked requests one batch of the executor takes. */
#define GPX_EXEC_RANK_TAKE 64

typedef struct GpxExecRankDl
{
	uint64		id;				/* 0: empty, or being replaced */
	uint64		scope;
	uint64		len;
	uint8		head[40];		/* GPX_DOCLEN_HEADER */
	pg_atomic_uint32 refs;		/* requests naming it, not yet freed: taken
								 * and dropped under the lock in either
								 * mode, read under it exclusively (an entry
								 * is replaced only when no request names
								 * it) */
	pg_atomic_uint64 used;		/* TimestampTz: last named or kept */
} GpxExecRankDl;

/* A free range of the arena. */
typedef struct GpxArenaExtent
{
	uint64		off;
	uint64		len;
} GpxArenaExtent;

/*
 * Free extents of a region handed out in GPX_EXEC_CHUNK_ALIGN multiples,
 * first fit, merged on free (the arena, under alock; the cache's data,
 * under the lock exclusively).
 */
typedef struct GpxExtentPool
{
	uint64		size;			/* bytes of the region */
	uint64		used;			/* bytes handed out */
	uint64		peak;
	int			n;				/* free extents now, sorted by offset */
	int			max;			/* room in the extent array */
} GpxExtentPool;

/* A directory entry of the list cache. */
typedef struct GpxCacheEntry
{
	gpx_key		key;
	uint64		off;			/* its bytes, in the cache's data */
	uint32		len;
	uint32		n;
	uint32		first;
	uint32		last;
	pg_atomic_uint32 pins;		/* queued requests that send it by key
								 * (taken and released under the lock in
								 * either mode, read by eviction under it
								 * exclusively) */
	int32		readers;		/* backends reading it in place */
	uint8		used;			/* entry holds a list */
	uint8		ref;			/* CLOCK reference bit */
	uint8		filling;		/* bytes being copied in: not found yet */
	uint8		gone;			/* dropped by a clear while read or
								 * filled: found only by its readers and
								 * filler, removed when they are done */
} GpxCacheEntry;

/* Lists one backend may read in place at once. */
#define GPX_CACHE_READ_REFS 32

/* What a backend pinned to read in place (found again by key to unpin). */
typedef struct GpxCacheReadRef
{
	gpx_key		key;
	uint32		len;
	uint32		n;
	uint32		first;
	uint32		last;
} GpxCacheReadRef;

/*
 * The read pins of one backend (index MyBackendId - 1), under lock.  A
 * backend pins, computes and unpins without raising an error in between,
 * and unpins on exit; should one vanish with pins all the same, the next
 * owner of its index or the executor (pid no longer at procno) releases
 * them.
 */
typedef struct GpxCacheReader
{
	int			pid;
	int			procno;
	int			nrefs;
	int			pad;
	GpxCacheReadRef refs[GPX_CACHE_READ_REFS];
} GpxCacheReader;

/* ----------------------------------------------------- statistics -- */

typedef struct GpxExecStats
{
	pg_atomic_uint64 requests;	/* requests (slots) served by the executor */
	pg_atomic_uint64 queries;	/* queries computed by the executor */
	pg_atomic_uint64 union_queries;	/* of them unions (and their counts) */
	pg_atomic_uint64 batches;
	pg_atomic_uint64 batch_postings;	/* sum of shortest-list lengths */
	pg_atomic_uint64 batch_requests;	/* requests over all batches */
	pg_atomic_uint64 multi_backend_batches;	/* batches from >= 2 backends */
	pg_atomic_uint64 max_batch_backends;
	pg_atomic_uint64 overlapped_batches;	/* taken while another batch was
											 * in flight */
	pg_atomic_uint64 max_in_flight;	/* most batches in flight at once */
	pg_atomic_uint64 executor_us;	/* executor compute time */
	pg_atomic_uint64 gpu_batches;	/* batches the GPU computed */
	pg_atomic_uint64 gpu_failures;	/* GPU batches redone on cpu threads */
	pg_atomic_uint64 gpu_unavailable;	/* queries sent with gpuidx.device =
										 * gpu that the executor, having no
										 * usable GPU, ran on cpu threads */
	pg_atomic_uint64 roundtrip_us;	/* backend-side wait, all requests */
	pg_atomic_uint64 backend_queries;	/* kept in the backend by auto */
	pg_atomic_uint64 fb_executor_down;	/* fallbacks, by reason */
	pg_atomic_uint64 fb_arena_full;
	pg_atomic_uint64 fb_too_large;
	pg_atomic_uint64 fb_timeout;
	pg_atomic_uint64 fb_failed;
	pg_atomic_uint64 cache_hits;	/* lists sent by key */
	pg_atomic_uint64 cache_misses;	/* cacheable lists copied */
	pg_atomic_uint64 lists_not_read;	/* stored lists sent unread */
	pg_atomic_uint64 lists_read_shared;	/* stored lists a backend read in
										 * place from the cache, unread */
	pg_atomic_uint64 cache_inserts;
	pg_atomic_uint64 cache_evictions;
	pg_atomic_uint64 bytes_copied;	/* list bytes copied into the arena */
	GpxExecPhaseStat phases[GPX_PHASE_COUNT];	/* the executor's loop, by
												 * phase (exec_prof.c) */
	pg_atomic_uint64 reset_time;	/* TimestampTz of the last reset */
} GpxExecStats;

/* ------------------------------------------------- control block -- */

typedef struct GpxExecShared
{
	LWLock	   *lock;
	int			nslots;
	uint64		arena_size;
	int			cache_cap;		/* directory entries, a power of two */
	uint64		cache_budget;	/* bytes the executor may cache */

	/* executor (under lock) */
	uint32		exec_state;		/* GpxExecState */
	int			exec_pid;
	int			exec_procno;
	uint64		exec_gen;		/* incarnation counter */
	int			exec_starts;
	TimestampTz exec_started;
	int			exec_threads;	/* CPU pool threads */
	bool		exec_gpu;		/* batches run on a GPU */
	char		device_desc[GPX_DEVICE_DESC_LEN];	/* what runs batches */
	char		device_note[256];	/* why not a GPU, when not */
	uint64		batches_total;	/* batch ids (the last one given) */
	int			exec_in_flight;	/* batches in flight now (unlocked writes) */
	int			fault;			/* GpxFault */
	int			fault_ms;
	TimestampTz gpu_oom_until;	/* fault gpu_oom armed until (0: off) */
	bool		gpu_oom_next;	/* ... or for the next GPU batch only */

	/*
	 * Queue of QUEUED slots, oldest first, under the queue lock (see the
	 * state machine above): the backends queue and the executor takes
	 * batches holding it alone.
	 */
	slock_t		qlock;
	int32		queue_head;
	int32		queue_tail;
	int			nqueued;
	uint64		queued_work;

	/*
	 * Free slots and the arena's free extents, under the allocation lock
	 * (a spinlock), taken with the lock held in either mode: a backend
	 * takes and frees its request's slot and chunk under the lock shared,
	 * so that requests of many backends never queue on the lock.
	 */
	slock_t		alock;
	int32		free_head;		/* free slots, linked through next */
	int			nused;
	GpxExtentPool arena;

	/* the OID counter's samples, under their own spinlock (below) */
	slock_t		oidlock;

	/* cache directory and data (under lock) */
	uint64		cache_epoch;
	int			cache_count;
	uint64		cache_bytes;
	GpxExtentPool cache_pool;	/* the data's free extents */
	uint32		cache_hand;		/* CLOCK hand */
	int			cache_readers;	/* GpxCacheReader records */

	/*
	 * The subkeys of list identity, derived from a secret drawn at server
	 * start (pg_strong_random) and never shown through SQL: a list's key
	 * is a keyed PRF of (database, current role, content), or of a stored
	 * value's identity (docs/RELIABILITY.md).  keys_ok is false when no
	 * strong random secret could be had: the executor then does not start.
	 * Written once, read without lock.
	 */
	gpx_keyset	keys;
	bool		keys_ok;

	/*
	 * The OID counter's position (counting wraparounds) in the current
	 * epoch of stored-list keys, and when it was last sampled (monotonic
	 * clock, us).  Under oidlock; see gpuidx_exec_oid_position.
	 */
	uint32		oid_epoch;
	uint64		oid_pos;
	int64		oid_sampled_us;

	/*
	 * Cost model of gpuidx.device = auto, in picoseconds per unit of work
	 * (a candidate of the shortest list checked against one other list),
	 * updated as running medians; see exec_cost.c.
	 */
	pg_atomic_uint64 cost_backend_ps;	/* in-backend SvS, one thread */
	pg_atomic_uint64 cost_exec_ps;	/* executor, per thread (GPU: whole) */
	pg_atomic_uint64 cost_overhead_ns;	/* round trip besides batching */
	pg_atomic_uint64 cost_batch_ns;	/* fixed cost of a batch (fitted) */
	pg_atomic_uint64 cost_wait_ns;	/* requests' wait to be taken */
	pg_atomic_uint64 cost_fit[4];	/* the fit's weighted sums (doubles):
									 * x, y, x^2, x*y of batches' (work per
									 * thread, run ns) */
	/* ... and, for a host with no free core, CPU time (ns, ps per probe) */
	pg_atomic_uint64 cost_wake_ns;	/* DONE -> its backend runs again */
	pg_atomic_uint64 cost_backend_cpu_ps;	/* in-backend SvS, CPU a probe */
	pg_atomic_uint64 cost_req_cpu_ns;	/* a backend's CPU a query sent */
	pg_atomic_uint64 cost_exec_cpu_ns;	/* the executor's CPU a query run */

	/*
	 * Ranked batches under auto (exec_cost.c), per mode ([0] AND, [1] OR),
	 * in picoseconds per candidate: the backend's ranking, and the line
	 * fitted to the executor's GPU runs (per batch, per candidate).
	 */
	pg_atomic_uint64 rank_backend_ps[2];
	pg_atomic_uint64 rank_exec_ps[2];
	pg_atomic_uint64 rank_batch_ns[2];
	pg_atomic_uint64 rank_fit[2][4];	/* as cost_fit: (candidates, run ns) */
	pg_atomic_uint32 cost_close;	/* close decisions, counted (exploring, both models) */

	/*
	 * Backends with requests in flight, and how many of them are blocked
	 * waiting for results.  When every such backend waits, nothing more
	 * can arrive, so the executor runs what is queued without waiting for
	 * the threshold or the timer.
	 */
	pg_atomic_uint32 clients_inflight;
	pg_atomic_uint32 clients_waiting;

	/* statistics the executor holds for ranked requests (under lock) */
	GpxExecRankDl rank_dl[GPX_EXEC_RANK_DLS];
	uint64		rank_dl_ids;	/* the last id given */

	GpxExecStats stats;

	/* set up by gpuidx_exec_attach() in each process (local pointers) */
} GpxExecShared;

/* Per-process view of the shared region. */
typedef struct GpxExecShmem
{
	GpxExecShared *ctl;
	GpxExecSlot *slots;
	GpxArenaExtent *extents;
	GpxCacheEntry *cache;
	GpxArenaExtent *cache_extents;
	gpx_key    *cache_seen;
	GpxCacheReader *cache_readers;
	char	   *arena;
	char	   *cache_data;
} GpxExecShmem;

/* The attached shared memory, or NULL when the library was not preloaded. */
extern GpxExecShmem *gpuidx_exec_shm;

/* ------------------------------------------------------ functions -- */

/* Install the shared memory hooks (from _PG_init, when preloaded). */
extern void gpuidx_exec_shmem_init(void);

/* Attach (or find) the shared region; false if it does not exist. */
extern bool gpuidx_exec_attach(void);

/* Zero the statistics counters (init: of a fresh region). */
extern void gpuidx_exec_stats_reset(GpxExecStats *s, bool init);

/* Allocate len bytes (rounded up) of arena; false when there is no room (takes alock). */
extern bool gpuidx_exec_arena_alloc(uint64 len, uint64 *off);

/* Return an arena chunk to the free extents (takes alock). */
extern void gpuidx_exec_arena_free(uint64 off, uint64 len);

/* First-fit allocation of len bytes (rounded up) from a pool (its lock held). */
extern bool gpuidx_exec_extent_alloc(GpxExtentPool *p, GpxArenaExtent *ext,
									 uint64 len, uint64 *off);

/* Give a range back to a pool, merging with its neighbours (its lock held). */
extern void gpuidx_exec_extent_free(GpxExtentPool *p, GpxArenaExtent *ext,
									uint64 off, uint64 len);

/* Take a free slot (lock held, either mode); -1 if none.  Bumps its generation. */
extern int	gpuidx_exec_slot_take(void);

/*
 * Move slot i to a new state, checked against the state machine: the
 * queue lock held for a change into or out of QUEUED or RUNNING, the
 * lock (either mode) for the others.
 */
extern void gpuidx_exec_slot_set_state(int i, GpxSlotState to);

/*
 * Free a slot that is not RUNNING: release its cache pins and chunk, put
 * it on the free list.  Lock held, either mode (the pins and statistics
 * references are atomic counts), no spinlock held.
 */
extern void gpuidx_exec_slot_free(int i);

/*
 * The owner gives slot i up: freed as gpuidx_exec_slot_free does, or
 * ABANDONED when the executor runs it (it frees it when its batch ends);
 * the state is read and changed under the queue lock, so a request being
 * taken into a batch is never freed.  Lock held as for
 * gpuidx_exec_slot_free.  Returns true when freed.
 */
extern bool gpuidx_exec_slot_let_go(int i);

/* Take and release the queue lock (never while waiting for the lock). */
extern void gpuidx_exec_qlock(void);
extern void gpuidx_exec_qunlock(void);

/* Append a slot to the queue tail (queue lock held). */
extern void gpuidx_exec_queue_push(int i);

/* Put a slot back at the queue head (queue lock held). */
extern void gpuidx_exec_queue_push_front(int i);

/* Unlink a queued slot (queue lock held). */
extern void gpuidx_exec_queue_remove(int i);

/*
 * Queue an owner's filled request (slot, generation gen) and wake the
 * executor when it should look; false when the slot is no longer FILLING
 * with that generation or the executor does not run (takes the queue lock).
 */
extern bool gpuidx_exec_queue_request(int slot, uint64 gen);

/*
 * The pgprocnos of the owners of the queued requests, at most max of
 * them, into procs; returns how many (takes the queue lock).
 */
extern int	gpuidx_exec_queue_owners(int *procs, int max);

/* Set a process's latch by pgprocno (tolerates a stale number). */
extern void gpuidx_exec_wake_proc(int procno);

/* Pointer to a slot's chunk. */
static inline char *
gpuidx_exec_chunk(int i)
{
	return gpuidx_exec_shm->arena + gpuidx_exec_shm->slots[i].chunk_off;
}

/* Bump a statistics counter. */
static inline void
gpuidx_exec_count(pg_atomic_uint64 *c, uint64 v)
{
	pg_atomic_fetch_add_u64(c, v);
}

/* Raise a counter to at least v. */
static inline void
gpuidx_exec_count_max(pg_atomic_uint64 *c, uint64 v)
{
	uint64		cur = pg_atomic_read_u64(c);

	while (cur < v && !pg_atomic_compare_exchange_u64(c, &cur, v))
		;
}

/* Work estimate of one query: shortest n times the other lists (k=1: n). */
static inline uint64
gpuidx_exec_query_work(uint32 nmin, int k)
{
	return (uint64) nmin * (uint64) (k > 1 ? k - 1 : 1);
}

/* Executor main (bgw_function_name). */
extern PGDLLEXPORT void gpuidx_exec_main(Datum main_arg);

#endif							/* EXEC_SHMEM_H */
