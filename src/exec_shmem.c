/*
 * exec_shmem.c - the executor's shared memory: the region (its size,
 * layout and set-up through the shared memory hooks that _PG_init
 * installs) and the primitives every side uses on it: the arena
 * allocator, slots and their state transitions, the request queue and
 * the statistics counters.  See exec_shmem.h for the layout and the slot
 * state machine; the list cache's directory is exec_cache.c's.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"

#include "exec_cache.h"
#include "exec_cost.h"
#include "exec_rank.h"
#include "exec_shmem.h"
#include "gpuidx.h"

GpxExecShmem *gpuidx_exec_shm = NULL;

static GpxExecShmem exec_shm_local;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/* Size of the whole shared region. */
static Size
exec_shmem_size(void)
{
	int			cap = gpuidx_exec_cache_capacity();
	Size		sz = MAXALIGN(sizeof(GpxExecShared));

	sz = add_size(sz, mul_size(gpuidx_exec_max_requests, sizeof(GpxExecSlot)));
	sz = add_size(sz, mul_size(gpuidx_exec_max_requests + 2,
							   sizeof(GpxArenaExtent)));
	sz = add_size(sz, mul_size(cap, sizeof(GpxCacheEntry)));
	sz = add_size(sz, mul_size(gpuidx_exec_cache_extents(cap), sizeof(GpxArenaExtent)));
	sz = add_size(sz, mul_size(gpuidx_exec_cache_seen(cap), sizeof(gpx_key)));
	sz = add_size(sz, mul_size(gpuidx_exec_cache_nreaders(cap), sizeof(GpxCacheReader)));
	sz = add_size(sz, 4096);	/* page alignment of the arena */
	sz = add_size(sz, mul_size((Size) gpuidx_exec_arena_kb, 1024));
	if (cap > 0)
	{
		sz = add_size(sz, 4096);	/* page alignment of the cache's data */
		sz = add_size(sz, mul_size((Size) gpuidx_exec_cache_kb, 1024));
	}
	return sz;
}

/* Point the per-process view at the parts of the region. */
static void
exec_shmem_locate(char *base, int nslots, int cache_cap, int nreaders,
				  uint64 arena_size)
{
	char	   *p = base + MAXALIGN(sizeof(GpxExecShared));

	exec_shm_local.ctl = (GpxExecShared *) base;
	exec_shm_local.slots = (GpxExecSlot *) p;
	p += sizeof(GpxExecSlot) * nslots;
	exec_shm_local.extents = (GpxArenaExtent *) p;
	p += sizeof(GpxArenaExtent) * (nslots + 2);
	exec_shm_local.cache = (GpxCacheEntry *) p;
	p += sizeof(GpxCacheEntry) * cache_cap;
	exec_shm_local.cache_extents = (GpxArenaExtent *) p;
	p += sizeof(GpxArenaExtent) * gpuidx_exec_cache_extents(cache_cap);
	exec_shm_local.cache_seen = (gpx_key *) p;
	p += sizeof(gpx_key) * gpuidx_exec_cache_seen(cache_cap);
	exec_shm_local.cache_readers = (GpxCacheReader *) p;
	p += sizeof(GpxCacheReader) * nreaders;
	exec_shm_local.arena = (char *) TYPEALIGN(4096, p);
	exec_shm_local.cache_data = cache_cap > 0 ?
		(char *) TYPEALIGN(4096, exec_shm_local.arena + arena_size) : NULL;
	gpuidx_exec_shm = &exec_shm_local;
}

