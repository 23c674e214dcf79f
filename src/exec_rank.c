/*
 * exec_rank.c - ranked batches through the executor (exec_rank.h).
 *
 * A request of kind GPX_REQ_KIND_RANK is one arena chunk:
 *
 *   GpxRankReqHead                 counts, k1, b, where the parts are, and
 *                                  the statistics' identity (scope, length,
 *                                  header)
 *   gpx_rank_bquery[nqueries]      out_offset relative to the out area;
 *                                  out_count, status written back
 *   gpx_rank_bterm[nterms]         list index or -1, df, idf (host)
 *   GpxReqList[nlists]             at slot.lists_off: inline, or by key
 *                                  where the executor's list cache holds
 *                                  the list (pinned by the request)
 *   blobs, then the doclen blob    8-byte aligned copies of the inline
 *                                  lists; no doclen blob when the request
 *                                  names statistics the executor holds
 *                                  (RANK_REQ_DL_HELD)
 *   uint32 docs[out_slots]         at slot.out_off: the results,
 *   float8 scores[out_slots]       written by the executor
 *
 * The executor copies the descriptors before trusting them, checks every
 * offset against the chunk, reopens every blob (its header must match the
 * GpxReqList), and lets gpx_rank_batch_prepare check the batch's shape
 * and recompute idf: a request the backend wrote badly is GPX_REQ_BAD,
 * never an out-of-chunk access.
 *
 * Statistics travel once.  The executor keeps a copy of the statistics of
 * the ranked requests it ran (up to GPX_EXEC_RANK_DLS values, in its own
 * memory; its GPU keeps the one in use) and lists them in the shared
 * directory ctl->rank_dl by identity: the scope (database and current
 * role, as the keys of cached lists), the length and the 40-byte header,
 * whose 64-bit checksum covers every length.  A backend whose statistics
 * match an entry names it (the entry's reference count keeps it until the
 * request's slot is freed) instead of copying up to 4 bytes a document
 * into every request.  Should the executor no longer hold it (it was
 * restarted), it answers GPX_REQ_CACHE_MISS and the backend sends the
 * request again with the statistics inline.
 *
 * Lists travel as the intersections' do (exec_client.c): one the shared
 * list cache holds goes by key, pinned until the slot is freed, so that a
 * stored list a ranked aggregate kept unread (posting_rankagg.c) is never
 * read by the backend, and a list of an array is not copied; the others
 * are copied inline, and those with a key are marked cacheable so that
 * the executor keeps them for the next request.  Should a pinned copy be
 * gone by the time the executor reads the request (a new cache epoch), it
 * answers GPX_REQ_CACHE_MISS too, and the backend sends everything inline.
 *
 * Requests of several backends queued together run as one batch: those
 * with the same statistics and (k1, b) are merged into one gpx_rank_batch
 * (one GPU run, or the queries spread over the executor's CPU threads),
 * then each request's answers are copied back into its chunk.
 *
 * Routing (gpuidx.device): cpu and gpu send every batch, backend none;
 * auto sends it
 * only to an executor with a GPU, and then when the cost model of ranked
 * batches (exec_cost.c) finds the executor faster for the batch's
 * candidates (AND: each query's shortest list; OR: the sum of its lists),
 * from the backend's measured ranking time per candidate and a line
 * fitted to the GPU's ranked runs, per mode.  Without a GPU, auto keeps
 * the batch in the backend.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/memutils.h"

#include "exec_client.h"
#include "exec_cache.h"
#include "exec_cost.h"
#include "exec_rank.h"
#include "exec_shmem.h"
#include "gpuidx.h"
#include "gpx_doclen.h"
#include "gpx_rank_merge.h"

/* GpxRankReqHead.flags: the statistics are named, not copied */
#define RANK_REQ_DL_HELD 0x1

/* The head of a ranked request's chunk. */
typedef struct GpxRankReqHead
{
	uint32		nqueries;
	uint32		nterms;
	uint32		nlists;
	uint32		flags;			/* RANK_REQ_* */
	double		k1;
	double		b;
	uint64		queries_off;
	uint64		terms_off;
	uint64		doclen_off;
	uint64		doclen_len;		/* 0 when RANK_REQ_DL_HELD */
	uint64		docs_off;
	uint64		scores_off;
	uint64		out_slots;
	uint64		scope;			/* the sender's database and role */
	uint64		dl_len;			/* the statistics' length and header, */
	uint8		dl_head[GPX_DOCLEN_HEADER];	/* inline or held */
} GpxRankReqHead;

/* Where the parts of a request go (the backend's plan). */
typedef struct RankGeom
{
	uint64		queries_off;
	uint64		terms_off;
	uint64		lists_off;
	uint64		blobs_off;		/* first blob */
	uint64		doclen_off;
	uint64		docs_off;
	uint64		scores_off;
	uint64		total;
} RankGeom;

/* How one list of a request travels (the backend's plan). */
typedef struct RankPlace
{
	gpx_key		key;			/* none: never cached */
	int			e;				/* cache directory entry sent by key, or -1 */
	uint64		off;			/* by key: where its pin holds it in the
								 * cache's data; inline: in the chunk */
	bool		cacheable;		/* inline: the executor may keep it */
} RankPlace;

/* Why the executor did not answer. */
typedef enum RankFail
{
	RF_NONE = 0,
	RF_DOWN,
	RF_ARENA_FULL,
	RF_TOO_LARGE,
	RF_TIMEOUT,
	RF_FAILED,
	RF_MISS						/* named statistics or a list sent by key
								 * no longer held */
} RankFail;

/* ------------------------------------------------------------ both -- */

/*
 * Candidates of a batch per mode (cand[0] AND: each query's shortest list,
 * cand[1] OR: each query's lists); their sum is returned.
 */
