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
 * full) is probed linearly by the key's low bits.  It and the copies
 * themselves (the cache's data, gpuidx.cache_size bytes, first fit) live
 * in shared memory under the executor's lock, so that a backend can read
 * a cached list in place (gpuidx_exec_cache_read_pin) instead of reading
 * it from TOAST or sending its query to the executor.  The executor keeps
 * lists that come inline in requests; a backend keeps stored lists it had
 * to read (gpuidx_exec_cache_offer); both only the second time a list
 * comes (the admission filter).  Whoever inserts evicts (CLOCK), never an
 * entry pinned by a queued request (pins) or read in place (readers).
 *
 * Why a backend may trust the bytes it reads in place: they are a copy,
 * made by a PostgreSQL process of this server, of a blob that was read
 * from a table (and checked when it was stored, as every value of the
 * types is) or sent in a request; the key names that content (PRF), the
 * entry's length and header fields are checked against the reference,
 * and gpx_open checks that the blob's own header and directory agree with
 * its length, as the executor checks every list it is sent.  Shared
 * memory is as trusted as shared buffers: only server processes map it.
 */
#include "postgres.h"

#include "access/transam.h"
#include "miscadmin.h"
#include "storage/backendid.h"
#include "storage/proc.h"
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

/* Free-extent records of the cache's data: one per entry, plus two. */
int
gpuidx_exec_cache_extents(int cap)
{
	return cap > 0 ? cap / 2 + 2 : 0;
}

/* Keys of the admission filter (0 without a cache). */
int
gpuidx_exec_cache_seen(int cap)
{
	return cap > 0 ? CACHE_SEEN_SETS * CACHE_SEEN_WAYS : 0;
}

/* Read-pin records: one per backend id (0 without a cache). */
int
gpuidx_exec_cache_nreaders(int cap)
{
	return cap > 0 ? MaxBackends : 0;
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
	ctl->cache_budget = ctl->cache_cap > 0 ?
		(uint64) gpuidx_exec_cache_kb * 1024 : 0;
	ctl->cache_pool.size = ctl->cache_budget;
	ctl->cache_pool.max = gpuidx_exec_cache_extents(ctl->cache_cap);
	ctl->cache_readers = gpuidx_exec_cache_nreaders(ctl->cache_cap);
	ctl->cache_epoch = 1;
	ctl->keys_ok = pg_strong_random(secret, sizeof(secret));
	if (ctl->keys_ok)
		gpx_keyset_init(&ctl->keys, secret);
	explicit_bzero(secret, sizeof(secret));
}

/* Set up the cache's parts of a fresh region: empty, the data one extent. */
void
gpuidx_exec_cache_init_parts(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (ctl->cache_cap == 0)
		return;
	memset(gpuidx_exec_shm->cache, 0, sizeof(GpxCacheEntry) * ctl->cache_cap);
	memset(gpuidx_exec_shm->cache_seen, 0,
		   sizeof(gpx_key) * gpuidx_exec_cache_seen(ctl->cache_cap));
	memset(gpuidx_exec_shm->cache_readers, 0,
		   sizeof(GpxCacheReader) * ctl->cache_readers);
	gpuidx_exec_shm->cache_extents[0].off = 0;
	gpuidx_exec_shm->cache_extents[0].len = ctl->cache_pool.size;
	ctl->cache_pool.n = 1;
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
 * sets *epoch.  Takes oidlock (a spinlock), so samples are ordered; any
 * lock may be held.
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
	uint64		pos;

	SpinLockAcquire(&ctl->oidlock);
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
	pos = ctl->oid_pos;
	SpinLockRelease(&ctl->oidlock);
	return pos;
}

/* --------------------------------------------------------- directory -- */

/*
 * Directory index of the entry with this key and blob length, and when
 * hdr is given also these header fields (n, first, last); -1 if none.
 * Entries being filled or gone are found only with all.  Linear probing;
 * lock held.
 */
static int
cache_probe(gpx_key key, uint32 len, const uint32 *hdr, bool all)
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
			(all || (!c[i].filling && !c[i].gone)) &&
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

	return cache_probe(key, len, hdr, false);
}

/*
 * Pin entry e: a queued request sends it by key (lock held, either mode:
 * the count is atomic).  Counts as a use for CLOCK.  Returns the offset of its bytes in the
 * cache's data, where they stay while pinned (only an unpinned entry is
 * evicted, and nothing else moves data) until a new epoch.
 */
uint64
gpuidx_exec_cache_pin(int e)
{
	Assert(e >= 0 && e < gpuidx_exec_shm->ctl->cache_cap &&
		   gpuidx_exec_shm->cache[e].used);
	pg_atomic_fetch_add_u32(&gpuidx_exec_shm->cache[e].pins, 1);
	/* a racy store of 1 among sharers; eviction clears it exclusively */
	gpuidx_exec_shm->cache[e].ref = 1;
	return gpuidx_exec_shm->cache[e].off;
}

