/*
 * exec_client.c - the backend side of the executor protocol: routing,
 * packing queries into arena requests, waiting, reading results, and
 * giving requests up cleanly on cancel, error, timeout or exit.
 * Intersections and unions share all of it: a call is of one kind
 * (GPX_REQ_KIND_ISECT or _UNION), which sets what a query's result area
 * holds (an intersection: its shortest list's n; a union: the room the
 * caller gives, none when it only counts) and what it weighs (the
 * shortest list's n times the other lists; a union: all its postings).
 *
 * A call packs its queries into one or more requests (chunks of at most a
 * quarter of the arena, so that several are in flight at once and the
 * executor can start on the first while the next is copied).  Lists that
 * the executor caches go by key (a stored list then need not be read at
 * all: gpuidx_exec_resolve); the others are copied, once per request even
 * when several queries share them.  The backend then sleeps
 * on its latch until the executor marks the request DONE, the executor
 * goes away (the request is taken back and computed here), or
 * gpuidx.executor_timeout passes.  Cancel, statement_timeout and errors
 * leave through PG_CATCH, and backend exit through a before_shmem_exit
 * callback; both give every request of this backend up (see the state
 * machine in exec_shmem.h), so nothing leaks and nothing waits forever.
 * Whether a set of queries goes at all is the cost model's call
 * (exec_cost.c); list keys, stored lists and the cache are exec_cache.c's.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/memutils.h"

#include "exec_cache.h"
#include "exec_client.h"
#include "exec_cost.h"
#include "exec_shmem.h"
#include "gpuidx.h"
#include "gpx_batch.h"
#include "gpx_intersect.h"

/* Requests one backend keeps in flight at a time. */
#define CLIENT_MAX_INFLIGHT 8

/* Why a chunk of queries was not served by the executor. */
typedef enum ClientFail
{
	CF_NONE = 0,
	CF_DOWN,					/* no executor running */
	CF_ARENA_FULL,				/* no free slot or arena space */
	CF_TOO_LARGE,				/* the request exceeds the arena */
	CF_TIMEOUT,					/* gpuidx.executor_timeout passed */
	CF_FAILED					/* the executor could not compute it */
} ClientFail;

/* One list of the call, with its cache key. */
typedef struct ClientList
{
	const gpx_list *l;			/* l->base NULL: stored, not read */
	GpxExecStored *st;			/* the stored value behind l, or NULL */
	gpx_key		key;			/* none: never cached, copied every time */
} ClientList;

/* What the planner knows of one query. */
typedef struct ClientQInfo
{
	uint32		nmin;			/* shortest list's n */
	uint32		cap;			/* output capacity: nmin (intersection),
								 * the caller's room or 0 (union) */
	uint64		total;			/* all its lists' n */
	uint64		work;			/* nmin * (k - 1); a union: total */
	int			first;			/* its lists in ClientCall.lists */
} ClientQInfo;

/* A request: a run of routed queries sent together. */
typedef struct ClientChunk
{
	int			ra;				/* routed queries rq[ra .. rb) */
	int			rb;
	uint64		bytes;			/* planned request size */
	int			slot;			/* in flight: its slot, else -1 */
	uint64		gen;
	instr_time	submitted;
	ClientFail	fail;
	bool		finished;
} ClientChunk;

/* A distinct blob of a request. */
typedef struct ClientBlob
{
	ClientList *cl;
	bool		cacheable;		/* big enough for the executor's cache */
	int			cache_e;		/* directory entry when cached, else -1 */
	uint64		cache_off;		/* its bytes in the cache's data (pinned) */
	uint64		off;			/* offset in the chunk when inline */
} ClientBlob;

/* Distinct blobs of a request, found by content (equal lists go once). */
typedef struct ClientBlobTable
{
	ClientBlob *blobs;
	int			nblobs;
	int		   *slots;			/* open addressing, -1 = empty */
	uint32		mask;
} ClientBlobTable;

/* Everything one call works on. */
typedef struct ClientCall
{
	int			kind;			/* GPX_REQ_KIND_ISECT or _UNION */
	GpxExecQuery *qs;
	ClientQInfo *qi;
	ClientList *lists;
	int			nlists;
	int		   *dup_of;			/* per list: the first one with its blob */
	int		   *rq;				/* routed query indices */
	int			nr;
	uint64		work;			/* what the cost model weighs */
	uint64		bytes;
	uint64		postings;
	ClientChunk *chunks;
	int			nchunks;
	ClientBlobTable bt;			/* scratch, sized for every list */
} ClientCall;

/* Requests of this backend that may still be in shared memory. */
static struct
{
	int			slot;
	uint64		gen;
}			cl_inflight[CLIENT_MAX_INFLIGHT];
static int	cl_ninflight = 0;
static bool cl_exit_hooked = false;
static bool cl_warned_no_gpu = false;	/* this session was told once */
static bool cl_warned_no_executor = false;	/* likewise, without preloading */

/* --------------------------------------------------------- cleanup -- */

/* Give up one of our requests; lock held (either mode). */
static void
client_release_locked(int i, uint64 gen)
{
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[i];

	if (sl->generation != gen || sl->owner_pid != MyProcPid)
		return;					/* already reclaimed */
	/* freed, or left ABANDONED for the executor while in a batch */
	(void) gpuidx_exec_slot_let_go(i);
}

/* Forget an in-flight entry (after its slot was freed or abandoned). */
static void
client_forget(int slot)
{
	for (int j = 0; j < cl_ninflight; j++)
		if (cl_inflight[j].slot == slot)
		{
			cl_inflight[j] = cl_inflight[--cl_ninflight];
			if (cl_ninflight == 0)
				pg_atomic_fetch_sub_u32(&gpuidx_exec_shm->ctl->clients_inflight, 1);
			return;
		}
}

/* Record a new in-flight request of this backend; lock held. */
static void
client_remember(int slot, uint64 gen)
{
	cl_inflight[cl_ninflight].slot = slot;
	cl_inflight[cl_ninflight].gen = gen;
	if (cl_ninflight++ == 0)
		pg_atomic_fetch_add_u32(&gpuidx_exec_shm->ctl->clients_inflight, 1);
}

/* Give up every request of this backend (error, cancel, exit). */
static void
client_release_all(void)
{
	if (cl_ninflight == 0 || gpuidx_exec_shm == NULL)
	{
		cl_ninflight = 0;
		return;
	}
	LWLockAcquire(gpuidx_exec_shm->ctl->lock, LW_EXCLUSIVE);
	for (int j = 0; j < cl_ninflight; j++)
		client_release_locked(cl_inflight[j].slot, cl_inflight[j].gen);
	LWLockRelease(gpuidx_exec_shm->ctl->lock);
	cl_ninflight = 0;
	pg_atomic_fetch_sub_u32(&gpuidx_exec_shm->ctl->clients_inflight, 1);
}

/* before_shmem_exit callback: the backend exits with requests in flight. */
static void
client_on_exit(int code, Datum arg)
{
	LWLockReleaseAll();
	client_release_all();
	gpuidx_exec_cache_read_unpin();
}