static uint64
rank_candidates_by_mode(const gpx_rank_batch *b, uint64 cand[2])
{
	cand[0] = cand[1] = 0;
	for (uint32 q = 0; q < b->nqueries; q++)
	{
		const gpx_rank_bquery *bq = &b->queries[q];
		uint64		sum = 0,
					shortest = UINT64_MAX;

		for (uint32 i = 0; i < bq->nterms; i++)
		{
			const gpx_rank_bterm *t = &b->terms[bq->first_term + i];
			uint64		n = t->list >= 0 ? b->lists[t->list].n : 0;

			sum += n;
			shortest = Min(shortest, n);
		}
		if (bq->mode == GPX_RANK_MODE_AND)
			cand[0] += bq->nterms > 0 ? shortest : 0;
		else
			cand[1] += sum;
	}
	return cand[0] + cand[1];
}

/* Candidates of a batch, both modes together (pure: any thread may ask). */
uint64
gpuidx_exec_rank_candidates(const gpx_rank_batch *b)
{
	uint64		cand[2];

	return rank_candidates_by_mode(b, cand);
}

/* The backend ranked b itself in seconds: a sample for auto's model. */
void
gpuidx_exec_rank_note_backend(const gpx_rank_batch *b, double seconds)
{
	uint64		cand[2];

	if (gpuidx_exec_shm == NULL)
		return;
	rank_candidates_by_mode(b, cand);
	gpuidx_exec_cost_note_rank_backend(cand, seconds);
}

/* The executor's GPU ran b in run_us, after a mean wait of wait_us. */
void
gpuidx_exec_rank_note_gpu(const gpx_rank_batch *b, int64 run_us, int64 wait_us)
{
	uint64		cand[2];

	rank_candidates_by_mode(b, cand);
	gpuidx_exec_cost_note_rank_gpu(cand, run_us, wait_us);
}

/* ---------------------------------------------------------- backend -- */

/* The scope of this session's statistics (as for the keys of lists). */
static inline uint64
rank_scope(void)
{
	return ((uint64) MyDatabaseId << 32) | (uint64) GetUserId();
}

/*
 * The directory entry holding statistics dl of scope, or -1 (lock held).
 * Equal scope, length and header (its checksum covering every length)
 * make equal statistics.
 */
static int
rank_dl_find(uint64 scope, uint64 len, const uint8 *head)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	for (int e = 0; e < GPX_EXEC_RANK_DLS; e++)
	{
		const GpxExecRankDl *r = &ctl->rank_dl[e];

		if (r->id != 0 && r->scope == scope && r->len == len &&
			memcmp(r->head, head, GPX_DOCLEN_HEADER) == 0)
			return e;
	}
	return -1;
}

/*
 * Release slot's reference to held statistics (lock held, either mode:
 * the entry cannot be replaced while its count is above zero).
 */
void
gpuidx_exec_rank_dl_unref(int slot)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	int			e = sl->rank_dl;

	if (e >= 0 && e < GPX_EXEC_RANK_DLS && ctl->rank_dl[e].id == sl->rank_dl_id)
	{
		pg_atomic_uint32 *refs = &ctl->rank_dl[e].refs;
		uint32		cur = pg_atomic_read_u32(refs);

		while (cur > 0 && !pg_atomic_compare_exchange_u32(refs, &cur, cur - 1))
			;
	}
	sl->rank_dl = -1;
	sl->rank_dl_id = 0;
}

/* Forget every held statistics value (an executor starts or ends; lock held). */
void
gpuidx_exec_rank_dl_clear(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	memset(ctl->rank_dl, 0, sizeof(ctl->rank_dl));
	for (int e = 0; e < GPX_EXEC_RANK_DLS; e++)
	{
		pg_atomic_init_u32(&ctl->rank_dl[e].refs, 0);
		pg_atomic_init_u64(&ctl->rank_dl[e].used, 0);
	}
}

/*
 * List l of a batch: the stored list behind it where there is one (read
 * or not), else the list in memory.
 */
static inline const gpx_list *
rank_list(const gpx_rank_batch *b, GpxExecStored *const *stored, uint32 l)
{
	return stored != NULL && stored[l] != NULL ? &stored[l]->l : &b->lists[l];
}

/*
 * The chunk's layout for b, with the statistics inline unless held.  The
 * lists copied inline: those pl sends inline (their offsets set here);
 * without pl, those whose bytes are in memory (an unread stored list is
 * held by the executor's cache: the routing's estimate).
 */
static void
rank_geometry(const gpx_rank_batch *b, GpxExecStored *const *stored,
			  RankPlace *pl, bool held, RankGeom *g)
{
	uint64		o;

	g->queries_off = TYPEALIGN(8, sizeof(GpxRankReqHead));
	g->terms_off = g->queries_off + (uint64) b->nqueries * sizeof(gpx_rank_bquery);
	g->lists_off = TYPEALIGN(8, g->terms_off + (uint64) b->nterms * sizeof(gpx_rank_bterm));
	g->blobs_off = g->lists_off + (uint64) b->nlists * sizeof(GpxReqList);
	o = g->blobs_off;
	for (uint32 l = 0; l < b->nlists; l++)
	{
		const gpx_list *gl = rank_list(b, stored, l);

		if (pl != NULL ? pl[l].e >= 0 : gl->base == NULL)
			continue;
		if (pl != NULL)
			pl[l].off = o;
		o += TYPEALIGN(8, gl->len);
	}
	g->doclen_off = o;
	g->docs_off = TYPEALIGN(8, o + (held ? 0 : b->doclen->len));
	g->scores_off = TYPEALIGN(8, g->docs_off + b->out_slots * sizeof(uint32));
	g->total = g->scores_off + b->out_slots * sizeof(double);
}

/* Count n queries the executor did not answer, by reason. */
static void
rank_count_fail(RankFail f, uint64 n)
{
	GpxExecStats *s = &gpuidx_exec_shm->ctl->stats;

	switch (f)
	{
		case RF_NONE:
			break;
		case RF_DOWN:
			gpuidx_exec_count(&s->fb_executor_down, n);
			break;
		case RF_ARENA_FULL:
			gpuidx_exec_count(&s->fb_arena_full, n);
			break;
		case RF_TOO_LARGE:
			gpuidx_exec_count(&s->fb_too_large, n);
			break;
		case RF_TIMEOUT:
			gpuidx_exec_count(&s->fb_timeout, n);
			break;
		case RF_FAILED:
		case RF_MISS:
			gpuidx_exec_count(&s->fb_failed, n);
			break;
	}
}

