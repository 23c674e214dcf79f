/*
 * exec_cache.c - the executor's list cache, every part of it: the keys
 * lists are known by, the directory of cached lists in shared memory, the
 * pins that keep a list while a request sent by key waits, the executor's
 * private copies of the lists, admission and CLOCK eviction, and the keys
 * of stored lists (a backend sends a large TOAST value the executor holds
 * without reading it).  The GPU keeps its own device cache under the same
 * keys (cuda/).
 *
 * Identity.  A list in memory is known by gpx_key_content, a PRF under a
 * secret drawn at server start of (database, current role, the whole
 * blob); a stored list by gpx_key_name of its TOAST identity.  Nobody
 * without the secret can find two lists with one key, so a list sent by
 * key is the very list that was cached under it, whoever sent either
 * (docs/RELIABILITY.md, "List identity").  Scoping keys to the role also
 * keeps cache hits from telling one role what another just used, at the
 * price of caching equal lists once per role.
 *
 * The directory (GpxCacheEntry[cache_cap], a power of two, at most half
 * full) is probed linearly by the key's low bits; it lives in shared
 * memory, under the executor's lock.  Only the executor inserts and
 * evicts; backends look up and pin.  The copies themselves are malloc'd
 * in the executor process, in cache_copies[] parallel to the directory.
 */
#include "postgres.h"

#include "access/transam.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "exec_cache.h"
#include "gpuidx.h"

/*
 * The admission filter: sets (a power of two) of ways, each set the last
 * keys seen in it, newest first.  With ways, two lists that meet in one
 * set and come in turn are still both admitted.
 */
#define CACHE_SEEN_SETS 4096
#define CACHE_SEEN_WAYS 4

/* State of the executor process (unused in backends). */
static struct
{
	void	  **copies;			/* cached blobs, parallel to the directory */
	gpx_key    *seen;			/* admission: keys seen once */
	uint32		clock_hand;
}			cache_local;

/* ------------------------------------------------------------ set-up -- */

/* Directory entries for gpuidx.cache_size (0: no cache). */
int
gpuidx_exec_cache_capacity(void)
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

/*
 * Set up the cache's fields of a fresh control block.  Without a strong
 * random secret, list identity could be forged: keys_ok stays false and
 * the executor does not start.
 */
void
gpuidx_exec_cache_init_shared(GpxExecShared *ctl)
{
	uint8		secret[16];

	ctl->cache_cap = gpuidx_exec_cache_capacity();
	ctl->cache_budget = (uint64) Max(gpuidx_exec_cache_kb, 0) * 1024;
	ctl->cache_epoch = 1;
	ctl->keys_ok = pg_strong_random(secret, sizeof(secret));
	if (ctl->keys_ok)
		gpx_keyset_init(&ctl->keys, secret);
	explicit_bzero(secret, sizeof(secret));
}

/* -------------------------------------------------------------- keys -- */

/* Database and current role, the scope of every key. */
static inline uint64
cache_key_scope(void)
{
	return ((uint64) MyDatabaseId << 32) | (uint64) GetUserId();
}

/* The key of a list in memory, in this session's scope. */
gpx_key
gpuidx_exec_cache_key(const gpx_list *l)
{
	return gpx_key_content(&gpuidx_exec_shm->ctl->keys, cache_key_scope(),
						   l->base, l->len);
}

/*
 * The key of a stored list, from its identity alone (nothing is read):
 * gpx_key_name of (database, current role, key epoch, TOAST relation and
 * value OID, blob length, and the OID counter position at which the value
 * OID next comes round), which never equals a content key.  The value is
 * live (our snapshot sees it), so it was given its OID less than one turn
 * of the counter before that point, and no other value can have it until
 * then; a later value with the same OID gets a later point.  So one key
 * names one content, for as long as the epoch lasts
 * (gpuidx_exec_oid_position): nothing cached under it can ever be stale.
 * pos comes from gpuidx_exec_oid_position, sampled after the value was
 * seen.
 */
static gpx_key
cache_stored_key(const GpxExecStored *st, uint32 epoch, uint64 pos)
{
	uint64		m[5];

	m[0] = cache_key_scope();
	m[1] = epoch;
	m[2] = ((uint64) st->toastrelid << 32) | st->valueid;
	m[3] = st->len;
	m[4] = pos + (uint32) (st->valueid - (uint32) pos);
	return gpx_key_name(&gpuidx_exec_shm->ctl->keys, m, 5);
}

/*
 * Whether the executor may cache a list of len bytes with this key: lists
 * in memory from GPX_EXEC_CACHE_MIN_BYTES, stored ones (named keys, no
 * hashing to pay) from GPX_EXEC_STORED_MIN_BYTES.
 */