/* ---------------------------------------------------------- routing -- */

/* Count one fallback of n queries for a reason. */
static void
client_count_fail(ClientFail f, uint64 n)
{
	GpxExecStats *s = &gpuidx_exec_shm->ctl->stats;

	switch (f)
	{
		case CF_NONE:
			break;
		case CF_DOWN:
			gpuidx_exec_count(&s->fb_executor_down, n);
			break;
		case CF_ARENA_FULL:
			gpuidx_exec_count(&s->fb_arena_full, n);
			break;
		case CF_TOO_LARGE:
			gpuidx_exec_count(&s->fb_too_large, n);
			break;
		case CF_TIMEOUT:
			gpuidx_exec_count(&s->fb_timeout, n);
			break;
		case CF_FAILED:
			gpuidx_exec_count(&s->fb_failed, n);
			break;
	}
}

/* Text of a fallback reason, for errors. */
static const char *
client_fail_text(ClientFail f)
{
	switch (f)
	{
		case CF_NONE:
			break;
		case CF_DOWN:
			return "The executor is not running.";
		case CF_ARENA_FULL:
			return "The shared arena has no room for the request (see gpuidx.arena_size and gpuidx.max_requests).";
		case CF_TOO_LARGE:
			return "The request is larger than the shared arena (gpuidx.arena_size).";
		case CF_TIMEOUT:
			return "The executor did not answer within gpuidx.executor_timeout.";
		case CF_FAILED:
			return "The executor could not compute the request.";
	}
	return "";
}

/* Whether the executor can take requests at all right now. */
static bool
client_executor_up(void)
{
	return gpuidx_exec_shm->ctl->exec_state == GPX_EXEC_RUNNING;
}

/*
 * gpuidx.device = gpu, and the running executor has no usable GPU (none
 * found, no driver, or the server's own gpuidx.device is cpu): raise
 * 55000, as for any executor that cannot serve what was asked; or, with
 * gpuidx.executor_fallback on, let the nq queries run on the executor's
 * cpu threads, counted in gpu_unavailable, with a WARNING once a session.
 */
static void
client_check_gpu(int nq)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	char		desc[GPX_DEVICE_DESC_LEN];
	char		note[sizeof(ctl->device_note)];

	if (gpuidx_exec_device != GPX_DEVICE_GPU || ctl->exec_gpu ||
		!client_executor_up())
		return;
	LWLockAcquire(ctl->lock, LW_SHARED);
	strlcpy(desc, ctl->device_desc, sizeof(desc));
	strlcpy(note, ctl->device_note, sizeof(note));
	LWLockRelease(ctl->lock);
	if (!gpuidx_exec_fallback)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuidx.device is gpu, but the executor has no usable gpu"),
				 errdetail("The executor runs batches on %s (%s).", desc, note),
				 errhint("Set gpuidx.device to auto or cpu, or gpuidx.executor_fallback = on to run on the executor's cpu threads.")));
	gpuidx_exec_count(&ctl->stats.gpu_unavailable, nq);
	if (!cl_warned_no_gpu)
	{
		cl_warned_no_gpu = true;
		ereport(WARNING,
				(errmsg("gpuidx.device is gpu, but the executor has no usable gpu: intersections run on its cpu threads"),
				 errdetail("The executor runs batches on %s (%s).", desc, note),
				 errhint("This is said once per session; gpuidx_stats.gpu_unavailable counts the queries.")));
	}
}

/*
 * gpuidx.device = gpu or cpu (every query to the executor), and there is
 * no executor at all: the library is not preloaded.  Raise 55000; or, with
 * gpuidx.executor_fallback on, let the backend compute the queries, with a
 * WARNING once a session (nothing counts them: gpuidx_stats lives in the
 * shared memory that preloading reserves).
 */
static void
client_check_preloaded(void)
{
	const char *dev = gpuidx_exec_device == GPX_DEVICE_GPU ? "gpu" : "cpu";

	if (gpuidx_exec_device == GPX_DEVICE_AUTO ||
		gpuidx_exec_device == GPX_DEVICE_BACKEND || !gpuidx_exec_use)
		return;
	if (!gpuidx_exec_fallback)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuidx.device is %s, but there is no executor: gpuidx is not preloaded", dev),
				 errdetail("The executor runs only when shared_preload_libraries includes gpuidx."),
				 errhint("Add gpuidx to shared_preload_libraries and restart the server, set gpuidx.device to auto, or gpuidx.executor_fallback = on to compute in the backend.")));
	if (!cl_warned_no_executor)
	{
		cl_warned_no_executor = true;
		ereport(WARNING,
				(errmsg("gpuidx.device is %s, but there is no executor: intersections are computed in the backend", dev),
				 errdetail("The executor runs only when shared_preload_libraries includes gpuidx."),
				 errhint("This is said once per session.")));
	}
}

/* ---------------------------------------------------- stored lists -- */

/* Whether a stored list of len bytes is worth keeping unread until the end. */
bool
gpuidx_exec_keeps_stored(uint32 len)
{
	return gpuidx_exec_shm != NULL && gpuidx_exec_use &&
		len >= GPX_EXEC_STORED_MIN_BYTES &&
		gpuidx_exec_shm->ctl->cache_cap > 0 && client_executor_up();
}

/*
 * Read a stored list now if it has not been read.  Header fields taken
 * from the executor's directory must match what is read (they are the
 * sizes of the buffers already made for the result).
 */
void
gpuidx_exec_read_stored(GpxExecStored *s)
{
	gpx_list	was = s->l;

	if (s->l.base != NULL)
		return;
	s->read(s);
	if (s->l.base == NULL)
		elog(ERROR, "gpuidx: a stored posting list could not be read");
	if (s->known && (was.len != s->l.len || was.n != s->l.n ||
					 was.first != s->l.first || was.last != s->l.last))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("stored posting list does not match the executor's cache entry"),
				 errdetail("The cache holds %u docIDs in %u bytes, the stored value %u in %zu bytes.",
						   was.n, (uint32) was.len, s->l.n, s->l.len)));
	s->known = true;
}

/*
 * Make stored lists usable: key each one (while the executor runs) and
 * take the header fields of those the executor caches from its directory,
 * without reading them; read the others.  Lists already resolved are left
 * as they are.
 */
void
gpuidx_exec_resolve(GpxExecStored *const *s, int n)
{
	bool		any = false;

	for (int i = 0; i < n; i++)
		any |= s[i] != NULL && !s[i]->known && s[i]->l.base == NULL;
	if (!any)
		return;
	if (gpuidx_exec_keeps_stored(GPX_EXEC_STORED_MIN_BYTES))
		gpuidx_exec_cache_resolve_stored(s, n);
	for (int i = 0; i < n; i++)
		if (s[i] != NULL && !s[i]->known)
			gpuidx_exec_read_stored(s[i]);
}

/* What identifies a list of a call in memory: its blob, or while unread the list. */
static inline const void *
client_list_id(const gpx_list *l)
{
	return l->base != NULL ? (const void *) l->base : (const void *) l;
}

