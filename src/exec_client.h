/*
 * exec_client.h - how SQL functions hand intersections and unions to the
 * executor.
 *
 * Entry points for the intersection aggregate and the batch function:
 *
 *   gpuidx_exec_intersect()      one query; true when the executor
 *                                computed it, false when the caller
 *                                must compute it in the backend
 *   gpuidx_exec_intersect_many() many queries as one batch of requests
 *   gpuidx_exec_intersect_all()  many queries, every one answered: the
 *                                executor where it is routed, the
 *                                backend for the rest (and for every
 *                                fallback); errors are raised here
 *
 * and for the union aggregates (posting_unionagg.c):
 *
 *   gpuidx_exec_union_many()     many union queries (each with its
 *                                docIDs or only their number) as one
 *                                batch of requests of their own kind;
 *                                the caller computes those not done
 *
 * The lists are parsed views (gpx_open) of blobs in the backend's memory;
 * the executor receives copies (or only a key when it already caches the
 * list), never pointers.  A list may also be a stored value not read yet
 * (GpxExecStored): when the executor caches it, only its key travels and
 * the backend never detoasts it; otherwise it is read on demand.
 * Without shared_preload_libraries = 'gpuidx', with gpuidx.use_executor =
 * off, or when gpuidx.device = auto estimates the backend to be faster,
 * nothing leaves the backend.
 */
#ifndef EXEC_CLIENT_H
#define EXEC_CLIENT_H

#include "postgres.h"

#include "portability/instr_time.h"

#include "gpx_batch.h"

/*
 * A list stored out of line (an on-disk TOAST value) that the backend has
 * not read.  Its identity is the TOAST pointer; gpuidx_exec_resolve fills
 * the header fields of l from the executor's cache when it holds the list,
 * else reads it.  The owner embeds it and provides read(), which detoasts
 * the value and sets l (l.base != NULL from then on); read() may raise an
 * ERROR, and is never called with the executor's lock held.
 */
typedef struct GpxExecStored
{
	gpx_list	l;				/* l.base == NULL while not read */
	Oid			toastrelid;		/* TOAST pointer of the value */
	Oid			valueid;
	uint32		len;			/* blob bytes (raw size less the header) */
	bool		known;			/* l.len, n, first, last are set */
	bool		keyed;			/* key is set */
	bool		offered;		/* offered to the cache once read */
	gpx_key		key;			/* the executor's cache key of the list */
	void		(*read) (struct GpxExecStored *s);
} GpxExecStored;

/* One intersection or union query. */
typedef struct GpxExecQuery
{
	const gpx_list *const *lists;	/* k >= 1 lists (header fields known) */
	GpxExecStored *const *stored;	/* NULL, or per list the stored value
									 * behind lists[j] (NULL: in memory) */
	int			k;
	uint32	   *out;			/* intersection: room for the shortest
								 * list's n values; union: outcap values */
	uint32		outcap;			/* union: room at out (a union that does
								 * not fit is left to the caller) */
	bool		count;			/* union: only its size, into outn */
	uint32		outn;			/* result count, once computed */
	bool		done;			/* computed (by the executor or _all) */
} GpxExecQuery;

/* Run one query on the executor; false: compute it in the backend. */
extern bool gpuidx_exec_intersect(const gpx_list *const *lists, int k,
								  uint32 *out, uint32 *outn);

/* Send queries to the executor as one batch; returns how many it computed. */
extern int	gpuidx_exec_intersect_many(GpxExecQuery *qs, int nq);

/*
 * Send union queries (stored must be NULL) to the executor as one set;
 * returns how many it computed (done set).  Not routed, or not computed
 * (the executor down, full, timed out, failed): the caller computes them,
 * unless gpuidx.executor_fallback is off, which raises the error here.
 */
extern int	gpuidx_exec_union_many(GpxExecQuery *qs, int nq);

/* Whether the executor takes requests now (worth gathering queries for). */
extern bool gpuidx_exec_can_batch(void);

/* Whether a stored list of len bytes is worth keeping unread until the end. */
extern bool gpuidx_exec_keeps_stored(uint32 len);

/* Make stored lists usable: header fields from the executor's cache, or read. */
extern void gpuidx_exec_resolve(GpxExecStored *const *s, int n);

/* Read a stored list now if it has not been read (for the backend). */
extern void gpuidx_exec_read_stored(GpxExecStored *s);

/*
 * Read the stored lists the shared cache holds in place: pinned and
 * opened (use[j] = &opened[j]), the others read (use[j] = lists[j]).
 * Returns the pins held; nothing that can raise an error may run before
 * gpuidx_exec_cache_read_unpin().
 */
extern int	gpuidx_exec_pin_in_place(GpxExecStored *const *s,
									 const gpx_list *const *lists, int n,
									 const gpx_list **use, gpx_list *opened);

/* Count n stored lists read in place (gpuidx_stats.lists_read_shared). */
extern void gpuidx_exec_note_read_shared(int n);

/* Offer the stored lists that had to be read to the shared cache. */
extern void gpuidx_exec_offer_read(GpxExecStored *const *s, int n);

/* Answer every query: executor where routed, backend for the rest. */
extern void gpuidx_exec_intersect_all(GpxExecQuery *qs, int nq);

/*
 * For the other request kinds (exec_rank.c): the in-flight bookkeeping
 * (requests given up on error, cancel and backend exit) and the
 * gpuidx.device checks that intersections use.
 */
extern void gpuidx_exec_client_begin(void);
extern void gpuidx_exec_client_track(int slot, uint64 gen);
extern void gpuidx_exec_client_release_locked(int slot, uint64 gen);
extern void gpuidx_exec_client_release_all(void);
extern void gpuidx_exec_client_check_preloaded(void);
extern void gpuidx_exec_client_check_gpu(int nq);

/*
 * Waiting for a request, for every kind: a look without the lock, and the
 * sleep, after a spin of up to gpuidx.spin_wait (exec_client.c says when
 * each applies).
 */
typedef enum GpxExecLook
{
	GPX_LOOK_WAIT,				/* in time: sleep on */
	GPX_LOOK_DONE,				/* collect it now */
	GPX_LOOK_LOCK				/* only the lock can tell */
} GpxExecLook;

extern GpxExecLook gpuidx_exec_client_look(int slot, uint64 gen,
										   instr_time submitted, instr_time now,
										   long *sleep_ms);
extern void gpuidx_exec_client_block(const int *slots, int n, long sleep_ms);

#endif							/* EXEC_CLIENT_H */