/* Release the cache pins a slot's request holds; lock held, either mode. */
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
		if (e >= 0)
		{
			pg_atomic_uint32 *pins = &gpuidx_exec_shm->cache[e].pins;
			uint32		cur = pg_atomic_read_u32(pins);

			/* never below zero (a pin of an older epoch is not counted) */
			while (cur > 0 && !pg_atomic_compare_exchange_u32(pins, &cur, cur - 1))
				;
		}
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

	/* shared: probes only; the OID sample has its own spinlock */
	LWLockAcquire(ctl->lock, LW_SHARED);
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
		e = cache_probe(st->key, st->len, NULL, false);
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

/* ------------------------------------------------ entries and data -- */

/* The bytes of directory entry e, in the cache's data. */
static inline const uint8 *
cache_bytes(int e)
{
	return (const uint8 *) gpuidx_exec_shm->cache_data +
		gpuidx_exec_shm->cache[e].off;
}

/* Remove directory entry i (backward-shift deletion), freeing its bytes; lock held. */
static void
cache_remove(uint32 i)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		j = i;

	Assert(c[i].used && pg_atomic_read_u32(&c[i].pins) == 0 &&
		   c[i].readers == 0 && !c[i].filling);
	ctl->cache_bytes -= c[i].len;
	ctl->cache_count--;
	gpuidx_exec_extent_free(&ctl->cache_pool, gpuidx_exec_shm->cache_extents,
							c[i].off, c[i].len);
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
			c[j].used = 0;
			i = j;
		}
	}
}

/*
 * Make room for a list of len bytes: evict unpinned, unread lists (CLOCK)
 * until the directory has room for one more and the data an extent of
 * len bytes; sets *off.  False when everything left is in use.  Lock
 * held exclusively.
 */
static bool
cache_make_room(uint64 len, uint64 *off)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		steps = 0;

	for (;;)
	{
		uint32		i;

		if ((uint64) (ctl->cache_count + 1) * 2 <= (uint64) ctl->cache_cap &&
			gpuidx_exec_extent_alloc(&ctl->cache_pool,
									 gpuidx_exec_shm->cache_extents, len, off))
			return true;
		i = ctl->cache_hand & mask;
		if (steps++ > 3 * (uint32) ctl->cache_cap)
			return false;		/* everything is pinned, read or filled */
		ctl->cache_hand++;
		if (!c[i].used || pg_atomic_read_u32(&c[i].pins) > 0 || c[i].readers > 0 ||
			c[i].filling)
			continue;
		if (c[i].ref)
		{
			c[i].ref = 0;
			continue;
		}
		cache_remove(i);
		gpuidx_exec_count(&ctl->stats.cache_evictions, 1);
		/* the shift may have moved an unvisited entry into i: look again */
		ctl->cache_hand--;
	}
}

/*
 * Admission: a list is kept the second time it comes (a list used once
 * would only push out useful ones).  Returns true when key was seen
 * before; records it otherwise.  Lock held exclusively.
 */
static bool
cache_admit(gpx_key key)
{
	gpx_key    *set = &gpuidx_exec_shm->cache_seen[(key.lo & (CACHE_SEEN_SETS - 1)) *
												  CACHE_SEEN_WAYS];

	for (int w = 0; w < CACHE_SEEN_WAYS; w++)
		if (gpx_key_eq(set[w], key))
			return true;
	memmove(set + 1, set, sizeof(gpx_key) * (CACHE_SEEN_WAYS - 1));
	set[0] = key;
	return false;
}

/*
 * Keep a copy of the list rl describes, whose bytes are at blob: admitted
 * the second time, unless cached already.  The entry is reserved under
 * the lock (filling: found by nobody, evicted by nobody), the bytes are
 * copied without it, and the entry is published under it again.  Nothing
 * between can raise an error.  Takes the lock.
 */