/* Mix a 64-bit key into a table position. */
static inline uint32
client_mix(uint64 k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32) k;
}

/* A blob table with room for max distinct blobs. */
static void
client_bt_init(ClientBlobTable *t, int max)
{
	uint32		cap = 16;

	while (cap < 2 * (uint32) max)
		cap <<= 1;
	t->blobs = palloc(sizeof(ClientBlob) * Max(max, 1));
	t->slots = palloc(sizeof(int) * cap);
	t->mask = cap - 1;
	t->nblobs = 0;
	memset(t->slots, -1, sizeof(int) * cap);
}

/* Empty a blob table. */
static void
client_bt_reset(ClientBlobTable *t)
{
	if (t->nblobs > 0)
		memset(t->slots, -1, sizeof(int) * (t->mask + 1));
	t->nblobs = 0;
}

/*
 * Whether two lists of a call with one key are the same list.  The key
 * only finds candidates: a stored value's key names it (same key, same
 * value), but lists in memory are the same only if their bytes are.
 */
static bool
client_same_list(const ClientList *a, const ClientList *b)
{
	if (!gpx_key_eq(a->key, b->key) || a->l->len != b->l->len)
		return false;
	if (a->key.hi & GPX_KEY_NAMED_BIT)
		return true;
	return a->l->base != NULL && b->l->base != NULL &&
		memcmp(a->l->base, b->l->base, a->l->len) == 0;
}

/* Index of the distinct blob equal to cl, added if new (*added says). */
static int
client_bt_add(ClientBlobTable *t, ClientList *cl, bool *added)
{
	const gpx_list *l = cl->l;
	uint32		i;
	int			b;

	for (i = client_mix(cl->key.lo) & t->mask; (b = t->slots[i]) >= 0;
		 i = (i + 1) & t->mask)
	{
		if (!gpx_key_eq(t->blobs[b].cl->key, cl->key))
			continue;
		if (client_same_list(t->blobs[b].cl, cl))
		{
			*added = false;
			return b;
		}

		/*
		 * One key, different bytes: a collision of the keyed PRF, which
		 * nobody can make without the secret.  Should it ever happen, the
		 * second list goes without a key, so nothing takes it for the
		 * first; it is still copied and computed.
		 */
		ereport(LOG,
				(errmsg("gpuidx: two different posting lists share a cache key"),
				 errdetail("The second is sent without a key.")));
		cl->key.lo = cl->key.hi = 0;
		return client_bt_add(t, cl, added);
	}
	b = t->nblobs++;
	t->blobs[b].cl = cl;
	t->blobs[b].cacheable = gpuidx_exec_cache_wants((uint32) l->len, cl->key);
	t->blobs[b].cache_e = -1;
	t->blobs[b].off = 0;
	t->slots[i] = b;
	*added = true;
	return b;
}

/* Request bytes one more query adds to the chunk whose blobs are in t. */
static uint64
client_query_cost(ClientCall *c, int q)
{
	const GpxExecQuery *qq = &c->qs[q];
	uint64		b = sizeof(gpx_batch_query) + (uint64) qq->k * sizeof(GpxReqList) +
		(uint64) c->qi[q].cap * 4;

	for (int j = 0; j < qq->k; j++)
	{
		bool		added;

		client_bt_add(&c->bt, &c->lists[c->qi[q].first + j], &added);
		if (added)
			b += TYPEALIGN(8, qq->lists[j]->len);
	}
	return b;
}

/* A request being built from one chunk (the steps of client_submit). */
typedef struct ClientReq
{
	int			nq;				/* queries */
	int			nl;				/* list references */
	int		   *blob_of;		/* per reference: its distinct blob in bt */
	uint64		lists_off;		/* GpxReqList[nl] in the chunk */
	uint64		out_off;		/* results in the chunk */
	uint64		out_words;
	uint64		work;			/* postings of the queries' shortest lists */
	int			slot;			/* once reserved */
	uint64		gen;
	uint64		copied;			/* statistics, once filled */
	uint64		hits;
	uint64		misses;
	uint64		not_read;
} ClientReq;

/* Step 1: the chunk's distinct lists (c->bt) and the request's geometry. */
static void
client_req_lists(ClientCall *c, const ClientChunk *ch, ClientReq *rq)
{
	int			nl = 0;

	memset(rq, 0, sizeof(*rq));
	rq->nq = ch->rb - ch->ra;
	rq->slot = -1;
	for (int r = ch->ra; r < ch->rb; r++)
	{
		const ClientQInfo *qi = &c->qi[c->rq[r]];

		rq->nl += c->qs[c->rq[r]].k;
		rq->out_words += qi->cap;
		rq->work += c->kind == GPX_REQ_KIND_UNION ? qi->total : qi->nmin;
	}
	rq->blob_of = palloc(sizeof(int) * rq->nl);
	client_bt_reset(&c->bt);
	for (int r = ch->ra; r < ch->rb; r++)
	{
		int			q = c->rq[r];
		bool		added;

		for (int j = 0; j < c->qs[q].k; j++)
			rq->blob_of[nl++] = client_bt_add(&c->bt, &c->lists[c->qi[q].first + j],
											  &added);
	}
	rq->lists_off = (uint64) rq->nq * sizeof(gpx_batch_query);
}

/*
 * Step 2 (lock held): lists the executor holds go by key, the others get
 * their place in the chunk; sets out_off.  Returns false when a stored
 * list must be read first (it was evicted since resolved).
 */
static bool
client_req_place(ClientCall *c, ClientReq *rq)
{
	ClientBlobTable *t = &c->bt;
	uint64		off = rq->lists_off + (uint64) rq->nl * sizeof(GpxReqList);
	bool		need_read = false;

	for (int b = 0; b < t->nblobs; b++)
	{
		const gpx_list *l = t->blobs[b].cl->l;

		t->blobs[b].cache_e = !t->blobs[b].cacheable ? -1 :
			gpuidx_exec_cache_find(t->blobs[b].cl->key, l->len, l->n,
								   l->first, l->last);
		if (t->blobs[b].cache_e < 0)
		{
			t->blobs[b].off = off;
			off += TYPEALIGN(8, l->len);
			need_read |= l->base == NULL;
		}
	}
	rq->out_off = off;
	return !need_read;
}

/*
 * Step 3: place the lists (step 2, reading evicted stored lists and
 * starting over as needed), take a slot and an arena chunk, describe the
 * request in the slot and pin the cached lists it sends by key.  The slot
 * is then FILLING and ours alone.
 */