/* Text of a reason, for errors. */
static const char *
rank_fail_text(RankFail f)
{
	switch (f)
	{
		case RF_NONE:
			break;
		case RF_DOWN:
			return "The executor is not running.";
		case RF_ARENA_FULL:
			return "The shared arena has no room for the request (see gpuidx.arena_size and gpuidx.max_requests).";
		case RF_TOO_LARGE:
			return "The request is larger than the shared arena (gpuidx.arena_size).";
		case RF_TIMEOUT:
			return "The executor did not answer within gpuidx.executor_timeout.";
		case RF_FAILED:
		case RF_MISS:
			return "The executor could not compute the request.";
	}
	return "";
}

/*
 * Whether gpuidx.device sends the batch of cand candidates per mode (see
 * the header comment).  The bytes the model weighs are what the request
 * copies besides the statistics: those travel once (the executor keeps
 * them); counting them (19 MB for 5 M documents, 3 ms of copying at the
 * model's rate) kept every ranked query of a large collection in the
 * backend.
 */
static bool
rank_route(const gpx_rank_batch *b, const uint64 cand[2])
{
	RankGeom	g;

	if (gpuidx_exec_device != GPX_DEVICE_AUTO)
		return gpuidx_exec_device != GPX_DEVICE_BACKEND;
	if (!gpuidx_exec_shm->ctl->exec_gpu)
		return false;
	rank_geometry(b, NULL, NULL, true, &g);
	return gpuidx_exec_cost_route_rank(cand, g.total);
}

/*
 * Place the lists under the lock (either mode): by key where the cache
 * holds them (not pinned yet), else inline.  False when an unread stored
 * list is not held (evicted since it was resolved): it must be read first.
 */
static bool
rank_place(const gpx_rank_batch *b, GpxExecStored *const *stored,
		   bool inline_all, RankPlace *pl)
{
	bool		need_read = false;

	for (uint32 l = 0; l < b->nlists; l++)
	{
		const gpx_list *gl = rank_list(b, stored, l);

		pl[l].e = inline_all || gpx_key_is_none(pl[l].key) ? -1 :
			gpuidx_exec_cache_find(pl[l].key, (uint32) gl->len, gl->n,
								   gl->first, gl->last);
		need_read |= pl[l].e < 0 && gl->base == NULL;
	}
	return !need_read;
}

/*
 * Take a slot and a chunk for the request, under the lock held shared (as
 * for intersections: lookups, atomic pins and references, our own slot and
 * chunk under alock): the lists placed (rank_place; stored ones that must
 * be read are read, the lock let go meanwhile), the statistics named when
 * the executor holds them (unless inline_all, which also sends every list
 * inline), the layout *g, the cached lists pinned.  The slot is then
 * FILLING and ours, tracked for cleanup.
 */
static RankFail
rank_reserve(const gpx_rank_batch *b, GpxExecStored *const *stored,
			 uint64 candidates, bool inline_all, RankPlace *pl,
			 RankGeom *g, bool *held, int *slot, uint64 *gen)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl;
	int			i,
				e = -1;

	for (;;)
	{
		LWLockAcquire(ctl->lock, LW_SHARED);
		if (ctl->exec_state != GPX_EXEC_RUNNING)
		{
			LWLockRelease(ctl->lock);
			return RF_DOWN;
		}
		if (rank_place(b, stored, inline_all, pl))
			break;
		LWLockRelease(ctl->lock);
		for (uint32 l = 0; l < b->nlists; l++)
			if (pl[l].e < 0 && stored != NULL && stored[l] != NULL)
				gpuidx_exec_read_stored(stored[l]);
	}
	if (!inline_all && b->doclen->len >= GPX_DOCLEN_HEADER)
		e = rank_dl_find(rank_scope(), b->doclen->len, b->doclen->base);
	*held = e >= 0;
	rank_geometry(b, stored, pl, *held, g);
	if (g->total > ctl->arena_size)
	{
		LWLockRelease(ctl->lock);
		return RF_TOO_LARGE;
	}
	i = gpuidx_exec_slot_take();
	if (i < 0)
	{
		LWLockRelease(ctl->lock);
		return RF_ARENA_FULL;
	}
	sl = &gpuidx_exec_shm->slots[i];
	if (!gpuidx_exec_arena_alloc(g->total, &sl->chunk_off))
	{
		gpuidx_exec_slot_free(i);
		LWLockRelease(ctl->lock);
		return RF_ARENA_FULL;
	}
	sl->kind = GPX_REQ_KIND_RANK;
	sl->chunk_len = TYPEALIGN(GPX_EXEC_CHUNK_ALIGN, g->total);
	sl->owner_procno = MyProc->pgprocno;
	sl->owner_pid = MyProcPid;
	sl->lists_off = g->lists_off;
	sl->out_off = g->docs_off;
	sl->out_words = (g->total - g->docs_off) / 4;
	sl->nqueries = b->nqueries;
	sl->nlists = b->nlists;
	sl->work = candidates;
	sl->cache_epoch = ctl->cache_epoch;
	/* one pin per reference: freeing the slot unpins each once */
	for (uint32 l = 0; l < b->nlists; l++)
		if (pl[l].e >= 0)
			pl[l].off = gpuidx_exec_cache_pin(pl[l].e);
	if (e >= 0)
	{
		/* the entry stays until this slot is freed (an atomic count) */
		pg_atomic_fetch_add_u32(&ctl->rank_dl[e].refs, 1);
		pg_atomic_write_u64(&ctl->rank_dl[e].used, (uint64) GetCurrentTimestamp());
		sl->rank_dl = e;
		sl->rank_dl_id = ctl->rank_dl[e].id;
	}
	*slot = i;
	*gen = sl->generation;
	gpuidx_exec_client_track(i, *gen);
	LWLockRelease(ctl->lock);
	return RF_NONE;
}