static void
cache_add(const GpxReqList *rl, const void *blob)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;
	uint32		mask = (uint32) ctl->cache_cap - 1;
	uint32		hdr[3] = {rl->n, rl->first, rl->last};
	uint64		off;
	uint32		i;
	int			e;

	if (ctl->cache_cap == 0 || gpx_key_is_none(rl->key) || rl->len == 0 ||
		rl->len > ctl->cache_budget / 4)
		return;
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	if (!cache_admit(rl->key) || cache_probe(rl->key, rl->len, hdr, true) >= 0 ||
		!cache_make_room(rl->len, &off))
	{
		LWLockRelease(ctl->lock);
		return;
	}
	for (i = (uint32) rl->key.lo & mask; c[i].used; i = (i + 1) & mask)
		;
	memset(&c[i], 0, sizeof(GpxCacheEntry));
	pg_atomic_init_u32(&c[i].pins, 0);
	c[i].key = rl->key;
	c[i].off = off;
	c[i].len = rl->len;
	c[i].n = rl->n;
	c[i].first = rl->first;
	c[i].last = rl->last;
	c[i].filling = 1;
	c[i].used = 1;
	ctl->cache_bytes += rl->len;
	ctl->cache_count++;
	LWLockRelease(ctl->lock);

	memcpy(gpuidx_exec_shm->cache_data + off, blob, rl->len);

	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	/* the bytes are in before anyone can find the entry (the lock orders them) */
	e = cache_probe(rl->key, rl->len, hdr, true);
	Assert(e >= 0 && c[e].filling);
	c[e].filling = 0;
	c[e].ref = 1;
	if (c[e].gone && c[e].readers == 0)
		cache_remove((uint32) e);	/* a clear came meanwhile */
	else if (!c[e].gone)
		gpuidx_exec_count(&ctl->stats.cache_inserts, 1);
	LWLockRelease(ctl->lock);
}

/*
 * Forget every cached list and start a new epoch; lock held.  Lists being
 * read in place or filled stay where they are, gone (found only by their
 * readers and filler), until those are done with them.
 */
void
gpuidx_exec_cache_clear(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheEntry *c = gpuidx_exec_shm->cache;

	/* removal shifts later entries into i: look at i again */
	for (int i = 0; i < ctl->cache_cap;)
	{
		pg_atomic_write_u32(&c[i].pins, 0);	/* pins of the old epoch are not
											 * released */
		if (c[i].used && !c[i].gone && c[i].readers == 0 && !c[i].filling)
		{
			cache_remove((uint32) i);
			continue;
		}
		if (c[i].used)
		{
			c[i].gone = 1;
			c[i].ref = 0;
		}
		i++;
	}
	if (ctl->cache_cap > 0)
		memset(gpuidx_exec_shm->cache_seen, 0,
			   sizeof(gpx_key) * gpuidx_exec_cache_seen(ctl->cache_cap));
	ctl->cache_epoch++;
}

/* ---------------------------------------------------------- executor -- */

/*
 * The cached copy of a list sent by key, at the offset its request's pin
 * gave (rl->off, from gpuidx_exec_cache_pin), or NULL when the request's
 * pins are of another epoch or the range is not in the cache's data.  No
 * lock: the pin keeps the bytes in place, and only the executor starts a
 * new epoch.  The caller checks the blob and its header fields.
 */
const uint8 *
gpuidx_exec_cache_pinned(const GpxReqList *rl, uint64 epoch)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	if (ctl->cache_cap == 0 || epoch != ctl->cache_epoch ||
		rl->len == 0 || rl->off > ctl->cache_pool.size ||
		rl->len > ctl->cache_pool.size - rl->off)
		return NULL;
	return (const uint8 *) gpuidx_exec_shm->cache_data + rl->off;
}

/*
 * Keep copies of the cacheable lists that came inline in the request of
 * a slot the executor holds (RUNNING or ABANDONED, so nobody else writes
 * its chunk).  Takes the lock for each list it looks at.
 */
void
gpuidx_exec_cache_keep(int slot)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxExecSlot *sl = &gpuidx_exec_shm->slots[slot];
	char	   *chunk = gpuidx_exec_chunk(slot);
	GpxReqList *rl = (GpxReqList *) (chunk + sl->lists_off);

	if (ctl->cache_cap == 0)
		return;
	for (uint32 j = 0; j < sl->nlists; j++)
	{
		if ((rl[j].flags & (GPX_REQ_INLINE | GPX_REQ_CACHEABLE)) !=
			(GPX_REQ_INLINE | GPX_REQ_CACHEABLE) ||
		/* only bytes of this request (as exec_build_batch checks) */
			rl[j].off < sl->lists_off + sizeof(GpxReqList) * sl->nlists ||
			rl[j].off + rl[j].len > sl->out_off)
			continue;
		cache_add(&rl[j], chunk + rl[j].off);
	}
}

/* Release the read pins of record r (its owner is done or gone); lock held. */
static void
cache_reader_release(GpxCacheReader *r)
{
	GpxCacheEntry *c = gpuidx_exec_shm->cache;

	for (int k = 0; k < r->nrefs; k++)
	{
		GpxCacheReadRef *f = &r->refs[k];
		uint32		hdr[3] = {f->n, f->first, f->last};
		int			e = cache_probe(f->key, f->len, hdr, true);

		/* the one entry that can hold a read pin: found as it was pinned */
		if (e < 0 || c[e].readers <= 0)
			continue;
		c[e].readers--;
		if (c[e].gone && c[e].readers == 0 && !c[e].filling)
			cache_remove((uint32) e);
	}
	r->nrefs = 0;
}