/* Initialise a fresh region: every slot free, the arena one extent. */
static void
exec_shmem_init_region(GpxExecShared *ctl)
{
	int			nslots = gpuidx_exec_max_requests;

	memset(ctl, 0, sizeof(*ctl));
	ctl->nslots = nslots;
	ctl->exec_state = GPX_EXEC_STOPPED;
	ctl->exec_procno = -1;
	SpinLockInit(&ctl->qlock);
	SpinLockInit(&ctl->alock);
	SpinLockInit(&ctl->oidlock);
	ctl->queue_head = ctl->queue_tail = -1;
	strlcpy(ctl->device_desc, "none", sizeof(ctl->device_desc));
	gpuidx_exec_cache_init_shared(ctl);
	ctl->arena_size = (uint64) gpuidx_exec_arena_kb * 1024;
	ctl->arena.size = ctl->arena_size;
	ctl->arena.max = nslots + 2;

	exec_shmem_locate((char *) ctl, nslots, ctl->cache_cap, ctl->cache_readers,
					  ctl->arena.size);
	for (int i = 0; i < nslots; i++)
	{
		GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

		memset(sl, 0, sizeof(*sl));
		sl->state = GPX_SLOT_FREE;
		sl->owner_procno = -1;
		sl->rank_dl = -1;
		sl->prev = -1;
		sl->next = i + 1 < nslots ? i + 1 : -1;
	}
	ctl->free_head = 0;
	gpuidx_exec_shm->extents[0].off = 0;
	gpuidx_exec_shm->extents[0].len = ctl->arena.size;
	ctl->arena.n = 1;
	gpuidx_exec_cache_init_parts();

	gpuidx_exec_cost_init(ctl);
	pg_atomic_init_u32(&ctl->clients_inflight, 0);
	pg_atomic_init_u32(&ctl->clients_waiting, 0);
	for (int e = 0; e < GPX_EXEC_RANK_DLS; e++)
	{
		pg_atomic_init_u32(&ctl->rank_dl[e].refs, 0);
		pg_atomic_init_u64(&ctl->rank_dl[e].used, 0);
	}
	gpuidx_exec_stats_reset(&ctl->stats, true);
}

/*
 * Zero every statistics counter and stamp the reset time; init: the
 * counters are not set up yet (a fresh region).
 */
void
gpuidx_exec_stats_reset(GpxExecStats *s, bool init)
{
	pg_atomic_uint64 *c = (pg_atomic_uint64 *) s;
	int			n = sizeof(GpxExecStats) / sizeof(pg_atomic_uint64);

	StaticAssertStmt(sizeof(GpxExecStats) % sizeof(pg_atomic_uint64) == 0,
					 "GpxExecStats holds only pg_atomic_uint64 counters");
	for (int i = 0; i < n; i++)
	{
		if (init)
			pg_atomic_init_u64(&c[i], 0);
		else
			pg_atomic_write_u64(&c[i], 0);
	}
	pg_atomic_write_u64(&s->reset_time, (uint64) GetCurrentTimestamp());
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
		exec_shmem_locate((char *) ctl, ctl->nslots, ctl->cache_cap,
						  ctl->cache_readers, ctl->arena.size);
	ctl->lock = &(GetNamedLWLockTranche(GPX_EXEC_TRANCHE))->lock;
	LWLockRelease(AddinShmemInitLock);
}

/* True when the region exists in this process (library preloaded). */
bool
gpuidx_exec_attach(void)
{
	return gpuidx_exec_shm != NULL;
}

/* Install the shared memory hooks (from _PG_init, when preloaded). */
void
gpuidx_exec_shmem_init(void)
{
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = exec_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = exec_shmem_startup;
}

/* ------------------------------------------------------------ arena -- */

/*
 * First-fit allocation of len bytes (rounded up) from pool p; the pool's
 * lock held (the arena's: alock; the cache data's: the lock exclusively).
 */
bool
gpuidx_exec_extent_alloc(GpxExtentPool *p, GpxArenaExtent *ext, uint64 len,
						 uint64 *off)
{
	len = TYPEALIGN(GPX_EXEC_CHUNK_ALIGN, len);
	if (len == 0 || len > p->size)
		return false;
	for (int i = 0; i < p->n; i++)
	{
		if (ext[i].len < len)
			continue;
		*off = ext[i].off;
		ext[i].off += len;
		ext[i].len -= len;
		if (ext[i].len == 0)
		{
			memmove(&ext[i], &ext[i + 1], sizeof(GpxArenaExtent) * (p->n - i - 1));
			p->n--;
		}
		p->used += len;
		if (p->used > p->peak)
			p->peak = p->used;
		return true;
	}
	return false;
}