bool
gpuidx_exec_cache_wants(uint32 len, gpx_key key)
{
	return gpuidx_exec_shm->ctl->cache_cap > 0 && !gpx_key_is_none(key) &&
		len >= ((key.hi & GPX_KEY_NAMED_BIT) ?
				GPX_EXEC_STORED_MIN_BYTES : GPX_EXEC_CACHE_MIN_BYTES);
}

/*
 * Sample the OID counter; returns its position in the current epoch of
 * stored-list keys (the 32-bit counter extended by its wraparounds) and
 * sets *epoch.  Lock held exclusively, so samples are ordered.
 *
 * A stored list is keyed by its TOAST value OID and the position at which
 * the counter next comes back to that OID (cache_stored_key): no other
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

/* --------------------------------------------------------- directory -- */

/*
 * Directory index of the entry with this key and blob length, and when
 * hdr is given also these header fields (n, first, last); -1 if none.
 * Linear probing; lock held.
 */
static int
cache_probe(gpx_key key, uint32 len, const uint32 *hdr)
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

	return cache_probe(key, len, hdr);
}

/* Pin entry e: a queued request sends it by key (lock held exclusively). */
void
gpuidx_exec_cache_pin(int e)
{
	Assert(e >= 0 && e < gpuidx_exec_shm->ctl->cache_cap &&
		   gpuidx_exec_shm->cache[e].used);
	gpuidx_exec_shm->cache[e].pins++;
}

/* Release the cache pins a slot's request holds; lock held exclusively. */
void
gpuidx_exec_cache_unpin(int slot)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	GpxReqList *rl;

	if (sl->chunk_len == 0 || sl->nlists == 0 ||
		sl->cache_epoch != ctl->cache_epoch)
		return;
	rl = (GpxReqList *) (gpuidx_exec_chunk(slot) + sl->lists_off);
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

/*
 * Key the stored lists of s[0..n) that are neither known nor read, and
 * take n, first and last of those the executor caches from the directory
 * (so they need not be read).  Takes the lock.
 */
void
gpuidx_exec_cache_resolve_stored(GpxExecStored *const *s, int n)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	uint32		epoch;
	uint64		pos;

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	pos = gpuidx_exec_oid_position(&epoch);
	for (int i = 0; i < n; i++)
	{
		GpxExecStored *st = s[i];
		int			e;

		if (st == NULL || st->known || st->l.base != NULL ||
			st->len < GPX_EXEC_STORED_MIN_BYTES)
			continue;
		st->key = cache_stored_key(st, epoch, pos);
		st->keyed = true;
		e = cache_probe(st->key, st->len, NULL);
		if (e < 0)
			continue;
		st->l.len = st->len;
		st->l.n = gpuidx_exec_shm->cache[e].n;
		st->l.first = gpuidx_exec_shm->cache[e].first;
		st->l.last = gpuidx_exec_shm->cache[e].last;
		st->known = true;
	}
	LWLockRelease(ctl->lock);
}

/* ---------------------------------------------------------- executor -- */

/* Executor: the table of copies and the admission filter, for its life. */
void
gpuidx_exec_cache_start(void)
{
	int			cap = gpuidx_exec_shm->ctl->cache_cap;

	if (cap == 0)
		return;
	cache_local.copies = MemoryContextAllocZero(TopMemoryContext,
												sizeof(void *) * cap);
	cache_local.seen = MemoryContextAllocZero(TopMemoryContext,
											  sizeof(gpx_key) * CACHE_SEEN_SETS * CACHE_SEEN_WAYS);
}

/* Forget every cached list and start a new epoch; lock held. */
void
gpuidx_exec_cache_clear(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (ctl->cache_cap > 0)
		memset(gpuidx_exec_shm->cache, 0, sizeof(GpxCacheEntry) * ctl->cache_cap);
	if (cache_local.copies != NULL)
	{
		for (int i = 0; i < ctl->cache_cap; i++)
		{
			free(cache_local.copies[i]);
			cache_local.copies[i] = NULL;
		}
	}
	ctl->cache_count = 0;
	ctl->cache_bytes = 0;
	ctl->cache_epoch++;
}

/* The cached copy of a list sent by key with pins of epoch; lock held. */
const uint8 *
gpuidx_exec_cache_get(const GpxReqList *rl, uint64 epoch)
{
	int			e;

	if (epoch != gpuidx_exec_shm->ctl->cache_epoch || cache_local.copies == NULL)
		return NULL;
	e = gpuidx_exec_cache_find(rl->key, rl->len, rl->n, rl->first, rl->last);
	if (e < 0)
		return NULL;
	gpuidx_exec_shm->cache[e].ref = 1;
	return (const uint8 *) cache_local.copies[e];
}