/*
 * The key of a list a request sends inline: its content's key
 * (gpx_key_content, scoped to this database and role) when it is long
 * enough for the list cache and the executor runs batches on a GPU that
 * keeps one, so that the GPU finds it on the device next time instead of
 * copying it in; else none (the CPU threads would not use it).  Hashing
 * costs the backend about 0.05 ms a MB with AVX-512 (docs/RELIABILITY.md),
 * far less than a copy to the GPU.
 */
static gpx_key
rank_key(const gpx_list *l)
{
	volatile GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	gpx_key		none = {0, 0};

	if (l->len < GPX_EXEC_CACHE_MIN_BYTES || ctl->cache_budget == 0 || !ctl->exec_gpu)
		return none;
	return gpuidx_exec_cache_key(l);
}

/*
 * The keys of b's lists, before the lock: a stored list's identity key
 * (read or not), else rank_key's; and whether an inline copy is worth the
 * executor's keeping.
 */
static void
rank_keys(const gpx_rank_batch *b, GpxExecStored *const *stored, RankPlace *pl)
{
	for (uint32 l = 0; l < b->nlists; l++)
	{
		const gpx_list *gl = rank_list(b, stored, l);
		GpxExecStored *s = stored != NULL ? stored[l] : NULL;

		pl[l].key = s != NULL && s->keyed ? s->key :
			gl->base != NULL ? rank_key(gl) : (gpx_key) {0, 0};
		pl[l].cacheable = gpuidx_exec_cache_wants((uint32) gl->len, pl[l].key);
		pl[l].e = -1;
		pl[l].off = 0;
	}
}

/*
 * Write the request into its chunk (FILLING: ours alone, no lock): lists
 * by key where pl placed them so, the others copied.
 */
static void
rank_fill(const gpx_rank_batch *b, GpxExecStored *const *stored,
		  const RankPlace *pl, const RankGeom *g, bool held, int slot)
{
	char	   *chunk = gpuidx_exec_chunk(slot);
	GpxRankReqHead *h = (GpxRankReqHead *) chunk;
	gpx_rank_bquery *bq = (gpx_rank_bquery *) (chunk + g->queries_off);
	GpxReqList *rl = (GpxReqList *) (chunk + g->lists_off);
	GpxExecStats *st = &gpuidx_exec_shm->ctl->stats;
	uint64		copied = 0,
				hits = 0,
				not_read = 0,
				misses = 0;

	memset(h, 0, sizeof(*h));
	h->nqueries = b->nqueries;
	h->nterms = b->nterms;
	h->nlists = b->nlists;
	h->k1 = b->k1;
	h->b = b->b;
	h->queries_off = g->queries_off;
	h->terms_off = g->terms_off;
	h->flags = held ? RANK_REQ_DL_HELD : 0;
	h->doclen_off = g->doclen_off;
	h->doclen_len = held ? 0 : b->doclen->len;
	h->scope = rank_scope();
	h->dl_len = b->doclen->len;
	memcpy(h->dl_head, b->doclen->base, Min(b->doclen->len, GPX_DOCLEN_HEADER));
	h->docs_off = g->docs_off;
	h->scores_off = g->scores_off;
	h->out_slots = b->out_slots;
	memcpy(bq, b->queries, sizeof(gpx_rank_bquery) * b->nqueries);
	for (uint32 q = 0; q < b->nqueries; q++)
	{
		bq[q].out_count = 0;
		bq[q].status = -1;
	}
	memcpy(chunk + g->terms_off, b->terms, sizeof(gpx_rank_bterm) * b->nterms);
	for (uint32 l = 0; l < b->nlists; l++)
	{
		const gpx_list *gl = rank_list(b, stored, l);

		memset(&rl[l], 0, sizeof(GpxReqList));
		/* keyed: the GPU may keep it on the device, the executor in its cache */
		rl[l].key = pl[l].key;
		rl[l].off = pl[l].off;
		rl[l].len = (uint32) gl->len;
		rl[l].n = gl->n;
		rl[l].first = gl->first;
		rl[l].last = gl->last;
		if (pl[l].e >= 0)
		{
			rl[l].flags = GPX_REQ_BY_KEY | GPX_REQ_PINNED;
			hits++;
			not_read += gl->base == NULL;
			continue;
		}
		rl[l].flags = GPX_REQ_INLINE | (pl[l].cacheable ? GPX_REQ_CACHEABLE : 0);
		memcpy(chunk + pl[l].off, gl->base, gl->len);
		copied += gl->len;
		misses += pl[l].cacheable;
	}
	if (!held)
		memcpy(chunk + g->doclen_off, b->doclen->base, b->doclen->len);
	/* only what the executor writes for this request may be read back */
	memset(chunk + g->docs_off, 0, g->total - g->docs_off);
	gpuidx_exec_count(&st->bytes_copied, copied + (held ? 0 : b->doclen->len));
	if (hits > 0)
		gpuidx_exec_count(&st->cache_hits, hits);
	if (not_read > 0)
		gpuidx_exec_count(&st->lists_not_read, not_read);
	if (misses > 0)
		gpuidx_exec_count(&st->cache_misses, misses);
}

/* Queue the filled request and wake the executor when it should look. */
static RankFail
rank_queue(int slot, uint64 gen)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	/* the queue lock alone, as for the other requests */
	if (!gpuidx_exec_queue_request(slot, gen))
	{
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		gpuidx_exec_client_release_locked(slot, gen);
		LWLockRelease(ctl->lock);
		return RF_DOWN;
	}
	return RF_NONE;
}

/* Copy a DONE request's answers into b: RF_NONE, RF_FAILED or RF_MISS. */
static RankFail
rank_collect(gpx_rank_batch *b, int slot)
{
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	char	   *chunk = gpuidx_exec_chunk(slot);
	const GpxRankReqHead *h = (const GpxRankReqHead *) chunk;
	const gpx_rank_bquery *bq;
	const uint32 *docs;
	const double *scores;

	/* the head is ours (written by us, never by the executor) */
	if (sl->status == GPX_REQ_CACHE_MISS)
		return RF_MISS;
	if (sl->status != GPX_REQ_OK)
		return RF_FAILED;
	bq = (const gpx_rank_bquery *) (chunk + h->queries_off);
	docs = (const uint32 *) (chunk + h->docs_off);
	scores = (const double *) (chunk + h->scores_off);
	for (uint32 q = 0; q < b->nqueries; q++)
	{
		gpx_rank_bquery *d = &b->queries[q];

		if (bq[q].status != GPX_OK || bq[q].out_count > d->k)
			return RF_FAILED;
		memcpy(b->out_docs + d->out_offset, docs + d->out_offset,
			   sizeof(uint32) * bq[q].out_count);
		memcpy(b->out_scores + d->out_offset, scores + d->out_offset,
			   sizeof(double) * bq[q].out_count);
		d->out_count = bq[q].out_count;
		d->status = GPX_OK;
	}
	return RF_NONE;
}

