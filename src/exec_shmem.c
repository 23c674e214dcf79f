/*
 * exec_shmem.c - registration of the executor (GUCs, shared memory hooks,
 * the background worker) and the shared-memory primitives every side
 * uses: the arena allocator, slots, the request queue and the cache
 * directory.  See exec_shmem.h for the layout and the slot state machine.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/transam.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "exec_client.h"
#include "exec_shmem.h"

/* GUC variables. */
int			gpuidx_exec_arena_kb = 64 * 1024;
int			gpuidx_exec_max_requests = 1024;
int			gpuidx_exec_cache_kb = 128 * 1024;
int			gpuidx_exec_batch_threshold = 1024 * 1024;
int			gpuidx_exec_batch_max_wait = 100;
int			gpuidx_exec_device = GPX_DEVICE_AUTO;
int			gpuidx_exec_threads = 0;
char	   *gpuidx_exec_gpus = NULL;
bool		gpuidx_exec_use = true;
bool		gpuidx_exec_fallback = true;
int			gpuidx_exec_timeout_ms = 10000;
int			gpuidx_exec_spin_us = 0;

GpxExecShmem *gpuidx_exec_shm = NULL;

static GpxExecShmem exec_shm_local;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static const struct config_enum_entry device_options[] = {
	{"auto", GPX_DEVICE_AUTO, false},
	{"gpu", GPX_DEVICE_GPU, false},
	{"cpu", GPX_DEVICE_CPU, false},
	{NULL, 0, false}
};

/* Entries of the cache directory for the configured cache size. */
static int
exec_cache_capacity(void)
{
	uint64		lists;
	int			cap = 64;

	if (gpuidx_exec_cache_kb <= 0)
		return 0;
	lists = (uint64) gpuidx_exec_cache_kb * 1024 / GPX_EXEC_STORED_MIN_BYTES;
	/* at most half full, so linear probing stays short */
	while ((uint64) cap < 2 * lists && cap < (1 << 20))
		cap <<= 1;
	return cap;
}

/* Size of the whole shared region. */
static Size
exec_shmem_size(void)
{
	Size		sz = MAXALIGN(sizeof(GpxExecShared));

	sz = add_size(sz, mul_size(gpuidx_exec_max_requests, sizeof(GpxExecSlot)));
	sz = add_size(sz, mul_size(gpuidx_exec_max_requests + 2,
							   sizeof(GpxArenaExtent)));
	sz = add_size(sz, mul_size(exec_cache_capacity(), sizeof(GpxCacheEntry)));
	sz = add_size(sz, 4096);	/* page alignment of the arena */
	sz = add_size(sz, mul_size((Size) gpuidx_exec_arena_kb, 1024));
	return sz;
}

/* Point the per-process view at the parts of the region. */
static void
exec_shmem_locate(char *base, int nslots, int cache_cap)
{
	char	   *p = base + MAXALIGN(sizeof(GpxExecShared));

	exec_shm_local.ctl = (GpxExecShared *) base;
	exec_shm_local.slots = (GpxExecSlot *) p;
	p += sizeof(GpxExecSlot) * nslots;
	exec_shm_local.extents = (GpxArenaExtent *) p;
	p += sizeof(GpxArenaExtent) * (nslots + 2);
	exec_shm_local.cache = (GpxCacheEntry *) p;
	p += sizeof(GpxCacheEntry) * cache_cap;
	exec_shm_local.arena = (char *) TYPEALIGN(4096, p);
	gpuidx_exec_shm = &exec_shm_local;
}

