/*
 * gpx_cuda_cache.cuh - the device-resident list cache of one GPU: a pool
 * (one cudaMalloc of the cache budget, made by gpx_cuda_setup.cu) that a
 * best-fit allocator with coalescing hands out, and a directory of the
 * lists it holds, keyed by identity (gpx_key), with LRU eviction of the
 * entries no pending chunk uses.  Each entry holds a blob and its side tables (laid
 * out by gpx_cuda_plan_footprint) and the device view the kernels read.
 *
 * Host bookkeeping only: nothing here calls CUDA; the pipeline
 * (gpx_cuda.cu) copies the blobs in and builds the tables on the GPU.
 * Lists without a key, or whose key another entry already holds, get a
 * transient entry that the pipeline frees with its chunk.
 *
 * The key: everything that knows its type is in the next few lines.
 */
#ifndef GPX_CUDA_CACHE_CUH
#define GPX_CUDA_CACHE_CUH

#include <algorithm>
#include <list>
#include <map>
#include <unordered_map>
#include <vector>

#include "gpx_cuda_dev.cuh"
#include "gpx_cuda_plan.h"

/* A list's cache key: its identity key (gpx_key), as the batch carries it. */
typedef gpx_key gpx_ckey;

/* Whether a key names a list (the all-zero key: the list has none). */
inline bool
gpx_ckey_valid(const gpx_ckey &key)
{
	return !gpx_key_is_none(key);
}

/* The key of batch list bl; false when it has none. */
inline bool
gpx_ckey_of(const gpx_batch_list *bl, gpx_ckey *key)
{
	*key = bl->key;
	return gpx_ckey_valid(*key);
}

/* Hash of a key for the directory (the key is keyed-PRF output already). */
struct gpx_ckey_hash
{
	size_t operator()(const gpx_ckey &k) const { return gpx_key_hasher()(k); }
};

/* Equality of keys. */
struct gpx_ckey_eq
{
	bool operator()(const gpx_ckey &a, const gpx_ckey &b) const { return gpx_key_eq(a, b); }
};

/* Best-fit allocator over [0, cap) with coalescing of freed ranges. */
struct gpx_pool
{
	size_t		cap = 0;
	std::map<size_t, size_t> by_off;	/* free ranges: offset -> length */
	std::multimap<size_t, size_t> by_size;	/* length -> offset */

	void		init(size_t c);
	bool		alloc(size_t len, size_t *off);
	void		release(size_t off, size_t len);

private:
	void		add(size_t off, size_t len);
	void		drop_size(size_t len, size_t off);
};

/* A list resident in a device's cache pool. */
struct gpx_centry
{
	gpx_ckey	key;
	size_t		len;
	uint32_t	n,
				first,
				last;
	uint8_t		codec;
	size_t		off;			/* pool offset */
	size_t		bytes;			/* pool bytes (blob + tables) */
	gpx_dl		dl;				/* device view */
	uint64_t	last_seq;		/* last chunk that uses it */
	uint64_t	up_seq;			/* the chunk that uploads it (its blob and
								 * tables are ready once that chunk's
								 * uploads are) */
	bool		in_map;			/* false: transient (freed with its chunk) */
	std::list<gpx_centry *>::iterator lru;
	uint64_t	memo_seq;		/* chunk whose list slot memo_slot it has */
	uint32_t	memo_slot;
};

/* The list cache of one device. */
struct gpx_cache
{
	uint8_t    *d_pool = nullptr;	/* device memory of the pool */
	gpx_pool	pool;
	std::unordered_map<gpx_ckey, gpx_centry *, gpx_ckey_hash, gpx_ckey_eq> map;
	std::list<gpx_centry *> lru;	/* front: most recently used */
	size_t		cached_bytes = 0;
	uint64_t	hits = 0,
				misses = 0,
				evictions = 0;
};

/* The entry holding bl's list (same key and header fields), or nullptr. */
gpx_centry *gpx_cache_lookup(gpx_cache *c, const gpx_batch_list *bl);

/* Count a hit on e and mark it used by chunk seq. */
void		gpx_cache_hit(gpx_cache *c, gpx_centry *e, uint64_t seq);

/*
 * A new entry for bl's list, laid out as fp, used by chunk seq: pool
 * space found by evicting entries that no chunk after seq_done uses, or
 * nullptr when there is none now.
 */
gpx_centry *gpx_cache_add(gpx_cache *c, const gpx_batch_list *bl,
						  const gpx_cuda_footprint *fp, uint64_t seq,
						  uint64_t seq_done);

/*
 * A new entry e for list l, laid out as fp, among the side tables that the
 * chunk (or call) filling it builds (gpx_cuda_k_tables): appended to tbls
 * when it has any, *tbl_max and *skip_max grown to cover it.
 */
inline void
gpx_cache_note_tables(const gpx_centry *e, const gpx_list *l, const gpx_cuda_footprint *fp,
					  std::vector<gpx_dl> &tbls, uint32_t *tbl_max, uint32_t *skip_max)
{
	if (fp->tbl_nb != 0)
		*tbl_max = std::max(*tbl_max, fp->tbl_nb + 1);
	if (fp->skip_bytes != 0)
		*skip_max = std::max(*skip_max, l->nblocks);
	if (fp->tbl_nb != 0 || fp->skip_bytes != 0)
		tbls.push_back(e->dl);
}

/* Take back an entry gpx_cache_add made for a chunk that will not be sent. */
void		gpx_cache_unadd(gpx_cache *c, gpx_centry *e);

/* Unlink and free an entry (its chunk must be done). */
void		gpx_cache_drop(gpx_cache *c, gpx_centry *e);

/* Drop every entry (after an error: contents may be incomplete). */
void		gpx_cache_flush(gpx_cache *c);

/* Whether the directory holds a list with this key. */
bool		gpx_cache_has(const gpx_cache *c, const gpx_ckey &key);

/* Fill the device view of list l's blob copied to dev_blob (no tables). */
void		gpx_make_dl(const gpx_list *l, const uint8_t *dev_blob, gpx_dl *dl);

#endif							/* GPX_CUDA_CACHE_CUH */