/*
 * Wait for our request: answers in (collected into b), or given up when
 * the executor stops or gpuidx.executor_timeout passes.  As for
 * intersections (exec_client.c), it looks without the lock, spins for up
 * to gpuidx.spin_wait before sleeping, and frees a DONE slot under the
 * lock shared.
 */
static RankFail
rank_wait(gpx_rank_batch *b, int slot, uint64 gen)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	instr_time	start,
				now;

	INSTR_TIME_SET_CURRENT(start);
	for (;;)
	{
		long		sleep_ms = 1000;
		GpxExecLook look;

		INSTR_TIME_SET_CURRENT(now);
		look = gpuidx_exec_client_look(slot, gen, start, now, &sleep_ms);
		if (look == GPX_LOOK_LOCK)
		{
			instr_time	waited = now;

			INSTR_TIME_SUBTRACT(waited, start);
			LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
			if (sl->generation != gen || sl->owner_pid != MyProcPid)
			{
				/* reclaimed behind our back: should not happen */
				gpuidx_exec_client_release_locked(slot, gen);
				LWLockRelease(ctl->lock);
				return RF_FAILED;
			}
			if (sl->state == GPX_SLOT_DONE)
				look = GPX_LOOK_DONE;
			else if (ctl->exec_state == GPX_EXEC_STOPPED ||
					 (gpuidx_exec_timeout_ms > 0 &&
					  INSTR_TIME_GET_MILLISEC(waited) >= gpuidx_exec_timeout_ms))
			{
				RankFail	f = ctl->exec_state == GPX_EXEC_STOPPED ? RF_DOWN : RF_TIMEOUT;

				gpuidx_exec_client_release_locked(slot, gen);
				LWLockRelease(ctl->lock);
				return f;
			}
			else
				look = GPX_LOOK_WAIT;	/* a stale look: wait on */
			LWLockRelease(ctl->lock);
		}

		if (look == GPX_LOOK_DONE)
		{
			RankFail	f;

			/* results were written before DONE was set (queue lock) */
			pg_read_barrier();
			f = rank_collect(b, slot);
			/* shared: our DONE slot, its pins, chunk and references */
			LWLockAcquire(ctl->lock, LW_SHARED);
			gpuidx_exec_client_release_locked(slot, gen);
			LWLockRelease(ctl->lock);
			INSTR_TIME_SET_CURRENT(now);
			INSTR_TIME_SUBTRACT(now, start);
			gpuidx_exec_count(&ctl->stats.roundtrip_us, INSTR_TIME_GET_MICROSEC(now));
			return f;
		}
		gpuidx_exec_client_block(&slot, 1, sleep_ms);
	}
}

/*
 * Send b as one request and wait for it (no cleanup on error: caller's).
 * stored (or NULL): per list, the stored list behind it, maybe unread.
 */
static RankFail
rank_send(gpx_rank_batch *b, GpxExecStored *const *stored, uint64 candidates,
		  bool inline_all)
{
	RankGeom	g;
	RankPlace  *pl = palloc(sizeof(RankPlace) * Max(b->nlists, 1));
	bool		held;
	int			slot;
	uint64		gen;
	RankFail	f;

	rank_keys(b, stored, pl);
	f = rank_reserve(b, stored, candidates, inline_all, pl, &g, &held, &slot, &gen);
	if (f != RF_NONE)
		return f;
	rank_fill(b, stored, pl, &g, held, slot);
	pfree(pl);
	f = rank_queue(slot, gen);
	if (f != RF_NONE)
		return f;
	return rank_wait(b, slot, gen);
}

/* rank_send, giving the request up on error or cancel. */
static RankFail
rank_send_guarded(gpx_rank_batch *b, GpxExecStored *const *stored,
				  uint64 candidates, bool inline_all)
{
	RankFail	f = RF_NONE;

	gpuidx_exec_client_begin();
	PG_TRY();
	{
		f = rank_send(b, stored, candidates, inline_all);
	}
	PG_CATCH();
	{
		gpuidx_exec_client_release_all();
		PG_RE_THROW();
	}
	PG_END_TRY();
	gpuidx_exec_client_release_all();	/* normally nothing is left */
	return f;
}

/*
 * Whether a prepared batch goes to the executor (the routing half of
 * gpuidx_exec_rank): gpuidx.use_executor, a running executor, something
 * to rank, and gpuidx.device (auto: the cost model, consulted once).  A
 * batch kept here counts in backend_queries.  Reads the lists' header
 * fields only.
 */
bool
gpuidx_exec_rank_routed(const gpx_rank_batch *b)
{
	uint64		cand[2];

	if (!gpuidx_exec_use || b->nqueries == 0)
		return false;
	if (gpuidx_exec_shm == NULL)
	{
		gpuidx_exec_client_check_preloaded();
		return false;
	}
	if (rank_candidates_by_mode(b, cand) == 0)
		return false;			/* every answer is empty: nothing to send */
	if (!rank_route(b, cand))
	{
		gpuidx_exec_count(&gpuidx_exec_shm->ctl->stats.backend_queries, b->nqueries);
		return false;
	}
	return true;
}

/*
 * Send a batch gpuidx_exec_rank_routed routed; false: the executor could
 * not, the caller computes it (an ERROR instead with
 * gpuidx.executor_fallback off).  stored (or NULL): per list, the stored
 * list behind b->lists[l], resolved (gpuidx_exec_resolve) but maybe
 * unread; it goes by key where the executor's cache holds it, and is read
 * here only if it does not (what is read stays in stored[l]->l).
 */