static ClientFail
client_req_reserve(ClientCall *c, ClientReq *rq)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	ClientBlobTable *t = &c->bt;
	GpxExecSlot *sl;
	uint64		total;

	for (;;)
	{
		/*
		 * shared: lookups, atomic pins, and our own slot and chunk (under
		 * alock), so that backends never queue behind each other here
		 */
		LWLockAcquire(ctl->lock, LW_SHARED);
		if (!client_executor_up())
		{
			LWLockRelease(ctl->lock);
			return CF_DOWN;
		}
		if (client_req_place(c, rq))
			break;
		LWLockRelease(ctl->lock);
		for (int b = 0; b < t->nblobs; b++)
			if (t->blobs[b].cache_e < 0 && t->blobs[b].cl->st != NULL)
				gpuidx_exec_read_stored(t->blobs[b].cl->st);
	}
	total = rq->out_off + rq->out_words * 4;
	if (total > ctl->arena_size)
	{
		LWLockRelease(ctl->lock);
		return CF_TOO_LARGE;
	}
	rq->slot = gpuidx_exec_slot_take();
	if (rq->slot < 0)
	{
		LWLockRelease(ctl->lock);
		return CF_ARENA_FULL;
	}
	sl = &gpuidx_exec_shm->slots[rq->slot];
	if (!gpuidx_exec_arena_alloc(total, &sl->chunk_off))
	{
		gpuidx_exec_slot_free(rq->slot);
		LWLockRelease(ctl->lock);
		return CF_ARENA_FULL;
	}
	sl->chunk_len = TYPEALIGN(GPX_EXEC_CHUNK_ALIGN, total);
	sl->kind = c->kind;
	sl->owner_procno = MyProc->pgprocno;
	sl->owner_pid = MyProcPid;
	sl->lists_off = rq->lists_off;
	sl->out_off = rq->out_off;
	sl->out_words = rq->out_words;
	sl->nqueries = rq->nq;
	sl->nlists = rq->nl;
	sl->work = rq->work;
	sl->cache_epoch = ctl->cache_epoch;
	for (int b = 0; b < t->nblobs; b++)
		if (t->blobs[b].cache_e >= 0)
			t->blobs[b].cache_off = gpuidx_exec_cache_pin(t->blobs[b].cache_e);
	rq->gen = sl->generation;
	client_remember(rq->slot, rq->gen);
	LWLockRelease(ctl->lock);
	return CF_NONE;
}

/*
 * Step 4, without the lock (the slot is FILLING, ours alone): write the
 * queries and list references, copy the lists that go inline, clear the
 * result area.
 */
static void
client_req_fill(ClientCall *c, const ClientChunk *ch, ClientReq *rq)
{
	ClientBlobTable *t = &c->bt;
	char	   *chunk = gpuidx_exec_chunk(rq->slot);
	gpx_batch_query *bq = (gpx_batch_query *) chunk;
	GpxReqList *rl = (GpxReqList *) (chunk + rq->lists_off);
	bool	   *pinned = palloc0(sizeof(bool) * Max(t->nblobs, 1));
	uint64		o = 0;
	int			L = 0;

	for (int r = ch->ra; r < ch->rb; r++)
	{
		int			q = c->rq[r];
		gpx_batch_query *d = &bq[r - ch->ra];

		d->first_list = L;
		d->nlists = c->qs[q].k;
		d->out_offset = o;
		d->out_capacity = c->qi[q].cap;
		d->out_count = 0;
		d->status = -1;
		d->flags = c->kind == GPX_REQ_KIND_UNION && c->qs[q].count ? GPX_BQ_COUNT : 0;
		o += c->qi[q].cap;
		for (int j = 0; j < c->qs[q].k; j++, L++)
		{
			ClientBlob *cb = &t->blobs[rq->blob_of[L]];
			const gpx_list *l = cb->cl->l;

			rl[L].key = cb->cl->key;
			rl[L].len = (uint32) l->len;
			rl[L].n = l->n;
			rl[L].first = l->first;
			rl[L].last = l->last;
			rl[L].flags = cb->cacheable ? GPX_REQ_CACHEABLE : 0;
			rl[L].pad = 0;
			if (cb->cache_e >= 0)
			{
				/* where the pin holds it: the executor needs no lookup */
				rl[L].off = cb->cache_off;
				rl[L].flags |= GPX_REQ_BY_KEY;
				/* one reference per pin, so freeing unpins once */
				if (!pinned[rq->blob_of[L]])
					rl[L].flags |= GPX_REQ_PINNED;
				pinned[rq->blob_of[L]] = true;
			}
			else
			{
				rl[L].off = cb->off;
				rl[L].flags |= GPX_REQ_INLINE;
			}
		}
	}
	for (int b = 0; b < t->nblobs; b++)
	{
		if (t->blobs[b].cache_e >= 0)
		{
			rq->hits++;
			rq->not_read += t->blobs[b].cl->l->base == NULL;
		}
		else
		{
			memcpy(chunk + t->blobs[b].off, t->blobs[b].cl->l->base,
				   t->blobs[b].cl->l->len);
			rq->copied += t->blobs[b].cl->l->len;
			rq->misses += t->blobs[b].cacheable;
		}
	}

	/*
	 * The result area still holds whatever an earlier request of any
	 * backend left in this part of the arena: clear it, so that only what
	 * the executor writes for this request can ever be read back.
	 */
	memset(chunk + rq->out_off, 0, rq->out_words * 4);
	pfree(pinned);
}

/*
 * Step 5: queue the filled request and wake the executor when it has a
 * reason to look (the queue was empty, or holds a batch's worth).
 */
static ClientFail
client_req_queue(ClientReq *rq)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (!gpuidx_exec_queue_request(rq->slot, rq->gen))
	{
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		client_release_locked(rq->slot, rq->gen);
		client_forget(rq->slot);
		LWLockRelease(ctl->lock);
		return CF_DOWN;
	}
	return CF_NONE;
}

/*
 * Pack chunk ch into a new request and queue it: its lists (step 1), a
 * slot and chunk (steps 2-3), its contents (4), the queue (5).  Returns
 * CF_NONE when queued (ch->slot set), else why not.
 */
static ClientFail
client_submit(ClientCall *c, ClientChunk *ch)
{
	GpxExecStats *stats = &gpuidx_exec_shm->ctl->stats;
	ClientReq	rq;
	ClientFail	f;

	client_req_lists(c, ch, &rq);
	f = client_req_reserve(c, &rq);
	if (f == CF_NONE)
	{
		client_req_fill(c, ch, &rq);
		f = client_req_queue(&rq);
	}
	pfree(rq.blob_of);
	if (f != CF_NONE)
		return f;
	gpuidx_exec_count(&stats->bytes_copied, rq.copied);
	gpuidx_exec_count(&stats->cache_hits, rq.hits);
	gpuidx_exec_count(&stats->cache_misses, rq.misses);
	gpuidx_exec_count(&stats->lists_not_read, rq.not_read);
	ch->slot = rq.slot;
	ch->gen = rq.gen;
	INSTR_TIME_SET_CURRENT(ch->submitted);
	return CF_NONE;
}

