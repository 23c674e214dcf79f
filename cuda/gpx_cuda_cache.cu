/*
 * gpx_cuda_cache.cu - the device list cache of one GPU and its pool
 * allocator (see gpx_cuda_cache.cuh).  Host bookkeeping, no CUDA call.
 */
#include "gpx_cuda_cache.cuh"

#include <string.h>

/* ---------------------------------------------------------- allocator -- */

/* Start with everything free. */
void
gpx_pool::init(size_t c)
{
	cap = c;
	by_off.clear();
	by_size.clear();
	if (c > 0)
		add(0, c);
}

/* Record a free range. */
void
gpx_pool::add(size_t off, size_t len)
{
	by_off[off] = len;
	by_size.emplace(len, off);
}

/* Forget the size index entry of a free range. */
void
gpx_pool::drop_size(size_t len, size_t off)
{
	auto		r = by_size.equal_range(len);

	for (auto it = r.first; it != r.second; ++it)
		if (it->second == off)
		{
			by_size.erase(it);
			return;
		}
}

/* Take len bytes (best fit); false when no free range is long enough. */
bool
gpx_pool::alloc(size_t len, size_t *off)
{
	auto		it = by_size.lower_bound(len);
	size_t		blen,
				boff;

	if (it == by_size.end())
		return false;
	blen = it->first;
	boff = it->second;
	by_size.erase(it);
	by_off.erase(boff);
	if (blen > len)
		add(boff + len, blen - len);
	*off = boff;
	return true;
}

/* Give a range back, merging it with free neighbours. */
void
gpx_pool::release(size_t off, size_t len)
{
	auto		next = by_off.lower_bound(off);

	if (next != by_off.end() && next->first == off + len)
	{
		len += next->second;
		drop_size(next->second, next->first);
		next = by_off.erase(next);
	}
	if (next != by_off.begin())
	{
		auto		prev = std::prev(next);

		if (prev->first + prev->second == off)
		{
			off = prev->first;
			len += prev->second;
			drop_size(prev->second, prev->first);
			by_off.erase(prev);
		}
	}
	add(off, len);
}

/* -------------------------------------------------------------- cache -- */

/* Evict the least recently used entry that no chunk after seq_done uses. */
static bool
gpx_cache_evict_one(gpx_cache *c, uint64_t seq_done)
{
	for (auto it = c->lru.rbegin(); it != c->lru.rend(); ++it)
	{
		gpx_centry *e = *it;

		if (e->last_seq <= seq_done)
		{
			gpx_cache_drop(c, e);
			c->evictions++;
			return true;
		}
	}
	return false;
}

/* The entry holding bl's list (same key and header fields), or nullptr. */
gpx_centry *
gpx_cache_lookup(gpx_cache *c, const gpx_batch_list *bl)
{
	const gpx_list *l = &bl->list;
	gpx_ckey	key;
	gpx_centry *e;

	if (!gpx_ckey_of(bl, &key))
		return nullptr;
	auto		it = c->map.find(key);

	if (it == c->map.end())
		return nullptr;
	e = it->second;
	if (e->len == l->len && e->n == l->n && e->first == l->first &&
		e->last == l->last && e->codec == l->codec)
		return e;
	return nullptr;
}

/* Count a hit on e and mark it used by chunk seq. */
void
gpx_cache_hit(gpx_cache *c, gpx_centry *e, uint64_t seq)
{
	c->hits++;
	c->lru.splice(c->lru.begin(), c->lru, e->lru);
	e->last_seq = seq;
}