bool
gpuidx_exec_rank_send(gpx_rank_batch *b, GpxExecStored *const *stored)
{
	uint64		cand[2],
				candidates = rank_candidates_by_mode(b, cand);
	RankFail	f;

	gpuidx_exec_client_check_gpu((int) b->nqueries);
	f = rank_send_guarded(b, stored, candidates, false);
	if (f == RF_MISS)
	{
		/*
		 * the executor no longer holds the statistics named, or a list sent
		 * by key: send everything
		 */
		f = rank_send_guarded(b, stored, candidates, true);
	}
	if (f == RF_NONE)
		return true;
	rank_count_fail(f, b->nqueries);
	if (!gpuidx_exec_fallback)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuidx executor could not serve the ranked query"),
				 errdetail("%s", rank_fail_text(f)),
				 errhint("Set gpuidx.executor_fallback = on to compute it in the backend instead.")));
	return false;
}

/* Run a prepared batch on the executor; false: the caller computes it. */
bool
gpuidx_exec_rank(gpx_rank_batch *b)
{
	return gpuidx_exec_rank_routed(b) && gpuidx_exec_rank_send(b, NULL);
}

/* --------------------------------------------------------- executor -- */

/*
 * The executor's copies of the statistics listed in ctl->rank_dl (entry e
 * holds rank_held[e] while their ids agree), in TopMemoryContext.
 */
static struct
{
	uint64		id;
	uint8	   *buf;
	uint64		len;
	uint64		cap;
}			rank_held[GPX_EXEC_RANK_DLS];

/* Whether [off, off + len) lies inside [lo, hi) (no overflow). */
static inline bool
rank_within(uint64 off, uint64 len, uint64 lo, uint64 hi)
{
	return off >= lo && off <= hi && len <= hi - off;
}

/* Read slot's request into rr; a GpxReqStatus. */
int
gpuidx_exec_rank_build(int slot, GpxRankRun *rr)
{
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	const char *chunk = gpuidx_exec_chunk(slot);
	GpxRankReqHead h;
	const GpxReqList *rl;
	gpx_list   *gl;
	gpx_key    *keys;
	uint64		lists_end;
	gpx_rank_batch *b = &rr->b;

	memset(rr, 0, sizeof(*rr));
	rr->slot = slot;
	if (sl->chunk_off + sl->chunk_len > gpuidx_exec_shm->ctl->arena_size ||
		sl->chunk_len < sizeof(GpxRankReqHead))
		return GPX_REQ_BAD;
	memcpy(&h, chunk, sizeof(h));
	if (h.nqueries == 0 || h.nqueries != sl->nqueries ||
		h.nlists != sl->nlists || h.nterms == 0 ||
		h.nqueries > sl->chunk_len / sizeof(gpx_rank_bquery) ||
		h.nterms > sl->chunk_len / sizeof(gpx_rank_bterm) ||
		h.nlists > sl->chunk_len / sizeof(GpxReqList) ||
		h.out_slots > sl->chunk_len / sizeof(uint32) ||
		h.queries_off % 8 != 0 || h.terms_off % 8 != 0 ||
		h.docs_off % 4 != 0 || h.scores_off % 8 != 0 ||
		sl->lists_off % 8 != 0 || h.docs_off != sl->out_off ||
		!rank_within(h.queries_off, (uint64) h.nqueries * sizeof(gpx_rank_bquery),
					 sizeof(h), sl->chunk_len) ||
		!rank_within(h.terms_off, (uint64) h.nterms * sizeof(gpx_rank_bterm),
					 h.queries_off + (uint64) h.nqueries * sizeof(gpx_rank_bquery),
					 sl->chunk_len) ||
		!rank_within(sl->lists_off, (uint64) h.nlists * sizeof(GpxReqList),
					 h.terms_off + (uint64) h.nterms * sizeof(gpx_rank_bterm),
					 sl->chunk_len))
		return GPX_REQ_BAD;
	lists_end = sl->lists_off + (uint64) h.nlists * sizeof(GpxReqList);
	if (!rank_within(h.doclen_off, h.doclen_len, lists_end, h.docs_off) ||
		!rank_within(h.docs_off, h.out_slots * sizeof(uint32), lists_end, h.scores_off) ||
		!rank_within(h.scores_off, h.out_slots * sizeof(double), h.docs_off, sl->chunk_len))
		return GPX_REQ_BAD;

	/* private copies of what the back ends index by */
	b->nqueries = h.nqueries;
	b->nterms = h.nterms;
	b->nlists = h.nlists;
	b->queries = palloc(sizeof(gpx_rank_bquery) * h.nqueries);
	memcpy(b->queries, chunk + h.queries_off, sizeof(gpx_rank_bquery) * h.nqueries);
	b->terms = palloc(sizeof(gpx_rank_bterm) * h.nterms);
	memcpy(b->terms, chunk + h.terms_off, sizeof(gpx_rank_bterm) * h.nterms);
	gl = palloc0(sizeof(gpx_list) * Max(h.nlists, 1));
	keys = palloc0(sizeof(gpx_key) * Max(h.nlists, 1));
	rl = (const GpxReqList *) (chunk + sl->lists_off);
	for (uint32 l = 0; l < h.nlists; l++)
	{
		GpxReqList	r = rl[l];
		const uint8 *blob;

		if ((r.flags & GPX_REQ_INLINE) && !(r.flags & GPX_REQ_BY_KEY))
		{
			if (!rank_within(r.off, r.len, lists_end, h.doclen_off))
				return GPX_REQ_BAD;
			blob = (const uint8 *) chunk + r.off;
		}
		else if ((r.flags & GPX_REQ_BY_KEY) && !(r.flags & GPX_REQ_INLINE))
		{
			/* the request's pin keeps the copy until the slot is freed */
			blob = gpuidx_exec_cache_pinned(&r, sl->cache_epoch);
			if (blob == NULL)
				return GPX_REQ_CACHE_MISS;
		}
		else
			return GPX_REQ_BAD;
		if (gpx_open(&gl[l], blob, r.len) != GPX_OK ||
			gl[l].n != r.n || gl[l].first != r.first || gl[l].last != r.last)
			return GPX_REQ_BAD;
		keys[l] = r.key;		/* none, a stored list's or the content's */
	}
	b->lists = gl;
	b->list_keys = keys;
	if (h.flags & ~RANK_REQ_DL_HELD || h.dl_len < GPX_DOCLEN_HEADER)
		return GPX_REQ_BAD;
	if (h.flags & RANK_REQ_DL_HELD)
	{
		/* statistics named: ours, unless this executor never kept them */
		int			e = sl->rank_dl;

		if (h.doclen_len != 0)
			return GPX_REQ_BAD;
		if (e < 0 || e >= GPX_EXEC_RANK_DLS || sl->rank_dl_id == 0 ||
			rank_held[e].id != sl->rank_dl_id)
			return GPX_REQ_CACHE_MISS;
		if (rank_held[e].len != h.dl_len ||
			memcmp(rank_held[e].buf, h.dl_head, GPX_DOCLEN_HEADER) != 0 ||
			gpx_doclen_open(&rr->dl, rank_held[e].buf, rank_held[e].len) != GPX_OK)
			return GPX_REQ_BAD;
		rr->dl_id = rank_held[e].id;
	}
	else if (h.doclen_len != h.dl_len ||
			 memcmp(chunk + h.doclen_off, h.dl_head, GPX_DOCLEN_HEADER) != 0 ||
			 gpx_doclen_open(&rr->dl, (const uint8 *) chunk + h.doclen_off,
							 h.doclen_len) != GPX_OK)
		return GPX_REQ_BAD;
	rr->scope = h.scope;
	rr->dl_len = h.dl_len;
	memcpy(rr->dl_head, h.dl_head, GPX_DOCLEN_HEADER);
	b->doclen = &rr->dl;
	b->doclen_id = rr->dl_id;
	b->k1 = h.k1;
	b->b = h.b;
	b->or_algo = GPX_RANK_AUTO;
	b->out_docs = (uint32 *) (chunk + h.docs_off);
	b->out_scores = (double *) (chunk + h.scores_off);
	b->out_slots = h.out_slots;
	for (uint32 q = 0; q < b->nqueries; q++)
	{
		b->queries[q].out_count = 0;
		b->queries[q].status = -1;
	}
	if (gpx_rank_batch_prepare(b) != GPX_OK)
		return GPX_REQ_BAD;
	rr->candidates = gpuidx_exec_rank_candidates(b);
	rr->queries_off = h.queries_off;
	return GPX_REQ_OK;
}

