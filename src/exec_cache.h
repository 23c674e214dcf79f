/*
 * exec_cache.h - the executor's list cache: list identity (keys), the
 * shared directory of cached lists (lookup, pins, insertion, CLOCK
 * eviction), the executor's copies of the lists and its admission filter,
 * and the stored-list keys that let a backend send a list it never read.
 * Internal to the exec_*.c files; the layout of the directory in shared
 * memory is in exec_shmem.h.
 *
 * Who calls what:
 *
 *   shared memory set-up    gpuidx_exec_cache_capacity, _extents, _seen,
 *                           _nreaders, _init_shared, _init_parts
 *   backends                gpuidx_exec_cache_key, _wants, _find, _pin,
 *                           _resolve_stored (lock: see each function);
 *                           reading in place: _read_pin, _read_unpin,
 *                           _offer
 *   slot release (both)     gpuidx_exec_cache_unpin
 *   the executor            gpuidx_exec_cache_clear, _pinned, _keep,
 *                           _reap_readers, gpuidx_exec_oid_position
 */
#ifndef EXEC_CACHE_H
#define EXEC_CACHE_H

#include "exec_client.h"
#include "exec_shmem.h"

/* Lists at least this large are cached, then sent by key. */
#define GPX_EXEC_CACHE_MIN_BYTES (32 * 1024)

/*
 * Stored lists at least this large are cached (and kept unread) too: their
 * key costs no hashing, and reading one from TOAST costs an index probe, a
 * few chunks and perhaps decompression, where the key costs nothing.
 */
#define GPX_EXEC_STORED_MIN_BYTES (4 * 1024)

/*
 * Longest gap between two samples of the OID counter within one epoch of
 * stored-list keys (see gpuidx_exec_oid_position): far less time than it
 * takes to hand out 2^32 OIDs, each taken under OidGenLock.
 */
#define GPX_EXEC_OID_MAX_GAP_US (5 * 1000 * 1000)

/* Directory entries for gpuidx.cache_size (0: no cache). */
extern int	gpuidx_exec_cache_capacity(void);

/* Free-extent records of the cache's data for a directory of cap entries. */
extern int	gpuidx_exec_cache_extents(int cap);

/* Keys of the admission filter (0 without a cache). */
extern int	gpuidx_exec_cache_seen(int cap);

/* Read-pin records, one per backend (0 without a cache). */
extern int	gpuidx_exec_cache_nreaders(int cap);

/* Set up the cache's fields of a fresh control block, the secret included. */
extern void gpuidx_exec_cache_init_shared(GpxExecShared *ctl);

/* Set up the cache's parts of a fresh region (once located). */
extern void gpuidx_exec_cache_init_parts(void);

/* The key of a list in memory, in this session's scope (database, role). */
extern gpx_key gpuidx_exec_cache_key(const gpx_list *l);

/* Whether the executor may cache a list of len bytes with this key. */
extern bool gpuidx_exec_cache_wants(uint32 len, gpx_key key);

/* Directory index of a cached list matching the reference, or -1 (lock held). */
extern int	gpuidx_exec_cache_find(gpx_key key, uint32 len, uint32 n,
								   uint32 first, uint32 last);

/*
 * Pin directory entry e for a request being built (lock held, either
 * mode: the pin count is atomic); returns where its bytes lie in the
 * cache's data.
 */
extern uint64 gpuidx_exec_cache_pin(int e);

/* Release the pins a slot's request holds (lock held, either mode). */
extern void gpuidx_exec_cache_unpin(int slot);

/*
 * Key the stored lists of s[0..n) not yet known and take the header fields
 * of those the executor caches from the directory (takes the lock shared).
 */
extern void gpuidx_exec_cache_resolve_stored(GpxExecStored *const *s, int n);

/* The OID counter's position in the current key epoch (takes oidlock). */
extern uint64 gpuidx_exec_oid_position(uint32 *epoch);

/*
 * Pin the cached copies of the stored lists of s[0..n) that are known
 * from the directory and not read, to read them in place: blobs[i] the
 * copy's bytes, or NULL (not cached any more, or no room for the pin).
 * Returns how many were pinned.  Takes the lock.
 */
extern int	gpuidx_exec_cache_read_pin(GpxExecStored *const *s, int n,
									   const uint8 **blobs);

/* Read pins held by all backends now (lock held). */
extern int	gpuidx_exec_cache_read_pins(void);

/* Release every read pin of this backend (takes the lock). */
extern void gpuidx_exec_cache_read_unpin(void);

/*
 * A stored list read by the backend: keep a copy in the cache (the second
 * time it is offered or sent, as for lists sent inline).  Takes the lock.
 */
extern void gpuidx_exec_cache_offer(GpxExecStored *s);

/* Executor: forget every cached list and start a new epoch (lock held). */
extern void gpuidx_exec_cache_clear(void);

/*
 * Executor: the cached copy of a list a request sent by key (pins taken in
 * epoch, rl->off where the pin found it), or NULL when the pins are of an
 * earlier epoch or the range lies outside the cache (no lock).
 */
extern const uint8 *gpuidx_exec_cache_pinned(const GpxReqList *rl, uint64 epoch);

/* Executor: keep copies of a finished request's cacheable inline lists. */
extern void gpuidx_exec_cache_keep(int slot);

/* Executor: release the read pins of backends that are gone (lock held). */
extern void gpuidx_exec_cache_reap_readers(void);

#endif							/* EXEC_CACHE_H */