/* Initialise a fresh region: every slot free, the arena one extent. */
static void
exec_shmem_init_region(GpxExecShared *ctl)
{
	GpxExecStats *s = &ctl->stats;
	int			nslots = gpuidx_exec_max_requests;

	memset(ctl, 0, sizeof(*ctl));
	ctl->nslots = nslots;
	ctl->arena_size = (uint64) gpuidx_exec_arena_kb * 1024;
	ctl->cache_cap = exec_cache_capacity();
	ctl->cache_budget = (uint64) Max(gpuidx_exec_cache_kb, 0) * 1024;
	ctl->exec_state = GPX_EXEC_STOPPED;
	ctl->exec_procno = -1;
	ctl->queue_head = ctl->queue_tail = -1;
	ctl->cache_epoch = 1;
	strlcpy(ctl->device_desc, "none", sizeof(ctl->device_desc));
	{
		uint8		secret[16];

		/* without a strong secret list identity could be forged: no executor */
		ctl->keys_ok = pg_strong_random(secret, sizeof(secret));
		if (ctl->keys_ok)
			gpx_keyset_init(&ctl->keys, secret);
		explicit_bzero(secret, sizeof(secret));
	}

	exec_shmem_locate((char *) ctl, nslots, ctl->cache_cap);
	for (int i = 0; i < nslots; i++)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

		memset(sl, 0, sizeof(*sl));
		sl->state = GPX_SLOT_FREE;
		sl->owner_procno = -1;
		sl->prev = -1;
		sl->next = i + 1 < nslots ? i + 1 : -1;
	}
	ctl->free_head = 0;
	gpuidx_exec_shm->extents[0].off = 0;
	gpuidx_exec_shm->extents[0].len = ctl->arena_size;
	ctl->nextents = 1;
	memset(gpuidx_exec_shm->cache, 0, sizeof(GpxCacheEntry) * ctl->cache_cap);

	/* a first guess until measured: 10 ns per probe on one core */
	pg_atomic_init_u64(&ctl->cost_backend_ps, 10000);
	pg_atomic_init_u64(&ctl->cost_exec_ps, 10000);
	pg_atomic_init_u64(&ctl->cost_overhead_ns, 50000);
	pg_atomic_init_u32(&ctl->clients_inflight, 0);
	pg_atomic_init_u32(&ctl->clients_waiting, 0);

	pg_atomic_init_u64(&s->requests, 0);
	pg_atomic_init_u64(&s->queries, 0);
	pg_atomic_init_u64(&s->batches, 0);
	pg_atomic_init_u64(&s->batch_postings, 0);
	pg_atomic_init_u64(&s->batch_requests, 0);
	pg_atomic_init_u64(&s->multi_backend_batches, 0);
	pg_atomic_init_u64(&s->max_batch_backends, 0);
	pg_atomic_init_u64(&s->executor_us, 0);
	pg_atomic_init_u64(&s->gpu_batches, 0);
	pg_atomic_init_u64(&s->gpu_failures, 0);
	pg_atomic_init_u64(&s->roundtrip_us, 0);
	pg_atomic_init_u64(&s->backend_queries, 0);
	pg_atomic_init_u64(&s->fb_executor_down, 0);
	pg_atomic_init_u64(&s->fb_arena_full, 0);
	pg_atomic_init_u64(&s->fb_too_large, 0);
	pg_atomic_init_u64(&s->fb_timeout, 0);
	pg_atomic_init_u64(&s->fb_failed, 0);
	pg_atomic_init_u64(&s->cache_hits, 0);
	pg_atomic_init_u64(&s->cache_misses, 0);
	pg_atomic_init_u64(&s->lists_not_read, 0);
	pg_atomic_init_u64(&s->cache_inserts, 0);
	pg_atomic_init_u64(&s->cache_evictions, 0);
	pg_atomic_init_u64(&s->bytes_copied, 0);
	pg_atomic_init_u64(&s->reset_time, (uint64) GetCurrentTimestamp());
}

/* shmem_request_hook: reserve the region and the lock. */
static void
exec_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(exec_shmem_size());
	RequestNamedLWLockTranche(GPX_EXEC_TRANCHE, 1);
}

/* shmem_startup_hook: create (postmaster) or find (EXEC_BACKEND) the region. */
static void
exec_shmem_startup(void)
{
	GpxExecShared *ctl;
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	ctl = ShmemInitStruct(GPX_EXEC_SHMEM_NAME, exec_shmem_size(), &found);
	if (!found)
		exec_shmem_init_region(ctl);
	else
		exec_shmem_locate((char *) ctl, ctl->nslots, ctl->cache_cap);
	ctl->lock = &(GetNamedLWLockTranche(GPX_EXEC_TRANCHE))->lock;
	LWLockRelease(AddinShmemInitLock);
}

/* True when the region exists in this process (library preloaded). */
bool
gpuidx_exec_attach(void)
{
	return gpuidx_exec_shm != NULL;
}