/* Copy a DONE request's results to its queries; false if any failed. */
static bool
client_collect(ClientCall *c, ClientChunk *ch, bool overhead_sample)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[ch->slot];
	char	   *chunk = gpuidx_exec_chunk(ch->slot);
	gpx_batch_query *rq = (gpx_batch_query *) chunk;
	const uint32 *out = (const uint32 *) (chunk + sl->out_off);
	bool		all = sl->status == GPX_REQ_OK;
	instr_time	now;
	int64		wall_ns,
				other_ns;

	/* DONE and ours: nobody else touches it until we free it */
	for (int r = ch->ra; all && r < ch->rb; r++)
	{
		int			q = c->rq[r];
		gpx_batch_query *d = &rq[r - ch->ra];
		bool		counts = c->kind == GPX_REQ_KIND_UNION && c->qs[q].count;

		if (d->status != GPX_OK ||
			(counts ? d->out_count > c->qi[q].total :
			 d->out_count > c->qi[q].cap ||
			 d->out_offset + d->out_count > sl->out_words))
		{
			all = false;
			continue;
		}
		if (!counts)
			memcpy(c->qs[q].out, out + d->out_offset, sizeof(uint32) * d->out_count);
		c->qs[q].outn = d->out_count;
		c->qs[q].done = true;
	}

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, ch->submitted);
	wall_ns = (int64) (INSTR_TIME_GET_DOUBLE(now) * 1e9);
	gpuidx_exec_count(&ctl->stats.roundtrip_us, wall_ns / 1000);
	/*
	 * the model's overhead: what is neither batching wait nor compute nor
	 * the wait, once DONE, for this backend to run again (noted apart: on
	 * a host with no free core that is a wait for a core, not this path's)
	 */
	other_ns = wall_ns - (sl->wait_us + sl->run_us) * 1000;
	if (overhead_sample)
	{
		int64		wake_ns = sl->done_ns > 0 ? gpuidx_exec_now_ns() - sl->done_ns : 0;

		wake_ns = Max(Min(wake_ns, other_ns), 0);
		gpuidx_exec_cost_note_wake(wake_ns);
		gpuidx_exec_cost_note_overhead(other_ns - wake_ns);
	}
	return all;
}

/*
 * Poll for up to gpuidx.spin_wait microseconds, without the lock, for a
 * sign that a waiting backend has something to do: one of the n requests
 * in slots DONE, the executor gone, or an interrupt.  Returns true when
 * one came (or may have).
 */
static bool
client_spin(const int *slots, int n)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	instr_time	start,
				now;

	if (gpuidx_exec_spin_us <= 0 || n == 0)
		return false;
	INSTR_TIME_SET_CURRENT(start);
	for (uint32 iter = 0;; iter++)
	{
		for (int k = 0; k < n; k++)
			if (((volatile GpxExecSlot *) &gpuidx_exec_shm->slots[slots[k]])->state ==
				GPX_SLOT_DONE)
				return true;
		if (InterruptPending ||
			((volatile GpxExecShared *) ctl)->exec_state == GPX_EXEC_STOPPED)
			return true;
		pg_spin_delay();
		if ((iter & 63) == 63)
		{
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			if (INSTR_TIME_GET_MICROSEC(now) >= (uint64) gpuidx_exec_spin_us)
				return false;
		}
	}
}

/* gpuidx_exec_client_block over the chunks of c still in flight. */
static void
client_block(ClientCall *c, long sleep_ms)
{
	int		   *slots = palloc(sizeof(int) * Max(c->nchunks, 1));
	int			n = 0;

	for (int k = 0; k < c->nchunks; k++)
		if (c->chunks[k].slot >= 0 && !c->chunks[k].finished)
			slots[n++] = c->chunks[k].slot;
	gpuidx_exec_client_block(slots, n, sleep_ms);
	pfree(slots);
}

/* Milliseconds a request sent at submitted has waited by now. */
static int64
client_waited_ms(instr_time submitted, instr_time now)
{
	INSTR_TIME_SUBTRACT(now, submitted);
	return (int64) INSTR_TIME_GET_MILLISEC(now);
}

/*
 * Look, without the lock, at our request (slot, gen) sent at submitted:
 * GPX_LOOK_DONE when it can be collected at once (a DONE slot of a live
 * owner stays its own: only the owner frees it), GPX_LOOK_LOCK when only
 * the lock can tell (reclaimed, the executor stopped, timed out), else
 * GPX_LOOK_WAIT, with *sleep_ms lowered to the time left before the
 * timeout.  A stale look costs a round of the caller's loop.
 */
GpxExecLook
gpuidx_exec_client_look(int slot, uint64 gen, instr_time submitted,
						instr_time now, long *sleep_ms)
{
	volatile GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	int64		waited_ms = client_waited_ms(submitted, now);
	bool		ours = sl->generation == gen && sl->owner_pid == MyProcPid;

	if (ours && sl->state == GPX_SLOT_DONE)
		return GPX_LOOK_DONE;
	if (!ours ||
		((volatile GpxExecShared *) gpuidx_exec_shm->ctl)->exec_state == GPX_EXEC_STOPPED ||
		(gpuidx_exec_timeout_ms > 0 && waited_ms >= gpuidx_exec_timeout_ms))
		return GPX_LOOK_LOCK;
	if (gpuidx_exec_timeout_ms > 0)
		*sleep_ms = Min(*sleep_ms, Max(1, gpuidx_exec_timeout_ms - waited_ms));
	return GPX_LOOK_WAIT;
}

/*
 * The last client to block tells the executor that nothing more comes,
 * then it sleeps (after a spin over slots[0..n)) until its latch is set,
 * sleep_ms pass or an interrupt comes.
 */
void
gpuidx_exec_client_block(const int *slots, int n, long sleep_ms)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (pg_atomic_add_fetch_u32(&ctl->clients_waiting, 1) >=
		pg_atomic_read_u32(&ctl->clients_inflight))
		gpuidx_exec_wake_proc(ctl->exec_procno);
	if (!client_spin(slots, n))
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 sleep_ms, GPX_EXEC_WAIT_EVENT);
	pg_atomic_fetch_sub_u32(&ctl->clients_waiting, 1);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
}

/*
 * Wait until at least one in-flight chunk finishes: results in, taken
 * back because the executor stopped, or given up at the timeout.
 */