/* Remove directory entry i (backward-shift deletion); lock held. */
static void
cache_remove(uint32 i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		j = i;

	ctl->cache_bytes -= c[i].len;
	ctl->cache_count--;
	free(cache_local.copies[i]);
	cache_local.copies[i] = NULL;
	c[i].used = 0;
	for (;;)
	{
		uint32		home;

		j = (j + 1) & mask;
		if (!c[j].used)
			break;
		home = (uint32) c[j].key.lo & mask;
		/* move j into the hole at i unless its home lies in (i, j] */
		if (((j - home) & mask) >= ((j - i) & mask))
		{
			c[i] = c[j];
			cache_local.copies[i] = cache_local.copies[j];
			c[j].used = 0;
			cache_local.copies[j] = NULL;
			i = j;
		}
	}
}

/* Evict unpinned lists (CLOCK) until len more bytes fit; lock held. */
static bool
cache_make_room(uint64 len)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		steps = 0;

	while (ctl->cache_bytes + len > ctl->cache_budget ||
		   (uint64) (ctl->cache_count + 1) * 2 > (uint64) ctl->cache_cap)
	{
		uint32		i = cache_local.clock_hand & mask;

		if (steps++ > 3 * (uint32) ctl->cache_cap)
			return false;		/* everything is pinned */
		cache_local.clock_hand++;
		if (!c[i].used || c[i].pins > 0)
			continue;
		if (c[i].ref)
		{
			c[i].ref = 0;
			continue;
		}
		cache_remove(i);
		gpuidx_exec_count(&ctl->stats.cache_evictions, 1);
		/* the shift may have moved an unvisited entry into i: look again */
		cache_local.clock_hand--;
	}
	return true;
}

/* Insert a copy of a list (malloc'd blob, owned by the cache); lock held. */
static bool
cache_insert(const GpxReqList *rl, void *blob)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		i;

	if (gpx_key_is_none(rl->key) ||
		gpuidx_exec_cache_find(rl->key, rl->len, rl->n, rl->first, rl->last) >= 0)
		return false;
	if (!cache_make_room(rl->len))
		return false;
	for (i = (uint32) rl->key.lo & mask; c[i].used; i = (i + 1) & mask)
		;
	c[i].key = rl->key;
	c[i].len = rl->len;
	c[i].n = rl->n;
	c[i].first = rl->first;
	c[i].last = rl->last;
	c[i].pins = 0;
	c[i].ref = 1;
	c[i].used = 1;
	cache_local.copies[i] = blob;
	ctl->cache_bytes += rl->len;
	ctl->cache_count++;
	gpuidx_exec_count(&ctl->stats.cache_inserts, 1);
	return true;
}

/*
 * Admission: a list is kept the second time it comes inline (a list used
 * once would only push out useful ones).  Returns true when key was seen
 * before; records it otherwise.
 */
static bool
cache_admit(gpx_key key)
{
	gpx_key    *set = &cache_local.seen[(key.lo & (CACHE_SEEN_SETS - 1)) * CACHE_SEEN_WAYS];

	for (int w = 0; w < CACHE_SEEN_WAYS; w++)
		if (gpx_key_eq(set[w], key))
			return true;
	memmove(set + 1, set, sizeof(gpx_key) * (CACHE_SEEN_WAYS - 1));
	set[0] = key;
	return false;
}

/*
 * Keep copies of the cacheable lists that came inline in the request of
 * a slot the executor holds (RUNNING or ABANDONED, so nobody else writes
 * its chunk).  Takes the lock for each list it looks up or inserts.
 */
void
gpuidx_exec_cache_keep(int slot)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	char	   *chunk = gpuidx_exec_chunk(slot);
	GpxReqList *rl = (GpxReqList *) (chunk + sl->lists_off);

	if (ctl->cache_cap == 0 || cache_local.copies == NULL)
		return;
	for (uint32 j = 0; j < sl->nlists; j++)
	{
		void	   *copy;
		bool		have;

		if ((rl[j].flags & (GPX_REQ_INLINE | GPX_REQ_CACHEABLE)) !=
			(GPX_REQ_INLINE | GPX_REQ_CACHEABLE) ||
			rl[j].len > ctl->cache_budget / 4 ||
			/* only bytes of this request (as exec_build_batch checks) */
			rl[j].off < sl->lists_off + sizeof(GpxReqList) * sl->nlists ||
			rl[j].off + rl[j].len > sl->out_off ||
			!cache_admit(rl[j].key))
			continue;
		LWLockAcquire(ctl->lock, LW_SHARED);
		have = gpuidx_exec_cache_find(rl[j].key, rl[j].len, rl[j].n,
									  rl[j].first, rl[j].last) >= 0;
		LWLockRelease(ctl->lock);
		if (have)
			continue;
		/* plain malloc: the cache outlives batches and frees per entry */
		copy = malloc(rl[j].len);
		if (copy == NULL)
			return;
		memcpy(copy, chunk + rl[j].off, rl[j].len);
		LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
		if (!cache_insert(&rl[j], copy))
			free(copy);
		LWLockRelease(ctl->lock);
	}
}