/* Give a range back to pool p, merging with its neighbours; its lock held. */
void
gpuidx_exec_extent_free(GpxExtentPool *p, GpxArenaExtent *ext, uint64 off,
						uint64 len)
{
	int			lo = 0,
				hi = p->n;
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
	merge_next = lo < p->n && off + len == ext[lo].off;
	if (merge_prev && merge_next)
	{
		ext[lo - 1].len += len + ext[lo].len;
		memmove(&ext[lo], &ext[lo + 1], sizeof(GpxArenaExtent) * (p->n - lo - 1));
		p->n--;
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
		/* at most one extent per range handed out plus one: always room */
		Assert(p->n < p->max);
		memmove(&ext[lo + 1], &ext[lo], sizeof(GpxArenaExtent) * (p->n - lo));
		ext[lo].off = off;
		ext[lo].len = len;
		p->n++;
	}
	Assert(p->used >= len);
	p->used -= len;
}

/* First-fit allocation of len bytes of arena; takes alock. */
bool
gpuidx_exec_arena_alloc(uint64 len, uint64 *off)
{
	bool		ok;

	SpinLockAcquire(&gpuidx_exec_shm->ctl->alock);
	ok = gpuidx_exec_extent_alloc(&gpuidx_exec_shm->ctl->arena,
								  gpuidx_exec_shm->extents, len, off);
	SpinLockRelease(&gpuidx_exec_shm->ctl->alock);
	return ok;
}

/* Give an arena chunk back; takes alock. */
void
gpuidx_exec_arena_free(uint64 off, uint64 len)
{
	SpinLockAcquire(&gpuidx_exec_shm->ctl->alock);
	gpuidx_exec_extent_free(&gpuidx_exec_shm->ctl->arena,
							gpuidx_exec_shm->extents, off, len);
	SpinLockRelease(&gpuidx_exec_shm->ctl->alock);
}

/* ------------------------------------------------------------ slots -- */

/* Whether the slot state machine (exec_shmem.h) allows from -> to. */
static inline bool
exec_slot_may_go(GpxSlotState from, GpxSlotState to)
{
	switch (from)
	{
		case GPX_SLOT_FREE:
			return to == GPX_SLOT_FILLING;
		case GPX_SLOT_FILLING:
			return to == GPX_SLOT_QUEUED || to == GPX_SLOT_FREE;
		case GPX_SLOT_QUEUED:
			return to == GPX_SLOT_RUNNING || to == GPX_SLOT_FREE;
		case GPX_SLOT_RUNNING:
			return to == GPX_SLOT_DONE || to == GPX_SLOT_ABANDONED ||
				to == GPX_SLOT_QUEUED;
		case GPX_SLOT_DONE:
		case GPX_SLOT_ABANDONED:
			return to == GPX_SLOT_FREE;
	}
	return false;
}

/* Queue-lock depth of this process (assert-enabled builds check it). */
static int	exec_qlock_held = 0;

/* Take the queue lock (ctl->qlock); never held while taking the lock. */
void
gpuidx_exec_qlock(void)
{
	SpinLockAcquire(&gpuidx_exec_shm->ctl->qlock);
	exec_qlock_held++;
}

/* Release the queue lock. */
void
gpuidx_exec_qunlock(void)
{
	Assert(exec_qlock_held == 1);
	exec_qlock_held--;
	SpinLockRelease(&gpuidx_exec_shm->ctl->qlock);
}

/*
 * Move slot i to state to: every state change of a slot goes through
 * here, and assert-enabled builds check it against the state machine and
 * its locks (the queue lock for QUEUED and RUNNING, else the lock in
 * either mode).
 */