static void
client_wait(ClientCall *c)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	for (;;)
	{
		bool		any = false,
					locked;
		long		sleep_ms = 1000;
		instr_time	now;

		/*
		 * The common cases need no lock: a chunk whose slot is DONE with
		 * our generation and pid stays ours (only its owner frees a DONE
		 * slot of a live backend), so it can be collected at once; and
		 * while every chunk waits in time for a running executor there is
		 * nothing to do but wait on.  The lock is taken only to give a
		 * request up (a stale look costs a round of this loop).
		 */
		INSTR_TIME_SET_CURRENT(now);
		locked = false;
		for (int k = 0; k < c->nchunks && !any; k++)
		{
			const ClientChunk *ch = &c->chunks[k];
			GpxExecLook look;

			if (ch->slot < 0 || ch->finished)
				continue;
			look = gpuidx_exec_client_look(ch->slot, ch->gen, ch->submitted,
										   now, &sleep_ms);
			any = look == GPX_LOOK_DONE;
			locked |= look == GPX_LOOK_LOCK;
		}
		locked &= !any;
		if (locked)
			LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		for (int k = 0; locked && k < c->nchunks; k++)
		{
			ClientChunk *ch = &c->chunks[k];
			GpxExecSlot *sl;
			int64		waited_ms;

			if (ch->slot < 0 || ch->finished)
				continue;
			sl = &gpuidx_exec_shm->slots[ch->slot];
			waited_ms = client_waited_ms(ch->submitted, now);
			if (sl->generation != ch->gen || sl->owner_pid != MyProcPid)
			{
				/* reclaimed behind our back: should not happen */
				ch->fail = CF_FAILED;
				ch->finished = true;
				client_forget(ch->slot);
				ch->slot = -1;
				any = true;
			}
			else if (sl->state == GPX_SLOT_DONE)
				any = true;		/* collected below, without the lock */
			else if (ctl->exec_state == GPX_EXEC_STOPPED ||
					 (gpuidx_exec_timeout_ms > 0 &&
					  waited_ms >= gpuidx_exec_timeout_ms))
			{
				ch->fail = ctl->exec_state == GPX_EXEC_STOPPED ? CF_DOWN : CF_TIMEOUT;
				client_release_locked(ch->slot, ch->gen);
				client_forget(ch->slot);
				ch->slot = -1;
				ch->finished = true;
				any = true;
			}
			else if (gpuidx_exec_timeout_ms > 0)
				sleep_ms = Min(sleep_ms, Max(1, gpuidx_exec_timeout_ms - waited_ms));
		}
		if (locked)
			LWLockRelease(ctl->lock);

		if (any)
		{
			/* results were written before DONE was set (queue lock) */
			pg_read_barrier();
			for (int k = 0; k < c->nchunks; k++)
			{
				ClientChunk *ch = &c->chunks[k];

				if (ch->slot < 0 || ch->finished ||
					gpuidx_exec_shm->slots[ch->slot].state != GPX_SLOT_DONE)
					continue;
				if (!client_collect(c, ch, c->nchunks == 1))
					ch->fail = CF_FAILED;
				/* shared: our DONE slot, its pins, chunk and free list */
				LWLockAcquire(ctl->lock, LW_SHARED);
				client_release_locked(ch->slot, ch->gen);
				LWLockRelease(ctl->lock);
				client_forget(ch->slot);
				ch->slot = -1;
				ch->finished = true;
			}
			return;
		}

		client_block(c, sleep_ms);
	}
}

/*
 * Split the routed queries into requests of at most a quarter of the
 * arena (counting each distinct list once per request); a query larger
 * than that goes alone.  Returns the total planned bytes.
 */
static uint64
client_plan(ClientCall *c)
{
	uint64		target = Max(gpuidx_exec_shm->ctl->arena_size / 4, 1);
	uint64		total = 0;
	ClientChunk *ch = NULL;

	c->nchunks = 0;
	client_bt_reset(&c->bt);
	for (int r = 0; r < c->nr; r++)
	{
		uint64		b = client_query_cost(c, c->rq[r]);

		if (ch != NULL && ch->bytes + b > target)
		{
			/* close the chunk; the query opens the next one */
			client_bt_reset(&c->bt);
			b = client_query_cost(c, c->rq[r]);
			ch = NULL;
		}
		if (ch == NULL)
		{
			ch = &c->chunks[c->nchunks++];
			ch->ra = r;
			ch->bytes = 0;
			ch->slot = -1;
			ch->fail = CF_NONE;
			ch->finished = false;
		}
		ch->rb = r + 1;
		ch->bytes += b;
		total += b;
	}
	return total;
}

/* Send the chunks, keeping up to CLIENT_MAX_INFLIGHT requests in flight. */
static void
client_run_chunks(ClientCall *c)
{
	int			next = 0;

	for (;;)
	{
		int			inflight = 0;

		for (int k = 0; k < c->nchunks; k++)
			inflight += c->chunks[k].slot >= 0 && !c->chunks[k].finished;
		while (next < c->nchunks && inflight < CLIENT_MAX_INFLIGHT)
		{
			ClientFail f = client_submit(c, &c->chunks[next]);

			if (f == CF_NONE)
			{
				inflight++;
				next++;
			}
			else if (f == CF_ARENA_FULL && inflight > 0)
				break;			/* room comes back with our own results */
			else
			{
				c->chunks[next].fail = f;
				c->chunks[next].finished = true;
				next++;
			}
		}
		if (inflight == 0 && next >= c->nchunks)
			return;
		if (inflight > 0)
			client_wait(c);
	}
}

/* client_run_chunks, giving every request up on cancel, timeout or error. */
static void
client_run_guarded(ClientCall *c)
{
	PG_TRY();
	{
		client_run_chunks(c);
	}
	PG_CATCH();
	{
		client_release_all();
		PG_RE_THROW();
	}
	PG_END_TRY();
	client_release_all();		/* normally nothing is left */
}

/*
 * The queries of a call that go anywhere (an intersection with an empty
 * list, a union of empty lists has an empty answer; a union whose every
 * docID might not fit the caller's room stays with the caller): their
 * lengths, capacities, work and request bytes.
 */
static void
client_call_queries(ClientCall *c, GpxExecQuery *qs, int nq, int kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->qs = qs;
	c->qi = palloc0(sizeof(ClientQInfo) * nq);
	c->rq = palloc(sizeof(int) * nq);
	for (int q = 0; q < nq; q++)
	{
		ClientQInfo *qi = &c->qi[q];
		uint32		nmin = UINT32_MAX;
		uint64		total = 0;

		if (qs[q].k < 1 || qs[q].lists == NULL)
			continue;
		for (int j = 0; j < qs[q].k; j++)
		{
			nmin = Min(nmin, qs[q].lists[j]->n);
			total += qs[q].lists[j]->n;
		}
		qi->nmin = nmin;
		qi->total = total;
		if (kind == GPX_REQ_KIND_UNION)
		{
			if (total == 0)
				continue;		/* empty answer: nothing to send */
			if (!qs[q].count && total > qs[q].outcap)
				continue;		/* may not fit: the caller's */
			qi->cap = qs[q].count ? 0 : (uint32) total;
			qi->work = total;
		}
		else
		{
			if (nmin == 0)
				continue;		/* empty answer: nothing to send */
			qi->cap = nmin;
			qi->work = gpuidx_exec_query_work(nmin, qs[q].k);
		}
		qi->first = c->nlists;
		c->rq[c->nr++] = q;
		c->nlists += qs[q].k;
		c->work += qi->work;
		c->postings += kind == GPX_REQ_KIND_UNION ? total : nmin;
		c->bytes += sizeof(gpx_batch_query) + (uint64) qi->cap * 4 +
			(uint64) qs[q].k * sizeof(GpxReqList);
	}
}

/*
 * The lists of the routed queries.  Lists shared by several queries (the
 * same blob in memory, as the aggregate shares stored lists) are copied
 * and keyed once: find them by address (of the blob, or of the list while
 * a stored one is not read), for the size estimate now and the keys later.
 */