/* Whether requests a and b may run as one batch: the same statistics and (k1, b). */
bool
gpuidx_exec_rank_compatible(const GpxRankRun *a, const GpxRankRun *b)
{
	return a->scope == b->scope && a->dl_len == b->dl_len &&
		memcmp(a->dl_head, b->dl_head, GPX_DOCLEN_HEADER) == 0 &&
		a->b.k1 == b->b.k1 && a->b.b == b->b.b;
}

/*
 * Merge the compatible requests rrs[0..n) into one batch m (in the current
 * memory context, with its own result arrays): their queries, terms and
 * lists one after the other, the statistics of a request that names held
 * ones (so that a GPU keeps them by id) or else of the first.  False when
 * the merged batch is refused (the requests then run one by one).
 */
bool
gpuidx_exec_rank_merge(GpxRankRun *const *rrs, int n, gpx_rank_batch *m)
{
	const GpxRankRun *src = rrs[0];
	gpx_rank_batch **bs = palloc(sizeof(gpx_rank_batch *) * n);
	size_t		ws;

	for (int i = 0; i < n; i++)
	{
		bs[i] = &rrs[i]->b;
		if (src->dl_id == 0 && rrs[i]->dl_id != 0)
			src = rrs[i];
	}
	ws = gpx_rank_merge_size(bs, (uint32) n);
	if (gpx_rank_merge(bs, (uint32) n, MemoryContextAllocHuge(CurrentMemoryContext, Max(ws, 8)),
					   Max(ws, 8), m) != GPX_OK)
		return false;
	m->doclen = &src->dl;
	m->doclen_id = src->dl_id;
	m->or_algo = GPX_RANK_AUTO;
	return gpx_rank_batch_prepare(m) == GPX_OK;
}

/* Copy merged batch m's answers into the requests rrs[0..n) it was made of. */
void
gpuidx_exec_rank_scatter(const gpx_rank_batch *m, GpxRankRun *const *rrs, int n)
{
	gpx_rank_batch **bs = palloc(sizeof(gpx_rank_batch *) * n);

	for (int i = 0; i < n; i++)
		bs[i] = &rrs[i]->b;
	gpx_rank_merge_scatter(m, bs, (uint32) n);
	pfree(bs);
}

/* Run query q of batch arg on this thread (a pool thread: no palloc). */
static void
rank_cpu_one(void *arg, uint32 q)
{
	gpx_rank_batch *b = (gpx_rank_batch *) arg;
	size_t		ws = gpx_rank_batch_work_size(b, q, 1);
	void	   *work = malloc(Max(ws, 8));
	gpx_status	st;

	if (work == NULL)
	{
		b->queries[q].status = GPX_E_TOOBIG;
		return;
	}
	st = gpx_rank_batch_run(b, q, 1, work, ws, NULL);
	if (st != GPX_OK && b->queries[q].status == GPX_OK)
		b->queries[q].status = st;
	free(work);
}

/*
 * Run batch b on the CPU: its queries spread over pool's threads (this
 * one too), or on this thread alone (pool NULL, or one query); a failure
 * shows in the queries' statuses.
 */
void
gpuidx_exec_rank_cpu(gpx_rank_batch *b, gpx_batch_pool *pool)
{
	if (pool != NULL && b->nqueries > 1 && gpx_batch_pool_threads(pool) > 1 &&
		gpx_batch_pool_for(pool, b->nqueries, rank_cpu_one, b) == GPX_OK)
		return;
	for (uint32 q = 0; q < b->nqueries; q++)
		rank_cpu_one(b, q);
}