void
gpuidx_exec_slot_set_state(int i, GpxSlotState to)
{
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];
	GpxSlotState from PG_USED_FOR_ASSERTS_ONLY = (GpxSlotState) sl->state;

	Assert(i >= 0 && i < gpuidx_exec_shm->ctl->nslots);
	Assert((from == GPX_SLOT_QUEUED || from == GPX_SLOT_RUNNING ||
			to == GPX_SLOT_QUEUED || to == GPX_SLOT_RUNNING) ?
		   exec_qlock_held > 0 :
		   (exec_qlock_held > 0 || LWLockHeldByMe(gpuidx_exec_shm->ctl->lock)));
	Assert(exec_slot_may_go(from, to));
	/* a slot in a batch names it; one leaving it is in no batch anymore */
	Assert((from != GPX_SLOT_RUNNING && from != GPX_SLOT_ABANDONED) ||
		   sl->batch_id != 0);
	if (to != GPX_SLOT_RUNNING && to != GPX_SLOT_ABANDONED)
		sl->batch_id = 0;
	sl->state = to;
}

/*
 * Pop a free slot and bump its generation; lock held, either mode (the
 * free list under alock; the slot is then FILLING and the caller's: the
 * executor looks at every slot only under the lock exclusively).
 */
int
gpuidx_exec_slot_take(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl;
	int			i;

	Assert(LWLockHeldByMe(ctl->lock));
	SpinLockAcquire(&ctl->alock);
	i = ctl->free_head;
	if (i < 0)
	{
		SpinLockRelease(&ctl->alock);
		return -1;
	}
	sl = &gpuidx_exec_shm->slots[i];
	ctl->free_head = sl->next;
	ctl->nused++;
	SpinLockRelease(&ctl->alock);
	sl->generation++;
	gpuidx_exec_slot_set_state(i, GPX_SLOT_FILLING);
	sl->requeues = 0;
	sl->kind = GPX_REQ_KIND_ISECT;
	sl->prev = sl->next = -1;
	sl->owner_procno = -1;
	sl->owner_pid = 0;
	sl->exec_gen = 0;
	sl->batch_id = 0;
	sl->cache_epoch = 0;
	sl->chunk_off = sl->chunk_len = 0;
	sl->lists_off = sl->out_off = sl->out_words = 0;
	sl->work = 0;
	sl->nqueries = sl->nlists = 0;
	sl->status = GPX_REQ_OK;
	sl->batch_backends = 0;
	sl->queued_at = 0;
	sl->wait_us = sl->run_us = 0;
	sl->done_ns = 0;
	sl->rank_dl = -1;
	sl->rank_dl_id = 0;
	return i;
}

/*
 * The rest of freeing slot i, once it is FREE (and not yet on the free
 * list, so still ours): pins (of cached lists and of held statistics,
 * atomic counts), chunk, free list.  Lock held, either mode.
 */
static void
exec_slot_free_rest(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	Assert(LWLockHeldByMe(ctl->lock));
	gpuidx_exec_cache_unpin(i);
	gpuidx_exec_rank_dl_unref(i);
	if (sl->chunk_len > 0)
		gpuidx_exec_arena_free(sl->chunk_off, sl->chunk_len);
	sl->chunk_off = sl->chunk_len = 0;
	sl->nlists = sl->nqueries = 0;
	sl->owner_procno = -1;
	sl->owner_pid = 0;
	sl->prev = -1;
	SpinLockAcquire(&ctl->alock);
	sl->next = ctl->free_head;
	ctl->free_head = i;
	ctl->nused--;
	SpinLockRelease(&ctl->alock);
}

/*
 * Free slot i, or leave it for the executor: under the queue lock, a
 * queued slot leaves the queue and is freed; a RUNNING one (only an owner
 * may drop it) becomes ABANDONED; an ABANDONED one is freed by the
 * executor (!owner) and left alone by an owner, who gave it up already.
 * Lock held as for exec_slot_free_rest, no spinlock.  True when freed.
 */