static void
client_call_lists(ClientCall *c)
{
	uint32		cap = 16;
	int		   *seen;

	c->lists = palloc(sizeof(ClientList) * c->nlists);
	c->dup_of = palloc(sizeof(int) * c->nlists);
	while (cap < 2 * (uint32) c->nlists)
		cap <<= 1;
	seen = palloc(sizeof(int) * cap);
	memset(seen, -1, sizeof(int) * cap);
	for (int r = 0; r < c->nr; r++)
	{
		int			q = c->rq[r];

		for (int j = 0; j < c->qs[q].k; j++)
		{
			int			L = c->qi[q].first + j;
			const gpx_list *l = c->qs[q].lists[j];
			const void *id = client_list_id(l);
			uint32		i;

			c->lists[L].l = l;
			c->lists[L].st = c->qs[q].stored != NULL ? c->qs[q].stored[j] : NULL;
			for (i = client_mix((uint64) (uintptr_t) id) & (cap - 1);
				 seen[i] >= 0 && client_list_id(c->lists[seen[i]].l) != id;
				 i = (i + 1) & (cap - 1))
				;
			if (seen[i] >= 0 && c->lists[seen[i]].l->len == l->len)
				c->dup_of[L] = seen[i];
			else
			{
				c->dup_of[L] = L;
				/* a stored list the executor holds is not copied */
				if (l->base != NULL)
					c->bytes += TYPEALIGN(8, l->len);
				if (seen[i] < 0)
					seen[i] = L;
			}
		}
	}
	pfree(seen);
}

/*
 * Keys: equal lists are sent once (client_bt_add compares their bytes),
 * cached ones by key; the key is scoped to this role.  A stored list
 * keyed by its identity keeps that key, read or not; the others are keyed
 * by their content.
 */
static void
client_call_keys(ClientCall *c)
{
	for (int L = 0; L < c->nlists; L++)
	{
		ClientList *cl = &c->lists[L];

		if (c->dup_of[L] != L)
			cl->key = c->lists[c->dup_of[L]].key;
		else if (cl->st != NULL && cl->st->keyed)
			cl->key = cl->st->key;
		else
			cl->key = gpuidx_exec_cache_key(cl->l);
	}
}

/*
 * Count the queries the executor did not compute, by reason, and raise
 * the first reason as an error unless gpuidx.executor_fallback is on.
 * Returns how many it computed.
 */
static int
client_call_outcome(ClientCall *c)
{
	ClientFail	first_fail = CF_NONE;
	int			ndone = 0;

	for (int k = 0; k < c->nchunks; k++)
	{
		ClientChunk *ch = &c->chunks[k];
		int			failed = 0;

		for (int r = ch->ra; r < ch->rb; r++)
		{
			ndone += c->qs[c->rq[r]].done;
			failed += !c->qs[c->rq[r]].done;
		}
		if (failed > 0)
		{
			ClientFail	f = ch->fail != CF_NONE ? ch->fail : CF_FAILED;

			client_count_fail(f, failed);
			if (first_fail == CF_NONE)
				first_fail = f;
		}
	}
	if (first_fail != CF_NONE && !gpuidx_exec_fallback)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuidx executor could not serve the %s",
						c->kind == GPX_REQ_KIND_UNION ? "union" : "intersection"),
				 errdetail("%s", client_fail_text(first_fail)),
				 errhint("Set gpuidx.executor_fallback = on to compute it in the backend instead.")));
	return ndone;
}

/*
 * Send queries of one kind to the executor as one set; returns how many
 * it computed.
 */
static int
client_many(GpxExecQuery *qs, int nq, int kind)
{
	ClientCall	c;
	int64		cpu0;

	for (int q = 0; q < nq; q++)
		qs[q].done = false;
	if (nq <= 0 || !gpuidx_exec_use)
		return 0;
	if (gpuidx_exec_shm == NULL)
	{
		client_check_preloaded();
		return 0;
	}
	if (cl_ninflight > 0)
		client_release_all();	/* left over by an earlier error */
	if (!cl_exit_hooked)
	{
		before_shmem_exit(client_on_exit, (Datum) 0);
		cl_exit_hooked = true;
	}

	/* stored lists: their header fields, from the executor's cache or read */
	for (int q = 0; q < nq; q++)
		if (qs[q].stored != NULL && qs[q].k > 0)
			gpuidx_exec_resolve(qs[q].stored, qs[q].k);

	client_call_queries(&c, qs, nq, kind);
	if (c.nr == 0)
		return 0;
	client_call_lists(&c);

	/* decide before keying anything: the backend path pays nothing */
	if (!gpuidx_exec_cost_route(c.nr, c.work, c.bytes, c.postings))
	{
		gpuidx_exec_count(&gpuidx_exec_shm->ctl->stats.backend_queries, c.nr);
		return 0;
	}

	client_check_gpu(c.nr);
	cpu0 = gpuidx_exec_device == GPX_DEVICE_AUTO ? gpuidx_exec_thread_cpu_ns() : 0;
	client_call_keys(&c);
	client_bt_init(&c.bt, c.nlists);
	c.chunks = palloc(sizeof(ClientChunk) * c.nr);
	(void) client_plan(&c);
	client_run_guarded(&c);
	/* this backend's CPU for the round trip, for auto's busy-host model */
	if (kind == GPX_REQ_KIND_ISECT && gpuidx_exec_device == GPX_DEVICE_AUTO)
		gpuidx_exec_cost_note_req_cpu(c.nr, gpuidx_exec_thread_cpu_ns() - cpu0);
	return client_call_outcome(&c);
}

/* Send intersections to the executor as one set; returns how many it computed. */
int
gpuidx_exec_intersect_many(GpxExecQuery *qs, int nq)
{
	return client_many(qs, nq, GPX_REQ_KIND_ISECT);
}

/* Send unions to the executor as one set; returns how many it computed. */
int
gpuidx_exec_union_many(GpxExecQuery *qs, int nq)
{
	return client_many(qs, nq, GPX_REQ_KIND_UNION);
}

/* Whether the executor takes requests now (worth gathering queries for). */
bool
gpuidx_exec_can_batch(void)
{
	return gpuidx_exec_shm != NULL && gpuidx_exec_use && client_executor_up();
}

/* Run one query on the executor; false: the caller computes it. */
bool
gpuidx_exec_intersect(const gpx_list *const *lists, int k, uint32 *out,
					  uint32 *outn)
{
	GpxExecQuery q;

	q.lists = lists;
	q.stored = NULL;
	q.k = k;
	q.out = out;
	q.outn = 0;
	q.done = false;
	if (gpuidx_exec_intersect_many(&q, 1) == 1)
	{
		*outn = q.outn;
		return true;
	}
	return false;
}