/*
 * Parse "0" or "0,2,3" (GPU ordinals, no duplicates) into out[]; returns
 * how many, or -1 when the text is malformed or names too many.
 */
int
gpuidx_exec_parse_gpus(const char *s, int *out, int max)
{
	int			n = 0;

	while (*s)
	{
		long		v = 0;
		int			digits = 0;

		while (*s == ' ')
			s++;
		while (*s >= '0' && *s <= '9' && digits < 4)
		{
			v = v * 10 + (*s++ - '0');
			digits++;
		}
		while (*s == ' ')
			s++;
		if (digits == 0 || (*s != ',' && *s != '\0') || n >= max)
			return -1;
		for (int i = 0; i < n; i++)
			if (out[i] == (int) v)
				return -1;
		out[n++] = (int) v;
		if (*s == ',')
			s++;
	}
	return n;
}

/* check_hook of gpuidx.gpus: a non-empty list of distinct ordinals. */
static bool
exec_check_gpus(char **newval, void **extra, GucSource source)
{
	int			ids[GPX_EXEC_MAX_GPUS];

	if (*newval == NULL || gpuidx_exec_parse_gpus(*newval, ids, GPX_EXEC_MAX_GPUS) <= 0)
	{
		GUC_check_errdetail("gpuidx.gpus must list between 1 and %d distinct GPU ordinals, such as \"0\" or \"0,1\".",
							GPX_EXEC_MAX_GPUS);
		return false;
	}
	return true;
}

/*
 * Define the executor's GUCs.  Those that size shared memory exist only
 * when the library is preloaded (PostgreSQL refuses PGC_POSTMASTER
 * variables defined after start-up).
 *
 * Contexts (reviewed for issue #7): what sizes shared memory or picks the
 * GPUs is PGC_POSTMASTER; what the executor as a whole obeys (batching,
 * threads) is PGC_SIGHUP, read by every backend too, so all agree;
 * gpuidx.device is PGC_SUSET, since gpu or cpu sends every query of a
 * session, however small, to the one shared executor.  The rest only
 * changes how a session uses the executor for itself (at all, fallback or
 * error, how long to wait; 0 waits until the statement is cancelled) and
 * is PGC_USERSET.
 */