static bool
exec_slot_drop(int i, bool owner)
{
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	Assert(LWLockHeldByMe(gpuidx_exec_shm->ctl->lock));
	gpuidx_exec_qlock();
	switch (sl->state)
	{
		case GPX_SLOT_RUNNING:
			/* the executor is writing into it: it frees it when done */
			Assert(owner);
			gpuidx_exec_slot_set_state(i, GPX_SLOT_ABANDONED);
			gpuidx_exec_qunlock();
			return false;
		case GPX_SLOT_ABANDONED:
			if (owner)
				break;
			gpuidx_exec_slot_set_state(i, GPX_SLOT_FREE);
			gpuidx_exec_qunlock();
			exec_slot_free_rest(i);
			return true;
		case GPX_SLOT_QUEUED:
			gpuidx_exec_queue_remove(i);
			/* FALLTHROUGH */
		case GPX_SLOT_FILLING:
		case GPX_SLOT_DONE:
			gpuidx_exec_slot_set_state(i, GPX_SLOT_FREE);
			gpuidx_exec_qunlock();
			exec_slot_free_rest(i);
			return true;
		default:
			/* FREE: not ours */
			Assert(owner);
			break;
	}
	gpuidx_exec_qunlock();
	return false;
}

/*
 * Free a slot that is not RUNNING (pins, chunk, free list); lock held as
 * for exec_slot_free_rest, no spinlock.
 */
void
gpuidx_exec_slot_free(int i)
{
	bool		freed PG_USED_FOR_ASSERTS_ONLY = exec_slot_drop(i, false);

	Assert(freed);
}

/*
 * The owner gives slot i up: free it, or mark it ABANDONED when it is in
 * a batch (the executor frees it then); lock held as for
 * exec_slot_free_rest, no spinlock.  Returns true when freed.
 */
bool
gpuidx_exec_slot_let_go(int i)
{
	return exec_slot_drop(i, true);
}

/* ------------------------------------------------------------ queue -- */

/* Append slot i to the queue; queue lock held. */
void
gpuidx_exec_queue_push(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	gpuidx_exec_slot_set_state(i, GPX_SLOT_QUEUED);
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

/* Put slot i at the head of the queue (it goes first); queue lock held. */
void
gpuidx_exec_queue_push_front(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	gpuidx_exec_slot_set_state(i, GPX_SLOT_QUEUED);
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

/* Unlink queued slot i (its state is the caller's business); queue lock held. */
void
gpuidx_exec_queue_remove(int i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	Assert(exec_qlock_held > 0 && sl->state == GPX_SLOT_QUEUED);
	Assert(ctl->nqueued > 0 && ctl->queued_work >= sl->work);
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

/*
 * An owner queues its filled request (slot, generation gen): under the
 * queue lock alone, while the slot is still FILLING and ours and the
 * executor runs (it stops only under the queue lock too).  Returns false
 * when not queued; else wakes the executor when it has a reason to look
 * (the queue was empty, or holds a batch's worth).
 */
bool
gpuidx_exec_queue_request(int slot, uint64 gen)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	TimestampTz now = GetCurrentTimestamp();
	int			exec_procno = -1;
	bool		queued;

	gpuidx_exec_qlock();
	queued = sl->generation == gen && sl->state == GPX_SLOT_FILLING &&
		ctl->exec_state == GPX_EXEC_RUNNING;
	if (queued)
	{
		sl->queued_at = now;
		gpuidx_exec_queue_push(slot);
		if (ctl->nqueued == 1 ||
			ctl->queued_work >= (uint64) gpuidx_exec_batch_threshold)
			exec_procno = ctl->exec_procno;
	}
	gpuidx_exec_qunlock();
	gpuidx_exec_wake_proc(exec_procno);
	return queued;
}

/* Owners of the queued requests (at most max), for waking them. */
int
gpuidx_exec_queue_owners(int *procs, int max)
{
	int			n = 0;

	gpuidx_exec_qlock();
	for (int i = gpuidx_exec_shm->ctl->queue_head; i >= 0 && n < max;
		 i = gpuidx_exec_shm->slots[i].next)
		procs[n++] = gpuidx_exec_shm->slots[i].owner_procno;
	gpuidx_exec_qunlock();
	return n;
}

/* ------------------------------------------------------------ misc -- */

/* Set the latch of the process with this pgprocno, if it is one. */
void
gpuidx_exec_wake_proc(int procno)
{
	if (procno >= 0 && (uint32) procno < ProcGlobal->allProcCount)
		SetLatch(&ProcGlobal->allProcs[procno].procLatch);
}