/* A new entry for bl's list, laid out as fp (see gpx_cuda_cache.cuh). */
gpx_centry *
gpx_cache_add(gpx_cache *c, const gpx_batch_list *bl, const gpx_cuda_footprint *fp,
			  uint64_t seq, uint64_t seq_done)
{
	const gpx_list *l = &bl->list;
	gpx_centry *e;
	size_t		off;
	bool		keyed;

	while (!c->pool.alloc(fp->bytes, &off))
		if (!gpx_cache_evict_one(c, seq_done))
			return nullptr;
	e = new gpx_centry;
	keyed = gpx_ckey_of(bl, &e->key);
	e->len = l->len;
	e->n = l->n;
	e->first = l->first;
	e->last = l->last;
	e->codec = l->codec;
	e->off = off;
	e->bytes = fp->bytes;
	e->last_seq = seq;
	e->up_seq = seq;
	e->memo_seq = 0;
	e->memo_slot = 0;
	gpx_make_dl(l, c->d_pool + off, &e->dl);
	if (fp->tbl_nb != 0)
	{
		e->dl.tbl = (const uint32_t *) (c->d_pool + off + fp->tbl_off);
		e->dl.tbl_shift = fp->tbl_shift;
		e->dl.tbl_nb = fp->tbl_nb;
	}
	if (fp->skip_bytes != 0)
		e->dl.skip = (const uint4 *) (c->d_pool + off + fp->skip_off);
	e->in_map = keyed && c->map.find(e->key) == c->map.end();
	if (e->in_map)
		c->map[e->key] = e;
	c->lru.push_front(e);
	e->lru = c->lru.begin();
	c->cached_bytes += fp->bytes;
	c->misses++;
	return e;
}

/* Take back an entry gpx_cache_add made for a chunk that will not be sent. */
void
gpx_cache_unadd(gpx_cache *c, gpx_centry *e)
{
	c->misses--;
	gpx_cache_drop(c, e);
}

/* Unlink and free an entry (its chunk must be done). */
void
gpx_cache_drop(gpx_cache *c, gpx_centry *e)
{
	if (e->in_map)
	{
		auto		it = c->map.find(e->key);

		if (it != c->map.end() && it->second == e)
			c->map.erase(it);
	}
	c->lru.erase(e->lru);
	c->pool.release(e->off, e->bytes);
	c->cached_bytes -= e->bytes;
	delete e;
}

/* Drop every entry (after an error: contents may be incomplete). */
void
gpx_cache_flush(gpx_cache *c)
{
	while (!c->lru.empty())
		gpx_cache_drop(c, c->lru.front());
	c->map.clear();
	c->pool.init(c->pool.cap);
	c->cached_bytes = 0;
}

/* Whether the directory holds a list with this key. */
bool
gpx_cache_has(const gpx_cache *c, const gpx_ckey &key)
{
	return gpx_ckey_valid(key) && c->map.find(key) != c->map.end();
}

/*
 * Fill the device view of list l's blob copied to dev_blob, a 16-byte
 * aligned address followed by the blob's zero padding (GPX_BLOB_PAD in
 * gpx_cuda_host.cuh), no tables, from gpx_dev_view.
 */
void
gpx_make_dl(const gpx_list *l, const uint8_t *dev_blob, gpx_dl *dl)
{
	gpx_devview v;

	memset(dl, 0, sizeof(*dl));
	if (gpx_dev_view(l, &v) != GPX_OK)
		return;					/* gpx_cuda_list_ok said no: never used */
	dl->dir = v.dir_off != 0 ? dev_blob + v.dir_off : nullptr;
	dl->payload = dev_blob + v.payload_off;
	dl->n = l->n;
	dl->nblocks = l->nblocks;
	dl->first = l->first;
	dl->last = l->last;
	dl->payload_words = v.payload_words;
	dl->payload_bytes = v.payload_bytes;
	dl->payload_bit = v.payload_bit;
	dl->qs_low_words = v.qs_low_words;
	dl->dir_stride = v.dir_stride;
	dl->codec = l->codec;
	dl->param = l->param;
	dl->log2_block = l->log2_block;
	dl->version = v.version;
	dl->kind0 = v.kind0;
	if (v.tf_off != 0)
	{
		dl->tf = (const uint32_t *) (dev_blob + v.tf_off);
		dl->tf_words = v.tf_bytes / 4;
	}
}