/* Group the requests of slots[0..n) into runs (see exec_rank.h). */
void
gpuidx_exec_rank_plan(const int *slots, int n, int *status, uint32 *nq, GpxRankPlan *p)
{
	bool	   *todo = palloc0(sizeof(bool) * Max(n, 1));

	memset(p, 0, sizeof(*p));
	p->rr = palloc0(sizeof(GpxRankRun) * Max(n, 1));
	p->nrr = n;
	p->g = palloc0(sizeof(GpxRankGroup) * Max(n, 1));
	for (int j = 0; j < n; j++)
	{
		status[j] = gpuidx_exec_rank_build(slots[j], &p->rr[j]);
		todo[j] = status[j] == GPX_REQ_OK;
		nq[j] = todo[j] ? p->rr[j].b.nqueries : 0;
		if (todo[j])
		{
			p->nqueries += p->rr[j].b.nqueries;
			p->candidates += p->rr[j].candidates;
		}
	}
	for (int j = 0; j < n; j++)
	{
		GpxRankRun **grp;
		int			c = 0;

		if (!todo[j])
			continue;
		grp = palloc(sizeof(GpxRankRun *) * (n - j));
		for (int k = j; k < n; k++)
			if (todo[k] && (k == j || gpuidx_exec_rank_compatible(&p->rr[j], &p->rr[k])))
			{
				grp[c++] = &p->rr[k];
				todo[k] = false;
			}
		if (c > 1)
		{
			gpx_rank_batch *m = palloc(sizeof(gpx_rank_batch));

			if (gpuidx_exec_rank_merge(grp, c, m))
			{
				p->g[p->ng].b = m;
				p->g[p->ng].members = grp;
				p->g[p->ng].nmembers = c;
				p->g[p->ng++].merged = true;
				continue;
			}
		}
		/* each alone (a merge refused: each runs as it came) */
		for (int k = 0; k < c; k++)
		{
			p->g[p->ng].b = &grp[k]->b;
			p->g[p->ng].members = &grp[k];
			p->g[p->ng++].nmembers = 1;
		}
	}
}

/* Hand every run's answers back and keep inline statistics (see exec_rank.h). */
void
gpuidx_exec_rank_complete(GpxRankPlan *p)
{
	for (int g = 0; g < p->ng; g++)
	{
		GpxRankGroup *gr = &p->g[g];

		if (gr->merged)
			gpuidx_exec_rank_scatter(gr->b, gr->members, gr->nmembers);
		for (int k = 0; k < gr->nmembers; k++)
			gpuidx_exec_rank_finish(gr->members[k]->slot, gr->members[k]);
	}
	/* the statistics that came inline: kept for the next requests */
	for (int g = 0; g < p->ng; g++)
		for (int k = 0; k < p->g[g].nmembers; k++)
			gpuidx_exec_rank_keep(p->g[g].members[k]);
}

/* Copy each query's out_count and status back into slot's request. */
void
gpuidx_exec_rank_finish(int slot, const GpxRankRun *rr)
{
	/* where gpuidx_exec_rank_build found them inside the chunk */
	gpx_rank_bquery *bq = (gpx_rank_bquery *) (gpuidx_exec_chunk(slot) +
											   rr->queries_off);

	for (uint32 q = 0; q < rr->b.nqueries; q++)
	{
		bq[q].out_count = rr->b.queries[q].out_count;
		bq[q].status = rr->b.queries[q].status;
	}
}

/*
 * Keep a copy of the statistics rr brought inline (its slot is still
 * RUNNING: the bytes are in its chunk) and list them, so that later
 * requests name them.  An entry no request names is replaced: an empty
 * one, else the one named longest ago; none when every entry is named, or
 * when there is no memory for the copy.
 */
void
gpuidx_exec_rank_keep(const GpxRankRun *rr)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	int			v = -1;
	uint8	   *buf;

	if (rr->dl_id != 0 || rr->dl.base == NULL || rr->dl_len != rr->dl.len)
		return;
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	if (rank_dl_find(rr->scope, rr->dl_len, rr->dl_head) >= 0)
	{
		LWLockRelease(ctl->lock);
		return;					/* kept already */
	}
	for (int e = 0; e < GPX_EXEC_RANK_DLS; e++)
	{
		GpxExecRankDl *r = &ctl->rank_dl[e];

		if (pg_atomic_read_u32(&r->refs) > 0)
			continue;
		if (r->id == 0)
		{
			v = e;
			break;
		}
		if (v < 0 || pg_atomic_read_u64(&r->used) <
			pg_atomic_read_u64(&ctl->rank_dl[v].used))
			v = e;
	}
	if (v >= 0)
		ctl->rank_dl[v].id = 0;	/* nobody can name it from now on */
	LWLockRelease(ctl->lock);
	if (v < 0)
		return;

	/* entry v is named by no request: its copy is ours to replace */
	rank_held[v].id = 0;
	if (rank_held[v].cap < rr->dl_len)
	{
		if (rank_held[v].buf != NULL)
			pfree(rank_held[v].buf);
		rank_held[v].buf = NULL;
		rank_held[v].cap = 0;
		buf = MemoryContextAllocExtended(TopMemoryContext, rr->dl_len,
										 MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
		if (buf == NULL)
			return;
		rank_held[v].buf = buf;
		rank_held[v].cap = rr->dl_len;
	}
	memcpy(rank_held[v].buf, rr->dl.base, rr->dl_len);
	rank_held[v].len = rr->dl_len;

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	ctl->rank_dl[v].id = ++ctl->rank_dl_ids;
	ctl->rank_dl[v].scope = rr->scope;
	ctl->rank_dl[v].len = rr->dl_len;
	memcpy(ctl->rank_dl[v].head, rr->dl_head, GPX_DOCLEN_HEADER);
	pg_atomic_write_u32(&ctl->rank_dl[v].refs, 0);
	pg_atomic_write_u64(&ctl->rank_dl[v].used, (uint64) GetCurrentTimestamp());
	rank_held[v].id = ctl->rank_dl[v].id;
	LWLockRelease(ctl->lock);
}