/*
 * Pin in the shared cache the stored lists of s[0..n) it holds (known from
 * the directory, not read) and open them there: use[j] is then &opened[j],
 * checked against the directory's header fields, else lists[j].  A list
 * evicted since it was resolved, or one whose copy does not open as the
 * directory says, is read from its table (the pins are let go first:
 * reading may raise an error), and the pins taken again.  Returns the
 * pins held: until gpuidx_exec_cache_read_unpin the caller runs nothing
 * that can raise an error.  s[j] NULL: lists[j] is in memory.
 */
int
gpuidx_exec_pin_in_place(GpxExecStored *const *s, const gpx_list *const *lists,
						 int n, const gpx_list **use, gpx_list *opened)
{
	const uint8 **blobs = palloc(sizeof(uint8 *) * n);
	bool	   *must_read = palloc(sizeof(bool) * n);
	int			pinned;

	for (;;)
	{
		bool		reads = false;

		pinned = gpuidx_exec_cache_read_pin(s, n, blobs);
		for (int j = 0; j < n; j++)
		{
			GpxExecStored *st = s[j];

			use[j] = lists[j];
			must_read[j] = false;
			if (st == NULL || st->l.base != NULL)
				continue;
			if (blobs[j] != NULL &&
				gpx_open(&opened[j], blobs[j], st->len) == GPX_OK &&
				opened[j].n == st->l.n && opened[j].first == st->l.first &&
				opened[j].last == st->l.last)
			{
				use[j] = &opened[j];
				continue;
			}
			must_read[j] = reads = true;
		}
		if (!reads)
			break;
		if (pinned > 0)
			gpuidx_exec_cache_read_unpin();
		for (int j = 0; j < n; j++)
			if (must_read[j])
				gpuidx_exec_read_stored(s[j]);
	}
	pfree(blobs);
	pfree(must_read);
	return pinned;
}

/* Count n stored lists a backend read in place (lists_read_shared). */
void
gpuidx_exec_note_read_shared(int n)
{
	if (n > 0 && gpuidx_exec_shm != NULL)
		gpuidx_exec_count(&gpuidx_exec_shm->ctl->stats.lists_read_shared, (uint64) n);
}

/*
 * Offer to the shared cache the stored lists of s[0..n) that had to be
 * read, so that later queries read them in place.
 */
void
gpuidx_exec_offer_read(GpxExecStored *const *s, int n)
{
	for (int j = 0; j < n; j++)
		if (s[j] != NULL && s[j]->l.base != NULL)
			gpuidx_exec_cache_offer(s[j]);
}

/*
 * Compute query q in the backend.  With in_place, its stored lists that
 * the shared cache holds are read there (gpuidx_exec_pin_in_place),
 * intersected, unpinned, with nothing in between that can raise an
 * error; every stored list is read from its table without in_place.
 * Lists it had to read are then offered to the cache.  Returns the lists
 * read in place.
 */
static int
client_backend_query(GpxExecQuery *q, bool in_place)
{
	const gpx_list *const *lists = q->lists;
	int			pinned = 0;
	uint32		outn = 0;
	gpx_status	st;

	if (q->stored != NULL && in_place)
	{
		gpx_list   *opened = palloc(sizeof(gpx_list) * q->k);
		const gpx_list **use = palloc(sizeof(gpx_list *) * q->k);

		pinned = gpuidx_exec_pin_in_place(q->stored, q->lists, q->k, use, opened);
		lists = use;
	}
	else
	{
		for (int j = 0; q->stored != NULL && j < q->k; j++)
			if (q->stored[j] != NULL)
				gpuidx_exec_read_stored(q->stored[j]);
	}

	st = gpx_intersect(lists, q->k, q->out, &outn, NULL);
	if (pinned > 0)
		gpuidx_exec_cache_read_unpin();
	if (st != GPX_OK)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("could not intersect posting lists"),
				 errdetail("The intersection failed: %s.", gpx_status_str(st))));
	q->outn = outn;
	q->done = true;
	if (in_place && q->stored != NULL)
		gpuidx_exec_offer_read(q->stored, q->k);
	return pinned;
}

/* Answer every query: on the executor where routed, here for the rest. */
void
gpuidx_exec_intersect_all(GpxExecQuery *qs, int nq)
{
	instr_time	t0,
				t1;
	uint64		work = 0,
				in_place = 0;
	int64		cpu0 = 0;
	bool		shared = gpuidx_exec_shm != NULL && gpuidx_exec_use &&
		gpuidx_exec_shm->ctl->cache_cap > 0;
	/* CPU time only where auto's busy-host model reads it (a system call) */
	bool		cpu = gpuidx_exec_shm != NULL && gpuidx_exec_device == GPX_DEVICE_AUTO &&
		gpuidx_exec_shm->ctl->exec_gpu;

	gpuidx_exec_intersect_many(qs, nq);

	INSTR_TIME_SET_CURRENT(t0);
	if (cpu)
		cpu0 = gpuidx_exec_thread_cpu_ns();
	for (int q = 0; q < nq; q++)
	{
		if (qs[q].done)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (qs[q].k < 1)
		{
			qs[q].outn = 0;
			qs[q].done = true;
			continue;
		}
		in_place += client_backend_query(&qs[q], shared);
		work += gpuidx_exec_query_work(gpx_intersect_bound(qs[q].lists, qs[q].k),
									   qs[q].k);
	}
	INSTR_TIME_SET_CURRENT(t1);
	INSTR_TIME_SUBTRACT(t1, t0);

	gpuidx_exec_note_read_shared((int) in_place);
	/* the backend side of the cost model: wall time and CPU time */
	gpuidx_exec_cost_note_backend(work, INSTR_TIME_GET_DOUBLE(t1));
	if (cpu && work >= 100000)
		gpuidx_exec_cost_note_backend_cpu(work, gpuidx_exec_thread_cpu_ns() - cpu0);
}

/* ------------------------------------------- other request kinds -- */

/*
 * What the other request kinds (a ranked batch: exec_rank.c) share with
 * the intersections: this backend's list of requests in flight, given up
 * on error, cancel and exit, and the checks of gpuidx.device.
 */

/* Before sending: drop leftovers of an earlier error, hook backend exit. */
void
gpuidx_exec_client_begin(void)
{
	if (cl_ninflight > 0)
		client_release_all();
	if (!cl_exit_hooked)
	{
		before_shmem_exit(client_on_exit, (Datum) 0);
		cl_exit_hooked = true;
	}
}

/* Record a slot this backend just took (lock held). */
void
gpuidx_exec_client_track(int slot, uint64 gen)
{
	client_remember(slot, gen);
}

/* Give one request up and forget it (lock held). */
void
gpuidx_exec_client_release_locked(int slot, uint64 gen)
{
	client_release_locked(slot, gen);
	client_forget(slot);
}

/* Give every request of this backend up (error, cancel). */
void
gpuidx_exec_client_release_all(void)
{
	client_release_all();
}

/* gpuidx.device checks: no executor at all (not preloaded). */
void
gpuidx_exec_client_check_preloaded(void)
{
	client_check_preloaded();
}

/* gpuidx.device checks: gpu asked for, the executor has none. */
void
gpuidx_exec_client_check_gpu(int nq)
{
	client_check_gpu(nq);
}