static void
exec_define_gucs(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("gpuidx.arena_size",
								"Size of the shared arena that carries requests to the executor.",
								"Reserved at server start; a request larger than this is computed in the backend.",
								&gpuidx_exec_arena_kb, 64 * 1024, 256, INT_MAX / 2,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
		DefineCustomIntVariable("gpuidx.max_requests",
								"Number of request slots in the executor's shared memory.",
								NULL,
								&gpuidx_exec_max_requests, 1024, 4, 1 << 20,
								PGC_POSTMASTER, 0, NULL, NULL, NULL);
		DefineCustomIntVariable("gpuidx.cache_size",
								"Memory the executor may use to keep frequently sent lists.",
								"Lists it holds are sent by key instead of copied; 0 disables the cache.",
								&gpuidx_exec_cache_kb, 128 * 1024, 0, INT_MAX / 2,
								PGC_POSTMASTER, GUC_UNIT_KB, NULL, NULL, NULL);
		DefineCustomStringVariable("gpuidx.gpus",
								   "GPUs the executor uses, as ordinals (\"0\" or \"0,1\").",
								   "Batches are spread over every GPU named; each keeps its own list cache of gpuidx.cache_size.",
								   &gpuidx_exec_gpus, "0",
								   PGC_POSTMASTER, 0, exec_check_gpus, NULL, NULL);
	}
	DefineCustomIntVariable("gpuidx.batch_threshold",
							"Postings of shortest lists that make the executor run a batch at once.",
							"The computational threshold c of the PARA framework.",
							&gpuidx_exec_batch_threshold, 1024 * 1024, 1, INT_MAX,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.batch_max_wait",
							"Longest time in microseconds a request waits for its batch to fill.",
							NULL,
							&gpuidx_exec_batch_max_wait, 100, 0, 10 * 1000 * 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.spin_wait",
							"Microseconds the executor and waiting backends poll before sleeping on their latches.",
							"Saves the wake-up of each round trip at the cost of a busy core while polling; 0 sleeps at once.",
							&gpuidx_exec_spin_us, 0, 0, 1000 * 1000,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("gpuidx.device",
							 "Where intersections run: auto, gpu or cpu.",
							 "auto keeps cheap queries in the backend and sends the others to the executor; gpu and cpu send every query to the executor, which runs it on a GPU or on CPU threads.",
							 &gpuidx_exec_device, GPX_DEVICE_AUTO, device_options,
							 PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.executor_threads",
							"CPU threads of the executor (0: one per CPU).",
							NULL,
							&gpuidx_exec_threads, 0, 0, GPX_BATCH_MAX_THREADS,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.use_executor",
							 "Send intersections to the executor when it is running.",
							 "Off computes every intersection in the backend.",
							 &gpuidx_exec_use, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("gpuidx.executor_fallback",
							 "Compute in the backend when the executor cannot serve a request.",
							 "Off raises an error instead (arena full, request too large, executor down).",
							 &gpuidx_exec_fallback, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("gpuidx.executor_timeout",
							"Longest wait for the executor before computing in the backend (0: no limit).",
							NULL,
							&gpuidx_exec_timeout_ms, 10000, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
}

/* Register the executor background worker. */
static void
exec_register_worker(void)
{
	BackgroundWorker w;

	memset(&w, 0, sizeof(w));
	w.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	w.bgw_start_time = BgWorkerStart_ConsistentState;
	w.bgw_restart_time = 1;
	strlcpy(w.bgw_library_name, "gpuidx", BGW_MAXLEN);
	strlcpy(w.bgw_function_name, "gpuidx_exec_main", BGW_MAXLEN);
	strlcpy(w.bgw_name, GPX_EXEC_WORKER_TYPE, BGW_MAXLEN);
	strlcpy(w.bgw_type, GPX_EXEC_WORKER_TYPE, BGW_MAXLEN);
	w.bgw_main_arg = (Datum) 0;
	w.bgw_notify_pid = 0;
	RegisterBackgroundWorker(&w);
}

/* Module initialisation of the executor, called once from _PG_init. */
void
gpuidx_exec_init(void)
{
	exec_define_gucs();
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = exec_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = exec_shmem_startup;
	exec_register_worker();
}

/* ------------------------------------------------------------ arena -- */

/* First-fit allocation of len bytes; lock held exclusively. */
bool
gpuidx_exec_arena_alloc(uint64 len, uint64 *off)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxArenaExtent *ext = gpuidx_exec_shm->extents;

	len = TYPEALIGN(GPX_EXEC_CHUNK_ALIGN, len);
	if (len == 0 || len > ctl->arena_size)
		return false;
	for (int i = 0; i < ctl->nextents; i++)
	{
		if (ext[i].len < len)
			continue;
		*off = ext[i].off;
		ext[i].off += len;
		ext[i].len -= len;
		if (ext[i].len == 0)
		{
			memmove(&ext[i], &ext[i + 1],
					sizeof(GpxArenaExtent) * (ctl->nextents - i - 1));
			ctl->nextents--;
		}
		ctl->arena_used += len;
		if (ctl->arena_used > ctl->arena_peak)
			ctl->arena_peak = ctl->arena_used;
		return true;
	}
	return false;
}

/* Give a chunk back, merging with its neighbours; lock held exclusively. */
void
gpuidx_exec_arena_free(uint64 off, uint64 len)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxArenaExtent *ext = gpuidx_exec_shm->extents;
	int			lo = 0,
				hi = ctl->nextents;
	bool		merge_prev,
				merge_next;

	len = TYPEALIGN(GPX_EXEC_CHUNK_ALIGN, len);
	if (len == 0)
		return;
	/* position of the first extent after off */
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (ext[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	merge_prev = lo > 0 && ext[lo - 1].off + ext[lo - 1].len == off;
	merge_next = lo < ctl->nextents && off + len == ext[lo].off;
	if (merge_prev && merge_next)
	{
		ext[lo - 1].len += len + ext[lo].len;
		memmove(&ext[lo], &ext[lo + 1],
				sizeof(GpxArenaExtent) * (ctl->nextents - lo - 1));
		ctl->nextents--;
	}
	else if (merge_prev)
		ext[lo - 1].len += len;
	else if (merge_next)
	{
		ext[lo].off = off;
		ext[lo].len += len;
	}
	else
	{
		/* at most one extent per allocated chunk plus one: always room */
		Assert(ctl->nextents < ctl->nslots + 2);
		memmove(&ext[lo + 1], &ext[lo],
				sizeof(GpxArenaExtent) * (ctl->nextents - lo));
		ext[lo].off = off;
		ext[lo].len = len;
		ctl->nextents++;
	}
	Assert(ctl->arena_used >= len);
	ctl->arena_used -= len;
}

/* ------------------------------------------------------------ slots -- */

/* Pop a free slot and bump its generation; lock held exclusively. */
int
gpuidx_exec_slot_take(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl;
	int			i = ctl->free_head;

	if (i < 0)
		return -1;
	sl = &gpuidx_exec_shm->slots[i];
	ctl->free_head = sl->next;
	sl->generation++;
	sl->state = GPX_SLOT_FILLING;
	sl->requeues = 0;
	sl->prev = sl->next = -1;
	sl->owner_procno = -1;
	sl->owner_pid = 0;
	sl->exec_gen = 0;
	sl->cache_epoch = 0;
	sl->chunk_off = sl->chunk_len = 0;
	sl->lists_off = sl->out_off = sl->out_words = 0;
	sl->work = 0;
	sl->nqueries = sl->nlists = 0;
	sl->status = GPX_REQ_OK;
	sl->batch_backends = 0;
	sl->queued_at = 0;
	sl->wait_us = sl->run_us = 0;
	ctl->nused++;
	return i;
}

/* Release the cache pins a slot's request holds; lock held exclusively. */
static void
exec_slot_unpin(GpxExecSlot *sl, int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxReqList *rl;

	if (sl->chunk_len == 0 || sl->nlists == 0 ||
		sl->cache_epoch != ctl->cache_epoch)
		return;
	rl = (GpxReqList *) (gpuidx_exec_chunk(i) + sl->lists_off);
	for (uint32 j = 0; j < sl->nlists; j++)
	{
		int			e;

		if (!(rl[j].flags & GPX_REQ_PINNED))
			continue;
		e = gpuidx_exec_cache_find(rl[j].key, rl[j].len, rl[j].n,
								   rl[j].first, rl[j].last);
		if (e >= 0 && gpuidx_exec_shm->cache[e].pins > 0)
			gpuidx_exec_shm->cache[e].pins--;
		rl[j].flags &= ~GPX_REQ_PINNED;
	}
}

/* Free a slot (pins, chunk, free list); lock held exclusively. */
void
gpuidx_exec_slot_free(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	Assert(sl->state != GPX_SLOT_FREE);
	if (sl->state == GPX_SLOT_QUEUED)
		gpuidx_exec_queue_remove(i);
	exec_slot_unpin(sl, i);
	if (sl->chunk_len > 0)
		gpuidx_exec_arena_free(sl->chunk_off, sl->chunk_len);
	sl->chunk_off = sl->chunk_len = 0;
	sl->nlists = sl->nqueries = 0;
	sl->state = GPX_SLOT_FREE;
	sl->owner_procno = -1;
	sl->owner_pid = 0;
	sl->prev = -1;
	sl->next = ctl->free_head;
	ctl->free_head = i;
	ctl->nused--;
}

/* ------------------------------------------------------------ queue -- */

/* Append slot i to the queue; lock held exclusively. */
void
gpuidx_exec_queue_push(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	sl->state = GPX_SLOT_QUEUED;
	sl->next = -1;
	sl->prev = ctl->queue_tail;
	if (ctl->queue_tail >= 0)
		gpuidx_exec_shm->slots[ctl->queue_tail].next = i;
	else
		ctl->queue_head = i;
	ctl->queue_tail = i;
	ctl->nqueued++;
	ctl->queued_work += sl->work;
}

/* Put slot i at the head of the queue (it goes first); lock held. */
void
gpuidx_exec_queue_push_front(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	sl->state = GPX_SLOT_QUEUED;
	sl->prev = -1;
	sl->next = ctl->queue_head;
	if (ctl->queue_head >= 0)
		gpuidx_exec_shm->slots[ctl->queue_head].prev = i;
	else
		ctl->queue_tail = i;
	ctl->queue_head = i;
	ctl->nqueued++;
	ctl->queued_work += sl->work;
}

/* Unlink queued slot i (its state is the caller's business); lock held. */
void
gpuidx_exec_queue_remove(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	if (sl->prev >= 0)
		gpuidx_exec_shm->slots[sl->prev].next = sl->next;
	else
		ctl->queue_head = sl->next;
	if (sl->next >= 0)
		gpuidx_exec_shm->slots[sl->next].prev = sl->prev;
	else
		ctl->queue_tail = sl->prev;
	sl->prev = sl->next = -1;
	ctl->nqueued--;
	ctl->queued_work -= sl->work;
}

/* ------------------------------------------------------------ cache -- */

/*
 * Directory index of the entry with this key and blob length, and when
 * hdr is given also these header fields (n, first, last); -1 if none.
 * Linear probing; lock held.
 */
static int
exec_cache_probe(gpx_key key, uint32 len, const uint32 *hdr)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask;

	if (ctl->cache_cap == 0 || gpx_key_is_none(key))
		return -1;
	mask = (uint32) ctl->cache_cap - 1;
	for (uint32 i = (uint32) key.lo & mask, probes = 0;
		 probes < (uint32) ctl->cache_cap; i = (i + 1) & mask, probes++)
	{
		if (!c[i].used)
			return -1;
		if (gpx_key_eq(c[i].key, key) && c[i].len == len &&
			(hdr == NULL ||
			 (c[i].n == hdr[0] && c[i].first == hdr[1] && c[i].last == hdr[2])))
			return (int) i;
	}
	return -1;
}

/* Find a cached list by its key and header fields; lock held. */
int
gpuidx_exec_cache_find(gpx_key key, uint32 len, uint32 n, uint32 first,
					   uint32 last)
{
	uint32		hdr[3] = {n, first, last};

	return exec_cache_probe(key, len, hdr);
}

/*
 * Find the cached list with this key and blob length, whatever its header
 * fields (the caller learns them here); lock held.
 */
int
gpuidx_exec_cache_lookup(gpx_key key, uint32 len)
{
	return exec_cache_probe(key, len, NULL);
}

/*
 * Sample the OID counter; returns its position in the current epoch of
 * stored-list keys (the 32-bit counter extended by its wraparounds) and
 * sets *epoch.  Lock held exclusively, so samples are ordered.
 *
 * A stored list is keyed by its TOAST value OID and the position at which
 * the counter next comes back to that OID (client_stored_key): no other
 * value with that OID can exist before that point, and every later one
 * gets a later point, so the key names one content for good.  That needs
 * every wraparound counted, so samples must be less than 2^32 OIDs apart:
 * when more than GPX_EXEC_OID_MAX_GAP_US passed since the last sample (or
 * the clock went back), a new epoch starts, whose keys match nothing of
 * the old one.  The executor samples at least once a second while it runs.
 */
uint64
gpuidx_exec_oid_position(uint32 *epoch)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	instr_time	now;
	int64		now_us;
	uint32		cur;

	INSTR_TIME_SET_CURRENT(now);
	now_us = (int64) INSTR_TIME_GET_MICROSEC(now);
	/* the counter as of now: after every value our snapshot can see */
	pg_memory_barrier();
	cur = ((volatile VariableCacheData *) ShmemVariableCache)->nextOid;
	if (ctl->oid_epoch == 0 || now_us < ctl->oid_sampled_us ||
		now_us - ctl->oid_sampled_us > GPX_EXEC_OID_MAX_GAP_US)
	{
		ctl->oid_epoch++;
		ctl->oid_pos = cur;
	}
	else
		ctl->oid_pos += (uint32) (cur - (uint32) ctl->oid_pos);
	ctl->oid_sampled_us = now_us;
	*epoch = ctl->oid_epoch;
	return ctl->oid_pos;
}

/* ------------------------------------------------------------ misc -- */

/* Set the latch of the process with this pgprocno, if it is one. */
void
gpuidx_exec_wake_proc(int procno)
{
	if (procno >= 0 && (uint32) procno < ProcGlobal->allProcCount)
		SetLatch(&ProcGlobal->allProcs[procno].procLatch);
}