/* Executor: release the read pins of backends that are gone; lock held. */
void
gpuidx_exec_cache_reap_readers(void)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;

	for (int b = 0; b < ctl->cache_readers; b++)
	{
		GpxCacheReader *r = &gpuidx_exec_shm->cache_readers[b];

		if (r->nrefs == 0)
			continue;
		if (r->procno < 0 || (uint32) r->procno >= ProcGlobal->allProcCount ||
			ProcGlobal->allProcs[r->procno].pid != r->pid)
			cache_reader_release(r);
	}
}

/* ---------------------------------------------------------- backends -- */

/* This backend's read-pin record, or NULL (no cache, no backend id). */
static GpxCacheReader *
cache_my_reader(void)
{
	if (MyBackendId == InvalidBackendId || MyBackendId < 1 ||
		MyBackendId > gpuidx_exec_shm->ctl->cache_readers)
		return NULL;
	return &gpuidx_exec_shm->cache_readers[MyBackendId - 1];
}

/*
 * Pin the cached copies of the stored lists of s[0..n) known from the
 * directory and not read (keyed, header fields known, no bytes): blobs[i]
 * their bytes, NULL for the others and for those evicted since they were
 * resolved.  Each pin is recorded in this backend's record, so that
 * gpuidx_exec_cache_read_unpin (or, should this backend vanish, the
 * executor) finds it again.  Returns how many were pinned.  Takes the
 * lock.
 */
int
gpuidx_exec_cache_read_pin(GpxExecStored *const *s, int n, const uint8 **blobs)
{
	GpxExecShared *ctl = gpuidx_exec_shm->ctl;
	GpxCacheReader *r = cache_my_reader();
	int			pinned = 0;

	for (int i = 0; i < n; i++)
		blobs[i] = NULL;
	if (r == NULL)
		return 0;
	LWLockAcquire(ctl->lock, LW_EXCLUSIVE);
	if (r->nrefs > 0 && r->pid != MyProcPid)
		cache_reader_release(r);	/* left by an earlier owner of the id */
	r->pid = MyProcPid;
	r->procno = MyProc->pgprocno;
	for (int i = 0; i < n; i++)
	{
		GpxExecStored *st = s[i];
		GpxCacheReadRef *f;
		int			e;

		if (st == NULL || st->l.base != NULL || !st->known || !st->keyed ||
			r->nrefs >= GPX_CACHE_READ_REFS)
			continue;
		e = gpuidx_exec_cache_find(st->key, st->len, st->l.n, st->l.first,
								   st->l.last);
		if (e < 0)
			continue;
		gpuidx_exec_shm->cache[e].readers++;
		gpuidx_exec_shm->cache[e].ref = 1;
		f = &r->refs[r->nrefs++];
		f->key = st->key;
		f->len = st->len;
		f->n = st->l.n;
		f->first = st->l.first;
		f->last = st->l.last;
		blobs[i] = cache_bytes(e);
		pinned++;
	}
	LWLockRelease(ctl->lock);
	return pinned;
}

/* Read pins held by all backends now; lock held. */
int
gpuidx_exec_cache_read_pins(void)
{
	int			pins = 0;

	for (int b = 0; b < gpuidx_exec_shm->ctl->cache_readers; b++)
		pins += gpuidx_exec_shm->cache_readers[b].nrefs;
	return pins;
}

/* Release every read pin of this backend; takes the lock. */
void
gpuidx_exec_cache_read_unpin(void)
{
	GpxCacheReader *r;

	if (gpuidx_exec_shm == NULL || (r = cache_my_reader()) == NULL ||
		r->nrefs == 0)
		return;
	LWLockAcquire(gpuidx_exec_shm->ctl->lock, LW_EXCLUSIVE);
	if (r->pid == MyProcPid)
		cache_reader_release(r);
	LWLockRelease(gpuidx_exec_shm->ctl->lock);
}

/*
 * A stored list the backend had to read (its key names it: keyed): keep
 * a copy, the second time one is offered or sent, so that later queries
 * read it in place.  Once per stored value of a statement.  Takes the
 * lock.
 */
void
gpuidx_exec_cache_offer(GpxExecStored *s)
{
	GpxReqList	rl;

	if (s->offered || !s->keyed || s->l.base == NULL ||
		!gpuidx_exec_cache_wants((uint32) s->l.len, s->key))
		return;
	s->offered = true;
	memset(&rl, 0, sizeof(rl));
	rl.key = s->key;
	rl.len = (uint32) s->l.len;
	rl.n = s->l.n;
	rl.first = s->l.first;
	rl.last = s->l.last;
	cache_add(&rl, s->l.base);
}
